/*
 * pprof_build: a profile's tables and its packing (see pprof_build.h).
 */
#include "tools/spoor-trace/pprof_build.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "profile.pb-c.h"

/* zlib's windowBits for a gzip header and trailer around the deflate stream. */
#define GZIP_WINDOW (15 + 16)

/* Row of key in t, and whether it is new (*added); -ENOMEM. */
static long intern(struct tally *t, const char *key, int *added)
{
	size_t before = t->len;
	long row = tally_add(t, key, 0, 0);

	*added = row >= 0 && t->len > before;
	return row;
}

/*
 * Makes room for a new row in *array (elements of size): it doubles at
 * each power of two, so row r always fits.
 */
static int room(void **array, size_t row, size_t size)
{
	if (row & (row - 1)) {
		return 0;
	}
	void *more = realloc(*array, (row ? 2 * row : 1) * size);
	if (!more) {
		return -ENOMEM;
	}
	*array = more;
	return 0;
}

int pprof_build_init(struct pprof_build *b)
{
	memset(b, 0, sizeof(*b));
	return pprof_string(b, "") < 0 ? -ENOMEM : 0;
}

void pprof_build_fini(struct pprof_build *b)
{
	for (size_t i = 0; i < b->nsamples; i++) {
		free(b->samples[i].locations);
	}
	free(b->samples);
	free(b->locations);
	free(b->functions);
	free(b->mappings);
	tally_free(&b->strings);
	tally_free(&b->mapping_keys);
	tally_free(&b->function_keys);
	tally_free(&b->location_keys);
}

int64_t pprof_string(struct pprof_build *b, const char *s)
{
	int added;
	long row = intern(&b->strings, s, &added);

	return row < 0 ? -ENOMEM : row;
}

int64_t pprof_mapping(struct pprof_build *b, const char *module, const char *file, uint64_t addr)
{
	int added;
	long row = intern(&b->mapping_keys, module, &added);
	int64_t name = pprof_string(b, file);

	if (row < 0 || name < 0 ||
	    (added && room((void **)&b->mappings, (size_t)row, sizeof(*b->mappings)))) {
		return -ENOMEM;
	}
	struct pprof_mapping *m = &b->mappings[row];
	if (added) {
		m->filename = name;
		m->low = m->high = addr;
	}
	m->low = addr < m->low ? addr : m->low;
	m->high = addr > m->high ? addr : m->high;
	return row + 1;
}

static int64_t function(struct pprof_build *b, const char *name, const char *src)
{
	char key[512];
	int added;

	snprintf(key, sizeof(key), "%s\t%s", name, src ? src : "");
	long row = intern(&b->function_keys, key, &added);
	int64_t n = pprof_string(b, name);
	int64_t f = pprof_string(b, src ? src : "");
	if (row < 0 || n < 0 || f < 0 ||
	    (added && room((void **)&b->functions, (size_t)row, sizeof(*b->functions)))) {
		return -ENOMEM;
	}
	b->functions[row][0] = n;
	b->functions[row][1] = n;
	b->functions[row][2] = f;
	return row + 1;
}

int64_t pprof_location(struct pprof_build *b, const char *module, const char *file, uint64_t addr,
		       const char *name, const char *src, int64_t line)
{
	char key[512];
	int added;

	snprintf(key, sizeof(key), "%s\t%llx\t%s", module, (unsigned long long)addr, name);
	long row = intern(&b->location_keys, key, &added);
	if (row < 0) {
		return -ENOMEM;
	}
	if (!added) {
		return row + 1;
	}
	int64_t m = pprof_mapping(b, module, file, addr);
	int64_t f = m < 0 ? m : function(b, name, src);
	if (f < 0 || room((void **)&b->locations, (size_t)row, sizeof(*b->locations))) {
		return -ENOMEM;
	}
	b->locations[row] = (struct pprof_location){(uint64_t)m, addr, (uint64_t)f, line};
	return row + 1;
}

int pprof_sample(struct pprof_build *b, const struct pprof_sample *s)
{
	if (b->nsamples == b->samples_cap) {
		size_t cap = b->samples_cap ? 2 * b->samples_cap : 256;
		struct pprof_sample *more = realloc(b->samples, cap * sizeof(*more));
		if (!more) {
			free(s->locations);
			return -ENOMEM;
		}
		b->samples = more;
		b->samples_cap = cap;
	}
	b->samples[b->nsamples++] = *s;
	return 0;
}

