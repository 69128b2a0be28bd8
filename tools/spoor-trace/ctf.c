/*
 * ctf: the CTF writer (see ctf.h). A first pass finds the kinds whose
 * events carry stacks; a second writes every CPU's packets and collects
 * the event classes they use; the metadata, which declares them, is
 * written last. Integers are byte aligned and
 * little-endian, so an event's bytes are its fields back to back.
 */
#include "tools/spoor-trace/ctf.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fnv.h"
#include "common/trace_names.h"
#include "common/trace_stack.h"
#include "common/uevent_parse.h"
#include "tools/spoor-trace/fields.h"
#include "tools/spoor-trace/stacks.h"

#define CTF_MAGIC 0xc1fc1fc1u
#define NS_PER_S  1000000000ull

/* A packet is cut when its events pass this many bytes. */
#define PACKET_EVENTS_MAX (256u << 10)

/* Class ids: a known kind's is its number; these ranges follow. */
#define ID_UNKNOWN_BASE 0x10000u /* + the kind */
#define ID_USER_BASE	0x20000u /* + the definition's place in the list */

/* Bytes of the packet header and context as the metadata declares them. */
#define PACKET_HEAD_SIZE (3 * 4 + 6 * 8 + 4)

struct user_class {
	uint64_t ukey;
	uint32_t id;
	struct uevent_def def;
};

struct stream {
	FILE *out;
	uint8_t *buf; /* the packet's events */
	size_t len, cap;
	uint64_t nevents;
	uint64_t begin, end; /* of the events in buf */
	uint64_t last;	     /* the stream's latest timestamp */
	uint64_t discarded;  /* the loss so far: the next packet's events_discarded */
	uint64_t seq;	     /* packets written */
	uint64_t flushed_discarded;
	bool after_loss; /* a loss came since its last event: the next one ends the packet */
};

struct ctf {
	struct tview *v;
	struct stream s[TTRACE_MAX_CPUS];
	bool unknown[UINT16_MAX + 1]; /* kinds the table does not know, seen */
	struct user_class *users;
	size_t nusers;
	struct tfields fields;
	struct stack_names stack;	 /* an event's, named (put_stack()) */
	bool stacked[TTRACE_KIND_LIMIT]; /* kinds of which some event carries a stack */
	int err;
};

static void put(struct stream *s, const void *p, size_t n, struct ctf *c)
{
	if (s->len + n > s->cap) {
		size_t cap = s->cap ? s->cap : 4096;
		while (cap < s->len + n) {
			cap *= 2;
		}
		uint8_t *buf = realloc(s->buf, cap);
		if (!buf) {
			c->err = -ENOMEM;
			return;
		}
		s->buf = buf;
		s->cap = cap;
	}
	memcpy(s->buf + s->len, p, n);
	s->len += n;
}

static void put_int(struct stream *s, uint64_t v, uint32_t bytes, struct ctf *c)
{
	put(s, &v, bytes, c); /* little-endian: the low bytes first */
}

/* Writes the packet of stream s: head, context, then its events. */
static void flush(struct stream *s, uint32_t cpu, struct ctf *c)
{
	uint8_t head[PACKET_HEAD_SIZE];
	uint64_t bits = 8 * (uint64_t)(sizeof(head) + s->len);
	uint64_t begin = s->nevents ? s->begin : s->last;
	uint64_t end = s->nevents ? s->end : s->last;
	const uint32_t words32[] = {CTF_MAGIC, 0, cpu};
	const uint64_t words64[] = {begin, end, bits, bits, s->seq, s->discarded};
	size_t at = 0;

	memcpy(head + at, words32, sizeof(words32));
	at += sizeof(words32);
	memcpy(head + at, words64, sizeof(words64));
	at += sizeof(words64);
	memcpy(head + at, &cpu, sizeof(cpu));
	if (fwrite(head, 1, sizeof(head), s->out) != sizeof(head) ||
	    (s->len && fwrite(s->buf, 1, s->len, s->out) != s->len)) {
		c->err = -EIO;
	}
	s->seq++;
	s->flushed_discarded = s->discarded;
	s->len = 0;
	s->nevents = 0;
}

