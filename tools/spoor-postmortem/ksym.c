/*
 * ksym: a kernel variable's physical address (ksym.h).
 */
#include "tools/spoor-postmortem/ksym.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <string.h>
#include <unistd.h>

#include "tools/spoor-postmortem/why.h"

/* The value of the object symbol name in elf; 0, or -1 if it has none of 8 bytes. */
static int find_symbol(Elf *elf, const char *name, uint64_t *vaddr)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize ||
		    !(data = elf_getdata(scn, NULL))) {
			continue;
		}
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *s;
			if (gelf_getsym(data, (int)i, &sym) &&
			    GELF_ST_TYPE(sym.st_info) == STT_OBJECT &&
			    sym.st_size == sizeof(uint64_t) &&
			    (s = elf_strptr(elf, sh.sh_link, sym.st_name)) && !strcmp(s, name)) {
				*vaddr = sym.st_value;
				return 0;
			}
		}
	}
	return -1;
}

/* The physical address of vaddr by the PT_LOAD holding its 8 bytes; 0, or -1 if none does. */
static int to_phys(Elf *elf, uint64_t vaddr, uint64_t *paddr)
{
	size_t n;

	if (elf_getphdrnum(elf, &n)) {
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && vaddr >= ph.p_vaddr &&
		    ph.p_memsz >= sizeof(uint64_t) &&
		    vaddr - ph.p_vaddr <= ph.p_memsz - sizeof(uint64_t)) {
			*paddr = ph.p_paddr + (vaddr - ph.p_vaddr);
			return 0;
		}
	}
	return -1;
}

int ksym_phys(const char *path, const char *name, uint64_t *paddr, char *why, size_t why_size)
{
	uint64_t vaddr;
	int rc = -1;

	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		return why_fail(why, why_size, "cannot open %s: %s", path, strerror(errno));
	}
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		why_fail(why, why_size, "%s is not an ELF file", path);
	} else if (find_symbol(elf, name, &vaddr)) {
		why_fail(why, why_size, "%s has no 8-byte variable %s: not Spoor's kernel.elf",
			 path, name);
	} else if (to_phys(elf, vaddr, paddr)) {
		why_fail(why, why_size, "%s: no loaded segment holds %s", path, name);
	} else {
		rc = 0;
	}
	elf_end(elf);
	close(fd);
	return rc;
}
