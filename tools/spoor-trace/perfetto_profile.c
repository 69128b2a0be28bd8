/*
 * perfetto_profile: Chrome CPU profiles from the profiler's samples (see
 * perfetto_profile.h): one pass gathers each sampled thread's stack tree,
 * samples and times; then each thread's two events are written.
 */
#include "tools/spoor-trace/perfetto_profile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/trace_names.h"
#include "tools/spoor-trace/json.h"
#include "tools/spoor-trace/stacks.h"
#include "tools/spoor-trace/tally.h"

#define NS_PER_US 1000
#define ROOT_NODE 1 /* "(root)": the other nodes are a tally row + 2 */

struct profile {
	uint32_t pid, tid;
	struct tally nodes;  /* "parent\tmodule\tname" */
	uint64_t *node, *ns; /* each sample's leaf node and time */
	size_t n, cap;
};

struct profiles {
	struct profile *p;
	size_t n, cap;
	struct stack_names stack;
};

static struct profile *profile_of(struct profiles *ps, uint32_t pid, uint32_t tid)
{
	for (size_t i = 0; i < ps->n; i++) {
		if (ps->p[i].pid == pid && ps->p[i].tid == tid) {
			return &ps->p[i];
		}
	}
	if (ps->n == ps->cap) {
		size_t cap = ps->cap ? 2 * ps->cap : 8;
		struct profile *more = realloc(ps->p, cap * sizeof(*more));
		if (!more) {
			return NULL;
		}
		ps->p = more;
		ps->cap = cap;
	}
	struct profile *p = &ps->p[ps->n++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->tid = tid;
	return p;
}

/* Sample rec (a prof_sample) into its thread's profile. Returns 0 or -ENOMEM. */
static int add_sample(struct profiles *ps, struct tview *v, const struct ttrace_record *rec)
{
	struct profile *p = profile_of(ps, rec->pid, rec->tid);
	char key[STACKS_NAME_MAX + TTRACE_COMM_MAX + 32];
	long node = ROOT_NODE;

	if (!p) {
		return -ENOMEM;
	}
	if (!stacks_of(v, rec, &ps->stack)) {
		/* A stack word that is not one (a corrupt record): still a sample of its program.
		 */
		const char *comm = rec->pid ? ttrace_decoder_comm(&v->dec, rec->pid) : "kernel";
		ps->stack.n = 1;
		snprintf(ps->stack.name[0], STACKS_NAME_MAX, "%s", comm);
		snprintf(ps->stack.module[0], TTRACE_COMM_MAX, "%s", comm);
	}
	for (uint32_t i = 0; i < ps->stack.n && node > 0; i++) {
		snprintf(key, sizeof(key), "%ld\t%s\t%s", node, ps->stack.module[i],
			 ps->stack.name[i]);
		long row = tally_add(&p->nodes, key, 0, 0);
		node = row < 0 ? row : row + 2;
	}
	if (node < 0) {
		return -ENOMEM;
	}
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 64;
		uint64_t *nodes = realloc(p->node, cap * sizeof(*nodes));
		uint64_t *ns = nodes ? realloc(p->ns, cap * sizeof(*ns)) : NULL;
		p->node = nodes ? nodes : p->node;
		if (!ns) {
			return -ENOMEM;
		}
		p->ns = ns;
		p->cap = cap;
	}
	p->node[p->n] = (uint64_t)node;
	p->ns[p->n++] = tview_ns(v, rec->ts);
	return 0;
}

static void node(FILE *out, uint64_t id, uint64_t parent, const char *module, size_t module_len,
		 const char *name)
{
	fprintf(out, ",{\"id\":%llu,\"parent\":%llu,\"callFrame\":{\"functionName\":",
		(unsigned long long)id, (unsigned long long)parent);
	if (!strcmp(name, "idle") && module_len == 4 && !strncmp(module, "idle", 4)) {
		name = "(idle)";
	}
	json_string(out, name);
	fputs(",\"scriptId\":0,\"url\":", out);
	char url[TTRACE_COMM_MAX];
	snprintf(url, sizeof(url), "%.*s", (int)module_len, module);
	json_string(out, url);
	fputs(",\"lineNumber\":-1,\"columnNumber\":-1}}", out);
}

static void head(FILE *out, const struct profile *p, size_t id, const char *name)
{
	fprintf(out,
		",\n{\"ph\":\"P\",\"ts\":%llu.%03llu,\"pid\":%u,\"tid\":%u,\"id\":\"0x%zx\","
		"\"cat\":\"" PERFETTO_PROFILE_CAT "\",\"name\":\"%s\",\"args\":{\"data\":{",
		(unsigned long long)(p->ns[0] / NS_PER_US),
		(unsigned long long)(p->ns[0] % NS_PER_US), p->pid, p->tid, id, name);
}

static void write_profile(FILE *out, const struct profile *p, size_t id)
{
	head(out, p, id, "Profile");
	fprintf(out, "\"startTime\":%llu.%03llu}}}", (unsigned long long)(p->ns[0] / NS_PER_US),
		(unsigned long long)(p->ns[0] % NS_PER_US));
	head(out, p, id, "ProfileChunk");
	fputs("\"cpuProfile\":{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\","
	      "\"scriptId\":0,\"url\":\"\",\"lineNumber\":-1,\"columnNumber\":-1}}",
	      out);
	for (size_t i = 0; i < p->nodes.len; i++) {
		const char *key = p->nodes.rows[i].key;
		const char *module = strchr(key, '\t') + 1, *name = strchr(module, '\t') + 1;
		node(out, i + 2, strtoull(key, NULL, 10), module, (size_t)(name - 1 - module),
		     name);
	}
	fputs("],\"samples\":[", out);
	for (size_t i = 0; i < p->n; i++) {
		fprintf(out, "%s%llu", i ? "," : "", (unsigned long long)p->node[i]);
	}
	fputs("]},\"timeDeltas\":[", out);
	for (size_t i = 0; i < p->n; i++) {
		uint64_t d = i && p->ns[i] > p->ns[i - 1] ? p->ns[i] - p->ns[i - 1] : 0;
		fprintf(out, "%s%llu.%03llu", i ? "," : "", (unsigned long long)(d / NS_PER_US),
			(unsigned long long)(d % NS_PER_US));
	}
	fputs("]}}}", out);
}

int perfetto_profiles(struct tview *v, FILE *out)
{
	struct profiles *ps = calloc(1, sizeof(*ps));
	struct tfile_iter it;
	struct tfile_item item;
	int err = ps ? 0 : -ENOMEM;

	tfile_iter_start(&it, v->file);
	while (!err && tfile_next(&it, &item)) {
		if (!item.lost && item.rec.kind == TTRACE_KIND_prof_sample) {
			err = add_sample(ps, v, &item.rec);
		}
	}
	for (size_t i = 0; ps && i < ps->n; i++) {
		if (!err && ps->p[i].n) {
			write_profile(out, &ps->p[i], i + 1);
		}
		tally_free(&ps->p[i].nodes);
		free(ps->p[i].node);
		free(ps->p[i].ns);
	}
	if (ps) {
		free(ps->p);
	}
	free(ps);
	return err ? err : ferror(out) ? -EIO : 0;
}