/* The class id of c, registering a user definition or unknown kind on first sight. */
static uint32_t class_id(struct ctf *c, const struct tclass *k)
{
	switch (k->type) {
	case TCLASS_UNKNOWN:
		c->unknown[k->kind] = true;
		return ID_UNKNOWN_BASE + k->kind;
	case TCLASS_USER:
		for (size_t i = 0; i < c->nusers; i++) {
			if (c->users[i].ukey == k->ukey ||
			    uevent_def_same(&c->users[i].def, k->def)) {
				return c->users[i].id;
			}
		}
		struct user_class *u = realloc(c->users, (c->nusers + 1) * sizeof(*u));
		if (!u) {
			c->err = -ENOMEM;
			return 0;
		}
		c->users = u;
		u = &c->users[c->nusers];
		u->ukey = k->ukey;
		u->id = ID_USER_BASE + (uint32_t)c->nusers++;
		u->def = *k->def;
		return u->id;
	default:
		return k->kind; /* TCLASS_KIND, and TCLASS_USER_RAW: the kind `user` */
	}
}

static void put_fields(struct stream *s, const struct tfields *fs, struct ctf *c)
{
	for (size_t i = 0; i < fs->n; i++) {
		const struct tfield *f = &fs->f[i];

		switch (f->type) {
		case TFIELD_TEXT:
			put(s, f->text, strlen(f->text) + 1, c);
			break;
		case TFIELD_BYTES:
			put(s, f->bytes, f->nbytes, c);
			break;
		default:
			put_int(s, f->value, f->bits / 8, c);
			break;
		}
	}
}

/*
 * A stacked kind's event ends with its call stack (none: length 0): stack_len,
 * stack[stack_len] the addresses as recorded (the kernel's, then the
 * user's, innermost first), and stack_names, the stack named as
 * `spoor-trace flamegraph --folded` names it (root first, ';' between).
 */
static void put_stack(struct stream *s, const struct ttrace_record *r, struct ctf *c)
{
	struct ttrace_stack st;
	char names[STACKS_FRAMES_MAX * (STACKS_NAME_MAX + 1)] = "";
	size_t len = 0;

	if (!ttrace_stack_get(r, &st)) {
		st = (struct ttrace_stack){0};
	}
	put_int(s, st.nkernel + st.nuser, 1, c);
	for (uint32_t i = 0; i < st.nkernel + st.nuser; i++) {
		put_int(s, st.frames[i], 8, c);
	}
	if (st.nkernel + st.nuser && stacks_of(c->v, r, &c->stack)) {
		for (uint32_t i = 0; i < c->stack.n; i++) {
			len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s",
						i ? ";" : "", c->stack.name[i]);
		}
	}
	put(s, names, strlen(names) + 1, c);
}

static void event(struct ctf *c, const struct ttrace_record *r)
{
	struct stream *s = &c->s[r->cpu];
	struct tclass k;

	tfields_classify(c->v, r, &k);
	uint32_t id = class_id(c, &k);
	tfields_get(c->v, &k, r, &c->fields);
	if (s->len > PACKET_EVENTS_MAX) {
		flush(s, r->cpu, c);
	}
	uint64_t ts = r->ts > s->last ? r->ts : s->last;
	if (!s->nevents) {
		s->begin = ts;
	}
	s->end = s->last = ts;
	s->nevents++;
	put_int(s, id, 4, c);
	put_int(s, ts, 8, c);
	put_int(s, r->cpu, 4, c);
	put_int(s, r->pid, 4, c);
	put_int(s, r->tid, 4, c);
	const char *comm = ttrace_decoder_comm(&c->v->dec, r->pid);
	put(s, comm, strlen(comm) + 1, c);
	put_fields(s, &c->fields, c);
	if (k.type == TCLASS_KIND && c->stacked[r->kind]) {
		put_stack(s, r, c);
	}
	if (s->after_loss) {
		/*
		 * The loss ends here (abi/trace_file.h LOSS PLACEMENT): a reader
		 * places a packet's discarded events between the previous packet's
		 * end and this one's, so this packet ends with the first event kept
		 * after the loss.
		 */
		flush(s, r->cpu, c);
		s->after_loss = false;
	}
}

