/*
 * uvm: regions and page faults (see uvm.h).
 *
 * Write permission is granted lazily: a page is mapped writable only by
 * the fault path, once it is known to be the region's own (a frame with a
 * single reference, or a frame object's). Taking rights away is eager and
 * shoots down the TLBs before frames are released, so no CPU can reach a
 * frame after it went back to the allocator.
 */
#include "mm/uvm.h"

#include "abi/errno.h"
#include "abi/mem.h"
#include "lib/string.h"
#include "mm/free_batch.h"
#include "mm/heap.h"
#include "mm/memlayout.h"
#include "mm/memobj.h"
#include "mm/pmm.h"
#include "mm/zero_page.h"
#include "sched/sched.h"
#include "trace/ktrace.h"

#define STACK_GUARD_SIZE (64 * 1024) /* faults here are reported as stack overflow */
#define UNMAP_BATCH	 64
#define PROTECT_BATCH	 512 /* pages: a last-level table's worth between preemption points */

struct region {
	uint64_t start;
	uint64_t end;
	uint32_t prot;	    /* PROT_* */
	uint32_t max_prot;  /* what prot may grow to */
	struct memobj *obj; /* frame region, or NULL for anonymous */
	uint64_t obj_first; /* page of obj mapped at start */
	struct list node;
};

static struct region *region_of(struct list *node)
{
	return list_entry(node, struct region, node);
}

/*
 * The page-table rights of r's pages. A PROT_NONE page is not present at
 * all, its frame kept for a later protect; any other is readable, as x86
 * cannot give write or execute without read.
 */
static unsigned pte_flags(const struct region *r, bool writable)
{
	if (!(r->prot & (PROT_READ | PROT_WRITE | PROT_EXEC))) {
		return VM_USER | VM_NOACCESS;
	}
	return VM_USER | (writable && (r->prot & PROT_WRITE) ? VM_WRITE : 0) |
	       (r->prot & PROT_EXEC ? VM_EXEC : 0);
}

/*
 * A reference on a user frame, for each mapping of it. The zero page is
 * never counted: no number of mappings can free it (zero_page.h).
 */
static void frame_get(uint64_t pa)
{
	if (pa != zero_page_phys()) {
		pmm_frame_ref(pa);
	}
}

static void frame_put(uint64_t pa)
{
	if (pa != zero_page_phys()) {
		pmm_frame_unref(pa);
	}
}

/*
 * frame_put() of frames[0..n) (the array is overwritten), the counted
 * references dropped together: the allocator's lock is taken once for
 * the frames that frees, not once a frame.
 */
static void frames_put(uint64_t *frames, uint64_t n)
{
	uint64_t counted = 0;

	for (uint64_t i = 0; i < n; i++) {
		if (frames[i] != zero_page_phys()) {
			frames[counted++] = frames[i];
		}
	}
	pmm_frames_unref(frames, counted);
}

static bool range_ok(uint64_t addr, uint64_t len)
{
	return addr % PAGE_SIZE == 0 && len && addr < USER_TOP && len <= USER_TOP - addr;
}

static struct region *find(struct vm *vm, uint64_t addr)
{
	struct list *pos;

	list_for_each(pos, &vm->regions)
	{
		struct region *r = region_of(pos);
		if (addr < r->start) {
			return NULL;
		}
		if (addr < r->end) {
			return r;
		}
	}
	return NULL;
}

/* The region after r, or NULL. */
static struct region *next_of(struct vm *vm, struct region *r)
{
	return r->node.next == &vm->regions ? NULL : region_of(r->node.next);
}

static bool overlaps(struct vm *vm, uint64_t start, uint64_t end)
{
	struct list *pos;

	list_for_each(pos, &vm->regions)
	{
		struct region *r = region_of(pos);
		if (r->start >= end) {
			break; /* sorted: none further on can overlap */
		}
		if (start < r->end) {
			return true;
		}
	}
	return false;
}

