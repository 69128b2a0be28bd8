/*
 * idt: the interrupt descriptor table shared by all CPUs, the trap frame
 * the entry stubs (isr.S) build, and the vector map.
 */
#ifndef SPOOR_ARCH_IDT_H
#define SPOOR_ARCH_IDT_H

#include <stdint.h>

/* Vectors 0-31 are exceptions; 0x20-0x2f would be the legacy PIC's. */
#define VECTOR_TIMER	0x30
#define VECTOR_SERIAL	0x34
#define VECTOR_CALL	0xf0
#define VECTOR_RESCHED	0xf1
#define VECTOR_SELFTEST 0xf2  /* selftest=deadlock's kick */
#define VECTOR_SYSCALL	0x100 /* not a vector: marks frames built by syscall_entry.S */
#define VECTOR_SPURIOUS 0xff

#define EXC_DIVIDE	       0
#define EXC_DEBUG	       1
#define EXC_NMI		       2
#define EXC_BREAKPOINT	       3
#define EXC_INVALID_OPCODE     6
#define EXC_DOUBLE_FAULT       8
#define EXC_GENERAL_PROTECTION 13
#define EXC_PAGE_FAULT	       14
#define EXC_MACHINE_CHECK      18
#define NUM_EXCEPTIONS	       32

/* Laid out by isr_common in isr.S: general registers, then what the CPU pushed. */
struct trap_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error;
	uint64_t rip, cs, rflags, rsp, ss;
};

_Static_assert(sizeof(struct trap_frame) == 22 * 8, "isr.S pushes 22 words");
/* ... a multiple of 16 bytes, so a frame at the top of a stack leaves it aligned for calls. */
_Static_assert(sizeof(struct trap_frame) % 16 == 0, "syscall_entry.S calls with rsp at a frame");

typedef void (*irq_handler_fn)(struct trap_frame *f);

/* Fills the IDT once, on the boot CPU. */
void idt_init(void);

/* Loads the IDT on the calling CPU. */
void idt_load(void);

/* Installs the handler for an interrupt vector (>= 32); EOI is automatic. */
void idt_set_handler(uint8_t vector, irq_handler_fn fn);

#endif
