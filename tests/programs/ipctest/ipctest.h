/*
 * ipctest: the IPC system tests of issue 4, run from the init shell as
 * `run ipctest NAME`. Each test is one function; it records every check
 * with check() and ends with `ipctest NAME: ok` (exit 0) or one FAIL line
 * per failed check (exit 1). Tests that need a partner in another process
 * start ipctest again in a role (roles.c) and pass it endpoints and
 * frames in chosen capability slots.
 *
 * This header holds what the test files share: the check helpers, the
 * bookkeeping of child processes (so a failing test leaves none behind),
 * and small wrappers around the IPC calls.
 */
#ifndef IPCTEST_IPCTEST_H
#define IPCTEST_IPCTEST_H

#include <spoor.h>
#include <stdbool.h>
#include <stdint.h>

#define MS 1000000ull /* nanoseconds */
#define S  1000000000ull

/* Slots of the capabilities a role receives from spawn_role(), besides its console. */
#define ROLE_SLOT_ENDPOINT CAP_SLOT_SERVICE
#define ROLE_SLOT_FRAME	   (CAP_SLOT_SERVICE + 1)

/* Rights of the endpoint copies the tests hand out. */
#define CALL_RIGHTS (CAP_RIGHT_WRITE | CAP_RIGHT_GRANT)
#define RECV_RIGHTS (CAP_RIGHT_READ | CAP_RIGHT_GRANT)

/* How long a test waits for something that should happen at once. */
#define PROMPT_NS (5 * S)

/* The name of the running test, for its output lines. */
extern const char *test_name;

/* Records a check: got must equal want. Prints a FAIL line otherwise. */
bool check(const char *what, long got, long want);

/* Records a check of a condition; detail is printed (printf-style) when it fails. */
bool check_true(const char *what, bool ok, const char *detail, ...)
    __attribute__((format(printf, 3, 4)));

/* Records a check that no capability arrived (slot is IPC_NO_CAP); deletes one that did. */
bool check_no_cap(const char *what, uint32_t slot);

/*
 * Returns value after keeping it for the observed line finish() prints
 * (`ipctest NAME: observed N: V1 V2 ...`, in the order kept): the results
 * and counts the host holds against what the kernel must answer
 * (test_ipc.py), whatever check() decided. Any thread may call it; the
 * order of calls from two threads at once is not defined.
 */
long observe(long value);

/* The number of failed checks so far. */
int failures(void);

/*
 * Prints the verdict, kills every child still running and exits 0 or 1:
 * on success, the number of checks that passed first.
 */
__attribute__((noreturn)) void finish(void);

/* Prints a FAIL line and ends the test at once (finish()). */
__attribute__((noreturn)) void fatal(const char *what, long err);

/*
 * Starts ipctest in role with argument arg (or NULL), its console in slot
 * 0, and, when not negative, endpoint (with rights ep_rights) in
 * ROLE_SLOT_ENDPOINT and frame in ROLE_SLOT_FRAME. Returns the slot of
 * its process capability; the child is killed at finish() if still alive.
 */
int spawn_role(const char *role, const char *arg, int endpoint, uint32_t ep_rights, int frame);

/* The pid of the process in slot. */
uint32_t pid_of(int process);

/* Waits up to timeout_ns for the process in slot to end: 0 and its status, or -ETIMEDOUT. */
long reap(int process, int64_t *status, uint64_t timeout_ns);

/* Kills the process in slot and waits for it: 0 and its status (if wanted), or -E*. */
long kill_and_reap(int process, int64_t *status);

/*
 * Whether thread tid (or, for tid 0, every thread of pid) is blocked now:
 * one look. Not for two threads at once (it lists the threads into one
 * static buffer).
 */
bool all_blocked(uint32_t pid, uint32_t tid);

/* Waits until thread tid (or, for tid 0, every thread of pid) is blocked; false after timeout. */
bool wait_blocked(uint32_t pid, uint32_t tid, uint64_t timeout_ns);

/* An ipc_extra that waits timeout_ns and sends or receives nothing yet. */
struct ipc_extra extra_with(uint64_t timeout_ns);

/*
 * A thread that makes one call (or, with recv set, one receive) and keeps
 * the outcome: start it with caller_start(), collect it with caller_join().
 */
struct caller {
	int slot;
	bool recv;
	uint64_t word; /* sent in word 0; the reply's word 0 replaces it */
	uint64_t timeout_ns;
	long result;
	uint32_t cap; /* where a capability received with the message went, or IPC_NO_CAP */
	uint64_t elapsed_ns;
	int tid;
};

/* Starts c's thread; a failure to start ends the test. */
void caller_start(struct caller *c);

/* Waits for c's thread; returns its result. */
long caller_join(struct caller *c);

/* A new endpoint's slot, with every right; a failure to create one ends the test. */
int new_endpoint(void);

/* Joins thread tid and checks that it returned 0; what names it in the checks. */
void check_joined(int tid, const char *what);

/* Nanoseconds since boot, unsigned. */
static inline uint64_t now_ns(void)
{
	return (uint64_t)sys_clock_ns();
}

/* The tests and the roles: argc/argv after the name. */
int test_call(int argc, char **argv);
int test_efault(int argc, char **argv);
int test_frame(int argc, char **argv);
int test_badge(int argc, char **argv);
int test_cap_drop(int argc, char **argv);
int test_fastpath(int argc, char **argv);
int test_fastwake(int argc, char **argv);
int test_spaces(int argc, char **argv);
int test_roam(int argc, char **argv);
int test_wakerace(int argc, char **argv);
int test_timeout(int argc, char **argv);
int test_server_death(int argc, char **argv);
int test_endpoint_delete(int argc, char **argv);
int test_client_death(int argc, char **argv);
int test_stress(int argc, char **argv);
int test_churn(int argc, char **argv);
int test_naming(int argc, char **argv);

int role_serve_frame(int argc, char **argv);
int role_serve_hold(int argc, char **argv);
int role_serve_none(int argc, char **argv);
int role_serve_regs(int argc, char **argv);
int role_client_once(int argc, char **argv);
int role_client_badge(int argc, char **argv);
int role_client_seq(int argc, char **argv);

/* The size of the frame the frame test sends to its serve-frame role. */
#define FRAME_BYTES (2 * PAGE_SIZE_USER)

/* serve-hold's flag, the first word of its frame: 0 until its receive returns, then these. */
#define HOLD_GOT_CALL	 1
#define HOLD_RECV_FAILED 2

/* Labels of the messages between the tests and their roles. */
#define LABEL_STOP 0x5709 /* a server role replies and exits */
#define LABEL_SEQ  0x5e9  /* words: sequence number, client id */
/* carries a frame; words: its pattern seed, expected rights, the seed to write (or 0) */
#define LABEL_FRAME 0xf4a /* reply words: the receiver's failed checks, FNV-1a of what it read */

/* The seed of the byte pattern at offset i. */
static inline uint8_t pattern_byte(uint64_t seed, uint64_t i)
{
	return (uint8_t)(seed * 31 + i * 7 + (i >> 8));
}

#endif
