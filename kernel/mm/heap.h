/*
 * heap: kmalloc and kfree for kernel objects. Small blocks come from
 * power-of-two size classes carved out of frames; large ones are whole
 * runs of frames. Any CPU, any context, never blocks. Memory is reached
 * through the direct map, so it is usable as soon as pmm_init() has run.
 */
#ifndef SPOOR_MM_HEAP_H
#define SPOOR_MM_HEAP_H

#include <stddef.h>

/* Returns 16-byte aligned memory, or NULL when out of memory or size is 0. */
void *kmalloc(size_t size);

/* kmalloc, zero-filled. */
void *kzalloc(size_t size);

/* Frees a kmalloc() block; NULL is ignored, a corrupt or double free panics. */
void kfree(void *p);

#endif