static void loss(struct ctf *c, uint32_t cpu, uint64_t n)
{
	struct stream *s = &c->s[cpu];

	/* The packets before the loss keep the count before it; the first one counts 0. */
	if (s->nevents || !s->seq) {
		flush(s, cpu, c);
	}
	s->discarded += n;
	s->after_loss = true;
}

/* The CPU's first timestamp, where its first packet begins even if empty. */
static void stream_starts(struct ctf *c)
{
	struct tfile_iter it;
	struct tfile_item item;
	bool seen[TTRACE_MAX_CPUS] = {false};

	/*
	 * A file of losses and no events (a filter chose none) has no first
	 * timestamp: its packets begin at boot, not at a TSC of 0, which the
	 * clock's offset would put before it.
	 */
	uint64_t first = c->v->file->events ? c->v->file->first_ts : c->v->hdr.boot_tsc;

	for (uint32_t i = 0; i < TTRACE_MAX_CPUS; i++) {
		c->s[i].last = first;
	}
	tfile_iter_start(&it, c->v->file);
	while (tfile_next(&it, &item)) {
		if (!item.lost && !seen[item.rec.cpu]) {
			seen[item.rec.cpu] = true;
			c->s[item.rec.cpu].last = item.rec.ts;
		}
	}
}

static bool is_keyword(const char *s)
{
	static const char *const keywords[] = {
	    "align",   "callsite", "const",	     "char",   "clock",	  "double",   "enum",
	    "env",     "event",	   "floating_point", "float",  "integer", "int",      "long",
	    "short",   "signed",   "stream",	     "string", "struct",  "trace",    "typealias",
	    "typedef", "unsigned", "variant",	     "void",   "_Bool",	  "_Complex", "_Imaginary",
	};

	for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++) {
		if (!strcmp(s, keywords[i])) {
			return true;
		}
	}
	return false;
}

/* A field's name as TSDL takes it: keywords and names starting with '_' get one more '_'. */
static void put_name(FILE *m, const char *name)
{
	if (is_keyword(name) || name[0] == '_' || (name[0] >= '0' && name[0] <= '9') || !name[0]) {
		fputc('_', m);
	}
	for (const char *p = name; *p; p++) {
		bool ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			  (*p >= '0' && *p <= '9') || *p == '_';
		fputc(ok ? *p : '_', m);
	}
}

/* s as the inside of a TSDL string literal: only printable ASCII, quotes and backslashes escaped.
 */
static void put_literal(FILE *m, const char *s)
{
	for (; *s; s++) {
		if (*s == '"' || *s == '\\') {
			fputc('\\', m);
		}
		fputc(*s >= ' ' && *s <= '~' ? *s : '?', m);
	}
}

/*
 * Integer field f, whose values have names, as an enum of them: "enum :
 * u64 { ... } ". A reader shows a value no label maps as unknown, so a
 * list of errors also maps every value from 0 up, a success, to its label.
 */
static void put_enum(FILE *m, const struct tfield *f)
{
	const struct ttrace_values *l = f->values;

	fprintf(m, "enum : %c%u {", f->type == TFIELD_SIGNED ? 's' : 'u', f->bits);
	for (uint32_t i = 0; i < l->n; i++) {
		fputs(i ? ", \"" : " \"", m);
		put_literal(m, l->v[i].name);
		fprintf(m, "\" = %lld", (long long)l->v[i].value);
	}
	if (l->success) {
		uint64_t most = f->type == TFIELD_SIGNED ? (1ull << (f->bits - 1)) - 1
							 : UINT64_MAX >> (64 - f->bits);
		fprintf(m, "%s\"", l->n ? ", " : " ");
		put_literal(m, l->success);
		fprintf(m, "\" = 0 ... %llu", (unsigned long long)most);
	}
	fputs(" } ", m);
}

