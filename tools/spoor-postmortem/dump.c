/*
 * dump: the ELF core's segments and the trace area in them (dump.h).
 */
#include "tools/spoor-postmortem/dump.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/spoor-postmortem/ksym.h"
#include "tools/spoor-postmortem/why.h"

int dump_parse(struct dump *d, const uint8_t *bytes, size_t size, char *why, size_t why_size)
{
	Elf64_Ehdr eh;

	*d = (struct dump){.bytes = bytes, .size = size};
	if (size < sizeof(eh) || memcmp(bytes, ELFMAG, SELFMAG)) {
		return why_fail(why, why_size, "not an ELF file (a dump-guest-memory core)");
	}
	memcpy(&eh, bytes, sizeof(eh));
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh.e_type != ET_CORE) {
		return why_fail(why, why_size, "not a 64-bit little-endian ELF core file");
	}
	if (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phoff > size ||
	    (size - eh.e_phoff) / sizeof(Elf64_Phdr) < eh.e_phnum) {
		return why_fail(why, why_size,
				"the ELF program headers run past the end of the file");
	}
	for (uint32_t i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;
		memcpy(&ph, bytes + eh.e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type != PT_LOAD || !ph.p_filesz) {
			continue;
		}
		if (d->nseg == DUMP_SEGMENTS_MAX) {
			return why_fail(why, why_size, "more than %d memory segments",
					DUMP_SEGMENTS_MAX);
		}
		uint64_t len = ph.p_filesz;
		if (ph.p_offset >= size) {
			len = 0;
		} else if (size - ph.p_offset < len) {
			len = size - ph.p_offset;
		}
		if (len < ph.p_filesz) {
			d->truncated = 1;
		}
		d->seg[d->nseg++] = (struct dump_segment){ph.p_paddr, ph.p_offset, len};
	}
	if (!d->nseg) {
		return why_fail(why, why_size, "the core holds no memory (no PT_LOAD segment)");
	}
	return 0;
}

/*
 * The segment that holds guest physical address paddr, and in *left how
 * many bytes it holds from there; NULL if none does.
 */
static const struct dump_segment *segment_of(const struct dump *d, uint64_t paddr, uint64_t *left)
{
	for (uint32_t i = 0; i < d->nseg; i++) {
		if (paddr >= d->seg[i].paddr && paddr - d->seg[i].paddr < d->seg[i].len) {
			*left = d->seg[i].len - (paddr - d->seg[i].paddr);
			return &d->seg[i];
		}
	}
	return NULL;
}

/* Whether the dump holds every byte of guest physical [paddr, paddr + len). */
static int holds_phys(const struct dump *d, uint64_t paddr, uint64_t len)
{
	uint64_t left;

	while (len) {
		if (!segment_of(d, paddr, &left)) {
			return 0;
		}
		uint64_t n = left < len ? left : len;
		paddr += n;
		len -= n;
	}
	return 1;
}

/* Copies guest physical [paddr, paddr + len) into out; -1 if the dump lacks a byte of it. */
static int read_phys(const struct dump *d, uint64_t paddr, void *out, uint64_t len)
{
	uint8_t *o = out;
	uint64_t left;

	if (!holds_phys(d, paddr, len)) {
		return -1;
	}
	while (len) {
		const struct dump_segment *s = segment_of(d, paddr, &left);
		uint64_t n = left < len ? left : len;
		memcpy(o, d->bytes + s->offset + (paddr - s->paddr), n);
		o += n;
		paddr += n;
		len -= n;
	}
	return 0;
}

/*
 * Checks the header at paddr alone, and that the dump holds every byte
 * of the regions it names, without copying them: a hostile guest can
 * start every page with the magic, and copying what each names first
 * would take time quadratic in the dump's size. Sets *len to the bytes
 * from the header to the aux region's end. 0, or -1 with why set.
 */
static int check_header(const struct dump *d, uint64_t paddr, struct ttrace_header *h,
			uint64_t *len, char *why, size_t why_size)
{
	if (read_phys(d, paddr, h, sizeof(*h))) {
		return why_fail(why, why_size, "its header runs past the dump's memory");
	}
	/* Every region taken as whole here, so the check judges the header's numbers alone. */
	struct ttrace_area named = {
	    .hdr = h,
	    .hdr_len = UINT64_MAX,
	    .rings_len = UINT64_MAX,
	    .aux_len = UINT64_MAX,
	};
	if (ttrace_area_check(&named, why, why_size)) {
		return -1;
	}
	/* The checks passed: the regions lie in order within area_size, with no overflow. */
	*len = h->aux_offset + h->aux_durable_size + h->aux_ring_size;
	if (!holds_phys(d, paddr, *len)) {
		return why_fail(why, why_size, "the area's %llu bytes run past the dump's memory",
				(unsigned long long)*len);
	}
	return 0;
}

/*
 * Copies the area at paddr, whose header check_header() accepted, into a
 * buffer of its own and checks the copy. 0, or -1 with why set.
 */
