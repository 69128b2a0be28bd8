/*
 * tracecat [-f] [-b] [-l] [-p] [-k KIB] [-S] [-c] [-r NAME] [-w NAME] [-s MS] [-i MS] [-h]
 * [FILTERS] [if PREDICATE]: a client of traced
 * (abi/traced.h) that speaks the protocol on its own, as any tool would.
 *   tracecat FILTERS     prints the dump, as the shell's `trace dump` does
 *   tracecat -f FILTERS  follows: prints `# following` once it has its
 *                        starting point, then events as they come, until it
 *                        is killed
 *   tracecat -b FILTERS  fetches the dump as binary ring entries and checks
 *                        every one: known kinds and CPUs, continuations that
 *                        carry their head's ts, timestamps in order, and (with
 *                        no filter) per CPU sequence numbers that account for
 *                        every entry, returned or reported lost (with no
 *                        predicate either); then prints
 *                        tracecat: N events verified (E entries, L lost), kinds: K
 *                        or the first check that failed (exit 1). A dump comes
 *                        through BULK in pages of 1 MiB; then it prints
 *                          tracecat: fetched B bytes in T ns, digest D
 *                        T the guest clock's time spent in the requests (what
 *                        make bench sets against -c), D the FNV-1a hash of
 *                        the bytes, which a page-at-a-time dump (-p) of the
 *                        same rings matches.
 *   -l                   with -b: lists each event verified as
 *                          cpu=C pid=P tid=T KIND
 *                        and each loss as a text dump's line, in the
 *                        dump's order, and after them the lines a
 *                        text dump ends with (its end line, and what its
 *                        losses mean) from the last page's cursor, so a
 *                        binary dump's events and accounting can be set
 *                        beside a text dump's
 *   -p                   with -b: page at a time through DUMP, not BULK
 *   -k KIB               with -b: BULK pages of KIB KiB (4 to 1024)
 *   tracecat -S FILTERS  the STATS answer in its key=value form, one line a
 *                        row, for scripts (abi/traced.h, STATS)
 *   tracecat -c          maps the rings (the control level: `run -t`) and copies
 *                        every event out with the reader traced uses, without
 *                        IPC: the ceiling of a dump's rate (make bench), as
 *                        tracecat: copied N events in T ns (S skipped)
 *   -s MS                waits MS milliseconds between pages: a slow reader,
 *                        for tests that change things in the middle of a dump
 *   -i MS                ends a follow after MS milliseconds without events
 *                        (with -b, then prints what it verified)
 *   tracecat -r NAME FILTERS  records (abi/traced.h RECORD) into the host
 *                        file NAME.spoor until tracecat ends: killed (a
 *                        Ctrl-C), or after -s MS, when it stops the
 *                        recording itself and prints its totals and the
 *                        time traced spent draining (make bench). It needs
 *                        the control level (`run -t tracecat -r ...`).
 *   tracecat -w NAME FILTERS  saves (abi/traced.h SAVE) into the host file
 *                        NAME.spoor, as the shell's `trace save as NAME`,
 *                        and prints
 *                          tracecat: saved N events, L lost, B bytes in T ns
 *                        T the guest clock's time of the request (what make
 *                        bench sets against -c, as -b's).
 * FILTERS are the shell's: cpu=N pid=N tid=N kind=... cat=... last=N ...,
 * and `if PREDICATE` after them (common/trace_filter.h), which every
 * request carries (abi/traced.h, struct traced_pred; RECORD refuses it)
 * tracecat reads everyone's events: it needs the read-all level (`run -r
 * tracecat`, or -t) and says so otherwise.
 */
#include <spoor.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <trace_client.h>

#include "ceiling.h"
#include "common/fnv.h"
#include "common/trace_format.h"
#include "common/trace_names.h"

#define WHY_MAX	       1400
#define FOLLOW_POLL_NS 100000000ull
#define NS_PER_MS      1000000ull
#define KIB	       1024u
#define FILTERS_MAX    160

/* -h's text; an unknown option gets its first line. */
static const char usage[] =
    "usage: tracecat [-f] [-b [-l] [-p] [-k KIB]] [-S] [-c] [-s MS] [-i MS] [FILTERS] [if "
    "PREDICATE]\n"
    "  (none)  print the dump FILTERS select, as the shell's trace dump\n"
    "  -f      follow: print events as they come, until killed\n"
    "  -b      fetch binary entries through BULK and verify them;\n"
    "          -l list the events and the dump's end lines,\n"
    "          -p page at a time through DUMP, -k KIB bulk pages of KIB KiB\n"
    "  -S      the stats as key=value lines, for scripts\n"
    "  -c      copy the rings out without IPC (needs run -t): a dump's ceiling\n"
    "  -r NAME record to the host's NAME.spoor until killed, or for -s MS (needs run -t)\n"
    "  -w NAME save to the host's NAME.spoor, timed by the guest clock\n"
    "  -s MS   wait MS ms between pages; -i MS end a follow after MS ms without events\n"
    "  -h      this text\n"
    "tracecat reads everyone's events: run it with run -r (or -t).\n";

