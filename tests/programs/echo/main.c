/*
 * echo: a server for IPC tests. Every call comes back with its label plus
 * one, its words, its buffer reversed, and in word 7 the caller's badge.
 * A capability sent along is returned to the caller unchanged.
 */
#include <spoor.h>

int main(void)
{
	static uint8_t in[IPC_BUF_MAX], out[IPC_BUF_MAX];
	struct ipc_regs m = {0};
	struct ipc_extra x = {.timeout_ns = TIMEOUT_FOREVER, .send_cap = IPC_NO_CAP};
	long err;

	x.recv_buf = (uint64_t)(uintptr_t)in;
	x.recv_max = sizeof(in);
	err = sys_ipc_recv(CAP_SLOT_SERVICE, &m, &x);
	while (err != -EPIPE) {
		if (err) {
			m = (struct ipc_regs){0};
			x.send_len = 0;
			x.send_cap = IPC_NO_CAP;
			err = sys_ipc_recv(CAP_SLOT_SERVICE, &m, &x);
			continue;
		}
		for (uint32_t i = 0; i < x.recv_len; i++) {
			out[i] = in[x.recv_len - 1 - i];
		}
		m.words[7] = m.badge;
		m.info = IPC_INFO(IPC_INFO_LABEL(m.info) + 1, IPC_WORDS);
		x.send_buf = (uint64_t)(uintptr_t)out;
		x.send_len = x.recv_len;
		x.send_cap = x.recv_cap;
		x.send_cap_rights = CAP_RIGHTS_ALL;
		err = sys_ipc_reply_recv(CAP_SLOT_SERVICE, &m, &x);
		/* The capability went back (or nowhere): our slot copy goes either way. */
		if (x.send_cap != IPC_NO_CAP) {
			sys_cap_delete((int)x.send_cap);
		}
	}
	return 0;
}
