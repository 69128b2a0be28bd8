/*
 * fault KIND [MS]: makes one deliberate fault of the given kind, MS ms of
 * the guest's time after it starts (default at once), so that tests can
 * see the kernel kill just this process with one line saying why. The
 * delay puts the fault at a moment of the guest's own timeline, not at one
 * the host's typing decides.
 * Every bad address and operand goes through an empty asm statement: the
 * compiler cannot see the value, so it can neither fold the fault away
 * nor replace it with a trap of its own.
 */
#include <spoor.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONCANONICAL	  0x8000000000000000ull /* bit 63 set, bits 47..62 clear: not canonical */
#define STACK_FRAME_BYTES 512

/* Hides v from the optimiser. */
#define COM2_DATA 0x2f8 /* the export channel's serial port */
#define OPAQUE(v) __asm__ volatile("" : "+r"(v))

/* A `ret` in the data segment: present and readable, never executable. */
static uint8_t data_code[] = {0xc3};

static int fault_null(void)
{
	volatile uint8_t *p = NULL;

	OPAQUE(p);
	return *p;
}

static int fault_write(void)
{
	volatile uint8_t *p = (volatile uint8_t *)(uintptr_t)fault_write;

	OPAQUE(p);
	*p = 0;
	return 0;
}

static int fault_exec(void)
{
	void (*fn)(void) = (void (*)(void))(uintptr_t)data_code;

	OPAQUE(fn);
	fn();
	return 0;
}

static int fault_gpf(void)
{
	volatile uint64_t *p = (volatile uint64_t *)NONCANONICAL;

	OPAQUE(p);
	return (int)*p;
}

static int fault_ud(void)
{
	__asm__ volatile("ud2");
	return 0;
}

static int fault_divide(void)
{
	int zero = 0;
	int one = 1;

	OPAQUE(zero);
	OPAQUE(one);
	return one / zero;
}

/* An I/O instruction of its own: user space has no I/O privilege (abi/cap.h). */
static int fault_ioport(void)
{
	__asm__ volatile("outb %0, %1" : : "a"((uint8_t)'x'), "Nd"((uint16_t)COM2_DATA));
	return 0;
}

/* A depth the stack runs out long before: it only shows the compiler that recursion ends. */
static volatile int never_depth = -1;

/* Each call keeps a frame's worth of stack in use across the next call: no tail call, no loop. */
static int recurse(int depth)
{
	volatile uint8_t frame[STACK_FRAME_BYTES];

	if (depth == never_depth) {
		return 0;
	}
	frame[0] = (uint8_t)depth;
	return recurse(depth + 1) + frame[0];
}

static int fault_stack(void)
{
	return recurse(0);
}

static const struct kind {
	const char *name;
	const char *what;
	int (*run)(void);
} kinds[] = {
    {"null", "read address 0", fault_null},
    {"write", "write to its own (read-only) text", fault_write},
    {"exec", "jump into a non-executable data page", fault_exec},
    {"gpf", "read a non-canonical address", fault_gpf},
    {"ud", "execute ud2", fault_ud},
    {"divide", "divide an integer by zero", fault_divide},
    {"stack", "recurse without end", fault_stack},
    {"ioport", "write to COM2's port without a capability", fault_ioport},
};

#define NUM_KINDS (sizeof(kinds) / sizeof(kinds[0]))

int main(int argc, char **argv)
{
	char *end = NULL;
	unsigned long long ms = argc == 3 ? strtoull(argv[2], &end, 10) : 0;
	bool usable = argc == 2 || (argc == 3 && argv[2][0] >= '0' && argv[2][0] <= '9' && !*end);

	for (size_t i = 0; usable && i < NUM_KINDS; i++) {
		if (!strcmp(argv[1], kinds[i].name)) {
			if (ms) {
				sys_sleep_ns(ms * 1000000ull);
			}
			printf("fault: %s: %s\n", kinds[i].name, kinds[i].what);
			fflush(stdout);
			kinds[i].run();
			printf("fault: %s: no fault happened\n", kinds[i].name);
			return 1;
		}
	}
	printf("usage: fault KIND [MS], where KIND is one of:\n");
	for (size_t i = 0; i < NUM_KINDS; i++) {
		printf("  %-7s %s\n", kinds[i].name, kinds[i].what);
	}
	return 2;
}
