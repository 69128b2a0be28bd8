/*
 * graph: see graph.h. The folding keeps, per thread, the calls open on it
 * by depth; the kernel pairs every entry with an exit on its thread
 * (abi/trace_func.h), so an exit closes the call its depth names. A trace
 * that begins inside a call has exits without entries: those are left
 * out, as the calls they end are not known.
 */
#include "tools/spoor-trace/graph.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi/trace.h"
#include "abi/trace_func.h"
#include "common/trace_values.h"
#include "tools/spoor-trace/stacks.h"

#define NS_PER_US 1000u

bool graph_event(const struct ttrace_record *r)
{
	return r->kind == TTRACE_KIND_graph_entry || r->kind == TTRACE_KIND_graph_exit;
}

void graph_func(struct tview *v, uint64_t addr, char *buf, size_t size)
{
	ttrace_format_arg_code(buf, size, addr, &v->dec);
	char *plus = strchr(buf, '+');
	if (plus) {
		*plus = '\0';
	}
}

size_t graph_line(struct tview *v, const struct ttrace_record *r, char *buf)
{
	bool exit = r->kind == TTRACE_KIND_graph_exit;
	char name[STACKS_NAME_MAX], took[32] = "";
	size_t len = tview_line(v, r, buf);
	/* the dump's prefix ends where the kind's name begins */
	const char *kind = strstr(buf, exit ? " graph_exit " : " graph_entry ");
	int indent =
	    2 + 2 * (int)(r->data[1] < TTRACE_GRAPH_DEPTH ? r->data[1] : TTRACE_GRAPH_DEPTH);
	const char *how =
	    exit && r->data[3] != TTRACE_GRAPH_RETURNED
		? ttrace_value_name(ttrace_values_find("graph_end", strlen("graph_end")),
				    (int64_t)r->data[3])
		: NULL;
	int n;

	if (!kind) {
		return len;
	}
	len = (size_t)(kind - buf);
	graph_func(v, r->data[0], name, sizeof(name));
	if (exit) {
		snprintf(took, sizeof(took), "%llu.%03llu us",
			 (unsigned long long)(r->data[2] / NS_PER_US),
			 (unsigned long long)(r->data[2] % NS_PER_US));
		n = snprintf(buf + len, TTRACE_LINE_MAX - len, " | %13s |%*s} /* %s%s%s */", took,
			     indent, "", name, how ? ", " : "", how ? how : "");
	} else {
		n = snprintf(buf + len, TTRACE_LINE_MAX - len, " | %13s |%*s%s() {", took, indent,
			     "", name);
	}
	len += n > 0 ? (size_t)n : 0;
	return len < TTRACE_LINE_MAX ? len : TTRACE_LINE_MAX - 1;
}

/* A thread's open calls, by depth. */
struct calls {
	uint32_t pid, tid;
	uint32_t depth;
	char name[TTRACE_GRAPH_DEPTH][STACKS_NAME_MAX];
	uint64_t callees_ns[TTRACE_GRAPH_DEPTH];
};

/* The calls of pid and tid in *all (n of them), made if new; NULL when out of memory. */
static struct calls *calls_of(struct calls **all, size_t *n, uint32_t pid, uint32_t tid)
{
	for (size_t i = 0; i < *n; i++) {
		if ((*all)[i].pid == pid && (*all)[i].tid == tid) {
			return &(*all)[i];
		}
	}
	struct calls *more = realloc(*all, (*n + 1) * sizeof(**all));
	if (!more) {
		return NULL;
	}
	*all = more;
	struct calls *c = &more[(*n)++];
	memset(c, 0, sizeof(*c));
	c->pid = pid;
	c->tid = tid;
	return c;
}

/* Folds the call that exit ends, open in c: its stack as "comm;...;name", its own ns. */
static long fold_exit(struct tview *v, struct tally *t, struct calls *c,
		      const struct ttrace_record *exit)
{
	uint32_t d = (uint32_t)exit->data[1];
	char key[TTRACE_GRAPH_DEPTH * STACKS_NAME_MAX + TTRACE_COMM_MAX];
	size_t len;

	if (d >= TTRACE_GRAPH_DEPTH || d + 1 != c->depth) {
		c->depth = d < c->depth ? d : c->depth;
		return 0; /* its entry came before the trace did */
	}
	uint64_t own = exit->data[2] > c->callees_ns[d] ? exit->data[2] - c->callees_ns[d] : 0;
	len = (size_t)snprintf(key, sizeof(key), "%s",
			       exit->pid ? ttrace_decoder_comm(&v->dec, exit->pid) : "kernel");
	for (uint32_t i = 0; i <= d; i++) {
		len += (size_t)snprintf(key + len, sizeof(key) - len, ";%s_[k]", c->name[i]);
	}
	if (d) {
		c->callees_ns[d - 1] += exit->data[2];
	}
	c->depth = d;
	return tally_add(t, key, 0, own) < 0 ? -ENOMEM : (long)own;
}

long graph_fold(struct tview *v, struct tally *t)
{
	struct calls *all = NULL;
	size_t n = 0;
	long total = 0;
	struct tfile_iter it;
	struct tfile_item item;

	tfile_iter_start(&it, v->file);
	while (total >= 0 && tfile_next(&it, &item)) {
		const struct ttrace_record *r = &item.rec;
		if (item.lost || !graph_event(r)) {
			continue;
		}
		struct calls *c = calls_of(&all, &n, r->pid, r->tid);
		uint32_t d = (uint32_t)r->data[1];
		if (!c) {
			total = -ENOMEM;
		} else if (r->kind == TTRACE_KIND_graph_exit) {
			long own = fold_exit(v, t, c, r);
			total = own < 0 ? own : total + own;
		} else if (d < TTRACE_GRAPH_DEPTH && d <= c->depth) {
			graph_func(v, r->data[0], c->name[d], sizeof(c->name[d]));
			c->callees_ns[d] = 0;
			c->depth = d + 1;
		}
	}
	free(all);
	return total;
}
