/*
 * roles: ipctest started by a test in another process, with its endpoint
 * in ROLE_SLOT_ENDPOINT (and a frame in ROLE_SLOT_FRAME where noted).
 * Roles print only failures; their exit status (0 or 1) is their verdict,
 * which the test that started them checks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fnv.h"
#include "ipctest.h"

#define SEQ_TIMEOUT_NS (20 * S)

__attribute__((noreturn)) static void role_exit(void)
{
	exit(failures() ? 1 : 0);
}

/* Sleeps until killed: a server that never answers, or answers no more. */
__attribute__((noreturn)) static void sleep_forever(void)
{
	for (;;) {
		sys_sleep_ns(S);
	}
}

/*
 * Checks a frame that arrived in slot as LABEL_FRAME's words describe.
 * Returns the FNV-1a of the bytes it read in it, or 0 if it could not map it.
 */
static uint64_t check_received_frame(int slot, uint64_t seed, uint32_t want_rights,
				     uint64_t write_seed)
{
	const uint64_t len = FRAME_BYTES;
	struct cap_info info;

	if (!check("identify the received frame", sys_cap_identify(slot, &info), 0)) {
		return 0;
	}
	check("kind of the received capability", info.kind, CAP_KIND_FRAME);
	check("rights of the received frame", info.rights, want_rights);
	check("size of the received frame", (long)info.size, (long)len);
	long addr = sys_mem_map_frame(slot, NULL, PROT_READ);
	if (!check_true("map the received frame readable", addr > 0, "%ld", addr)) {
		return 0;
	}
	const uint8_t *bytes = (const uint8_t *)addr;
	uint64_t read = ttrace_fnv1a(TTRACE_FNV_OFFSET, bytes, len);
	for (uint64_t i = 0; i < len; i++) {
		if (!check_true("the frame holds the sender's pattern",
				bytes[i] == pattern_byte(seed, i), "byte %llu is %#x, want %#x",
				(unsigned long long)i, bytes[i], pattern_byte(seed, i))) {
			break;
		}
	}
	if (!(want_rights & CAP_RIGHT_WRITE)) {
		char byte = 0;
		check("map a read-only frame writable",
		      sys_mem_map_frame(slot, NULL, PROT_READ | PROT_WRITE), -EACCES);
		check("mem_protect its read-only mapping to writable",
		      sys_mem_protect((void *)addr, len, PROT_READ | PROT_WRITE), -EACCES);
		check("frame_write to a read-only frame", sys_frame_write(slot, 0, &byte, 1),
		      -EACCES);
		long copy = sys_cap_copy(slot, CAP_RIGHTS_ALL);
		if (check_true("copy the read-only frame", copy >= 0, "%ld", copy)) {
			sys_cap_identify((int)copy, &info);
			check("rights of a copy asking for every right", info.rights, want_rights);
			sys_cap_delete((int)copy);
		}
	}
	if (write_seed) {
		long rw = sys_mem_map_frame(slot, NULL, PROT_READ | PROT_WRITE);
		if (check_true("map a writable frame writable", rw > 0, "%ld", rw)) {
			for (uint64_t i = 0; i < len; i++) {
				((uint8_t *)rw)[i] = pattern_byte(write_seed, i);
			}
			sys_mem_unmap((void *)rw, len);
		}
	}
	sys_mem_unmap((void *)addr, len);
	return read;
}

int role_serve_frame(int argc, char **argv)
{
	struct ipc_regs m = {0};
	struct ipc_extra x = extra_with(2 * PROMPT_NS);
	long err = sys_ipc_recv(ROLE_SLOT_ENDPOINT, &m, &x);

	(void)argc;
	(void)argv;
	while (!err && IPC_INFO_LABEL(m.info) != LABEL_STOP) {
		uint64_t read = 0;
		if (check_true("a frame came with the message", x.recv_cap != IPC_NO_CAP,
			       "no capability")) {
			read = check_received_frame((int)x.recv_cap, m.words[0],
						    (uint32_t)m.words[1], m.words[2]);
			sys_cap_delete((int)x.recv_cap);
		}
		m = (struct ipc_regs){.info = IPC_INFO(LABEL_FRAME + 1, 2),
				      .words = {failures(), read}};
		x = extra_with(2 * PROMPT_NS);
		err = sys_ipc_reply_recv(ROLE_SLOT_ENDPOINT, &m, &x);
	}
	check("serve-frame's last receive", err, 0);
	m = (struct ipc_regs){0};
	sys_ipc_reply(&m, NULL);
	role_exit();
}