/* The profile's messages: made from b, pointing into it and into this. */
struct packing {
	Perftools__Profiles__Profile profile;
	Perftools__Profiles__ValueType types[PPROF_TYPES], *type_ptrs[PPROF_TYPES];
	Perftools__Profiles__Sample *samples, **sample_ptrs;
	Perftools__Profiles__Label *labels, **label_ptrs; /* 3 a sample: pid, tid, event */
	int64_t *values;				  /* PPROF_TYPES a sample */
	Perftools__Profiles__Mapping *mappings, **mapping_ptrs;
	Perftools__Profiles__Location *locations, **location_ptrs;
	Perftools__Profiles__Line *lines, **line_ptrs;
	Perftools__Profiles__Function *functions, **function_ptrs;
	char **strings;
};

static void packing_free(struct packing *p)
{
	free(p->samples);
	free(p->sample_ptrs);
	free(p->labels);
	free(p->label_ptrs);
	free(p->values);
	free(p->mappings);
	free(p->mapping_ptrs);
	free(p->locations);
	free(p->location_ptrs);
	free(p->lines);
	free(p->line_ptrs);
	free(p->functions);
	free(p->function_ptrs);
	free(p->strings);
}

static int alloc_all(struct packing *p, const struct pprof_build *b)
{
	size_t ns = b->nsamples, nm = b->mapping_keys.len, nl = b->location_keys.len;
	size_t nf = b->function_keys.len;

	p->samples = calloc(ns + 1, sizeof(*p->samples));
	p->sample_ptrs = calloc(ns + 1, sizeof(*p->sample_ptrs));
	p->labels = calloc(3 * ns + 1, sizeof(*p->labels));
	p->label_ptrs = calloc(3 * ns + 1, sizeof(*p->label_ptrs));
	p->values = calloc(PPROF_TYPES * ns + 1, sizeof(*p->values));
	p->mappings = calloc(nm + 1, sizeof(*p->mappings));
	p->mapping_ptrs = calloc(nm + 1, sizeof(*p->mapping_ptrs));
	p->locations = calloc(nl + 1, sizeof(*p->locations));
	p->location_ptrs = calloc(nl + 1, sizeof(*p->location_ptrs));
	p->lines = calloc(nl + 1, sizeof(*p->lines));
	p->line_ptrs = calloc(nl + 1, sizeof(*p->line_ptrs));
	p->functions = calloc(nf + 1, sizeof(*p->functions));
	p->function_ptrs = calloc(nf + 1, sizeof(*p->function_ptrs));
	p->strings = calloc(b->strings.len + 1, sizeof(*p->strings));
	return p->samples && p->sample_ptrs && p->labels && p->label_ptrs && p->values &&
		       p->mappings && p->mapping_ptrs && p->locations && p->location_ptrs &&
		       p->lines && p->line_ptrs && p->functions && p->function_ptrs && p->strings
		   ? 0
		   : -ENOMEM;
}

static void fill_samples(struct packing *p, const struct pprof_build *b, int64_t key[3])
{
	for (size_t i = 0; i < b->nsamples; i++) {
		const struct pprof_sample *s = &b->samples[i];
		Perftools__Profiles__Sample *m = &p->samples[i];
		Perftools__Profiles__Label **l = &p->label_ptrs[3 * i];
		int64_t num[3] = {s->pid, s->tid, 0};

		perftools__profiles__sample__init(m);
		m->n_location_id = s->n;
		m->location_id = s->locations;
		m->n_value = PPROF_TYPES;
		m->value = &p->values[PPROF_TYPES * i];
		m->value[s->type] = 1;
		m->label = l;
		for (int k = 0; k < 3; k++) {
			l[k] = &p->labels[3 * i + k];
			perftools__profiles__label__init(l[k]);
			l[k]->key = key[k];
			l[k]->num = num[k];
		}
		l[2]->str = s->event;
		m->n_label = s->event ? 3 : 2;
		p->sample_ptrs[i] = m;
	}
}

