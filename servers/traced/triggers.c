/*
 * triggers: TRIGGER, TRIGGER_TEXT and the SAVE triggers' saves
 * (triggers.h). A request is checked whole before the kernel hears of
 * it, so a bad one changes nothing. A SAVE trigger's save is written
 * once: the kernel counts every firing, and traced takes the first as
 * the moment; later ones, the save waiting or on its way or done, are
 * counted only, so nothing queues.
 *
 * Each trigger's entry is also its note in the kernel (struct note),
 * written whenever it changes and cleared before its program does, so a
 * traced that dies between the two leaves none. A restarted traced takes
 * the notes back on its first look (recover()): a note whose action and
 * program are the kernel's trigger's (its text compiled again is the
 * kernel's bytecode) is that trigger's; any other is not believed.
 */
#include <errno.h>
#include <spoor.h>
#include <string.h>

#include "abi/traced.h"
#include "common/trace_names.h"
#include "common/trace_pred_parse.h"
#include "servers/traced/file.h"
#include "servers/traced/save.h"
#include "servers/traced/state.h"
#include "servers/traced/triggers.h"

#define WHY_MAX 128
#define NS_MS	1000000ull

/* [traced] Each kind's trigger as set, and where its save is. */
static struct trigger {
	struct traced_trigger_request set; /* action NONE: none traced knows */
	uint32_t state;			   /* TRACED_TRIGGER_* */
	int32_t err;			   /* FAILED: the save's */
	uint64_t due_ns;		   /* WAITING: when the save goes */
	uint64_t events;		   /* SAVED: events in the file */
} triggers[TTRACE_KIND_LIMIT];

/* A trigger's entry as its note keeps it: what TRIGGER set but the program, and its save. */
struct note {
	uint32_t action;
	uint32_t after_ms;
	uint32_t len;	/* bytes of text; 0: set as bytecode */
	uint32_t state; /* TRACED_TRIGGER_* */
	int32_t err;
	uint32_t reserved;
	uint64_t events;
	char name[TRACED_SAVE_NAME_MAX];
	char text[TTRACE_PRED_TEXT_MAX];
};

_Static_assert(sizeof(struct note) <= TTRACE_NOTE_BYTES, "a trigger is a note");

/* Writes kind's entry as its note (an entry without action: none). */
static void note_put(uint16_t kind)
{
	uint8_t bytes[TTRACE_NOTE_BYTES] = {0};
	const struct trigger *g = &triggers[kind];
	struct note n = {.action = g->set.action,
			 .after_ms = g->set.after_ms,
			 .len = g->set.len,
			 .state = g->state,
			 .err = g->err,
			 .events = g->events};

	memcpy(n.name, g->set.name, sizeof(n.name));
	memcpy(n.text, g->set.text, sizeof(n.text));
	memcpy(bytes, &n, sizeof(n));
	/* 0: a known kind and a note of ours; the kernel checks nothing more */
	(void)sys_trace_note(CAP_SLOT_TRACE_CONTROL, TTRACE_NOTE_SET_TRIGGER, kind, bytes);
}

/* The kernel's trigger of kind (action NONE: none), or -E*. */
static long kernel_get(uint16_t kind, struct ttrace_trigger *t)
{
	return sys_trace_trigger(CAP_SLOT_TRACE_CONTROL, TTRACE_TRIG_GET, kind, t);
}

/* Removes kind's trigger in the kernel and here: 0 or the kernel's -E*. */
static long remove(uint16_t kind)
{
	static const struct ttrace_trigger none;
	long err = sys_trace_trigger(CAP_SLOT_TRACE_CONTROL, TTRACE_TRIG_SET, kind, (void *)&none);

	if (!err) {
		triggers[kind] = (struct trigger){0};
		note_put(kind);
	}
	return err;
}

/* Whether note n's predicate is t's program: its text compiled again, or, set as bytecode, any. */
static bool same_program(uint16_t kind, const struct note *n, const struct ttrace_trigger *t)
{
	struct ttrace_pred_prog prog;
	char text[TTRACE_PRED_TEXT_MAX + 1];
	char why[WHY_MAX];

	if (n->len > TTRACE_PRED_TEXT_MAX) {
		return false;
	}
	if (!n->len) {
		return true; /* the kernel's program is all that was ever known of it */
	}
	memcpy(text, n->text, n->len);
	text[n->len] = 0;
	return strlen(text) == n->len &&
	       !ttrace_pred_compile(text, kind, 0, &prog, why, sizeof(why)) && prog.n == t->n &&
	       !memcmp(prog.insn, t->insn, prog.n * sizeof(prog.insn[0]));
}

