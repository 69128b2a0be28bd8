/*
 * loader: ELF64 checks (System V gABI and the x86-64 psABI) and templates.
 * A module that is not a well-formed static x86-64 executable, or whose
 * segments stray outside the program area or share a page, is refused
 * with one line naming the problem.
 */
#include "proc/loader.h"

#include <stddef.h>

#include "abi/errno.h"
#include "abi/mem.h"
#include "abi/proc.h"
#include "common/format.h"
#include "init/boot_info.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "mm/memlayout.h"
#include "mm/pmm.h"
#include "mm/uvm.h"

#define ELF_MAGIC    "\177ELF"
#define ELFCLASS64   2
#define ELFDATA2LSB  1
#define ET_EXEC	     2
#define EM_X86_64    62
#define PT_LOAD	     1
#define PF_X	     1
#define PF_W	     2
#define PF_R	     4
#define PROGRAM_BASE 0x10000 /* nothing maps below: null pointers fault */
#define MAX_SEGMENTS 8

struct elf64_ehdr {
	uint8_t ident[16];
	uint16_t type;
	uint16_t machine;
	uint32_t version;
	uint64_t entry;
	uint64_t phoff;
	uint64_t shoff;
	uint32_t flags;
	uint16_t ehsize;
	uint16_t phentsize;
	uint16_t phnum;
	uint16_t shentsize;
	uint16_t shnum;
	uint16_t shstrndx;
};

struct elf64_phdr {
	uint32_t type;
	uint32_t flags;
	uint64_t offset;
	uint64_t vaddr;
	uint64_t paddr;
	uint64_t filesz;
	uint64_t memsz;
	uint64_t align;
};

_Static_assert(sizeof(struct elf64_ehdr) == 64, "ELF64 header");
_Static_assert(sizeof(struct elf64_phdr) == 56, "ELF64 program header");

struct segment {
	uint64_t start;	  /* page aligned */
	uint64_t len;	  /* page multiple */
	uint32_t prot;	  /* PROT_* */
	uint64_t nframes; /* template pages (the file part); the rest is zero-fill */
	uint64_t *frames;
};

struct program {
	char name[BOOT_MODULE_NAME_MAX];
	uint32_t flags; /* PROGRAM_* (abi/proc.h) */
	uint64_t entry;
	uint32_t nsegs;
	struct segment segs[MAX_SEGMENTS];
};

static struct program programs[BOOT_MODULES_MAX];
static uint32_t nprograms;

static const char *check_segment(const struct elf64_phdr *ph, uint64_t size)
{
	if (ph->filesz > ph->memsz) {
		return "segment file size exceeds memory size";
	}
	if (ph->offset > size || ph->filesz > size - ph->offset) {
		return "segment data beyond the end of the file";
	}
	if (ph->vaddr % PAGE_SIZE != ph->offset % PAGE_SIZE) {
		return "segment offset and address disagree modulo the page size";
	}
	if (ph->vaddr < PROGRAM_BASE || ph->memsz > USER_MAP_BASE ||
	    ph->vaddr > USER_MAP_BASE - ph->memsz) {
		return "segment outside the program area";
	}
	if (ph->flags & ~(PF_R | PF_W | PF_X)) {
		return "unknown segment flags";
	}
	return NULL;
}

static uint32_t prot_of(uint32_t pflags)
{
	return (pflags & PF_R ? PROT_READ : 0) | (pflags & PF_W ? PROT_WRITE : 0) |
	       (pflags & PF_X ? PROT_EXEC : 0);
}

/* Copies the file part of a segment into fresh frames. */
static int make_template(struct segment *s, const uint8_t *image, const struct elf64_phdr *ph)
{
	uint64_t file_end = PAGE_ALIGN_UP(ph->vaddr + ph->filesz);

	s->nframes = (file_end - s->start) / PAGE_SIZE;
	if (!s->nframes) {
		return 0;
	}
	s->frames = kzalloc(s->nframes * sizeof(uint64_t));
	if (!s->frames) {
		return -ENOMEM;
	}
	for (uint64_t i = 0; i < s->nframes; i++) {
		if (pmm_alloc_frames(1, &s->frames[i])) {
			s->frames[i] = 0;
			return -ENOMEM;
		}
		uint8_t *page = phys_to_virt(s->frames[i]);
		uint64_t va = s->start + i * PAGE_SIZE;
		memset(page, 0, PAGE_SIZE);
		for (uint64_t b = 0; b < PAGE_SIZE; b++) {
			if (va + b >= ph->vaddr && va + b < ph->vaddr + ph->filesz) {
				page[b] = image[ph->offset + (va + b - ph->vaddr)];
			}
		}
	}
	return 0;
}

/* Gives back the templates of a program that was refused. */
static void free_templates(struct program *prog)
{
	for (uint32_t i = 0; i < prog->nsegs; i++) {
		struct segment *s = &prog->segs[i];
		for (uint64_t f = 0; s->frames && f < s->nframes && s->frames[f]; f++) {
			pmm_frame_unref(s->frames[f]);
		}
		kfree(s->frames);
	}
}

