/*
 * file: what a save (save.c) and a recording (record.c) both write the
 * same way: the trace file's header (abi/trace_file.h), from the area as
 * it is now, and the rule a file's name must pass before the host sees it.
 */
#include <stdbool.h>
#include <string.h>

#include "abi/trace_file.h"
#include "servers/traced/file.h"
#include "servers/traced/state.h"

void file_fill_header(struct ttrace_file_header *fh, const struct traced_filter *f,
		      uint64_t saved_ns)
{
	const struct ttrace_header *h = traced.area.hdr;

	*fh = (struct ttrace_file_header){
	    .magic = TTRACE_FILE_MAGIC,
	    .version_major = TTRACE_FILE_VERSION_MAJOR,
	    .version_minor = TTRACE_FILE_VERSION_MINOR,
	    .header_size = sizeof(*fh),
	    .num_cpus = traced.ncpus,
	    .tsc_hz = h->tsc_hz,
	    .boot_tsc = h->boot_tsc,
	    .aux_durable_size = h->aux_durable_size,
	    .aux_ring_size = h->aux_ring_size,
	    .mask = __atomic_load_n(&h->mask, __ATOMIC_RELAXED),
	    .mode = __atomic_load_n(&h->mode, __ATOMIC_RELAXED),
	    .ring_entries = h->ring_entries,
	    .trace_version_major = h->version_major,
	    .trace_version_minor = h->version_minor,
	    .entry_size = TTRACE_ENTRY_SIZE,
	    .saved_ns = saved_ns,
	    .filter = *f,
	};
}

bool file_name_ok(const char *name)
{
	size_t len = strnlen(name, TRACED_SAVE_NAME_MAX);

	if (!len || len == TRACED_SAVE_NAME_MAX || name[0] == '.') {
		return false;
	}
	for (size_t i = 0; i < TRACED_SAVE_NAME_MAX; i++) {
		char c = name[i];
		bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			    (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
		if (i < len ? !word : c != '\0') {
			return false;
		}
	}
	return true;
}
