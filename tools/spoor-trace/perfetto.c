/*
 * perfetto: the Trace Event Format writer (see perfetto.h). One pass over
 * the events, in file order; each thread keeps the stack of slices it has
 * open, each with the event that opened it, and a slice is written when
 * it closes, whole ("X" with its duration): readers that match B to E by
 * name across threads (Chrome DevTools) have nothing to pair wrongly.
 */
#include "tools/spoor-trace/perfetto.h"
#include "tools/spoor-trace/json.h"
#include "tools/spoor-trace/perfetto_profile.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi/trace_func.h"
#include "common/trace_names.h"
#include "tools/spoor-trace/fields.h"
#include "tools/spoor-trace/graph.h"
#include "tools/spoor-trace/runs.h"
#include "tools/spoor-trace/stacks.h"
#include "tools/spoor-trace/tally.h"

#define NS_PER_US 1000u
/* a thread's open slices: a syscall and the IPC call inside it, ..., the graph's calls */
#define STACK_MAX (16 + TTRACE_GRAPH_DEPTH)

/* The largest integer every JSON reader holds exactly (a double's mantissa). */
#define JSON_INT_MAX (1ull << 53)

#define SLICE_SYSCALL 1
#define SLICE_IPC     2
#define SLICE_GRAPH   3 /* a call of the function graph (graph.h) */

/* An open slice: what opened it, written when it closes. */
struct slice {
	uint8_t type; /* SLICE_* */
	const char *cat;
	char name[TVIEW_NAME_MAX];
	uint64_t ns;		  /* its start */
	struct ttrace_record rec; /* the event that opened it: the slice's args */
};

/*
 * A thread, by pid and tid (a tid may come back under another pid); or,
 * keyed by CALLER_KEY(tid), which pid's thread tid has an IPC call open,
 * since a reply names its caller by tid alone.
 */
struct thr {
	uint64_t key;
	uint32_t tid;
	uint32_t pid;
	bool used;
	uint32_t depth;
	struct slice *stack; /* STACK_MAX, allocated with its first slice */
	uint64_t call_ns;    /* when the open IPC call began */
	uint64_t last_ns;    /* the thread's latest time: its events never go back */
};

struct pf {
	struct tview *v;
	FILE *out;
	bool comma;
	struct thr *thr; /* open addressing by key */
	size_t cap, len;
	uint64_t flows;
	uint64_t cpu_ns[TTRACE_MAX_CPUS]; /* each CPU's latest event time: its order is exact */
	uint64_t end_ns;
	struct tfields fields;
	struct tfields more;		/* a closing event's fields, added to its slice's */
	uint64_t lost[TTRACE_MAX_CPUS]; /* lost on a CPU, not yet written (flush_loss()) */
	struct tally frames;		/* "parent\tmodule\tname": the stackFrames, id = row + 1 */
	struct stack_names stack;	/* the event's, as names */
	int err;
};

#define THREAD_KEY(pid, tid) ((uint64_t)(pid) << 32 | (tid))
#define CALLER_KEY(tid)	     (1ull << 63 | (tid))

static size_t slot_of(uint64_t key, size_t cap)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 32) & (cap - 1);
}

/* The entry of key, made if new (with tid and pid); NULL when out of memory. */
static struct thr *entry(struct pf *p, uint64_t key, uint32_t tid, uint32_t pid)
{
	if (2 * (p->len + 1) > p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 256;
		struct thr *t = calloc(cap, sizeof(*t));
		if (!t) {
			p->err = -ENOMEM;
			return NULL;
		}
		for (size_t i = 0; i < p->cap; i++) {
			if (p->thr[i].used) {
				size_t j = slot_of(p->thr[i].key, cap);
				while (t[j].used) {
					j = (j + 1) & (cap - 1);
				}
				t[j] = p->thr[i];
			}
		}
		free(p->thr);
		p->thr = t;
		p->cap = cap;
	}
	size_t i = slot_of(key, p->cap);
	while (p->thr[i].used && p->thr[i].key != key) {
		i = (i + 1) & (p->cap - 1);
	}
	struct thr *t = &p->thr[i];
	if (!t->used) {
		t->used = true;
		t->key = key;
		t->tid = tid;
		t->pid = pid;
		p->len++;
	}
	return t;
}

