/*
 * Concurrency test of common/trace_aux.c, built on its own with
 * ThreadSanitizer (tests/host/trace.mk) and run by `make test-host` after
 * the unit tests: one aux writer against snapshot and lookup readers,
 * which must never see bytes other than a record's own. The rings'
 * concurrency is the ring stress's (tests/host/stress/).
 *
 * Threads never call CHECK (the framework is single-threaded); they record
 * failures, which the test checks after joining them.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi/errno.h"
#include "abi/trace.h"
#include "area.h"
#include "common/trace_aux.h"
#include "common/trace_header.h"
#include "rand.h"
#include "test.h"
#include "trace/aux_write.h"

#define CPUS	4
#define ENTRIES 64

static pthread_mutex_t fail_lock = PTHREAD_MUTEX_INITIALIZER;
static int failures;
static char first_failure[256];

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&fail_lock);
	if (!failures++) {
		va_start(ap, fmt);
		vsnprintf(first_failure, sizeof(first_failure), fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&fail_lock);
}

static void check_no_failures(void)
{
	CHECK(failures == 0, "%d failures, the first: %s", failures, first_failure);
	failures = 0;
}

/* The aux test's area: CPUS rings of ENTRIES, the boot names' durable part, a reader page. */
static void rig_area(struct ttrace_area *a)
{
	const struct ttrace_geometry g = {.num_cpus = CPUS,
					  .ring_entries = ENTRIES,
					  .aux_durable_size = ttrace_aux_names_size(),
					  .aux_ring_size = TTRACE_AUX_RING_MIN};

	test_area_get(a, &g, true);
}

#define AUX_RECORDS 20000
#define AUX_REFS    1024 /* references the writer publishes, the newest kept */

struct aux_rig {
	struct ttrace_area a;
	uint64_t name_ref; /* a durable record: never evicted */
	uint64_t refs[AUX_REFS];
	uint32_t published; /* [a] records written so far */
};

static uint32_t aux_len(uint32_t k)
{
	return k * 37 % 300;
}

static void aux_string(uint32_t k, char *s)
{
	for (uint32_t i = 0; i < aux_len(k); i++) {
		s[i] = (char)('!' + (k * 7 + i) % 90);
	}
	s[aux_len(k)] = '\0';
}

static void check_aux(const struct ttrace_aux_record *rec, const char *str, uint32_t len,
		      const char *who)
{
	char want[TTRACE_AUX_LEN_MAX + 1];
	uint32_t k = (uint32_t)rec->id;

	aux_string(k, want);
	if (rec->tag != TTRACE_AUX_TEXT || rec->len != aux_len(k) || len != rec->len ||
	    memcmp(str, want, len)) {
		fail("%s: record %u at %llu is not what was written", who, k,
		     (unsigned long long)rec->pos);
	}
}

static void *aux_writer(void *p)
{
	struct aux_rig *g = p;
	char s[TTRACE_AUX_LEN_MAX + 1];

	for (uint32_t k = 0; k < AUX_RECORDS; k++) {
		struct ttrace_aux_item it = {
		    .id = k, .ts = k, .str = s, .len = aux_len(k), .tag = TTRACE_AUX_TEXT};
		uint64_t ref;

		aux_string(k, s);
		if (ttrace_aux_write(&g->a, &it, &ref)) {
			fail("aux write %u", k);
		}
		/* relaxed: published by the release store of published below */
		__atomic_store_n(&g->refs[k % AUX_REFS], ref, __ATOMIC_RELAXED);
		/* release: pairs with the readers' acquire load of published */
		__atomic_store_n(&g->published, k + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void *aux_reader(void *p)
{
	struct aux_rig *g = p;
	static __thread uint64_t buf[TTRACE_AUX_RING_MIN / 8];
	char s[TTRACE_AUX_LEN_MAX + 1];
	uint64_t rnd = (uint64_t)(uintptr_t)&s | 1;
	uint32_t n;

	/* acquire: pairs with the writer's release store of published */
	while ((n = __atomic_load_n(&g->published, __ATOMIC_ACQUIRE)) < AUX_RECORDS) {
		struct ttrace_aux_record rec;
		struct ttrace_aux_view v;
		const char *str;
		int64_t last = -1;
		int got;

		if (!n) {
			continue;
		}
		uint32_t k =
		    n - 1 - (uint32_t)(test_random(&rnd) % (n < AUX_REFS / 2 ? n : AUX_REFS / 2));
		/* relaxed: the acquire load of published covers it */
		uint64_t ref = __atomic_load_n(&g->refs[k % AUX_REFS], __ATOMIC_RELAXED);

		got = ttrace_aux_lookup(&g->a, ref, &rec, s, sizeof(s));
		if (got >= 0) {
			check_aux(&rec, s, (uint32_t)got, "lookup");
			if (rec.id != k) {
				fail("lookup of record %u found record %llu", k,
				     (unsigned long long)rec.id);
			}
		} else if (got != -ENOENT || s[0]) {
			fail("lookup of record %u: %d", k, got);
		}
		if (ttrace_aux_lookup(&g->a, g->name_ref, &rec, s, sizeof(s)) != 4 ||
		    strcmp(s, "exit")) {
			fail("durable name lost");
		}
		if (ttrace_aux_snapshot(&g->a, buf, sizeof(buf), &v)) {
			continue; /* overtaken: try again */
		}
		while ((got = ttrace_aux_next(&v, &rec, &str)) == 1) {
			check_aux(&rec, str, rec.len, "snapshot");
			if ((int64_t)rec.id != last + 1 && last >= 0) {
				fail("snapshot: record %llu after %lld", (unsigned long long)rec.id,
				     (long long)last);
			}
			last = (int64_t)rec.id;
		}
		if (got) {
			fail("snapshot walk: %d", got);
		}
	}
	return NULL;
}

TEST(trace_concurrency_aux_readers_never_see_other_bytes)
{
	static struct aux_rig g;
	struct ttrace_aux_view v;
	struct ttrace_aux_record rec;
	const char *str;
	pthread_t w, r[2];

	memset(&g, 0, sizeof(g));
	rig_area(&g.a);
	CHECK_EQ_INT(ttrace_aux_write_names(&g.a, 0), 0, "boot names");
	ttrace_aux_durable(&g.a, &v);
	g.name_ref = UINT64_MAX;
	while (ttrace_aux_next(&v, &rec, &str) == 1) {
		if (rec.tag == TTRACE_AUX_SYSCALL && rec.id == 0) {
			g.name_ref = rec.pos;
		}
	}
	pthread_create(&r[0], NULL, aux_reader, &g);
	pthread_create(&r[1], NULL, aux_reader, &g);
	pthread_create(&w, NULL, aux_writer, &g);
	pthread_join(w, NULL);
	pthread_join(r[0], NULL);
	pthread_join(r[1], NULL);
	check_no_failures();
	CHECK(g.a.hdr->aux_evicted > AUX_RECORDS / 2, "the aux ring wrapped many times");
	test_area_put(&g.a);
}
