/*
 * ipctest: picks the test or role named by argv[1] from a table and runs
 * it. `run ipctest` with no name lists the tests. Roles are what the tests
 * start ipctest as in a child process; they are not meant to be typed.
 */
#include <stdio.h>
#include <string.h>

#include "ipctest.h"

struct entry {
	const char *name;
	const char *what; /* NULL for a role */
	int (*run)(int argc, char **argv);
};

static const struct entry entries[] = {
    {"call", "call [SEED [BADGE]]: registers, buffers of 0, 1 and 4096 bytes, size limits",
     test_call},
    {"efault", "bad buffers on either side give -EFAULT and nothing breaks", test_efault},
    {"frame",
     "frame [READ_SEED WRITE_SEED]: a frame sent over IPC is readable; its rights cannot grow",
     test_frame},
    {"badge", "badge [B0 B1 B2]: badges tell three client processes apart", test_badge},
    {"cap-drop", "a capability sent to a register-only receiver is dropped", test_cap_drop},
    {"fastpath",
     "fastpath [BADGE [BASE]]: register-only exchanges: badges, word counts, slow-path fallback, "
     "sender pid",
     test_fastpath},
    {"fastwake", "threads blocked on the fast path woken otherwise: a generic call, kills",
     test_fastwake},
    {"spaces", "the fast path between threads of one process and of two, in turn", test_spaces},
    {"roam", "the fast path between threads on any CPU: 4 clients, 2 servers, none pinned",
     test_roam},
    {"wakerace", "a fast call takes a server off its CPU while it wakes its last caller",
     test_wakerace},
    {"timeout", "timeout [LATE_MS]: recv and call time out with -ETIMEDOUT, in bounds",
     test_timeout},
    {"server-death", "callers of a server that dies get -EPIPE", test_server_death},
    {"endpoint-delete", "deleting the last cap of a side wakes the other with -EPIPE",
     test_endpoint_delete},
    {"client-death", "a reply to a killed client is a no-op; serving goes on", test_client_death},
    {"stress", "stress [CALLS]: 8 client processes x 10000 calls, none lost or doubled",
     test_stress},
    {"churn", "churn [CALLS]: 100000 calls while clients are killed mid-way", test_churn},
    {"naming", "naming [TEXT]: lookup(\"echo\") calls init's echo server; unknown names: -ENOENT",
     test_naming},
    {"serve-frame", NULL, role_serve_frame},
    {"serve-hold", NULL, role_serve_hold},
    {"serve-none", NULL, role_serve_none},
    {"serve-regs", NULL, role_serve_regs},
    {"client-once", NULL, role_client_once},
    {"client-badge", NULL, role_client_badge},
    {"client-seq", NULL, role_client_seq},
};

#define NUM_ENTRIES (sizeof(entries) / sizeof(entries[0]))

int main(int argc, char **argv)
{
	for (size_t i = 0; argc > 1 && i < NUM_ENTRIES; i++) {
		if (!strcmp(argv[1], entries[i].name)) {
			test_name = entries[i].name;
			return entries[i].run(argc - 2, argv + 2);
		}
	}
	printf("usage: ipctest TEST; the tests:\n");
	for (size_t i = 0; i < NUM_ENTRIES; i++) {
		if (entries[i].what) {
			printf("  %-15s %s\n", entries[i].name, entries[i].what);
		}
	}
	return 2;
}
