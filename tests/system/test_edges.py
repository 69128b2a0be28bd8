"""Limits that used to pass silently (tests/programs/edges): a sleep past
the end of time, a program without a console, a shell line longer than
its buffer, a trace ring size that is not a power of two, and the
kernel's console echo of events."""

import re

import pytest

from spoorlib import banner_value, expect_count


@pytest.fixture
def spoor(shared):
    """The module's machine: nothing to reset, these checks change no state."""
    return shared(smp=2, modules=("edges",))


def test_a_sleep_of_uint64_max_does_not_wrap(spoor):
    out = spoor.command("run edges sleep-max")
    assert "edges: sleep-max ok" in out, out


@pytest.mark.parametrize("program", ["hello", "init"])
def test_a_program_without_the_console_capability_prints_nothing(spoor, program):
    out = spoor.command(f"run edges mute {program}")
    between = re.search(r"edges: mute begin\n(.*?)edges: mute end \(status -?\d+\)", out, re.S)
    assert between and between.group(1) == "", out


def test_a_line_longer_than_the_buffer_is_refused(spoor):
    # The shell echoes what fits and no more, so the line is typed by hand, in one
    # burst far longer than the kernel's input buffer: the console holds keys back
    # rather than drop them, so the line's end still arrives.
    spoor.send("run " + "x" * 2000 + "\r")
    spoor.expect(r"line too long \(max 255 characters\)")
    out = spoor.expect_prompt()
    assert "no program" not in out, out


def test_a_ring_size_that_is_not_a_power_of_two_is_refused(boot):
    spoor = boot(smp=2, cmdline="ttrace.ring_kb=1000")
    text = spoor.console()
    assert "cmdline: bad value '1000' for 'ttrace.ring_kb' (expected 0 or a power of two in " \
        "4..65536), ignored" in text, text
    assert re.search(r"x 16384 entries", banner_value(text, "ttrace")), text


def test_the_echo_shows_the_first_spawns_before_the_prompt(boot):
    spoor = boot(smp=2, cmdline="ttrace=proc ttrace.echo=proc")
    before_prompt = spoor.console()
    for name in ("init", "traced"):
        assert re.search(rf'comm=\S+ proc_spawn pid=\d+ parent=\d+ name="{name}"',
                         before_prompt), before_prompt


def test_an_echo_flood_is_skipped_and_counted_and_the_shell_answers(boot):
    spoor = boot(smp=4)
    spoor.command("trace on test")
    assert "echo on the console: test" in spoor.command("trace echo on test")
    start = len(spoor.console())
    # Typed without waiting for the echo of each line: the flood's lines land among them.
    spoor.send("".join(f"run tracegen 20000 {cpu} &\r" for cpu in range(4)))
    expect_count(spoor, r"\[done\] tracegen \(pid \d+\): exited with status 0", 4, start, 300)
    skipped = expect_count(spoor, r"ttrace: echo skipped (\d+) events", 1, start, 120)
    assert int(skipped[0]) > 0, skipped
    spoor.send("mem\r")
    spoor.expect(r"memory: \d+ of \d+ frames free", timeout=60)
    spoor.expect_prompt()
    assert "echo on the console: none" in spoor.command("trace echo off")
