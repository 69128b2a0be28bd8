"""Lockup detection (kernel/sched/watchdog.h): selftest=deadlock deadlocks the
last two CPUs (ABBA, interrupts masked); another CPU reports every CPU's state,
taken by NMI, and the flight recorder, then goes on or panics. The machine the
soft setting leaves running is then read post-mortem (spoor-postmortem), as a
hung machine is debugged (README, Debugging a hang).

Every machine with a hang here runs under -icount (Spoor.start): its vCPUs
take turns on one host thread, a turn ending at the next timer of the
guest's, so a vCPU answers the report's NMI within a few of the guest's
milliseconds however the host schedules QEMU. On the host's clock a loaded
host could leave a vCPU unrun past the report's 100 ms wait, and a report
named one CPU of the two. The host stall's machine runs on the host's clock:
the stall must show in its TSC."""

import re

from spoorlib import EXIT_KERNEL_FAILURE, events_in, until
from test_postmortem import by_cpu, check_converters_on, postmortem, text_of, SAVED

ANNOUNCED = re.compile(r"selftest deadlock: cpu (\d) takes lock A \((0x[0-9a-f]+)\) then B "
                       r"\((0x[0-9a-f]+)\), cpu (\d) B then A")
REPORT_TIMEOUT = 120
# Three times the limit (ttrace.watchdog=1).
HOST_STALL_S = 3
JUMP = re.compile(r"selftest masked: cpu 1 saw the clock jump (\d+) ms, masked 300 ms more")


def cpu_block(console, cpu):
    """The report's lines for one CPU: its state line and its stack walk."""
    m = re.search(rf"^cpu {cpu}: (.*)\n(stack walk:\n(?:  #\d+ 0x[0-9a-f]+[^\n]*\n)+)", console,
                  re.MULTILINE)
    assert m, console[-4000:]
    return m.group(1), m.group(2)


def test_deadlock_is_reported_the_machine_goes_on_and_its_trace_is_read(boot, tmp_path):
    spoor = boot(smp=4, cmdline="selftest=deadlock ttrace=all ttrace.watchdog=3 "
                 "ttrace.ring_kb=4096", wait_prompt=False, icount=True)
    spoor.expect(r"WATCHDOG: going on \(ttrace.watchdog_panic=1 panics instead\)",
                 timeout=REPORT_TIMEOUT, allow_panic=True)
    console = spoor.console()
    a, lock_a, lock_b, b = ANNOUNCED.search(console).groups()
    assert re.search(rf"^WATCHDOG: cpu {a} cpu {b} stuck: no schedule or return to user "
                     r"\(ttrace.watchdog=3\)$", console, re.MULTILINE), console[-4000:]
    # Each stuck CPU waits, interrupts masked, for the lock the other holds, and
    # the report names the holder: its CPU and thread. Both are stuck in the kick's
    # interrupt of their idle thread, which is then not idling. The holders'
    # positions are their stack walks, deep in that interrupt.
    tids = {cpu: cpu_block(console, cpu)[0].split(" ")[2] for cpu in (a, b)}
    for cpu, waits_for, holder in ((a, lock_b, b), (b, lock_a, a)):
        state, walk = cpu_block(console, cpu)
        assert re.fullmatch(rf"kernel tid {tids[cpu]} \(the idle thread, not idling\), "
                            rf"rip 0xffffffff80[0-9a-f]{{6}}, interrupts masked, "
                            rf"spinning on lock {waits_for} held by cpu {holder} "
                            rf"\(tid {tids[holder]}\), stuck for \d+\.\d{{3}} s", state), state
        assert len(walk.splitlines()) >= 4, walk
    for cpu in ("0", "1"):
        state, _ = cpu_block(console, cpu)
        assert "stuck" not in state and "spinning" not in state, state
    # The flight recorder of every CPU; a stuck one's last event is the kick (vector 0xf2).
    for cpu in range(4):
        m = re.search(rf"^flight recorder: last (\d+) events on cpu {cpu}\n((?:  \[.*\n)+)",
                      console, re.MULTILINE)
        assert m and int(m.group(1)) > 0, console[-4000:]
        last = events_in("\n".join(line.strip() for line in m.group(2).splitlines()))[-1]
        if str(cpu) in (a, b):
            assert (last.kind, last.args.get("vector")) == ("irq_entry", "242"), last.line
    # Soft: the shell answers on the CPUs left, and cpus shows the stuck ones as stuck.
    assert "traced" in spoor.command("ps")
    out = spoor.command("cpus")
    for cpu in (a, b):
        assert re.search(rf"^cpu {cpu}: stuck for \d+\.\d{{3}} s, interrupts masked, "
                         rf"running tid {tids[cpu]}, \d+ ready$", out, re.MULTILINE), out
    for cpu in ("0", "1"):
        assert re.search(rf"^cpu {cpu}: busy ", out, re.MULTILINE), out

    # Post-mortem: the stuck CPUs' rings are frozen, so the file holds exactly what a
    # save holds of them; of the others, the save's events come first, in order.
    saved = SAVED.search(spoor.command("trace save as hung", timeout=300))
    assert saved, spoor.console()[-2000:]
    path, events, lost = postmortem(spoor)
    after, _ = text_of(path)
    before, _ = text_of(spoor.traces / "hung.spoor")
    pm, sv = by_cpu(after), by_cpu(before)
    for cpu in range(4):
        if str(cpu) in (a, b):
            assert pm[cpu] == sv[cpu], f"cpu {cpu}"
        else:
            assert pm[cpu][:len(sv[cpu])] == sv[cpu], f"cpu {cpu}"
    assert lost == 0 and len(after) > len(before)
    check_converters_on(path, tmp_path)


