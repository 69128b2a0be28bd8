/*
 * pmm: a frame_bitmap under one spinlock. The bitmap itself is placed in
 * the first usable stretch of the early-mapped RAM that avoids everything
 * reserved, and is reserved in turn.
 */
#include "mm/pmm.h"

#include "abi/errno.h"
#include "init/boot_info.h"
#include "lib/panic.h"
#include "lib/spinlock.h"
#include "mm/account.h"
#include "mm/frame_bitmap.h"
#include "mm/memlayout.h"
#include "trace/ktrace.h"

#define LOW_MEMORY_END 0x100000 /* BIOS data, EBDA, the AP trampoline page */
#define MIB	       (1024 * 1024)

struct range {
	uint64_t start;
	uint64_t end;
};

static struct spinlock pmm_lock = SPINLOCK_INIT;
static struct frame_bitmap map; /* [pmm_lock] */
static uint64_t lock_takings;	/* [pmm_lock] written, read racily by pmm_lock_takings() */
static uint64_t total_frames;	/* [I] after pmm_init() */
static uint64_t usable_bytes;	/* [I] */
static uint64_t phys_limit;	/* [I] */
static uint64_t reserve_frames; /* [I] kept back for account_may_use_reserve() */
static uint32_t *frame_refs;	/* [a] per frame: references to frames in use */
/*
 * Per frame in use: the account it is charged to (account.h), or NULL.
 * Written by whoever allocates the frame before anyone else can reach it,
 * read by whoever frees it after the last reference went (acq_rel).
 */
static struct mem_account **frame_owner;

extern char _kernel_phys_start[];

/*
 * Device memory user space may map (a PCI BAR, the export window): frames
 * the allocator never owns and never frees, so references to them are
 * not counted. Set at boot, before any mapping of them.
 */
#define DEVICE_RANGES 2
static struct range device[DEVICE_RANGES]; /* [I] */
static uint32_t ndevice;		   /* [I] */

/* Ranges that must never be handed out: filled by collect_reserved(). */
static struct range reserved[BOOT_MODULES_MAX + 3]; /* low, image, modules, bitmap */
static uint32_t nreserved;

static void collect_reserved(const struct boot_info *bi)
{
	reserved[nreserved++] = (struct range){0, LOW_MEMORY_END};
	reserved[nreserved++] =
	    (struct range){(uintptr_t)_kernel_phys_start, virt_to_phys(_kernel_end)};
	for (uint32_t i = 0; i < bi->nmodules; i++) {
		reserved[nreserved++] = (struct range){PAGE_ALIGN_DOWN(bi->modules[i].start),
						       PAGE_ALIGN_UP(bi->modules[i].end)};
	}
}

/* Lowest page-aligned start >= from where size bytes avoid every reserved range. */
static uint64_t skip_reserved(uint64_t from, uint64_t size)
{
	bool moved = true;

	from = PAGE_ALIGN_UP(from);
	while (moved) {
		moved = false;
		for (uint32_t i = 0; i < nreserved; i++) {
			if (from < reserved[i].end && from + size > reserved[i].start) {
				from = PAGE_ALIGN_UP(reserved[i].end);
				moved = true;
			}
		}
	}
	return from;
}

static uint64_t place_bitmap(const struct boot_info *bi, uint64_t bytes)
{
	for (uint32_t i = 0; i < bi->nmmap; i++) {
		const struct boot_mmap_entry *e = &bi->mmap[i];
		if (e->type != BOOT_MEM_USABLE) {
			continue;
		}
		uint64_t at = skip_reserved(e->base, bytes);
		if (at + bytes <= e->base + e->length && at + bytes <= EARLY_MAP_LIMIT) {
			return at;
		}
	}
	panic("pmm: no room for the %lu-byte frame bitmap in the first GiB", bytes);
}

