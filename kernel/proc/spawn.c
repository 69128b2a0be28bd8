/*
 * spawn: check everything the parent sent (program, arguments, the
 * capabilities to pass), then build the child: segments, stack with argv,
 * capabilities, the main thread. A failure undoes the child entirely.
 *
 * The initial stack, from USER_STACK_TOP down: the argument strings, then
 * (16-byte aligned) argc, argv[0..argc-1], NULL; rsp points at argc, and
 * the main thread also gets argc in rdi and argv in rsi.
 */
#include "proc/spawn.h"

#include "abi/errno.h"
#include "abi/mem.h"
#include "cap/cspace.h"
#include "lib/string.h"
#include "mm/account.h"
#include "mm/heap.h"
#include "mm/usercopy.h"
#include "proc/loader.h"
#include "proc/process.h"
#include "sched/sched.h"
#include "sched/thread.h"
#include "trace/aux_names.h"
#include "trace/ktrace.h"

#define PROCESS_CAP_RIGHTS (CAP_RIGHT_WAIT | CAP_RIGHT_KILL | CAP_RIGHT_START | CAP_RIGHT_GRANT)

int spawn_decode(const struct spawn_args *args, struct spawn_request *req)
{
	int n = copy_string_from_user(req->name, args->name, sizeof(req->name));

	if (n < 0) {
		return n == -E2BIG ? -EINVAL : n;
	}
	if (args->args_len > SPAWN_ARGS_MAX) {
		return -E2BIG;
	}
	if (args->ncaps > SPAWN_CAPS_MAX || args->flags & ~SPAWN_FLAGS || args->reserved) {
		return -EINVAL;
	}
	req->mem_limit = args->mem_limit;
	req->flags = args->flags;
	req->args_len = args->args_len;
	req->ncaps = args->ncaps;
	int err = copy_from_user(req->args, args->args, args->args_len);
	if (!err) {
		err = copy_from_user(req->caps, args->caps, args->ncaps * sizeof(struct spawn_cap));
	}
	if (!err && req->args_len && req->args[req->args_len - 1]) {
		err = -EINVAL; /* the last argument must end with its NUL */
	}
	return err;
}

/* Builds the initial stack image; returns its size, or -ENOMEM. */
static int64_t build_stack(const struct spawn_request *req, uint8_t **out, uint64_t *argc_out)
{
	const char *args = req->args;
	uint32_t len = req->args_len;
	uint64_t argc = 0;

	if (!len) {
		args = req->name;
		len = (uint32_t)strlen(req->name) + 1;
	}
	for (uint32_t i = 0; i < len; i++) {
		argc += args[i] == '\0';
	}
	uint64_t strings = (len + 15) & ~15ull;
	uint64_t vector = ((argc + 2) * sizeof(uint64_t) + 15) & ~15ull;
	uint64_t size = strings + vector;
	uint8_t *image = kzalloc(size);
	if (!image) {
		return -ENOMEM;
	}
	uint64_t str_addr = USER_STACK_TOP - strings;
	uint64_t *words = (uint64_t *)image;
	memcpy(image + vector, args, len);
	words[0] = argc;
	for (uint32_t i = 0, arg = 0; i < len; i++) {
		if (i == 0 || args[i - 1] == '\0') {
			words[1 + arg++] = str_addr + i;
		}
	}
	words[1 + argc] = 0;
	*out = image;
	*argc_out = argc;
	return (int64_t)size;
}

/* Takes references on the capabilities to pass; all or nothing. */
static int collect_caps(struct process *parent, const struct spawn_request *req,
			const struct cap *boot_caps, struct cap *caps)
{
	int err = 0;
	uint32_t i;

	for (i = 0; i < req->ncaps && !err; i++) {
		const struct spawn_cap *sc = &req->caps[i];
		if (sc->dst >= CAP_SLOTS) {
			err = -EINVAL;
			break;
		}
		for (uint32_t j = 0; j < i; j++) {
			if (req->caps[j].dst == sc->dst) {
				err = -EINVAL;
			}
		}
		if (!err && !parent) {
			caps[i] = boot_caps[sc->src];
			cap_get(&caps[i]);
		} else if (!err) {
			err = cspace_get(&parent->caps, sc->src, CAP_KIND_NONE, CAP_RIGHT_GRANT,
					 &caps[i]);
		}
		if (!err) {
			cap_restrict(&caps[i], sc->rights);
		}
	}
	if (err) {
		while (i-- > 0) {
			if (caps[i].kind != CAP_KIND_NONE) {
				cap_put(&caps[i]);
			}
		}
	}
	return err;
}

