/*
 * memprot: what the cases share (the helpers are memprot.c's), and the
 * cases themselves (protect.c, zero.c), which main.c lists.
 */
#ifndef MEMPROT_H
#define MEMPROT_H

#include <stdint.h>

#define PAGE	       PAGE_SIZE_USER
#define WORDS_PER_PAGE (PAGE / sizeof(uint64_t))
#define MIB	       (1024ull * 1024)

/* Hides v from the optimiser, so that a load it feeds cannot be folded or dropped. */
#define OPAQUE(v) __asm__ volatile("" : "+r"(v))

/* The machine's free frames now (sys_info). */
uint64_t frames_free(void);

/* Maps pages pages of anonymous memory with prot; prints why and returns NULL if it cannot. */
uint64_t *map_anon(const char *c, uint64_t pages, uint32_t prot);

/* Each case: its argument (or NULL), and 0 when every check held, 1 otherwise. */
int none_read(const char *arg);
int none_cpus(const char *arg);
int none_kernel(const char *arg);
int none_restore(const char *arg);
int frame_rights(const char *arg);
int frame_none(const char *arg);
int zero_console(const char *arg);
int zero_cpu(const char *arg);
int zero_cow(const char *arg);

#endif