static void put_class(FILE *m, uint32_t id, const char *name, const struct tfields *fs, bool stack)
{
	fprintf(m, "event {\n\tname = \"%s\";\n\tid = %u;\n\tstream_id = 0;\n", name, id);
	if (fs->n || stack) {
		fprintf(m, "\tfields := struct {\n");
		for (size_t i = 0; i < fs->n; i++) {
			const struct tfield *f = &fs->f[i];
			static const char *const ints[] = {
			    [TFIELD_UNSIGNED] = "u", [TFIELD_HEX] = "x", [TFIELD_SIGNED] = "s"};

			fputs("\t\t", m);
			if (f->values) {
				put_enum(m, f);
			} else if (f->type == TFIELD_TEXT) {
				fputs("string ", m);
			} else if (f->type == TFIELD_BYTES) {
				fputs("x8 ", m);
			} else {
				fprintf(m, "%s%u ", ints[f->type], f->bits);
			}
			put_name(m, f->name);
			if (f->type == TFIELD_BYTES) {
				fprintf(m, "[%u]", f->nbytes);
			}
			fputs(";\n", m);
		}
		if (stack) {
			fputs("\t\tu8 stack_len;\n\t\tx64 stack[stack_len];\n\t\tstring "
			      "stack_names;\n",
			      m);
		}
		fprintf(m, "\t};\n");
	}
	fprintf(m, "};\n\n");
}

/*
 * The trace's UUID: the same file gives the same one, another file
 * another. Its 128 bits are the file's checksum (END) and a hash of it
 * with the header's boot time and save time, as an RFC 9562 version 8
 * (custom) UUID.
 */
static void put_uuid(FILE *m, const struct tfile *f)
{
	uint64_t hi = f->end.checksum;
	uint64_t lo = ttrace_fnv1a(TTRACE_FNV_OFFSET, &hi, sizeof(hi));
	uint8_t u[16];

	lo = ttrace_fnv1a(lo, &f->hdr.boot_tsc, sizeof(f->hdr.boot_tsc));
	lo = ttrace_fnv1a(lo, &f->hdr.saved_ns, sizeof(f->hdr.saved_ns));
	for (int i = 0; i < 8; i++) {
		u[i] = (uint8_t)(hi >> (56 - 8 * i));
		u[8 + i] = (uint8_t)(lo >> (56 - 8 * i));
	}
	u[6] = (uint8_t)(0x80 | (u[6] & 0x0f)); /* version 8 */
	u[8] = (uint8_t)(0x80 | (u[8] & 0x3f)); /* variant 10 */
	fputs("\tuuid = \"", m);
	for (int i = 0; i < 16; i++) {
		fprintf(m, "%s%02x", i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "", u[i]);
	}
	fputs("\";\n", m);
}

