/*
 * services: init as keeper and name service.
 *
 * Every program the boot image marks "server" gets an endpoint made by
 * init: the server receives on it (CAP_SLOT_SERVICE), init keeps a copy
 * with every right. Because init's copy can receive, the endpoint outlives
 * a crash of its server: calls that were queued wait for the restarted
 * one. A server that exits is restarted at once, unless it keeps dying
 * within FAST_CRASH_NS of starting: after FAST_CRASH_LIMIT such crashes in
 * a row init gives up on it, with one line saying so. One that exits with
 * SERVICE_EXIT_UNAVAILABLE (abi/naming.h) has said why and is not restarted.
 * One killed for lack of memory (EXIT_NO_MEMORY) is not to blame: init
 * never gives up on it, but waits before each restart, twice as long each
 * time in a row (BACKOFF_FIRST_NS to BACKOFF_MAX_NS), for memory to come
 * back. `restart NAME` starts one init gave up on, or restarts it.
 *
 * Servers are spawned SPAWN_KEPT (abi/proc.h): committed at start and
 * served from memory no other program can take, so no request can make
 * one fault for memory.
 *
 * The server called TRACED_NAME (abi/traced.h) also gets init's trace
 * capabilities, in the same well-known slots: it alone reads and controls
 * tracing for everyone else.
 *
 * One keeper thread does both jobs: it answers lookups on the name
 * service endpoint, and between messages (the receive times out) it looks
 * for servers that have exited.
 *
 * Levels: every program init starts gets the name service through a copy
 * badged with a level (TRACED_LEVEL_*: self by default, read with `run
 * -r`, control with `run -t`), and passes it on to what it spawns. A
 * lookup answers with the service's endpoint badged with the level of the
 * one asking, so a server (traced) knows what a caller may do from the
 * badge, which only init, holding the unbadged endpoints, can mint.
 */
#include <errno.h>
#include <spoor.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "abi/naming.h"
#include "abi/traced.h"
#include "services.h"
#include "words.h"

#define MAX_SERVICES	 16
#define FAST_CRASH_NS	 2000000000ull
#define FAST_CRASH_LIMIT 3
#define KEEPER_POLL_NS	 100000000ull
#define BACKOFF_FIRST_NS 1000000000ull
#define BACKOFF_MAX_NS	 32000000000ull
#define RESTART_WAIT_NS	 2000000000ull /* for a killed server to be gone */
#define SERVICE_RIGHTS	 (CAP_RIGHT_READ | CAP_RIGHT_GRANT)
#define CLIENT_RIGHTS	 (CAP_RIGHT_WRITE | CAP_RIGHT_GRANT)

struct service {
	char name[PROC_NAME_MAX];
	int endpoint; /* init's copy, every right */
	int process;  /* process capability, 0 when not running */
	uint32_t pid;
	uint64_t started_ns;
	int fast_crashes;    /* in a row */
	uint64_t backoff_ns; /* the wait before the next restart for lack of memory */
	uint64_t restart_at; /* clock_ns when to start it again, 0: not waiting */
	int client[TRACED_LEVEL_CONTROL +
		   1]; /* call-only copies badged with a level, 0: none yet */
};

static int naming_slot;				    /* [I] init's name service endpoint */
static int naming_badged[TRACED_LEVEL_CONTROL + 1]; /* [I] the name service, badged per level */
static struct service services[MAX_SERVICES];	    /* [lock] */
static int nservices;				    /* [lock] */

/*
 * The lock of what the shell and the keeper thread share: both are init's
 * threads and hold it briefly, so a waiter yields rather than sleeps.
 */
static int held; /* [a] */

static void lock(void)
{
	/* acquire: pairs with the release in unlock() */
	while (__atomic_exchange_n(&held, 1, __ATOMIC_ACQUIRE)) {
		sys_yield();
	}
}

static void unlock(void)
{
	/* release: pairs with the acquire in lock() */
	__atomic_store_n(&held, 0, __ATOMIC_RELEASE);
}

/* Whether init holds a capability in slot (the export devices are there only if the machine has
 * them). */
static bool holds(int slot)
{
	struct cap_info info;

	return sys_cap_identify(slot, &info) == 0;
}

/*
 * s found no memory (killed for it, or its spawn refused): start it again
 * after a pause, twice the last one if that was its last try too.
 */
static void back_off(struct service *s, bool again, const char *what)
{
	s->backoff_ns = again && s->backoff_ns ? s->backoff_ns * 2 : BACKOFF_FIRST_NS;
	if (s->backoff_ns > BACKOFF_MAX_NS) {
		s->backoff_ns = BACKOFF_MAX_NS;
	}
	s->restart_at = (uint64_t)sys_clock_ns() + s->backoff_ns;
	printf("init: %s %s; restarting it in %llu s\n", s->name, what,
	       (unsigned long long)(s->backoff_ns / 1000000000));
}