/*
 * Takes back, on traced's first look at its triggers, the entries the
 * traced before it noted: each kind whose kernel trigger has its note's
 * action and program. A save that was waiting is ARMED again, so that
 * triggers_run() finds its moment in the kernel and writes it; one done
 * (SAVED, FAILED) stays done. The kernel's wake-up is bound again for a
 * save still to come, as triggers_set() binds it.
 */
static void recover(void)
{
	static bool done;
	static struct ttrace_trigger t;
	uint8_t bytes[TTRACE_NOTE_BYTES];
	struct note n;

	for (uint16_t k = 1; !done && k < TTRACE_KIND_LIMIT; k++) {
		if (!ttrace_kind_info(k) || kernel_get(k, &t) || t.action == TTRACE_TRIG_NONE ||
		    sys_trace_note(CAP_SLOT_TRACE_CONTROL, TTRACE_NOTE_GET_TRIGGER, k, bytes)) {
			continue;
		}
		memcpy(&n, bytes, sizeof(n));
		if (n.action != t.action || !same_program(k, &n, &t)) {
			continue;
		}
		struct trigger *g = &triggers[k];
		*g = (struct trigger){
		    .set = {.kind = k,
			    .action = n.action,
			    .after_ms = n.after_ms,
			    .len = n.len,
			    .n = n.len ? 0 : t.n},
		    .state = n.state == TRACED_TRIGGER_WAITING ? TRACED_TRIGGER_ARMED : n.state,
		    .err = n.err,
		    .events = n.events};
		memcpy(g->set.name, n.name, sizeof(n.name));
		memcpy(g->set.text, n.text, sizeof(n.text));
		if (!n.len) {
			memcpy(g->set.insn, t.insn, t.n * sizeof(t.insn[0]));
		}
		if (n.action == TTRACE_TRIG_SAVE && g->state == TRACED_TRIGGER_ARMED) {
			(void)sys_trace_wake(CAP_SLOT_TRACE_CONTROL, CAP_SLOT_SERVICE,
					     traced.area.hdr->ring_entries / 2);
		}
	}
	done = true;
}

/* The checks of r that need no kernel: 0 or -EINVAL. */
static int check(const struct traced_trigger_request *r)
{
	char name[TRACED_SAVE_NAME_MAX] = {0};

	if (r->len > TTRACE_PRED_TEXT_MAX || r->n > TTRACE_PRED_INSNS_MAX || r->reserved ||
	    (r->len && r->n) || r->kind >= TTRACE_KIND_LIMIT ||
	    (r->action == TTRACE_TRIG_NONE
		 ? r->len || r->n || (r->kind && !ttrace_kind_info(r->kind))
		 : (!r->len && !r->n) || !ttrace_kind_info(r->kind))) {
		return -EINVAL;
	}
	if (r->action == TTRACE_TRIG_SAVE) {
		return file_name_ok(r->name) && r->after_ms <= TRACED_TRIGGER_AFTER_MAX ? 0
											: -EINVAL;
	}
	/* no name, no wait: fields an action does not use are zero */
	return memcmp(r->name, name, sizeof(name)) || r->after_ms ? -EINVAL : 0;
}

int triggers_set(const struct request *req, struct reply *rep)
{
	static struct ttrace_trigger t;
	struct traced_trigger_request r;
	struct ttrace_pred_prog prog;
	char text[TTRACE_PRED_TEXT_MAX + 1];
	char why[WHY_MAX];

	recover(); /* the notes of a traced before this one, once */

	(void)rep;
	if (req->len != sizeof(r) || req->arg) {
		return -EINVAL;
	}
	memcpy(&r, req->body, sizeof(r));
	if (check(&r)) {
		return -EINVAL;
	}
	if (r.action == TTRACE_TRIG_NONE) {
		for (uint16_t k = 1; k < TTRACE_KIND_LIMIT; k++) {
			/* only the kinds with one: each removal stops every other CPU */
			long err = (k == r.kind || (!r.kind && ttrace_kind_info(k))) &&
					   !kernel_get(k, &t) && t.action != TTRACE_TRIG_NONE
				       ? remove(k)
				       : 0;
			if (err) {
				return (int)err; /* the kinds before lost theirs */
			}
		}
		return 0;
	}
	memcpy(text, r.text, r.len);
	text[r.len] = 0;
	if (r.n) {
		/* the kernel checks the program: traced has no say in what it runs */
		prog.n = r.n;
		memcpy(prog.insn, r.insn, r.n * sizeof(r.insn[0]));
	} else if (strlen(text) != r.len ||
		   ttrace_pred_compile(text, (uint16_t)r.kind, 0, &prog, why, sizeof(why))) {
		return -EINVAL;
	}
	t = (struct ttrace_trigger){.action = r.action, .n = prog.n};
	memcpy(t.insn, prog.insn, prog.n * sizeof(prog.insn[0]));
	if (r.action == TTRACE_TRIG_SAVE) {
		/*
		 * The kernel tells a save's firing to the endpoint bound to its
		 * wake-up (abi/trace_pred.h): traced's own, bound by this
		 * arming. A ring past the mark wakes traced once, for nothing.
		 */
		long err = sys_trace_wake(CAP_SLOT_TRACE_CONTROL, CAP_SLOT_SERVICE,
					  traced.area.hdr->ring_entries / 2);
		if (err) {
			return (int)err;
		}
	}
	triggers[r.kind] = (struct trigger){0};
	note_put((uint16_t)r.kind); /* none while the program changes */
	long err = sys_trace_trigger(CAP_SLOT_TRACE_CONTROL, TTRACE_TRIG_SET, r.kind, &t);
	if (err) {
		return (int)err;
	}
	triggers[r.kind] = (struct trigger){.set = r, .state = TRACED_TRIGGER_ARMED};
	note_put((uint16_t)r.kind);
	return 0;
}