/* The lowest gap of len bytes in [USER_MAP_BASE, USER_MAP_END), or 0. */
static uint64_t find_gap(struct vm *vm, uint64_t len)
{
	uint64_t at = USER_MAP_BASE;
	struct list *pos;

	list_for_each(pos, &vm->regions)
	{
		struct region *r = region_of(pos);
		if (r->end <= at) {
			continue;
		}
		if (r->start >= at + len) {
			break;
		}
		at = r->end;
	}
	return at + len <= USER_MAP_END ? at : 0;
}

static void insert(struct vm *vm, struct region *r)
{
	struct list *pos;

	TTRACE(mem_map, r->start, r->end - r->start, r->prot, vm->as.pml4_phys);
	list_for_each(pos, &vm->regions)
	{
		if (region_of(pos)->start > r->start) {
			break;
		}
	}
	list_add_tail(pos, &r->node); /* before pos */
}

static struct region *region_new(struct vm *vm, uint64_t start, uint64_t end, uint32_t prot,
				 uint32_t max_prot)
{
	struct region *r = kzalloc_charged(vm->as.acct, sizeof(*r));

	if (r) {
		r->start = start;
		r->end = end;
		r->prot = prot;
		r->max_prot = max_prot;
		list_init(&r->node);
	}
	return r;
}

/* Splits r at at (strictly inside it); r keeps the lower part. */
static int split(struct vm *vm, struct region *r, uint64_t at)
{
	struct region *upper = region_new(vm, at, r->end, r->prot, r->max_prot);

	if (!upper) {
		return -ENOMEM;
	}
	upper->obj = r->obj;
	upper->obj_first = r->obj_first + (at - r->start) / PAGE_SIZE;
	if (r->obj) {
		memobj_get(r->obj);
	}
	r->end = at;
	list_add_tail(r->node.next, &upper->node); /* right after r */
	return 0;
}

/* Splits regions so that start and end fall on region boundaries. */
static int split_at(struct vm *vm, uint64_t start, uint64_t end)
{
	struct region *r = find(vm, start);

	if (r && r->start < start) {
		int err = split(vm, r, start);
		if (err) {
			return err;
		}
	}
	r = find(vm, end - 1);
	if (r && r->end > end) {
		return split(vm, r, end);
	}
	return 0;
}

static int map_page(struct vm *vm, uint64_t va, uint64_t pa, unsigned flags)
{
	int err = vmm_map(&vm->as, va, pa, 1, flags);

	if (!err) {
		__atomic_fetch_add(&vm->rss_pages, 1, __ATOMIC_RELAXED);
	}
	return err;
}

/* Unmaps [start, end), shooting down TLBs before the frames are released. */
static void unmap_pages(struct vm *vm, uint64_t start, uint64_t end)
{
	for (uint64_t va = vmm_next_table(&vm->as, start, end); va < end;
	     va = vmm_next_table(&vm->as, va + UNMAP_BATCH * PAGE_SIZE, end)) {
		sched_preempt_point();
		uint64_t frames[UNMAP_BATCH];
		uint64_t n = 0;
		uint64_t pages = (end - va) / PAGE_SIZE;
		if (pages > UNMAP_BATCH) {
			pages = UNMAP_BATCH;
		}
		for (uint64_t i = 0; i < pages; i++) {
			uint64_t pa;
			unsigned flags;
			if (!vmm_lookup(&vm->as, va + i * PAGE_SIZE, &pa, &flags)) {
				frames[n++] = pa;
			}
		}
		if (!n) {
			continue;
		}
		vmm_unmap(&vm->as, va, pages);
		__atomic_fetch_sub(&vm->rss_pages, n, __ATOMIC_RELAXED);
		frames_put(frames, n);
	}
}

/*
 * Sets flags on the present pages of [start, end), a batch at a time with
 * a preemption point between batches: the page-table lock is held, with
 * interrupts masked, for a batch only.
 */