void pmm_init(const struct boot_info *bi)
{
	for (uint32_t i = 0; i < bi->nmmap; i++) {
		const struct boot_mmap_entry *e = &bi->mmap[i];
		if (e->type == BOOT_MEM_USABLE) {
			usable_bytes += e->length;
			if (e->base + e->length > phys_limit) {
				phys_limit = e->base + e->length;
			}
		}
	}
	if (usable_bytes < (uint64_t)PMM_MIN_MEMORY_MIB * MIB) {
		panic("memory: %lu MiB usable; Spoor needs at least %u MiB", usable_bytes / MIB,
		      PMM_MIN_MEMORY_MIB);
	}

	collect_reserved(bi);
	uint64_t nframes = phys_limit / PAGE_SIZE;
	uint64_t bitmap_bytes = frame_bitmap_words(nframes) * sizeof(uint64_t);
	uint64_t refs_bytes = nframes * sizeof(uint32_t);
	uint64_t bytes = PAGE_ALIGN_UP(bitmap_bytes + refs_bytes + nframes * sizeof(*frame_owner));
	uint64_t at = place_bitmap(bi, bytes);
	reserved[nreserved++] = (struct range){at, at + bytes};

	frame_bitmap_init(&map, phys_to_virt(at), nframes);
	frame_refs = phys_to_virt(at + bitmap_bytes);
	frame_owner = phys_to_virt(at + bitmap_bytes + refs_bytes);
	for (uint64_t i = 0; i < nframes; i++) {
		frame_refs[i] = 0;
		frame_owner[i] = NULL;
	}
	for (uint32_t i = 0; i < bi->nmmap; i++) {
		const struct boot_mmap_entry *e = &bi->mmap[i];
		if (e->type == BOOT_MEM_USABLE) {
			uint64_t first = PAGE_ALIGN_UP(e->base) / PAGE_SIZE;
			uint64_t last = PAGE_ALIGN_DOWN(e->base + e->length) / PAGE_SIZE;
			if (last > first) {
				frame_bitmap_set_free(&map, first, last - first);
			}
		}
	}
	for (uint32_t i = 0; i < nreserved; i++) {
		uint64_t first = reserved[i].start / PAGE_SIZE;
		frame_bitmap_set_used(&map, first,
				      PAGE_ALIGN_UP(reserved[i].end) / PAGE_SIZE - first);
	}
	total_frames = map.nfree;
	reserve_frames = total_frames / PMM_RESERVE_SHARE;
}

/* Takes pmm_lock, counting it: a teardown's cost to the other CPUs is in how often it does. */
static uint64_t lock_map(void)
{
	uint64_t flags = spin_lock_irqsave(&pmm_lock);

	/* relaxed: the lock orders the writes; pmm_lock_takings() only reports */
	__atomic_store_n(&lock_takings, lock_takings + 1, __ATOMIC_RELAXED);
	return flags;
}

/*
 * Takes count contiguous frames for a: -ENOMEM when there are not enough,
 * or when a may not use the reserve and they would come out of it.
 */
static int take(const struct mem_account *a, uint64_t count, uint64_t *first)
{
	uint64_t flags = lock_map();
	/* Under the lock: no two allocations may both take the last frame outside the reserve. */
	int err = !account_may_use_reserve(a) && map.nfree < count + reserve_frames
		      ? -ENOMEM
		      : frame_bitmap_alloc(&map, count, first);

	spin_unlock_irqrestore(&pmm_lock, flags);
	return err;
}

/* Gives taken frames their first reference and their owner a, which one charge took. */
static void hand_out(struct mem_account *a, uint64_t first, uint64_t count)
{
	TTRACE(mem_frame_alloc, first * PAGE_SIZE, count);
	for (uint64_t i = 0; i < count; i++) {
		__atomic_store_n(&frame_refs[first + i], 1, __ATOMIC_RELAXED);
		frame_owner[first + i] = a;
		/* A reference on a per frame, each uncharged alone; the charge took the first. */
		if (a && i) {
			account_get(a);
		}
	}
}

