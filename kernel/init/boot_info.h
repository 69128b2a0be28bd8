/*
 * boot_info: what the kernel keeps of the Multiboot2 information. Parsing
 * copies everything it needs, so the loader's memory can be reused.
 */
#ifndef SPOOR_INIT_BOOT_INFO_H
#define SPOOR_INIT_BOOT_INFO_H

#include <stdint.h>

#define BOOT_CMDLINE_MAX     1024
#define BOOT_MMAP_MAX	     64
#define BOOT_MODULES_MAX     32
#define BOOT_MODULE_NAME_MAX 64
#define BOOT_RSDP_MAX	     36

#define BOOT_MEM_USABLE 1 /* Multiboot2 memory map type for available RAM */

struct boot_mmap_entry {
	uint64_t base;
	uint64_t length;
	uint32_t type;
};

struct boot_module {
	char name[BOOT_MODULE_NAME_MAX]; /* the module2 string: a program's name */
	uint64_t start;			 /* physical, inclusive */
	uint64_t end;			 /* physical, exclusive */
};

struct boot_info {
	char cmdline[BOOT_CMDLINE_MAX];
	uint32_t nmmap;
	struct boot_mmap_entry mmap[BOOT_MMAP_MAX];
	uint32_t nmodules;
	struct boot_module modules[BOOT_MODULES_MAX];
	uint8_t rsdp[BOOT_RSDP_MAX];
	uint32_t rsdp_len;
};

extern struct boot_info boot_info;

/*
 * Copies the cmdline, memory map, modules and RSDP out of the Multiboot2
 * information at physical address mb2 (which must lie in the early map).
 * Panics on a malformed structure or a missing memory map.
 */
void multiboot2_parse(uint64_t mb2);

#endif
