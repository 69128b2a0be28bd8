/*
 * traced: maps the trace area (state.c), then serves abi/traced.h on
 * CAP_SLOT_SERVICE: receive, check, dispatch through the table below,
 * reply. Every request is checked before it changes anything; a
 * malformed one gets an error and traced goes on.
 *
 * Each file of this folder has a header of its name that says what it
 * offers. The operations (dump, bulk, strings, uevents, stats, save,
 * record) sit above the stream they take pieces of (merge), and above
 * what they share: the paged replies (page), the caller's scope (scope),
 * the trace file's header (file), the export channel (export) and the
 * mapped area (state). No file calls back into one that calls it.
 *
 * The rings are kernel memory: when traced dies, init restarts it and it
 * maps the same rings again; nothing recorded meanwhile is lost.
 */
#include <errno.h>
#include <spoor.h>
#include <string.h>

#include "common/trace_names.h"
#include "servers/traced/bulk.h"
#include "servers/traced/dump.h"
#include "servers/traced/filters.h"
#include "servers/traced/func.h"
#include "servers/traced/probe.h"
#include "servers/traced/record.h"
#include "servers/traced/request.h"
#include "servers/traced/save.h"
#include "servers/traced/state.h"
#include "servers/traced/stats.h"
#include "servers/traced/strings.h"
#include "servers/traced/triggers.h"
#include "servers/traced/uevents.h"
#include "servers/traced/wake.h"

#define TRACED_THREADS_MAX 256 /* threads a status reply looks through for tracked ones */

static int no_body(const struct request *req)
{
	return req->len ? -EINVAL : 0;
}

/*
 * The live tracked processes, from the kernel's thread list (one entry a
 * thread), and whether traced's own events are recorded: its process is
 * not quiet (abi/trace.h TTRACE_OP_QUIET), as the kernel says.
 */
static void tracked_list(struct traced_status *st)
{
	static struct thread_info threads[TRACED_THREADS_MAX];
	long n = sys_thread_list(threads, TRACED_THREADS_MAX);
	uint32_t me = (uint32_t)sys_getpid();

	for (long i = 0; i < n; i++) {
		uint32_t pid = threads[i].pid;
		bool seen = false;
		if (pid == me) {
			st->self = !(threads[i].flags & THREAD_INFO_QUIET);
		}
		for (uint32_t j = 0; j < st->ntracked && j < TRACED_TRACKED_MAX; j++) {
			seen |= st->tracked[j] == pid;
		}
		if (threads[i].flags & THREAD_INFO_TRACKED && !seen) {
			if (st->ntracked < TRACED_TRACKED_MAX) {
				st->tracked[st->ntracked] = pid;
			}
			st->ntracked++;
		}
	}
}

static int op_status(const struct request *req, struct reply *rep)
{
	struct traced_status st = {0};
	const struct ttrace_header *h = traced.area.hdr;

	if (no_body(req)) {
		return -EINVAL;
	}
	st.mask = __atomic_load_n(&h->mask, __ATOMIC_RELAXED);
	st.mode = __atomic_load_n(&h->mode, __ATOMIC_RELAXED);
	st.uptime_ns = (uint64_t)sys_clock_ns();
	st.aux_ring_size = h->aux_ring_size;
	st.aux_evicted = __atomic_load_n(&h->aux_evicted, __ATOMIC_RELAXED);
	st.num_cpus = traced.ncpus;
	st.ring_entries = h->ring_entries;
	st.version_major = h->version_major;
	st.version_minor = h->version_minor;
	for (uint32_t i = 0; i < traced.ncpus; i++) {
		struct ttrace_counts c;
		ttrace_ring_counts(&traced.ring[i], &c);
		st.cpu[i] = (struct traced_cpu_status){
		    .emitted = c.emitted,
		    .stored = c.stored,
		    .overwritten = c.overwritten,
		    .dropped = c.dropped,
		    .cleared = c.cleared,
		};
		st.filtered[i] = c.filtered;
	}
	st.filter_kinds = __atomic_load_n(&h->filter_kinds, __ATOMIC_RELAXED);
	st.level = req->level;
	st.pid = req->pid;
	st.tracking = __atomic_load_n(&h->tracking, __ATOMIC_RELAXED);
	st.echo = __atomic_load_n(&h->echo, __ATOMIC_RELAXED);
	st.stack_kinds = __atomic_load_n(&h->stack_kinds, __ATOMIC_RELAXED);
	st.profile_hz = __atomic_load_n(&h->profile_hz, __ATOMIC_RELAXED);
	st.profile_cpus = __atomic_load_n(&h->profile_cpus, __ATOMIC_RELAXED);
	tracked_list(&st);
	memcpy(rep->buf, &st, sizeof(st));
	rep->len = sizeof(st);
	return 0;
}