struct verify {
	uint32_t ncpus;
	bool ordered;  /* a dump is in timestamp order; a follow only per CPU */
	bool complete; /* no filter: every entry is returned or reported lost */
	uint64_t events, entries, lost;
	uint64_t last_ts;
	bool seen[TTRACE_MAX_CPUS];
	uint64_t next_seq[TTRACE_MAX_CPUS]; /* the seq the CPU's next entry must have */
	uint64_t pending_lost[TTRACE_MAX_CPUS];
	uint64_t kinds[TRACED_KIND_WORDS];
	bool list; /* -l: print each event verified */
};

static int fail(const char *what, const struct ttrace_entry *e)
{
	printf("tracecat: FAIL: %s (cpu %u seq %u kind %u ts %llu)\n", what, e->cpu, e->seq,
	       e->kind, (unsigned long long)e->ts);
	return -1;
}

/* Checks the slots of one page; returns 0 or -1 having said what is wrong. */
static int verify_page(struct verify *v, const uint8_t *data, size_t len)
{
	const union ttrace_slot *s = (const union ttrace_slot *)data;
	size_t n = len / sizeof(*s);

	if (len % sizeof(*s)) {
		printf("tracecat: FAIL: a page of %zu bytes is not whole entries\n", len);
		return -1;
	}
	for (size_t i = 0; i < n;) {
		const struct ttrace_entry *e = &s[i].e;
		uint32_t ncont = TTRACE_NCONT_OF(e->ctx);
		if (e->cpu >= v->ncpus) {
			return fail("no such cpu", e);
		}
		if (e->kind == TRACED_KIND_LOST) {
			if (v->list) {
				char line[TTRACE_LINE_MAX];
				ttrace_format_lost(line, sizeof(line), e->cpu, e->data[0]);
				printf("%s", line);
			}
			v->pending_lost[e->cpu] += e->data[0];
			v->lost += e->data[0];
			i++;
			continue;
		}
		if (!ttrace_kind_info(e->kind) || e->ts & TTRACE_TS_CONT ||
		    e->ts == TTRACE_TS_WRITING || e->ctx >> 6 || i + 1 + ncont > n) {
			return fail("not a valid head entry", e);
		}
		for (uint32_t j = 1; j <= ncont; j++) {
			if (s[i + j].c.ts != (e->ts | TTRACE_TS_CONT)) {
				return fail("a continuation without its head's ts", e);
			}
		}
		if (v->ordered && e->ts < v->last_ts) {
			return fail("out of timestamp order", e);
		}
		/* seq holds the index's low 32 bits: what was skipped must be what was reported
		 * lost. */
		uint64_t want = (v->next_seq[e->cpu] + v->pending_lost[e->cpu]) & UINT32_MAX;
		if (v->complete && v->seen[e->cpu] && e->seq != want) {
			return fail("a sequence gap not reported as lost", e);
		}
		v->seen[e->cpu] = true;
		v->pending_lost[e->cpu] = 0;
		v->next_seq[e->cpu] = (uint64_t)e->seq + 1 + ncont;
		v->last_ts = e->ts;
		v->events++;
		v->entries += 1 + ncont;
		v->kinds[e->kind / 64] |= 1ull << (e->kind % 64);
		if (v->list) {
			printf("cpu=%u pid=%u tid=%u %s\n", e->cpu, e->pid, e->tid,
			       ttrace_kind_info(e->kind)->name);
		}
		i += 1 + ncont;
	}
	return 0;
}

struct options {
	bool follow, binary, stats, paged, list;
	size_t bulk;		 /* -k: BULK's page size in bytes */
	uint64_t pause_ns;	 /* -s: between pages */
	uint64_t idle_ns;	 /* -i: a follow ends after this long without events; 0 never */
	const char *record;	 /* -r: the recording's name */
	const char *save;	 /* -w: the saved file's name */
	struct traced_pred pred; /* `if PREDICATE`: len 0 none */
};

/* -w: saves f into NAME.spoor, the request timed by the guest clock. */
static int save(const struct traced_filter *f, const struct options *o)
{
	struct traced_save_request req = {.filter = *f, .pred = o->pred};
	struct traced_save_reply r;

	if (strlen(o->save) >= sizeof(req.name)) {
		printf("tracecat: -w takes a name of at most %zu bytes\n", sizeof(req.name) - 1);
		return 2;
	}
	strcpy(req.name, o->save);
	uint64_t began = (uint64_t)sys_clock_ns();
	long err = traced_call_save(&req, &r);
	uint64_t took = (uint64_t)sys_clock_ns() - began;
	if (err) {
		printf("tracecat: traced refused the save: %s\n", strerror((int)-err));
		return 1;
	}
	printf("tracecat: saved %llu events, %llu lost, %llu bytes in %llu ns\n",
	       (unsigned long long)r.events, (unsigned long long)r.lost,
	       (unsigned long long)r.bytes, (unsigned long long)took);
	return 0;
}