int pmm_alloc_charged(struct mem_account *a, uint64_t count, uint64_t *phys)
{
	uint64_t first;

	if (account_charge(a, count * PAGE_SIZE)) {
		return -ENOMEM;
	}
	int err = take(a, count, &first);
	if (err) {
		account_uncharge(a, count * PAGE_SIZE);
		return err;
	}
	hand_out(a, first, count);
	*phys = first * PAGE_SIZE;
	return 0;
}

int pmm_alloc_pages(struct mem_account *a, uint64_t n, uint64_t *phys)
{
	if (account_charge(a, n * PAGE_SIZE)) {
		return -ENOMEM;
	}
	uint64_t flags = lock_map();
	/* As in take(): under the lock, so the reserve check holds for all n. */
	if (map.nfree < n + (account_may_use_reserve(a) ? 0 : reserve_frames)) {
		spin_unlock_irqrestore(&pmm_lock, flags);
		account_uncharge(a, n * PAGE_SIZE);
		return -ENOMEM;
	}
	for (uint64_t i = 0; i < n; i++) {
		/* nfree >= n free frames are in the bitmap, one at a time always fits */
		if (frame_bitmap_alloc(&map, 1, &phys[i])) {
			panic("pmm: %lu frames free but none found", map.nfree);
		}
	}
	spin_unlock_irqrestore(&pmm_lock, flags);
	for (uint64_t i = 0; i < n; i++) {
		/* The charge took one reference on a; every other frame takes its own. */
		if (a && i) {
			account_get(a);
		}
		hand_out(a, phys[i], 1);
		phys[i] *= PAGE_SIZE;
	}
	return 0;
}

int pmm_alloc_frames_for(const struct mem_account *a, uint64_t count, uint64_t *phys)
{
	uint64_t first;
	int err = take(a, count, &first);

	if (!err) {
		hand_out(NULL, first, count);
		*phys = first * PAGE_SIZE;
	}
	return err;
}

int pmm_alloc_frames(uint64_t count, uint64_t *phys)
{
	return pmm_alloc_frames_for(NULL, count, phys);
}

/*
 * Frees the frames frame[0..n) (frame numbers in any order, n at most
 * PMM_FREE_BATCH, none referenced any more) under one hold of the lock.
 * Their owners are read, and cleared, before the frames are back in the
 * map, where another CPU may hand them out at once; they are uncharged
 * after the lock is released, one uncharge a run of frames of one account.
 */
static void give_back(const uint64_t *frame, uint64_t n)
{
	struct mem_account *owner[PMM_FREE_BATCH];
	uint64_t bad = UINT64_MAX;

	for (uint64_t i = 0; i < n; i++) {
		owner[i] = frame_owner[frame[i]];
		frame_owner[frame[i]] = NULL;
	}
	uint64_t flags = lock_map();
	for (uint64_t i = 0; i < n; i++) {
		if (frame_bitmap_free(&map, frame[i], 1) && bad == UINT64_MAX) {
			bad = frame[i];
		}
	}
	spin_unlock_irqrestore(&pmm_lock, flags);
	if (bad != UINT64_MAX) {
		panic("pmm: bad free of frame 0x%lx", bad * PAGE_SIZE);
	}
	for (uint64_t i = 0, run; i < n; i += run) {
		run = 1;
		while (i + run < n && owner[i + run] == owner[i]) {
			run++;
		}
		account_uncharge_many(owner[i], run * PAGE_SIZE, run);
	}
}

void pmm_free_frames(uint64_t phys, uint64_t count)
{
	uint64_t frame[PMM_FREE_BATCH];

	if (phys % PAGE_SIZE) {
		panic("pmm: bad free of %lu frames at 0x%lx", count, phys);
	}
	TTRACE(mem_frame_free, phys, count);
	for (uint64_t done = 0; done < count;) {
		uint64_t n = 0;
		for (; n < PMM_FREE_BATCH && done < count; n++, done++) {
			frame[n] = phys / PAGE_SIZE + done;
			__atomic_store_n(&frame_refs[frame[n]], 0, __ATOMIC_RELAXED);
		}
		give_back(frame, n);
	}
}

