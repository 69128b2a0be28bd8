/*
 * tracedat_format: the format files of tracedat_class.h's events, as
 * ftrace's events/SYSTEM/NAME/format reads, and the EVENT FORMATS part
 * of trace-cmd.dat(5) that holds them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tools/spoor-trace/tracedat_class.h"

/* The systems, in the order the file lists them. */
static const char *const systems[] = {"spoor", "sched", "user_events"};

void tdat_put(FILE *out, uint64_t v, uint32_t bytes)
{
	for (uint32_t b = 0; b < bytes; b++) {
		fputc((int)(uint8_t)(v >> (8 * b)), out);
	}
}

static const char *int_type(uint32_t size, bool sign)
{
	switch (size) {
	case 1:
		return sign ? "signed char" : "unsigned char";
	case 2:
		return sign ? "short" : "unsigned short";
	case 4:
		return sign ? "int" : "unsigned int";
	default:
		return sign ? "long long" : "unsigned long long";
	}
}

static void field_line(FILE *out, const struct tdat_field *f)
{
	bool sign = f->type == TFIELD_SIGNED;

	fputs("\tfield:", out);
	if (f->src == TDAT_SRC_COMM) {
		fprintf(out, "char %s[%u]", f->name, f->size);
	} else if (f->src == TDAT_SRC_PID) {
		fprintf(out, "pid_t %s", f->name);
	} else if (f->src == TDAT_SRC_STATE) {
		fprintf(out, "long %s", f->name);
	} else if (f->type == TFIELD_BYTES) {
		fprintf(out, "__u8 %s[%u]", f->name, f->size);
	} else if (f->type == TFIELD_TEXT) {
		fprintf(out, "__data_loc char[] %s", f->name);
	} else {
		fprintf(out, "%s %s", int_type(f->size, sign), f->name);
	}
	fprintf(out, ";\toffset:%u;\tsize:%u;\tsigned:%d;\n", f->offset, f->size, sign);
}

/* Whether values has names for non-negative values only, which __print_symbolic() matches. */
static bool symbolic(const struct ttrace_values *values)
{
	for (uint32_t i = 0; values && i < values->n; i++) {
		if (values->v[i].value < 0) {
			return false;
		}
	}
	return values && values->n;
}

/* The print fmt's conversion for f, after "name=". */
static const char *conversion(const struct tdat_field *f)
{
	bool wide = f->size == 8;

	if (f->type == TFIELD_TEXT || f->type == TFIELD_BYTES || symbolic(f->values)) {
		return "%s";
	}
	if (f->type == TFIELD_HEX) {
		return wide ? "0x%llx" : "0x%x";
	}
	if (f->type == TFIELD_SIGNED) {
		return wide ? "%lld" : "%d";
	}
	return wide ? "%llu" : "%u";
}

/* The print fmt's argument for f. */
static void argument(FILE *out, const struct tdat_field *f)
{
	if (f->type == TFIELD_TEXT) {
		fprintf(out, ", __get_str(%s)", f->name);
	} else if (f->type == TFIELD_BYTES && f->src != TDAT_SRC_COMM) {
		fprintf(out, ", __print_hex(REC->%s, %u)", f->name, f->size);
	} else if (symbolic(f->values)) {
		fprintf(out, ", __print_symbolic(REC->%s", f->name);
		for (uint32_t i = 0; i < f->values->n; i++) {
			fprintf(out, ", { %lld, \"%s\" }", (long long)f->values->v[i].value,
				f->values->v[i].name);
		}
		fputc(')', out);
	} else {
		fprintf(out, ", REC->%s", f->name);
	}
}

static void format_text(FILE *out, const struct tdat_class *c)
{
	fprintf(out, "name: %s\nID: %u\nformat:\n", c->name, c->id);
	fputs("\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	      "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	      "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	      "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n",
	      out);
	for (size_t i = 0; i < c->n; i++) {
		field_line(out, &c->f[i]);
	}
	fputs("\nprint fmt: \"", out);
	for (size_t i = 0; i < c->n; i++) {
		fprintf(out, "%s%s=%s", i ? " " : "", c->f[i].name, conversion(&c->f[i]));
	}
	fputc('"', out);
	for (size_t i = 0; i < c->n; i++) {
		argument(out, &c->f[i]);
	}
	fputc('\n', out);
}

/* Class c's format file, its size first. Returns 0 or -ENOMEM. */
static int format_file(FILE *out, const struct tdat_class *c)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	if (!mem) {
		return -ENOMEM;
	}
	format_text(mem, c);
	if (fclose(mem)) {
		free(text);
		return -ENOMEM;
	}
	tdat_put(out, len, 8);
	fwrite(text, 1, len, out);
	free(text);
	return 0;
}

static uint32_t count(const struct tdat_classes *cs, const char *system)
{
	uint32_t n = 0;

	for (size_t i = 0; i < cs->n; i++) {
		n += !strcmp(cs->c[i].system, system);
	}
	return n;
}

int tdat_formats_write(const struct tdat_classes *cs, FILE *out)
{
	uint32_t nsystems = 0;

	for (size_t s = 0; s < sizeof(systems) / sizeof(systems[0]); s++) {
		nsystems += count(cs, systems[s]) > 0;
	}
	tdat_put(out, nsystems, 4);
	for (size_t s = 0; s < sizeof(systems) / sizeof(systems[0]); s++) {
		uint32_t n = count(cs, systems[s]);
		if (!n) {
			continue;
		}
		fwrite(systems[s], 1, strlen(systems[s]) + 1, out);
		tdat_put(out, n, 4);
		for (size_t i = 0; i < cs->n; i++) {
			if (!strcmp(cs->c[i].system, systems[s]) && format_file(out, &cs->c[i])) {
				return -ENOMEM;
			}
		}
	}
	return ferror(out) ? -EIO : 0;
}
