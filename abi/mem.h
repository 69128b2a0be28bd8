/*
 * Memory syscalls' flags. Lengths are rounded up to whole pages; addresses
 * must be page aligned.
 */
#ifndef SPOOR_ABI_MEM_H
#define SPOOR_ABI_MEM_H

#define PAGE_SIZE_USER 4096

#define PROT_NONE  0u /* mapped but inaccessible: a guard */
#define PROT_READ  (1u << 0)
#define PROT_WRITE (1u << 1)
#define PROT_EXEC  (1u << 2)

/* Where user space may map: below it is the program image, above it nothing. */
#define USER_MAP_BASE	0x0000100000000000ull
#define USER_MAP_END	0x00007f0000000000ull
#define USER_STACK_TOP	0x00007ff000000000ull
#define USER_STACK_SIZE (256 * 1024)

#endif
