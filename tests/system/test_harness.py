"""The harness itself (spoorlib.py, conftest.py): what it promises every other
test, checked where a broken harness would pass a broken kernel in silence.

- A panic block of any length fails a wait at once as a kernel panic, and
  the search for one costs a console that holds part of a block no more
  than its length.
- A shared machine found dead when a test asks for it, or is lent it by a
  class fixture, fails that test with the console's last lines; the next one
  to ask gets a fresh boot.
- A test reads only its own part of a shared machine's console.
- A shared machine a failed test left recording is replaced: every later
  test's `trace clear` and `trace save` would be refused on it.
- A typed line's echo is found whatever whole lines a background program
  prints inside it, and those lines are kept.
- Two test files running at once (make test-system's workers) write no file
  both: a worker leaves the export folders of the other's machines, and two
  tests of one name in two files keep two console logs; a failed test's
  report names its console log. These run the harness in a tree of its own
  (sandbox()), whose build/ is not the suite's, under pytest-xdist.
"""

import io
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pexpect
import pytest

from conftest import Lender
from spoorlib import BOOT_TIMEOUT, PANIC, KernelPanic, echoed, interleaved

# The old pattern allowed this many lines between "KERNEL PANIC" and "system
# halted"; a block with tracing on has more (every CPU's counters, the flight
# recorder), and the test below needs one that long to mean anything.
OLD_PANIC_LINES_MAX = 20


def test_a_panic_block_longer_than_twenty_lines_fails_a_wait_at_once(boot):
    """With tracing on the block ends in the counters and the flight recorder.
    panic_halt=1 keeps QEMU up, so only the panic pattern can end the wait
    before its timeout: a pattern that misses the block waits it out instead."""
    spoor = boot(smp=1, cmdline="ttrace=all selftest=pagefault panic_halt=1", wait_prompt=False)
    with pytest.raises(KernelPanic) as caught:
        spoor.expect(r"a line the kernel never prints", timeout=BOOT_TIMEOUT)
    message = str(caught.value)
    assert message.startswith("kernel panic while waiting"), message
    block = re.search(r"KERNEL PANIC[^\n]*\n(.*\n)system halted", message.replace("\r", ""),
                      re.DOTALL)
    assert block, message
    assert block.group(1).count("\n") > OLD_PANIC_LINES_MAX, message


# Lines of a panic block not yet ended, as a slow console shows one to a wait:
# far more than a block has, so that a search that splits them every way
# (2 ** LINES tries) cannot end while the bound below lasts.
UNENDED_LINES = 60
# A bound on the search, not a measure of it: a pattern that reads each line
# once takes microseconds; one that splits them every way, past 2 ** 40 steps.
SEARCH_SECONDS = 60
SEARCH = """
import re, sys
pattern, text = sys.stdin.buffer.read().decode().split("\\0")  # its \\r as they are
# as pexpect compiles every pattern (spawnbase.compile_pattern_list)
found = re.compile(pattern, re.DOTALL).search(text)
print("match" if found else "none")
"""


def test_the_panic_pattern_reads_a_block_not_yet_ended_in_a_time_linear_in_its_lines():
    """pexpect searches everything unread each time more comes: the wait above
    searches a panic block line by line as it arrives. A pattern that backtracks
    through every split of those lines (re.DOTALL lets `.*` cross them) holds the
    reader up for hours; the console fills, QEMU loses the block's end, and the
    test times out instead of naming the panic (one boot in ten, before)."""
    line = "  [    0.281663] cpu=0 pid=0 tid=1 comm=kernel mem_frame_alloc frame=0xba5000\r\r\n"
    unended = "KERNEL PANIC on cpu 0: page fault (#PF, vector 14)\r\r\n" + line * UNENDED_LINES
    for text, want in ((unended, "none"), (unended + "system halted\r\r\n", "match")):
        try:
            done = subprocess.run([sys.executable, "-c", SEARCH], input=PANIC + "\0" + text,
                                  capture_output=True, text=True, timeout=SEARCH_SECONDS)
        except subprocess.TimeoutExpired:
            pytest.fail(f"spoorlib.PANIC searched {UNENDED_LINES} lines of a panic block for "
                        f"more than {SEARCH_SECONDS} s: it backtracks through their splits")
        assert done.stdout.strip() == want, done.stderr


