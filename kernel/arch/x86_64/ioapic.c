/*
 * ioapic: register access through IOREGSEL/IOWIN (82093AA data sheet 3.0).
 * Polarity and trigger mode of ISA IRQs come from the MADT overrides
 * (MPS INTI flags: bits 1:0 polarity, 3:2 trigger; 0 means bus default,
 * which for ISA is active high, edge).
 */
#include "arch/x86_64/ioapic.h"

#include "arch/x86_64/acpi.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"
#include "lib/spinlock.h"
#include "mm/memlayout.h"

#define IOREGSEL	   0x00
#define IOWIN		   0x10
#define IOAPIC_VER	   0x01
#define IOAPIC_REDTBL(n)   (0x10 + 2 * (n))
#define REDIR_MASKED	   (1u << 16)
#define REDIR_LEVEL	   (1u << 15)
#define REDIR_ACTIVE_LOW   (1u << 13)
#define INTI_POLARITY_LOW  0x3
#define INTI_TRIGGER_LEVEL 0xc

#define PIC1_CMD       0x20
#define PIC1_DATA      0x21
#define PIC2_CMD       0xa0
#define PIC2_DATA      0xa1
#define PIC_ICW1_INIT  0x11
#define PIC_ICW4_8086  0x01
#define PIC_REMAP_BASE 0x20 /* vectors 0x20-0x2f, all masked */

static volatile uint32_t *regs; /* [I] */
static struct spinlock ioapic_lock = SPINLOCK_INIT;

static uint32_t rd(uint32_t reg)
{
	regs[IOREGSEL / 4] = reg;
	return regs[IOWIN / 4];
}

static void wr(uint32_t reg, uint32_t v)
{
	regs[IOREGSEL / 4] = reg;
	regs[IOWIN / 4] = v;
}

static void pic_disable(void)
{
	outb(PIC1_CMD, PIC_ICW1_INIT);
	outb(PIC2_CMD, PIC_ICW1_INIT);
	outb(PIC1_DATA, PIC_REMAP_BASE);
	outb(PIC2_DATA, PIC_REMAP_BASE + 8);
	outb(PIC1_DATA, 4); /* slave on IRQ 2 */
	outb(PIC2_DATA, 2);
	outb(PIC1_DATA, PIC_ICW4_8086);
	outb(PIC2_DATA, PIC_ICW4_8086);
	outb(PIC1_DATA, 0xff);
	outb(PIC2_DATA, 0xff);
}

void ioapic_init(void)
{
	pic_disable();
	regs = phys_to_virt(acpi_madt.ioapic_phys);
	uint32_t entries = ((rd(IOAPIC_VER) >> 16) & 0xff) + 1;
	for (uint32_t i = 0; i < entries; i++) {
		wr(IOAPIC_REDTBL(i), REDIR_MASKED);
		wr(IOAPIC_REDTBL(i) + 1, 0);
	}
}

void ioapic_route_isa(uint8_t irq, uint8_t vector)
{
	uint32_t pin = acpi_madt.isa_gsi[irq] - acpi_madt.ioapic_gsi_base;
	uint16_t inti = acpi_madt.isa_flags[irq];
	uint32_t low = vector;

	if ((inti & INTI_POLARITY_LOW) == INTI_POLARITY_LOW) {
		low |= REDIR_ACTIVE_LOW;
	}
	if ((inti & INTI_TRIGGER_LEVEL) == INTI_TRIGGER_LEVEL) {
		low |= REDIR_LEVEL;
	}
	uint64_t flags = spin_lock_irqsave(&ioapic_lock);
	wr(IOAPIC_REDTBL(pin) + 1, cpus[0].apic_id << 24);
	wr(IOAPIC_REDTBL(pin), low);
	spin_unlock_irqrestore(&ioapic_lock, flags);
}
