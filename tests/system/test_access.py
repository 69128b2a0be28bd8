"""Who may trace whom: traced's levels (self, read-all with `run -r`, control
with `run -t`), identity that the kernel and init vouch for, PID tracking
in the kernel (`trace track`), and `trace run`.

Most checks run tracescope (tests/programs/tracescope), which asks traced
for what its level allows and for what it must refuse, and prints one
verdict line. The module's machine starts each test with tracing off and
the rings empty (the fixture below)."""

import re

import pytest

from spoorlib import dump, events_in, reset_tracing, status

TRACESCOPE = ("tracescope",)


@pytest.fixture
def spoor(shared):
    """The module's machine, tracing off, overwrite mode, rings empty, tracking off."""
    spoor = shared(smp=4, modules=TRACESCOPE)
    reset_tracing(spoor)
    spoor.command("trace untrack all")
    return spoor


def registered(spoor, name):
    """Registers user event name for the shell (init holds it): someone else's."""
    out = spoor.command(f"trace register '{name} u32 x'")
    assert "registered user event" in out, out


def test_a_self_program_is_refused_everything_beyond_its_own_and_changes_nothing(spoor):
    spoor.command("trace on test")
    registered(spoor, "someone_elses")
    out = spoor.command("run tracescope self someone_elses")
    assert re.search(r"tracescope: self ok \(\d+ checks\)", out), out
    events = spoor.command("trace events")
    assert "someone_elses" in events and not re.search(r"tracescope_\d+", events), events
    spoor.command("trace unregister someone_elses")


def test_a_self_programs_dump_and_bulk_dump_hold_only_its_own_and_its_childs_events(spoor):
    spoor.command("trace on test")
    assert "emitted 200 of 200" in spoor.command("run tracegen 200 1")
    out = spoor.command("run tracescope dump 100")
    assert re.search(r"tracescope: dump saw 100 own, 100 of child \d+, 0 of others", out), out
    assert re.search(r"tracescope: bulk dump saw 100 own, 100 of child \d+, 0 of others", out), out
    assert "tracescope: dump ok" in out, out


def test_a_read_all_program_reads_everyone_and_changes_nothing(spoor):
    spoor.command("trace on test")
    registered(spoor, "someone_elses")
    assert "emitted 50 of 50" in spoor.command("run tracegen 50")
    out = spoor.command("run -r tracescope read someone_elses")
    assert "tracescope: read ok" in out, out
    spoor.command("trace unregister someone_elses")


def test_a_passed_capability_does_not_lend_its_identity(spoor):
    out = spoor.command("run tracescope pass")
    assert "tracescope: pass ok" in out, out


def test_tracecat_says_it_needs_read_all(spoor):
    out = spoor.command("run tracecat")
    assert "tracecat: permission denied (need read-all)" in out, out
    assert "# end of dump" in spoor.command("run -r tracecat count=1")


def test_trace_run_shows_only_the_program_and_restores_the_state(spoor):
    spoor.command("trace on irq")
    before = spoor.command("trace status")
    out = spoor.command("trace run mem memtest", timeout=300)
    assert "memtest: ok" in out, out
    found = events_in(out)
    assert found, out[-2000:]
    pid = found[0].pid
    assert {e.pid for e in found} == {pid} and {e.comm for e in found} == {"memtest"}
    assert any(e.kind == "mem_pf" for e in found), out[-2000:]
    # trace run prints the first events; the dump of the pid has them all.
    same, _ = dump(spoor, f"pid={pid}")
    assert [e.line for e in same[:len(found)]] == [e.line for e in found]
    after = spoor.command("trace status")
    mask = re.compile(r"^trace: mask (\S+),.*$|^tracking: .*$", re.MULTILINE)
    assert mask.findall(after) == mask.findall(before)


def test_tracking_records_only_the_tracked_process_and_its_children(spoor):
    spoor.command("trace on test")
    before = status(spoor)
    assert "trace: tracking pid 1" in spoor.command("trace track 1")
    assert "emitted 300 of 300" in spoor.command("run tracegen 300 1")
    assert re.search(r"^tracking: pids 1$", spoor.command("trace status"), re.MULTILINE)
    assert "no longer tracking pid 1" in spoor.command("trace untrack 1")
    assert "emitted 200 of 200" in spoor.command("run tracegen 200 2")
    spoor.command("trace untrack all")
    cpus = status(spoor)
    emitted = {c: cpus[c]["emitted"] - before[c]["emitted"] for c in cpus}
    assert emitted[1] == 300 and emitted[2] == 0, emitted
    found, _ = dump(spoor, "kind=test_tick")
    assert len(found) == 300 and {e.cpu for e in found} == {1}
    assert "tracking: off" in spoor.command("trace status")


def test_track_refuses_what_is_not_a_live_pid(spoor):
    assert "trace: no process 9999" in spoor.command("trace track 9999")
    assert "trace: 'x' is not a pid" in spoor.command("trace track x")
