/*
 * stack: the walker (stack.h). A frame is two words at the frame pointer:
 * the caller's frame pointer, then the return address. Each frame must
 * lie above the one before it, which bounds every walk even on a stack
 * that points at itself; the kernel's must also lie on the thread's
 * kernel stack and return into kernel text, the user's below USER_TOP.
 */
#include "trace/stack.h"

#include "arch/x86_64/idt.h"
#include "arch/x86_64/percpu.h"
#include "mm/memlayout.h"
#include "mm/usercopy.h"
#include "sched/thread.h"

extern char _kernel_start[], _text_end[];

static bool kernel_text(uint64_t ip)
{
	return ip >= (uintptr_t)_kernel_start && ip < (uintptr_t)_text_end;
}

/*
 * The kernel's frames from s into frames[0..room); sets *cut if they go
 * on past the room. The walk ends, whole, where the chain leaves the
 * kernel stack: at the entry from user mode (its frame pointer is the
 * user's) or at a thread's first frame (0).
 */
static uint32_t walk_kernel(const struct stack_start *s, uint64_t *frames, uint32_t room, bool *cut)
{
	const struct thread *t = this_cpu()->current;
	uint64_t lo = t ? (uintptr_t)t->kstack : 0, hi = lo + KSTACK_SIZE;
	uint64_t fp = s->kernel_fp;
	uint32_t n = 0;

	if (s->kernel_ip && n < room) {
		frames[n++] = s->kernel_ip;
	}
	while (lo && fp >= lo && fp <= hi - 2 * sizeof(uint64_t) && !(fp & 7)) {
		const uint64_t *f = (const uint64_t *)(uintptr_t)fp;

		if (!kernel_text(f[1])) {
			break;
		}
		if (n == room) {
			*cut = true;
			break;
		}
		frames[n++] = f[1];
		if (f[0] < lo || f[0] >= hi) {
			break; /* the user's frame pointer, or a thread's first frame: the end */
		}
		if (f[0] <= fp) {
			*cut = true;
			break;
		}
		fp = f[0];
	}
	return n;
}

/*
 * The user's frames: its ip, then each return address its frame pointers
 * lead to, at most TTRACE_STACK_USER_MAX and room. Whole when the chain
 * ends at frame pointer 0 (crt0 clears it); cut at anything else.
 */
static uint32_t walk_user(const struct trap_frame *u, uint64_t *frames, uint32_t room, bool *cut)
{
	uint32_t max = room < TTRACE_STACK_USER_MAX ? room : TTRACE_STACK_USER_MAX;
	uint64_t fp = u->rbp;
	uint32_t n = 0;

	if (u->rip >= USER_TOP || !max) {
		*cut = true;
		return 0;
	}
	frames[n++] = u->rip;
	while (fp) {
		uint64_t f[2];

		if (n == max || fp >= USER_TOP || (fp & 7) ||
		    copy_from_user_nofault(f, fp, sizeof(f)) || f[1] >= USER_TOP) {
			*cut = true;
			break;
		}
		if (!f[1]) {
			break; /* a zero return address: the outermost frame */
		}
		frames[n++] = f[1];
		if (f[0] && f[0] <= fp) {
			*cut = true;
			break;
		}
		fp = f[0];
	}
	return n;
}

uint64_t stack_walk(const struct stack_start *s, uint64_t *frames)
{
	bool kcut = false, ucut = false;
	uint32_t nk = 0, nu = 0;

	if (s->kernel_fp || s->kernel_ip) {
		nk = walk_kernel(s, frames, TTRACE_STACK_FRAMES_MAX, &kcut);
	}
	if (s->user) {
		nu = walk_user(s->user, frames + nk, TTRACE_STACK_FRAMES_MAX - nk, &ucut);
	}
	return TTRACE_STACK_MAKE(nk, nu,
				 (kcut ? TTRACE_STACK_KCUT : 0) | (ucut ? TTRACE_STACK_UCUT : 0));
}

const struct trap_frame *stack_user_regs(void)
{
	const struct thread *t = this_cpu()->current;

	return t && t->proc ? t->frame : NULL;
}

uint8_t stack_event(uint64_t *out, const uint64_t *data, uint8_t nwords,
		    const struct stack_start *s)
{
	for (uint32_t i = 0; i < TTRACE_STACK_WORD; i++) {
		out[i] = i < nwords ? data[i] : 0;
	}
	uint64_t word = stack_walk(s, out + TTRACE_STACK_WORD + 1);

	out[TTRACE_STACK_WORD] = word;
	return (uint8_t)(TTRACE_STACK_WORD + 1 + TTRACE_STACK_NKERNEL(word) +
			 TTRACE_STACK_NUSER(word));
}
