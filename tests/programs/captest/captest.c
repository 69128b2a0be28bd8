/*
 * captest: checks the capability rules of abi/cap.h from inside a process
 * that init started (the console in slot 0, without CAP_RIGHT_POWER, and
 * a call-only endpoint to the name service in slot 1): the error for an
 * empty, out-of-range, wrong-kind or under-privileged slot; that copies
 * only ever lose rights; that a deleted slot is empty; that a copy into a
 * full table fails and changes nothing; and what identify reports. Prints
 * "captest: ok (N checks)" and exits 0, or one line per failed check and
 * exits 1.
 */
#include <errno.h>
#include <spoor.h>
#include <stdio.h>

#include "abi/ipc.h"

#define PAGE		    PAGE_SIZE_USER
#define FRAME_BYTES	    (2 * PAGE + 100) /* identify reports it rounded up to pages */
#define FRAME_RIGHTS	    (CAP_RIGHT_READ | CAP_RIGHT_WRITE | CAP_RIGHT_GRANT)
#define INIT_CONSOLE_RIGHTS (CAP_RIGHT_READ | CAP_RIGHT_WRITE | CAP_RIGHT_GRANT)
#define NO_RIGHTS	    0u
#define EMPTY_SLOT	    (CAP_SLOTS - 1) /* nothing this program does fills the table that far */
#define UNFILLED_SLOT	    (CAP_SLOT_FIRST_FREE - 1) /* init passes nothing there */

static int checks;
static int failures;

/* Records one check: got must equal want. */
static void expect(const char *what, long got, long want)
{
	checks++;
	if (got != want) {
		failures++;
		printf("captest: FAIL %s: got %ld, want %ld\n", what, got, want);
	}
}

/* The rights identify reports for slot, or its error. */
static long rights_of(int slot)
{
	struct cap_info info;
	long err = sys_cap_identify(slot, &info);

	return err ? err : (long)info.rights;
}

static void check_bad_slots(void)
{
	struct cap_info info;
	char byte;

	expect("identify of a slot spawn left empty", sys_cap_identify(UNFILLED_SLOT, &info),
	       -EBADF);
	expect("identify of an empty slot", sys_cap_identify(EMPTY_SLOT, &info), -EBADF);
	expect("identify of slot CAP_SLOTS", sys_cap_identify(CAP_SLOTS, &info), -EBADF);
	expect("identify of slot -1", sys_cap_identify(-1, &info), -EBADF);
	expect("frame_read of an empty slot", sys_frame_read(EMPTY_SLOT, 0, &byte, 1), -EBADF);
	expect("console_write to slot CAP_SLOTS", sys_console_write(CAP_SLOTS, "x", 1), -EBADF);
	expect("cap_copy of an empty slot", sys_cap_copy(EMPTY_SLOT, CAP_RIGHTS_ALL), -EBADF);
	expect("cap_delete of an empty slot", sys_cap_delete(EMPTY_SLOT), -EBADF);
	expect("poweroff through an empty slot", sys_poweroff(EMPTY_SLOT), -EBADF);
	/* A slot number with high bits set is out of range, not slot 0 in disguise. */
	expect("identify of slot 2^32",
	       __syscall6(SYS_cap_identify, 1l << 32, (long)&info, 0, 0, 0, 0), -EBADF);
	expect("identify into a kernel address",
	       sys_cap_identify(CAP_SLOT_CONSOLE, (struct cap_info *)0xffffffff80000000ull),
	       -EFAULT);
}

static void check_wrong_kind(int frame)
{
	int64_t status;
	char byte;

	expect("frame_read on the console", sys_frame_read(CAP_SLOT_CONSOLE, 0, &byte, 1),
	       -ECAPKIND);
	expect("mem_map_frame of the console", sys_mem_map_frame(CAP_SLOT_CONSOLE, NULL, PROT_READ),
	       -ECAPKIND);
	expect("console_write to a frame", sys_console_write(frame, "x", 1), -ECAPKIND);
	expect("wait on the console", sys_wait(CAP_SLOT_CONSOLE, &status, 0), -ECAPKIND);
	expect("kill through a frame", sys_kill(frame), -ECAPKIND);
	expect("frame_read on the name service's endpoint",
	       sys_frame_read(CAP_SLOT_NAMESERVER, 0, &byte, 1), -ECAPKIND);
	expect("poweroff through a frame", sys_poweroff(frame), -ECAPKIND);
	expect("ioport_write through the console", sys_ioport_write(CAP_SLOT_CONSOLE, 0, &byte, 1),
	       -ECAPKIND);
	expect("ioport_read through a frame", sys_ioport_read(frame, 0, &byte, 1), -ECAPKIND);
}

