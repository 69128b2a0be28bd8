"""What the system tests share: Spoor under QEMU on its serial console, and
the helpers that read what its shell prints.

conftest.py turns the machines into fixtures (a fresh boot per test, or one
boot lent to a group of tests); the test modules import their helpers from
here and never from one another.

    Spoor, IsoCache, Transcript      a running QEMU, the ISOs, the console log
    banner_value                     the boot banner
    ps, pid_of, restarted_pid,       the shell's ps and mem
    free_frames
    expect_after, expect_count,      programs in the background
    start_background, kill_job
    Event, dump, status, ...         the trace verbs' output
    read_spoor, assert_lines_are     a saved file read from abi/ alone, the
                                     oracle for text made by common/
"""

import os
import re
import signal
import subprocess
import tempfile
import threading
import time
from collections import defaultdict
from contextlib import contextmanager
from pathlib import Path

import pexpect

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "build"
KERNEL = BUILD / "kernel.elf"
LOGS = BUILD / "test-logs"
TRACES = BUILD / "test-traces"  # each boot's export channel folder

PROMPT = "init> "
# A panic block of any length: with tracing on it adds every CPU's counters
# and the flight recorder's events to the registers and the stack walk.
# pexpect compiles its patterns with re.DOTALL, so a line must be [^\n]*\n:
# (?:.*\n)*? there could split the lines after "KERNEL PANIC" in every way
# before it gave up, each search of a block not yet ended taking twice as long
# a line (6 s at 24 lines), while the console went unread and QEMU lost its
# end (test_harness.py).
PANIC = r"KERNEL PANIC[^\n]*\n(?:[^\n]*\n)*?system halted"
# The lockup detector's report (kernel/sched/watchdog.h): outside the tests
# that provoke it, a report is a failure like a panic.
WATCHDOG = r"WATCHDOG: cpu [^\n]*stuck"
# Generous: the host has two cores, shared with whoever else is building or testing.
BOOT_TIMEOUT = 120
COMMAND_TIMEOUT = 60

# QEMU's exit status: 0 after ACPI power-off; (1 << 1) | 1 after the kernel
# wrote 1 to the isa-debug-exit port, which it does when it panics.
EXIT_POWER_OFF = 0
EXIT_KERNEL_FAILURE = 3


def read_test_modules():
    """The module strings of the programs only tests use (tests/programs/) that every
    image the tests boot carries: the Makefile's TEST_MODULES, which make writes to
    build/tests/modules. `make run` boots without them."""
    path = BUILD / "tests" / "modules"
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: make test-system PYTHON=true writes it")
    return tuple(path.read_text().splitlines())


TEST_MODULES = read_test_modules()


class KernelPanic(AssertionError):
    pass


class Transcript:
    """Everything the console printed: kept for tests, and written as it comes to
    the boot's log and to the log of the test that is using the machine."""

    def __init__(self, log):
        self.logs = [log]
        self.text = []

    def write(self, data):
        self.text.append(data)
        for log in self.logs:
            log.write(data)

    def flush(self):
        for log in self.logs:
            log.flush()

    def attach(self, log):
        self.logs.append(log)

    def detach(self, log):
        if log in self.logs:
            self.logs.remove(log)


def echoed(line):
    """The shell's echo of a typed line as a regex. The shell echoes each character as
    it comes, then the newline, so a background program's line may land between any
    two of them (memtest's verdict once split `trace status` into `tr` and `ace
    status`, and a tracegen's line once came between `&` and the newline): whole
    lines may come after any character. Its groups hold those lines (interleaved())."""
    gap = r"((?:[^\n]*\n)*?)"
    return "".join(re.escape(c) + gap for c in line) + r"\r*\n"


def interleaved(match):
    """The lines a match of echoed() found between the echo's characters."""
    return "".join(g for g in match.groups() if g)


