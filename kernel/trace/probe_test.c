/*
 * probe_test: see probe_test.h. A trap on a removed probe cannot be made
 * to happen for real: the removal stops every other CPU, and a hit runs
 * with interrupts off from its int3 to its step's end, so none is ever
 * caught between the two. The frame such a trap would have is handed to
 * probe_breakpoint() instead, which must send it back to the original
 * instruction, now whole again.
 */
#include "trace/probe_test.h"

#include "arch/x86_64/gdt.h"
#include "arch/x86_64/idt.h"
#include "arch/x86_64/timer.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "trace/probe.h"

#define XOL_BYTES 16 /* probe_xol.S: a slot */

extern const uint8_t probe_xol[]; /* probe_xol.S: a free slot holds int3s */

/* The address of the probe named name, or 0. */
static uint64_t probe_address(const char *name, uint64_t *hits)
{
	struct ttrace_probe_info info;

	for (uint32_t i = 0; !probe_info(i, &info); i++) {
		if (info.addr && !strcmp(info.name, name)) {
			*hits = info.hits;
			return info.addr;
		}
	}
	return 0;
}

void probe_stale_test(void)
{
	struct ttrace_probe_spec spec = {
	    .symbol = "timer_now_ns", .name = "stale", .nregs = 1, .regs = {TTRACE_PROBE_REG_rax}};
	uint64_t hits = 0;

	uint64_t before = timer_now_ns();
	int set = probe_set(TTRACE_PROBE_ON, &spec);
	uint64_t addr = probe_address("stale", &hits);
	uint64_t hits_before = hits;
	uint64_t during = timer_now_ns();
	probe_address("stale", &hits);
	int off = probe_set(TTRACE_PROBE_OFF, &spec);
	uint64_t after = timer_now_ns();
	if (set != 1 || !addr || off != 0 || hits <= hits_before || during < before ||
	    during > after) {
		printk("probestale: FAILED: set %d (why %u), off %d, hits %lu then %lu, clock %lu "
		       "%lu %lu\n",
		       set, spec.why, off, hits_before, hits, before, during, after);
		return;
	}
	/* A trap taken on the int3 before the removal: rip is past it. */
	struct trap_frame gone = {.rip = addr + 1, .cs = GDT_KERNEL_CODE};
	if (!probe_breakpoint(&gone) || gone.rip != addr || *(const uint8_t *)addr == 0xcc) {
		printk("probestale: FAILED: a removed probe's trap: rip 0x%lx, the probe was at "
		       "0x%lx\n",
		       gone.rip, addr);
		return;
	}
	/* An int3 no probe set (a free copy slot is all int3s): not the probes'. */
	struct trap_frame bug = {.rip = (uint64_t)probe_xol + XOL_BYTES + 1, .cs = GDT_KERNEL_CODE};
	if (probe_breakpoint(&bug)) {
		printk("probestale: FAILED: an int3 of no probe's was taken for one\n");
		return;
	}
	printk("probestale: ok, a hit on this cpu's own call (the clock read right), a removed "
	       "probe's trap sent back to its instruction, an int3 of no probe's left alone\n");
}