static void protect_pages(struct vm *vm, uint64_t start, uint64_t end, unsigned flags)
{
	for (uint64_t va = vmm_next_table(&vm->as, start, end); va < end;) {
		uint64_t n = (end - va) / PAGE_SIZE;
		if (n > PROTECT_BATCH) {
			n = PROTECT_BATCH;
		}
		vmm_protect(&vm->as, va, n, flags);
		sched_preempt_point();
		va = vmm_next_table(&vm->as, va + n * PAGE_SIZE, end);
	}
}

static void region_free(struct vm *vm, struct region *r)
{
	TTRACE(mem_unmap, r->start, r->end - r->start, r->prot, vm->as.pml4_phys);
	unmap_pages(vm, r->start, r->end);
	list_remove(&r->node);
	if (r->obj) {
		memobj_put(r->obj);
	}
	kfree(r);
}

int uvm_init(struct vm *vm, struct mem_account *acct)
{
	vm->as.acct = acct;
	mutex_init(&vm->lock);
	list_init(&vm->regions);
	vm->rss_pages = 0;
	return vmm_space_init(&vm->as);
}

/*
 * A frame the space being destroyed holds (a mapped page, or a page
 * table): a page's worth of work done. The zero page is never counted
 * (frame_put()).
 */
static void release_frame(void *batch, uint64_t pa)
{
	if (pa != zero_page_phys()) {
		free_batch_unref(batch, pa);
	}
	sched_preempt_point();
}

/*
 * A space may hold a million regions and as many pages as memory has.
 * Its teardown lets go of the records, the frame objects and the frames
 * a batch at a time (free_batch.h), so that it takes the heap's and the
 * frame allocator's locks from the other CPUs once a batch, not once a
 * record or a page; and it has a preemption point after each region and
 * each page, holding no lock there, so that it does not keep its CPU
 * either.
 */
void uvm_destroy(struct vm *vm)
{
	struct free_batch batch = FREE_BATCH_INIT;
	struct list *node;

	while ((node = list_pop(&vm->regions))) {
		struct region *r = region_of(node);
		if (r->obj) {
			memobj_put_into(r->obj, &batch);
		}
		free_batch_kfree(&batch, r);
		sched_preempt_point(); /* the region's object may have been a large one */
	}
	vmm_space_destroy(&vm->as, release_frame, &batch);
	free_batch_flush(&batch);
	vm->rss_pages = 0;
}

/* Finds where a new region of len bytes goes. Called with the lock held. */
static int place(struct vm *vm, uint64_t addr, uint64_t len, uint64_t *out)
{
	if (!len || len > USER_MAP_END - USER_MAP_BASE) {
		return -EINVAL;
	}
	if (!addr) {
		addr = find_gap(vm, len);
		if (!addr) {
			return -ENOMEM;
		}
	} else if (!range_ok(addr, len)) {
		return -EINVAL;
	} else if (overlaps(vm, addr, addr + len)) {
		return -EEXIST;
	}
	*out = addr;
	return 0;
}

int uvm_map_shared(struct vm *vm, uint64_t addr, uint64_t len, uint32_t prot,
		   const uint64_t *frames, uint64_t nframes)
{
	uint64_t start;
	int err;

	len = PAGE_ALIGN_UP(len);
	if (prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC) || nframes > len / PAGE_SIZE) {
		return -EINVAL;
	}
	mutex_lock(&vm->lock);
	err = place(vm, addr, len, &start);
	struct region *r =
	    err ? NULL
		: region_new(vm, start, start + len, prot, PROT_READ | PROT_WRITE | PROT_EXEC);
	if (!err && !r) {
		err = -ENOMEM;
	}
	if (!err) {
		insert(vm, r);
		for (uint64_t i = 0; i < nframes && !err; i++) {
			frame_get(frames[i]);
			err = map_page(vm, start + i * PAGE_SIZE, frames[i], pte_flags(r, false));
			if (err) {
				frame_put(frames[i]);
			}
		}
		if (err) {
			region_free(vm, r);
		}
	}
	mutex_unlock(&vm->lock);
	return err;
}

