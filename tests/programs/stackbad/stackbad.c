/*
 * stackbad MODE: system calls made with a hostile frame pointer, for the
 * stack walker's tests (trace stack on syscall_entry). MODE is
 *   kernel     rbp points into the kernel's half
 *   unmapped   rbp points at user memory nothing maps
 *   loop       rbp points at a frame whose saved rbp is itself
 *   kret       rbp points at a frame whose return address is the kernel's
 *   race       rbp points at a chain another thread keeps rewriting
 * Each makes CALLS getpid calls, then prints "stackbad: MODE done".
 */
#include <spoor.h>
#include <stdio.h>
#include <string.h>

#define CALLS	    64
#define KERNEL_ADDR 0xffffffff80100000ull /* the kernel's text */
#define UNMAPPED    0x0000100000000000ull /* far above anything a program maps */
#define RED_ZONE    128			  /* bytes below rsp a leaf may use (SysV ABI) */
#define RACE_STACK  16384

/* getpid with rbp = fp for the duration of the syscall. */
static long getpid_with_fp(uint64_t fp)
{
	long r = SYS_getpid;

	__asm__ volatile("sub %[rz], %%rsp\n\t"
			 "push %%rbp\n\t"
			 "mov %[fp], %%rbp\n\t"
			 "syscall\n\t"
			 "pop %%rbp\n\t"
			 "add %[rz], %%rsp"
			 : "+a"(r)
			 : [fp] "r"(fp), [rz] "i"(RED_ZONE)
			 : "rcx", "r11", "memory");
	return r;
}

/* Two frames the race thread rewrites: frame[0..1] and frame[2..3]. */
static volatile uint64_t chain[4];
static volatile int racing = 1;

static int rewrite(void *arg)
{
	(void)arg;
	for (uint64_t n = 0; racing; n++) {
		/* a good link up, itself, the kernel, or nowhere, in turn */
		uint64_t links[] = {(uint64_t)(uintptr_t)&chain[2], (uint64_t)(uintptr_t)&chain[0],
				    KERNEL_ADDR, UNMAPPED};
		chain[0] = links[n % 4];
		chain[1] = n & 1 ? KERNEL_ADDR : (uint64_t)(uintptr_t)rewrite;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static uint64_t frame[2];
	uint64_t fp;
	int tid = -1;

	if (argc != 2) {
		printf("usage: stackbad kernel|unmapped|loop|kret|race\n");
		return 1;
	}
	if (!strcmp(argv[1], "kernel")) {
		fp = KERNEL_ADDR;
	} else if (!strcmp(argv[1], "unmapped")) {
		fp = UNMAPPED;
	} else if (!strcmp(argv[1], "loop")) {
		frame[0] = (uint64_t)(uintptr_t)frame;
		frame[1] = (uint64_t)(uintptr_t)main;
		fp = (uint64_t)(uintptr_t)frame;
	} else if (!strcmp(argv[1], "kret")) {
		frame[0] = 0;
		frame[1] = KERNEL_ADDR;
		fp = (uint64_t)(uintptr_t)frame;
	} else if (!strcmp(argv[1], "race")) {
		chain[2] = 0;
		chain[3] = (uint64_t)(uintptr_t)main;
		tid = thread_spawn(rewrite, NULL, RACE_STACK);
		if (tid < 0) {
			printf("stackbad: no thread: %d\n", tid);
			return 1;
		}
		fp = (uint64_t)(uintptr_t)chain;
	} else {
		printf("usage: stackbad kernel|unmapped|loop|kret|race\n");
		return 1;
	}
	for (int i = 0; i < CALLS; i++) {
		getpid_with_fp(fp);
	}
	if (tid >= 0) {
		racing = 0;
		thread_join(tid, NULL);
	}
	printf("stackbad: %s done\n", argv[1]);
	return 0;
}