int triggers_text(const struct request *req, struct reply *rep)
{
	static struct ttrace_trigger t;
	struct traced_trigger_status st = {0};

	recover(); /* the notes of a traced before this one, once */

	if (req->len || req->arg >= TTRACE_KIND_LIMIT || !ttrace_kind_info((uint16_t)req->arg)) {
		return -EINVAL;
	}
	uint16_t kind = (uint16_t)req->arg;
	long err = kernel_get(kind, &t);
	if (err) {
		return (int)err;
	}
	const struct trigger *g = &triggers[kind];
	if (g->set.action == t.action) {
		st.set = g->set;
		st.state = g->state;
		st.err = g->err;
		st.events = g->events;
	} else {
		/* set before traced last started (or its text lost): what the kernel knows */
		st.set = (struct traced_trigger_request){.kind = kind, .action = t.action};
		st.state = t.fired ? TRACED_TRIGGER_WAITING : TRACED_TRIGGER_ARMED;
	}
	st.fired = t.fired;
	memcpy(rep->buf, &st, sizeof(st));
	rep->len = sizeof(st);
	return 0;
}

uint64_t triggers_tick_ns(void)
{
	uint64_t now = (uint64_t)sys_clock_ns(), wait = TIMEOUT_FOREVER;

	recover(); /* the notes of a traced before this one, once */

	for (uint32_t k = 0; k < TTRACE_KIND_LIMIT; k++) {
		if (triggers[k].state == TRACED_TRIGGER_WAITING) {
			uint64_t left = triggers[k].due_ns > now ? triggers[k].due_ns - now : 0;
			wait = left < wait ? left : wait;
		}
	}
	return wait;
}

/* Writes kind's save now, as SAVE from CONTROL writes one of every event. */
static void save(uint16_t kind)
{
	static struct traced_save_request r;
	static uint8_t out[TRACED_REPLY_MAX];
	struct trigger *g = &triggers[kind];
	const struct request req = {.body = &r,
				    .len = sizeof(r),
				    .level = TRACED_LEVEL_CONTROL,
				    .pid = (uint32_t)sys_getpid(),
				    .cap = IPC_NO_CAP};
	struct reply rep = {.buf = out, .cap = IPC_NO_CAP};

	memset(&r, 0, sizeof(r));
	memcpy(r.name, g->set.name, sizeof(r.name));
	int err = save_run(&req, &rep);
	if (err) {
		g->state = TRACED_TRIGGER_FAILED;
		g->err = err;
		note_put(kind);
		return;
	}
	struct traced_save_reply answer;
	memcpy(&answer, out, sizeof(answer));
	g->state = TRACED_TRIGGER_SAVED;
	g->events = answer.events;
	note_put(kind);
}

void triggers_run(void)
{
	static struct ttrace_trigger t;

	recover(); /* the notes of a traced before this one, once */

	for (uint16_t k = 1; k < TTRACE_KIND_LIMIT; k++) {
		struct trigger *g = &triggers[k];
		if (g->set.action != TTRACE_TRIG_SAVE || g->state != TRACED_TRIGGER_ARMED) {
			continue;
		}
		if (!kernel_get(k, &t) && t.action == TTRACE_TRIG_SAVE && t.first_ns) {
			g->state = TRACED_TRIGGER_WAITING;
			g->due_ns = t.first_ns + g->set.after_ms * NS_MS;
			note_put(k);
		}
	}
	uint64_t now = (uint64_t)sys_clock_ns();
	for (uint16_t k = 1; k < TTRACE_KIND_LIMIT; k++) {
		if (triggers[k].state == TRACED_TRIGGER_WAITING && triggers[k].due_ns <= now) {
			save(k);
		}
	}
}
