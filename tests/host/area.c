/*
 * area: trace areas in heap blocks for the host tests (see area.h).
 */
#include "area.h"

#include <stdlib.h>

void test_area_get(struct ttrace_area *a, const struct ttrace_geometry *g, bool with_reader)
{
	struct ttrace_header *h = malloc(TTRACE_PAGE_SIZE);

	if (!h || ttrace_header_init(h, g)) {
		abort();
	}
	uint64_t rings = h->num_cpus * h->ring_bytes;
	uint64_t aux = h->aux_durable_size + h->aux_ring_size;

	*a = (struct ttrace_area){
	    .hdr = h,
	    .reader = with_reader ? malloc(h->reader_bytes) : NULL,
	    .rings = malloc(rings),
	    .aux = malloc(aux),
	    .hdr_len = h->header_bytes,
	    .reader_len = with_reader ? h->reader_bytes : 0,
	    .rings_len = rings,
	    .aux_len = aux,
	};
	if ((with_reader && !a->reader) || !a->rings || !a->aux || ttrace_area_init(a)) {
		abort();
	}
}

void test_area_put(struct ttrace_area *a)
{
	free(a->hdr);
	free(a->reader);
	free(a->rings);
	free(a->aux);
}