/* ENABLE, DISABLE, MODE, CLEAR and the like go to the kernel through trace control. */
static int control(uint32_t op, uint64_t arg, struct reply *rep)
{
	long mask = sys_trace_control(CAP_SLOT_TRACE_CONTROL, op, arg);

	if (mask < 0) {
		return (int)mask;
	}
	rep->result = (uint64_t)mask;
	return 0;
}

/* The user category stands for every user event: they go on and off with it. */
static int op_enable(const struct request *req, struct reply *rep)
{
	if (no_body(req) || !req->arg || req->arg & ~TTRACE_CAT_ALL) {
		return -EINVAL;
	}
	int err = req->arg & TTRACE_CAT(USER) ? uevents_all(true) : 0;
	return err ? err : control(TTRACE_OP_ENABLE, req->arg, rep);
}

static int op_disable(const struct request *req, struct reply *rep)
{
	if (no_body(req) || !req->arg || req->arg & ~TTRACE_CAT_ALL) {
		return -EINVAL;
	}
	int err = control(TTRACE_OP_DISABLE, req->arg, rep);
	return err || !(req->arg & TTRACE_CAT(USER)) ? err : uevents_all(false);
}

static int op_mode(const struct request *req, struct reply *rep)
{
	if (no_body(req) || (req->arg != TTRACE_MODE_OVERWRITE && req->arg != TTRACE_MODE_DROP)) {
		return -EINVAL;
	}
	return control(TTRACE_OP_MODE, req->arg, rep);
}

static int op_clear(const struct request *req, struct reply *rep)
{
	if (no_body(req)) {
		return -EINVAL;
	}
	/* A recording's counts hold only while nothing else moves its rings. */
	if (record_active()) {
		return -EBUSY;
	}
	return control(TTRACE_OP_CLEAR, 0, rep);
}

static int op_track(const struct request *req, struct reply *rep)
{
	if (no_body(req) || req->arg > UINT32_MAX) {
		return -EINVAL;
	}
	return control(TTRACE_OP_TRACK, req->arg, rep);
}

static int op_untrack(const struct request *req, struct reply *rep)
{
	if (no_body(req) || (req->arg > UINT32_MAX && req->arg != TRACED_UNTRACK_ALL)) {
		return -EINVAL;
	}
	return req->arg == TRACED_UNTRACK_ALL ? control(TTRACE_OP_UNTRACK_ALL, 0, rep)
					      : control(TTRACE_OP_UNTRACK, req->arg, rep);
}

static int op_echo(const struct request *req, struct reply *rep)
{
	if (no_body(req) || req->arg & ~TTRACE_CAT_ALL) {
		return -EINVAL;
	}
	return control(TTRACE_OP_ECHO, req->arg, rep);
}

/*
 * An operation whose word 1 goes to the kernel's op as it is: the kernel
 * checks it (the kinds, the profiler's rate and CPUs).
 */
static int kernel_op(uint32_t op, const struct request *req, struct reply *rep)
{
	if (no_body(req)) {
		return -EINVAL;
	}
	return control(op, req->arg, rep);
}

static int op_stack(const struct request *req, struct reply *rep)
{
	return kernel_op(TTRACE_OP_STACK, req, rep);
}

static int op_stack_on(const struct request *req, struct reply *rep)
{
	return kernel_op(TTRACE_OP_STACK_ON, req, rep);
}

static int op_stack_off(const struct request *req, struct reply *rep)
{
	return kernel_op(TTRACE_OP_STACK_OFF, req, rep);
}

