/*
 * ring_stress [SECONDS]: runs the ring stress (ring_stress.h) for about
 * SECONDS (default: a short run, the one `make test-host` does), that
 * time shared between the configurations below, seeded from the clock
 * unless RING_STRESS_SEED is set. It first says
 *   ring_stress: seed S (RING_STRESS_SEED=S runs it again)
 * then each configuration says one line, and at the end
 *   ring_stress: ok, N events in M s (seed S)
 * or, for each configuration with failures or that did not do its work
 * (no events, none by the straight path in overwrite mode, nothing
 * streamed or recorded, a simulated CPU that wrote nothing, nothing
 * overwritten or dropped in the mode it starts in, no clears or mode
 * changes where asked for),
 *   ring_stress: FAIL config: N failures, the first: ...
 * and the exit status is 1. The seed replays a run's random choices (the
 * threads' interleaving is the host's).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "abi/trace.h"
#include "ring_stress.h"

#define SHORT_MS     4000 /* the whole default run */
#define ROUND_MS_MAX 5000 /* one configuration at a time, then the next */

static const struct ring_stress_config configs[] = {
    {.name = "overwrite", .mode = TTRACE_MODE_OVERWRITE},
    {.name = "drop", .mode = TTRACE_MODE_DROP},
    {.name = "drop, clears", .mode = TTRACE_MODE_DROP, .clears = true},
    {.name = "clears and mode changes",
     .mode = TTRACE_MODE_OVERWRITE,
     .clears = true,
     .mode_changes = true},
};

#define NCONFIGS (sizeof(configs) / sizeof(configs[0]))

/* The first part of the work cfg asks for that t shows was not done, or NULL. */
static const char *work_missing(const struct ring_stress_config *cfg,
				const struct ring_stress_totals *t)
{
	if (!t->events || !t->nested) {
		return "no events, or none nested";
	}
	if (cfg->mode == TTRACE_MODE_OVERWRITE && !t->straight) {
		return "none by the straight path in overwrite mode";
	}
	if (!t->received || !t->recorded) {
		return "nothing streamed, or nothing recorded";
	}
	/*
	 * The totals above would hide a CPU whose writer never wrote. (Not so
	 * its reader's: a CPU cleared often may stream a handful, or none.)
	 */
	if (t->cpus_idle) {
		return "a simulated CPU's writer wrote nothing";
	}
	if (cfg->mode == TTRACE_MODE_OVERWRITE ? !t->overwritten : !t->dropped) {
		return "nothing overwritten or dropped in the mode it starts in";
	}
	if ((cfg->clears && !t->clears) || (cfg->mode_changes && !t->mode_changes)) {
		return "no clears or mode changes, though asked for";
	}
	return NULL;
}

int main(int argc, char **argv)
{
	char *end = NULL;
	double seconds = argc > 1 ? strtod(argv[1], &end) : SHORT_MS / 1000.0;
	const char *seed_env = getenv("RING_STRESS_SEED");
	char *seed_end = NULL;
	uint64_t seed = seed_env ? strtoull(seed_env, &seed_end, 0) : (uint64_t)time(NULL);
	uint64_t total_ms, done_ms = 0, events = 0;
	int failed = 0;

	if (argc > 2 || (end && (*end || end == argv[1])) || seconds <= 0 || seconds > 86400) {
		fprintf(stderr,
			"ring_stress: usage: ring_stress [SECONDS], 0 < SECONDS <= 86400\n");
		return 2;
	}
	/* A seed that is not the number a run printed would replay another run. */
	if (seed_env && (!*seed_env || *seed_end || !seed || *seed_env == '-')) {
		fprintf(stderr,
			"ring_stress: RING_STRESS_SEED=%s: not a seed (a positive number, as a "
			"run prints it)\n",
			seed_env);
		return 2;
	}
	seed = seed ? seed : 1;
	total_ms = (uint64_t)(seconds * 1000);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("ring_stress: seed %llu (RING_STRESS_SEED=%llu runs it again)\n",
	       (unsigned long long)seed, (unsigned long long)seed);
	/* every configuration at least once, then round after round while time is left */
	for (unsigned round = 0; round == 0 || done_ms < total_ms; round++) {
		uint64_t slice = total_ms / NCONFIGS;

		slice = slice > ROUND_MS_MAX ? ROUND_MS_MAX : slice ? slice : 1;
		for (size_t i = 0; i < NCONFIGS; i++) {
			struct ring_stress_config cfg = configs[i];
			struct ring_stress_totals t;
			char first[256];

			cfg.ms = slice;
			cfg.seed = seed + round * NCONFIGS + i;
			int failures = ring_stress_run(&cfg, &t, first, sizeof(first));
			const char *missing = work_missing(&cfg, &t);
			if (missing && !failures) {
				failures = 1;
				snprintf(first, sizeof(first), "did not do its work: %s", missing);
			}
			done_ms += slice;
			events += t.events;
			printf("ring_stress: %s: %llu events (%llu straight, %llu nested), %llu "
			       "entries streamed, "
			       "%llu "
			       "recorded, %llu overwritten, %llu dropped, %llu cleared in %llu "
			       "clears, "
			       "%llu mode changes\n",
			       cfg.name, (unsigned long long)t.events,
			       (unsigned long long)t.straight, (unsigned long long)t.nested,
			       (unsigned long long)t.received, (unsigned long long)t.recorded,
			       (unsigned long long)t.overwritten, (unsigned long long)t.dropped,
			       (unsigned long long)t.cleared, (unsigned long long)t.clears,
			       (unsigned long long)t.mode_changes);
			if (failures) {
				printf("ring_stress: FAIL %s: %d failures, the first: %s\n",
				       cfg.name, failures, first);
				failed = 1;
			}
		}
	}
	if (!failed) {
		printf("ring_stress: ok, %llu events in %.1f s (seed %llu)\n",
		       (unsigned long long)events, (double)done_ms / 1000,
		       (unsigned long long)seed);
	}
	return failed;
}
