/*
 * tracedat: the trace.dat file (see tracedat.h): its header parts in
 * trace-cmd.dat.v6(5)'s order, then each CPU's pages of ring-buffer
 * events, page-aligned.
 */
#include "tools/spoor-trace/tracedat.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tools/spoor-trace/tracedat_class.h"
#include "tools/spoor-trace/tracedat_tasks.h"

#define PAGE_SIZE   4096
#define PAGE_HEADER 16 /* u64 timestamp, local_t commit */
#define PAGE_DATA   (PAGE_SIZE - PAGE_HEADER)
#define LOST_ROOM   8 /* the count of a loss, after the page's events */

/* The ring buffer's event header (Linux kernel/trace/ring_buffer.c): type_len:5, time_delta:27. */
#define RB_TYPE_TIME_EXTEND 30
#define RB_SMALL_DATA_MAX   (28 * 4) /* larger records put their length in array[0] */
#define RB_DELTA_BITS	    27
#define RB_EXTEND_MAX	    (1ull << (RB_DELTA_BITS + 32))
/* The commit word's flags: events were missed before this page, and their count follows its data.
 */
#define RB_MISSED_EVENTS (1ull << 31)
#define RB_MISSED_STORED (1ull << 30)

/* As Linux's tracefs shows the two headers of a 64-bit kernel with 4 KiB pages. */
static const char header_page[] = "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
				  "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
				  "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
				  "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";
static const char header_event[] = "# compressed entry header\n"
				   "\ttype_len    :    5 bits\n"
				   "\ttime_delta  :   27 bits\n"
				   "\tarray       :   32 bits\n"
				   "\n"
				   "\tpadding     : type == 29\n"
				   "\ttime_extend : type == 30\n"
				   "\ttime_stamp : type == 31\n"
				   "\tdata max type_len  == 28\n";

struct cpu_pages {
	uint8_t *pages; /* npages whole pages; the last is being filled */
	size_t npages, cap;
	uint32_t used;	    /* data bytes of the last page */
	uint64_t page_lost; /* the loss the last page's header carries */
	uint64_t last_ns;
	uint64_t lost;	   /* lost, waiting for the CPU's next event */
	uint64_t trailing; /* lost after the CPU's last event */
	uint64_t left;	   /* events still to come */
};

struct td {
	struct tview *v;
	struct tdat_tasks tasks;
	struct tdat_classes classes;
	struct tfields tf;
	uint8_t rec[TDAT_RECORD_MAX];
	struct cpu_pages cpu[TTRACE_MAX_CPUS];
};

