/*
 * Tests tools/spoor-trace/text.c and what the other converters take from
 * the view: `spoor-trace text` must print what `trace dump` prints, so
 * the lossy sample's whole output is checked line by line (the loss
 * lines where their markers stand, the end line last); the typed fields
 * of CTF and Perfetto must show what the text shows; and the CTF streams
 * must be well-formed packets whose discarded counts add up to the loss.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "test.h"
#include "tools/spoor-trace/ctf.h"
#include "tools/spoor-trace/fields.h"
#include "tools/spoor-trace/file.h"
#include "tools/spoor-trace/perfetto.h"
#include "tools/spoor-trace/text.h"
#include "tools/spoor-trace/timeline.h"
#include "tools/spoor-trace/view.h"

static const char *const lossy_text[] = {
    "# lost 3 events on cpu 3",
    "[    0.000100] cpu=0 pid=0 tid=0 comm=kernel sched_switch prev_tid=0 prev_state=running "
    "next_tid=1",
    "[    0.000110] cpu=1 pid=0 tid=0 comm=kernel sched_switch prev_tid=0 prev_state=running "
    "next_tid=2",
    "[    0.000120] cpu=0 pid=1 tid=1 comm=init syscall_entry nr=5 name=ipc_call a0=0x3 a1=0x10 "
    "a2=0x0",
    "[    0.000125] cpu=0 pid=1 tid=1 comm=init ipc_call endpoint=3 label=0x10 peer=0",
    "[    0.000130] cpu=1 pid=2 tid=2 comm=traced ipc_recv endpoint=3 label=0x10 peer=1",
    "[    0.000140] cpu=1 pid=2 tid=2 comm=traced syscall_exit nr=6 name=ipc_recv result=0",
    "[    0.000150] cpu=1 pid=2 tid=2 comm=traced mem_pf vaddr=0x400000 rip=0x401020 err=0x6 "
    "outcome=mapped",
    "# lost 5 events on cpu 1",
    "[    0.000160] cpu=1 pid=2 tid=2 comm=traced syscall_entry nr=7 name=ipc_reply_recv a0=0x3 "
    "a1=0x0 a2=0x0",
    "[    0.000165] cpu=1 pid=2 tid=2 comm=traced ipc_reply endpoint=0 label=0x0 peer=1",
    "[    0.000170] cpu=0 pid=1 tid=1 comm=init syscall_exit nr=5 name=ipc_call result=0",
    "[    0.000180] cpu=0 pid=1 tid=1 comm=init syscall_entry nr=8 name=spawn a0=0x1000 a1=0x5 "
    "a2=0x0",
    "[    0.000190] cpu=0 pid=1 tid=1 comm=init proc_spawn pid=3 parent=1 name=\"hello\"",
    "[    0.000195] cpu=0 pid=1 tid=1 comm=init syscall_exit nr=8 name=spawn result=3",
    "[    0.000196] cpu=0 pid=1 tid=1 comm=init syscall_entry nr=1 name=write a0=0x4 a1=0x7fe000 "
    "a2=0x5",
    "[    0.000197] cpu=0 pid=1 tid=1 comm=init mem_copy addr=0x7fe000 len=5 dir=from_user",
    "[    0.000198] cpu=0 pid=1 tid=1 comm=init syscall_exit nr=1 name=write result=-EPIPE",
    "[    0.000200] cpu=2 pid=0 tid=0 comm=kernel irq_entry vector=32",
    "[    0.000201] cpu=2 pid=0 tid=0 comm=kernel irq_timer tick=5",
    "[    0.000202] cpu=2 pid=0 tid=0 comm=kernel irq_exit vector=32",
    "[    0.000210] cpu=2 pid=0 tid=0 comm=kernel sched_switch prev_tid=0 prev_state=running "
    "next_tid=3",
    "[    0.000220] cpu=2 pid=3 tid=3 comm=hello user:demo a=7 s=\"hi\" b=-5 raw=010203ff "
    "msg=\"hello\"",
    "[    0.000230] cpu=2 pid=3 tid=3 comm=hello user:big "
    "text=\"continuedxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\" "
    "n=42",
    "[    0.000235] cpu=3 pid=0 tid=0 comm=kernel sched_switch prev_tid=0 prev_state=running "
    "next_tid=4",
    "[    0.000240] cpu=3 pid=3 tid=4 comm=hello user event=7 gen=1 len=12 "
    "data=0x807060504030201,0xc0b0a09",
    "[    0.000250] cpu=3 pid=0 tid=0 comm=kernel kind=200 d0=0x1 d1=0x2 d2=0x3 d3=0x4 d4=0x5",
    "[    0.000260] cpu=2 pid=3 tid=3 comm=hello proc_spawn pid=9 parent=3 name=<evicted>",
    "[    0.000270] cpu=2 pid=3 tid=3 comm=hello mem_pf vaddr=0x0 rip=0x401234 err=0x4 "
    "outcome=killed",
    "[    0.000275] cpu=2 pid=3 tid=3 comm=hello proc_fault pid=3 vector=14 addr=0x0 rip=0x401234",
    "[    0.000280] cpu=2 pid=3 tid=3 comm=hello proc_exit pid=3 status=-11",
    "[    0.000290] cpu=2 pid=3 tid=3 comm=hello sched_switch prev_tid=3 prev_state=sleeping "
    "next_tid=0",
    "[    0.000300] cpu=0 pid=1 tid=1 comm=init sched_switch prev_tid=1 prev_state=ready "
    "next_tid=0",
    "# lost 2 events on cpu 0",
    "# end of dump: 31 events, 10 lost",
};

#define NLINES (sizeof(lossy_text) / sizeof(lossy_text[0]))

/* A sample file parsed and viewed. */
struct loaded {
	struct gen g;
	uint8_t *buf;
	size_t len;
	struct tfile f;
	struct tview v;
};

