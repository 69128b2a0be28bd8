/*
 * pprof: the walk over a trace's stacks into a profile (see pprof.h);
 * pprof_build.c keeps the tables and packs them.
 */
#include "tools/spoor-trace/pprof.h"

#include <errno.h>
#include <stdlib.h>

#include "common/trace_names.h"
#include "common/trace_stack.h"
#include "tools/spoor-trace/pprof_build.h"
#include "tools/spoor-trace/symbols.h"

/* What the kernel's mapping is called: the file its symbols come from. */
#define KERNEL_FILE "kernel.elf"

/* Frame f's location: its function, file and line, or its address as report names it. */
static int64_t frame_location(struct pprof_build *b, struct tview *v, const struct ttrace_frame *f)
{
	struct symbol sym;
	char hex[24];
	const char *file = f->kernel ? KERNEL_FILE : f->comm;

	if (v->dec.symbolize_ctx && symbols_lookup(v->dec.symbolize_ctx, f, &sym)) {
		return pprof_location(b, f->comm, file, f->addr, sym.function, sym.file, sym.line);
	}
	snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)f->addr);
	return pprof_location(b, f->comm, file, f->addr, hex, NULL, 0);
}

/* rec's stack as locations, innermost first, into *s. Returns 0, -ENOMEM, or 1 for no stack. */
static int locations(struct pprof_build *b, struct tview *v, const struct ttrace_record *rec,
		     struct pprof_sample *s)
{
	const char *comm = rec->pid ? ttrace_decoder_comm(&v->dec, rec->pid) : "kernel";
	bool sample = rec->kind == TTRACE_KIND_prof_sample;
	struct ttrace_stack st;

	if (sample && rec->data[1] == TTRACE_PROF_IDLE) {
		int64_t id = pprof_location(b, "idle", "idle", 0, "idle", NULL, 0);
		s->n = 1;
		s->locations = id < 0 ? NULL : malloc(sizeof(*s->locations));
		if (!s->locations) {
			return -ENOMEM;
		}
		s->locations[0] = (uint64_t)id;
		return 0;
	}
	if (!ttrace_stack_get(rec, &st)) {
		return 1;
	}
	s->n = 0;
	s->locations = malloc((st.nkernel + st.nuser + 1) * sizeof(*s->locations));
	if (!s->locations) {
		return -ENOMEM;
	}
	/*
	 * The program's mapping before the kernel's: pprof takes the first
	 * mapping for the profile's main file.
	 */
	int64_t id = st.nuser ? pprof_mapping(b, comm, comm, st.frames[st.nkernel]) : 0;
	for (uint32_t i = 0; i < st.nkernel && id >= 0; i++) {
		struct ttrace_frame f = {st.frames[i], "kernel", true, !(sample && !i)};
		id = frame_location(b, v, &f);
		s->locations[s->n++] = (uint64_t)id;
	}
	for (uint32_t i = 0; i < st.nuser && id >= 0; i++) {
		struct ttrace_frame f = {st.frames[st.nkernel + i], comm, false, i > 0};
		id = frame_location(b, v, &f);
		s->locations[s->n++] = (uint64_t)id;
	}
	if (!s->n) {
		/* Every frame went: the program is all there is, as report counts it. */
		id = pprof_location(b, comm, comm, 0, comm, NULL, 0);
		s->locations[s->n++] = (uint64_t)id;
	}
	if (id < 0) {
		free(s->locations);
		return -ENOMEM;
	}
	return 0;
}

int pprof_convert(struct tview *v, FILE *out)
{
	struct pprof_build b;
	struct tfile_iter it;
	struct tfile_item item;
	int err = pprof_build_init(&b);

	tfile_iter_start(&it, v->file);
	while (!err && tfile_next(&it, &item)) {
		const struct ttrace_record *rec = &item.rec;
		struct pprof_sample s = {NULL, 0, PPROF_SAMPLES, 0, rec->pid, rec->tid};

		if (item.lost) {
			continue;
		}
		err = locations(&b, v, rec, &s);
		if (err) {
			err = err > 0 ? 0 : err;
			continue;
		}
		if (rec->kind != TTRACE_KIND_prof_sample) {
			const struct ttrace_kind_info *k = ttrace_kind_info(rec->kind);
			char name[16];
			snprintf(name, sizeof(name), "kind_%u", rec->kind);
			s.type = PPROF_EVENTS;
			s.event = pprof_string(&b, k ? k->name : name);
		}
		uint64_t ns = tview_ns(v, rec->ts);
		b.first_ns = b.nsamples && b.first_ns < ns ? b.first_ns : ns;
		b.last_ns = b.nsamples && b.last_ns > ns ? b.last_ns : ns;
		if (s.event < 0) {
			free(s.locations);
			err = -ENOMEM;
		} else {
			err = pprof_sample(&b, &s);
		}
	}
	if (!err) {
		err = b.nsamples ? pprof_build_write(&b, out) : -ENOENT;
	}
	pprof_build_fini(&b);
	return err;
}