static struct thr *thread(struct pf *p, uint32_t pid, uint32_t tid)
{
	return entry(p, THREAD_KEY(pid, tid), tid, pid);
}

/* Opens an event: {"ph":..,"ts":..,"pid":..,"tid":.. */
static void head(struct pf *p, char ph, uint64_t ns, uint32_t pid, uint32_t tid)
{
	fprintf(p->out, "%s{\"ph\":\"%c\",\"ts\":%llu.%03llu,\"pid\":%u,\"tid\":%u",
		p->comma ? ",\n" : "\n", ph, (unsigned long long)(ns / NS_PER_US),
		(unsigned long long)(ns % NS_PER_US), pid, tid);
	p->comma = true;
}

static void named(struct pf *p, const char *cat, const char *name)
{
	fprintf(p->out, ",\"cat\":\"%s\",\"name\":", cat);
	json_string(p->out, name);
}

/* The fields of fs as members of args ("name":value, ...), after a comma if comma. */
static void fields_members(struct pf *p, const struct tfields *fs, bool comma)
{
	for (size_t i = 0; i < fs->n; i++) {
		const struct tfield *f = &fs->f[i];
		const char *value_name =
		    f->values && (f->type == TFIELD_UNSIGNED || f->type == TFIELD_SIGNED)
			? ttrace_value_name(f->values, (int64_t)f->value)
			: NULL;

		fprintf(p->out, "%s", comma || i ? "," : "");
		json_string(p->out, f->name);
		fputc(':', p->out);
		if (value_name) {
			json_string(p->out, value_name); /* as the text shows it */
			continue;
		}
		switch (f->type) {
		case TFIELD_UNSIGNED:
			/* Beyond 2^53 a JSON number loses digits in most readers: a string keeps
			 * them. */
			fprintf(p->out, f->value > JSON_INT_MAX ? "\"%llu\"" : "%llu",
				(unsigned long long)f->value);
			break;
		case TFIELD_SIGNED: {
			int64_t v = (int64_t)f->value;
			bool exact = v <= (int64_t)JSON_INT_MAX && v >= -(int64_t)JSON_INT_MAX;
			fprintf(p->out, exact ? "%lld" : "\"%lld\"", (long long)v);
			break;
		}
		case TFIELD_HEX:
			fprintf(p->out, "\"0x%llx\"", (unsigned long long)f->value);
			break;
		case TFIELD_BYTES:
			fputc('"', p->out);
			for (uint32_t b = 0; b < f->nbytes; b++) {
				fprintf(p->out, "%02x", f->bytes[b]);
			}
			fputc('"', p->out);
			break;
		default:
			json_string(p->out, f->text);
			break;
		}
	}
}

static void fields_args(struct pf *p, const struct tfields *fs)
{
	fputs(",\"args\":{", p->out);
	fields_members(p, fs, false);
	fputc('}', p->out);
}

/* The event's own fields as args. */
static void event_args(struct pf *p, const struct ttrace_record *r, struct tclass *k)
{
	tfields_get(p->v, k, r, &p->fields);
	fields_args(p, &p->fields);
}

/* The label of thread tid: its name, its program's, or its number. */
static void label(struct pf *p, uint32_t tid, char *buf, size_t size)
{
	const char *name = tview_thread_name(p->v, tid);

	if (!name) {
		name = tview_proc_name(p->v, tview_thread_pid(p->v, tid));
	}
	if (name) {
		snprintf(buf, size, "%s (%u)", name, tid);
	} else {
		snprintf(buf, size, "tid %u", tid);
	}
}