class Spoor:
    """One running QEMU with Spoor on its serial console."""

    def __init__(self, child, traces):
        self.child = child
        self.traces = traces  # where `trace save` writes (None without the export channel)
        self.mark = 0  # where console() starts: the test's own part of a shared machine

    @classmethod
    def start(cls, iso, transcript, smp=4, mem="256M", export=True, icount=False):
        """Starts QEMU on iso; its console goes to transcript. Does not wait for anything.

        With icount, under QEMU's -icount shift=3,sleep=off: the guest's clocks
        count its instructions (8 ns each: a boot takes seconds), and a guest
        whose CPUs all idle jumps to its next timer, so a time it measures does
        not depend on the host's load. With sleep=on an idle guest's clock
        followed the host's, and a host that left QEMU unrun for a while (a
        stalled() block, a loaded host) made a 300 ms timeout take 358 ms. The
        price: QEMU spins a host core while the guest idles.

        With export, as `make run` does: through tools/run-qemu, which connects the
        export channel (COM2 and the export window) to a folder of this boot's own
        under build/test-traces/, where `trace save` files land (self.traces)."""
        args = ["-smp", str(smp), "-m", mem, "-cdrom", str(iso), "-serial", "mon:stdio",
                "-display", "none", "-no-reboot",
                "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04"]
        if icount:
            args += ["-icount", "shift=3,sleep=off"]
        traces = None
        program = "qemu-system-x86_64"
        if export:
            TRACES.mkdir(parents=True, exist_ok=True)
            traces = Path(tempfile.mkdtemp(prefix="boot-", dir=TRACES))
            program, args = str(ROOT / "tools" / "run-qemu"), [str(traces), *args]
        transcript.write(f"### {program} {' '.join(args)}\n")
        child = pexpect.spawn(program, args, encoding="utf-8", codec_errors="replace",
                              timeout=COMMAND_TIMEOUT)
        child.logfile_read = transcript
        # pexpect waits 50 ms before each send by default, for terminals that
        # echo a password typed too soon; the serial console loses nothing.
        child.delaybeforesend = None
        return cls(child, traces)

    def console(self):
        """Everything the console has printed so far, including output between prompts;
        on a shared machine, only since it was lent to the test (conftest.py)."""
        return "".join(self.child.logfile_read.text)[self.mark:].replace("\r", "")

    def lend(self):
        """Starts the part of the console a new test reads (console())."""
        self.mark = sum(len(chunk) for chunk in self.child.logfile_read.text)

    def last_words(self, lines=60):
        """The console's last lines, all of what QEMU printed if it has ended (a panic
        block is at most 34 lines): for a failure's message."""
        if not self.child.closed and not self.child.isalive():
            try:
                self.child.expect(pexpect.EOF, timeout=5)
            except pexpect.TIMEOUT:
                pass
        text = "".join(self.child.logfile_read.text).replace("\r", "")
        return "\n".join(text.splitlines()[-lines:])

    def expect(self, pattern, timeout=COMMAND_TIMEOUT, allow_panic=False):
        """Waits for a regex; returns its match. A panic or a lockup report fails unless
        allowed."""
        patterns = [pattern, pexpect.EOF, pexpect.TIMEOUT]
        if not allow_panic:
            patterns += [PANIC, WATCHDOG]
        index = self.child.expect(patterns, timeout=timeout)
        if index == 0:
            return self.child.match
        seen = self.child.before + (self.child.after if isinstance(self.child.after, str) else "")
        if index >= 3:
            what = "kernel panic" if index == 3 else "lockup report"
            raise KernelPanic(f"{what} while waiting for {pattern!r}:\n{seen}")
        what = "QEMU exited" if index == 1 else f"timeout after {timeout}s"
        raise AssertionError(f"{what} while waiting for {pattern!r}; console tail:\n{seen[-2000:]}")

    def expect_prompt(self, timeout=COMMAND_TIMEOUT):
        """Waits for the shell's prompt; returns what came before it."""
        self.expect(re.escape(PROMPT), timeout)
        return self.child.before

    def send(self, text):
        self.child.send(text)

    def command(self, line, timeout=COMMAND_TIMEOUT):
        """Types a line at the prompt; returns what it printed before the next prompt."""
        self.child.send(line + "\r")
        amid = interleaved(self.expect(echoed(line), timeout))
        self.expect(re.escape(PROMPT), timeout)
        return (amid + self.child.before).replace("\r", "")

    def command_progressing(self, line, progress, timeout=COMMAND_TIMEOUT):
        """command() for a program whose whole run takes as long as the host's load
        makes it: waits for the next prompt as long as lines matching the regex
        progress keep coming, at most timeout apart. A run that stops making
        progress must say so itself (a FAIL line), or stop printing them."""
        self.child.send(line + "\r")
        out = interleaved(self.expect(echoed(line), timeout))
        step = re.compile(rf"(?P<progress>{progress})|(?P<prompt>{re.escape(PROMPT)})")
        while True:
            match = self.expect(step, timeout)
            out += self.child.before
            if match.group("prompt"):
                return out.replace("\r", "")
            out += match.group(0)

    def stop_for(self, seconds):
        """The host stops QEMU (SIGSTOP) for seconds, then lets it go: a stall of the
        whole machine. It is the condition under test, not a wait for something, so
        it is timed. Without -icount the guest's TSC, the host's, runs on meanwhile."""
        os.kill(self.child.pid, signal.SIGSTOP)
        try:
            time.sleep(seconds)
        finally:
            os.kill(self.child.pid, signal.SIGCONT)

    @contextmanager
    def stalled(self, every=0.05):
        """While in the block, the host stops QEMU (SIGSTOP) for every seconds out of
        each 2 * every: what a loaded host's scheduler does to a vCPU, at will. The
        stalls are the load itself, so they are timed; nothing waits on them."""
        done = threading.Event()

        def stall():
            while not done.is_set():
                os.kill(self.child.pid, signal.SIGSTOP)
                done.wait(every)
                os.kill(self.child.pid, signal.SIGCONT)
                done.wait(every)

        staller = threading.Thread(target=stall)
        staller.start()
        try:
            yield self
        finally:
            done.set()
            staller.join()

    def alive(self):
        return self.child.isalive()

    def wait_exit(self, timeout=COMMAND_TIMEOUT):
        """Waits for QEMU to end; returns its exit status."""
        self.child.expect(pexpect.EOF, timeout=timeout)
        self.child.close()
        return self.child.exitstatus

    def terminate(self):
        if self.child.isalive():
            self.child.terminate(force=True)


