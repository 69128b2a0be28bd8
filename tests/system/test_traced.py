"""traced and the shell's trace verbs: what a person types and reads.

Each test boots once and runs a group of checks: the memtest session of the
README, filters, ordering across CPUs, exact accounting on a small ring in
both modes, following, tracecat against the shell, traced killed in the
middle of a dump, malformed requests, and a shell without traced.
"""

import re

from test_ipc import pid_of

EVENT = re.compile(r"^\[ *(\d+)\.(\d{6})\] cpu=(\d+) pid=(\d+) tid=(\d+) ([\w:]+)(.*)$", re.MULTILINE)
LOST = re.compile(r"^# lost (\d+) events on cpu (\d+)$", re.MULTILINE)
END = re.compile(r"^# end of dump: (\d+) events, (\d+) lost$", re.MULTILINE)
STATUS_CPU = re.compile(r"^cpu (\d+): emitted (\d+) stored (\d+) overwritten (\d+) dropped (\d+) "
                        r"cleared (\d+)$", re.MULTILINE)
VERIFIED = re.compile(r"tracecat: (\d+) events verified \((\d+) entries, (\d+) lost\)")
USER_LOW, USER_HIGH = 0x10000, 0x800000000000
KERNEL_LOW = 0xffff800000000000
DUMP_TIMEOUT = 120


class Event:
    def __init__(self, match):
        sec, usec, cpu, pid, tid, kind, rest = match.groups()
        self.us = int(sec) * 1000000 + int(usec)
        self.cpu, self.pid, self.tid, self.kind = int(cpu), int(pid), int(tid), kind
        self.args = dict(re.findall(r"(\w+)=(\S+)", rest))
        self.line = match.group(0)


def events(out):
    return [Event(m) for m in EVENT.finditer(out)]


def dump(spoor, filters=""):
    """`trace dump FILTERS`: its events, after checking the end line counts them."""
    out = spoor.command(f"trace dump {filters}".strip(), timeout=DUMP_TIMEOUT)
    end = END.search(out)
    assert end, out[-2000:]
    found = events(out)
    assert int(end.group(1)) == len(found), out[-2000:]
    return found, out


def status(spoor):
    """`trace status`: the per-CPU counts, checking emitted = stored + overwritten + dropped + cleared."""
    out = spoor.command("trace status")
    assert re.search(r"^trace: mask \S+, mode (overwrite|drop), \d+ cpus x \d+ entries", out,
                     re.MULTILINE), out
    cpus = {}
    for m in STATUS_CPU.finditer(out):
        cpu, emitted, stored, overwritten, dropped, cleared = map(int, m.groups())
        assert emitted == stored + overwritten + dropped + cleared, out
        cpus[cpu] = dict(emitted=emitted, stored=stored, overwritten=overwritten,
                         dropped=dropped, cleared=cleared)
    assert cpus, out
    return cpus


def after_line(spoor, out, pattern):
    """Waits for a line a background program prints: in a command's output, or after it."""
    if not re.search(pattern, out):
        spoor.expect(pattern)


def spawned_pid(spoor, name):
    """The pid of the last `name` spawned, from the proc_spawn events."""
    found, _ = dump(spoor, "kind=proc_spawn")
    pids = [e.args["pid"] for e in found if e.args.get("name") == f'"{name}"']
    assert pids, [e.line for e in found]
    return int(pids[-1])


def user_address(value):
    return USER_LOW <= int(value, 16) < USER_HIGH


def test_memtest_session_shows_its_memory_events_and_trace_off_stops_them(boot):
    spoor = boot(smp=2)
    out = spoor.command("trace on mem,proc")
    assert "trace: enabled mem,proc; tracing now: mem,proc" in out, out
    assert "memtest: ok" in spoor.command("run memtest", timeout=60)
    pid = spawned_pid(spoor, "memtest")

    found, _ = dump(spoor, f"pid={pid}")
    kinds = {e.kind for e in found}
    for kind in ("mem_pf", "mem_map", "mem_unmap", "mem_cow", "mem_copy"):
        assert kind in kinds, f"no {kind} for pid {pid}: {sorted(kinds)}"
    for e in found:
        assert e.pid == pid, e.line
        if e.kind == "mem_pf":
            # A fault in a user copy has the kernel's rip.
            assert user_address(e.args["vaddr"]), e.line
            assert user_address(e.args["rip"]) or int(e.args["rip"], 16) >= KERNEL_LOW, e.line
        if e.kind in ("mem_map", "mem_unmap"):
            assert user_address(e.args["vaddr"]) and int(e.args["len"], 16) > 0, e.line
        if e.kind == "mem_cow":
            assert user_address(e.args["vaddr"]), e.line
            assert e.args["old_frame"] != e.args["new_frame"], e.line
        if e.kind == "mem_copy":
            assert user_address(e.args["addr"]) and int(e.args["len"]) > 0, e.line

    out = spoor.command("trace off")
    assert "tracing now: none" in out, out
    before = status(spoor)
    assert "memtest: ok" in spoor.command("run memtest", timeout=60)
    assert status(spoor) == before, "events were recorded with tracing off"

    # The status counts and the dump agree: every stored entry is one event line.
    stored = sum(c["stored"] for c in before.values())
    found, _ = dump(spoor)
    assert len(found) == stored
    out = spoor.command("run tracecat -b", timeout=DUMP_TIMEOUT)
    verified = VERIFIED.search(out)
    assert verified, out
    assert (int(verified.group(1)), int(verified.group(2)), int(verified.group(3))) == \
        (stored, stored, 0), out


