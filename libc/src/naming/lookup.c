/*
 * lookup: asks init's name service (abi/naming.h) for a server's endpoint.
 */
#include <spoor.h>
#include <string.h>

#include "abi/naming.h"

long lookup(const char *name)
{
	size_t len = strlen(name);
	struct ipc_regs m = {.info = IPC_INFO(NAMING_LOOKUP, 0)};
	struct ipc_extra x = {
	    .timeout_ns = TIMEOUT_FOREVER,
	    .send_buf = (uint64_t)(uintptr_t)name,
	    .send_len = (uint32_t)len,
	    .send_cap = IPC_NO_CAP,
	};

	if (!len || len > NAMING_NAME_MAX) {
		return -EINVAL;
	}
	long err = sys_ipc_call(CAP_SLOT_NAMESERVER, &m, &x);
	if (err) {
		return err;
	}
	if ((int64_t)m.words[0] < 0) {
		return (long)m.words[0];
	}
	return x.recv_cap == IPC_NO_CAP ? -ENOENT : (long)x.recv_cap;
}
