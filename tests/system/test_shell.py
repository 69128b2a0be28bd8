"""The init shell: commands, line editing, Ctrl-C, and halt powering QEMU off."""

import re

import pytest

from spoorlib import EXIT_POWER_OFF, PROMPT, ROOT, pid_of, ps


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


def test_help_names_every_trace_verb(spoor):
    """help's trace line is made from the verbs' one table: every verb `trace` lists."""
    verbs = re.findall(r"^  trace (\w+)", spoor.command("trace"), re.MULTILINE)
    assert {"record", "stack", "profile", "top"} <= set(verbs), verbs
    line = re.search(r"^  trace   trace (\S+): see `trace`$", spoor.command("help"), re.MULTILINE)
    assert line and line.group(1).split("|") == verbs, line


def test_readme_shows_the_help_the_shell_prints(spoor):
    """The README's `help` is the shell's, line for line (it had lost four verbs)."""
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"^    init> help\n((?:      .*\n)+)", readme, re.MULTILINE)
    assert block, "README.md shows no `init> help`"
    shown = [line[4:] for line in block.group(1).splitlines()]
    printed = [line.rstrip("\r") for line in spoor.command("help").splitlines()]
    assert shown == [line for line in printed if line.startswith("  ")], printed


def test_help_explains_ps_mem_and_mem_used(spoor):
    """ps's MEM (a process's mapped pages) and mem's USED (what its tree is charged) differ;
    help says what each counts."""
    out = spoor.command("help")
    ps_line = re.search(r"^  ps .*$", out, re.MULTILINE).group(0)
    mem_line = re.search(r"^  mem .*$", out, re.MULTILINE).group(0)
    assert "MEM: the user pages its process maps" in ps_line, ps_line
    assert "USED: every frame and kernel object charged to the tree" in mem_line, mem_line


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


def test_foreground_run_says_the_pid_it_started(spoor):
    out = spoor.command("run hello")
    started = re.search(r"^\[pid (\d+)\] hello$", out, re.MULTILINE)
    assert started, out
    # The pid is the one the spawn recorded, with init as its parent.
    procs = spoor.command("trace strings procs")
    init = pid_of(spoor, "init")
    assert re.search(rf"^proc {started.group(1)} ppid={init} hello$", procs, re.MULTILINE), procs


# Enough runs that a child printing before the shell's line shows up: before
# the fix the child ran on another CPU as soon as spawn returned, and a
# few in 30 printed first.
ANNOUNCE_RUNS = 30


def test_run_says_the_pid_before_the_program_prints(shared):
    spoor = shared(smp=4)  # idle CPUs for the child to start on at once
    for _ in range(ANNOUNCE_RUNS):
        out = spoor.command("run hello")
        lines = [line for line in out.splitlines()
                 if re.match(r"^(\[pid \d+\] hello|hello: argc=1)$", line)]
        assert len(lines) == 2 and lines[0].startswith("[pid "), out


def test_strings_procs_shows_each_pid_with_its_parent(spoor):
    traced = [row for row in ps(spoor) if row[2] == "traced"][0]
    procs = spoor.command("trace strings procs")
    assert re.search(rf"^proc {traced[0]} ppid={traced[6]} traced$", procs, re.MULTILINE), procs


def test_run_and_trace_run_say_the_same_of_a_missing_program(spoor):
    assert "run: no program 'nosuch'" in spoor.command("run nosuch")
    assert "trace: no program 'nosuch'" in spoor.command("trace run nosuch")
    assert "trace: mask none," in spoor.command("trace status")


def test_run_names_an_unknown_option(spoor):
    out = spoor.command("run -x tracecat")
    assert "run: unknown option '-x' (usage: run " in out, out
    assert "tracecat" not in spoor.command("ps")


def test_tracecat_h_prints_its_usage_and_exits_0(spoor):
    out = spoor.command("run tracecat -h")
    assert "usage: tracecat " in out and "FILTERS: " in out, out
    assert "exited with status" not in out, out


def test_trace_hist_without_a_measure_lists_them(spoor):
    out = spoor.command("trace hist")
    assert re.search(r"^trace: hist needs a measure: syscall \[name=\.\.\.\], ipc \[endpoint=\.\.\.\]"
                     r" \[path=fast\|slow\], pf \[outcome=\.\.\.\], wakeup \[cpu=\.\.\.\]$", out,
                     re.MULTILINE), out


@pytest.mark.parametrize("line, why", [
    ("trace save as a b", "more words follow it"),
    ("trace save pid=1 as", "none given"),
])
def test_trace_save_says_what_is_wrong_with_as(spoor, line, why):
    out = spoor.command(line)
    assert f"trace: 'as' takes one NAME, last ({why}; usage: trace save " in out, out


def test_uptime_has_one_unit(spoor):
    cpus = spoor.command("cpus")
    status = spoor.command("trace status")
    for out in (cpus, status):
        assert re.search(r", up \d+\.\d{3} s$", out, re.MULTILINE), out
