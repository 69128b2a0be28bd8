/*
 * trace_header: checking a trace area (see trace_header.h); laying it out
 * and preparing it are in kernel/trace/area_init.c. The checks read only
 * the header's [I] fields, which never change once the area is handed
 * out, so plain loads suffice.
 */
#include "common/trace_header.h"

#include <stdarg.h>
#include <stdbool.h>

#include "abi/errno.h"
#include "common/format.h"

/* Sets *end = off + len and returns true if that neither overflows nor passes limit. */
static bool region_fits(uint64_t off, uint64_t len, uint64_t limit, uint64_t *end)
{
	return !__builtin_add_overflow(off, len, end) && *end <= limit;
}

/* The version rule, out of line so that a minor of 0 is no constant comparison. */
static bool minor_ok(uint32_t minor, uint32_t ours)
{
	return minor >= ours;
}

/* Writes the reason a reader refuses the area into why and returns -EINVAL. */
static int refuse(char *why, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int refuse(char *why, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	format_vsnprintf(why, size, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* The identification: magic, versions, layouts and the header's own size. */
static int check_identity(const struct ttrace_area *a, char *why, size_t size)
{
	const struct ttrace_header *h = a->hdr;

	if (!h || a->hdr_len < offsetof(struct ttrace_header, num_cpus)) {
		return refuse(why, size, "trace header: %llu bytes mapped, too few to identify",
			      h ? (unsigned long long)a->hdr_len : 0ull);
	}
	if (h->magic != TTRACE_MAGIC) {
		return refuse(why, size, "trace header: magic %#x, expected %#x: not a trace area",
			      h->magic, TTRACE_MAGIC);
	}
	if (h->version_major != TTRACE_VERSION_MAJOR) {
		return refuse(why, size, "trace header: version %u.%u, this reader reads %u.x",
			      h->version_major, h->version_minor, TTRACE_VERSION_MAJOR);
	}
	if (!minor_ok(h->version_minor, TTRACE_VERSION_MINOR)) {
		return refuse(
		    why, size, "trace header: version %u.%u, older than this reader's %u.%u",
		    h->version_major, h->version_minor, TTRACE_VERSION_MAJOR, TTRACE_VERSION_MINOR);
	}
	if (h->shared_layout != TTRACE_SHARED_LAYOUT || h->cpu_layout != TTRACE_CPU_LAYOUT) {
		return refuse(
		    why, size,
		    "trace header: data layouts %u (shared) and %u (per-CPU), this reader "
		    "reads %u and %u",
		    h->shared_layout, h->cpu_layout, TTRACE_SHARED_LAYOUT, TTRACE_CPU_LAYOUT);
	}
	if (h->header_size < sizeof(struct ttrace_header) || a->hdr_len < h->header_size) {
		return refuse(why, size,
			      "trace header: %u bytes, %llu of them mapped; this reader needs %u",
			      h->header_size, (unsigned long long)a->hdr_len,
			      (unsigned)sizeof(struct ttrace_header));
	}
	return 0;
}

/* The geometry: entries, CPUs, ring and aux sizes. */
static int check_geometry(const struct ttrace_header *h, char *why, size_t size)
{
	if (h->entry_size != TTRACE_ENTRY_SIZE || h->cont_max != TTRACE_CONT_MAX) {
		return refuse(
		    why, size,
		    "trace header: %u-byte entries with %u continuations, expected %u and %u",
		    h->entry_size, h->cont_max, TTRACE_ENTRY_SIZE, TTRACE_CONT_MAX);
	}
	if (h->num_cpus < 1 || h->num_cpus > TTRACE_MAX_CPUS) {
		return refuse(why, size, "trace header: %u CPUs, expected 1 to %u", h->num_cpus,
			      TTRACE_MAX_CPUS);
	}
	if (!ttrace_is_pow2(h->ring_entries) || h->ring_entries < TTRACE_RING_ENTRIES_MIN ||
	    h->ring_entries > TTRACE_RING_ENTRIES_MAX ||
	    h->ring_bytes != (uint64_t)h->ring_entries * TTRACE_ENTRY_SIZE) {
		return refuse(
		    why, size,
		    "trace header: rings of %u entries in %llu bytes, expected a power of "
		    "two from %u, %u bytes each",
		    h->ring_entries, (unsigned long long)h->ring_bytes, TTRACE_RING_ENTRIES_MIN,
		    TTRACE_ENTRY_SIZE);
	}
	if (!ttrace_is_pow2(h->aux_ring_size) || h->aux_ring_size < TTRACE_AUX_RING_MIN ||
	    h->aux_ring_size > TTRACE_AUX_BYTES_MAX || h->aux_mask != h->aux_ring_size - 1 ||
	    h->aux_durable_size % 8 || h->aux_durable_size > TTRACE_AUX_BYTES_MAX) {
		return refuse(
		    why, size,
		    "trace header: aux ring of %llu bytes (mask %#llx) after %llu durable "
		    "ones, expected a power of two from %u after a multiple of 8",
		    (unsigned long long)h->aux_ring_size, (unsigned long long)h->aux_mask,
		    (unsigned long long)h->aux_durable_size, TTRACE_AUX_RING_MIN);
	}
	return 0;
}

/* The regions inside the area, and the bytes mapped of each. */
static int check_regions(const struct ttrace_area *a, char *why, size_t size)
{
	const struct ttrace_header *h = a->hdr;
	uint64_t rings = h->num_cpus * h->ring_bytes;
	uint64_t aux = h->aux_durable_size + h->aux_ring_size;
	uint64_t end;

	if ((h->header_bytes | h->reader_offset | h->ring_offset | h->aux_offset) %
		TTRACE_PAGE_SIZE ||
	    h->header_bytes < h->header_size || h->reader_offset < h->header_bytes ||
	    h->reader_bytes < sizeof(struct ttrace_reader) ||
	    !region_fits(h->reader_offset, h->reader_bytes, h->ring_offset, &end) ||
	    !region_fits(h->ring_offset, rings, h->aux_offset, &end) ||
	    !region_fits(h->aux_offset, aux, h->area_size, &end)) {
		return refuse(why, size,
			      "trace header: regions at 0, %#llx, %#llx and %#llx are not page "
			      "aligned, overlap or leave the %#llx-byte area",
			      (unsigned long long)h->reader_offset,
			      (unsigned long long)h->ring_offset, (unsigned long long)h->aux_offset,
			      (unsigned long long)h->area_size);
	}
	if ((a->reader && a->reader_len < h->reader_bytes) || a->rings_len < rings ||
	    a->aux_len < aux) {
		return refuse(
		    why, size,
		    "trace header: %llu, %llu and %llu bytes of reader page, rings and aux "
		    "mapped; they are %llu, %llu and %llu",
		    (unsigned long long)a->reader_len, (unsigned long long)a->rings_len,
		    (unsigned long long)a->aux_len, (unsigned long long)h->reader_bytes,
		    (unsigned long long)rings, (unsigned long long)aux);
	}
	return 0;
}

int ttrace_area_check(const struct ttrace_area *a, char *why, size_t why_size)
{
	if (check_identity(a, why, why_size) || check_geometry(a->hdr, why, why_size) ||
	    check_regions(a, why, why_size)) {
		return -EINVAL;
	}
	if (why_size) {
		why[0] = '\0';
	}
	return 0;
}
