/*
 * ksym: where a variable of the kernel lies in physical memory, from
 * kernel.elf's symbol table and program headers (elfutils' libelf). The
 * kernel is linked in the higher half but loaded low (kernel.ld): a
 * PT_LOAD's p_vaddr and p_paddr give the translation, so nothing here
 * knows KERNEL_VMA. The post-mortem reader finds the trace area through
 * the kernel's own record of it (TTRACE_AREA_SYMBOL), never by a guess a
 * program could forge.
 */
#ifndef SPOOR_TOOLS_POSTMORTEM_KSYM_H
#define SPOOR_TOOLS_POSTMORTEM_KSYM_H

#include <stddef.h>
#include <stdint.h>

/* The kernel's uint64_t holding the trace area's physical address (kernel/trace/ktrace.h). */
#define TTRACE_AREA_SYMBOL "ttrace_area_phys"

/*
 * Sets *paddr to the physical address of the 8-byte object called name in
 * the ELF file at path. 0, or -1 with why set (no such file, not an ELF
 * file, no such symbol, or one no PT_LOAD holds).
 */
int ksym_phys(const char *path, const char *name, uint64_t *paddr, char *why, size_t why_size);

#endif