static void fill_tables(struct packing *p, const struct pprof_build *b)
{
	for (size_t i = 0; i < b->mapping_keys.len; i++) {
		Perftools__Profiles__Mapping *m = &p->mappings[i];
		perftools__profiles__mapping__init(m);
		m->id = i + 1;
		m->memory_start = b->mappings[i].low;
		m->memory_limit = b->mappings[i].high + 1;
		m->filename = b->mappings[i].filename;
		m->has_functions = m->has_filenames = m->has_line_numbers = 1;
		p->mapping_ptrs[i] = m;
	}
	for (size_t i = 0; i < b->location_keys.len; i++) {
		Perftools__Profiles__Location *l = &p->locations[i];
		perftools__profiles__location__init(l);
		perftools__profiles__line__init(&p->lines[i]);
		l->id = i + 1;
		l->mapping_id = b->locations[i].mapping;
		l->address = b->locations[i].address;
		p->lines[i].function_id = b->locations[i].function;
		p->lines[i].line = b->locations[i].line;
		p->line_ptrs[i] = &p->lines[i];
		l->n_line = 1;
		l->line = &p->line_ptrs[i];
		p->location_ptrs[i] = l;
	}
	for (size_t i = 0; i < b->function_keys.len; i++) {
		Perftools__Profiles__Function *f = &p->functions[i];
		perftools__profiles__function__init(f);
		f->id = i + 1;
		f->name = b->functions[i][0];
		f->system_name = b->functions[i][1];
		f->filename = b->functions[i][2];
		p->function_ptrs[i] = f;
	}
	for (size_t i = 0; i < b->strings.len; i++) {
		p->strings[i] = b->strings.rows[i].key;
	}
}

/* data gzipped to out. Returns 0, -ENOMEM or -EIO. */
static int gzip_to(const uint8_t *data, size_t len, FILE *out)
{
	z_stream z;
	uint8_t buf[1 << 16];
	int rc;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, GZIP_WINDOW, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK) {
		return -ENOMEM;
	}
	z.next_in = (uint8_t *)data;
	z.avail_in = (uInt)len;
	do {
		z.next_out = buf;
		z.avail_out = sizeof(buf);
		rc = deflate(&z, Z_FINISH);
		fwrite(buf, 1, sizeof(buf) - z.avail_out, out);
	} while (rc == Z_OK);
	deflateEnd(&z);
	return rc == Z_STREAM_END && !fflush(out) && !ferror(out) ? 0 : -EIO;
}

int pprof_build_write(struct pprof_build *b, FILE *out)
{
	static const char *const types[PPROF_TYPES][2] = {{"samples", "count"},
							  {"events", "count"}};
	struct packing p;
	int64_t key[3] = {pprof_string(b, "pid"), pprof_string(b, "tid"), pprof_string(b, "event")};

	memset(&p, 0, sizeof(p));
	for (int t = 0; t < PPROF_TYPES; t++) {
		perftools__profiles__value_type__init(&p.types[t]);
		p.types[t].type = pprof_string(b, types[t][0]);
		p.types[t].unit = pprof_string(b, types[t][1]);
		p.type_ptrs[t] = &p.types[t];
		if (p.types[t].type < 0 || p.types[t].unit < 0) {
			return -ENOMEM;
		}
	}
	if (key[0] < 0 || key[1] < 0 || key[2] < 0 || alloc_all(&p, b)) {
		packing_free(&p);
		return -ENOMEM;
	}
	fill_samples(&p, b, key);
	fill_tables(&p, b);
	Perftools__Profiles__Profile *pr = &p.profile;
	perftools__profiles__profile__init(pr);
	pr->n_sample_type = PPROF_TYPES;
	pr->sample_type = p.type_ptrs;
	pr->default_sample_type = p.types[PPROF_SAMPLES].type;
	pr->n_sample = b->nsamples;
	pr->sample = p.sample_ptrs;
	pr->n_mapping = b->mapping_keys.len;
	pr->mapping = p.mapping_ptrs;
	pr->n_location = b->location_keys.len;
	pr->location = p.location_ptrs;
	pr->n_function = b->function_keys.len;
	pr->function = p.function_ptrs;
	pr->duration_nanos = (int64_t)(b->last_ns - b->first_ns);
	pr->n_string_table = b->strings.len;
	pr->string_table = p.strings;

	size_t len = perftools__profiles__profile__get_packed_size(pr);
	uint8_t *data = malloc(len ? len : 1);
	int err = -ENOMEM;
	if (data) {
		perftools__profiles__profile__pack(pr, data);
		err = gzip_to(data, len, out);
	}
	free(data);
	packing_free(&p);
	return err;
}