static int op_profile(const struct request *req, struct reply *rep)
{
	return kernel_op(TTRACE_OP_PROFILE, req, rep);
}

/* Whether traced's own events are recorded: its process quiet or not (abi/trace.h). */
static int op_self(const struct request *req, struct reply *rep)
{
	if (no_body(req) || req->arg > 1) {
		return -EINVAL;
	}
	int err =
	    control(req->arg ? TTRACE_OP_UNQUIET : TTRACE_OP_QUIET, (uint64_t)sys_getpid(), rep);
	rep->result = 0;
	return err;
}

static int op_dump(const struct request *req, struct reply *rep)
{
	return dump_page(TRACED_OP_DUMP, req, rep);
}

static int op_follow(const struct request *req, struct reply *rep)
{
	return dump_page(TRACED_OP_FOLLOW, req, rep);
}

static int op_map(const struct request *req, struct reply *rep)
{
	if (no_body(req)) {
		return -EINVAL;
	}
	/* A read-only copy that cannot be passed on: tools map the rings, nothing more. */
	rep->cap = CAP_SLOT_TRACE_READ;
	rep->cap_rights = CAP_RIGHT_READ;
	return 0;
}

/*
 * The handler of each operation of abi/traced_ops.def, by its NAME: the
 * table below is made from the list, so an operation without a handler
 * here does not compile.
 */
#define HANDLER_STATUS	   op_status
#define HANDLER_ENABLE	   op_enable
#define HANDLER_DISABLE	   op_disable
#define HANDLER_MODE	   op_mode
#define HANDLER_CLEAR	   op_clear
#define HANDLER_DUMP	   op_dump
#define HANDLER_FOLLOW	   op_follow
#define HANDLER_STRINGS	   strings_page
#define HANDLER_MAP	   op_map
#define HANDLER_REGISTER   uevents_register
#define HANDLER_UNREGISTER uevents_unregister
#define HANDLER_EVENT_ON   uevents_on
#define HANDLER_EVENT_OFF  uevents_off
#define HANDLER_EVENTS	   uevents_list
#define HANDLER_SAVE	   save_run
#define HANDLER_TRACK	   op_track
#define HANDLER_UNTRACK	   op_untrack
#define HANDLER_STATS	   stats_page
#define HANDLER_ECHO	   op_echo
#define HANDLER_BULK	   bulk_page
#define HANDLER_STACK	   op_stack
#define HANDLER_PROFILE	   op_profile
#define HANDLER_RECORD	   record_start
#define HANDLER_REC_STOP   record_stop
#define HANDLER_REC_STATUS record_status
#define HANDLER_STACK_ON   op_stack_on
#define HANDLER_STACK_OFF  op_stack_off
#define HANDLER_SELF	   op_self
/* The filters' operations (filters.h). */
#define HANDLER_FILTER	    filters_set
#define HANDLER_FILTER_TEXT filters_text
#define HANDLER_FILTER_CODE filters_code
/* The function tracer's operations (func.h). */
#define HANDLER_FUNC_ON	 func_on
#define HANDLER_FUNC_OFF func_off
/* The function graph's (func.h). */
#define HANDLER_GRAPH_ON  graph_on
#define HANDLER_GRAPH_OFF graph_off
/* The triggers' operations (triggers.h). */
#define HANDLER_TRIGGER	     triggers_set
#define HANDLER_TRIGGER_TEXT triggers_text
/* The kernel probes' (probe.h). */
#define HANDLER_PROBE_ON  probe_on
#define HANDLER_PROBE_OFF probe_off