class IsoCache:
    """One ISO per kernel command line and extra modules, built once per test session."""

    def __init__(self, directory):
        self.directory = Path(directory)
        self.isos = {}

    def get(self, cmdline, modules=()):
        modules = TEST_MODULES + tuple(modules)
        key = (cmdline, modules)
        if key not in self.isos:
            iso = self.directory / f"spoor-{len(self.isos)}.iso"
            subprocess.run([str(ROOT / "tools" / "mkiso"), str(iso), str(KERNEL), cmdline,
                            *modules], check=True)
            self.isos[key] = iso
        return self.isos[key]


def log_name(text):
    """text as a file name under LOGS."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", text)


def console_log_path(node):
    """Where a test (a pytest node) writes its console log:
    build/test-logs/<module>--<test>.log, its class too if it has one. The
    module keeps two tests of the same name in two files apart, which may run
    at the same time (conftest.py)."""
    test = node.nodeid.split("::", 1)[1].replace("::", "--")
    return LOGS / log_name(f"{node.module.__name__}--{test}.log")


# The boot banner.

def banner_value(text, name):
    """The value of a `name: value` banner line, as a string."""
    match = re.search(rf"^{re.escape(name)}: (.*?)\r*$", text, re.MULTILINE)
    assert match, f"no '{name}:' line in the banner:\n{text}"
    return match.group(1)


# The shell: ps, mem, programs in the background.

PS_ROW = re.compile(r"^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(\S+)\s+(\d+)\s+(\d+)K\s*$",
                    re.MULTILINE)
# How long what the shell shows may lag behind what caused it (a program's
# end in ps after its last line, a tree's end after its root's, a restarted
# server in ps, freed memory in mem): these change on the guest's other
# CPUs, which a loaded host may run far less than the shell's, and print
# nothing when they do. A fixed number of looks (it was 50) is no bound on
# that time: under two CPU hogs ps answered 50 times while 63 killed
# processes of a spawn bomb were still being torn down (issue 31 item 17).
SETTLE_TIMEOUT = COMMAND_TIMEOUT


def until(look, done, timeout=SETTLE_TIMEOUT):
    """Calls look() (a shell command, parsed) again until done(what it returned) or
    timeout seconds have passed; returns what it returned last. Each look waits
    for the shell's answer, so there is no sleeping between them."""
    end = time.monotonic() + timeout
    seen = look()
    while not done(seen) and time.monotonic() < end:
        seen = look()
    return seen


def ps(spoor):
    """ps as a list of (pid, tid, name, state, cpu, mem_kib, ppid), one a thread."""
    out = spoor.command("ps")
    rows = PS_ROW.findall(out)
    assert rows, out
    return [(int(p), int(t), n, s, int(c), int(m), int(pp)) for p, pp, t, n, s, c, m in rows]


def pid_of(spoor, name):
    """The pid `ps` shows for the program called name, or None."""
    pids = [row[0] for row in ps(spoor) if row[2] == name]
    return pids[0] if pids else None