static void on_run(void *ctx, const struct trun *run)
{
	struct pf *p = ctx;
	uint64_t start = tview_ns(p->v, run->start);
	uint64_t end = tview_ns(p->v, run->end);
	char name[TVIEW_NAME_MAX + 16];

	label(p, run->tid, name, sizeof(name));
	head(p, 'X', start, PERFETTO_CPU_PID, PERFETTO_CPU_TID(run->cpu));
	named(p, "sched", name);
	fprintf(p->out, ",\"dur\":%llu.%03llu,\"args\":{\"tid\":%u,\"pid\":%u}}",
		(unsigned long long)((end - start) / NS_PER_US),
		(unsigned long long)((end - start) % NS_PER_US), run->tid,
		tview_thread_pid(p->v, run->tid));
}

/* The fields of rec, an event of a slice's (a syscall's or IPC's: never a user event). */
static void slice_fields(struct pf *p, const struct ttrace_record *r, struct tfields *out)
{
	struct tclass k;

	tfields_classify(p->v, r, &k);
	tfields_get(p->v, &k, r, out);
}

/* Writes slice sl of thread t as a whole, ending at ns; r, the event that ended it, adds its
 * fields that the opening event has not. */
static void write_slice(struct pf *p, const struct thr *t, const struct slice *sl, uint64_t ns,
			const struct ttrace_record *r)
{
	uint64_t dur = ns - sl->ns;
	size_t n = 0;

	head(p, 'X', sl->ns, t->pid, t->tid);
	named(p, sl->cat, sl->name);
	fprintf(p->out, ",\"dur\":%llu.%03llu", (unsigned long long)(dur / NS_PER_US),
		(unsigned long long)(dur % NS_PER_US));
	slice_fields(p, &sl->rec, &p->fields);
	if (r) {
		slice_fields(p, r, &p->more);
		for (size_t i = 0; i < p->more.n; i++) {
			bool known = false;
			for (size_t j = 0; j < p->fields.n && !known; j++) {
				known = !strcmp(p->fields.f[j].name, p->more.f[i].name);
			}
			if (!known) {
				p->more.f[n++] = p->more.f[i];
			}
		}
	}
	p->more.n = n;
	fputs(",\"args\":{", p->out);
	fields_members(p, &p->fields, false);
	fields_members(p, &p->more, p->fields.n > 0);
	fputs("}}", p->out);
}

/* Closes thread t's slices down to and with the newest of type, at ns; r ends that one. */
static bool close_slice(struct pf *p, struct thr *t, uint8_t type, uint64_t ns,
			const struct ttrace_record *r)
{
	uint32_t at = t->depth;

	while (at && t->stack[at - 1].type != type) {
		at--;
	}
	if (!at) {
		return false; /* nothing of type open: the end has no slice */
	}
	while (t->depth >= at) {
		bool own = t->depth == at;
		write_slice(p, t, &t->stack[t->depth - 1], ns, own ? r : NULL);
		t->depth--;
	}
	return true;
}

static void open_slice(struct pf *p, struct thr *t, uint8_t type, uint64_t ns, const char *cat,
		       const char *name, const struct ttrace_record *r)
{
	if (!t->stack && !(t->stack = calloc(STACK_MAX, sizeof(*t->stack)))) {
		p->err = -ENOMEM;
		return;
	}
	if (t->depth == STACK_MAX) {
		return;
	}
	struct slice *sl = &t->stack[t->depth++];
	sl->type = type;
	sl->cat = cat;
	snprintf(sl->name, sizeof(sl->name), "%s", name);
	sl->ns = ns;
	sl->rec = *r;
}

/*
 * The event's call stack as "sf", the id of its innermost frame in the
 * stackFrames table (written at the end): a frame is one node for each
 * distinct path to it from the root, as the Trace Event format has them.
 */
