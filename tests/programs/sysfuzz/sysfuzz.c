/*
 * sysfuzz SEED COUNT [verbose]: makes COUNT system calls with numbers and
 * arguments drawn from a PRNG seeded with SEED, so a run is repeatable.
 * Numbers include ones past the last syscall and negative ones; arguments
 * come from values that break careless kernels: 0, -1, small integers,
 * huge lengths, kernel and non-canonical addresses, unmapped and
 * misaligned user addresses, and pointers into its own scratch buffers
 * and read-only text. Each error returned must be one of abi/errno.def.
 * Prints "sysfuzz: COUNT calls, E errors" and exits 0, or exits 1 after
 * naming a call that returned an unknown error. With verbose, each call
 * is printed before it is made, to find the one that upset the kernel.
 *
 * The fuzzer must outlive its own calls, so a few are steered:
 *   - exit, thread_exit and thread_create are never made;
 *   - sleep and wait time-outs are cut to a millisecond, console reads
 *     only poll, and console writes are cut to a few bytes so the log
 *     stays readable;
 *   - ipc_call, ipc_recv and ipc_reply_recv always get a struct
 *     ipc_extra with a time-out of at most a millisecond (fuzzed in its
 *     other fields), or a kernel or non-canonical pointer for one: without
 *     it they wait for ever on an endpoint nobody serves;
 *   - mem_unmap and mem_protect never touch the program image, the stack
 *     or the scratch buffers: such a range moves into the scratch arena;
 *   - cap_delete leaves the console slot alone (the summary needs it);
 *   - frame objects stay small, so that a table full of them cannot take
 *     all memory from the rest of the system;
 *   - anonymous regions stay under a gigabyte: unmap, protect and
 *     copy-on-write copies take time in proportion to a region's length,
 *     touched or not, and a region of terabytes would keep the fuzzer in
 *     the kernel for hours.
 * The kernel only ever writes through pointers into the scratch buffers
 * and the arena: both lie at fixed addresses away from everything else.
 * The console it gets from init has no CAP_RIGHT_POWER, so poweroff fails.
 */
#include <errno.h>
#include <spoor.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi/ipc.h"

#define PAGE		  PAGE_SIZE_USER
#define USER_TOP	  (1ull << 47) /* the first non-canonical address */
#define BUF_ADDR	  (USER_MAP_BASE + (1ull << 30))
#define BUF_PAGES	  16
#define BUF_BYTES	  (BUF_PAGES * PAGE)
#define ARENA_ADDR	  (USER_MAP_BASE + (2ull << 30))
#define ARENA_PAGES	  64
#define STACK_RESERVE	  (USER_STACK_TOP - USER_STACK_SIZE - (1ull << 20)) /* stack, guard, slack */
#define TIMEOUT_MAX_NS	  1000000
#define CONSOLE_WRITE_MAX 16
#define FRAME_SIZE_MAX	  (1ull << 20)
#define FRAME_SIZE_CUT	  (1ull << 32) /* sizes from here on are refused by the kernel anyway */
#define REGION_MAX	  (1ull << 30)
#define REGION_CUT	  (USER_MAP_END - USER_MAP_BASE) /* longer regions are refused */
#define EXTRA_NUMBERS	  4				 /* numbers drawn past the last syscall */
#define IPC_LEN_MAX	  (IPC_BUF_MAX + 2)
#define ARGS		  6
#define HIGH_WORDS	  5    /* message words 3..7 (rbx, r12..r15); 0..2 are arguments 3..5 */
#define ERRNO_MAX	  4095 /* kernel errors are small numbers; anything lower is not one */

/*
 * A call that can block needs a rule in steer(). Whoever adds syscalls
 * decides whether they do, adds the rule, and then moves this number
 * (trace_wake, 48, never blocks: it arms and returns; trace_filter, 49, takes
 * the trace-control capability no program the shell starts holds; func_info,
 * 50, and trace_func, 51, wait only for the function tracer's mutex and a stop
 * of the other CPUs, and trace_func needs a trace-control capability;
 * trace_trigger, 52, takes that capability too, as trace_filter; trace_note,
 * 53, takes it too and never blocks; probe_info, 54, waits only for the
 * probes' mutex, and trace_probe, 55, as trace_func, needs a trace-control
 * capability).
 */
_Static_assert(SYS_COUNT == 56, "new syscalls: give the blocking ones a rule in steer()");

static uint64_t rng_state;