static void metadata(struct ctf *c, const char *name, FILE *m)
{
	const struct ttrace_file_header *h = &c->v->file->hdr;
	uint64_t freq = h->tsc_hz ? h->tsc_hz : NS_PER_S;
	uint64_t boot = h->tsc_hz ? h->boot_tsc : 0;
	/* -boot cycles as CTF wants them: whole seconds (may be negative), cycles in [0, freq). */
	int64_t offset_s = -(int64_t)(boot / freq) - (boot % freq ? 1 : 0);
	uint64_t offset = boot % freq ? freq - boot % freq : 0;
	static const unsigned sizes[] = {8, 16, 32, 64};
	struct tclass k;

	fprintf(m, "/* CTF 1.8 */\n\n");
	for (size_t i = 0; i < 4; i++) {
		fprintf(m, "typealias integer { size = %u; align = 8; signed = false; } := u%u;\n",
			sizes[i], sizes[i]);
		fprintf(m, "typealias integer { size = %u; align = 8; signed = true; } := s%u;\n",
			sizes[i], sizes[i]);
		fprintf(m,
			"typealias integer { size = %u; align = 8; signed = false; base = 16; } := "
			"x%u;\n",
			sizes[i], sizes[i]);
	}
	fprintf(m, "\ntrace {\n\tmajor = 1;\n\tminor = 8;\n\tbyte_order = le;\n");
	put_uuid(m, c->v->file);
	fprintf(m, "\tpacket.header := struct {\n\t\tu32 magic;\n\t\tu32 stream_id;\n"
		   "\t\tu32 stream_instance_id;\n\t};\n};\n\n");
	/* Readers name a trace by its hostname (babeltrace2, Trace Compass): the save's name. */
	fprintf(m,
		"env {\n\tdomain = \"spoor\";\n\ttracer_name = \"spoor\";\n"
		"\ttracer_major = %u;\n\ttracer_minor = %u;\n\thostname = \"",
		h->version_major, h->version_minor);
	put_literal(m, name);
	fputs("\";\n\ttrace_name = \"", m);
	put_literal(m, name);
	fprintf(m, "\";\n\tnum_cpus = %u;\n\ttsc_hz = %llu;\n\tsaved_ns = %llu;\n};\n\n",
		h->num_cpus, (unsigned long long)h->tsc_hz, (unsigned long long)h->saved_ns);
	fprintf(m,
		"clock {\n\tname = \"spoor_tsc\";\n\tdescription = \"the TSC; time 0 is boot\";\n"
		"\tfreq = %llu;\n\tprecision = 0;\n\toffset_s = %lld;\n\toffset = %llu;\n"
		"\tabsolute = false;\n};\n\n",
		(unsigned long long)freq, (long long)offset_s, (unsigned long long)offset);
	fprintf(m, "typealias integer { size = 64; align = 8; signed = false; "
		   "map = clock.spoor_tsc.value; } := tsc64;\n\n");
	fprintf(m, "stream {\n\tid = 0;\n"
		   "\tevent.header := struct {\n\t\tu32 id;\n\t\ttsc64 timestamp;\n\t};\n"
		   "\tpacket.context := struct {\n\t\ttsc64 timestamp_begin;\n"
		   "\t\ttsc64 timestamp_end;\n\t\tu64 content_size;\n\t\tu64 packet_size;\n"
		   "\t\tu64 packet_seq_num;\n\t\tu64 events_discarded;\n\t\tu32 cpu_id;\n\t};\n"
		   "\tevent.context := struct {\n\t\tu32 cpu;\n\t\tu32 pid;\n\t\tu32 "
		   "tid;\n\t\tstring comm;\n\t};\n"
		   "};\n\n");
	for (uint32_t kind = 1; kind < TTRACE_KIND_LIMIT; kind++) {
		const struct ttrace_kind_info *info = ttrace_kind_info(kind);
		if (!info) {
			continue;
		}
		memset(&k, 0, sizeof(k));
		k.type = kind == TTRACE_KIND_user ? TCLASS_USER_RAW : TCLASS_KIND;
		k.kind = kind;
		tfields_get(c->v, &k, NULL, &c->fields);
		put_class(m, kind, info->name, &c->fields,
			  k.type == TCLASS_KIND && c->stacked[kind]);
	}
	for (uint32_t kind = 0; kind <= UINT16_MAX; kind++) {
		if (c->unknown[kind]) {
			char cname[16];
			memset(&k, 0, sizeof(k));
			k.type = TCLASS_UNKNOWN;
			k.kind = kind;
			snprintf(cname, sizeof(cname), "kind_%u", kind);
			tfields_get(c->v, &k, NULL, &c->fields);
			put_class(m, ID_UNKNOWN_BASE + kind, cname, &c->fields, false);
		}
	}
	for (size_t i = 0; i < c->nusers; i++) {
		const struct user_class *u = &c->users[i];
		char cname[TCLASS_NAME_MAX + 1];
		memset(&k, 0, sizeof(k));
		k.type = TCLASS_USER;
		k.kind = TTRACE_KIND_user;
		k.def = &u->def;
		snprintf(cname, sizeof(cname), "user:%.*s", (int)(sizeof(u->def.name) - 1),
			 u->def.name);
		tfields_get(c->v, &k, NULL, &c->fields);
		put_class(m, u->id, cname, &c->fields, false);
	}
}