static void stack_frame(struct pf *p, const struct ttrace_record *r)
{
	char key[STACKS_NAME_MAX + TTRACE_COMM_MAX + 32];
	long id = 0;

	if (!stacks_of(p->v, r, &p->stack)) {
		return;
	}
	for (uint32_t i = 0; i < p->stack.n && id >= 0; i++) {
		snprintf(key, sizeof(key), "%ld\t%s\t%s", id, p->stack.module[i], p->stack.name[i]);
		id = tally_add(&p->frames, key, 0, 0);
		id = id < 0 ? id : id + 1;
	}
	if (id < 0) {
		p->err = -ENOMEM;
		return;
	}
	fprintf(p->out, ",\"sf\":%ld", id);
}

/*
 * The end of the document, with the stackFrames table if an event had a
 * stack: "id":{"name":..,"category":module,"parent":"id"}.
 */
static void stack_frames(struct pf *p)
{
	if (!p->frames.len) {
		fputs("\n]}\n", p->out);
		return;
	}
	fputs("],\"stackFrames\":{", p->out);
	for (size_t i = 0; i < p->frames.len; i++) {
		const char *key = p->frames.rows[i].key;
		const char *module = strchr(key, '\t') + 1, *name = strchr(module, '\t') + 1;
		char mod[TTRACE_COMM_MAX];

		snprintf(mod, sizeof(mod), "%.*s", (int)(name - 1 - module), module);
		fprintf(p->out, "%s\n\"%zu\":{\"name\":", i ? "," : "", i + 1);
		json_string(p->out, name);
		fputs(",\"category\":", p->out);
		json_string(p->out, mod);
		if (strtol(key, NULL, 10)) {
			fprintf(p->out, ",\"parent\":\"%ld\"", strtol(key, NULL, 10));
		}
		fputc('}', p->out);
	}
	fputs("\n}}\n", p->out);
}

static void instant(struct pf *p, uint64_t ns, uint32_t pid, uint32_t tid, const char *cat,
		    const char *name, const struct ttrace_record *r, struct tclass *k)
{
	head(p, 'i', ns, pid, tid);
	named(p, cat, name);
	fputs(",\"s\":\"t\"", p->out);
	if (r) {
		stack_frame(p, r);
		event_args(p, r, k);
	}
	fputc('}', p->out);
}

/*
 * Writes what was lost on cpu and not yet written, as an instant at ns on
 * the CPU's track. The rule of abi/trace_file.h LOSS PLACEMENT: a loss is
 * placed at the first event its CPU kept after it, so event() calls this
 * with that event's time, and the end with the CPU's last time.
 */
static void flush_loss(struct pf *p, uint32_t cpu, uint64_t ns)
{
	char name[48];

	if (!p->lost[cpu]) {
		return;
	}
	snprintf(name, sizeof(name), "lost %llu events", (unsigned long long)p->lost[cpu]);
	head(p, 'i', ns, PERFETTO_CPU_PID, PERFETTO_CPU_TID(cpu));
	named(p, "loss", name);
	fprintf(p->out, ",\"s\":\"t\",\"args\":{\"lost\":%llu,\"cpu\":%u}}",
		(unsigned long long)p->lost[cpu], cpu);
	p->lost[cpu] = 0;
}

/* ipc_reply by t, naming its caller: ends the caller's call, with a flow from it to t. */
static void ipc_reply(struct pf *p, struct thr *t, uint64_t ns, const struct ttrace_record *r)
{
	uint32_t caller_tid = (uint32_t)r->data[2];
	struct thr *call = entry(p, CALLER_KEY(caller_tid), caller_tid, 0);
	uint32_t at;

	if (!call) {
		return;
	}
	uint32_t caller_pid = call->pid;
	/* Each lookup may grow the table and move the others: the last two find what exists. */
	if (!thread(p, caller_pid, caller_tid)) {
		return;
	}
	t = thread(p, r->pid, r->tid);
	struct thr *caller = thread(p, caller_pid, caller_tid);
	for (at = caller->depth; at && caller->stack[at - 1].type != SLICE_IPC; at--) {
	}
	if (!at || caller == t || t->depth == STACK_MAX) {
		return;
	}
	uint64_t id = ++p->flows;
	uint64_t end = ns > caller->last_ns ? ns : caller->last_ns;

	head(p, 's', caller->call_ns, caller->pid, caller->tid);
	named(p, "ipc", "ipc");
	fprintf(p->out, ",\"id\":%llu}", (unsigned long long)id);
	open_slice(p, t, SLICE_IPC, ns, "ipc", "ipc_reply", r);
	head(p, 'f', ns, t->pid, t->tid);
	named(p, "ipc", "ipc");
	fprintf(p->out, ",\"id\":%llu,\"bp\":\"e\"}", (unsigned long long)id);
	close_slice(p, t, SLICE_IPC, ns, NULL);
	close_slice(p, caller, SLICE_IPC, end, NULL);
	caller->last_ns = end;
}