/* splitmix64: small, fast, and every seed gives a good sequence. */
static uint64_t rng(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t pick(const uint64_t *table, size_t n)
{
	return table[rng() % n];
}

#define PICK(table) pick(table, sizeof(table) / sizeof(table[0]))

static const uint64_t odd_numbers[] = {
    SYS_COUNT,
    SYS_COUNT + 1,
    255,
    256,
    0x7fffffff,
    0x80000000,
    (1ull << 32) + SYS_yield,
    UINT64_MAX,
    INT64_MAX,
    (uint64_t)INT64_MIN,
    (uint64_t)-2,
    (uint64_t)-SYS_COUNT,
};

static const uint64_t integers[] = {
    0,
    1,
    2,
    3,
    7,
    8,
    9,
    63,
    64,
    65,
    255,
    256,
    0x7fffffff,
    0x80000000,
    0xffffffff,
    1ull << 32,
    UINT64_MAX,
    UINT64_MAX - 1,
    INT64_MAX,
    (uint64_t)INT64_MIN,
    CAP_RIGHTS_ALL,
    PROT_READ | PROT_WRITE | PROT_EXEC,
    0xff,
};

static const uint64_t lengths[] = {
    0,
    1,
    8,
    PAGE - 1,
    PAGE,
    PAGE + 1,
    2 * PAGE,
    16 * PAGE,
    1ull << 20,
    1ull << 30,
    1ull << 40,
    1ull << 47,
    1ull << 63,
    UINT64_MAX,
    UINT64_MAX - PAGE + 2,
    UINT64_MAX - 2 * PAGE,
    USER_MAP_END - USER_MAP_BASE,
    USER_MAP_END - USER_MAP_BASE + PAGE,
};

static const uint64_t kernel_addresses[] = {
    0xffffffff80000000ull, 0xffffffff80100000ull, 0xffff800000000000ull,
    0xffff800000001000ull, 0xffff800000100000ull, 0xfffffffffffff000ull,
    0xfffffffffffffff8ull, 0xffffffffffffffffull, 0xffff800000000000ull - 8,
};

static const uint64_t noncanonical_addresses[] = {
    USER_TOP,
    USER_TOP + PAGE,
    USER_TOP - 1,
    0x0000ffffffffffffull,
    0x8000000000000000ull,
    0x7fffffffffffffffull,
    0x00ff000000000000ull,
    0x1000000000000000ull,
};

static const uint64_t unmapped_addresses[] = {
    0x1,
    0x1000,
    0xfff8,
    0x200000,
    USER_MAP_BASE - PAGE,
    USER_MAP_END - PAGE,
    USER_MAP_END,
    USER_STACK_TOP - USER_STACK_SIZE - 8, /* the stack's guard */
    USER_STACK_TOP,
    USER_TOP - PAGE,
    USER_TOP - 8,
    BUF_ADDR - 8, /* straddles into the scratch buffers */
    BUF_ADDR + BUF_BYTES - 3,
};

/* A pointer somewhere in the scratch buffers, often misaligned or running off their end. */
static uint64_t buffer_pointer(void)
{
	uint64_t r = rng();

	switch (r % 4) {
	case 0:
		return BUF_ADDR;
	case 1:
		return BUF_ADDR + (r >> 8) % BUF_BYTES;
	case 2:
		return BUF_ADDR + BUF_BYTES - (r >> 8) % 64;
	default:
		return BUF_ADDR + ((r >> 8) % BUF_PAGES) * PAGE;
	}
}

static uint64_t arena_pointer(void)
{
	uint64_t r = rng();

	return ARENA_ADDR + ((r >> 8) % ARENA_PAGES) * PAGE + (r % 8 == 0 ? r % PAGE : 0);
}

/* A pointer into read-only text or data: the kernel may read there, never write. */
static uint64_t readonly_pointer(void)
{
	static const char text[] = "sysfuzz read-only data";
	uint64_t r = rng();

	return r % 2 ? (uint64_t)(uintptr_t)text + r % sizeof(text) : (uint64_t)(uintptr_t)rng;
}

static uint64_t argument(void)
{
	switch (rng() % 11) {
	case 0:
		return rng() % 16;
	case 1:
		return PICK(integers);
	case 2:
		return PICK(lengths);
	case 3:
		return PICK(kernel_addresses);
	case 4:
		return PICK(noncanonical_addresses);
	case 5:
		return PICK(unmapped_addresses);
	case 6:
	case 7:
		return buffer_pointer();
	case 8:
		return arena_pointer();
	case 9:
		return readonly_pointer();
	default:
		return rng();
	}
}

static uint64_t number(void)
{
	for (;;) {
		uint64_t nr = rng() % 8 ? rng() % (SYS_COUNT + EXTRA_NUMBERS) : PICK(odd_numbers);
		if (nr != SYS_exit && nr != SYS_thread_exit && nr != SYS_thread_create) {
			return nr;
		}
	}
}

static bool overlaps(uint64_t start, uint64_t end, uint64_t lo, uint64_t hi)
{
	return start < hi && lo < end;
}

/*
 * Whether unmapping or protecting [addr, addr + len) could reach this
 * program's own memory. The kernel rounds to pages; a range it would
 * refuse (addr not a user address) is harmless. An end past 2^64 counts
 * as reaching everything above addr.
 */
static bool touches_own(uint64_t addr, uint64_t len)
{
	uint64_t start = addr & ~(uint64_t)(PAGE - 1);
	uint64_t end = addr + len + PAGE - 1;

	if (start >= USER_TOP) {
		return false;
	}
	if (end < addr) {
		end = UINT64_MAX;
	}
	return overlaps(start, end, 0, USER_MAP_BASE) ||
	       overlaps(start, end, BUF_ADDR, BUF_ADDR + BUF_BYTES) ||
	       overlaps(start, end, STACK_RESERVE, USER_TOP);
}

/* The ipc_extra that IPC calls get: fuzzed, but never waiting long. */
static struct ipc_extra ipc_extra;

/* A pointer the kernel may write through: scratch memory, read-only text, or a bad address. */
static uint64_t writable_or_bad_pointer(void)
{
	switch (rng() % 6) {
	case 0:
		return PICK(kernel_addresses);
	case 1:
		return PICK(noncanonical_addresses);
	case 2:
		return readonly_pointer();
	case 3:
		return arena_pointer();
	default:
		return buffer_pointer();
	}
}

static uint64_t ipc_extra_pointer(uint64_t arg)
{
	if (arg >= USER_TOP) {
		return arg; /* not a user address: the kernel must refuse it before waiting */
	}
	ipc_extra = (struct ipc_extra){
	    .timeout_ns = rng() % (TIMEOUT_MAX_NS + 1),
	    .send_buf = argument(),
	    .send_len = (uint32_t)(rng() % 4 ? rng() % IPC_LEN_MAX : rng()),
	    .send_cap = (uint32_t)(rng() % 2 ? rng() % 16 : IPC_NO_CAP),
	    .send_cap_rights = (uint32_t)rng(),
	    .recv_max = (uint32_t)(rng() % 4 ? rng() % IPC_LEN_MAX : rng()),
	    .recv_buf = writable_or_bad_pointer(),
	};
	return (uint64_t)(uintptr_t)&ipc_extra;
}

/* Bends the arguments of the few calls that could end the fuzzer or the system (see above). */
static void steer(uint64_t nr, uint64_t a[ARGS])
{
	switch (nr) {
	case SYS_sleep_ns:
		a[0] %= TIMEOUT_MAX_NS + 1;
		break;
	case SYS_wait:
		a[2] %= TIMEOUT_MAX_NS + 1;
		break;
	case SYS_console_read:
		a[3] = 0;
		break;
	case SYS_ipc_call:
	case SYS_ipc_recv:
	case SYS_ipc_reply_recv:
		a[2] = ipc_extra_pointer(a[2]);
		break;
	case SYS_console_write:
		a[2] %= CONSOLE_WRITE_MAX + 1;
		break;
	case SYS_mem_unmap:
	case SYS_mem_protect:
		if (touches_own(a[0], a[1])) {
			uint64_t first = rng() % ARENA_PAGES;
			a[0] = ARENA_ADDR + first * PAGE;
			a[1] = (1 + rng() % (ARENA_PAGES - first)) * PAGE - rng() % 2;
		}
		break;
	case SYS_cap_delete:
		if ((uint32_t)a[0] == CAP_SLOT_CONSOLE) {
			a[0] = 1 + rng() % (CAP_SLOTS + 2);
		}
		break;
	case SYS_mem_map_anon:
		if (a[1] > REGION_MAX && a[1] <= REGION_CUT) {
			a[1] %= REGION_MAX + 1;
		}
		break;
	case SYS_frame_create:
		if (a[0] > FRAME_SIZE_MAX && a[0] < FRAME_SIZE_CUT) {
			a[0] %= FRAME_SIZE_MAX + 1;
		}
		break;
	default:
		break;
	}
}

/*
 * One system call with every argument register set: the six arguments
 * and, for IPC, the eight message words. The kernel may rewrite the
 * argument registers and the message words (abi/ipc.h), so all of them
 * are outputs or clobbers here, unlike in spoor.h's wrappers.
 */
static long raw_syscall(uint64_t nr, const uint64_t a[ARGS], const uint64_t w[HIGH_WORDS])
{
	register uint64_t rdi __asm__("rdi") = a[0];
	register uint64_t rsi __asm__("rsi") = a[1];
	register uint64_t rdx __asm__("rdx") = a[2];
	register uint64_t r10 __asm__("r10") = a[3]; /* also word 0 */
	register uint64_t r8 __asm__("r8") = a[4];   /* word 1 */
	register uint64_t r9 __asm__("r9") = a[5];   /* word 2 */
	register uint64_t r12 __asm__("r12") = w[0];
	register uint64_t r13 __asm__("r13") = w[1];
	register uint64_t r14 __asm__("r14") = w[2];
	register uint64_t r15 __asm__("r15") = w[3];
	register uint64_t rbx __asm__("rbx") = w[4];
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret), "+r"(rdi), "+r"(rsi), "+r"(rdx), "+r"(r10), "+r"(r8),
			   "+r"(r9), "+r"(r12), "+r"(r13), "+r"(r14), "+r"(r15), "+r"(rbx)
			 : "a"(nr)
			 : "rcx", "r11", "memory");
	return ret;
}