/* Only traced holds the export port: any other program finds its slot empty. */
static void check_no_ioport(void)
{
	char byte = 0;

	expect("ioport_write without the export port",
	       sys_ioport_write(CAP_SLOT_EXPORT_PORT, 0, &byte, 1), -EBADF);
	expect("ioport_read without the export port",
	       sys_ioport_read(CAP_SLOT_EXPORT_PORT, 0, &byte, 1), -EBADF);
	expect("mem_map_frame without the export window",
	       sys_mem_map_frame(CAP_SLOT_EXPORT_WINDOW, NULL, PROT_READ), -EBADF);
}

static void check_missing_rights(int frame)
{
	char buf[8] = "captest";
	int ro = (int)sys_cap_copy(frame, CAP_RIGHT_READ);
	int wo = (int)sys_cap_copy(frame, CAP_RIGHT_WRITE);
	int mute = (int)sys_cap_copy(CAP_SLOT_CONSOLE, CAP_RIGHT_READ);
	int deaf = (int)sys_cap_copy(CAP_SLOT_CONSOLE, CAP_RIGHT_WRITE);

	expect("poweroff with init's console", sys_poweroff(CAP_SLOT_CONSOLE), -EACCES);
	expect("frame_write through a read-only copy", sys_frame_write(ro, 0, buf, 4), -EACCES);
	expect("frame_read through a read-only copy", sys_frame_read(ro, 0, buf, 4), 0);
	expect("frame_read through a write-only copy", sys_frame_read(wo, 0, buf, 4), -EACCES);
	expect("frame_write through a write-only copy", sys_frame_write(wo, 0, buf, 4), 0);
	expect("mapping a read-only copy writable",
	       sys_mem_map_frame(ro, NULL, PROT_READ | PROT_WRITE), -EACCES);
	expect("mapping a write-only copy readable", sys_mem_map_frame(wo, NULL, PROT_READ),
	       -EACCES);
	expect("console_write through a read-only console", sys_console_write(mute, "x", 1),
	       -EACCES);
	expect("console_read through a write-only console", sys_console_read(deaf, buf, 1, 0),
	       -EACCES);
	expect("poweroff through a copy of the console", sys_poweroff(deaf), -EACCES);
	struct ipc_regs msg = {0};
	struct ipc_extra poll = {.timeout_ns = 0, .send_cap = IPC_NO_CAP};
	expect("ipc_recv on the call-only name service",
	       sys_ipc_recv(CAP_SLOT_NAMESERVER, &msg, &poll), -EACCES);
	expect("delete the read-only copy", sys_cap_delete(ro), 0);
	expect("delete the write-only copy", sys_cap_delete(wo), 0);
	expect("delete the read-only console", sys_cap_delete(mute), 0);
	expect("delete the write-only console", sys_cap_delete(deaf), 0);
}

