/*
 * gen_stacks: the stacks trace (gen.h gen_stacks()). Its frames are the
 * caller's addresses, so a check can point them at an ELF file it built
 * and knows the functions of.
 */
#include "gen.h"

#include "abi/trace.h"

/*
 * The stack word as abi/trace.h's CALL STACKS lays it out, written out bit
 * by bit rather than with TTRACE_STACK_MAKE(), which the kernel writes
 * with and the reader's macros mirror: a layout wrong in both would agree
 * with itself. It is data[5], the first word after the head's five; tag
 * "ST" in bits 48-63, the user's cut bit 17, the kernel's bit 16, nuser
 * in bits 8-15, nkernel in bits 0-7.
 */
#define STACK_AT       5
#define STACK_TAG      (0x5354ull << 48)
#define STACK_USER_CUT (1ull << 17)

/* An event of kind with its words (at most STACK_AT) and a stack of nk + nu frames. */
static void stacked(struct gen *g, uint64_t us, uint16_t kind, uint32_t pid, const uint64_t *w,
		    uint32_t nw, const uint64_t *frames, uint32_t nk, uint32_t nu, uint64_t cut)
{
	uint64_t data[TTRACE_EVENT_WORDS_MAX] = {0};

	for (uint32_t i = 0; i < nw; i++) {
		data[i] = w[i];
	}
	data[STACK_AT] = STACK_TAG | cut | (uint64_t)nu << 8 | nk;
	for (uint32_t i = 0; i < nk + nu; i++) {
		data[STACK_AT + 1 + i] = frames[i];
	}
	gen_event(g, 0, gen_ts(us), kind, pid ? TTRACE_CTX_IRQ : TTRACE_CTX_KERNEL, pid, pid, data,
		  STACK_AT + 1 + nk + nu);
}

void gen_stacks(struct gen *g, const uint64_t *a)
{
	/* a: hot's ip, middle's return into it, _start's into middle, a kernel ip */
	const uint64_t user[] = {a[0], a[1], a[2]};
	const uint64_t both[] = {a[3], a[0], a[1], a[2]};
	const uint64_t cut[] = {a[0], 0x7fe0001234};

	gen_init(g, 1);
	gen_durable(g, TTRACE_AUX_SYSCALL, 1, "write");
	uint64_t prog = gen_aux(g, TTRACE_AUX_PROC, 3, "prog");
	gen_event(g, 0, gen_ts(10), TTRACE_KIND_proc_spawn, TTRACE_CTX_SYSCALL, 1, 1,
		  (const uint64_t[]){3, 1, prog}, 3);
	for (uint32_t i = 0; i < 3; i++) {
		stacked(g, 20 + i, TTRACE_KIND_prof_sample, 3,
			(const uint64_t[]){a[0], TTRACE_PROF_USER}, 2, user, 0, 3, 0);
	}
	stacked(g, 30, TTRACE_KIND_prof_sample, 3, (const uint64_t[]){a[3], TTRACE_PROF_KERNEL}, 2,
		both, 1, 3, 0);
	stacked(g, 40, TTRACE_KIND_prof_sample, 3, (const uint64_t[]){a[0], TTRACE_PROF_USER}, 2,
		cut, 0, 2, STACK_USER_CUT);
	gen_event(g, 0, gen_ts(50), TTRACE_KIND_prof_sample, TTRACE_CTX_IRQ, 0, 0,
		  (const uint64_t[]){0xffffffff80100000ull, TTRACE_PROF_IDLE}, 2);
	stacked(g, 60, TTRACE_KIND_mem_pf, 3,
		(const uint64_t[]){0x500000, a[0], 6, TTRACE_PF_MAPPED}, 4, user, 0, 3, 0);
}
