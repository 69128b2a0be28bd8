"""The trace wake-up (abi/trace.h THE WAKE-UP): a ring past the watermark
wakes traced's recording at once instead of at its fallback timeout; the
kernel refuses a bad watermark and a caller without the capabilities; and
without a trace area there is nothing to arm.

Times are the guest's, under -icount (its clock counts instructions), from
the recording itself: each event's timestamp, and each chunk's ns, when
traced built it (abi/trace_file.h, A RECORDING)."""

import re
import struct
import subprocess

from spoorlib import ROOT, reset_tracing

SPOOR_TRACE = ROOT / "build" / "host" / "spoor-trace"
RECORDING = re.compile(r"trace: recording to (\S+)\.spoor \(trace record stop ends it\)")
RECORDED = re.compile(r"trace: recorded (\S+)\.spoor: (\d+) events, \d+ bytes, (\d+) lost")
EVENT = re.compile(r"^\[ *(\d+\.\d+)\] cpu=1 .* test_tick seq=\d+$", re.MULTILINE)

CPU = 1
WATERMARK = 4096    # traced's: a chunk's worth (servers/traced/record.c CHUNK_MIN), at most half
                    # of a default ring (16384 entries)
EVENTS = 8 * WATERMARK
RATE = 40000        # events a second, in batches of 40: a watermark's worth every 0.1 s
FALLBACK_S = 0.5    # servers/traced/wake.h WAKE_FALLBACK_NS
WOKEN_S = 0.1       # a tick (10 ms), then the merge of a chunk's worth into the chunk before
                    # its ns is taken (under -icount shift=3, some 10 ms); the fallback
                    # alone would leave a ring past the watermark for about 0.4 s
CROSSINGS = 4       # at least this many chunks a crossing woke
FULL_SPEED_FILL_S = 0.007  # an 8 MiB ring at full speed (README, Performance): the bound
NOTICED_S = 0.003   # the wake-up's check each ms (kernel/trace/wake.h TTRACE_WAKE_HZ), traced
                    # scheduled on the other CPU, a chunk begun: well inside it, and a tick's
                    # 10 ms, at which the check came before, would fail most crossings

LOCKUP_CMDLINE = "ttrace.watchdog=1 ttrace.watchdog_panic=1"  # any lockup report fails

FILE_HEADER_SIZE_AT = 8
SECTION = struct.Struct("<IIQ")
CHUNK = struct.Struct("<QIIQ")
CHUNK_CPU = struct.Struct("<QQQQ")
TTRACE_FILE_CHUNK = 6


def chunks(path):
    """The recording's chunks in order: (ns since boot when built, entries of CPU
    so far), from the file's sections (abi/trace_file.h)."""
    data = path.read_bytes()
    at = struct.unpack_from("<I", data, FILE_HEADER_SIZE_AT)[0]
    out = []
    while at + SECTION.size <= len(data):
        kind, _, size = SECTION.unpack_from(data, at)
        if kind == TTRACE_FILE_CHUNK:
            _, ncpus, _, ns = CHUNK.unpack_from(data, at + SECTION.size)
            assert CPU < ncpus, ncpus
            cpu_at = at + SECTION.size + CHUNK.size + CPU * CHUNK_CPU.size
            out.append((ns, CHUNK_CPU.unpack_from(data, cpu_at)[2]))
        at += SECTION.size + size
    return out


