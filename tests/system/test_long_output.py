"""Long text output bounded and announced: `trace run` prints its program's
first events, how to see the rest and their stats, not every line; a dump
longer than a screen says first how many events it will print; `trace
follow pid=N` ends by itself when process N exits."""

import re

import pytest

from spoorlib import DUMP_TIMEOUT, dump, events_in, reset_tracing, start_background

RUN_LINES = 20     # the events trace run prints itself (servers/init/shell/trace/run.c)
SCREEN_LINES = 40  # a dump longer than this announces its size


@pytest.fixture
def spoor(shared):
    """The module's machine: 2 CPUs, 256 MiB, the default command line.

    At the start of each test tracing is off, in overwrite mode, every ring
    empty. A test must let every program it starts end.
    """
    spoor = shared(smp=2)
    reset_tracing(spoor)
    return spoor


def test_trace_run_prints_its_first_events_the_dump_for_the_rest_and_the_stats(spoor):
    out = spoor.command("trace run mem memtest", timeout=DUMP_TIMEOUT)
    assert "memtest: ok" in out, out
    started = re.search(r"^\[pid (\d+)\] memtest$", out, re.MULTILINE)
    assert started, out
    pid = int(started.group(1))
    shown = events_in(out)
    assert len(shown) == RUN_LINES and {e.pid for e in shown} == {pid}, out[-3000:]
    rest = re.search(rf"^# the first {RUN_LINES} of (\d+) events; all of them: "
                     rf"trace dump tree={pid}$", out, re.MULTILINE)
    assert rest, out[-3000:]
    stats = re.search(r"^# stats: (\d+) events, \d+ lost$", out, re.MULTILINE)
    assert stats and stats.start() > rest.start(), out[-3000:]
    assert re.search(r"^  mem_pf +\d+$", out, re.MULTILINE), out[-3000:]
    everything, _ = dump(spoor, f"tree={pid}")
    assert len(everything) == int(rest.group(1)) == int(stats.group(1))
    assert [e.line for e in everything[:RUN_LINES]] == [e.line for e in shown]


def test_a_dump_longer_than_a_screen_says_how_many_events_it_prints(spoor):
    spoor.command("trace on test")
    assert "emitted 200 of 200" in spoor.command("run tracegen 200")
    spoor.command("trace off")
    found, out = dump(spoor, "kind=test_tick")
    assert len(found) == 200
    announced = re.search(r"^# 200 events to print \(Ctrl-C stops\)$", out, re.MULTILINE)
    assert announced and announced.start() < out.index(found[0].line), out[:2000]


def test_a_short_dump_has_no_announcement(spoor):
    spoor.command("trace on test")
    spoor.command("run tracegen 10")
    spoor.command("trace off")
    found, out = dump(spoor, "kind=test_tick")
    assert len(found) == 10 and "events to print" not in out, out


def test_follow_of_a_pid_ends_when_that_process_exits(spoor):
    spoor.command("trace on syscall")
    pid, _ = start_background(spoor, "run spin 1 2", r"spin: 1 threads started")
    out = spoor.command(f"trace follow pid={pid}", timeout=DUMP_TIMEOUT)
    spoor.command("trace off")
    # It says how it ends, and ends in one line.
    assert out.splitlines()[0] == f"# following; Ctrl-C stops (or pid {pid}'s exit)", out[:200]
    stopped = re.search(r"^# stopped following: (\d+) events, \d+ lost; pid (\d+) has exited$",
                        out, re.MULTILINE)
    assert stopped and int(stopped.group(2)) == pid, out[-2000:]
    found = events_in(out)
    assert found and {e.pid for e in found} == {pid}, out[-2000:]
    assert int(stopped.group(1)) == len(found)
    assert f"# pid {pid} has exited" not in out.splitlines(), out[-2000:]
    assert "^C" not in out
