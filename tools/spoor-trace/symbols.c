/*
 * symbols: see symbols.h. One Dwfl session per ELF file, reported
 * offline: the kernel and the programs are linked at fixed addresses
 * (ET_EXEC), so an event's address is the file's address.
 */
#include "tools/spoor-trace/symbols.h"

#include <elfutils/libdwfl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MODULES_MAX 64 /* programs kept open: more than a trace names */

struct module {
	char name[TTRACE_COMM_MAX]; /* "kernel" or the program's */
	Dwfl *dwfl;		    /* NULL: no file for it */
};

struct symbols {
	char build[PATH_MAX];
	struct module mod[MODULES_MAX];
	size_t n;
};

static const Dwfl_Callbacks offline = {
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

struct symbols *symbols_open(const char *build_dir)
{
	struct symbols *s = calloc(1, sizeof(*s));
	char exe[PATH_MAX];
	ssize_t len;

	if (!s) {
		return NULL;
	}
	if (!build_dir) {
		build_dir = getenv("SPOOR_BUILD");
	}
	if (build_dir) {
		snprintf(s->build, sizeof(s->build), "%s", build_dir);
	} else if ((len = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) > 0) {
		exe[len] = 0;
		/* build/host/spoor-trace: the build is two folders up */
		for (int up = 0; up < 2; up++) {
			char *slash = strrchr(exe, '/');
			if (slash) {
				*slash = 0;
			}
		}
		snprintf(s->build, sizeof(s->build), "%s", exe);
	} else {
		snprintf(s->build, sizeof(s->build), "build");
	}
	return s;
}

void symbols_close(struct symbols *s)
{
	if (!s) {
		return;
	}
	for (size_t i = 0; i < s->n; i++) {
		if (s->mod[i].dwfl) {
			dwfl_end(s->mod[i].dwfl);
		}
	}
	free(s);
}

/* A Dwfl session for the ELF file at path, or NULL if it cannot be read. */
static Dwfl *open_elf(const char *path)
{
	if (access(path, R_OK)) {
		return NULL;
	}
	Dwfl *d = dwfl_begin(&offline);
	if (!d) {
		return NULL;
	}
	if (!dwfl_report_offline(d, "", path, -1) || dwfl_report_end(d, NULL, NULL)) {
		dwfl_end(d);
		return NULL;
	}
	return d;
}

/* The module of name, opened on first use; NULL when the table is full. */
static struct module *module(struct symbols *s, const char *name, bool kernel)
{
	char path[PATH_MAX + 64];

	for (size_t i = 0; i < s->n; i++) {
		if (!strcmp(s->mod[i].name, name)) {
			return &s->mod[i];
		}
	}
	if (s->n == MODULES_MAX) {
		return NULL;
	}
	struct module *m = &s->mod[s->n++];
	snprintf(m->name, sizeof(m->name), "%s", name);
	if (kernel) {
		snprintf(path, sizeof(path), "%s/kernel.elf", s->build);
		m->dwfl = open_elf(path);
		return m;
	}
	/* a name with a slash or a dot path is no program of the build */
	if (strchr(name, '/') || name[0] == '.' || !name[0]) {
		return m;
	}
	snprintf(path, sizeof(path), "%s/bin/%s", s->build, name);
	m->dwfl = open_elf(path);
	if (!m->dwfl) {
		snprintf(path, sizeof(path), "%s/tests/bin/%s", s->build, name);
		m->dwfl = open_elf(path);
	}
	return m;
}

bool symbols_lookup(struct symbols *s, const struct ttrace_frame *f, struct symbol *out)
{
	struct module *m = module(s, f->kernel ? "kernel" : f->comm, f->kernel);
	GElf_Off off;
	GElf_Sym sym;
	int line = 0;

	*out = (struct symbol){0};
	if (!m || !m->dwfl) {
		return false;
	}
	/* a return address: the call it returns from is the instruction before it */
	Dwarf_Addr where = f->ret && f->addr ? f->addr - 1 : f->addr;
	Dwfl_Module *mod = dwfl_addrmodule(m->dwfl, where);
	if (!mod) {
		return false;
	}
	const char *name = dwfl_module_addrinfo(mod, where, &off, &sym, NULL, NULL, NULL);
	if (!name) {
		return false;
	}
	out->function = name;
	out->offset = f->addr - (where - off);
	Dwfl_Line *l = dwfl_module_getsrc(mod, where);
	const char *file = l ? dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL) : NULL;
	if (file) {
		const char *base = strrchr(file, '/');
		out->file = base ? base + 1 : file;
		out->line = line;
	}
	return true;
}

bool symbols_format(void *ctx, const struct ttrace_frame *f, char *buf, size_t size)
{
	struct symbol sym;

	if (!symbols_lookup(ctx, f, &sym)) {
		return false;
	}
	if (sym.file) {
		snprintf(buf, size, "%s+0x%llx (%s:%d)", sym.function,
			 (unsigned long long)sym.offset, sym.file, sym.line);
	} else {
		snprintf(buf, size, "%s+0x%llx", sym.function, (unsigned long long)sym.offset);
	}
	return true;
}