static void check_copies_only_drop_rights(int frame)
{
	int all = (int)sys_cap_copy(frame, CAP_RIGHTS_ALL);
	int ro = (int)sys_cap_copy(frame, CAP_RIGHT_READ);
	int ro_all = (int)sys_cap_copy(ro, CAP_RIGHTS_ALL);
	int none = (int)sys_cap_copy(frame, NO_RIGHTS);
	int console = (int)sys_cap_copy(CAP_SLOT_CONSOLE, CAP_RIGHTS_ALL);

	expect("a copy lands in a free slot", all >= CAP_SLOT_FIRST_FREE && all < CAP_SLOTS, 1);
	expect("rights of a new frame", rights_of(frame), FRAME_RIGHTS);
	expect("rights of a frame's copy asking for all", rights_of(all), FRAME_RIGHTS);
	expect("rights of a read-only copy", rights_of(ro), CAP_RIGHT_READ);
	expect("rights of a read-only copy's copy asking for all", rights_of(ro_all),
	       CAP_RIGHT_READ);
	expect("rights of a copy asking for none", rights_of(none), NO_RIGHTS);
	expect("rights of init's console", rights_of(CAP_SLOT_CONSOLE), INIT_CONSOLE_RIGHTS);
	expect("rights of the console's copy asking for all", rights_of(console),
	       INIT_CONSOLE_RIGHTS);
	expect("delete the full copy", sys_cap_delete(all), 0);
	expect("delete the read-only copy", sys_cap_delete(ro), 0);
	expect("delete the read-only copy's copy", sys_cap_delete(ro_all), 0);
	expect("delete the empty-handed copy", sys_cap_delete(none), 0);
	expect("delete the console's copy", sys_cap_delete(console), 0);
}

static void check_identify(int frame)
{
	struct cap_info info;

	expect("identify a frame", sys_cap_identify(frame, &info), 0);
	expect("a frame's kind", info.kind, CAP_KIND_FRAME);
	expect("a frame's size, in whole pages", (long)info.size, 3 * PAGE);
	expect("identify the console", sys_cap_identify(CAP_SLOT_CONSOLE, &info), 0);
	expect("the console's kind", info.kind, CAP_KIND_CONSOLE);
	expect("the console's size", (long)info.size, 0);
	expect("identify the name service", sys_cap_identify(CAP_SLOT_NAMESERVER, &info), 0);
	expect("the name service's kind", info.kind, CAP_KIND_ENDPOINT);
	expect("the name service is call-only", info.rights & CAP_RIGHT_READ, 0);
}

static void check_delete(void)
{
	char byte;
	int frame = (int)sys_frame_create(PAGE);
	int copy = (int)sys_cap_copy(frame, CAP_RIGHTS_ALL);

	expect("delete a frame", sys_cap_delete(frame), 0);
	expect("frame_read of the deleted slot", sys_frame_read(frame, 0, &byte, 1), -EBADF);
	expect("identify of the deleted slot", rights_of(frame), -EBADF);
	expect("delete it again", sys_cap_delete(frame), -EBADF);
	expect("its copy still reads", sys_frame_read(copy, 0, &byte, 1), 0);
	expect("delete the first copy", sys_cap_delete(copy), 0);
}

/* A full table gives -ENOSPC, and the failed copy leaves the table as it was. */
static void check_full_table(int frame)
{
	int slots[CAP_SLOTS];
	int n = 0;
	long r;

	while ((r = sys_cap_copy(frame, CAP_RIGHT_READ)) >= 0 && n < CAP_SLOTS) {
		slots[n++] = (int)r;
	}
	expect("cap_copy into a full table", r, -ENOSPC);
	expect("copies that fit", n, CAP_SLOTS - CAP_SLOT_FIRST_FREE - 1);
	expect("a full table's last slot", rights_of(EMPTY_SLOT), CAP_RIGHT_READ);
	while (n > 0) {
		sys_cap_delete(slots[--n]);
	}
	expect("the last slot empty again", rights_of(EMPTY_SLOT), -EBADF);
}

int main(void)
{
	long frame = sys_frame_create(FRAME_BYTES);

	if (frame < 0) {
		printf("captest: frame_create: %s\n", strerror((int)-frame));
		return 1;
	}
	check_bad_slots();
	check_wrong_kind((int)frame);
	check_no_ioport();
	check_missing_rights((int)frame);
	check_copies_only_drop_rights((int)frame);
	check_identify((int)frame);
	check_delete();
	check_full_table((int)frame);
	expect("delete the frame", sys_cap_delete((int)frame), 0);
	if (failures) {
		printf("captest: %d of %d checks failed\n", failures, checks);
		return 1;
	}
	printf("captest: ok (%d checks)\n", checks);
	return 0;
}
