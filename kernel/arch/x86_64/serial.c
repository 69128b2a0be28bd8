/*
 * serial: a 16550 UART on COM1 (register names from the PC16550D data
 * sheet). Received bytes go into a ring under a spinlock; the interrupt
 * handler is the only producer.
 */
#include "arch/x86_64/serial.h"

#include <stdbool.h>
#include <stdint.h>

#include "arch/x86_64/cpu.h"
#include "arch/x86_64/idt.h"
#include "arch/x86_64/ioapic.h"
#include "lib/spinlock.h"

#define COM1		    0x3f8
#define UART_DATA	    0 /* RBR/THR, or divisor low with DLAB */
#define UART_IER	    1 /* interrupt enable, or divisor high with DLAB */
#define UART_FCR	    2 /* FIFO control */
#define UART_LCR	    3 /* line control */
#define UART_MCR	    4 /* modem control */
#define UART_LSR	    5 /* line status */
#define LCR_8N1		    0x03
#define LCR_DLAB	    0x80
#define FCR_ENABLE_CLEAR    0x07
#define MCR_DTR_RTS_OUT2    0x0b /* OUT2 gates the IRQ line on PCs */
#define IER_RX_AVAILABLE    0x01
#define LSR_DATA_READY	    0x01
#define LSR_THR_EMPTY	    0x20
#define BAUD_DIVISOR_115200 1
#define COM1_ISA_IRQ	    4

#define RX_SIZE 256

static struct spinlock rx_lock = SPINLOCK_INIT;
static uint8_t rx_buf[RX_SIZE]; /* [rx_lock] */
static uint32_t rx_head;	/* [rx_lock] next byte to read */
static uint32_t rx_count;	/* [rx_lock] bytes buffered */
static void (*rx_notify)(void); /* [I] after boot */

void serial_init(void)
{
	outb(COM1 + UART_IER, 0);
	outb(COM1 + UART_LCR, LCR_DLAB);
	outb(COM1 + UART_DATA, BAUD_DIVISOR_115200);
	outb(COM1 + UART_IER, 0);
	outb(COM1 + UART_LCR, LCR_8N1);
	outb(COM1 + UART_FCR, FCR_ENABLE_CLEAR);
	outb(COM1 + UART_MCR, MCR_DTR_RTS_OUT2);
}

static void put_byte(char c)
{
	while (!(inb(COM1 + UART_LSR) & LSR_THR_EMPTY)) {
		cpu_relax();
	}
	outb(COM1 + UART_DATA, (uint8_t)c);
}

void serial_write(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n') {
			put_byte('\r');
		}
		put_byte(s[i]);
	}
}

/*
 * Flow control: input is never dropped. While rx_buf is full the bytes
 * stay in the UART's FIFO and its receive interrupt is off; once full,
 * the UART takes no more, and the line's other end (QEMU's character
 * device, a terminal) holds them back. serial_getc() turns the interrupt
 * on again when it makes room, and the UART raises it at once for what
 * waited. [rx_lock]
 */
static void rx_irq_set(bool on)
{
	outb(COM1 + UART_IER, on ? IER_RX_AVAILABLE : 0);
}

static void serial_irq(struct trap_frame *f)
{
	(void)f;
	uint64_t flags = spin_lock_irqsave(&rx_lock);

	while (rx_count < RX_SIZE && inb(COM1 + UART_LSR) & LSR_DATA_READY) {
		rx_buf[(rx_head + rx_count) % RX_SIZE] = inb(COM1 + UART_DATA);
		rx_count++;
	}
	if (rx_count == RX_SIZE) {
		rx_irq_set(false);
	}
	spin_unlock_irqrestore(&rx_lock, flags);
	if (rx_notify) {
		rx_notify();
	}
}

void serial_set_rx_notify(void (*fn)(void))
{
	rx_notify = fn;
}

void serial_enable_rx_irq(void)
{
	idt_set_handler(VECTOR_SERIAL, serial_irq);
	ioapic_route_isa(COM1_ISA_IRQ, VECTOR_SERIAL);
	uint64_t flags = spin_lock_irqsave(&rx_lock);
	rx_irq_set(true);
	spin_unlock_irqrestore(&rx_lock, flags);
}

int serial_getc(void)
{
	int c = -1;
	uint64_t flags = spin_lock_irqsave(&rx_lock);

	if (rx_count) {
		c = rx_buf[rx_head];
		rx_head = (rx_head + 1) % RX_SIZE;
		if (rx_count-- == RX_SIZE) {
			rx_irq_set(true); /* room again: what waited in the UART comes in */
		}
	}
	spin_unlock_irqrestore(&rx_lock, flags);
	return c;
}
