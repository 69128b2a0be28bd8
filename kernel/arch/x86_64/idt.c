/*
 * idt: one table for all CPUs. Every gate is an interrupt gate (IF cleared
 * on entry); the double fault, NMI and machine check run on their own IST
 * stacks so that a broken kernel stack still produces a panic block.
 */
#include "arch/x86_64/idt.h"

#include "arch/x86_64/gdt.h"

#define GATE_INTERRUPT 0x8e /* present, DPL 0, 64-bit interrupt gate */
#define ISR_STUB_SIZE  16

struct idt_gate {
	uint16_t offset_low;
	uint16_t selector;
	uint8_t ist;
	uint8_t type;
	uint16_t offset_mid;
	uint32_t offset_high;
	uint32_t reserved;
} __attribute__((packed));

_Static_assert(sizeof(struct idt_gate) == 16, "SDM 3A 6.14.1");

struct idtr {
	uint16_t limit;
	uint64_t base;
} __attribute__((packed));

extern char isr_stubs[];

static struct idt_gate idt[256];
irq_handler_fn irq_handlers[256]; /* [I] after boot; read by trap_dispatch */

static uint8_t ist_for(unsigned vector)
{
	switch (vector) {
	case EXC_DOUBLE_FAULT:
		return IST_DOUBLE_FAULT;
	case EXC_NMI:
		return IST_NMI;
	case EXC_MACHINE_CHECK:
		return IST_MACHINE_CHECK;
	default:
		return 0;
	}
}

void idt_init(void)
{
	for (unsigned v = 0; v < 256; v++) {
		uint64_t addr = (uintptr_t)(isr_stubs + v * ISR_STUB_SIZE);
		idt[v] = (struct idt_gate){
		    .offset_low = addr & 0xffff,
		    .selector = GDT_KERNEL_CODE,
		    .ist = ist_for(v),
		    .type = GATE_INTERRUPT,
		    .offset_mid = (addr >> 16) & 0xffff,
		    .offset_high = addr >> 32,
		};
	}
}

void idt_load(void)
{
	struct idtr idtr = {.limit = sizeof(idt) - 1, .base = (uintptr_t)idt};

	__asm__ volatile("lidt %0" : : "m"(idtr));
}

void idt_set_handler(uint8_t vector, irq_handler_fn fn)
{
	irq_handlers[vector] = fn;
}