static bool known_error(long r)
{
	if (r < -ERRNO_MAX) {
		return false;
	}
	switch (-r) {
#define ERRNO(name, value, text) case name:
#include "abi/errno.def"
#undef ERRNO
		return true;
	default:
		return false;
	}
}

static int map_fixed(uint64_t addr, size_t len)
{
	long r = sys_mem_map_anon((void *)(uintptr_t)addr, len, PROT_READ | PROT_WRITE);

	if (r != (long)addr) {
		printf("sysfuzz: cannot map scratch memory at 0x%llx: %s\n",
		       (unsigned long long)addr, r < 0 ? strerror((int)-r) : "moved");
		return -1;
	}
	return 0;
}

static long parse(const char *s)
{
	char *end;
	long v = strtol(s, &end, 0);

	return end == s || *end || v < 0 ? -1 : v;
}

int main(int argc, char **argv)
{
	bool verbose = argc == 4 && !strcmp(argv[3], "verbose");
	long seed = argc >= 3 ? parse(argv[1]) : -1;
	long count = argc >= 3 ? parse(argv[2]) : -1;
	long errors = 0;

	if (seed < 0 || count < 0 || (argc != 3 && !verbose)) {
		printf("usage: sysfuzz SEED COUNT [verbose]\n");
		return 2;
	}
	rng_state = (uint64_t)seed;
	if (map_fixed(BUF_ADDR, BUF_BYTES) || map_fixed(ARENA_ADDR, ARENA_PAGES * PAGE)) {
		return 1;
	}
	uint64_t *buf = (uint64_t *)(uintptr_t)BUF_ADDR;
	for (size_t i = 0; i < BUF_BYTES / sizeof(*buf); i++) {
		buf[i] = i % 4 ? rng() : argument(); /* data that looks like pointers, too */
	}
	for (long i = 0; i < count; i++) {
		uint64_t nr = number();
		uint64_t a[ARGS];
		uint64_t words[HIGH_WORDS];
		for (int j = 0; j < ARGS; j++) {
			a[j] = argument();
		}
		for (int j = 0; j < HIGH_WORDS; j++) {
			words[j] = argument();
		}
		steer(nr, a);
		if (verbose) {
			printf(
			    "sysfuzz: %ld: %lld(0x%llx, 0x%llx, 0x%llx, 0x%llx, 0x%llx, 0x%llx)\n",
			    i, (long long)nr, (unsigned long long)a[0], (unsigned long long)a[1],
			    (unsigned long long)a[2], (unsigned long long)a[3],
			    (unsigned long long)a[4], (unsigned long long)a[5]);
			fflush(stdout);
		}
		long r = raw_syscall(nr, a, words);
		if (r >= 0) {
			continue;
		}
		errors++;
		if (!known_error(r)) {
			printf("\nsysfuzz: call %ld: syscall %lld returned %ld, not an error of "
			       "abi/errno.def\n",
			       i, (long long)nr, r);
			return 1;
		}
	}
	/* The fuzzed console writes may have left a line open: start a new one. */
	printf("\nsysfuzz: %ld calls, %ld errors\n", count, errors);
	return 0;
}