static void event(struct pf *p, const struct ttrace_record *r)
{
	struct thr *t = thread(p, r->pid, r->tid);
	struct tclass k;
	struct thr *call;
	char name[TVIEW_NAME_MAX + 32];

	if (!t) {
		return;
	}
	uint64_t ns = tview_ns(p->v, r->ts);
	uint64_t cpu_ns = ns > p->cpu_ns[r->cpu] ? ns : p->cpu_ns[r->cpu];

	flush_loss(p, r->cpu, cpu_ns);
	ns = ns > t->last_ns ? ns : t->last_ns;
	t->last_ns = ns;
	p->cpu_ns[r->cpu] = cpu_ns;
	p->end_ns = ns > p->end_ns ? ns : p->end_ns;
	tfields_classify(p->v, r, &k);

	switch (r->kind) {
	case TTRACE_KIND_syscall_entry: {
		size_t len;
		const char *sys = ttrace_decoder_syscall(&p->v->dec, r->data[0], &len);
		if (sys) {
			snprintf(name, sizeof(name), "%.*s", (int)len, sys);
		} else {
			snprintf(name, sizeof(name), "syscall %llu",
				 (unsigned long long)r->data[0]);
		}
		open_slice(p, t, SLICE_SYSCALL, ns, "syscall", name, r);
		break;
	}
	case TTRACE_KIND_syscall_exit:
		close_slice(p, t, SLICE_SYSCALL, ns, r);
		break;
	case TTRACE_KIND_ipc_call:
		open_slice(p, t, SLICE_IPC, ns, "ipc", "ipc_call", r);
		t->call_ns = ns;
		call = entry(p, CALLER_KEY(r->tid), r->tid, r->pid);
		if (call) {
			call->pid = r->pid;
		}
		break;
	case TTRACE_KIND_ipc_reply:
		ipc_reply(p, t, ns, r);
		break;
	case TTRACE_KIND_graph_entry:
		graph_func(p->v, r->data[0], name, sizeof(name));
		open_slice(p, t, SLICE_GRAPH, ns, "func", name, r);
		break;
	case TTRACE_KIND_graph_exit:
		close_slice(p, t, SLICE_GRAPH, ns, r);
		break;
	case TTRACE_KIND_mem_pf:
		instant(p, ns, r->pid, r->tid, "mem", "page fault", r, &k);
		break;
	case TTRACE_KIND_prof_sample:
		instant(p, ns, r->pid, r->tid, "prof", "sample", r, &k);
		break;
	case TTRACE_KIND_irq_entry:
	case TTRACE_KIND_irq_timer:
		instant(p, ns, PERFETTO_CPU_PID, PERFETTO_CPU_TID(r->cpu), "irq",
			r->kind == TTRACE_KIND_irq_timer ? "timer" : "irq", r, &k);
		break;
	case TTRACE_KIND_proc_spawn:
	case TTRACE_KIND_proc_exit:
	case TTRACE_KIND_proc_fault:
	case TTRACE_KIND_user:
		instant(p, ns, r->pid, r->tid, r->kind == TTRACE_KIND_user ? "user" : "proc",
			k.name, r, &k);
		break;
	default:
		break;
	}
}