/*
 * Commits the stack and every writable segment of a kept server (or init),
 * so that running it never needs a frame it has not got already.
 */
static int commit(const struct program *prog, struct process *p)
{
	int err = uvm_populate(&p->vm, USER_STACK_TOP - USER_STACK_SIZE, USER_STACK_SIZE);

	return err ? err : loader_commit(prog, &p->vm);
}

int spawn(struct process *parent, const struct spawn_request *req, const struct cap *boot_caps)
{
	struct cap caps[SPAWN_CAPS_MAX] = {0};
	const struct program *prog = loader_find(req->name);
	uint8_t *stack = NULL;
	uint64_t entry = 0, argc = 0;
	int slot = 0;

	/* Only init starts trees, so only init says what they may use. */
	bool by_init = parent && !parent->ppid;
	/* The kernel's first process (init) is kept like the servers it keeps. */
	bool kept = !parent || req->flags & SPAWN_KEPT;

	if (!prog) {
		return -ENOENT;
	}
	if (parent && !by_init && (req->flags & SPAWN_KEPT || req->mem_limit)) {
		return -EPERM;
	}
	int err = collect_caps(parent, req, boot_caps, caps);
	if (err) {
		return err;
	}
	struct process *p = NULL;
	int64_t size = process_create(req->name, parent, kept ? ACCOUNT_NO_LIMIT : req->mem_limit,
				      kept ? ACCOUNT_RESERVE : 0, &p);
	if (!size) {
		size = build_stack(req, &stack, &argc);
	}
	err = size < 0 ? (int)size : loader_map(prog, &p->vm, &entry);
	if (!err) {
		uint64_t stack_base;
		err = uvm_map_anon(&p->vm, USER_STACK_TOP - USER_STACK_SIZE, USER_STACK_SIZE,
				   PROT_READ | PROT_WRITE, &stack_base);
	}
	if (!err && kept) {
		err = commit(prog, p);
	}
	if (!err) {
		err = uvm_write(&p->vm, USER_STACK_TOP - (uint64_t)size, stack, (size_t)size);
	}
	for (uint32_t i = 0; i < req->ncaps && !err; i++) {
		int r = cspace_insert(&p->caps, &caps[i], req->caps[i].dst);
		err = r < 0 ? r : 0;
	}
	if (!err && parent) {
		struct cap pc = {.kind = CAP_KIND_PROCESS, .rights = PROCESS_CAP_RIGHTS, .obj = p};
		slot = cspace_insert(&parent->caps, &pc, CAP_SLOT_ANY);
		err = slot < 0 ? slot : 0;
	}
	if (!err) {
		uint64_t rsp = USER_STACK_TOP - (uint64_t)size;
		uint32_t ppid = parent ? parent->pid : 0;
		/* A child of a tracked process is tracked from its first instruction. */
		p->tracked = parent && __atomic_load_n(&parent->tracked, __ATOMIC_RELAXED);
		/* Always: readers name every event's program and know who spawned whom. */
		uint64_t name =
		    ttrace_aux_name(TTRACE_AUX_PROC, p->pid | (uint64_t)ppid << 32, p->name);
		TTRACE(proc_spawn, p->pid, ppid, name);
		struct thread *main_thread;
		err = thread_create_user(p, entry, rsp, argc, rsp + sizeof(uint64_t), &main_thread);
		if (err) {
			if (parent) {
				cspace_delete(&parent->caps, (uint32_t)slot);
			}
		} else if (req->flags & SPAWN_STOPPED) {
			process_hold_start(p, main_thread);
		} else {
			sched_start(main_thread);
		}
	}
	if (err && p) {
		process_teardown(p);
	}
	for (uint32_t i = 0; i < req->ncaps; i++) {
		cap_put(&caps[i]);
	}
	kfree(stack);
	return err ? err : slot;
}