void pmm_free_pages(const uint64_t *phys, uint64_t n)
{
	uint64_t frame[PMM_FREE_BATCH];
	uint64_t k = 0;

	for (uint64_t i = 0; i < n; i++) {
		if (phys[i] % PAGE_SIZE) {
			panic("pmm: bad free of the frame at 0x%lx", phys[i]);
		}
		TTRACE(mem_frame_free, phys[i], 1);
		frame[k] = phys[i] / PAGE_SIZE;
		__atomic_store_n(&frame_refs[frame[k]], 0, __ATOMIC_RELAXED);
		if (++k == PMM_FREE_BATCH || i + 1 == n) {
			give_back(frame, k);
			k = 0;
		}
	}
}

static bool is_device(uint64_t phys)
{
	for (uint32_t i = 0; i < ndevice; i++) {
		if (phys >= device[i].start && phys < device[i].end) {
			return true;
		}
	}
	return false;
}

int pmm_add_device_memory(uint64_t phys, uint64_t npages)
{
	struct range r = {phys, phys + npages * PAGE_SIZE};

	if (phys % PAGE_SIZE || !npages || r.end < r.start) {
		return -EINVAL;
	}
	for (uint32_t i = 0; i < boot_info.nmmap; i++) {
		const struct boot_mmap_entry *e = &boot_info.mmap[i];
		if (e->type == BOOT_MEM_USABLE && r.start < e->base + e->length &&
		    e->base < r.end) {
			return -EINVAL; /* RAM: its references must be counted */
		}
	}
	if (ndevice == DEVICE_RANGES) {
		return -ENOSPC;
	}
	device[ndevice++] = r;
	return 0;
}

void pmm_frame_ref(uint64_t phys)
{
	if (is_device(phys)) {
		return;
	}
	uint32_t old = __atomic_fetch_add(&frame_refs[phys / PAGE_SIZE], 1, __ATOMIC_RELAXED);

	if (!old) {
		panic("pmm: reference to free frame 0x%lx", phys);
	}
}

/* Drops a reference to the frame at phys: whether it was the last. */
static bool drop_ref(uint64_t phys)
{
	if (is_device(phys)) {
		return false;
	}
	/* acq_rel: whoever frees the frame sees every write made through other references */
	uint32_t left = __atomic_sub_fetch(&frame_refs[phys / PAGE_SIZE], 1, __ATOMIC_ACQ_REL);

	if (left == UINT32_MAX) {
		panic("pmm: unreference of free frame 0x%lx", phys);
	}
	return !left;
}

void pmm_frames_unref(const uint64_t *phys, uint64_t n)
{
	uint64_t gone[PMM_FREE_BATCH];
	uint64_t k = 0;

	for (uint64_t i = 0; i < n; i++) {
		if (drop_ref(phys[i])) {
			TTRACE(mem_frame_free, phys[i], 1);
			gone[k++] = phys[i] / PAGE_SIZE;
		}
		if (k == PMM_FREE_BATCH || (k && i + 1 == n)) {
			give_back(gone, k);
			k = 0;
		}
	}
}

void pmm_frame_unref(uint64_t phys)
{
	pmm_frames_unref(&phys, 1);
}

uint32_t pmm_frame_refs(uint64_t phys)
{
	if (is_device(phys)) {
		return 1; /* never shared copy-on-write: frame objects map it, as it is */
	}
	return __atomic_load_n(&frame_refs[phys / PAGE_SIZE], __ATOMIC_ACQUIRE);
}

uint64_t pmm_free_count(void)
{
	return __atomic_load_n(&map.nfree, __ATOMIC_RELAXED);
}

uint64_t pmm_lock_takings(void)
{
	return __atomic_load_n(&lock_takings, __ATOMIC_RELAXED);
}

uint64_t pmm_reserve_count(void)
{
	return reserve_frames;
}

uint64_t pmm_total_count(void)
{
	return total_frames;
}

uint64_t pmm_usable_bytes(void)
{
	return usable_bytes;
}

uint64_t pmm_phys_limit(void)
{
	return phys_limit;
}
