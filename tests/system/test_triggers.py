"""Triggers in the kernel (issue 34 item 2, abi/trace_pred.h TRIGGERS): `trace
trigger KIND if PREDICATE then ACTION` runs the action on the events of KIND the
predicate holds for: `save as NAME after MS` writes the rings to the host once,
MS ms after the moment (a later firing is counted, and saves nothing); `stop` freezes the rings at it exactly; `count` counts;
`stack` gives that event alone its call stack. `trace status` lists each trigger
with how often it fired; a bad trigger gets one line and changes nothing; and
triggers set and removed while tracegen runs on every CPU leave every event
counted. One machine for the module."""

import re
import subprocess

import pytest

from spoorlib import (ROOT, TRACEGEN_DONE, dump, events_in, expect_after, expect_count,
                      flip_under_tracegen, lost_per_cpu, pid_of, restarted_pid, status,
                      until)

SPOOR_TRACE = ROOT / "build" / "host" / "spoor-trace"
TRIGGER_LINE = re.compile(r"^trigger (\w+): (.*?): fired (\d+)(.*?)\r?$", re.MULTILINE)
PID_LINE = re.compile(r"^\[pid (\d+)\] (\w+)\r?$", re.MULTILINE)
AFTER_MS = 100
TICK_US = 10000  # the guest's timer tick (TIMER_HZ 100)
SAVE_RATE = 2000  # tracegen's events a second on each CPU, across the fault and past the save
SAVE_TICKS = 6000  # three seconds of them: within one ring (16384), nothing overwritten
FLIP_TICKS = 10000
FLIP_RATE = 20000


@pytest.fixture
def spoor(shared):
    machine = shared(smp=2)
    clean(machine)
    return machine


def clean(spoor):
    """No trigger, no filter, tracing off, the rings empty."""
    assert "trace: no triggers" in spoor.command("trace trigger off")
    spoor.command("trace on all")
    assert "tracing now: none" in spoor.command("trace off")
    assert "trace: cleared every ring" in spoor.command("trace clear")
    out = spoor.command("trace status")
    assert "triggers: none" in out and "filters: none" in out, out


def triggers(spoor):
    """`trace status`'s triggers: {kind: (what it is, fired, what came of it)}."""
    return {kind: (what, int(fired), rest)
            for kind, what, fired, rest in TRIGGER_LINE.findall(spoor.command("trace status"))}


def next_pid(spoor):
    """The pid the next program run gets: one past hello's, run now (nothing spawns between)."""
    out = spoor.command("run hello")
    started = PID_LINE.search(out)
    assert started and started.group(2) == "hello", out
    return int(started.group(1)) + 1


