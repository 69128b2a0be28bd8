/*
 * memhog MODE [CHILDREN]: a hostile tree that takes all the memory it can
 * get (abi/proc.h MEMORY), for the tests of per-tree limits.
 *
 *   anon N   spawns N children; all of them, itself too, touch anonymous
 *            pages without end. Nothing stops them but the tree's limit:
 *            the fault past it kills the whole tree.
 *   hold N   spawns N children; all of them take frames through
 *            frame_create (1 MiB, then single pages), each mapped, until
 *            that is refused, and keep them. It then says
 *              memhog: holding N KiB (frame_create: ERROR)
 *            has the kernel write into pages it never touched (sys_info),
 *            one after another until that fails, and says
 *              memhog: sys_info into new pages: ERROR
 *            asks traced for STATS, HIST and BULK, each at SELF level,
 *            saying for each
 *              memhog: stats|hist|bulk: answered | refused: ERROR
 *            and sleeps, holding it all, until killed.
 *   regions N
 *            spawns N children; all of them map one page of no access
 *            after another (mem_map_anon, PROT_NONE: a region record in
 *            the kernel's heap, no frame), the root only once it has
 *            taken every frame frame_create gives it, until that is
 *            refused. It then says
 *              memhog: mapped N regions (mem_map_anon: ERROR)
 *            and sleeps, holding it all, until killed. Run with a limit
 *            past memory (run -m 1G), nothing but the reserve stops it.
 *   late P   a tree far under its limit that faults once others took
 *            everything: it says
 *              memhog: waiting for memory to run out
 *            waits until nothing is free outside the reserve, touches P
 *            new anonymous pages, says
 *              memhog: touched P new pages
 *            and sleeps until killed.
 *   locks    takes nothing: says how often the frame allocator's and the
 *            kernel heap's locks were taken since boot (sys_info),
 *              memhog: lock takings: pmm N heap M
 *            so that a test can count what ending a tree cost in them.
 *
 * Children run the same program (modes "eat", "grab" and "region"). Everything the
 * root touches after it starts grabbing (its stack, its tables) is touched
 * before, so that only the requests it makes can need memory; a grabbing or
 * mapping tree's children do the same, and the root starts only once they
 * all have (struct gate).
 */
#include <errno.h>
#include <spoor.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <trace_client.h>

#define BIG_FRAME      (1024 * 1024)
#define EAT_REGION     (64ull << 30) /* more than any machine here: only the limit stops it */
#define SLEEP_NS       1000000000ull
#define STACK_TOUCH    (64 * 1024) /* the stack the requests below use, touched up front */
#define CHILDREN_MAX   16
#define BULK_BYTES     PAGE_SIZE_USER
#define GRAB_SETTLE_NS 200000000ull /* between the last refusal and the report */
#define NEW_PAGES      16	    /* for the kernel to write into, mapped before the grab */
#define POLL_NS	       100000000ull /* between looks at free memory */
#define GATE_POLL_NS   1000000ull   /* between looks at the gate */
#define CAP_SLOT_GATE  CAP_SLOT_FIRST_FREE /* a child's: the gate's frame */

/*
 * The page a grabbing or mapping root shares with its children: each child
 * counts itself ready once it has touched all it will touch (its data page,
 * written by libc's start, and its stack), then waits for go; the root sets
 * go, and takes memory, only once every child is ready. Without it a child
 * the host ran late faulted on its data page after the others had taken the
 * tree's last frame, and the kernel, as it must, killed the whole tree.
 */
struct gate {
	uint32_t ready; /* [a] children ready */
	uint32_t go;	/* [a] set by the root once all are */
};

static struct traced_pager pager, bulk_pager;
static struct traced_stats_request stats_req;

/* Spawns this program in mode, with the console (and the gate's frame if gate >= 0). */
static long spawn_self(const char *args, size_t len, long gate)
{
	struct spawn_cap caps[] = {
	    {.src = CAP_SLOT_CONSOLE, .dst = CAP_SLOT_CONSOLE, .rights = CAP_RIGHT_WRITE},
	    {.src = (uint32_t)gate, .dst = CAP_SLOT_GATE, .rights = CAP_RIGHTS_ALL},
	};
	struct spawn_args sa = {
	    .name = (uint64_t)(uintptr_t) "memhog",
	    .args = (uint64_t)(uintptr_t)args,
	    .args_len = (uint32_t)len,
	    .ncaps = gate >= 0 ? 2 : 1,
	    .caps = (uint64_t)(uintptr_t)caps,
	};

	return sys_spawn(&sa);
}

/* Spawns n children in mode args, or says why not; returns how many it spawned. */
static long spawn_children(long n, const char *args, size_t len, long gate)
{
	for (long i = 0; i < n; i++) {
		long slot = spawn_self(args, len, gate);
		if (slot < 0) {
			printf("memhog: spawn: %s\n", strerror((int)-slot));
			return i;
		}
	}
	return n;
}

