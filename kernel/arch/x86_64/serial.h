/*
 * serial: the COM1 console. Output is polled and may be called from any
 * context (callers serialise whole lines, see printk); input arrives by
 * interrupt (IOAPIC, ISA IRQ 4) into a small buffer read by serial_getc().
 */
#ifndef SPOOR_ARCH_SERIAL_H
#define SPOOR_ARCH_SERIAL_H

#include <stddef.h>

/* Programs COM1 for 115200 8N1 with FIFOs, polled output. */
void serial_init(void);

/* Writes n bytes, turning "\n" into "\r\n". Not locked. */
void serial_write(const char *s, size_t n);

/* Routes the receive interrupt through the IOAPIC; needs apic_init(). */
void serial_enable_rx_irq(void);

/* Returns the next received byte, or -1 when none is buffered. */
int serial_getc(void);

/* fn is called (in interrupt context) after received bytes are buffered. */
void serial_set_rx_notify(void (*fn)(void));

#endif
