/*
 * pmm: the physical frame allocator. Fed once from the boot memory map,
 * then hands out 4 KiB frames, singly or as contiguous runs. All functions
 * may be called from any CPU and from interrupt context; none blocks.
 */
#ifndef SPOOR_MM_PMM_H
#define SPOOR_MM_PMM_H

#include <stdint.h>

struct boot_info;
struct mem_account;

/*
 * Builds the frame map: RAM the firmware calls usable, minus the first
 * MiB, the kernel image and the boot modules. Panics when there is less
 * than PMM_MIN_MEMORY_MIB of usable memory, with a message saying so.
 */
void pmm_init(const struct boot_info *bi);

#define PMM_MIN_MEMORY_MIB 32

/*
 * The reserve: the last 1/PMM_RESERVE_SHARE of the frames, which only the
 * kernel and the accounts allowed to (account.h: init, the servers it
 * keeps) may take, so that no tree, nor all of them together, can leave
 * those without memory.
 */
#define PMM_RESERVE_SHARE 16
/*
 * Frames freed under one hold of the lock: a CPU freeing thousands (a
 * teardown) hands the lock to the other CPUs once for so many, and each
 * handover may wait for the host to run the vCPU that holds it (issue 31).
 */
#define PMM_FREE_BATCH 64

/*
 * Allocates count contiguous frames, each with one reference; 0 or
 * -ENOMEM. Contents undefined.
 */
int pmm_alloc_frames(uint64_t count, uint64_t *phys);

/*
 * pmm_alloc_frames, charged to a (NULL: the kernel's own): each frame is
 * uncharged from a when it is freed, whoever frees it. -ENOMEM past a's
 * limit, or when only the reserve is left and a may not use it.
 */
int pmm_alloc_charged(struct mem_account *a, uint64_t count, uint64_t *phys);

/*
 * n single frames (not contiguous) for a memory object, charged to a as
 * pmm_alloc_charged() charges, into phys[0..n): all of them or, with
 * -ENOMEM, none. They are taken under one hold of the allocator's lock,
 * so a large object costs one lock handover, not one a frame: CPUs that
 * make objects at once then take turns per object.
 */
int pmm_alloc_pages(struct mem_account *a, uint64_t n, uint64_t *phys);

/*
 * pmm_alloc_frames, uncharged, for something the kernel makes on behalf of
 * a (a slab for its heap blocks, a record it does not charge): -ENOMEM
 * when only the reserve is left and a may not use it, so that no tree can
 * reach the reserve through the kernel.
 */
int pmm_alloc_frames_for(const struct mem_account *a, uint64_t count, uint64_t *phys);

/* Frees what pmm_alloc_frames() returned; a double free panics. */
void pmm_free_frames(uint64_t phys, uint64_t count);

/*
 * Frees n single frames, each what a pmm_alloc_frames() of 1 returned,
 * PMM_FREE_BATCH under one hold of the lock; a double free panics.
 */
void pmm_free_pages(const uint64_t *phys, uint64_t n);

/*
 * Reference counts, for frames mapped into user space: ref adds one,
 * unref drops one and frees the frame with the last. Both panic on a free
 * frame (a kernel bug). Device memory is not counted: ref and unref do
 * nothing to it, and refs says 1.
 */
void pmm_frame_ref(uint64_t phys);
void pmm_frame_unref(uint64_t phys);
uint32_t pmm_frame_refs(uint64_t phys);

/*
 * pmm_frame_unref() of phys[0..n): the frames whose last reference goes
 * are freed PMM_FREE_BATCH under one hold of the lock, and uncharged one
 * account_uncharge_many() a run of frames of one account. Any context,
 * never blocks; the lock is held for a batch at a time, never for all n.
 */
void pmm_frames_unref(const uint64_t *phys, uint64_t n);

/*
 * Declares npages of device memory from phys (boot only, before it is
 * mapped): frames outside RAM that frame objects may wrap and user space
 * map. 0, -EINVAL if they overlap usable RAM or are not page aligned, or
 * -ENOSPC when the table of device ranges is full.
 */
int pmm_add_device_memory(uint64_t phys, uint64_t npages);

uint64_t pmm_free_count(void);
uint64_t pmm_total_count(void);	  /* frames of usable RAM the map manages */
uint64_t pmm_reserve_count(void); /* frames kept back (PMM_RESERVE_SHARE) */
uint64_t pmm_usable_bytes(void);  /* usable RAM in the firmware's map */
uint64_t pmm_phys_limit(void);	  /* end of the highest usable RAM */

/*
 * Times the allocator's lock was taken since boot (sys_info): what freeing
 * and allocating cost the other CPUs, which a teardown must take once a
 * batch of frames, not once a frame (issue 31).
 */
uint64_t pmm_lock_takings(void);

#endif
