/*
 * uvm: user virtual memory. A process's memory is a sorted list of
 * regions over its address space:
 *
 *   anonymous  demand-paged: a page read before it is written maps the
 *              shared zero page read-only, the first write gives it a
 *              zeroed frame of its own. Pages may also start out shared
 *              (a program's segments, a copy-on-write copy): a writable
 *              region maps shared frames read-only, and the first write
 *              gives the page its own copy.
 *   frame      a frame object (memobj) mapped whole, shared, never copied.
 *
 * The page tables hold every region's prot: a PROT_NONE page is not
 * present to the CPU at all, but keeps its frame for a later protect.
 *
 * Every operation takes the vm's mutex (it may wait for TLB shootdowns);
 * user copies must not be made while holding it, since they may fault.
 */
#ifndef SPOOR_MM_UVM_H
#define SPOOR_MM_UVM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/list.h"
#include "mm/vmm.h"
#include "sched/wait.h"

struct memobj;
struct mem_account;

struct vm {
	struct addr_space as;
	struct mutex lock;
	struct list regions; /* [lock] sorted by start, never overlapping */
	uint64_t rss_pages;  /* [a] user pages mapped */
};

/*
 * An empty address space whose pages, page tables and regions are charged
 * to acct (account.h; the caller keeps it alive). 0 or -ENOMEM.
 */
int uvm_init(struct vm *vm, struct mem_account *acct);

/*
 * Unmaps everything and frees the page tables; the vm must not be active
 * anywhere, nor be loaded again. Takes time in proportion to the space,
 * with preemption points (sched.h): no spinlock held, interrupts on.
 */
void uvm_destroy(struct vm *vm);

/*
 * A new anonymous region of len bytes (rounded up to pages) with prot
 * (PROT_* of abi/mem.h), at addr (page aligned) or, for addr 0, wherever
 * it fits between USER_MAP_BASE and USER_MAP_END. Returns the address in
 * *out. -EINVAL, -EEXIST (overlaps), -ENOMEM.
 */
int uvm_map_anon(struct vm *vm, uint64_t addr, uint64_t len, uint32_t prot, uint64_t *out);

/*
 * Like uvm_map_anon, with the first nframes pages backed by shared frames
 * (each gets a new reference), as a program's segment is.
 */
int uvm_map_shared(struct vm *vm, uint64_t addr, uint64_t len, uint32_t prot,
		   const uint64_t *frames, uint64_t nframes);

/* Maps the whole object; max_prot bounds prot now and in later protects. */
int uvm_map_frame(struct vm *vm, struct memobj *obj, uint64_t addr, uint32_t prot,
		  uint32_t max_prot, uint64_t *out);

/* Removes every mapping in [addr, addr + len). -EINVAL for a bad range. */
int uvm_unmap(struct vm *vm, uint64_t addr, uint64_t len);

/* Sets prot on [addr, addr + len), which must be fully mapped. -EINVAL, -EFAULT, -EACCES. */
int uvm_protect(struct vm *vm, uint64_t addr, uint64_t len, uint32_t prot);

/*
 * A copy-on-write copy of [addr, addr + len), which must lie in one
 * anonymous region: a new region at a free address sharing every present
 * page with the source until either side writes. -EINVAL, -EFAULT, -ENOMEM.
 */
int uvm_cow_copy(struct vm *vm, uint64_t addr, uint64_t len, uint64_t *out);

/* What went wrong with a fault that uvm_fault() could not resolve. */
struct uvm_fault_info {
	const char *what; /* "page fault", "stack overflow", ...: why it was refused */
	uint32_t outcome; /* TTRACE_PF_MAPPED or TTRACE_PF_COW: what resolving it did */
	bool no_memory;	  /* legal, but no frame could be had for it */
};

#define FAULT_WRITE (1u << 0)
#define FAULT_EXEC  (1u << 1)

/*
 * Resolves a fault at addr (demand paging, copy on write). 0 when the
 * access may be retried, -EFAULT (with *info filled) when it is illegal.
 */
int uvm_fault(struct vm *vm, uint64_t addr, unsigned access, struct uvm_fault_info *info);

/*
 * Commits [addr, addr + len), which must be mapped writable: every page
 * gets its own frame now, so touching it later never needs memory. 0,
 * -EINVAL, -EFAULT (a page not mapped writable), or -ENOMEM (the pages
 * committed so far stay).
 */
int uvm_populate(struct vm *vm, uint64_t addr, uint64_t len);

/*
 * Writes len bytes into vm at addr, from the kernel, without vm being
 * active (for setting up a new process's stack). 0 or -EFAULT/-ENOMEM.
 */
int uvm_write(struct vm *vm, uint64_t addr, const void *src, size_t len);

#endif