static const char *load(struct program *prog, const uint8_t *image, uint64_t size)
{
	const struct elf64_ehdr *eh = (const struct elf64_ehdr *)image;

	if (size < sizeof(*eh) || memcmp(eh->ident, ELF_MAGIC, 4)) {
		return "not an ELF file";
	}
	if (eh->ident[4] != ELFCLASS64 || eh->ident[5] != ELFDATA2LSB || eh->type != ET_EXEC ||
	    eh->machine != EM_X86_64) {
		return "not a 64-bit little-endian x86-64 executable";
	}
	if (eh->phentsize != sizeof(struct elf64_phdr) || eh->phoff > size ||
	    (uint64_t)eh->phnum * sizeof(struct elf64_phdr) > size - eh->phoff) {
		return "program header table out of bounds";
	}
	const struct elf64_phdr *phdrs = (const struct elf64_phdr *)(image + eh->phoff);
	uint64_t last_end = 0;
	bool entry_ok = false;
	for (uint16_t i = 0; i < eh->phnum; i++) {
		const struct elf64_phdr *ph = &phdrs[i];
		if (ph->type != PT_LOAD || !ph->memsz) {
			continue;
		}
		const char *why = check_segment(ph, size);
		if (why) {
			return why;
		}
		if (prog->nsegs == MAX_SEGMENTS) {
			return "too many segments";
		}
		struct segment *s = &prog->segs[prog->nsegs++];
		s->start = PAGE_ALIGN_DOWN(ph->vaddr);
		s->len = PAGE_ALIGN_UP(ph->vaddr + ph->memsz) - s->start;
		s->prot = prot_of(ph->flags);
		if (s->start < last_end) {
			return "segments overlap or share a page, or are out of order";
		}
		last_end = s->start + s->len;
		if (eh->entry >= ph->vaddr && eh->entry < ph->vaddr + ph->memsz &&
		    ph->flags & PF_X) {
			entry_ok = true;
		}
		if (make_template(s, image, ph)) {
			return "out of memory";
		}
	}
	if (!prog->nsegs) {
		return "no loadable segment";
	}
	if (!entry_ok) {
		return "entry point outside the executable segments";
	}
	prog->entry = eh->entry;
	return NULL;
}

/*
 * Splits a module string into the program's name and its attributes.
 * Returns NULL, or why the string is refused.
 */
static const char *parse_module_string(const char *s, struct program *prog)
{
	size_t n = 0;

	while (s[n] && s[n] != ' ') {
		prog->name[n] = s[n];
		n++;
	}
	prog->name[n] = '\0';
	if (!n) {
		return "no name";
	}
	if (n >= PROC_NAME_MAX) {
		return "name too long";
	}
	while (s[n]) {
		while (s[n] == ' ') {
			n++;
		}
		size_t start = n;
		while (s[n] && s[n] != ' ') {
			n++;
		}
		if (n - start == 6 && !strncmp(s + start, "server", 6)) {
			prog->flags |= PROGRAM_SERVER;
		} else if (n > start) {
			return "unknown attribute (known: server)";
		}
	}
	return NULL;
}

void loader_init(void)
{
	char names[256];
	int len = 0;

	names[0] = '\0';
	for (uint32_t i = 0; i < boot_info.nmodules; i++) {
		const struct boot_module *m = &boot_info.modules[i];
		struct program *prog = &programs[nprograms];
		memset(prog, 0, sizeof(*prog));
		const char *why = parse_module_string(m->name, prog);
		if (!why && loader_find(prog->name)) {
			why = "another module has that name";
		}
		if (!why) {
			why = load(prog, phys_to_virt(m->start), m->end - m->start);
		}
		if (why) {
			printk("loader: module '%s' refused: %s\n", m->name, why);
			free_templates(prog);
			continue;
		}
		nprograms++;
		if (len < (int)sizeof(names)) {
			len += format_snprintf(names + len, sizeof(names) - (size_t)len, " %s",
					       prog->name);
		}
	}
	printk("programs:%s\n", names);
}

const struct program *loader_find(const char *name)
{
	for (uint32_t i = 0; i < nprograms; i++) {
		if (!strcmp(programs[i].name, name)) {
			return &programs[i];
		}
	}
	return NULL;
}

uint32_t loader_list(struct program_info *out, uint32_t max)
{
	uint32_t n = 0;

	for (; n < nprograms && n < max; n++) {
		memset(&out[n], 0, sizeof(out[n]));
		memcpy(out[n].name, programs[n].name, PROC_NAME_MAX);
		out[n].flags = programs[n].flags;
	}
	return n;
}

int loader_map(const struct program *prog, struct vm *vm, uint64_t *entry)
{
	for (uint32_t i = 0; i < prog->nsegs; i++) {
		const struct segment *s = &prog->segs[i];
		int err = uvm_map_shared(vm, s->start, s->len, s->prot, s->frames, s->nframes);
		if (err) {
			return err;
		}
	}
	*entry = prog->entry;
	return 0;
}

int loader_commit(const struct program *prog, struct vm *vm)
{
	int err = 0;

	for (uint32_t i = 0; !err && i < prog->nsegs; i++) {
		if (prog->segs[i].prot & PROT_WRITE) {
			err = uvm_populate(vm, prog->segs[i].start, prog->segs[i].len);
		}
	}
	return err;
}
