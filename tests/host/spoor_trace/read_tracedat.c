/*
 * read_tracedat: a trace.dat as libtracecmd and libtraceevent read it,
 * for check_tracedat.py to hold against `spoor-trace text`. Prints
 *
 *   format SYSTEM NAME ID            for every event format the file has,
 *   event CPU NS SYSTEM NAME PID COMM MISSED FIELD=VALUE...
 *                                    for every record, in time order,
 *
 * tab-separated: integers in decimal (signed ones with their sign),
 * strings and char arrays as their text, other arrays as hex digits.
 * MISSED is libtracecmd's count of the events lost before the record.
 * Exit status 1 when the library refuses the file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <trace-cmd.h>

static void field(struct tep_handle *tep, struct tep_record *r, struct tep_format_field *f)
{
	const unsigned char *p = (const unsigned char *)r->data + f->offset;
	int len = f->size;

	printf("\t%s=", f->name);
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		unsigned int loc = (unsigned int)tep_read_number(tep, p, 4);
		p = (const unsigned char *)r->data + (loc & 0xffff);
		len = (int)(loc >> 16);
	}
	/* libtraceevent takes every array of bytes for a string: char ones are. */
	if ((f->flags & TEP_FIELD_IS_DYNAMIC) || !strncmp(f->type, "char ", 5)) {
		printf("%.*s", len, (const char *)p);
	} else if (f->flags & TEP_FIELD_IS_ARRAY) {
		for (int i = 0; i < len; i++) {
			printf("%02x", p[i]);
		}
	} else {
		unsigned long long v = tep_read_number(tep, p, len);
		if ((f->flags & TEP_FIELD_IS_SIGNED) && len < 8 && (v >> (8 * len - 1) & 1)) {
			v |= ~0ull << (8 * len);
		}
		printf((f->flags & TEP_FIELD_IS_SIGNED) ? "%lld" : "%llu", v);
	}
}

static int record(struct tracecmd_input *h, struct tep_record *r, int cpu, void *data)
{
	struct tep_handle *tep = tracecmd_get_tep(h);
	struct tep_event *e = tep_find_event_by_record(tep, r);
	int pid = tep_data_pid(tep, r);

	(void)data;
	if (!e) {
		printf("unknown %d %llu\n", cpu, r->ts);
		return 0;
	}
	printf("event\t%d\t%llu\t%s\t%s\t%d\t%s\t%lld", cpu, r->ts, e->system, e->name, pid,
	       tep_data_comm_from_pid(tep, pid), r->missed_events);
	for (struct tep_format_field *f = e->format.fields; f; f = f->next) {
		field(tep, r, f);
	}
	putchar('\n');
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: read_tracedat FILE.dat\n");
		return 2;
	}
	struct tracecmd_input *h = tracecmd_open(argv[1], 0);
	if (!h) {
		fprintf(stderr, "read_tracedat: libtracecmd does not open %s\n", argv[1]);
		return 1;
	}
	struct tep_handle *tep = tracecmd_get_tep(h);
	struct tep_event **events = tep_list_events(tep, TEP_EVENT_SORT_ID);
	for (int i = 0; events && events[i]; i++) {
		printf("format\t%s\t%s\t%d\n", events[i]->system, events[i]->name, events[i]->id);
	}
	int err = tracecmd_iterate_events(h, NULL, 0, record, NULL);
	tracecmd_close(h);
	return err < 0 ? 1 : 0;
}