/* Each operation and the least level that may ask for it (abi/traced.h, WHO CALLS). */
static const struct op {
	int (*run)(const struct request *, struct reply *);
	uint32_t level;
} ops[] = {
#define TRACED_OP(nr, NAME, name, LEVEL, arg, request, reply, result)                              \
	[nr] = {HANDLER_##NAME, TRACED_LEVEL_##LEVEL},
#include "abi/traced_ops.def"
#undef TRACED_OP
};

#define NUM_OPS (sizeof(ops) / sizeof(ops[0]))

static int dispatch(const struct ipc_regs *m, const struct request *req, struct reply *rep)
{
	uint32_t op = IPC_INFO_LABEL(m->info);

	if (IPC_INFO_WORDS(m->info) < 1 || m->words[0] != TRACED_PROTOCOL) {
		return -EPROTO;
	}
	if (op >= NUM_OPS || !ops[op].run) {
		return -ENOSYS;
	}
	/* Refused before anything is looked at: a refusal costs traced nothing. */
	if (req->level < ops[op].level || req->level > TRACED_LEVEL_CONTROL) {
		return -EACCES;
	}
	return ops[op].run(req, rep);
}

/* The wait for a request: until the recording or a trigger's save has work. */
static uint64_t wait_ns(void)
{
	uint64_t rec = record_tick_ns(), trig = triggers_tick_ns();

	return rec < trig ? rec : trig;
}

int main(void)
{
	static uint8_t in[IPC_BUF_MAX], out[TRACED_REPLY_MAX];
	struct ipc_regs m = {0};
	struct ipc_extra x = {.timeout_ns = TIMEOUT_FOREVER, .send_cap = IPC_NO_CAP};
	long err;

	traced_map();
	/*
	 * The tracer does not trace itself unless asked (SELF): what it and
	 * the export channel do while serving and recording is left out, so
	 * a recording's drain adds nothing to what it drains.
	 */
	sys_trace_control(CAP_SLOT_TRACE_CONTROL, TTRACE_OP_QUIET, (uint64_t)sys_getpid());
	record_resume();
	x.timeout_ns = wait_ns(); /* a resumed recording drains before any request */
	x.recv_buf = (uint64_t)(uintptr_t)in;
	x.recv_max = sizeof(in);
	err = sys_ipc_recv(CAP_SLOT_SERVICE, &m, &x);
	while (err != -EPIPE) {
		bool woken = !err && wake_signalled(&m, &x);
		if (err || woken) {
			if (err == -ETIMEDOUT || woken) {
				record_drain(); /* a ring filled, or no request: its turn */
				triggers_run(); /* a SAVE trigger fired, or its save is due */
			}
			m = (struct ipc_regs){0};
			x.timeout_ns = wait_ns();
			err = sys_ipc_recv(CAP_SLOT_SERVICE, &m, &x);
			continue;
		}
		struct request req = {.arg = m.words[1],
				      .body = in,
				      .len = x.recv_len,
				      .level =
					  m.badge <= TRACED_LEVEL_CONTROL ? (uint32_t)m.badge : 0,
				      .pid = x.sender_pid,
				      .cap = x.recv_cap};
		struct reply rep = {.buf = out, .cap = IPC_NO_CAP};
		int result = dispatch(&m, &req, &rep);

		if (req.cap != IPC_NO_CAP) {
			sys_cap_delete((int)req.cap); /* traced keeps no client's capability */
		}

		m = (struct ipc_regs){.info = IPC_INFO(0, 2)};
		m.words[0] = (uint64_t)(int64_t)result;
		m.words[1] = rep.result;
		x.send_buf = (uint64_t)(uintptr_t)out;
		x.send_len = result ? 0 : rep.len;
		x.send_cap = result ? IPC_NO_CAP : rep.cap;
		x.send_cap_rights = rep.cap_rights;
		/*
		 * A registration's capability is the client's alone once the
		 * reply has taken its copy: traced's goes before the next
		 * request, which may be to unregister the event.
		 */
		if ((!result && rep.cap_delete) || record_active() || !triggers_tick_ns()) {
			sys_ipc_reply(&m, &x);
			if (!result && rep.cap_delete) {
				sys_cap_delete((int)rep.cap);
			}
			record_drain(); /* after the reply: the client waits for no chunk */
			triggers_run(); /* nor for a trigger's save */
			m = (struct ipc_regs){0};
			x.timeout_ns = wait_ns();
			err = sys_ipc_recv(CAP_SLOT_SERVICE, &m, &x);
			continue;
		}
		x.timeout_ns = wait_ns();
		err = sys_ipc_reply_recv(CAP_SLOT_SERVICE, &m, &x);
	}
	return 0;
}
