"""The trace read straight from a stopped machine's memory: tools/run-qemu's
QMP socket, build/host/spoor-postmortem dumping the guest's memory through it
and writing a plain .spoor file, which spoor-trace reads like any `trace
save`. Each machine here is left broken (panicked, traced killed, deadlocked),
so each test boots its own."""

import re
import subprocess
import sys
from collections import defaultdict

import entries
from spoorlib import END, ROOT, events_in, pid_of, reset_tracing

SPOOR_TRACE = ROOT / "build" / "host" / "spoor-trace"
POSTMORTEM = ROOT / "build" / "host" / "spoor-postmortem"
DEVTOOLS = ROOT / "build" / "host" / "devtools" / "node_modules"  # make test-system installs it
SAVED = re.compile(r"trace: saved (\d+) events, (\d+) lost, (\d+) bytes to (\S+)\.spoor")
WROTE = re.compile(r"^(\S+\.spoor): (\d+) events, (\d+) entries lost")

sys.path.insert(0, str(ROOT / "tests" / "host" / "spoor_trace"))
import check_converters  # noqa: E402  (the host tests' checks of each form)


def postmortem(spoor):
    """Runs spoor-postmortem on the machine's run folder; returns (path, events, lost)."""
    done = subprocess.run([str(POSTMORTEM), str(spoor.traces)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    wrote = WROTE.match(done.stdout)
    assert wrote, done.stdout
    return wrote.group(1), int(wrote.group(2)), int(wrote.group(3))


def text_of(path):
    """spoor-trace text of a file: (its events, its text), the end line checked."""
    done = subprocess.run([str(SPOOR_TRACE), "text", str(path)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    end = END.search(done.stdout)
    assert end, done.stdout[-2000:]
    found = events_in(done.stdout)
    assert int(end.group(1)) == len(found)
    return found, done.stdout


def by_cpu(found):
    lines = defaultdict(list)
    for e in found:
        lines[e.cpu].append(e.line)
    return lines


def check_converters_on(path, tmp_path):
    """babeltrace2 reads the CTF, the JSON and SVG parse and the JSON loads in
    DevTools' trace engine: the host tests' checks."""
    assert DEVTOOLS.exists(), f"{DEVTOOLS} is missing: make test-system installs it"
    check_converters.check_file(str(SPOOR_TRACE), str(path), str(tmp_path), str(DEVTOOLS))


def test_postmortem_after_a_panic_holds_the_flight_recorder(boot, tmp_path):
    spoor = boot(smp=2, cmdline="selftest=pagefault panic_halt=1 ttrace=all", wait_prompt=False)
    spoor.expect(r"KERNEL PANIC on cpu", allow_panic=True)
    spoor.expect(r"system halted; QEMU stays up \(panic_halt=1\)", allow_panic=True)
    assert spoor.alive()
    path, events, lost = postmortem(spoor)
    found, text = text_of(path)
    assert events == len(found) and events > 0
    # Every event the panic's flight recorder printed is in the file, in the same words.
    console = "\n".join(line.strip() for line in spoor.console().splitlines())
    recorded = [e.line for e in events_in(console)]
    assert recorded, spoor.console()[-2000:]
    lines = {e.line for e in found}
    missing = [line for line in recorded if line not in lines]
    assert not missing, missing[:5]
    # The console and spoor-trace format alike (common/): each line is the file's
    # event as entries.py rebuilds it from abi/ alone, and each printed one is one
    # of them, whole.
    trace = entries.Trace(path)
    assert entries.assert_lines_are(trace, found) == sum(
        e.kind != entries.KIND_USER for e in trace.events)
    missing = set(recorded) - {trace.text(e)[0] for e in trace.events}
    assert not missing, sorted(missing)[:5]
    check_converters_on(path, tmp_path)


def test_postmortem_with_traced_killed_equals_a_save_event_for_event(boot, tmp_path):
    spoor = boot(smp=2, cmdline="ttrace.ring_kb=4096")
    reset_tracing(spoor)
    spoor.command("trace on all")
    assert "memtest: ok" in spoor.command("run memtest")
    saved = SAVED.search(spoor.command("trace save as before"))
    assert saved, spoor.console()[-2000:]
    traced = pid_of(spoor, "traced")
    assert "killed" in spoor.command(f"kill -f {traced}")
    path, events, lost = postmortem(spoor)
    after, _ = text_of(path)
    before, _ = text_of(spoor.traces / "before.spoor")
    assert len(before) == int(saved.group(1))
    # The rings were not lapped: each CPU's saved events start its post-mortem ones, exactly.
    pm, sv = by_cpu(after), by_cpu(before)
    for cpu, lines in sv.items():
        assert pm[cpu][:len(lines)] == lines, f"cpu {cpu}"
    assert len(after) > len(before) and lost == 0
    # Both texts are the files' events as entries.py rebuilds them from abi/ alone,
    # without the formatter they share.
    pm_trace = entries.Trace(path)
    entries.assert_lines_are(pm_trace, after)
    entries.assert_lines_are(entries.Trace(spoor.traces / "before.spoor"), before)
    assert len(pm_trace.events) == events and not pm_trace.lost
    check_converters_on(path, tmp_path)
