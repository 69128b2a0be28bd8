/*
 * printk: formatted kernel output on the console. Each call is written as
 * a whole under the console lock, so lines from different CPUs never
 * interleave. Safe from any context, including interrupt handlers.
 */
#ifndef SPOOR_LIB_PRINTK_H
#define SPOOR_LIB_PRINTK_H

#include <stdarg.h>

void printk(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void vprintk(const char *fmt, va_list ap);

/*
 * After a panic, only the panicking CPU prints and it may have interrupted
 * a holder of the console lock: from then on printk skips the lock.
 */
void printk_enter_panic_mode(void);

#endif