/*
 * -r: records f into NAME.spoor. traced ends a recording whose client is
 * gone, so a kill ends it too; with -s MS, tracecat stops it after MS.
 */
static int record(const struct traced_filter *f, const struct options *o)
{
	struct traced_save_request req = {.filter = *f, .pred = o->pred};
	struct traced_record_status r;

	if (strlen(o->record) >= sizeof(req.name)) {
		printf("tracecat: -r takes a name of at most %zu bytes\n", sizeof(req.name) - 1);
		return 2;
	}
	strcpy(req.name, o->record);
	long err = traced_call_record(&req, &r);
	if (err) {
		printf("tracecat: traced refused the recording: %s%s\n", strerror((int)-err),
		       err == -EACCES ? " (it needs the control level: run -t)" : "");
		return 1;
	}
	printf("tracecat: recording to %s.spoor\n", req.name);
	for (uint64_t waited = 0; !o->pause_ns || waited < o->pause_ns; waited += FOLLOW_POLL_NS) {
		sys_sleep_ns(FOLLOW_POLL_NS);
	}
	err = traced_call_rec_stop(&r);
	if (err) {
		printf("tracecat: the recording ended badly: %s\n", strerror((int)-err));
		return 1;
	}
	printf("tracecat: recorded %llu events, %llu lost, %llu bytes to %s.spoor\n",
	       (unsigned long long)r.events, (unsigned long long)r.lost,
	       (unsigned long long)r.bytes, r.name);
	printf("tracecat: traced drained them in %llu ns\n", (unsigned long long)r.busy_ns);
	return 0;
}

/*
 * -l: the lines a text dump of the same request ends with, from the
 * cursor of a binary dump's last page, which counts as a text dump's does.
 */
static void end_lines(const struct traced_cursor *c)
{
	static char text[TTRACE_LINE_MAX + WHY_MAX];
	const struct traced_losses l = {
	    .events = c->events, .lost = c->lost, .outside = c->outside, .early = c->early};
	int n = ttrace_format_end(text, TTRACE_LINE_MAX, c->events, c->lost);

	traced_losses_format(text + n, sizeof(text) - (size_t)n, &l);
	printf("%s", text);
}

static int run(const struct traced_filter *f, uint32_t ncpus, const struct options *o)
{
	static struct traced_pager pager;
	uint32_t op = o->follow ? TRACED_OP_FOLLOW : TRACED_OP_DUMP;
	/* A filter or a predicate leaves entries out that are not lost. */
	struct verify v = {.ncpus = ncpus,
			   .ordered = !o->follow,
			   .complete = !f->flags && !o->pred.len,
			   .list = o->list};
	const uint8_t *data;
	size_t len;
	uint32_t flags = 0;
	bool started = false;
	uint64_t last_event_ns = (uint64_t)sys_clock_ns();
	uint64_t fetch_ns = 0, bytes = 0, digest = TTRACE_FNV_OFFSET;
	long err = 0;

	if (o->binary && !o->follow && !o->paged) {
		err = traced_pager_bulk(&pager, f, o->bulk);
	} else {
		traced_pager_dump(&pager, op, f,
				  o->binary ? TRACED_FORMAT_BINARY : TRACED_FORMAT_TEXT);
	}
	traced_pager_pred(&pager, &o->pred);
	while (!err && !(flags & TRACED_DUMP_DONE)) {
		uint64_t asked = (uint64_t)sys_clock_ns();
		err = traced_pager_next(&pager, &data, &len, &flags);
		fetch_ns += (uint64_t)sys_clock_ns() - asked;
		if (err) {
			break;
		}
		bytes += len;
		digest = o->binary ? ttrace_fnv1a(digest, data, len) : digest;
		if (o->binary && verify_page(&v, data, len)) {
			return 1;
		}
		if (o->follow && !started) {
			/* From here on nothing new is missed: a script may start its workload. */
			printf("# following\n");
			started = true;
		}
		if (!o->binary) {
			printf("%.*s", (int)len, (const char *)data);
		}
		uint64_t now = (uint64_t)sys_clock_ns();
		if (len) {
			last_event_ns = now;
		} else if (o->follow && o->idle_ns && now - last_event_ns >= o->idle_ns) {
			break;
		}
		if (o->follow && !len) {
			sys_sleep_ns(FOLLOW_POLL_NS);
		} else if (o->pause_ns) {
			sys_sleep_ns(o->pause_ns);
		}
	}
	traced_pager_close(&pager);
	if (err) {
		printf("tracecat: traced: %s\n", strerror((int)-err));
		return 1;
	}
	if (o->list && o->binary && !o->follow) {
		end_lines(&pager.reply.head.cursor);
	}
	if (o->binary && !o->follow) {
		printf("tracecat: fetched %llu bytes in %llu ns, digest %016llx\n",
		       (unsigned long long)bytes, (unsigned long long)fetch_ns,
		       (unsigned long long)digest);
	}
	if (o->binary) {
		printf("tracecat: %llu events verified (%llu entries, %llu lost), kinds:",
		       (unsigned long long)v.events, (unsigned long long)v.entries,
		       (unsigned long long)v.lost);
		for (uint32_t k = 0; k < TRACED_KIND_WORDS * 64; k++) {
			if (v.kinds[k / 64] >> (k % 64) & 1) {
				printf(" %s", ttrace_kind_info(k)->name);
			}
		}
		printf("\n");
	}
	return 0;
}