/* The sample as a file of sections in order (gen_file()), read and viewed. */
static int load_order(struct loaded *l, bool lossy, size_t section_slots, const uint32_t *order)
{
	char why[TFILE_WHY_MAX];

	gen_sample(&l->g, lossy);
	l->g.section_slots = section_slots;
	l->buf = gen_file(&l->g, order, &l->len);
	if (tfile_parse(l->buf, l->len, &l->f, why, sizeof(why))) {
		test_fail(__FILE__, __LINE__, "sample refused: %s", why);
		return -1;
	}
	if (tview_init(&l->v, &l->f)) {
		tfile_free(&l->f);
		test_fail(__FILE__, __LINE__, "out of memory");
		return -1;
	}
	return 0;
}

static int load(struct loaded *l, bool lossy, size_t section_slots)
{
	return load_order(l, lossy, section_slots, NULL);
}

static void unload(struct loaded *l)
{
	tview_fini(&l->v);
	tfile_free(&l->f);
	free(l->buf);
	gen_free(&l->g);
}

TEST(spoor_trace_text_is_the_dump)
{
	static const uint32_t per_cpu[] = {TTRACE_FILE_CPU_EVENTS, TTRACE_FILE_AUX_DURABLE,
					   TTRACE_FILE_AUX_RING,   TTRACE_FILE_LEDGER,
					   TTRACE_FILE_END,	   0};

	/*
	 * One section, events spread over sections of at most two slots, and
	 * a section per CPU (a save from minor 4), which the reader merges.
	 */
	for (size_t form = 0; form < 3; form++) {
		size_t split = form == 1 ? 2 : 0;
		struct loaded l;
		char *out = NULL;
		size_t out_len = 0;

		if (load_order(&l, true, split, form == 2 ? per_cpu : NULL)) {
			return;
		}
		FILE *m = open_memstream(&out, &out_len);
		CHECK_EQ_INT(text_convert(&l.v, m), 0, "text_convert");
		fclose(m);
		char *line = out;
		for (size_t i = 0; i < NLINES; i++) {
			char *nl = line ? strchr(line, '\n') : NULL;
			if (!nl) {
				CHECK(0, "form %zu: output ends before line %zu", form, i + 1);
				break;
			}
			*nl = '\0';
			CHECK_EQ_STR(line, lossy_text[i], "a line of the dump");
			line = nl + 1;
		}
		CHECK_EQ_STR(line, "", "nothing after the end line");
		free(out);
		unload(&l);
	}
}

