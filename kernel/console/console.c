/*
 * console: user-facing reads and writes on COM1. Output is copied from
 * user memory in chunks and written with printk, which serialises whole
 * chunks; input comes from the serial driver's buffer, with readers
 * sleeping on a wait queue that the receive interrupt wakes.
 */
#include "console/console.h"

#include "abi/errno.h"
#include "arch/x86_64/serial.h"
#include "arch/x86_64/timer.h"
#include "lib/printk.h"
#include "mm/usercopy.h"
#include "sched/sched.h"
#include "sched/wait.h"

#define CHUNK 256

static struct waitq readers = WAITQ_INIT(readers);

static void input_arrived(void)
{
	uint64_t flags = spin_lock_irqsave(&readers.lock);
	waitq_wake_all(&readers);
	spin_unlock_irqrestore(&readers.lock, flags);
}

void console_init(void)
{
	serial_set_rx_notify(input_arrived);
}

int64_t console_write_user(uint64_t ubuf, size_t len)
{
	char chunk[CHUNK];

	for (size_t done = 0; done < len;) {
		size_t n = len - done < CHUNK ? len - done : CHUNK;
		int err = copy_from_user(chunk, ubuf + done, n);
		if (err) {
			return err;
		}
		printk("%.*s", (int)n, chunk);
		done += n;
		if (__atomic_load_n(&thread_current()->killed, __ATOMIC_RELAXED)) {
			return (int64_t)done;
		}
		sched_preempt_point();
	}
	return (int64_t)len;
}

int64_t console_read_user(uint64_t ubuf, size_t len, uint64_t deadline_ns)
{
	char chunk[CHUNK];
	size_t n = 0;
	int err = 0;

	if (!len) {
		return 0;
	}
	if (len > CHUNK) {
		len = CHUNK;
	}
	uint64_t flags = spin_lock_irqsave(&readers.lock);
	for (;;) {
		int c;
		while (n < len && (c = serial_getc()) >= 0) {
			chunk[n++] = (char)c;
		}
		if (n || err || (deadline_ns && timer_now_ns() >= deadline_ns)) {
			break;
		}
		err = waitq_sleep(&readers, deadline_ns, WAIT_KILLABLE);
		if (err == -ETIMEDOUT) {
			err = 0;
		}
	}
	spin_unlock_irqrestore(&readers.lock, flags);
	if (err) {
		return err;
	}
	err = copy_to_user(ubuf, chunk, n);
	return err ? err : (int64_t)n;
}