def test_a_typed_lines_echo_is_found_with_a_programs_line_anywhere_inside_it():
    """The shell echoes a line character by character, then its newline; a
    background program's line may come after any of them. A CI run once timed
    out on `run tracegen 3000 2 500000 &` with a tracegen's line between the
    `&` and the echo's newline."""
    line = "run tracegen 3000 2 500000 &"
    other = "tracegen: emitted 3000 of 3000 events, 26292 ns each\r\n"
    for at in range(1, len(line) + 1):
        console = f"init> {line[:at]}{other}{line[at:]}\r\n[started] tracegen (pid 26)\r\n"
        match = re.search(echoed(line), console)
        assert match and interleaved(match) == other, (at, console)
        assert console[match.end():].startswith("[started]"), (at, console)


def test_a_shared_machine_found_dead_fails_the_test_that_asks_for_it(machines):
    """The machine dies between two tests (QEMU quit here, by its console's
    Ctrl-A X): the next `shared` asking for it fails, with the console's last
    lines, instead of booting another in silence; the one after gets a fresh boot."""
    dead = machines.get(smp=1, group="harness")
    dead.spoor.command("run hello before-the-death")
    dead.spoor.send("\x01x")
    dead.spoor.child.expect(pexpect.EOF, timeout=BOOT_TIMEOUT)
    with pytest.raises(AssertionError) as caught:
        machines.get(smp=1, group="harness")
    message = str(caught.value)
    assert f"{dead.name} died after the last test that used it" in message, message
    assert "hello: argv[1]='before-the-death'" in message, message
    fresh = machines.get(smp=1, group="harness")
    assert fresh is not dead and fresh.spoor.alive()
    assert "hello: argc=1" in fresh.spoor.command("run hello")


def test_a_class_fixtures_machine_found_dead_fails_the_test_it_is_lent_to(machines, request):
    """A machine a class-scoped fixture prepared dies before a test of the class
    borrows it (shared.use): that test fails with the console's last lines."""
    dead = machines.get(smp=1, group="harness-class")
    dead.spoor.command("run hello before-the-death")
    dead.spoor.send("\x01x")
    dead.spoor.child.expect(pexpect.EOF, timeout=BOOT_TIMEOUT)
    with pytest.raises(AssertionError) as caught:
        Lender(machines, request.node, io.StringIO()).use(dead)
    message = str(caught.value)
    assert f"{dead.name} died before this test" in message, message
    assert "hello: argv[1]='before-the-death'" in message, message


def test_a_machine_retired_after_a_test_fails_the_next_test_it_is_lent_to_in_words(machines,
                                                                                  request):
    """A machine a test left wrong is retired (terminated, its log closed) while a
    class or module fixture still holds it: the next test it is lent to fails
    with the console's last lines, QEMU's last words after the retirement among
    them (it once failed on writing those to the closed log instead)."""
    retired = machines.get(smp=1, group="harness-retired")
    machines.retire(retired)
    with pytest.raises(AssertionError) as caught:
        Lender(machines, request.node, io.StringIO()).use(retired)
    message = str(caught.value)
    assert f"{retired.name} died before this test" in message, message
    assert "terminating on signal" in message, message


def test_a_shared_machine_a_failed_test_left_recording_is_replaced(machines):
    """A CI run once had a test time out in the middle of its recording: the
    machine was lent on, still recording, and the next two tests failed at their
    first `trace clear` (refused during a recording) instead of running."""
    machine = machines.get(smp=2, group="harness-recording")
    failed = SimpleNamespace(nodeid="a failed test", report_call=SimpleNamespace(failed=True))
    lender = Lender(machines, failed, io.StringIO())
    spoor = lender.use(machine)
    assert "trace: recording to left.spoor" in spoor.command("trace record test as left")
    lender.give_back()
    assert not machine.spoor.alive()
    assert machines.get(smp=2, group="harness-recording") is not machine