def text_of(path):
    """spoor-trace text of a saved file: (its events, its text)."""
    done = subprocess.run([str(SPOOR_TRACE), "text", str(path)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return events_in(done.stdout), done.stdout


def filters_and_triggers(spoor):
    """`trace status`'s filter and trigger lines, in their order."""
    return [l.rstrip() for l in spoor.command("trace status").splitlines()
            if l.startswith(("filter ", "trigger "))]


def test_a_restarted_traced_shows_and_saves_what_the_one_before_set(spoor):
    """traced keeps each filter's and trigger's text in the kernel's note beside
    its program (abi/trace_pred.h NOTES): killed and restarted, it shows the
    same lines, and a save trigger set before fires into its file after."""
    spoor.command("trace on syscall if result < 0 && pid != 1")
    spoor.command("trace on mem_pf if comm == \"memtest\"")
    (spoor.traces / "restarted.spoor").unlink(missing_ok=True)
    out = spoor.command("trace trigger proc_fault if comm == fault then save as restarted after 10")
    assert "trace: trigger on proc_fault" in out, out
    spoor.command("trace trigger sched_wakeup if tid == 99999 then count")
    before = filters_and_triggers(spoor)
    assert len(before) == 5 and all("(set before traced last started)" not in l
                                    for l in before), before
    traced = pid_of(spoor, "traced")
    out = spoor.command(f"kill -f {traced}")
    expect_after(spoor, out, r"init: traced killed, restarting")
    restarted_pid(spoor, "traced", traced)
    assert filters_and_triggers(spoor) == before
    out = spoor.command("run fault null")
    killed = re.search(r"pid (\d+) \(fault\) killed: page fault", out)
    assert killed, out
    pid = int(killed.group(1))
    until(lambda: triggers(spoor)["proc_fault"][2], lambda rest: "saved" in rest)
    assert triggers(spoor)["proc_fault"][1] == 1
    found, _ = text_of(spoor.traces / "restarted.spoor")
    assert [e.pid for e in found if e.kind == "proc_fault"] == [pid], found[-5:]


def test_save_trigger_writes_the_rings_once_with_what_came_before_and_after(shared):
    # Under -icount: the AFTER_MS after the moment are the guest's own time,
    # in which both tracegens write, however long the host leaves a vCPU
    # unrun (make soak's first round saw no event in the 100 ms after it).
    # The two tracegens and the fault, delayed by half the tracegens' run, are
    # typed in one go: the moment is then in the middle of both runs by the
    # guest's clock. A guest waiting for the host's next line jumps from timer
    # to timer (sleep=off), so a fault typed once both tracegens had written
    # once came, on a loaded host, after their three seconds had passed.
    spoor = shared(smp=2, icount=True)
    clean(spoor)
    assert "tracing now: test" in spoor.command("trace on test")
    (spoor.traces / "crash.spoor").unlink(missing_ok=True)
    pid = next_pid(spoor) + 2
    out = spoor.command(f"trace trigger proc_fault if pid == {pid} then save as crash "
                        f"after {AFTER_MS}")
    assert f"trace: trigger on proc_fault: pid == {pid} then save as crash after {AFTER_MS}" \
        in out, out
    assert "trace: enabled proc;" in out, out
    start = len(spoor.console())
    spoor.send("".join(f"run tracegen {SAVE_TICKS} {cpu} {SAVE_RATE} &\r" for cpu in range(2)) +
               f"run fault null {SAVE_TICKS * 1000 // SAVE_RATE // 2}\r")
    expect_count(spoor, rf"pid {pid} \(fault\) killed: page fault", 1, start)
    # The tracegens' end first: a shell asking traced over and over starves a CPU's tracegen.
    expect_count(spoor, TRACEGEN_DONE, 2, start)
    until(lambda: triggers(spoor)["proc_fault"][2], lambda rest: "saved" in rest)
    # A second fault of the same pid cannot be: the trigger fired once, and saved once.
    what, fired, rest = triggers(spoor)["proc_fault"]
    assert fired == 1, (what, fired, rest)
    assert re.match(r", saved \d+ events to crash\.spoor", rest), rest
    found, text = text_of(spoor.traces / "crash.spoor")
    faults = [e for e in found if e.kind == "proc_fault"]
    assert len(faults) == 1 and faults[0].pid == pid, [e.line for e in faults]
    moment, after = faults[0].us, AFTER_MS * 1000
    # The save began no sooner than AFTER_MS after the moment: events that
    # late are in it, but for a tick or two (a tracegen's batches come at
    # the ticks its sleeps end on, and the save may start just before one).
    assert max(e.us for e in found) >= moment + after - 2 * TICK_US, (moment, found[-1].line)
    assert not lost_per_cpu(text), text[-2000:]
    spoor.command("trace off")
    for cpu in range(2):
        saved = {(e.us, e.line) for e in found if e.cpu == cpu}
        assert any(us < moment for us, _ in saved), (cpu, moment)
        assert any(us > moment for us, _ in saved), (cpu, moment)
        # Every event the CPU recorded up to AFTER_MS after the moment is in the save, as
        # the rings still hold them (a ring holds all the test's events): a CPU the host
        # did not run for a while has none in some stretch, but the save missed none.
        held, _ = dump(spoor, f"cpu={cpu}")
        wanted = {(e.us, e.line) for e in held if e.us <= moment + after}
        assert wanted and wanted <= saved, (cpu, sorted(wanted - saved)[:3])


def test_a_save_trigger_firing_again_is_counted_and_saves_nothing_more(spoor):
    path = spoor.traces / "twice.spoor"
    path.unlink(missing_ok=True)
    out = spoor.command("trace trigger test_tick if seq == 3 then save as twice after 0")
    assert "trace: trigger on test_tick: seq == 3 then save as twice after 0" in out, out
    assert "emitted 10 of 10" in spoor.command("run tracegen 10 1")
    _, fired, rest = until(lambda: triggers(spoor)["test_tick"], lambda t: "saved" in t[2])
    assert fired == 1 and re.match(r", saved \d+ events to twice\.spoor", rest), rest
    first = path.stat()
    for _ in range(3):
        assert "emitted 10 of 10" in spoor.command("run tracegen 10 1")
    _, fired, again = triggers(spoor)["test_tick"]
    assert fired == 4 and again == rest, (fired, again, rest)
    assert (path.stat().st_mtime_ns, path.stat().st_size) == (first.st_mtime_ns, first.st_size)
    spoor.command("trace off")


def test_stop_freezes_the_rings_at_the_triggering_event(spoor):
    assert "tracing now: test" in spoor.command("trace on test")
    out = spoor.command("trace trigger test_tick if seq == 700 then stop")
    assert "trace: trigger on test_tick: seq == 700 then stop" in out, out
    assert "emitted 1000 of 1000" in spoor.command("run tracegen 1000 1")
    frozen = status(spoor)
    # The last event recorded on its CPU is the triggering one, every tick before it there.
    found, _ = dump(spoor, "cpu=1")
    assert found and found[-1].kind == "test_tick" and found[-1].args["seq"] == "700", \
        [e.line for e in found[-3:]]
    assert [int(e.args["seq"]) for e in found if e.kind == "test_tick"] == list(range(701))
    what, fired, rest = triggers(spoor)["test_tick"]
    assert fired == 1 and "rings stopped" in rest, (what, fired, rest)
    # Frozen: what runs now is recorded on no CPU.
    spoor.command("trace on all")
    assert "emitted 100 of 100" in spoor.command("run tracegen 100 0")
    spoor.command("run hello")
    after = status(spoor)
    assert all(after[c]["stored"] == frozen[c]["stored"] for c in after), (frozen, after)
    # Removing the trigger starts the rings again.
    assert "trace: no trigger on test_tick" in spoor.command("trace trigger off test_tick")
    assert "emitted 100 of 100" in spoor.command("run tracegen 100 1")
    assert status(spoor)[1]["stored"] >= after[1]["stored"] + 100
    spoor.command("trace off")


def test_count_counts_exactly_and_keeps_every_event(spoor):
    out = spoor.command("trace trigger test_tick if seq & 1 && comm == tracegen then count")
    assert "trace: trigger on test_tick: seq & 1 && comm == tracegen then count" in out, out
    assert "trace: enabled test;" in out, out
    before = status(spoor)
    assert "emitted 1000 of 1000" in spoor.command("run tracegen 1000 1")
    assert "emitted 300 of 300" in spoor.command("run tracegen 300 0")
    spoor.command("trace off")
    what, fired, rest = triggers(spoor)["test_tick"]
    assert (what, fired) == ("seq & 1 && comm == tracegen then count", 500 + 150), (what, rest)
    after = status(spoor)
    assert sum(after[c]["stored"] - before[c]["stored"] for c in after) == 1300, (before, after)


def test_stack_goes_on_the_triggering_event_only(spoor):
    out = spoor.command("trace trigger test_tick if seq == 7 then stack")
    assert "trace: trigger on test_tick: seq == 7 then stack" in out, out
    assert "emitted 20 of 20" in spoor.command("run tracegen 20 1")
    spoor.command("trace off")
    _, out = dump(spoor, "kind=test_tick")
    stacks, seq = {}, None
    for line in out.splitlines():
        event = re.match(r"^\[.*test_tick seq=(\d+)", line)
        if event:
            seq = int(event.group(1))
            stacks[seq] = 0
        elif seq is not None and line.startswith("    "):
            stacks[seq] += 1
    assert sorted(stacks) == list(range(20)), stacks
    assert [s for s, frames in stacks.items() if frames] == [7], stacks
    assert triggers(spoor)["test_tick"][1] == 1


@pytest.mark.parametrize("line, error", [
    ("trace trigger test_tick if seq == 1 then explode",
     "trace: bad trigger: unknown action 'explode' (known: stop, save as NAME [after MS], "
     "stack, count)"),
    ("trace trigger test_tick if sq == 1 then count",
     "trace: bad trigger: at 1: unknown field 'sq'"),
    ("trace trigger nosuch if pid == 1 then count", "trace: unknown kind 'nosuch'"),
    ("trace trigger syscall if pid == 1 then count", "trace: unknown kind 'syscall'"),
    ("trace trigger test_tick if seq == 1 then save as ../x",
     "trace: bad name '../x'"),
    ("trace trigger test_tick if seq == 1 then save as x after 99999999",
     "trace: bad trigger: after takes 0 to 60000 ms, not '99999999'"),
    ("trace trigger test_tick when seq == 1 then count", "trace: usage: trace trigger KIND"),
    ("trace trigger test_tick if seq == 1 && " + "1" * 190 + " then count",
     "trace: bad trigger: at 201: too long: more than 200 characters"),
], ids=["unknown_action", "bad_predicate", "unknown_kind", "category", "bad_name", "after",
        "no_if", "too_long"])
def test_a_bad_trigger_says_why_in_one_line_and_changes_nothing(spoor, line, error):
    spoor.command("trace trigger mem_pf if err & 4 then count")
    before = spoor.command("trace status")
    out = spoor.command(line)
    said = [l for l in out.splitlines() if l.strip()]
    assert len(said) == 1 and said[0].startswith(error), out
    after = spoor.command("trace status")
    assert [t[:2] for t in TRIGGER_LINE.findall(after)] == \
        [t[:2] for t in TRIGGER_LINE.findall(before)] == [("mem_pf", "err & 4 then count")]
    assert re.search(r"^trace: mask (\S+)", after, re.M).group(1) == \
        re.search(r"^trace: mask (\S+)", before, re.M).group(1)


def test_triggers_flipped_while_tracegen_runs_leave_every_event_counted(spoor):
    """A count trigger and a stop trigger that never fires set and removed on
    test_tick while tracegen runs on both CPUs (the traceflip method): each
    CPU's events are all emitted and stored, none lost."""
    assert "tracing now: test" in spoor.command("trace on test")
    before = status(spoor)
    flips = flip_under_tracegen(spoor, 2, FLIP_TICKS, lambda n: (
        (f"trace trigger test_tick if seq > 70000 then {'count' if n % 2 else 'stop'}",
         "trace: trigger on test_tick"),
        ("trace trigger off", "trace: no triggers")), FLIP_RATE)
    spoor.command("trace off")
    after = status(spoor)  # emitted = stored + overwritten + dropped + cleared + filtered
    for cpu in range(2):
        delta = {k: after[cpu][k] - before[cpu][k] for k in after[cpu]}
        assert delta["emitted"] == delta["stored"] == FLIP_TICKS, (cpu, delta)
        events, _ = dump(spoor, f"kind=test_tick cpu={cpu}")
        assert len(events) == FLIP_TICKS, (cpu, len(events))
    assert flips > 0