int uvm_map_anon(struct vm *vm, uint64_t addr, uint64_t len, uint32_t prot, uint64_t *out)
{
	uint64_t start;
	int err;

	len = PAGE_ALIGN_UP(len);
	if (prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC)) {
		return -EINVAL;
	}
	mutex_lock(&vm->lock);
	err = place(vm, addr, len, &start);
	if (!err) {
		struct region *r =
		    region_new(vm, start, start + len, prot, PROT_READ | PROT_WRITE | PROT_EXEC);
		if (r) {
			insert(vm, r);
			*out = start;
		} else {
			err = -ENOMEM;
		}
	}
	mutex_unlock(&vm->lock);
	return err;
}

int uvm_map_frame(struct vm *vm, struct memobj *obj, uint64_t addr, uint32_t prot,
		  uint32_t max_prot, uint64_t *out)
{
	uint64_t len = (uint64_t)obj->npages * PAGE_SIZE;
	uint64_t start;
	int err;

	if (prot & ~max_prot) {
		return -EACCES;
	}
	mutex_lock(&vm->lock);
	err = place(vm, addr, len, &start);
	struct region *r = err ? NULL : region_new(vm, start, start + len, prot, max_prot);
	if (!err && !r) {
		err = -ENOMEM;
	}
	if (!err) {
		r->obj = obj;
		memobj_get(obj);
		insert(vm, r);
		for (uint32_t i = 0; i < obj->npages && !err; i++) {
			frame_get(obj->frames[i]);
			err = map_page(vm, start + (uint64_t)i * PAGE_SIZE, obj->frames[i],
				       pte_flags(r, true));
			if (err) {
				frame_put(obj->frames[i]);
			}
		}
		if (err) {
			region_free(vm, r);
		} else {
			*out = start;
		}
	}
	mutex_unlock(&vm->lock);
	return err;
}

int uvm_unmap(struct vm *vm, uint64_t addr, uint64_t len)
{
	len = PAGE_ALIGN_UP(len);
	if (!range_ok(addr, len)) {
		return -EINVAL;
	}
	mutex_lock(&vm->lock);
	int err = split_at(vm, addr, addr + len);
	if (!err) {
		struct list *pos, *tmp;
		list_for_each_safe(pos, tmp, &vm->regions)
		{
			struct region *r = region_of(pos);
			if (r->start >= addr && r->end <= addr + len) {
				region_free(vm, r);
			}
		}
	}
	mutex_unlock(&vm->lock);
	return err;
}

/*
 * True if [start, end) is covered by regions without a gap. Lock held.
 * One walk along the list: a range may span a million regions.
 */
static bool covered(struct vm *vm, uint64_t start, uint64_t end)
{
	for (struct region *r = find(vm, start); r && r->start <= start; r = next_of(vm, r)) {
		start = r->end;
		if (start >= end) {
			return true;
		}
	}
	return false;
}

int uvm_protect(struct vm *vm, uint64_t addr, uint64_t len, uint32_t prot)
{
	len = PAGE_ALIGN_UP(len);
	if (!range_ok(addr, len) || prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC)) {
		return -EINVAL;
	}
	mutex_lock(&vm->lock);
	int err = covered(vm, addr, addr + len) ? 0 : -EFAULT;
	for (struct region *r = err ? NULL : find(vm, addr); r && r->start < addr + len;
	     r = next_of(vm, r)) {
		if (prot & ~r->max_prot) {
			err = -EACCES;
		}
	}
	if (!err) {
		err = split_at(vm, addr, addr + len);
	}
	/* Split: the regions from addr on lie inside the range until one starts past it. */
	for (struct region *r = err ? NULL : find(vm, addr); r && r->start < addr + len;
	     r = next_of(vm, r)) {
		r->prot = prot;
		/* Drop write (and maybe exec) now; write comes back through faults. */
		protect_pages(vm, r->start, r->end, pte_flags(r, false));
	}
	mutex_unlock(&vm->lock);
	return err;
}