def crossing_delays(spoor, name):
    """A recording of EVENTS tracegen events at RATE on CPU: each chunk a watermark crossing
    woke, the guest seconds from the crossing's event to the chunk's start (its ns)."""
    reset_tracing(spoor)
    assert RECORDING.search(spoor.command(f"trace record test as {name}"))
    out = spoor.command(f"run tracegen {EVENTS} {CPU} {RATE}")
    assert f"tracegen: emitted {EVENTS} of {EVENTS} events" in out, out
    stopped = RECORDED.search(spoor.command("trace record stop"))
    assert stopped and stopped.group(2, 3) == (str(EVENTS), "0"), spoor.console()[-2000:]
    text = subprocess.run([str(SPOOR_TRACE), "text", str(spoor.traces / f"{name}.spoor")],
                          capture_output=True, text=True, check=True, timeout=60).stdout
    stamps = [float(s) for s in EVENT.findall(text)]
    assert len(stamps) == EVENTS, len(stamps)
    # After each chunk traced arms the wake-up with its tail where the chunk ended:
    # CPU 1's ring passes the watermark at the event WATERMARK entries further on,
    # and the chunk that takes it is the one that crossing woke traced for.
    sent = chunks(spoor.traces / f"{name}.spoor")
    delays = []
    for (_, before), (ns, after) in zip(sent, sent[1:]):
        crossing = before + WATERMARK
        if after > crossing:
            delays.append(ns / 1e9 - stamps[crossing])
    assert len(delays) >= CROSSINGS, (delays, sent)
    return delays, sent


def test_a_ring_past_the_watermark_wakes_the_recording_long_before_its_fallback(shared):
    delays, sent = crossing_delays(shared(smp=2, icount=True), "wake")
    assert all(0 <= d < WOKEN_S for d in delays), (delays, FALLBACK_S, sent)


def test_the_wake_up_comes_within_a_rings_fill_time_at_full_speed_not_a_tick_later(shared):
    """While a recording runs every CPU checks its ring at TTRACE_WAKE_HZ, not at the
    scheduler's tick: each crossing is noticed within a millisecond or so, well inside
    the FULL_SPEED_FILL_S an 8 MiB ring takes to fill at full speed (after which the
    tick's 10 ms would find it lapped)."""
    delays, sent = crossing_delays(shared(smp=2, icount=True), "prompt")
    assert NOTICED_S < FULL_SPEED_FILL_S
    assert all(0 <= d < NOTICED_S for d in delays), (delays, sent)


def test_wake_ups_while_tracepoints_hold_the_schedulers_and_ipcs_locks_stall_nothing(boot):
    """sched_switch is written with a run queue's lock held, sched_wakeup and the ipc_*
    kinds with IPC's (interrupts masked under both): a recording of them crosses the
    watermark over and over while ipcping switches threads on both CPUs. The wake-up is
    signalled from the timer interrupt alone, never from inside a tracepoint, so no CPU
    takes a lock it holds: every command answers, the lockup detector (at its most
    sensitive, panicking) reports nothing, and the file reads whole with the counts the
    stop said (ipcping keeps both CPUs busy, so traced may fall behind: what it loses is
    counted)."""
    spoor = boot(smp=2, icount=True, cmdline=LOCKUP_CMDLINE)
    assert RECORDING.search(spoor.command("trace record sched,ipc as locked"))
    out = spoor.command("run ipcping")
    assert re.search(r"fast path takes \d+\.\d\d times fewer cycles", out), out
    stopped = RECORDED.search(spoor.command("trace record stop"))
    assert stopped, spoor.console()[-2000:]
    # Drained while ipcping ran, chunk after chunk (the first is only the header's).
    assert len(chunks(spoor.traces / "locked.spoor")) > 1 + CROSSINGS
    done = subprocess.run([str(SPOOR_TRACE), "text", str(spoor.traces / "locked.spoor")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and not done.stderr, done.stderr
    assert done.stdout.endswith(f"# end of dump: {stopped.group(2)} events, "
                                f"{stopped.group(3)} lost\n"), done.stdout[-200:]


def test_trace_wake_refuses_a_bad_watermark_and_callers_without_the_capabilities(shared):
    spoor = shared(smp=2, icount=True)
    out = spoor.command("run -t tracecap")
    assert "tracecap: ok" in out, out


def test_without_a_trace_area_there_is_nothing_to_arm_and_ipc_goes_on(boot):
    spoor = boot(smp=2, cmdline="ttrace.ring_kb=0")
    assert "tracecap: ok" in spoor.command("run tracecap off")
    out = spoor.command("run ipcping")
    assert re.search(r"fast path takes \d+\.\d\d times fewer cycles", out), out
