"""Kernel tracing: the boot banner, early tracing, the panic flight recorder,
tracepoints rewritten (static branches) while every CPU runs them, and
interrupts nested inside a tracepoint's straight path."""

import re

import pytest

from spoorlib import DUMP_TIMEOUT, EXIT_KERNEL_FAILURE, PROMPT, expect_count, kill_job, \
    start_background, start_job, status


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
                 r"user,test,prof,func all\); tracing stays off")
    spoor.expect(r"mask none")
    spoor.expect(re.escape(PROMPT))


def test_interrupts_nested_at_every_instruction_of_a_tracepoint_keep_order_and_ledger(boot):
    """selftest=tracenest single-steps an enabled tracepoint on the boot CPU
    once per instruction of its way: in pass k, the debug exception after
    the k-th step writes two events of its own, as an interrupt handler
    would, so some pass lands between the load of head and the exchange and
    some between the reservation and the commit. Read back with the readers'
    code, the ring holds every event whole, in index order by time, and the
    ledger counts each."""
    spoor = boot(smp=4, cmdline="selftest=tracenest", wait_prompt=False)
    line = spoor.expect(r"(tracenest: [^\r\n]*)\r*\n").group(1)
    found = re.fullmatch(r"tracenest: ok, (\d+) passes through a tracepoint, an interrupt's "
                         r"events after the k-th step of pass k, (\d+) of them between its "
                         r"reserve and commit: (\d+) events, timestamps in order, ledger exact",
                         line)
    assert found, line
    passes, inside, events = map(int, found.groups())
    # The straight path alone is 29 instructions, stores included, and the last
    # pass steps past the end without nesting.
    assert passes > 28 and inside >= 10 and events == passes + 2 * (passes - 1), line
    # A control operation that fails leaves the sites where they were: the
    # tracepoint still takes the straight path's steps, not the slow path's call.
    line = spoor.expect(r"(tracenest: [^\r\n]*)\r*\n").group(1)
    assert re.fullmatch(r"tracenest: a failed TRACK, STACK and ECHO each leave the tracepoint "
                        r"on its straight path: \d+ steps", line), line
    # Another CPU's echo stepped into this CPU's, every 16th instruction in turn,
    # for two programs whose pids share a slot of a decoder's name cache.
    line = spoor.expect(r"(tracenest: [^\r\n]*)\r*\n").group(1)
    assert line == "tracenest: echoes of two cpus, one inside the other, each name their own " \
                   "program", line
    spoor.expect(re.escape(PROMPT))


def test_a_cpu_stopped_inside_a_tracepoint_writes_nothing_after_drop_mode_took_effect(boot):
    """selftest=tracenest also stops a second CPU after each instruction of a
    tracepoint it single-steps, its ring full, by the switch to drop mode
    (every other CPU stopped while the sites move to the slow path). A
    tracepoint stopped before its reservation must not go on to overwrite
    once drop mode holds: its event is dropped and counted; one stopped
    after its reservation finishes the event it reserved before."""
    spoor = boot(smp=2, cmdline="selftest=tracenest", wait_prompt=False)
    line = spoor.expect(r"(tracenest: (?:a cpu stopped|FAILED: a cpu stopped)[^\r\n]*)\r*\n").group(1)
    found = re.fullmatch(r"tracenest: a cpu stopped after each step of a tracepoint while drop "
                         r"mode comes on: (\d+) passes, (\d+) stopped before its reservation "
                         r"\(each dropped\), (\d+) after it \(each written whole\)", line)
    assert found, line
    passes, before, after = map(int, found.groups())
    # Stopped in the function's entry, at the site, in the code that sets up
    # the words and in the straight path up to its exchange; then past it, up
    # to the end of the call; the last pass runs unstopped.
    assert before >= 10 and after >= 10 and passes == before + after + 1, line
    spoor.expect(re.escape(PROMPT))


