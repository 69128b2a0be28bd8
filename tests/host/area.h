/*
 * area: trace areas for the host tests. Each region is a heap block of
 * exactly the bytes the header asks for, so ASan catches a step past one;
 * the area is laid out and prepared by the kernel's own code
 * (kernel/trace/area_init.c). Used by run_tests and by the
 * ThreadSanitizer binary (tests/host/trace.mk).
 */
#ifndef SPOOR_TESTS_HOST_AREA_H
#define SPOOR_TESTS_HOST_AREA_H

#include <stdbool.h>

#include "common/trace_header.h"
#include "trace/area_init.h"

/*
 * Makes *a an area of geometry g, prepared by ttrace_area_init(), with a
 * reader page only if with_reader (else none, as for a reader that did
 * not map it). Aborts when g is refused or memory runs out: no test can
 * go on without its area. Release it with test_area_put().
 */
void test_area_get(struct ttrace_area *a, const struct ttrace_geometry *g, bool with_reader);

/* Frees the regions of a; one a test freed itself and set to NULL is skipped. */
void test_area_put(struct ttrace_area *a);

#endif