/* Touches the stack the requests use, so that none of them faults for it later. */
static void touch_stack(void)
{
	volatile uint8_t buf[STACK_TOUCH];

	for (size_t i = 0; i < sizeof(buf); i += PAGE_SIZE_USER) {
		buf[i] = 0;
	}
}

/* Maps the frame in slot read-write, or ends the program saying why not. */
static struct gate *gate_map(long slot)
{
	long at = slot < 0 ? slot : sys_mem_map_frame((int)slot, NULL, PROT_READ | PROT_WRITE);

	if (at < 0) {
		printf("memhog: gate: %s\n", strerror((int)-at));
		exit(1);
	}
	return (struct gate *)at;
}

/* The root: spawns n children in mode args, waits until all are ready, and lets them go. */
static void spawn_gated(long n, const char *args, size_t len)
{
	long slot = sys_frame_create(PAGE_SIZE_USER);
	struct gate *g = gate_map(slot);
	long spawned = spawn_children(n, args, len, slot);

	sys_cap_delete((int)slot);
	/* acquire: pairs with each child's release increment, made after its touches */
	while (__atomic_load_n(&g->ready, __ATOMIC_ACQUIRE) < (uint32_t)spawned) {
		sys_sleep_ns(GATE_POLL_NS);
	}
	/* relaxed: go publishes nothing; the children only wait for it */
	__atomic_store_n(&g->go, 1, __ATOMIC_RELAXED);
}

/* A child of spawn_gated(): touches its stack, counts itself ready, and waits for go. */
static void gate_pass(void)
{
	touch_stack();
	struct gate *g = gate_map(CAP_SLOT_GATE);
	/* release: pairs with the root's acquire load */
	__atomic_add_fetch(&g->ready, 1, __ATOMIC_RELEASE);
	/* relaxed: see spawn_gated() */
	while (!__atomic_load_n(&g->go, __ATOMIC_RELAXED)) {
		sys_sleep_ns(GATE_POLL_NS);
	}
}

/* Writes to one new anonymous page after another, until the kernel ends the tree. */
static void eat(void)
{
	long base = sys_mem_map_anon(NULL, EAT_REGION, PROT_READ | PROT_WRITE);

	if (base < 0) {
		printf("memhog: mem_map_anon: %s\n", strerror((int)-base));
		exit(1);
	}
	for (uint64_t off = 0;; off += PAGE_SIZE_USER) {
		*(volatile uint8_t *)(base + off % EAT_REGION) = 1;
	}
}

/* Maps pages of no access one at a time until refused; returns how many, and the refusal. */
static long map_regions(long *refusal)
{
	long n = 0;

	for (;;) {
		long at = sys_mem_map_anon(NULL, PAGE_SIZE_USER, PROT_NONE);
		if (at < 0) {
			*refusal = at;
			return n;
		}
		n++;
	}
}

/* Takes frame objects until frame_create refuses; returns the bytes taken and the refusal. */
static uint64_t grab(long *refusal)
{
	uint64_t taken = 0;
	long size = BIG_FRAME;

	for (;;) {
		long slot = sys_frame_create((size_t)size);
		if (slot >= 0) {
			/* Kept through a mapping, so the capability table never fills. */
			long at = sys_mem_map_frame((int)slot, NULL, PROT_READ);
			sys_cap_delete((int)slot);
			slot = at < 0 ? at : slot;
		}
		if (slot >= 0) {
			taken += (uint64_t)size;
			continue;
		}
		if (slot == -ENOMEM && size == BIG_FRAME) {
			size = PAGE_SIZE_USER; /* the rest, a page at a time */
			continue;
		}
		*refusal = slot;
		return taken;
	}
}

static void say(const char *what, long err)
{
	if (err < 0) {
		printf("memhog: %s: refused: %s\n", what, strerror((int)-err));
	} else {
		printf("memhog: %s: answered\n", what);
	}
}

/* Every page of a request to traced until it is done; the first error, or 0. */
static long drain(struct traced_pager *p)
{
	const uint8_t *data;
	size_t len;
	uint32_t flags = 0;

	while (!(flags & TRACED_DUMP_DONE)) {
		long err = traced_pager_next(p, &data, &len, &flags);
		if (err < 0) {
			return err;
		}
	}
	return 0;
}

/* STATS, HIST and BULK at SELF level, with memory gone: each answers or refuses. */
static void ask_traced(void)
{
	memset(&stats_req, 0, sizeof(stats_req));
	stats_req.form = TRACED_STATS_TABLE;
	traced_pager_stats(&pager, &stats_req);
	say("stats", drain(&pager));

	char why[128];
	char *words[] = {"syscall"};
	memset(&stats_req, 0, sizeof(stats_req));
	long err = traced_hist_parse(1, words, &stats_req, why, sizeof(why));
	if (!err) {
		traced_pager_stats(&pager, &stats_req);
		err = drain(&pager);
	}
	say("hist", err);
}

/* The BULK frame is made up front: a client at its limit could not make one. */
static long bulk_prepare(void)
{
	struct traced_filter all;

	memset(&all, 0, sizeof(all));
	return traced_pager_bulk(&bulk_pager, &all, BULK_BYTES);
}