def test_watchdog_panic_setting_panics_after_the_report(boot):
    spoor = boot(smp=3, cmdline="selftest=deadlock ttrace.watchdog=2 ttrace.watchdog_panic=1",
                 wait_prompt=False, icount=True)
    # Both CPUs are stuck, each spinning on the lock the other holds.
    spoor.expect(r"WATCHDOG: cpu 1 cpu 2 stuck", timeout=REPORT_TIMEOUT, allow_panic=True)
    for cpu, holder in ((1, 2), (2, 1)):
        spoor.expect(rf"cpu {cpu}: kernel tid \d+ \(the idle thread, not idling\), rip "
                     rf"0x[0-9a-f]+, interrupts masked, spinning on lock 0x[0-9a-f]+ held by "
                     rf"cpu {holder} \(tid \d+\)", allow_panic=True)
    # Nothing was traced: the report says so, and how to trace the next hang.
    spoor.expect(r"WATCHDOG: the flight recorder is empty: boot with ttrace=all \(or "
                 r"ttrace=CATS, a list of categories\) to fill it", allow_panic=True)
    spoor.expect(r"KERNEL PANIC on cpu 0: watchdog: a cpu is stuck", allow_panic=True)
    assert spoor.wait_exit() == EXIT_KERNEL_FAILURE


def test_a_cpu_spinning_masked_not_yet_stuck_is_not_called_idle(boot):
    """inject=latewait: cpu 1 also asks for lock A, interrupts masked, from its
    idle thread, 1.4 s after the deadlock began (0.7 of the limit). The report,
    at the limit, finds it silent for less than half the limit: not stuck yet,
    but not idling either (before, the report called it "idle")."""
    spoor = boot(smp=4, cmdline="selftest=deadlock ttrace.watchdog=2 inject=latewait",
                 wait_prompt=False, icount=True)
    spoor.expect(r"WATCHDOG: going on \(ttrace.watchdog_panic=1 panics instead\)",
                 timeout=REPORT_TIMEOUT, allow_panic=True)
    console = spoor.console()
    late = console.index("selftest deadlock: cpu 1, late, asks for lock A too, interrupts masked")
    report = console.index("WATCHDOG: cpu 2 cpu 3 stuck: no schedule or return to user")
    assert late < report, console[-4000:]
    lock_a = ANNOUNCED.search(console).group(2)
    state, walk = cpu_block(console[report:], 1)
    assert re.fullmatch(rf"kernel tid \d+ \(the idle thread, not idling\), rip 0x[0-9a-f]+, "
                        rf"interrupts masked, spinning on lock {lock_a} held by cpu 2 "
                        rf"\(tid \d+\)", state), state
    assert "selftest_deadlock_ap" in walk, walk