def restarted_pid(spoor, name, old):
    """The pid of server name once init has started it again after pid old ended
    (init says it restarts a server before the new one shows in ps)."""
    pid = until(lambda: pid_of(spoor, name), lambda pid: pid is not None and pid != old)
    if pid is None or pid == old:
        raise AssertionError(f"{name} (pid {old}) was not restarted; ps shows pid {pid}")
    return pid


def free_frames(spoor):
    """The free frames `mem` reports."""
    out = spoor.command("mem")
    match = re.search(r"memory: (\d+) of \d+ frames free", out)
    assert match, out
    return int(match.group(1))


def free_frames_once_traced_serves(spoor):
    """The free frames once traced serves. traced commits its copy of the aux
    ring (ttrace.aux_kb, 256 frames by default) as it starts, which on a
    loaded host may come after the shell's first prompt: a count taken
    before it is that much too high for the rest of the boot. The shell's
    `trace status` is answered from traced's request loop, after its start."""
    status(spoor)
    return free_frames(spoor)


# What free memory may differ by around a program that gave everything back:
# a few frames for what the shell, traced and the kernel's heap do meanwhile.
SLACK_FRAMES = 4


def assert_free_back_to(spoor, before):
    """Free memory comes back to within SLACK_FRAMES of before: every frame a
    program took is freed with it (its last objects go a moment after the
    shell saw it end, so `mem` is asked again until SETTLE_TIMEOUT)."""
    after = until(lambda: free_frames(spoor), lambda after: abs(after - before) <= SLACK_FRAMES)
    assert abs(after - before) <= SLACK_FRAMES, f"{before} frames free before, {after} after"


def expect_after(spoor, out, pattern, timeout=COMMAND_TIMEOUT):
    """A line a background program (or init's keeper) prints may come within a
    command's output or after its prompt: returns its match from either."""
    match = re.search(pattern, out)
    return match or spoor.expect(pattern, timeout=timeout)


def expect_count(spoor, pattern, n, start, timeout=COMMAND_TIMEOUT):
    """Waits until the console from offset start holds n lines matching pattern, some
    perhaps printed within commands' output; returns their matches' groups."""
    pattern = re.compile(pattern)
    while len(pattern.findall(spoor.console()[start:])) < n:
        # Either a match already read but not yet waited for, or a new one.
        spoor.expect(pattern, timeout=timeout)
    return pattern.findall(spoor.console()[start:])


def start_background(spoor, line, ready, timeout=COMMAND_TIMEOUT):
    """Runs `line &`; waits for the [started] line and the program's own `ready` line.

    Waiting for the program's line before typing again keeps its output from
    landing inside the echo of the next command. Returns (pid, ready match).
    """
    out = spoor.command(line + " &")
    started = re.search(r"\[started\] \S+ \(pid (\d+)\)", out)
    assert started, out
    return int(started.group(1)), expect_after(spoor, out, ready, timeout)


TRACEGEN_DONE = r"tracegen: emitted (\d+) of (\d+) events"


def flip_under_tracegen(spoor, cpus, ticks, flips, rate=None, rounds_max=30):
    """The traceflip method: tracegen writes ticks test_tick events on each of
    the CPUs 0 to cpus - 1 (rate a second, or as fast as it can) while the
    lines flips(round) gives, each with a regex its answer must match, are
    typed in turn, round after round until every tracegen has ended or
    rounds_max rounds ran. Asserts that each tracegen emitted all it was
    asked; returns the rounds that ran."""
    start = len(spoor.console())
    for cpu in range(cpus):
        start_job(spoor, f"run tracegen {ticks} {cpu}" + (f" {rate}" if rate else ""))
    rounds = 0
    while len(re.findall(TRACEGEN_DONE, spoor.console()[start:])) < cpus and rounds < rounds_max:
        for line, answer in flips(rounds):
            out = spoor.command(line)
            assert re.search(answer, out), (line, out)
        rounds += 1
    emitted = expect_count(spoor, TRACEGEN_DONE, cpus, start, timeout=600)
    assert emitted == [(str(ticks), str(ticks))] * cpus, emitted
    return rounds


def start_job(spoor, line, timeout=COMMAND_TIMEOUT):
    """Runs `line &`; returns its pid once the shell says it started.

    Unlike start_background(), it does not wait for the program: a short
    job (or one started before it) may end and print while the next line is
    typed, inside that line's echo, so the echo is not matched; the
    [started] line and the prompt after it are.
    """
    spoor.send(line + " &\r")
    pid = int(spoor.expect(r"\[started\] \S+ \(pid (\d+)\)", timeout).group(1))
    spoor.expect(re.escape(PROMPT), timeout)
    return pid