int role_serve_hold(int argc, char **argv)
{
	struct ipc_regs m = {0};
	long flag = sys_mem_map_frame(ROLE_SLOT_FRAME, NULL, PROT_READ | PROT_WRITE);

	(void)argc;
	(void)argv;
	if (flag < 0) {
		check("serve-hold maps its flag", flag, 0);
		role_exit();
	}
	long err = sys_ipc_recv(ROLE_SLOT_ENDPOINT, &m, NULL);
	/* release: pairs with the acquire load in the test waiting for the flag */
	__atomic_store_n((uint64_t *)flag, err ? HOLD_RECV_FAILED : HOLD_GOT_CALL,
			 __ATOMIC_RELEASE);
	sleep_forever();
}

int role_serve_none(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	sleep_forever();
}

int role_client_once(int argc, char **argv)
{
	struct ipc_regs m = {.info = IPC_INFO(LABEL_SEQ, 1), .words = {42}};

	(void)argc;
	(void)argv;
	check("client-once's call", sys_ipc_call(ROLE_SLOT_ENDPOINT, &m, NULL), 0);
	role_exit();
}

int role_client_badge(int argc, char **argv)
{
	struct cap_info info;
	struct ipc_regs m = {.info = IPC_INFO(LABEL_SEQ, 1)};
	struct ipc_extra x = extra_with(2 * PROMPT_NS);

	m.words[0] = argc > 0 ? strtoul(argv[0], NULL, 10) : 0;
	check("identify the badged endpoint", sys_cap_identify(ROLE_SLOT_ENDPOINT, &info), 0);
	if (check("client-badge's call", sys_ipc_call(ROLE_SLOT_ENDPOINT, &m, &x), 0)) {
		check("the badge the server saw is our capability's", (long)m.words[0],
		      (long)info.size);
	}
	role_exit();
}

/*
 * client-seq N[:EVERY[:CPU]]: N calls numbered 0..N-1; each reply must
 * carry the same number and this client's badge. With EVERY, every
 * EVERY-th call also carries its number in a buffer (the slow path),
 * which the reply must bring back; without it every call is
 * register-only. With CPU, the client runs pinned to that CPU.
 */
int role_client_seq(int argc, char **argv)
{
	struct cap_info info;
	char *end = NULL;
	uint64_t calls = argc > 0 ? strtoul(argv[0], &end, 10) : 0;
	uint64_t every = end && *end == ':' ? strtoul(end + 1, &end, 10) : 0;

	if (end && *end == ':') {
		check("pin the client", sys_thread_set_cpu(atoi(end + 1)), 0);
	}
	check("identify the badged endpoint", sys_cap_identify(ROLE_SLOT_ENDPOINT, &info), 0);
	for (uint64_t seq = 0; seq < calls && !failures(); seq++) {
		struct ipc_regs m = {.info = IPC_INFO(LABEL_SEQ, 2), .words = {seq, info.size}};
		struct ipc_extra x = extra_with(SEQ_TIMEOUT_NS);
		uint64_t in = 0;
		bool slow = every && seq % every == every - 1;
		x.send_buf = (uint64_t)(uintptr_t)&seq;
		x.send_len = slow ? sizeof(seq) : 0;
		x.recv_buf = (uint64_t)(uintptr_t)&in;
		x.recv_max = sizeof(in);
		long err = sys_ipc_call(ROLE_SLOT_ENDPOINT, &m, slow ? &x : NULL);
		if (!check("client-seq's call", err, 0)) {
			break;
		}
		check("the reply's sequence number", (long)m.words[0], (long)seq);
		check("the reply's badge", (long)m.words[1], (long)info.size);
		if (slow) {
			check("the reply's buffer", (long)in, (long)seq);
		}
	}
	role_exit();
}
