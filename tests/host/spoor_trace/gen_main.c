/*
 * gen_main: writes a test trace file for the script-level checks
 * (check_converters.py) and for people trying the tool:
 *
 *   gen OUT.spoor sample    the sample trace (gen.h)
 *   gen OUT.spoor lossy     the sample with loss markers
 *   gen OUT.spoor random N  gen_random() with seed N
 *   gen OUT.spoor empty     no events at all
 *   gen OUT.spoor lonely    2 CPUs: one event on cpu 0, 4 events lost on cpu 1
 *   gen OUT.spoor timeline N  gen_timeline(): 1 as it is, 2 with other ids, 3 with
 *                           no switches
 *   gen OUT.spoor stacks A0 A1 A2 A3  gen_stacks() with those addresses
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

int main(int argc, char **argv)
{
	struct gen g;
	size_t len;

	if (argc == 3 && (!strcmp(argv[2], "sample") || !strcmp(argv[2], "lossy"))) {
		gen_sample(&g, !strcmp(argv[2], "lossy"));
	} else if (argc == 3 && !strcmp(argv[2], "empty")) {
		gen_init(&g, 2);
		gen_durable(&g, TTRACE_AUX_SYSCALL, 1, "write");
	} else if (argc == 3 && !strcmp(argv[2], "lonely")) {
		gen_init(&g, 2);
		gen_event(&g, 0, gen_ts(10), TTRACE_KIND_test_tick, 0, 1, 1, (uint64_t[]){7}, 1);
		gen_lost(&g, 1, 4);
	} else if (argc == 4 && !strcmp(argv[2], "timeline")) {
		gen_timeline(&g, !strcmp(argv[3], "2")	 ? GEN_TIMELINE_OTHER_IDS
				 : !strcmp(argv[3], "3") ? GEN_TIMELINE_NO_SWITCHES
							 : 0);
	} else if (argc == 7 && !strcmp(argv[2], "stacks")) {
		uint64_t a[4];
		for (int i = 0; i < 4; i++) {
			a[i] = strtoull(argv[3 + i], NULL, 0);
		}
		gen_stacks(&g, a);
	} else if (argc == 4 && !strcmp(argv[2], "random")) {
		gen_random(&g, strtoull(argv[3], NULL, 0));
	} else {
		fprintf(stderr,
			"usage: gen OUT.spoor sample|lossy|empty|lonely|random SEED|timeline "
			"1|2|3|stacks A0 A1 A2 A3\n");
		return 2;
	}
	uint8_t *file = gen_file(&g, NULL, &len);
	FILE *out = fopen(argv[1], "wb");
	if (!out || fwrite(file, 1, len, out) != len || fclose(out)) {
		perror(argv[1]);
		return 1;
	}
	free(file);
	gen_free(&g);
	return 0;
}
