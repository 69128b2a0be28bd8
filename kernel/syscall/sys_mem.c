/*
 * sys_mem: memory syscalls — anonymous regions, commit, unmap, protect,
 * copy-on-write copies, and frame objects (create, map, read, write).
 */
#include "abi/errno.h"
#include "abi/mem.h"
#include "cap/cspace.h"
#include "lib/string.h"
#include "mm/memlayout.h"
#include "mm/memobj.h"
#include "mm/usercopy.h"
#include "proc/process.h"
#include "sched/sched.h"
#include "syscall/syscall.h"

#define FRAME_COPY_CHUNK 512

static struct vm *current_vm(void)
{
	return &process_current()->vm;
}

/* Results that are addresses go back as they are; errors are negative. */
static int64_t address_or_error(int err, uint64_t addr)
{
	return err ? err : (int64_t)addr;
}

int64_t sys_mem_map_anon(struct trap_frame *f)
{
	uint64_t addr = 0;
	int err = uvm_map_anon(current_vm(), SYSARG0(f), SYSARG1(f), sysarg_u32(SYSARG2(f)), &addr);

	return address_or_error(err, addr);
}

int64_t sys_mem_commit(struct trap_frame *f)
{
	return uvm_populate(current_vm(), SYSARG0(f), SYSARG1(f));
}

int64_t sys_mem_unmap(struct trap_frame *f)
{
	return uvm_unmap(current_vm(), SYSARG0(f), SYSARG1(f));
}

int64_t sys_mem_protect(struct trap_frame *f)
{
	return uvm_protect(current_vm(), SYSARG0(f), SYSARG1(f), sysarg_u32(SYSARG2(f)));
}

int64_t sys_mem_cow_copy(struct trap_frame *f)
{
	uint64_t addr = 0;
	int err = uvm_cow_copy(current_vm(), SYSARG0(f), SYSARG1(f), &addr);

	return address_or_error(err, addr);
}

/*
 * Frame rights bound what a mapping may ever allow. Mapping at all takes
 * READ (checked before): a present page is readable on x86, whatever else
 * it allows, so even a PROT_NONE mapping could be protected into a read.
 */
static uint32_t max_prot_of(uint32_t rights)
{
	return PROT_READ | PROT_EXEC | (rights & CAP_RIGHT_WRITE ? PROT_WRITE : 0);
}

int64_t sys_mem_map_frame(struct trap_frame *f)
{
	struct process *p = process_current();
	uint32_t prot = sysarg_u32(SYSARG2(f));
	struct cap c;
	uint64_t addr = 0;

	if (prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC)) {
		return -EINVAL;
	}
	int err = cspace_get(&p->caps, sysarg_u32(SYSARG0(f)), CAP_KIND_FRAME, CAP_RIGHT_READ, &c);
	if (err) {
		return err;
	}
	err = uvm_map_frame(&p->vm, c.obj, SYSARG1(f), prot, max_prot_of(c.rights), &addr);
	cap_put(&c);
	return address_or_error(err, addr);
}

int64_t sys_frame_create(struct trap_frame *f)
{
	struct memobj *m;
	uint64_t size = SYSARG0(f);

	if (!size || size > (uint64_t)MEMOBJ_MAX_PAGES * PAGE_SIZE) {
		return -EINVAL;
	}
	int err = memobj_create(process_current()->acct, PAGE_ALIGN_UP(size) / PAGE_SIZE, &m);
	if (err) {
		return err;
	}
	struct cap c = {.kind = CAP_KIND_FRAME,
			.rights = CAP_RIGHT_READ | CAP_RIGHT_WRITE | CAP_RIGHT_GRANT,
			.obj = m};
	int slot = cspace_insert(&process_current()->caps, &c, CAP_SLOT_ANY);
	memobj_put(m); /* the table holds its own reference now, or nothing does */
	return slot;
}

/* Copies between a frame object and user memory, a chunk at a time. */
static int64_t frame_copy(struct trap_frame *f, bool to_frame)
{
	uint64_t offset = SYSARG1(f);
	uint64_t ubuf = SYSARG2(f);
	uint64_t len = SYSARG3(f);
	uint8_t chunk[FRAME_COPY_CHUNK];
	struct cap c;
	int err = cspace_get(&process_current()->caps, sysarg_u32(SYSARG0(f)), CAP_KIND_FRAME,
			     to_frame ? CAP_RIGHT_WRITE : CAP_RIGHT_READ, &c);

	if (err) {
		return err;
	}
	struct memobj *m = c.obj;
	uint64_t size = (uint64_t)m->npages * PAGE_SIZE;
	if (offset > size || len > size - offset) {
		err = -EINVAL;
	}
	for (uint64_t done = 0; !err && done < len;) {
		uint64_t at = offset + done;
		uint64_t n = PAGE_SIZE - at % PAGE_SIZE;
		if (n > len - done) {
			n = len - done;
		}
		if (n > sizeof(chunk)) {
			n = sizeof(chunk);
		}
		uint8_t *frame =
		    (uint8_t *)phys_to_virt(m->frames[at / PAGE_SIZE]) + at % PAGE_SIZE;
		if (to_frame) {
			err = copy_from_user(chunk, ubuf + done, n);
			if (!err) {
				memcpy(frame, chunk, n);
			}
		} else {
			memcpy(chunk, frame, n);
			err = copy_to_user(ubuf + done, chunk, n);
		}
		done += n;
		sched_preempt_point();
	}
	cap_put(&c);
	return err;
}

int64_t sys_frame_read(struct trap_frame *f)
{
	return frame_copy(f, false);
}

int64_t sys_frame_write(struct trap_frame *f)
{
	return frame_copy(f, true);
}
