"""User space (issue 3): programs, threads on every CPU, faults, memory, capabilities, fuzzing.

The programs under test live in apps/: hello (argv and exit statuses), spin
(busy threads), fault (one deliberate fault per kind), memtest (checks user
memory from the inside; `memtest hold` keeps its data segment for the shell
to look at), captest (the capability rules) and sysfuzz (random syscalls).
Behaviour that depends on the number of CPUs is checked on SMP=1 and SMP=4.
"""

import re

import pytest

SMP_BOTH = pytest.mark.parametrize("smp", [1, 4])

# abi/mem.h: the main thread's stack and the guard below it (kernel/mm/uvm.c).
USER_STACK_TOP = 0x00007FF000000000
USER_STACK_SIZE = 256 * 1024
STACK_GUARD_SIZE = 64 * 1024
PROGRAM_BASE = 0x400000  # libc/arch/x86_64/user.ld

MEMTEST_DATA_PAGES = 64  # apps/memtest: DATA_PAGES
MEMTEST_RUNS = 100
FUZZ_CALLS = 100000
FUZZ_TIMEOUT = 240  # about 25 s under TCG; minutes only if something is wrong
PS_POLLS = 20


def free_frames(spoor):
    out = spoor.command("mem")
    match = re.search(r"memory: (\d+) of \d+ frames free", out)
    assert match, out
    return int(match.group(1))


def ps(spoor):
    """ps as a list of (pid, tid, name, state, cpu, mem_kib)."""
    out = spoor.command("ps")
    rows = re.findall(r"^\s*(\d+)\s+(\d+)\s+(\S+)\s+(\S+)\s+(\d+)\s+(\d+)K\s*$", out, re.MULTILINE)
    assert rows, out
    return [(int(p), int(t), n, s, int(c), int(m)) for p, t, n, s, c, m in rows]


def start_background(spoor, line, ready):
    """Runs `line &`; waits for the [started] line and the program's own `ready` line.

    Waiting for the program's line before typing again keeps its output from
    landing inside the echo of the next command. Returns (pid, ready match).
    """
    out = spoor.command(line + " &")
    started = re.search(r"\[started\] \S+ \(pid (\d+)\)", out)
    assert started, out
    match = re.search(ready, out) or spoor.expect(ready)
    return int(started.group(1)), match


def kill(spoor, pid, name):
    """Kills a background job and waits for the shell to report its end."""
    out = spoor.command(f"kill {pid}")
    assert f"kill: pid {pid} killed" in out, out
    # The shell reports a job's end before the first prompt after it: a few
    # harmless commands give it prompts to do that at.
    done = f"[done] {name} (pid {pid}): killed"
    for _ in range(PS_POLLS):
        if done in out:
            return
        out = spoor.command("mem")
    raise AssertionError(f"no '{done}' line; last output:\n{out}")


def test_programs_receive_argv_and_report_exit_status(boot):
    spoor = boot(smp=2)

    out = spoor.command("run hello one two-words x=y exit=0")
    assert "hello: argc=5\n" in out, out
    for i, arg in enumerate(["hello", "one", "two-words", "x=y", "exit=0"]):
        assert f"hello: argv[{i}]='{arg}'\n" in out, out
    assert "exit status" not in out, "status 0 is not reported"

    out = spoor.command("run hello exit=3")
    assert re.search(r"^hello \(pid \d+\): exit status 3$", out, re.MULTILINE), out
    out = spoor.command("run hello exit=255")
    assert re.search(r"^hello \(pid \d+\): exit status 255$", out, re.MULTILINE), out

    out = spoor.command("run fault nosuchkind")
    assert "usage: fault KIND" in out and re.search(r"fault \(pid \d+\): exit status 2", out), out
    assert "run: no program 'nosuchprogram'" in spoor.command("run nosuchprogram")


def test_eight_busy_threads_run_on_all_four_cpus(boot):
    spoor = boot(smp=4)
    pid, _ = start_background(spoor, "run spin 8", r"spin: 8 threads started")

    seen = set()
    for _ in range(PS_POLLS):
        rows = [r for r in ps(spoor) if r[0] == pid and r[3] in ("running", "ready")]
        assert len(rows) == 8, rows
        seen |= {cpu for *_, cpu, _mem in rows}
        if seen == {0, 1, 2, 3}:
            break
    assert seen == {0, 1, 2, 3}, f"spin threads seen only on cpus {sorted(seen)}"

    kill(spoor, pid, "spin")
    assert not [r for r in ps(spoor) if r[0] == pid], "killed threads still listed"


# Per kind: the kernel's reason text and the vector init reports. For page
# faults, the address and access are checked in the test.
FAULTS = {
    "null": (r"page fault at 0x0 \(read, not present\)", 14),
    "write": (r"page fault at (0x[0-9a-f]+) \(write, protection\)", 14),
    "exec": (r"page fault at (0x[0-9a-f]+) \(fetch, protection\)", 14),
    "gpf": (r"general protection fault", 13),
    "ud": (r"invalid opcode", 6),
    "divide": (r"divide error", 0),
    "stack": (r"stack overflow at (0x[0-9a-f]+) \(write, not present\)", 14),
}


