"""The init shell: commands, line editing, Ctrl-C, and halt powering QEMU off."""

import re

import pytest

from spoorlib import EXIT_POWER_OFF, PROMPT


@pytest.fixture
def spoor(shared):
    """The module's machine: 2 CPUs, 256 MiB, the default command line.

    A test may rely on the shell at an empty prompt with no program of its
    own running; it must leave it so (a line it typed ended or cancelled,
    a program it started ended).
    """
    return shared(smp=2)


def test_unknown_command_is_named_with_a_pointer_to_help(spoor):
    assert "unknown command 'frob' (try help)" in spoor.command("frob")


def test_help_lists_every_command(spoor):
    out = spoor.command("help")
    for name in ("help", "ps", "cpus", "mem", "run", "kill", "halt"):
        assert re.search(rf"^\s+{name}\s", out, re.MULTILINE), out


def test_mem_reports_free_frames_of_the_total(spoor):
    free, total = map(int, re.search(r"memory: (\d+) of (\d+) frames free",
                                     spoor.command("mem")).groups())
    assert 0 < free <= total


def test_backspace_removes_the_last_character(spoor):
    # DEL, as terminals send for backspace: "mex" becomes "me", then "mem".
    spoor.send("mex\x7fm\r")
    spoor.expect(r"memory: \d+ of \d+ frames free")
    spoor.expect(re.escape(PROMPT))


def test_ctrl_u_throws_the_line_away(spoor):
    spoor.send("garbage\x15help\r")
    spoor.expect(r"power the machine off")
    spoor.expect(re.escape(PROMPT))


def test_ctrl_c_cancels_the_line(spoor):
    spoor.send("halt\x03")
    spoor.expect(r"\^C")
    spoor.expect(re.escape(PROMPT))
    # The cancelled halt did not run: the machine still answers.
    assert "memory:" in spoor.command("mem")


def test_ctrl_c_interrupts_the_foreground_program(spoor):
    spoor.send("run spin 1 600\r")
    spoor.expect(r"spin: 1 threads started")
    spoor.send("\x03")
    spoor.expect(r"spin \(pid \d+\): killed")
    spoor.expect(re.escape(PROMPT))
    assert "spin" not in spoor.command("ps")


def test_halt_powers_off_with_status_0(boot):
    spoor = boot(smp=4)
    spoor.send("halt\r")
    spoor.expect(r"powering off")
    assert spoor.wait_exit() == EXIT_POWER_OFF