static int start(struct service *s)
{
	struct spawn_cap caps[7] = {
	    {.src = CAP_SLOT_CONSOLE, .dst = CAP_SLOT_CONSOLE, .rights = CHILD_CONSOLE_RIGHTS},
	    {.src = (uint32_t)naming_for(TRACED_LEVEL_SELF),
	     .dst = CAP_SLOT_NAMESERVER,
	     .rights = CHILD_NAMING_RIGHTS},
	    {.src = (uint32_t)s->endpoint, .dst = CAP_SLOT_SERVICE, .rights = SERVICE_RIGHTS},
	};
	uint32_t ncaps = 3;
	if (!strcmp(s->name, TRACED_NAME)) {
		/* traced hands read-only copies of the trace area to tools */
		caps[ncaps++] = (struct spawn_cap){.src = CAP_SLOT_TRACE_READ,
						   .dst = CAP_SLOT_TRACE_READ,
						   .rights = CAP_RIGHT_READ | CAP_RIGHT_GRANT};
		caps[ncaps++] = (struct spawn_cap){.src = CAP_SLOT_TRACE_CONTROL,
						   .dst = CAP_SLOT_TRACE_CONTROL,
						   .rights = CAP_RIGHT_WRITE};
		/* and drives the export channel: `trace save` */
		for (int slot = CAP_SLOT_EXPORT_PORT; slot <= CAP_SLOT_EXPORT_WINDOW; slot++) {
			if (holds(slot)) {
				caps[ncaps++] =
				    (struct spawn_cap){.src = (uint32_t)slot,
						       .dst = (uint32_t)slot,
						       .rights = CAP_RIGHT_READ | CAP_RIGHT_WRITE};
			}
		}
	}
	struct spawn_args args = {
	    .name = (uint64_t)(uintptr_t)s->name,
	    .ncaps = ncaps,
	    .caps = (uint64_t)(uintptr_t)caps,
	    .flags = SPAWN_KEPT,
	};
	struct cap_info info;
	long slot = sys_spawn(&args);

	if (slot == -ENOMEM) {
		back_off(s, true, "cannot start: out of memory");
		return (int)slot;
	}
	if (slot < 0) {
		printf("init: cannot start %s: %s\n", s->name, strerror((int)-slot));
		return (int)slot;
	}
	sys_cap_identify((int)slot, &info);
	s->process = (int)slot;
	s->pid = (uint32_t)info.size;
	s->started_ns = (uint64_t)sys_clock_ns();
	return 0;
}

/* A server exited: say so, then restart it or give up. Lock held. */
static void exited(struct service *s, int64_t status)
{
	bool fast = (uint64_t)sys_clock_ns() - s->started_ns < FAST_CRASH_NS;
	char words[EXIT_WORDS_MAX];

	sys_cap_delete(s->process);
	s->process = 0;
	s->fast_crashes = fast ? s->fast_crashes + 1 : 0;
	if (status == SERVICE_EXIT_UNAVAILABLE) {
		printf("init: %s has nothing to serve; not restarting it\n", s->name);
		return;
	}
	if (status == EXIT_NO_MEMORY) {
		back_off(s, fast, "ran out of memory");
		return;
	}
	if (s->fast_crashes >= FAST_CRASH_LIMIT) {
		printf("init: %s %s (%d times within %llu s of starting); not restarting it\n",
		       s->name, exit_words(status, words, sizeof(words)), s->fast_crashes,
		       (unsigned long long)(FAST_CRASH_NS / 1000000000));
		return;
	}
	printf("init: %s %s, restarting\n", s->name, exit_words(status, words, sizeof(words)));
	start(s);
}

static void check_exits(void)
{
	uint64_t now = (uint64_t)sys_clock_ns();

	lock();
	for (int i = 0; i < nservices; i++) {
		struct service *s = &services[i];
		int64_t status;
		if (s->process && !sys_wait(s->process, &status, 0)) {
			exited(s, status);
		} else if (!s->process && s->restart_at && now >= s->restart_at) {
			s->restart_at = 0;
			printf("init: restarting %s\n", s->name);
			start(s);
		}
	}
	unlock();
}

int services_restart(const char *name, uint32_t *pid)
{
	int err = -ENOENT;

	lock();
	for (int i = 0; i < nservices && err == -ENOENT; i++) {
		struct service *s = &services[i];
		int64_t status;
		if (strcmp(s->name, name)) {
			continue;
		}
		if (s->process) {
			sys_kill(s->process);
			err = (int)sys_wait(s->process, &status, RESTART_WAIT_NS);
			if (err) {
				break; /* still going: the keeper sees it end and restarts it */
			}
			sys_cap_delete(s->process);
			s->process = 0;
		}
		s->fast_crashes = 0;
		s->backoff_ns = 0;
		s->restart_at = 0;
		err = start(s);
		*pid = s->pid;
	}
	unlock();
	return err;
}

