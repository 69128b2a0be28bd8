/*
 * printk: formats into a stack buffer, then writes the buffer to the
 * serial port under one lock.
 */
#include "lib/printk.h"

#include <stdbool.h>

#include "arch/x86_64/serial.h"
#include "common/format.h"
#include "lib/spinlock.h"

#define PRINTK_MAX 512

static struct spinlock console_lock = SPINLOCK_INIT;
static bool panic_mode; /* [a] set once, by the panicking CPU */

void vprintk(const char *fmt, va_list ap)
{
	char buf[PRINTK_MAX];
	int n = format_vsnprintf(buf, sizeof(buf), fmt, ap);

	if (n >= PRINTK_MAX) {
		n = PRINTK_MAX - 1;
	}
	if (__atomic_load_n(&panic_mode, __ATOMIC_RELAXED)) {
		serial_write(buf, (size_t)n);
		return;
	}
	uint64_t flags = spin_lock_irqsave(&console_lock);
	serial_write(buf, (size_t)n);
	spin_unlock_irqrestore(&console_lock, flags);
}

void printk(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintk(fmt, ap);
	va_end(ap);
}

void printk_enter_panic_mode(void)
{
	__atomic_store_n(&panic_mode, true, __ATOMIC_RELAXED);
}
