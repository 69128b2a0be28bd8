/*
 * cpu: thin wrappers around x86_64 instructions the kernel needs from C.
 * Nothing here has state; each function is one or two instructions.
 */
#ifndef SPOOR_ARCH_CPU_H
#define SPOOR_ARCH_CPU_H

#include <stdbool.h>
#include <stdint.h>

#define RFLAGS_TF (1ul << 8) /* SDM 3A 2.3: trap flag, a debug exception after each instruction */
#define RFLAGS_IF (1ul << 9) /* SDM 1 3.4.3: interrupt enable flag */

#define MSR_EFER      0xc0000080u /* SDM 4 2.1 */
#define MSR_FS_BASE   0xc0000100u /* SDM 4 2.1 */
#define MSR_GS_BASE   0xc0000101u /* SDM 4 2.1 */
#define MSR_KERNEL_GS 0xc0000102u /* SDM 4 2.1 */

static inline void outb(uint16_t port, uint8_t v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline void outw(uint16_t port, uint16_t v)
{
	__asm__ volatile("outw %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint8_t inb(uint16_t port)
{
	uint8_t v;
	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline void outl(uint16_t port, uint32_t v)
{
	__asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint32_t inl(uint16_t port)
{
	uint32_t v;
	__asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

/* String I/O: n bytes from buf to port, or from port into buf, one at a time. */
static inline void outsb(uint16_t port, const void *buf, uint64_t n)
{
	__asm__ volatile("rep outsb" : "+S"(buf), "+c"(n) : "d"(port) : "memory");
}

static inline void insb(uint16_t port, void *buf, uint64_t n)
{
	__asm__ volatile("rep insb" : "+D"(buf), "+c"(n) : "d"(port) : "memory");
}

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;
	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ volatile("wrmsr" : : "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)));
}

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/* rdtsc() & mask, each half masked before they are joined: no 64-bit constant to load. */
static inline __attribute__((always_inline)) uint64_t rdtsc_masked(uint64_t mask)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)(hi & (uint32_t)(mask >> 32)) << 32) | (lo & (uint32_t)mask);
}

static inline void cpuid(uint32_t leaf, uint32_t *a, uint32_t *b, uint32_t *c, uint32_t *d)
{
	__asm__ volatile("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "a"(leaf), "c"(0));
}

/*
 * A serialising instruction (SDM 3A 8.3): what a CPU must execute between
 * another CPU's change of code and its own running of that code (SDM 3A
 * 8.1.3, cross-modifying code). cpuid is the one every x86_64 has.
 */
static inline void serialize_cpu(void)
{
	uint32_t a = 0, b, c = 0, d;

	__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d) : : "memory");
}

static inline uint64_t read_cr2(void)
{
	uint64_t v;
	__asm__ volatile("mov %%cr2, %0" : "=r"(v));
	return v;
}

static inline uint64_t read_cr3(void)
{
	uint64_t v;
	__asm__ volatile("mov %%cr3, %0" : "=r"(v));
	return v;
}

static inline void write_cr3(uint64_t v)
{
	__asm__ volatile("mov %0, %%cr3" : : "r"(v) : "memory");
}

static inline void invlpg(uintptr_t va)
{
	__asm__ volatile("invlpg (%0)" : : "r"(va) : "memory");
}

static inline void cpu_relax(void)
{
	__asm__ volatile("pause" ::: "memory");
}

static inline void irq_enable(void)
{
	__asm__ volatile("sti" ::: "memory");
}

static inline void irq_disable(void)
{
	__asm__ volatile("cli" ::: "memory");
}

static inline uint64_t irq_save(void)
{
	uint64_t flags;
	__asm__ volatile("pushfq; popq %0; cli" : "=r"(flags) : : "memory");
	return flags;
}

static inline void irq_restore(uint64_t flags)
{
	if (flags & RFLAGS_IF) {
		irq_enable();
	}
}

static inline bool irq_enabled(void)
{
	uint64_t flags;
	__asm__ volatile("pushfq; popq %0" : "=r"(flags));
	return flags & RFLAGS_IF;
}

/* Sets or clears RFLAGS.TF: single-stepping, for the selftests that step through code. */
static inline void cpu_set_trap_flag(bool on)
{
	uint64_t flags;

	__asm__ volatile("pushfq; popq %0" : "=r"(flags));
	flags = on ? flags | RFLAGS_TF : flags & ~RFLAGS_TF;
	__asm__ volatile("pushq %0; popfq" : : "r"(flags) : "memory", "cc");
}

/* Waits for the next interrupt with interrupts enabled, then returns. */
static inline void cpu_idle_once(void)
{
	__asm__ volatile("sti; hlt" ::: "memory");
}

static inline __attribute__((noreturn)) void cpu_halt_forever(void)
{
	for (;;) {
		__asm__ volatile("cli; hlt");
	}
}

#endif