int uvm_cow_copy(struct vm *vm, uint64_t addr, uint64_t len, uint64_t *out)
{
	uint64_t dst;

	len = PAGE_ALIGN_UP(len);
	if (!range_ok(addr, len)) {
		return -EINVAL;
	}
	mutex_lock(&vm->lock);
	struct region *src = find(vm, addr);
	int err = src && !src->obj && addr + len <= src->end ? 0 : -EFAULT;
	if (!err) {
		err = place(vm, 0, len, &dst);
	}
	struct region *r = err ? NULL : region_new(vm, dst, dst + len, src->prot, src->max_prot);
	if (!err && !r) {
		err = -ENOMEM;
	}
	if (!err) {
		insert(vm, r);
		/* Both sides read-only first, so neither can write before sharing. */
		protect_pages(vm, addr, addr + len, pte_flags(src, false));
		for (uint64_t off = 0; off < len && !err; off += PAGE_SIZE) {
			sched_preempt_point();
			uint64_t pa;
			unsigned flags;
			uint64_t next = vmm_next_table(&vm->as, addr + off, addr + len);
			if (next != addr + off) {
				off = next - addr - PAGE_SIZE; /* skip what has no page table */
				continue;
			}
			if (vmm_lookup(&vm->as, addr + off, &pa, &flags)) {
				continue;
			}
			frame_get(pa);
			err = map_page(vm, dst + off, pa, pte_flags(r, false));
			if (err) {
				frame_put(pa);
			}
		}
		if (err) {
			region_free(vm, r);
		} else {
			*out = dst;
		}
	}
	mutex_unlock(&vm->lock);
	return err;
}

/*
 * Gives the page at va a frame, and for a write its own writable one; sets
 * *outcome to TTRACE_PF_COW if that meant copying. An anonymous page that
 * is only read gets the shared zero page, read-only, and so costs no
 * frame until written. Lock held.
 */
static int make_present(struct vm *vm, struct region *r, uint64_t va, bool write, uint32_t *outcome)
{
	uint64_t pa, fresh;
	unsigned flags;

	*outcome = TTRACE_PF_MAPPED;
	if (vmm_lookup(&vm->as, va, &pa, &flags)) {
		if (r->obj) {
			pa = r->obj->frames[r->obj_first + (va - r->start) / PAGE_SIZE];
			frame_get(pa);
		} else if (!write) {
			pa = zero_page_phys();
		} else if (pmm_alloc_charged(vm->as.acct, 1, &pa)) {
			return -ENOMEM;
		} else {
			memset(phys_to_virt(pa), 0, PAGE_SIZE);
		}
		int err = map_page(vm, va, pa, pte_flags(r, r->obj || write));
		if (err) {
			frame_put(pa);
		}
		return err;
	}
	if (!write || flags & VM_WRITE) {
		return 0; /* already resolved, by another thread or a stale TLB entry */
	}
	/* The page's own frame becomes writable; never the zero page, whose count says nothing. */
	if (r->obj || (pa != zero_page_phys() && pmm_frame_refs(pa) == 1)) {
		return vmm_protect(&vm->as, va, 1, pte_flags(r, true));
	}
	/* Shared (the zero page too): copy it, and let go of it only after the shootdown. */
	if (pmm_alloc_charged(vm->as.acct, 1, &fresh)) {
		return -ENOMEM;
	}
	memcpy(phys_to_virt(fresh), phys_to_virt(pa), PAGE_SIZE);
	TTRACE(mem_cow, va, pa, fresh);
	*outcome = TTRACE_PF_COW;
	vmm_unmap(&vm->as, va, 1);
	int err = vmm_map(&vm->as, va, fresh, 1, pte_flags(r, true));
	frame_put(err ? fresh : pa);
	if (err) {
		__atomic_fetch_sub(&vm->rss_pages, 1, __ATOMIC_RELAXED);
	}
	return err;
}