/* Each text field of a kind's event shows in its line as name="text" or name=text. */
TEST(spoor_trace_fields_show_what_the_text_shows)
{
	struct loaded l;
	struct tfile_iter it;
	struct tfile_item item;
	static struct tfields fs;
	char line[TTRACE_LINE_MAX];
	char want[TFIELD_TEXT_MAX + 64];

	if (load(&l, false, 0)) {
		return;
	}
	tfile_iter_start(&it, &l.f);
	while (tfile_next(&it, &item)) {
		struct tclass k;

		tview_line(&l.v, &item.rec, line);
		tfields_classify(&l.v, &item.rec, &k);
		CHECK(k.type == TCLASS_UNKNOWN || strstr(line, k.name) != NULL,
		      "class %s not in %s", k.name, line);
		tfields_get(&l.v, &k, &item.rec, &fs);
		for (size_t i = 0; i < fs.n; i++) {
			const struct tfield *f = &fs.f[i];
			if (f->type == TFIELD_TEXT) {
				/* Quoted, unless a syscall name or <evicted>: either form will do.
				 */
				char bare[TFIELD_TEXT_MAX + 64];
				snprintf(want, sizeof(want), " %s=\"%s\"", f->name, f->text);
				snprintf(bare, sizeof(bare), " %s=%s", f->name, f->text);
				CHECK(strstr(line, want) || strstr(line, bare),
				      "%s: field %s not in %s", k.name, bare, line);
				continue;
			} else if (f->values && ttrace_value_name(f->values, (int64_t)f->value)) {
				snprintf(want, sizeof(want), " %s=%s", f->name,
					 ttrace_value_name(f->values, (int64_t)f->value));
			} else if (f->type == TFIELD_HEX) {
				snprintf(want, sizeof(want), " %s=0x%llx", f->name,
					 (unsigned long long)f->value);
			} else if (f->type == TFIELD_SIGNED) {
				snprintf(want, sizeof(want), " %s=%lld", f->name,
					 (long long)f->value);
			} else if (f->type == TFIELD_UNSIGNED) {
				snprintf(want, sizeof(want), " %s=%llu", f->name,
					 (unsigned long long)f->value);
			} else {
				continue;
			}
			CHECK(strstr(line, want) != NULL, "%s: field \"%s\" not in %s", k.name,
			      want, line);
		}
	}
	unload(&l);
}

/* The packets of one CTF stream: what the metadata declares, checked field by field. */
struct packets {
	uint64_t n, events, discarded, first_discarded;
	int ok;
};

static void walk_packets(const uint8_t *d, size_t len, uint32_t cpu, struct packets *p)
{
	size_t at = 0;

	p->ok = 1;
	while (at < len) {
		uint32_t magic, stream_id, instance, cpu_id;
		uint64_t begin, end, content, size, seq, discarded;

		if (len - at < 64) {
			p->ok = 0;
			return;
		}
		memcpy(&magic, d + at, 4);
		memcpy(&stream_id, d + at + 4, 4);
		memcpy(&instance, d + at + 8, 4);
		memcpy(&begin, d + at + 12, 8);
		memcpy(&end, d + at + 20, 8);
		memcpy(&content, d + at + 28, 8);
		memcpy(&size, d + at + 36, 8);
		memcpy(&seq, d + at + 44, 8);
		memcpy(&discarded, d + at + 52, 8);
		memcpy(&cpu_id, d + at + 60, 4);
		if (magic != 0xc1fc1fc1u || stream_id || instance != cpu || cpu_id != cpu ||
		    content != size || size % 8 || size / 8 > len - at || seq != p->n ||
		    end < begin || discarded < p->discarded) {
			p->ok = 0;
			return;
		}
		if (!p->n) {
			p->first_discarded = discarded;
		}
		/* Events: id, ts, cpu, pid, tid, then fields; count those whose ts is in the
		 * packet. */
		for (size_t e = at + 64; e + 24 <= at + size / 8;) {
			uint64_t ts;
			memcpy(&ts, d + e + 4, 8);
			if (ts < begin || ts > end) {
				p->ok = 0;
				return;
			}
			p->events++;
			break; /* field sizes vary: the first event is enough to check */
		}
		p->discarded = discarded;
		p->n++;
		at += size / 8;
	}
}

