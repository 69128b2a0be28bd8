/*
 * thread: thread_spawn() and thread_join() (see spoor.h) over the raw
 * thread_create and thread_join calls.
 *
 * Each thread gets its own stack mapping with an inaccessible guard page
 * at the bottom, so an overflow faults instead of running into other
 * memory. The stack cannot be unmapped by the thread that runs on it, so
 * a record of every spawned thread stays on a list until thread_join()
 * has seen the thread end and frees its stack. A thread never joined
 * keeps its stack, like a pthread that is neither joined nor detached.
 */
#include <spoor.h>
#include <stdint.h>
#include <stdlib.h>

#include "libc/src/internal.h"

#define STACK_DEFAULT (64 * 1024)
#define GUARD_SIZE    PAGE_SIZE_USER
#define GUARD_PROT    0 /* no PROT_* bit: the guard page allows no access at all */

struct thread_start {
	int (*fn)(void *arg);	   /* [I] */
	void *arg;		   /* [I] */
	void *map;		   /* [I] the stack mapping, guard page first */
	size_t map_len;		   /* [I] */
	int tid;		   /* [threads.lock] set once thread_create returns */
	struct thread_start *next; /* [threads.lock] */
};

static struct {
	struct libc_lock lock;
	struct thread_start *list; /* [lock] spawned and not yet joined */
} threads;

/* thread_entry.S: clears rbp and calls __libc_thread_main(rdi) on an aligned stack. */
void __libc_thread_entry(void *start);

/* The new thread's first C function; its record stays valid until it has ended and been joined. */
__attribute__((noreturn)) void __libc_thread_main(struct thread_start *t)
{
	sys_thread_exit(t->fn(t->arg));
}

int thread_spawn(int (*fn)(void *arg), void *arg, size_t stack_size)
{
	struct thread_start *t;
	size_t len;
	long r;

	if (stack_size == 0) {
		stack_size = STACK_DEFAULT;
	}
	if (stack_size > SIZE_MAX - GUARD_SIZE - PAGE_SIZE_USER) {
		return -ENOMEM;
	}
	len = ((stack_size + PAGE_SIZE_USER - 1) & ~(size_t)(PAGE_SIZE_USER - 1)) + GUARD_SIZE;
	t = malloc(sizeof(*t));
	if (!t) {
		return -ENOMEM;
	}
	r = sys_mem_map_anon(NULL, len, PROT_READ | PROT_WRITE);
	if (r < 0) {
		goto fail_free;
	}
	*t = (struct thread_start){.fn = fn, .arg = arg, .map = (void *)r, .map_len = len};
	r = sys_mem_protect(t->map, GUARD_SIZE, GUARD_PROT);
	if (r < 0) {
		goto fail_unmap;
	}
	/* The top of a page-aligned mapping: 16-byte aligned, as thread_entry.S expects. */
	r = sys_thread_create(__libc_thread_entry, (char *)t->map + len, t);
	if (r < 0) {
		goto fail_unmap;
	}
	lock_acquire(&threads.lock);
	t->tid = (int)r;
	t->next = threads.list;
	threads.list = t;
	lock_release(&threads.lock);
	return (int)r;

fail_unmap:
	sys_mem_unmap(t->map, len);
fail_free:
	free(t);
	return (int)r;
}

int thread_join(int tid, int64_t *status)
{
	struct thread_start **link, *t = NULL;
	long r = sys_thread_join(tid, status);

	if (r < 0) {
		return (int)r;
	}
	lock_acquire(&threads.lock);
	for (link = &threads.list; *link; link = &(*link)->next) {
		if ((*link)->tid == tid) {
			t = *link;
			*link = t->next;
			break;
		}
	}
	lock_release(&threads.lock);
	/* A thread not started by thread_spawn() has no record: its stack is its creator's. */
	if (t) {
		sys_mem_unmap(t->map, t->map_len);
		free(t);
	}
	return 0;
}
