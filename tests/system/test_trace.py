"""Kernel tracing: the boot banner, early tracing, and the panic flight recorder."""

import re

from conftest import EXIT_KERNEL_FAILURE, PROMPT


def test_banner_reports_trace_setup_from_the_command_line(boot):
    spoor = boot(smp=4, cmdline="ttrace=mem,sched ttrace.ring_kb=64 ttrace.aux_kb=16",
                 wait_prompt=False)
    # 64 KiB of 64-byte entries per CPU.
    spoor.expect(r"ttrace: 4 cpus x 1024 entries, aux 16 KiB, mask mem,sched\r*\n")
    spoor.expect(re.escape(PROMPT))


def test_tracing_is_off_by_default(boot):
    spoor = boot(smp=2, wait_prompt=False)
    spoor.expect(r"ttrace: 2 cpus x 16384 entries, aux 1024 KiB, mask none\r*\n")
    spoor.expect(re.escape(PROMPT))


def test_unknown_trace_category_is_refused_with_the_known_ones(boot):
    spoor = boot(smp=1, cmdline="ttrace=mem,memm", wait_prompt=False)
    spoor.expect(r"ttrace: unknown category 'memm' \(known: mem,sched,syscall,ipc,irq,proc,"
                 r"user,test all\); tracing stays off")
    spoor.expect(r"mask none")
    spoor.expect(re.escape(PROMPT))


def test_panic_prints_flight_recorder_and_counters_of_every_cpu(boot):
    spoor = boot(smp=4, cmdline="ttrace=all selftest=pagefault", wait_prompt=False)
    spoor.expect(r"KERNEL PANIC on cpu 0: page fault", allow_panic=True)
    spoor.expect(r"trace counters:\r*\n", allow_panic=True)
    for cpu in range(4):
        counts = spoor.expect(rf"  cpu {cpu}: emitted=(\d+) stored=(\d+) overwritten=(\d+) "
                              r"dropped=(\d+) cleared=(\d+)", allow_panic=True)
        emitted, stored, overwritten, dropped, cleared = map(int, counts.groups())
        assert emitted > 0, f"cpu {cpu} recorded nothing"
        assert emitted == stored + overwritten + dropped + cleared
    spoor.expect(r"flight recorder: last 16 events on cpu 0\r*\n", allow_panic=True)
    spoor.expect(r"system halted", allow_panic=True)
    events = re.findall(r"^  \[ *\d+\.\d{6}\] cpu=0 pid=\d+ tid=\d+ (\w+)( [^\r\n]*)?\r*$",
                        spoor.child.before, re.MULTILINE)
    assert len(events) == 16, spoor.child.before
    # The loader's frame allocations come last before the panic; the other
    # CPUs only took timer interrupts, which their counters above show.
    assert any(kind == "mem_frame_alloc" and re.match(r" frame=0x[0-9a-f]+ count=\d+$", args)
               for kind, args in events), events
    assert spoor.wait_exit() == EXIT_KERNEL_FAILURE


def test_program_without_trace_capabilities_cannot_map_or_control(boot):
    spoor = boot(smp=2, cmdline="ttrace=all")
    out = spoor.command("run tracecap")
    assert "tracecap: ok" in out, out
    assert "exit status" not in out, out
