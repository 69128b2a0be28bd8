/*
 * console: the serial console as user programs see it, through a console
 * capability: writes go out whole under the kernel's console lock (lines
 * of different programs and the kernel never interleave), reads wait for
 * input from the serial interrupt.
 */
#ifndef SPOOR_CONSOLE_CONSOLE_H
#define SPOOR_CONSOLE_CONSOLE_H

#include <stddef.h>
#include <stdint.h>

/* Hooks the serial receive interrupt; needs serial_enable_rx_irq(). */
void console_init(void);

/*
 * Writes len bytes of user memory at ubuf, however many: a chunk at a
 * time, with a preemption point between chunks (sched.h). Returns len,
 * -EFAULT, or the count written when the caller was killed meanwhile (it
 * stops there: the count is never seen).
 */
int64_t console_write_user(uint64_t ubuf, size_t len);

/*
 * Reads up to len bytes into user memory at ubuf, waiting until at least
 * one byte came or deadline_ns (0: none) passed. Returns the count (0 on
 * timeout), -EFAULT, or -EINTR when the caller is killed.
 */
int64_t console_read_user(uint64_t ubuf, size_t len, uint64_t deadline_ns);

#endif