TEST(spoor_trace_ctf_packets_count_the_loss)
{
	struct loaded l;
	char *meta = NULL;
	size_t meta_len = 0;
	char *bufs[TTRACE_MAX_CPUS] = {NULL};
	size_t lens[TTRACE_MAX_CPUS] = {0};
	FILE *streams[TTRACE_MAX_CPUS];

	if (load(&l, true, 0)) {
		return;
	}
	FILE *m = open_memstream(&meta, &meta_len);
	for (uint32_t c = 0; c < 4; c++) {
		streams[c] = open_memstream(&bufs[c], &lens[c]);
	}
	CHECK_EQ_INT(ctf_convert(&l.v, "sample", m, streams), 0, "ctf_convert");
	fclose(m);
	for (uint32_t c = 0; c < 4; c++) {
		struct packets p = {0};
		fclose(streams[c]);
		walk_packets((const uint8_t *)bufs[c], lens[c], c, &p);
		CHECK(p.ok, "cpu %u: packets malformed", c);
		CHECK_EQ_UINT(p.first_discarded, 0, "the first packet counts no loss");
		CHECK_EQ_UINT(p.discarded, l.f.cpu_lost[c], "the last packet counts the loss");
		free(bufs[c]);
	}
	CHECK(strstr(meta, "/* CTF 1.8 */") == meta, "metadata starts with its signature");
	CHECK(strstr(meta, "name = \"user:demo\";") != NULL, "a class for user:demo");
	CHECK(strstr(meta, "name = \"user:big\";") != NULL, "a class for user:big");
	CHECK(strstr(meta, "name = \"kind_200\";") != NULL, "a class for the unknown kind");
	CHECK(strstr(meta, "\t\tx8 raw[4];") != NULL, "unsigned char[4] as bytes");
	CHECK(strstr(meta, "\t\tu32 _event;") != NULL, "a keyword field name escaped");
	CHECK(strstr(meta, "offset_s = -1;") != NULL, "boot half a second into the TSC");
	CHECK(strstr(meta, "offset = 1000000000;") != NULL, "the rest of boot in cycles");
	free(meta);
	unload(&l);
}

/* Perfetto and the timeline: whole documents, every B closed (the checks in Python go further). */
TEST(spoor_trace_perfetto_and_timeline_documents)
{
	struct loaded l;
	char *out = NULL;
	size_t len = 0;

	if (load(&l, true, 0)) {
		return;
	}
	FILE *m = open_memstream(&out, &len);
	CHECK_EQ_INT(perfetto_convert(&l.v, m), 0, "perfetto_convert");
	fclose(m);
	CHECK(!strncmp(out, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", 38), "json head");
	CHECK(len > 4 && !strcmp(out + len - 4, "\n]}\n"), "json tail");
	size_t b = 0, e = 0;
	for (const char *p = out; (p = strstr(p, "\"ph\":\"")); p += 6) {
		b += p[6] == 'B';
		e += p[6] == 'E';
	}
	CHECK_EQ_UINT(b, e, "every B has its E");
	CHECK(strstr(out, "\"name\":\"process_name\",\"args\":{\"name\":\"hello\"}") != NULL,
	      "hello named");
	free(out);
	out = NULL;
	m = open_memstream(&out, &len);
	CHECK_EQ_INT(timeline_convert(&l.v, m), 0, "timeline_convert");
	fclose(m);
	CHECK(strstr(out, "<svg ") != NULL && !strcmp(out + len - 7, "</svg>\n"), "svg document");
	CHECK(strstr(out, "hello: worker (pid 3, tid 4)") != NULL, "a legend with program names");
	free(out);
	unload(&l);
}
