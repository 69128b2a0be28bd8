"""The init shell: commands, line editing, and halt powering QEMU off."""

import re

from conftest import EXIT_POWER_OFF, PROMPT


def test_shell_commands_and_line_editing(boot):
    spoor = boot(smp=2)

    assert "unknown command 'frob' (try help)" in spoor.command("frob")

    out = spoor.command("help")
    for name in ("help", "ps", "cpus", "mem", "run", "kill", "halt"):
        assert re.search(rf"^\s+{name}\s", out, re.MULTILINE), out

    free, total = map(int, re.search(r"memory: (\d+) of (\d+) frames free",
                                     spoor.command("mem")).groups())
    assert 0 < free <= total

    # Backspace (DEL) removes the typo, Ctrl-U throws the line away,
    # Ctrl-C cancels it.
    spoor.send("mex\x7fm\r")
    spoor.expect(r"memory: \d+ of \d+ frames free")
    spoor.expect(re.escape(PROMPT))
    spoor.send("garbage\x15help\r")
    spoor.expect(r"power the machine off")
    spoor.expect(re.escape(PROMPT))
    spoor.send("halt\x03")
    spoor.expect(r"\^C")
    spoor.expect(re.escape(PROMPT))


def test_halt_powers_off_with_status_0(boot):
    spoor = boot(smp=4)
    spoor.send("halt\r")
    spoor.expect(r"powering off")
    assert spoor.wait_exit() == EXIT_POWER_OFF


def test_ctrl_c_interrupts_the_foreground_program(boot):
    spoor = boot(smp=2)
    spoor.send("run spin 1 600\r")
    spoor.expect(r"spin: 1 threads started")
    spoor.send("\x03")
    spoor.expect(r"spin \(pid \d+\): killed")
    spoor.expect(re.escape(PROMPT))
    assert "spin" not in spoor.command("ps")