/*
 * The kernel copies into one untouched page after another: each that gets
 * a frame takes the tree further, so one is refused. Returns its error.
 */
static long write_new_pages(long pages)
{
	for (long i = 0; pages >= 0 && i < NEW_PAGES; i++) {
		long err = sys_sys_info((struct sys_info *)(pages + i * PAGE_SIZE_USER));
		if (err) {
			return err;
		}
	}
	return 0;
}

static void hold(long children)
{
	long refusal = 0;

	touch_stack();
	memset(&pager, 0, sizeof(pager));
	memset(&stats_req, 0, sizeof(stats_req));
	/* A request first: the lookup of traced and the IPC buffer come before the grab. */
	long ncpus = traced_num_cpus();
	if (ncpus < 0) {
		printf("memhog: traced: %s\n", strerror((int)-ncpus));
	}
	long bulk = bulk_prepare();
	long pages = sys_mem_map_anon(NULL, NEW_PAGES * PAGE_SIZE_USER, PROT_READ | PROT_WRITE);
	printf("memhog: grabbing, with %ld children\n", children);
	spawn_gated(children, "memhog\0grab", sizeof("memhog\0grab"));
	uint64_t taken = grab(&refusal);
	sys_sleep_ns(GRAB_SETTLE_NS);
	taken += grab(&refusal);
	printf("memhog: holding %llu KiB (frame_create: %s)\n", (unsigned long long)(taken / 1024),
	       strerror((int)-refusal));
	long err = pages < 0 ? pages : write_new_pages(pages);
	printf("memhog: sys_info into new pages: %s\n", err ? strerror((int)-err) : "all written");
	ask_traced();
	say("bulk", bulk < 0 ? bulk : drain(&bulk_pager));
	for (;;) {
		sys_sleep_ns(SLEEP_NS);
	}
}

static void regions(long children)
{
	long refusal = 0;

	touch_stack();
	printf("memhog: mapping, with %ld children\n", children);
	spawn_gated(children, "memhog\0region", sizeof("memhog\0region"));
	grab(&refusal);
	long n = map_regions(&refusal);
	sys_sleep_ns(GRAB_SETTLE_NS);
	n += map_regions(&refusal);
	printf("memhog: mapped %ld regions (mem_map_anon: %s)\n", n, strerror((int)-refusal));
	for (;;) {
		sys_sleep_ns(SLEEP_NS);
	}
}

static void late(long pages)
{
	struct sys_info info;

	touch_stack();
	long base = sys_mem_map_anon(NULL, (size_t)pages * PAGE_SIZE_USER, PROT_READ | PROT_WRITE);
	if (base < 0) {
		printf("memhog: mem_map_anon: %s\n", strerror((int)-base));
		exit(1);
	}
	printf("memhog: waiting for memory to run out\n");
	do {
		sys_sleep_ns(POLL_NS);
		sys_sys_info(&info);
	} while (info.frames_free > info.frames_reserved);
	for (long i = 0; i < pages; i++) {
		*(volatile uint8_t *)(base + i * PAGE_SIZE_USER) = 1;
	}
	printf("memhog: touched %ld new pages\n", pages);
	for (;;) {
		sys_sleep_ns(SLEEP_NS);
	}
}

static int locks(void)
{
	struct sys_info info;
	long err = sys_sys_info(&info);

	if (err) {
		printf("memhog: sys_info: %s\n", strerror((int)-err));
		return 1;
	}
	printf("memhog: lock takings: pmm %llu heap %llu\n",
	       (unsigned long long)info.pmm_lock_takings,
	       (unsigned long long)info.heap_lock_takings);
	return 0;
}

int main(int argc, char **argv)
{
	/* CHILDREN, or late's PAGES */
	long children = argc > 2 ? strtol(argv[2], NULL, 10) : 0;

	if (argc < 2 || children < 0 || children > CHILDREN_MAX) {
		printf("memhog: usage: memhog anon|hold|regions|late [N <= %d] | locks\n",
		       CHILDREN_MAX);
		return 2;
	}
	if (!strcmp(argv[1], "anon")) {
		spawn_children(children, "memhog\0eat", sizeof("memhog\0eat"), -1);
		eat();
	} else if (!strcmp(argv[1], "eat")) {
		eat();
	} else if (!strcmp(argv[1], "hold")) {
		hold(children);
	} else if (!strcmp(argv[1], "locks")) {
		return locks();
	} else if (!strcmp(argv[1], "late")) {
		late(children);
	} else if (!strcmp(argv[1], "regions")) {
		regions(children);
	} else if (!strcmp(argv[1], "region")) {
		long refusal;
		gate_pass();
		map_regions(&refusal);
		for (;;) {
			sys_sleep_ns(SLEEP_NS);
		}
	} else if (!strcmp(argv[1], "grab")) {
		long refusal;
		gate_pass();
		grab(&refusal);
		for (;;) {
			sys_sleep_ns(SLEEP_NS);
		}
	}
	printf("memhog: unknown mode '%s' (known: anon hold regions late locks)\n", argv[1]);
	return 2;
}
