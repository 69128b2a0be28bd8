/*
 * static_branch: tests that cost a 5-byte NOP while off and one jump while
 * on, turned by rewriting the kernel's code (what Linux calls static keys
 * or jump labels). A site
 *
 *	if (static_branch(KEY)) { work wanted rarely }
 *
 * compiles to a NOP where the test would be, the work out of the straight
 * path. The NOP's address, the work's and the site's key (a compile-time
 * mask of bits below 2^31) go into the section .static_branches, which
 * kernel.ld gathers between _static_branches_start and
 * _static_branches_end. static_branches_set() then makes every site whose
 * key meets a mask a jump to its work, and every other site the NOP again.
 *
 * A site may also have an alternative, work for while a second key meets
 * the mask too:
 *
 *	switch (static_branch_alt(KEY, ALT_KEY)) {
 *	case STATIC_BRANCH_ON: the work; break;
 *	case STATIC_BRANCH_ALT: the same work, the careful way; break;
 *	}
 *
 * The tracepoints keep their straight path free of tests for what is
 * rarely on this way (trace/tracepoint.h): one jump, to one or the other.
 *
 * Every site starts off: the NOP is what the compiler emitted. The code is
 * changed through the direct map, which aliases the read-only kernel text
 * writable; no other CPU may run meanwhile (smp_stop_others()).
 */
#ifndef SPOOR_ARCH_STATIC_BRANCH_H
#define SPOOR_ARCH_STATIC_BRANCH_H

#include <stdbool.h>
#include <stdint.h>

/*
 * One entry of .static_branches, as the asm below lays it out: addresses
 * as offsets from the field that holds them (the kernel's text is within
 * 2 GiB of its tables), 24 bytes a site. alt_key takes all 64 bits of a
 * mask (the tracepoints give each kind one: trace/tracepoint.h), key the
 * low 31.
 */
struct static_branch_site {
	int32_t code;	    /* the 5 bytes: a NOP (off) or a jmp rel32 to target or alt_target */
	int32_t target;	    /* the work */
	int32_t alt_target; /* the alternative work */
	uint32_t key;	    /* on while the mask has any of these bits */
	uint64_t alt_key;   /* on and with these bits too: jump to alt_target; 0 for none */
};

_Static_assert(sizeof(struct static_branch_site) == 24, "the .long and .quad lines below");

/* Where a site of static_branch_alt() jumps. */
enum static_branch_way {
	STATIC_BRANCH_OFF, /* nowhere: key is off */
	STATIC_BRANCH_ON,  /* to the work */
	STATIC_BRANCH_ALT, /* to the alternative work: alt_key is on too */
};

/* A site as it starts: nopl 0x0(%rax,%rax,1), the 5-byte NOP of SDM 2B "NOP", as asm. */
#define STATIC_BRANCH_NOP ".byte 0x0f, 0x1f, 0x44, 0x00, 0x00"

/*
 * The entry of .static_branches for the site at the asm label site, as
 * asm: its work at on, its alternative at alt, its keys (the asm's
 * operands or labels, as strings).
 */
#define STATIC_BRANCH_ENTRY(site, on, alt, key, alt_key)                                           \
	".pushsection .static_branches, \"a\"\n\t"                                                 \
	".balign 8\n\t"                                                                            \
	".long " site " - ., " on " - ., " alt " - ., " key "\n\t"                                 \
	".quad " alt_key "\n\t"                                                                    \
	".popsection"

/* True while key's site is on. key must be a compile-time constant. */
static inline __attribute__((always_inline)) bool static_branch(uint64_t key)
{
	__asm__ goto("1: " STATIC_BRANCH_NOP
		     "\n\t" STATIC_BRANCH_ENTRY("1b", "%l[on]", "%l[on]", "%c0", "0")
		     :
		     : "i"(key)
		     :
		     : on);
	return false;
on:
	return true;
}

/*
 * Where key's site goes: nowhere while key is off, else to the alternative
 * while alt_key is on too, else to the work. Both keys must be
 * compile-time constants (alt_key is printed with %P: %c refuses a
 * constant past 32 bits). The compiler turns the cases of a switch on the
 * result into the jump's targets: nothing is tested at run time.
 */
static inline __attribute__((always_inline)) enum static_branch_way
static_branch_alt(uint64_t key, uint64_t alt_key)
{
	__asm__ goto("1: " STATIC_BRANCH_NOP
		     "\n\t" STATIC_BRANCH_ENTRY("1b", "%l[on]", "%l[alt]", "%c0", "%P1")
		     :
		     : "i"(key), "i"(alt_key)
		     :
		     : on, alt);
	return STATIC_BRANCH_OFF;
on:
	return STATIC_BRANCH_ON;
alt:
	return STATIC_BRANCH_ALT;
}

/*
 * Turns every site on whose key meets mask, to its alternative where its
 * alt_key meets mask too, every other one off; a site already as wanted
 * is not written. Interrupts off, and no other CPU
 * running kernel code (inside smp_stop_others(), or before the others
 * start).
 */
void static_branches_set(uint64_t mask);

/*
 * Whether any of the len bytes at addr is in a site's five, which
 * static_branches_set() rewrites (a kernel probe may not be there).
 */
bool static_branch_covers(uintptr_t addr, uint32_t len);

#endif