def test_a_test_reads_only_its_own_part_of_a_shared_machines_console(machines, request):
    """Two tests in turn on one shared machine, each lent it by a Lender as the
    `shared` fixture lends it: the second's console() has its own lines and none
    of the first's, which the machine did print."""
    machine = machines.get(smp=1, group="harness")
    seen = {}
    for test in ("first", "second"):
        log = io.StringIO()
        spoor = Lender(machines, request.node, log).use(machine)
        try:
            line = f"hello: argv[1]='{test}-test'"
            assert line in spoor.command(f"run hello {test}-test")
            seen[test] = (line, spoor.console())
        finally:
            spoor.child.logfile_read.detach(log)
    (first, _), (second, console) = seen["first"], seen["second"]
    assert second in console and first not in console, console
    assert first in "".join(machine.spoor.child.logfile_read.text)


HARNESS = Path(__file__).parent
# A bound on a sandbox's run of pytest, whose tests boot nothing: seconds.
SANDBOX_SECONDS = 120


def sandbox(tmp_path, files):
    """A tree of its own at tmp_path holding this harness (conftest.py and
    spoorlib.py, whose ROOT is then tmp_path) and the test files given
    ({name: text}), with what spoorlib and the fixtures look for in build/
    (nothing boots there). Returns its tests' folder."""
    tests = tmp_path / "tests" / "system"
    tests.mkdir(parents=True)
    for name in ("conftest.py", "spoorlib.py"):
        shutil.copy(HARNESS / name, tests / name)
    for name, text in files.items():
        (tests / name).write_text(text)
    (tmp_path / "build" / "tests").mkdir(parents=True)
    (tmp_path / "build" / "tests" / "modules").write_text("")
    (tmp_path / "build" / "kernel.elf").write_text("")
    return tests


def run_two_at_once(tests):
    """pytest on the sandbox's tests as make test-system runs them: two files at once."""
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "2", "--dist", "loadfile",
                           "-p", "no:cacheprovider", str(tests)], cwd=tests.parents[1],
                          capture_output=True, text=True, timeout=SANDBOX_SECONDS)


# Each sandbox file waits for the other's step through a file in build/: the
# two run in two workers at once only if each waits for the other.
WAIT_FOR = """
import time
from spoorlib import BUILD, TRACES


def wait_for(name):
    end = time.monotonic() + 60
    while not (BUILD / name).exists():
        assert time.monotonic() < end, f"the other file never wrote {name}"
        time.sleep(0.01)
"""


def test_a_worker_leaves_the_export_folders_of_the_other_workers_machines(tmp_path):
    """A machine's export folder (build/test-traces/boot-*) lives as long as the
    machine; a worker that starts to boot while the other's machine runs must
    leave that folder alone (each worker's session once removed the whole of
    build/test-traces as its first boot asked for the ISOs)."""
    tests = sandbox(tmp_path, {
        "test_first.py": WAIT_FOR + """

def test_a_machine_keeps_its_folder(iso_cache):
    folder = TRACES / "boot-first"
    folder.mkdir(parents=True)
    (BUILD / "first-booted").touch()
    wait_for("second-booted")
    assert folder.exists(), "the other worker removed this machine's export folder"
""",
        "test_second.py": WAIT_FOR + """

def test_another_machine_boots_meanwhile(request):
    wait_for("first-booted")
    request.getfixturevalue("iso_cache")
    (BUILD / "second-booted").touch()
"""})
    done = run_two_at_once(tests)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 passed" in done.stdout, done.stdout


def test_two_tests_of_one_name_in_two_files_keep_two_console_logs(tmp_path):
    test = """
def test_of_one_name(boot):
    pass
"""
    tests = sandbox(tmp_path, {"test_one.py": test, "test_two.py": test})
    done = run_two_at_once(tests)
    assert done.returncode == 0, done.stdout + done.stderr
    logs = sorted(p.name for p in (tmp_path / "build" / "test-logs").iterdir())
    assert logs == ["test_one--test_of_one_name.log", "test_two--test_of_one_name.log"], logs


def test_a_failed_tests_report_names_its_console_log(tmp_path):
    tests = sandbox(tmp_path, {"test_failing.py": """
class TestAClass:
    def test_that_fails(self, boot):
        assert False, "on purpose"
"""})
    done = run_two_at_once(tests)
    assert done.returncode == 1, done.stdout + done.stderr
    report = re.search(r"^-+ console log -+\n(.*)$", done.stdout, re.MULTILINE)
    assert report, done.stdout
    path = "build/test-logs/test_failing--TestAClass--test_that_fails.log"
    assert report.group(1) == path and (tmp_path / path).exists(), done.stdout