@SMP_BOTH
def test_each_fault_kills_only_its_process_with_one_line(boot, smp):
    spoor = boot(smp=smp)
    bystander, _ = start_background(spoor, "run memtest hold", r"memtest: holding")

    for kind, (reason, vector) in FAULTS.items():
        out = spoor.command(f"run fault {kind}")
        lines = re.findall(r"^pid \d+ \(fault\) killed: .*$", out, re.MULTILINE)
        assert len(lines) == 1, out
        match = re.fullmatch(rf"pid (\d+) \(fault\) killed: {reason} rip=(0x[0-9a-f]+)", lines[0])
        assert match, f"{kind}: {lines[0]}"
        pid, rip = int(match.group(1)), int(match.group(match.lastindex), 16)
        assert PROGRAM_BASE <= rip < PROGRAM_BASE + 0x100000, f"{kind}: rip outside the program"
        if kind == "write":
            # It writes to its own code: the address is a few bytes before rip.
            assert PROGRAM_BASE <= int(match.group(2), 16) <= rip, lines[0]
        elif kind == "exec":
            assert int(match.group(2), 16) == rip, "a fetch fault's address is its rip"
        elif kind == "stack":
            bottom = USER_STACK_TOP - USER_STACK_SIZE
            assert bottom - STACK_GUARD_SIZE <= int(match.group(2), 16) < bottom, lines[0]
        assert f"fault (pid {pid}): killed by a fault (vector {vector})" in out, out

    rows = ps(spoor)
    assert not [r for r in rows if r[2] == "fault"], "a faulted process is still listed"
    assert [r for r in rows if r[0] == bystander], "the bystander died with the faults"
    assert "hello: argc=1" in spoor.command("run hello")
    kill(spoor, bystander, "memtest")


@SMP_BOTH
def test_memory_returns_to_start_after_100_memtest_runs(boot, smp):
    spoor = boot(smp=smp)
    # The first run grows the kernel's heap and page tables to their working size.
    assert "memtest: ok" in spoor.command("run memtest")
    before = free_frames(spoor)
    for i in range(MEMTEST_RUNS):
        out = spoor.command("run memtest")
        assert "memtest: ok (" in out and "FAIL" not in out, f"run {i}: {out}"
    assert free_frames(spoor) == before


@SMP_BOTH
def test_sysfuzz_100000_random_syscalls_leave_kernel_and_shell_working(boot, smp):
    spoor = boot(smp=smp)
    out = spoor.command(f"run sysfuzz 1 {FUZZ_CALLS}", timeout=FUZZ_TIMEOUT)
    assert re.search(rf"^sysfuzz: {FUZZ_CALLS} calls, \d+ errors$", out, re.MULTILINE), out[-2000:]
    assert not re.search(r"sysfuzz \(pid \d+\):", out), "sysfuzz did not exit 0: " + out[-2000:]
    assert "killed:" not in out, out[-2000:]

    assert "hello: argv[1]='still'" in spoor.command("run hello still here")
    assert "memtest: ok" in spoor.command("run memtest")
    assert re.search(r"^\s+1\s+\d+\s+init\s", spoor.command("ps"), re.MULTILINE)


def test_capability_errors_are_the_documented_ones(boot):
    spoor = boot(smp=2)
    out = spoor.command("run captest")
    assert re.search(r"^captest: ok \(\d+ checks\)$", out, re.MULTILINE), out


def test_copy_on_write_shares_data_pages_until_written(boot):
    spoor = boot(smp=4)
    # memtest checks the values it reads back across copy-on-write on its own.
    out = spoor.command("run memtest")
    assert "memtest: ok" in out and "FAIL" not in out, out

    before = free_frames(spoor)
    shared = r"memtest: holding \d+ data pages, shared"
    first, _ = start_background(spoor, "run memtest hold", shared)
    after_first = free_frames(spoor)
    second, _ = start_background(spoor, "run memtest hold", shared)
    after_second = free_frames(spoor)
    dirty, _ = start_background(spoor, "run memtest hold dirty",
                                r"memtest: holding \d+ data pages, written")
    after_dirty = free_frames(spoor)

    # Even the first instance shares its data with the program image, which the
    # kernel keeps loaded. An instance's own cost (page tables, stacks, kernel
    # records) varies by a frame or two with where the kernel heap's pages
    # fall; the data segment's 64 pages stand well clear of that.
    clean_cost = max(before - after_first, after_first - after_second)
    dirty_cost = after_second - after_dirty
    assert clean_cost < MEMTEST_DATA_PAGES // 2, f"a clean instance took {clean_cost} frames"
    assert dirty_cost >= MEMTEST_DATA_PAGES, f"a written instance took only {dirty_cost} frames"
    assert dirty_cost - clean_cost > MEMTEST_DATA_PAGES * 3 // 4, (clean_cost, dirty_cost)

    # ps counts the shared pages as each instance's resident memory all the same.
    mem = {r[0]: r[5] for r in ps(spoor)}
    for pid in (first, second, dirty):
        assert mem[pid] >= MEMTEST_DATA_PAGES * 4, f"pid {pid}: {mem[pid]}K resident"

    for pid in (first, second, dirty):
        kill(spoor, pid, "memtest")