static void meta(struct pf *p, uint32_t pid, uint32_t tid, const char *what, const char *name)
{
	head(p, 'M', 0, pid, tid);
	fprintf(p->out, ",\"name\":\"%s\",\"args\":{\"name\":", what);
	json_string(p->out, name);
	fputs("}}", p->out);
}

static void meta_proc(void *ctx, uint32_t pid)
{
	struct pf *p = ctx;
	const char *name = tview_proc_name(p->v, pid);
	char buf[32];

	if (!name) {
		snprintf(buf, sizeof(buf), pid ? "pid %u" : "kernel", pid);
		name = buf;
	}
	meta(p, pid, pid, "process_name", name);
}

static void meta_thread(void *ctx, uint32_t tid)
{
	struct pf *p = ctx;
	char name[TVIEW_NAME_MAX + 16];
	const char *own = tview_thread_name(p->v, tid);

	const char *prog = tview_proc_name(p->v, tview_thread_pid(p->v, tid));

	if (own || (tid && prog)) {
		snprintf(name, sizeof(name), "%s", own ? own : prog);
	} else {
		/* A thread of no process is a CPU's idle thread, whatever its tid. */
		snprintf(name, sizeof(name), tview_thread_pid(p->v, tid) ? "tid %u" : "idle", tid);
	}
	meta(p, tview_thread_pid(p->v, tid), tid, "thread_name", name);
}

static void metadata(struct pf *p)
{
	char name[16];

	meta(p, PERFETTO_CPU_PID, PERFETTO_CPU_PID, "process_name", "CPUs");
	head(p, 'M', 0, PERFETTO_CPU_PID, PERFETTO_CPU_PID);
	fputs(",\"name\":\"process_sort_index\",\"args\":{\"sort_index\":-1}}", p->out);
	for (uint32_t c = 0; c < p->v->file->hdr.num_cpus; c++) {
		snprintf(name, sizeof(name), "cpu %u", c);
		meta(p, PERFETTO_CPU_PID, PERFETTO_CPU_TID(c), "thread_name", name);
	}
	tview_each(p->v, 0, meta_proc, p);
	tview_each(p->v, 1, meta_thread, p);
}

int perfetto_convert(struct tview *v, FILE *out)
{
	struct pf *p = calloc(1, sizeof(*p));
	struct tfile_iter it;
	struct tfile_item item;
	struct truns runs;
	int err;

	if (!p) {
		return -ENOMEM;
	}
	p->v = v;
	p->out = out;
	for (uint32_t c = 0; c < TTRACE_MAX_CPUS; c++) {
		p->cpu_ns[c] =
		    tview_ns(v, v->file->first_ts); /* a loss before a CPU's first event */
	}
	if (!v->names_len && tview_names(v)) {
		free(p);
		return -ENOMEM;
	}
	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", out);
	metadata(p);
	truns_start(&runs, on_run, p);
	tfile_iter_start(&it, v->file);
	while (!p->err && tfile_next(&it, &item)) {
		truns_item(&runs, &item);
		if (item.lost) {
			p->lost[item.lost_cpu] += item.lost_count;
		} else {
			event(p, &item.rec);
		}
	}
	truns_finish(&runs);
	for (uint32_t c = 0; c < TTRACE_MAX_CPUS; c++) {
		flush_loss(p, c, p->cpu_ns[c]);
	}
	for (size_t i = 0; i < p->cap; i++) {
		struct thr *t = &p->thr[i];
		while (t->used && t->depth) {
			close_slice(p, t, t->stack[t->depth - 1].type,
				    p->end_ns > t->last_ns ? p->end_ns : t->last_ns, NULL);
		}
		free(t->stack);
	}
	if (!p->err) {
		p->err = perfetto_profiles(v, out);
	}
	stack_frames(p);
	tally_free(&p->frames);
	err = p->err;
	if (!err && (fflush(out) || ferror(out))) {
		err = -EIO;
	}
	free(p->thr);
	free(p);
	return err;
}
