/*
 * internal.h: what libc's files share and programs do not see.
 *
 * libc's pure code (strings, numbers, malloc, stdio's buffering) reaches
 * the kernel only through the hooks declared here. On Spoor they are
 * system calls (src/sys/hooks.c and src/stdlib/exit.c); the host unit
 * tests compile the pure files alone and supply their own hooks: mmap for
 * pages, a capture buffer for the console, longjmp for a fatal error.
 *
 * Internal names start with __libc_ so that they cannot meet a program's.
 */
#ifndef SPOOR_LIBC_INTERNAL_H
#define SPOOR_LIBC_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/*
 * Maps len bytes (a multiple of the page size) of zeroed memory, page
 * aligned; NULL when there is none. Thread-safe.
 */
void *__libc_pages_map(size_t len);

/* Returns [addr, addr + len), as mapped by __libc_pages_map, to the system. */
void __libc_pages_unmap(void *addr, size_t len);

/* Lets another thread run: called while waiting for a lock. */
void __libc_yield(void);

/* Writes len bytes of buf to the console; returns how many it took (> 0) or -E*. */
long __libc_console_write(const void *buf, size_t len);

/* Prints "<program>: msg" on the console, bypassing stdio, and ends the process (status 134). */
__attribute__((noreturn)) void __libc_fatal(const char *msg);

/*
 * A lock for libc's shared state (the heap, each stream). A waiter yields
 * its CPU rather than spin: the holder may be a preempted thread that
 * needs this CPU to finish. Not recursive; zero is unlocked.
 */
struct libc_lock {
	int held;
};

static inline void lock_acquire(struct libc_lock *l)
{
	/* acquire: pairs with the release store in lock_release() */
	while (__atomic_exchange_n(&l->held, 1, __ATOMIC_ACQUIRE)) {
		/* Wait with plain loads so the line stays shared until it is released. */
		while (__atomic_load_n(&l->held, __ATOMIC_RELAXED)) {
			__libc_yield();
		}
	}
}

static inline void lock_release(struct libc_lock *l)
{
	/* release: pairs with the acquire exchange in lock_acquire() */
	__atomic_store_n(&l->held, 0, __ATOMIC_RELEASE);
}

struct file;

/* Writes s through stream f (stdio's FILE) as one piece. Returns 0, or EOF with errno set. */
int __libc_file_write(struct file *f, const char *s, size_t len);

/* argv[0], or "?" before main() or when there is none: the name in fatal messages. */
extern const char *__libc_progname;

/*
 * One request to traced (trace_client.h's traced_request() and stubs):
 * frame, the slot of a capability the request carries (a copy with the
 * read and write rights goes along) or IPC_NO_CAP. A capability the reply
 * carries goes to *cap when cap is not NULL (and without one the request
 * fails with -EPROTO); otherwise it is deleted.
 */
long __libc_traced_stub(uint32_t op, uint64_t arg, const void *body, size_t len, uint32_t frame,
			void *reply, size_t reply_max, uint32_t *cap, uint64_t *result);

#endif