def kill_job(spoor, pid, name):
    """Kills a background job and waits for the shell to report its end."""
    out = spoor.command(f"kill {pid}")
    assert f"kill: pid {pid} killed" in out, out
    # The shell reports a job's end on its own lines as soon as it sees it,
    # then prints the prompt again.
    expect_after(spoor, out, re.escape(f"[done] {name} (pid {pid}): killed"))


# The trace verbs.

EVENT = re.compile(r"^\[ *(\d+)\.(\d{6})\] cpu=(\d+) pid=(\d+) tid=(\d+) comm=(\S+) ([\w:]+)(.*)$",
                   re.MULTILINE)
LOST = re.compile(r"^# lost (\d+) events on cpu (\d+)$", re.MULTILINE)
END = re.compile(r"^# end of dump: (\d+) events, (\d+) lost$", re.MULTILINE)
STATUS_CPU = re.compile(r"^cpu (\d+): emitted (\d+) stored (\d+) overwritten (\d+) dropped (\d+) "
                        r"cleared (\d+) filtered (\d+)$", re.MULTILINE)
VERIFIED = re.compile(r"tracecat: (\d+) events verified \((\d+) entries, (\d+) lost\)")
USER_LOW, USER_HIGH = 0x10000, 0x800000000000
KERNEL_LOW = 0xffff800000000000
DUMP_TIMEOUT = 180


class Event:
    """One event line of a dump: us (since boot), cpu, pid, tid, comm, kind, args, line."""

    def __init__(self, match):
        sec, usec, cpu, pid, tid, comm, kind, rest = match.groups()
        self.us = int(sec) * 1000000 + int(usec)
        self.cpu, self.pid, self.tid, self.kind = int(cpu), int(pid), int(tid), kind
        self.comm = comm
        self.args = dict(re.findall(r"(\w+)=(\S+)", rest))
        self.line = match.group(0)


def events_in(out):
    """The event lines of some output, as Events."""
    return [Event(m) for m in EVENT.finditer(out)]


def lost_per_cpu(out):
    """The `# lost N events on cpu C` lines of some output, summed: {cpu: N}."""
    lost = defaultdict(int)
    for m in LOST.finditer(out):
        lost[int(m.group(2))] += int(m.group(1))
    return lost


def dump(spoor, filters=""):
    """`trace dump FILTERS`: (its events, its output), after checking the end line counts them."""
    out = spoor.command(f"trace dump {filters}".strip(), timeout=DUMP_TIMEOUT)
    end = END.search(out)
    assert end, out[-2000:]
    found = events_in(out)
    assert int(end.group(1)) == len(found), out[-2000:]
    return found, out


def status(spoor):
    """`trace status`: the per-CPU counts, checking
    emitted = stored + overwritten + dropped + cleared + filtered."""
    out = spoor.command("trace status")
    assert re.search(r"^trace: mask \S+, mode (overwrite|drop), \d+ cpus x \d+ entries", out,
                     re.MULTILINE), out
    cpus = {}
    for m in STATUS_CPU.finditer(out):
        cpu, emitted, stored, overwritten, dropped, cleared, filtered = map(int, m.groups())
        assert emitted == stored + overwritten + dropped + cleared + filtered, out
        cpus[cpu] = dict(emitted=emitted, stored=stored, overwritten=overwritten,
                         dropped=dropped, cleared=cleared, filtered=filtered)
    assert cpus, out
    return cpus


def verified(out):
    """tracecat -b's verdict in out: (events, entries, lost)."""
    match = VERIFIED.search(out)
    assert match, out[-2000:]
    return tuple(int(g) for g in match.groups())


def spawned_pid(spoor, name):
    """The pid of the last `name` spawned, from the proc_spawn events."""
    found, _ = dump(spoor, "kind=proc_spawn")
    pids = [e.args["pid"] for e in found if e.args.get("name") == f'"{name}"']
    assert pids, [e.line for e in found]
    return int(pids[-1])


def user_address(value):
    return USER_LOW <= int(value, 16) < USER_HIGH


def reset_tracing(spoor):
    """Tracing off, overwrite mode, every ring empty: the state a boot starts in,
    but for the counters, which only grow."""
    assert "tracing now: none" in spoor.command("trace off")
    assert "trace: mode overwrite" in spoor.command("trace mode overwrite")
    assert "trace: cleared every ring" in spoor.command("trace clear")