/* -S: the STATS answer as key=value lines. */
static int stats(const struct traced_filter *f, const struct traced_pred *pred)
{
	static struct traced_pager pager;
	struct traced_stats_request r = {.filter = *f, .form = TRACED_STATS_KV, .pred = *pred};
	const uint8_t *data;
	size_t len;
	uint32_t flags = 0;

	traced_pager_stats(&pager, &r);
	while (!(flags & TRACED_DUMP_DONE)) {
		long err = traced_pager_next(&pager, &data, &len, &flags);
		if (err) {
			printf("tracecat: traced: %s\n", strerror((int)-err));
			return 1;
		}
		printf("%.*s", (int)len, (const char *)data);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct traced_filter f;
	struct options o = {.bulk = TRACED_BULK_MAX};
	char why[WHY_MAX];
	int first = 1;

	for (; first < argc && argv[first][0] == '-'; first++) {
		if (!strcmp(argv[first], "-s") && first + 1 < argc) {
			o.pause_ns = strtoull(argv[++first], NULL, 10) * NS_PER_MS;
		} else if (!strcmp(argv[first], "-i") && first + 1 < argc) {
			o.idle_ns = strtoull(argv[++first], NULL, 10) * NS_PER_MS;
		} else if (!strcmp(argv[first], "-k") && first + 1 < argc) {
			o.bulk = strtoull(argv[++first], NULL, 10) * KIB;
			if (o.bulk < TRACED_PAGE_DATA_MAX || o.bulk > TRACED_BULK_MAX) {
				printf("tracecat: -k takes 4 to %u (KiB)\n", TRACED_BULK_MAX / KIB);
				return 2;
			}
		} else if (!strcmp(argv[first], "-r") && first + 1 < argc) {
			o.record = argv[++first];
		} else if (!strcmp(argv[first], "-w") && first + 1 < argc) {
			o.save = argv[++first];
		} else if (!strcmp(argv[first], "-p")) {
			o.paged = true;
		} else if (!strcmp(argv[first], "-f")) {
			o.follow = true;
		} else if (!strcmp(argv[first], "-b")) {
			o.binary = true;
		} else if (!strcmp(argv[first], "-l")) {
			o.list = true;
		} else if (!strcmp(argv[first], "-S")) {
			o.stats = true;
		} else if (!strcmp(argv[first], "-c")) {
			return ceiling();
		} else if (!strcmp(argv[first], "-h") || !strcmp(argv[first], "--help")) {
			char filters[FILTERS_MAX];
			traced_filter_usage(filters, sizeof(filters));
			printf("%sFILTERS: %s\n", usage, filters);
			return 0;
		} else {
			printf("tracecat: unknown option '%s' (%.*s)\n", argv[first],
			       (int)strcspn(usage, "\n"), usage);
			return 2;
		}
	}
	struct traced_status st;
	long err = traced_call_status(&st);
	if (err) {
		printf("tracecat: traced: %s\n", strerror((int)-err));
		return 1;
	}
	/* A tool that shows what the system does: its own events alone would mislead. */
	if (st.level < TRACED_LEVEL_READ && !o.record) {
		printf("tracecat: permission denied (need read-all)\n");
		return 1;
	}
	if (traced_filter_parse_if(argc - first, argv + first, st.num_cpus, &f, &o.pred, why,
				   sizeof(why))) {
		printf("tracecat: %s\n", why);
		return 2;
	}
	if (o.record) {
		return record(&f, &o);
	}
	if (o.save) {
		return save(&f, &o);
	}
	return o.stats ? stats(&f, &o.pred) : run(&f, st.num_cpus, &o);
}