static int take_area(const struct dump *d, uint64_t paddr, struct ttrace_area *a, uint8_t **copy,
		     char *why, size_t why_size)
{
	struct ttrace_header h;
	uint64_t len;

	if (check_header(d, paddr, &h, &len, why, why_size)) {
		return -1;
	}
	uint8_t *buf = malloc(len);
	if (!buf) {
		return why_fail(why, why_size, "out of memory for a %llu-byte area",
				(unsigned long long)len);
	}
	read_phys(d, paddr, buf, len);
	*a = (struct ttrace_area){
	    .hdr = (struct ttrace_header *)buf,
	    .reader = (struct ttrace_reader *)(buf + h.reader_offset),
	    .rings = (union ttrace_slot *)(buf + h.ring_offset),
	    .aux = (uint64_t *)(buf + h.aux_offset),
	    .hdr_len = h.header_bytes,
	    .reader_len = h.reader_bytes,
	    .rings_len = h.ring_bytes * h.num_cpus,
	    .aux_len = h.aux_durable_size + h.aux_ring_size,
	};
	if (ttrace_area_check(a, why, why_size)) {
		free(buf);
		return -1;
	}
	*copy = buf;
	return 0;
}

/* What a scan of every page found: the areas that pass, and the last refusal. */
struct scan {
	uint64_t skip;	     /* a page not to count (the recorded area), or UINT64_MAX */
	uint32_t passed;     /* pages whose header passes check_header() */
	uint64_t first;	     /* the first of them */
	uint32_t refused;    /* pages with the magic whose header does not */
	uint64_t refused_at; /* the last of them */
	char why[200];	     /* and why */
};

/* Checks the header at every page that starts with the magic, copying nothing. */
static void scan(const struct dump *d, struct scan *sc)
{
	for (uint32_t i = 0; i < d->nseg; i++) {
		const struct dump_segment *s = &d->seg[i];
		uint64_t first =
		    (s->paddr + TTRACE_PAGE_SIZE - 1) & ~(uint64_t)(TTRACE_PAGE_SIZE - 1);
		for (uint64_t p = first; p - s->paddr + sizeof(uint32_t) <= s->len;
		     p += TTRACE_PAGE_SIZE) {
			struct ttrace_header h;
			uint64_t len;
			uint32_t magic;
			memcpy(&magic, d->bytes + s->offset + (p - s->paddr), sizeof(magic));
			if (magic != TTRACE_MAGIC || p == sc->skip) {
				continue;
			}
			if (check_header(d, p, &h, &len, sc->why, sizeof(sc->why))) {
				sc->refused++;
				sc->refused_at = p;
			} else if (!sc->passed++) {
				sc->first = p;
			}
		}
	}
}

/* Takes the area at the address the kernel recorded at guest physical record, and no other. */
static int take_recorded(const struct dump *d, uint64_t record, struct ttrace_area *a,
			 uint8_t **copy, struct dump_area *where, char *why, size_t why_size)
{
	char refusal[200];
	uint64_t at;

	if (read_phys(d, record, &at, sizeof(at))) {
		return why_fail(
		    why, why_size,
		    "the dump lacks the kernel's record of its trace area (%s at 0x%llx)",
		    TTRACE_AREA_SYMBOL, (unsigned long long)record);
	}
	if (!at) {
		return why_fail(why, why_size,
				"the kernel made no trace area (%s is 0: tracing was off)",
				TTRACE_AREA_SYMBOL);
	}
	struct scan sc = {.skip = at};
	scan(d, &sc);
	if (take_area(d, at, a, copy, refusal, sizeof(refusal))) {
		return why_fail(
		    why, why_size,
		    "the trace area the kernel made, at 0x%llx, is not usable (is kernel.elf "
		    "the kernel that ran?): %s; %u other %s, not taken",
		    (unsigned long long)at, refusal, sc.passed,
		    sc.passed == 1 ? "page passes as a trace area" : "pages pass as trace areas");
	}
	*where = (struct dump_area){.phys = at, .others = sc.passed};
	return 0;
}

int dump_find_area(const struct dump *d, const uint64_t *record, struct ttrace_area *a,
		   uint8_t **copy, struct dump_area *where, char *why, size_t why_size)
{
	if (record) {
		return take_recorded(d, *record, a, copy, where, why, why_size);
	}
	struct scan sc = {.skip = UINT64_MAX};
	scan(d, &sc);
	if (sc.passed > 1) {
		return why_fail(
		    why, why_size,
		    "%u pages hold trace areas that pass the checks, the first at 0x%llx: "
		    "only kernel.elf tells which one the kernel made",
		    sc.passed, (unsigned long long)sc.first);
	}
	if (sc.passed) {
		*where = (struct dump_area){.phys = sc.first};
		return take_area(d, sc.first, a, copy, why, why_size);
	}
	if (sc.refused) {
		return why_fail(why, why_size,
				"no usable trace area in the dump: the header at 0x%llx: %s",
				(unsigned long long)sc.refused_at, sc.why);
	}
	return why_fail(why, why_size,
			"no trace area in the dump (no page starts with its magic)%s",
			d->truncated ? "; the dump is truncated" : "");
}