int ctf_convert(struct tview *v, const char *name, FILE *metadata_out, FILE *const *streams)
{
	struct ctf *c = calloc(1, sizeof(*c));
	struct tfile_iter it;
	struct tfile_item item;
	uint32_t ncpus = v->file->hdr.num_cpus;

	if (!c) {
		return -ENOMEM;
	}
	c->v = v;
	for (uint32_t i = 0; i < ncpus; i++) {
		c->s[i].out = streams[i];
	}
	tfile_iter_start(&it, v->file);
	while (tfile_next(&it, &item)) {
		struct ttrace_stack st;
		if (!item.lost && item.rec.kind < TTRACE_KIND_LIMIT &&
		    ttrace_stack_get(&item.rec, &st)) {
			c->stacked[item.rec.kind] = true;
		}
	}
	stream_starts(c);
	tfile_iter_start(&it, v->file);
	while (!c->err && tfile_next(&it, &item)) {
		if (item.lost) {
			loss(c, item.lost_cpu, item.lost_count);
		} else {
			event(c, &item.rec);
		}
	}
	for (uint32_t i = 0; i < ncpus && !c->err; i++) {
		struct stream *s = &c->s[i];
		if (s->nevents || !s->seq || s->discarded != s->flushed_discarded) {
			flush(s, i, c);
		}
	}
	if (!c->err) {
		metadata(c, name, metadata_out);
	}
	int err = c->err;
	for (uint32_t i = 0; i < ncpus; i++) {
		free(c->s[i].buf);
		if (!err && (fflush(streams[i]) || ferror(streams[i]))) {
			err = -EIO;
		}
	}
	if (!err && (fflush(metadata_out) || ferror(metadata_out))) {
		err = -EIO;
	}
	free(c->users);
	free(c);
	return err;
}

/* True if file name is one a trace written here holds: metadata, stream_*. */
static bool ours(const char *name)
{
	return !strcmp(name, "metadata") || !strncmp(name, "stream_", 7);
}

/* Makes dir, or checks that it holds only a trace of ours, and removes that trace's streams. */
static int prepare_dir(const char *dir, char *why, size_t why_size)
{
	char path[4096];
	DIR *d;
	struct dirent *e;

	if (mkdir(dir, 0777) == 0) {
		return 0;
	}
	if (errno != EEXIST || !(d = opendir(dir))) {
		int err = -errno;
		snprintf(why, why_size, "%s: %s", dir, strerror(errno));
		return err;
	}
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) {
			continue;
		}
		if (!ours(e->d_name)) {
			snprintf(why, why_size,
				 "%s: holds %s, not only a CTF trace: not writing there", dir,
				 e->d_name);
			closedir(d);
			return -EEXIST;
		}
	}
	rewinddir(d);
	while ((e = readdir(d))) {
		if (!strncmp(e->d_name, "stream_", 7)) {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			if (unlink(path)) {
				int err = -errno;
				snprintf(why, why_size, "%s: %s", path, strerror(errno));
				closedir(d);
				return err;
			}
		}
	}
	closedir(d);
	return 0;
}

int ctf_convert_dir(struct tview *v, const char *name, const char *dir, char *why, size_t why_size)
{
	FILE *streams[TTRACE_MAX_CPUS] = {NULL};
	FILE *m = NULL;
	char path[4096];
	uint32_t ncpus = v->file->hdr.num_cpus;
	int err = prepare_dir(dir, why, why_size);

	for (uint32_t i = 0; !err && i <= ncpus; i++) {
		FILE **fp = i < ncpus ? &streams[i] : &m;
		if (i < ncpus) {
			snprintf(path, sizeof(path), "%s/stream_%u", dir, i);
		} else {
			snprintf(path, sizeof(path), "%s/metadata", dir);
		}
		*fp = fopen(path, "wb");
		if (!*fp) {
			err = -errno;
			snprintf(why, why_size, "%s: %s", path, strerror(errno));
		}
	}
	if (!err) {
		err = ctf_convert(v, name, m, streams);
		if (err) {
			snprintf(why, why_size, "%s: %s", dir, strerror(-err));
		}
	}
	for (uint32_t i = 0; i < ncpus; i++) {
		if (streams[i] && fclose(streams[i]) && !err) {
			err = -EIO;
			snprintf(why, why_size, "%s: %s", dir, strerror(EIO));
		}
	}
	if (m && fclose(m) && !err) {
		err = -EIO;
		snprintf(why, why_size, "%s: %s", dir, strerror(EIO));
	}
	return err;
}