static void put32(uint8_t *p, uint32_t v)
{
	for (int b = 0; b < 4; b++) {
		p[b] = (uint8_t)(v >> (8 * b));
	}
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

/* Writes the last page's commit word, and the loss it carries after its data. */
static void close_page(struct cpu_pages *cp)
{
	uint8_t *page = cp->pages + (cp->npages - 1) * PAGE_SIZE;
	uint64_t commit = cp->used;

	if (cp->page_lost) {
		commit |= RB_MISSED_EVENTS | RB_MISSED_STORED;
		put64(page + PAGE_HEADER + cp->used, cp->page_lost);
	}
	put64(page + 8, commit);
}

/* Starts a page at time ns carrying the CPU's waiting loss. Returns 0 or -ENOMEM. */
static int open_page(struct cpu_pages *cp, uint64_t ns)
{
	if (cp->npages) {
		close_page(cp);
	}
	if (cp->npages == cp->cap) {
		size_t cap = cp->cap ? 2 * cp->cap : 4;
		uint8_t *more = realloc(cp->pages, cap * PAGE_SIZE);
		if (!more) {
			return -ENOMEM;
		}
		cp->pages = more;
		cp->cap = cap;
	}
	uint8_t *page = cp->pages + cp->npages++ * PAGE_SIZE;
	memset(page, 0, PAGE_SIZE);
	put64(page, ns);
	cp->used = 0;
	cp->page_lost = cp->lost;
	cp->lost = 0;
	return 0;
}

/* Appends a record of len bytes at time ns (>= the CPU's last). Returns 0 or -ENOMEM. */
static int put_record(struct cpu_pages *cp, uint64_t ns, const uint8_t *rec, size_t len)
{
	uint32_t data = (uint32_t)(len + 3) & ~3u;
	uint32_t size = 4 + (data > RB_SMALL_DATA_MAX ? 4 : 0) + data;
	uint64_t delta = ns - cp->last_ns;
	uint32_t extend = delta >= (1u << RB_DELTA_BITS) ? 8 : 0;

	if (!cp->npages || cp->lost || delta >= RB_EXTEND_MAX ||
	    cp->used + extend + size > PAGE_DATA - LOST_ROOM) {
		int err = open_page(cp, ns);
		if (err) {
			return err;
		}
		delta = 0;
		extend = 0;
	}
	uint8_t *p = cp->pages + (cp->npages - 1) * PAGE_SIZE + PAGE_HEADER + cp->used;
	if (extend) {
		put32(p, RB_TYPE_TIME_EXTEND | (uint32_t)(delta & ((1u << RB_DELTA_BITS) - 1))
						   << 5);
		put32(p + 4, (uint32_t)(delta >> RB_DELTA_BITS));
		p += extend;
		delta = 0;
	}
	if (data > RB_SMALL_DATA_MAX) {
		put32(p, (uint32_t)delta << 5); /* type_len 0: the length in array[0] */
		put32(p + 4, data + 4);
		p += 8;
	} else {
		put32(p, data / 4 | (uint32_t)delta << 5);
		p += 4;
	}
	memcpy(p, rec, len);
	cp->used += extend + size;
	cp->last_ns = ns;
	return 0;
}

/* Each CPU's events, and the losses after its last one (LOSS PLACEMENT). */
static void count_cpus(struct td *t)
{
	const struct tfile *f = t->v->file;
	struct tfile_iter it;
	struct tfile_item item;

	for (uint32_t c = 0; c < f->hdr.num_cpus; c++) {
		t->cpu[c].left = f->cpu_events[c];
	}
	tfile_iter_start(&it, f);
	while (tfile_next(&it, &item)) {
		if (item.lost) {
			t->cpu[item.lost_cpu].trailing += item.lost_count;
		} else {
			t->cpu[item.rec.cpu].trailing = 0;
		}
	}
}

/* Every event into its CPU's pages. Returns 0, -ENOMEM or -E2BIG. */
static int fill_pages(struct td *t)
{
	struct tfile_iter it;
	struct tfile_item item;

	tfile_iter_start(&it, t->v->file);
	while (tfile_next(&it, &item)) {
		if (item.lost) {
			struct cpu_pages *cp = &t->cpu[item.lost_cpu];
			/* After the CPU's last event: count_cpus() put it on that event. */
			if (cp->left || !t->v->file->cpu_events[item.lost_cpu]) {
				cp->lost += item.lost_count;
			}
			continue;
		}
		struct cpu_pages *cp = &t->cpu[item.rec.cpu];
		if (--cp->left == 0) {
			cp->lost += cp->trailing;
			cp->trailing = 0;
		}
		int i = tdat_class_of(&t->classes, t->v, &item.rec, &t->tf);
		if (i < 0) {
			return i;
		}
		size_t len =
		    tdat_record(&t->classes.c[i], &t->tf, &t->tasks,
				tdat_task_pid(&t->tasks, item.rec.tid), t->rec, sizeof(t->rec));
		uint64_t ns = tview_ns(t->v, item.rec.ts);
		int err = put_record(cp, ns > cp->last_ns ? ns : cp->last_ns, t->rec, len);
		if (err) {
			return err;
		}
	}
	return 0;
}

/* The header, up to and with "flyrecord". Returns 0, -ENOMEM or -EIO. */
static int write_header(struct td *t, FILE *out)
{
	static const uint8_t magic[] = {0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g'};

	fwrite(magic, 1, sizeof(magic), out);
	fwrite("6", 1, 2, out);
	fputc(0, out); /* little-endian */
	fputc(8, out); /* the size of a long */
	tdat_put(out, PAGE_SIZE, 4);
	fwrite("header_page", 1, 12, out);
	tdat_put(out, sizeof(header_page) - 1, 8);
	fwrite(header_page, 1, sizeof(header_page) - 1, out);
	fwrite("header_event", 1, 13, out);
	tdat_put(out, sizeof(header_event) - 1, 8);
	fwrite(header_event, 1, sizeof(header_event) - 1, out);
	tdat_put(out, 0, 4); /* no ftrace (function tracer) formats */
	int err = tdat_formats_write(&t->classes, out);
	if (err) {
		return err;
	}
	tdat_put(out, 0, 4); /* no kallsyms */
	tdat_put(out, 0, 4); /* no printk formats */

	char *cmdlines = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&cmdlines, &len);
	if (!mem) {
		return -ENOMEM;
	}
	err = tdat_tasks_cmdlines(&t->tasks, mem);
	if (fclose(mem) || err) {
		free(cmdlines);
		return -ENOMEM;
	}
	tdat_put(out, len, 8);
	fwrite(cmdlines, 1, len, out);
	free(cmdlines);
	tdat_put(out, t->v->file->hdr.num_cpus, 4);
	fwrite("options  ", 1, 10, out);
	tdat_put(out, 0, 2); /* the end of the options */
	fwrite("flyrecord", 1, 10, out);
	return ferror(out) ? -EIO : 0;
}

/* The whole file: the header made in memory, to know where the pages go. */
static int write_file(struct td *t, FILE *out)
{
	uint32_t ncpus = t->v->file->hdr.num_cpus;
	char *head = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&head, &len);

	if (!mem) {
		return -ENOMEM;
	}
	int err = write_header(t, mem);
	if (fclose(mem) && !err) {
		err = -ENOMEM;
	}
	if (err) {
		free(head);
		return err;
	}
	fwrite(head, 1, len, out);
	free(head);
	uint64_t head_end = len + 16ull * ncpus; /* and the CPUs' offsets and sizes */
	uint64_t at = (head_end + PAGE_SIZE - 1) / PAGE_SIZE * PAGE_SIZE;
	for (uint32_t c = 0; c < ncpus; c++) {
		uint64_t size = t->cpu[c].npages * (uint64_t)PAGE_SIZE;
		tdat_put(out, size ? at : 0, 8);
		tdat_put(out, size, 8);
		at += size;
	}
	for (uint64_t pad = head_end; pad % PAGE_SIZE; pad++) {
		fputc(0, out);
	}
	for (uint32_t c = 0; c < ncpus; c++) {
		if (t->cpu[c].npages) {
			close_page(&t->cpu[c]);
			fwrite(t->cpu[c].pages, PAGE_SIZE, t->cpu[c].npages, out);
		}
	}
	return fflush(out) || ferror(out) ? -EIO : 0;
}

int tracedat_convert(struct tview *v, FILE *out, uint64_t *unplaced)
{
	struct td *t = calloc(1, sizeof(*t));
	int err;

	if (!t) {
		return -ENOMEM;
	}
	t->v = v;
	err = tview_names(v);
	if (!err) {
		err = tdat_tasks_init(&t->tasks, v);
	}
	if (!err) {
		err = tdat_classes_init(&t->classes, v);
	}
	if (!err) {
		count_cpus(t);
		err = fill_pages(t);
	}
	if (!err) {
		err = write_file(t, out);
	}
	for (uint32_t c = 0; unplaced && c < TTRACE_MAX_CPUS; c++) {
		unplaced[c] = t->cpu[c].lost;
	}
	for (uint32_t c = 0; c < TTRACE_MAX_CPUS; c++) {
		free(t->cpu[c].pages);
	}
	tdat_classes_fini(&t->classes);
	tdat_tasks_fini(&t->tasks);
	free(t);
	return err;
}