def test_an_nmi_after_the_report_stopped_waiting_is_counted_and_the_machine_goes_on(boot):
    # inject=latenmi: the last CPU (deadlocked, interrupts masked) takes the
    # detector's NMI only once the report stopped waiting for it.
    spoor = boot(smp=4, cmdline="selftest=deadlock ttrace.watchdog=3 inject=latenmi",
                 wait_prompt=False, icount=True)
    spoor.expect(r"cpu 3: did not answer the NMI in 100 ms", timeout=REPORT_TIMEOUT,
                 allow_panic=True)
    spoor.expect(r"WATCHDOG: going on \(ttrace.watchdog_panic=1 panics instead\)", allow_panic=True)
    # The late NMI is counted, not taken for a stray one (which panics). A
    # look at the suspects a tick before the one that reports (the other CPU
    # not yet silent for the whole limit) may have asked cpu 3 too: each of
    # its NMIs comes late, each is counted.
    late = re.compile(r"^cpu 3: .*, (\d+) late lockup NMIs? ignored$", re.MULTILINE)
    out = until(lambda: spoor.command("cpus"), late.search)
    assert late.search(out) and int(late.search(out).group(1)) >= 1, out
    # cpu 2 answered in time: none of its NMIs came late.
    assert re.search(r"^cpu 2: stuck for \d+\.\d{3} s, interrupts masked, running tid [1-9]\d*, "
                     r"\d+ ready$", out, re.MULTILINE), out
    assert "traced" in spoor.command("ps")


def test_trace_on_with_a_stuck_cpu_is_refused_and_changes_nothing(boot):
    """Turning a category, an extra or the profiler on stops every other CPU to rewrite
    the tracepoints: with CPUs stuck, interrupts masked (selftest=deadlock), it gives up
    after a bounded wait and the shell says why, instead of hanging; nothing changed.
    (Before, the shell hung and its CPU, spinning in the stop, was reported stuck.) The
    limit is above the stop's 2 s wait, which counts no progress."""
    spoor = boot(smp=3, cmdline="selftest=deadlock ttrace.watchdog=5", wait_prompt=False,
                 icount=True)
    spoor.expect(r"WATCHDOG: going on \(ttrace.watchdog_panic=1 panics instead\)",
                 timeout=REPORT_TIMEOUT, allow_panic=True)
    refused = "trace: nothing changed: a cpu did not stop for the tracepoints' rewrite " \
              "(stuck? cpus shows it)"
    assert "trace: registered user event 0 'stuckdemo'" in spoor.command("trace register 'stuckdemo u32 a'")
    for line in ("trace on sched", "trace on sched", "trace stack on mem_pf", "trace profile",
                 "trace on user", "trace on user:stuckdemo"):
        out = spoor.command(line, timeout=60)
        assert refused in out, out
    # The user category stayed off, and so did its events: none is left enabled.
    out = spoor.command("trace events")
    assert re.search(r"^\d+:stuckdemo$", out, re.MULTILINE) and "Busy: 0" in out, out
    out = spoor.command("trace status")
    assert re.search(r"^trace: mask none, ", out, re.MULTILINE), out
    assert re.search(r"^stacks: off$", out, re.MULTILINE), out
    assert re.search(r"^profile: off$", out, re.MULTILINE), out
    assert "traced" in spoor.command("ps")


def test_a_host_stall_past_the_limit_is_no_lockup_of_a_cpu_masked_across_it(boot):
    """selftest=masked: cpu 1 runs with interrupts masked but for a moment every
    100 ms, and stays masked 300 ms more once it sees the clock jump. The host
    stops QEMU for longer than the limit; the TSC, the host's, goes on. By the
    TSC, cpu 1 then took no tick for the whole stall, and it answered the
    detector's three NMIs, a tick apart, masked: a report named a CPU that was
    never stuck. So did the soak, after test_record's 12 s host stall under
    ttrace.watchdog=10, with three CPUs in a timer_lock convoy. Silence is
    counted in the time the machine ran: no report, no CPU stuck."""
    spoor = boot(smp=3, cmdline="selftest=masked ttrace.watchdog=1")
    assert "selftest masked: cpu 1 runs with interrupts masked, unmasking every 100 ms" \
        in spoor.console()
    for _ in range(2):
        spoor.stop_for(HOST_STALL_S)
        # A report would come within a few ticks of the stall, before this line;
        # a shorter jump is the host's scheduling of the vCPU, not the stall.
        jump = spoor.expect(JUMP)
        while int(jump.group(1)) < HOST_STALL_S * 1000 * 9 // 10:
            jump = spoor.expect(JUMP)
        assert "hello" in spoor.command("run hello")
    out = spoor.command("cpus")
    assert "stuck" not in out, out
    assert "WATCHDOG" not in spoor.console(), spoor.console()[-4000:]
