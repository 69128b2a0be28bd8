/*
 * free_batch: gathering frame references and heap blocks to let go of a
 * batch at a time (see free_batch.h).
 */
#include "mm/free_batch.h"

void free_batch_unref(struct free_batch *b, uint64_t pa)
{
	b->frames[b->nframes++] = pa;
	if (b->nframes == PMM_FREE_BATCH) {
		pmm_frames_unref(b->frames, b->nframes);
		b->nframes = 0;
	}
}

void free_batch_kfree(struct free_batch *b, void *block)
{
	b->blocks[b->nblocks++] = block;
	if (b->nblocks == KFREE_BATCH_MAX) {
		kfree_batch(b->blocks, b->nblocks);
		b->nblocks = 0;
	}
}

void free_batch_flush(struct free_batch *b)
{
	pmm_frames_unref(b->frames, b->nframes);
	kfree_batch(b->blocks, b->nblocks);
	b->nframes = 0;
	b->nblocks = 0;
}