class TestPanicWithTracing:
    """One boot that traces everything and then panics: the block ends with the
    trace counters of every CPU and the flight recorder of the panicking one."""

    CPUS = 4

    @pytest.fixture(scope="class")
    def panic(self, machines):
        """The console of the panic, from its first line, and QEMU's exit status."""
        console, status = machines.record(smp=self.CPUS, cmdline="ttrace=all selftest=pagefault")
        start = console.find("KERNEL PANIC on cpu 0: page fault")
        assert start >= 0, console[-3000:]
        return console[start:], status

    def test_qemu_reports_the_kernel_failure(self, panic):
        assert panic[1] == EXIT_KERNEL_FAILURE

    def test_every_cpus_counters_account_for_each_event_it_emitted(self, panic):
        block = panic[0]
        counters = block.index("trace counters:\n")
        for cpu in range(self.CPUS):
            line = re.compile(rf"^  cpu {cpu}: emitted=(\d+) stored=(\d+) overwritten=(\d+) "
                              r"dropped=(\d+) cleared=(\d+)$", re.MULTILINE)
            counts = line.search(block, counters)
            assert counts, block
            emitted, stored, overwritten, dropped, cleared = map(int, counts.groups())
            assert emitted > 0, f"cpu {cpu} recorded nothing"
            assert emitted == stored + overwritten + dropped + cleared

    def test_flight_recorder_decodes_the_last_16_events_of_the_panicking_cpu(self, panic):
        block = panic[0]
        recorder = re.search(
            r"^flight recorder: last 16 events on cpu 0\n((?:.*\n)*?)system halted", block,
            re.MULTILINE)
        assert recorder and recorder.start() > block.index("trace counters:"), block
        events = re.findall(r"^  \[ *\d+\.\d{6}\] cpu=0 pid=\d+ tid=\d+ comm=\S+ (\w+)( [^\n]*)?$",
                            recorder.group(1), re.MULTILINE)
        assert len(events) == 16, recorder.group(1)
        # The loader's frame allocations come last before the panic; the other
        # CPUs only took timer interrupts, which their counters show.
        assert any(kind == "mem_frame_alloc" and re.match(r" frame=0x[0-9a-f]+ count=\d+$", args)
                   for kind, args in events), events


def test_program_without_trace_capabilities_cannot_map_or_control(boot):
    spoor = boot(smp=2, cmdline="ttrace=all")
    out = spoor.command("run -t tracecap")
    assert "tracecap: ok" in out, out
    assert "exited with status" not in out, out


FLIP_CPUS = 4
FLIP_TICKS = 100000  # per CPU: with the test category on, long beside a flip
FLIP_CMDLINE = "ttrace.ring_kb=8192"  # 131072 entries a CPU: room for every event of the run


def test_tracepoints_rewritten_while_every_cpu_runs_them_lose_and_break_nothing(boot):
    """traceflip turns every category but test on and off for as long as
    tracegen runs on every CPU, each time rewriting the kernel's tracepoints
    with the other CPUs stopped: no fault, every tracegen emits all its
    events, every CPU's counters account for each event with nothing
    overwritten or dropped, each CPU's ring holds exactly the test events
    its tracegen emitted, and once all is off no tracepoint records."""
    spoor = boot(smp=FLIP_CPUS, cmdline=FLIP_CMDLINE)
    assert "tracing now: test" in spoor.command("trace on test")
    flipper, _ = start_background(spoor, "run -t traceflip", r"traceflip: flipping")
    start = len(spoor.console())
    for cpu in range(FLIP_CPUS):
        start_job(spoor, f"run tracegen {FLIP_TICKS} {cpu}")
    done = expect_count(spoor, r"tracegen: emitted (\d+) of (\d+) events", FLIP_CPUS, start,
                        timeout=DUMP_TIMEOUT)
    # Still flipping, as it was before the first tracegen started.
    kill_job(spoor, flipper, "traceflip")
    assert "tracing now: none" in spoor.command("trace off")
    assert done == [(str(FLIP_TICKS), str(FLIP_TICKS))] * FLIP_CPUS, done
    counts = status(spoor)  # checks emitted = stored + overwritten + dropped + cleared
    assert all(c["overwritten"] == 0 and c["dropped"] == 0 for c in counts.values()), counts
    for cpu in range(FLIP_CPUS):
        out = spoor.command(f"trace stats kind=test_tick cpu={cpu}", timeout=DUMP_TIMEOUT)
        assert re.search(rf"^# stats: {FLIP_TICKS} events, 0 lost$", out, re.MULTILINE), out
    assert "hello" in spoor.command("run hello")
    assert status(spoor) == counts, "a tracepoint recorded with every category off"
