"""The trace read straight from a stopped machine's memory: tools/run-qemu's
QMP socket, build/host/spoor-postmortem dumping the guest's memory through it
and writing a plain .spoor file, which spoor-trace reads like any `trace
save`. Each machine here is left broken (panicked, traced killed, deadlocked),
so each test boots its own."""

import re
import subprocess
import sys
from collections import defaultdict

from spoorlib import END, ROOT, events_in, pid_of, read_spoor, reset_tracing, same_event

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
    # The console and spoor-trace format alike (common/): the file read from abi/
    # alone holds each printed event too.
    entries, _ = read_spoor(path)
    assert len(entries) == events
    missing = [e.line for e in events_in(console) if not any(same_event(x, e) for x in entries)]
    assert not missing, missing[:5]
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
    # The same read from abi/ alone, without the formatter both texts share.
    pm_entries, pm_lost = read_spoor(path)
    sv_entries, _ = read_spoor(spoor.traces / "before.spoor")
    assert len(pm_entries) == events and not pm_lost
    for cpu in sv:
        saved = [e for e in sv_entries if e[1] == cpu]
        assert saved and [e for e in pm_entries if e[1] == cpu][:len(saved)] == saved, cpu
    check_converters_on(path, tmp_path)