int naming_for(uint32_t level)
{
	return naming_badged[level];
}

/* Lock held: s's endpoint badged with level, call-only, minted on first use and kept. */
static int client_copy(struct service *s, uint32_t level)
{
	if (!s->client[level]) {
		long slot = sys_endpoint_mint(s->endpoint, level, CLIENT_RIGHTS);
		s->client[level] = slot < 0 ? 0 : (int)slot;
	}
	return s->client[level] ? s->client[level] : -ENOMEM;
}

int services_client(const char *name, uint32_t level)
{
	int slot = -ENOENT;

	lock();
	for (int i = 0; i < nservices; i++) {
		if (services[i].process && !strcmp(services[i].name, name)) {
			slot = client_copy(&services[i], level);
		}
	}
	unlock();
	return slot;
}

/*
 * Answers one lookup: the reply carries a call-only copy of the endpoint
 * badged with the asker's level (the badge of its name service copy).
 */
static void answer(const struct ipc_regs *req, const struct ipc_extra *got, const char *name)
{
	uint32_t level = req->badge >= TRACED_LEVEL_SELF && req->badge <= TRACED_LEVEL_CONTROL
			     ? (uint32_t)req->badge
			     : TRACED_LEVEL_SELF;
	struct ipc_regs reply = {.info = IPC_INFO(0, 1)};
	struct ipc_extra x = {.timeout_ns = 0, .send_cap = IPC_NO_CAP};

	reply.words[0] = (uint64_t)-ENOENT;
	if (IPC_INFO_LABEL(req->info) != NAMING_LOOKUP || !got->recv_len) {
		reply.words[0] = (uint64_t)-EINVAL;
	}
	lock();
	for (int i = 0; i < nservices && IPC_INFO_LABEL(req->info) == NAMING_LOOKUP; i++) {
		if (!strcmp(services[i].name, name)) {
			int slot = client_copy(&services[i], level);
			x.send_cap = slot < 0 ? IPC_NO_CAP : (uint32_t)slot;
			x.send_cap_rights = CLIENT_RIGHTS;
			reply.words[0] = slot < 0 ? (uint64_t)(int64_t)slot : 0;
		}
	}
	unlock();
	sys_ipc_reply(&reply, &x);
}

static int keeper(void *arg)
{
	char name[NAMING_NAME_MAX + 1];

	(void)arg;
	for (;;) {
		struct ipc_regs m = {0};
		struct ipc_extra x = {
		    .timeout_ns = KEEPER_POLL_NS,
		    .send_cap = IPC_NO_CAP,
		    .recv_buf = (uint64_t)(uintptr_t)name,
		    .recv_max = NAMING_NAME_MAX,
		};
		if (!sys_ipc_recv(naming_slot, &m, &x)) {
			name[x.recv_len] = '\0';
			answer(&m, &x, name);
			if (x.recv_cap != IPC_NO_CAP) {
				sys_cap_delete((int)x.recv_cap); /* lookups carry none */
			}
		}
		check_exits();
	}
	return 0;
}

int services_init(void)
{
	struct program_info programs[32];
	long n = sys_program_list(programs, 32);
	long slot = sys_endpoint_create();

	if (n < 0 || slot < 0) {
		return (int)(n < 0 ? n : slot);
	}
	naming_slot = (int)slot;
	for (uint32_t level = TRACED_LEVEL_SELF; level <= TRACED_LEVEL_CONTROL; level++) {
		long badged = sys_endpoint_mint(naming_slot, level, CHILD_NAMING_RIGHTS);
		if (badged < 0) {
			return (int)badged;
		}
		naming_badged[level] = (int)badged;
	}
	for (long i = 0; i < n && nservices < MAX_SERVICES; i++) {
		if (!(programs[i].flags & PROGRAM_SERVER)) {
			continue;
		}
		struct service *s = &services[nservices];
		long ep = sys_endpoint_create();
		if (ep < 0) {
			return (int)ep;
		}
		memcpy(s->name, programs[i].name, sizeof(s->name));
		s->endpoint = (int)ep;
		nservices++;
		start(s);
	}
	int tid = thread_spawn(keeper, NULL, 0);
	return tid < 0 ? tid : 0;
}

int services_kill(uint32_t pid)
{
	int err = -ENOENT;

	lock();
	for (int i = 0; i < nservices; i++) {
		if (services[i].process && services[i].pid == pid) {
			err = (int)sys_kill(services[i].process);
		}
	}
	unlock();
	return err;
}

int services_name(uint32_t pid, char *name, size_t size)
{
	int err = -ENOENT;

	lock();
	for (int i = 0; i < nservices; i++) {
		if (services[i].process && services[i].pid == pid) {
			snprintf(name, size, "%s", services[i].name);
			err = 0;
		}
	}
	unlock();
	return err;
}