def test_every_filter_returns_only_matching_events_in_order_from_every_cpu(boot):
    spoor = boot(smp=4)
    spoor.command("trace on sched,irq,proc,mem,test")
    assert "tracegen: emitted 50 of 50 events" in spoor.command("run tracegen 50 2")
    spoor.command("run memtest", timeout=60)
    spoor.command("trace off")
    pid = spawned_pid(spoor, "memtest")

    everything, _ = dump(spoor)
    assert {e.cpu for e in everything} == {0, 1, 2, 3}, "not every CPU's events are there"
    assert [e.us for e in everything] == sorted(e.us for e in everything), "not in time order"
    tid = next(e.tid for e in everything if e.pid == pid)
    middle = everything[len(everything) // 2].us

    checks = {
        "cpu=1": lambda e: e.cpu == 1,
        "cpu=2 cpu=3": lambda e: e.cpu in (2, 3),
        f"pid={pid}": lambda e: e.pid == pid,
        f"tid={tid}": lambda e: e.tid == tid,
        "kind=mem_pf,test_tick": lambda e: e.kind in ("mem_pf", "test_tick"),
        "cat=sched": lambda e: e.kind.startswith("sched_"),
        "cat=irq,test": lambda e: e.kind.startswith("irq_") or e.kind == "test_tick",
        f"since={middle // 1000000}.{middle % 1000000:06d}": lambda e: e.us >= middle,
        f"until={middle // 1000000}.{middle % 1000000:06d}": lambda e: e.us < middle,
        f"pid={pid} kind=mem_cow": lambda e: e.pid == pid and e.kind == "mem_cow",
    }
    for words, keep in checks.items():
        found, out = dump(spoor, words)
        want = [e.line for e in everything if keep(e)]
        assert want, f"{words}: nothing to find"
        assert [e.line for e in found] == want, f"{words}:\n{out[-1500:]}"

    for n in (1, 7):
        found, _ = dump(spoor, f"last={n}")
        assert [e.line for e in found] == [e.line for e in everything[-n:]]
        found, _ = dump(spoor, f"count={n}")
        assert [e.line for e in found] == [e.line for e in everything[:n]]
    found, _ = dump(spoor, "kind=test_tick last=3")
    assert [e.args["seq"] for e in found] == ["47", "48", "49"]

    # tracecat speaks the protocol on its own and prints the same dump.
    for words in (f"pid={pid}", "cat=sched last=40"):
        shell = spoor.command(f"trace dump {words}", timeout=DUMP_TIMEOUT)
        tool = spoor.command(f"run tracecat {words}", timeout=DUMP_TIMEOUT)
        assert tool.splitlines() == shell.splitlines(), words

    for words, message in (
            ("cpu=4", "trace: bad cpu '4' (cpus: 0 to 3)"),
            ("kind=mem_pff", "trace: unknown kind 'mem_pff' (known: mem_pf mem_map"),
            ("cat=memm", "trace: unknown category 'memm' (known: mem sched syscall ipc irq proc "
                         "user test all)"),
            ("pid=abc", "trace: bad id in 'pid=abc' (a number)"),
            ("last=0", "trace: bad count in 'last=0' (a number above 0)"),
            ("since=x", "trace: bad time in 'since=x' (seconds since boot, such as 1.5)"),
            ("since=2 until=1", "trace: empty time window"),
            ("color=red", "trace: unknown filter 'color' (known: cpu= pid= tid= kind= cat= "
                          "last= count= since= until=)")):
        out = spoor.command(f"trace dump {words}")
        assert message in out and "# end of dump" not in out, out


def test_small_ring_counts_every_event_in_both_modes(boot):
    spoor = boot(smp=2, cmdline="ttrace.ring_kb=4")
    n = 1000
    spoor.command("trace on test")
    assert "trace: cleared every ring" in spoor.command("trace clear")
    assert f"emitted {n} of {n}" in spoor.command(f"run tracegen {n} 1")
    ring = status(spoor)[1]
    assert ring["stored"] == 64 and ring["overwritten"] == n - 64, ring
    found, out = dump(spoor, "kind=test_tick")
    lost = sum(int(m.group(1)) for m in LOST.finditer(out))
    assert lost == n - len(found) == ring["overwritten"], out
    assert [int(e.args["seq"]) for e in found] == list(range(n - 64, n))
    assert out.index("# lost") < out.index("test_tick"), "the loss is not reported in place"

    assert "trace: mode drop" in spoor.command("trace mode drop")
    spoor.command("trace clear")
    assert f"emitted {n} of {n}" in spoor.command(f"run tracegen {n} 1")
    ring = status(spoor)[1]
    assert ring["dropped"] == n - ring["stored"] and ring["stored"] == 64, ring
    found, out = dump(spoor, "kind=test_tick")
    assert not LOST.search(out), out
    assert [int(e.args["seq"]) for e in found] == list(range(64))

    # A follower in drop mode: what it received plus what was dropped is all of it.
    spoor.command("trace clear")
    dropped_before = status(spoor)[1]["dropped"]
    after_line(spoor, spoor.command("run tracecat -f -b -i 1000 kind=test_tick &"),
               r"# following")
    out = spoor.command(f"run tracegen {n} 1")
    assert f"emitted {n} of {n}" in out, out
    received = VERIFIED.search(out) or spoor.expect(VERIFIED, timeout=DUMP_TIMEOUT)
    dropped = status(spoor)[1]["dropped"] - dropped_before
    assert int(received.group(3)) == 0, "a follower that keeps up loses nothing"
    assert dropped > 0 and int(received.group(1)) + dropped == n, (received.group(0), dropped)


def test_follow_streams_until_ctrl_c(boot):
    spoor = boot(smp=2)
    spoor.command("trace on irq")
    start = len(spoor.console())
    spoor.send("trace follow kind=irq_timer cpu=0\r")
    spoor.expect(r"# following; Ctrl-C stops")
    for _ in range(20):
        spoor.expect(r"cpu=0 pid=\d+ tid=\d+ irq_timer tick=\d+")
    spoor.send("\x03")
    stopped = spoor.expect(r"# stopped following: (\d+) events, (\d+) lost")
    assert int(stopped.group(1)) >= 20 and stopped.group(2) == "0"
    spoor.expect(r"init> ")
    ticks = [int(t) for t in re.findall(r"irq_timer tick=(\d+)", spoor.console()[start:])]
    assert ticks == sorted(ticks)
    assert "trace: disabled irq" in spoor.command("trace off irq")


def test_killing_traced_mid_dump_loses_nothing(boot):
    spoor = boot(smp=2)
    spoor.command("trace on test")
    assert "emitted 15000 of 15000" in spoor.command("run tracegen 15000 1")
    spoor.command("run tracecat -b -s 10 kind=test_tick &")
    assert pid_of(spoor, "tracecat"), "tracecat ended before traced was killed"
    out = spoor.command(f"kill {pid_of(spoor, 'traced')}")
    assert re.search(r"init: traced exited \(status \d+\), restarting", out) or \
        spoor.expect(r"init: traced exited \(status \d+\), restarting")
    # Events recorded while traced restarts are kept too: the rings are kernel memory.
    assert "emitted 500 of 500" in spoor.command("run tracegen 500 1")
    done = spoor.expect(r"tracecat: (\d+) events verified \((\d+) entries, (\d+) lost\)",
                        timeout=DUMP_TIMEOUT)
    assert done.groups() == ("15000", "15000", "0")
    out = spoor.command("run tracecat -b", timeout=DUMP_TIMEOUT)
    verified = VERIFIED.search(out)
    assert verified and verified.group(1) == verified.group(2), out
    found, _ = dump(spoor, "kind=test_tick count=15500")
    assert len(found) == 15500


def test_traced_refuses_malformed_requests_and_the_shell_says_when_it_is_gone(boot):
    spoor = boot(smp=2)
    out = spoor.command("run tracedfuzz 200", timeout=DUMP_TIMEOUT)
    assert "tracedfuzz: 200 malformed requests refused, traced still answering" in out, out
    assert "tracing now: test" in spoor.command("trace on test")
    out = spoor.command("run tracecap")
    assert "tracecap: ok" in out, out
    out = spoor.command("trace strings syscalls")
    assert re.search(r"^syscall 7 spawn$", out, re.MULTILINE), out
    count = re.search(r"^# (\d+) strings$", out, re.MULTILINE)
    assert count and int(count.group(1)) == len(re.findall(r"^syscall \d+ \w+$", out, re.MULTILINE))
    for line, answer in (
            ("trace", "  FILTERS: cpu=N pid=N tid=N kind=NAME,... cat=NAME,... last=N count=N "
                      "since=SECONDS until=SECONDS"),
            ("trace bogus", "trace: unknown command 'bogus' (known: on off status dump clear "
                            "mode follow strings events register unregister)"),
            ("trace mode fast", "trace: usage: trace mode overwrite|drop"),
            ("trace on", "trace: usage: trace on CATS (e.g. mem,ipc or all or user:NAME)"),
            ("trace strings files", "trace: unknown strings 'files' (known: syscalls kinds procs "
                                    "threads events text)")):
        out = spoor.command(line)
        assert answer in out.splitlines(), (line, out)

    # Quick deaths in a row and init gives up on traced: the shell says so.
    for _ in range(8):
        pid = pid_of(spoor, "traced")
        assert pid, spoor.command("ps")
        spoor.command(f"kill {pid}")
        verdict = spoor.expect(r"init: traced exited \(status \d+\)(, restarting| .*not restarting it)")
        if "not restarting" in verdict.group(1):
            break
    else:
        raise AssertionError("init kept restarting a server that died at once")
    out = spoor.command("trace status")
    assert "trace: traced is not running" in out, out