static bool in_stack_guard(uint64_t addr)
{
	uint64_t bottom = USER_STACK_TOP - USER_STACK_SIZE;

	return addr < bottom && addr >= bottom - STACK_GUARD_SIZE;
}

int uvm_fault(struct vm *vm, uint64_t addr, unsigned access, struct uvm_fault_info *info)
{
	uint64_t va = PAGE_ALIGN_DOWN(addr);
	int err = -EFAULT;

	info->what = "page fault";
	info->no_memory = false;
	if (addr >= USER_TOP) {
		return -EFAULT;
	}
	mutex_lock(&vm->lock);
	struct region *r = find(vm, va);
	if (!r) {
		if (in_stack_guard(addr)) {
			info->what = "stack overflow";
		}
	} else if ((access & FAULT_WRITE && !(r->prot & PROT_WRITE)) ||
		   (access & FAULT_EXEC && !(r->prot & PROT_EXEC)) ||
		   !(r->prot & (PROT_READ | PROT_WRITE | PROT_EXEC))) {
		info->what = "page fault";
	} else {
		err = make_present(vm, r, va, access & FAULT_WRITE, &info->outcome);
		if (err == -ENOMEM) {
			info->what = "out of memory";
			info->no_memory = true;
			err = -EFAULT;
		}
	}
	mutex_unlock(&vm->lock);
	return err;
}

int uvm_populate(struct vm *vm, uint64_t addr, uint64_t len)
{
	int err = 0;

	len = PAGE_ALIGN_UP(len);
	if (!range_ok(addr, len)) {
		return -EINVAL;
	}
	mutex_lock(&vm->lock);
	struct region *r = find(vm, addr);
	for (uint64_t va = addr; !err && va < addr + len; va += PAGE_SIZE) {
		uint32_t outcome;
		/* Along the list, not a find a page: the range may span a million regions. */
		if (r && va >= r->end) {
			r = next_of(vm, r);
		}
		if (r && r->start > va) {
			r = NULL; /* a gap */
		}
		sched_preempt_point();
		if (!r || !(r->prot & PROT_WRITE)) {
			err = -EFAULT;
		} else {
			err = make_present(vm, r, va, true, &outcome);
		}
	}
	mutex_unlock(&vm->lock);
	return err;
}

int uvm_write(struct vm *vm, uint64_t addr, const void *src, size_t len)
{
	const uint8_t *s = src;
	int err = 0;

	if (!len ||
	    !range_ok(PAGE_ALIGN_DOWN(addr), PAGE_ALIGN_UP(addr + len) - PAGE_ALIGN_DOWN(addr))) {
		return -EFAULT;
	}
	mutex_lock(&vm->lock);
	while (len && !err) {
		uint64_t va = PAGE_ALIGN_DOWN(addr);
		uint64_t chunk = PAGE_SIZE - (addr - va);
		struct region *r = find(vm, va);
		uint64_t pa;
		unsigned flags;
		if (chunk > len) {
			chunk = len;
		}
		uint32_t outcome;
		err = r ? make_present(vm, r, va, true, &outcome) : -EFAULT;
		if (!err) {
			err = vmm_lookup(&vm->as, va, &pa, &flags);
		}
		if (!err) {
			memcpy((uint8_t *)phys_to_virt(pa) + (addr - va), s, chunk);
			s += chunk;
			addr += chunk;
			len -= chunk;
		}
	}
	mutex_unlock(&vm->lock);
	return err;
}
