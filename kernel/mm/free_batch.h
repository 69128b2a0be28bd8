/*
 * free_batch: what a teardown lets go of, gathered so that it goes back a
 * batch at a time: frame references (pmm_frames_unref) and kernel heap
 * blocks (kfree_batch). A space of thousands of pages and records, freed
 * one at a time, takes the frame allocator's and the heap's locks once a
 * page or record; with several teardowns at once, and a host that does
 * not run every vCPU, each taking may wait for the host to run the vCPU
 * that holds the lock (issue 31). Gathered, each lock is taken once a
 * batch, and held for a batch's work only.
 *
 * A batch lives on its user's stack and belongs to one thread: no lock.
 * What it holds is let go of when it is full, and by free_batch_flush(),
 * which its user calls before it is gone; until then the frames keep
 * their references and the blocks their charges. Holding no lock, it may
 * be kept across preemption points (sched.h).
 */
#ifndef SPOOR_MM_FREE_BATCH_H
#define SPOOR_MM_FREE_BATCH_H

#include <stdint.h>

#include "mm/heap.h"
#include "mm/pmm.h"

struct free_batch {
	uint64_t frames[PMM_FREE_BATCH]; /* physical addresses, a reference to each */
	void *blocks[KFREE_BATCH_MAX];	 /* heap blocks */
	uint32_t nframes;
	uint32_t nblocks;
};

#define FREE_BATCH_INIT                                                                            \
	{                                                                                          \
		.nframes = 0, .nblocks = 0                                                         \
	}

/* Drops the reference to the frame at pa along with the batch's others (pmm_frame_unref). */
void free_batch_unref(struct free_batch *b, uint64_t pa);

/* kfree()s block along with the batch's others. */
void free_batch_kfree(struct free_batch *b, void *block);

/* Lets go of everything b holds, leaving it empty. */
void free_batch_flush(struct free_batch *b);

#endif
