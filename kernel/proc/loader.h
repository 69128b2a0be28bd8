/*
 * loader: the programs GRUB loaded as Multiboot2 modules. At boot each
 * module is checked as an ELF64 executable and its segments are copied
 * once into template frames; every process started from it maps those
 * frames, read-only ones shared for good, writable ones copy-on-write, so
 * two instances share their data until one of them writes.
 */
#ifndef SPOOR_PROC_LOADER_H
#define SPOOR_PROC_LOADER_H

#include <stdint.h>

struct program;
struct vm;

/* Boot CPU, once: loads every module; prints the programs found. */
void loader_init(void);

/* The program named name, or NULL. */
const struct program *loader_find(const char *name);

struct program_info;

/* Fills up to max records about the programs; returns how many. */
uint32_t loader_list(struct program_info *out, uint32_t max);

/* Maps the program's segments into vm; returns its entry point in *entry. */
int loader_map(const struct program *prog, struct vm *vm, uint64_t *entry);

/*
 * Gives every page of the program's writable segments, mapped in vm, a
 * frame of its own now (uvm_populate): 0 or -ENOMEM.
 */
int loader_commit(const struct program *prog, struct vm *vm);

#endif
