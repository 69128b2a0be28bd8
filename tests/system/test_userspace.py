"""User space (issue 3): programs, threads on every CPU, faults, memory, capabilities, fuzzing.

The programs under test: hello (argv and exit statuses), memtest (checks
user memory from the inside; `memtest hold` keeps its data segment for the
shell to look at) from apps/; spin (busy threads), fault (one deliberate
fault per kind), captest (the capability rules) and sysfuzz (random
syscalls) from tests/programs/. Behaviour that depends on the number of
CPUs is checked on SMP=1 and SMP=4.
"""

import re
from collections import defaultdict

import pytest

from spoorlib import dump, free_frames, kill_job, lost_per_cpu, ps, reset_tracing, \
    start_background

# abi/mem.h: the main thread's stack and the guard below it (kernel/mm/uvm.c).
USER_STACK_TOP = 0x00007FF000000000
USER_STACK_SIZE = 256 * 1024
STACK_GUARD_SIZE = 64 * 1024
PROGRAM_BASE = 0x400000  # libc/arch/x86_64/user.ld

MEMTEST_DATA_PAGES = 64  # apps/memtest: DATA_PAGES
MEMTEST_RUNS = 100
FUZZ_CALLS = 100000
FUZZ_TIMEOUT = 300  # about 25 s under TCG; minutes only if something is wrong
# spin's busy threads run this long, traced: long enough for every CPU to take
# some, and seconds of output at most for the dump.
SPIN_SECONDS = 1
SPIN_TIMEOUT = 120


@pytest.fixture(params=[1, 4], ids=["smp1", "smp4"])
def smp(request):
    return request.param


@pytest.fixture
def spoor(shared, smp):
    """The module's machine with `smp` CPUs (256 MiB, the default command line).

    A test may rely on the prompt and on no program of its own running; it
    must kill or wait for every program it starts. Free memory is whatever
    the tests before left: a test that compares it takes its own baseline.
    """
    return shared(smp=smp)


@pytest.fixture
def spoor2(shared):
    """The module's machine with 2 CPUs, on the same terms as `spoor`."""
    return shared(smp=2)


@pytest.fixture
def spoor4(shared):
    """The module's machine with 4 CPUs, on the same terms as `spoor`."""
    return shared(smp=4)


def test_program_receives_its_arguments(spoor2):
    out = spoor2.command("run hello one two-words x=y exit=0")
    assert "hello: argc=5\n" in out, out
    for i, arg in enumerate(["hello", "one", "two-words", "x=y", "exit=0"]):
        assert f"hello: argv[{i}]='{arg}'\n" in out, out


def test_exit_status_0_is_not_reported(spoor2):
    out = spoor2.command("run hello exit=0")
    assert "hello: argc=2" in out, out
    assert "exited with status" not in out, "status 0 is not reported"


@pytest.mark.parametrize("status", [3, 255])
def test_nonzero_exit_status_is_reported(spoor2, status):
    out = spoor2.command(f"run hello exit={status}")
    assert re.search(rf"^hello \(pid \d+\): exited with status {status}$", out, re.MULTILINE), out


def test_program_refusing_its_arguments_exits_with_usage_and_status_2(spoor2):
    out = spoor2.command("run fault nosuchkind")
    assert "usage: fault KIND" in out and re.search(r"fault \(pid \d+\): exited with status 2", out), out


def test_running_an_unknown_program_names_it(spoor2):
    assert "run: no program 'nosuchprogram'" in spoor2.command("run nosuchprogram")


def test_eight_busy_threads_run_on_all_four_cpus(spoor4):
    """spin's eight busy threads, traced for their whole life: every CPU ran
    one of them, as its sched_switch events say. The trace sees every switch
    where looking at ps now and then sees what happens to be running, so a
    scheduler that left a CPU without them fails every time."""
    reset_tracing(spoor4)
    spoor4.command("trace on sched")
    try:
        out = spoor4.command(f"run spin 8 {SPIN_SECONDS}", timeout=SPIN_TIMEOUT)
    finally:
        spoor4.command("trace off")
    started = re.search(r"^\[pid (\d+)\] spin$", out, re.MULTILINE)
    assert started and "spin: 8 threads started" in out, out
    pid = int(started.group(1))
    found, dumped = dump(spoor4, "cat=sched")
    assert not lost_per_cpu(dumped), dumped[-2000:]
    # Every thread of spin records a switch away from it on its way out, so
    # each appears; the main thread (the lowest tid) only waits for the others.
    threads = {e.tid for e in found if e.pid == pid}
    assert len(threads) == 9, f"spin's threads in the trace: {sorted(threads)}"
    busy = threads - {min(threads)}
    ran_on = defaultdict(set)  # busy tid: the CPUs it ran on
    for e in found:
        if e.kind == "sched_switch":
            for tid in (int(e.args["prev_tid"]), int(e.args["next_tid"])):
                if tid in busy:
                    ran_on[tid].add(e.cpu)
    assert set(ran_on) == busy, f"busy threads never switched: {sorted(busy - set(ran_on))}"
    cpus = set().union(*ran_on.values())
    assert cpus == {0, 1, 2, 3}, f"spin's busy threads ran only on cpus {sorted(cpus)}"
    reset_tracing(spoor4)


def test_killed_program_leaves_none_of_its_threads(spoor4):
    pid, _ = start_background(spoor4, "run spin 8", r"spin: 8 threads started")
    assert [r for r in ps(spoor4) if r[0] == pid], "spin is not listed"
    kill_job(spoor4, pid, "spin")
    assert not [r for r in ps(spoor4) if r[0] == pid], "killed threads still listed"


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


@pytest.mark.parametrize("kind", FAULTS)
def test_fault_kills_the_program_with_one_line_naming_it(spoor, kind):
    reason, vector = FAULTS[kind]
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
    assert not [r for r in ps(spoor) if r[2] == "fault"], "a faulted process is still listed"


def test_faults_leave_the_kernel_and_other_programs_running(spoor):
    bystander, _ = start_background(spoor, "run memtest hold", r"memtest: holding")
    try:
        for kind in FAULTS:
            assert "(fault) killed:" in spoor.command(f"run fault {kind}")
        rows = ps(spoor)
        assert not [r for r in rows if r[2] == "fault"], "a faulted process is still listed"
        assert [r for r in rows if r[0] == bystander], "the bystander died with the faults"
        assert "hello: argc=1" in spoor.command("run hello")
    finally:
        kill_job(spoor, bystander, "memtest")


def test_memory_returns_to_start_after_100_memtest_runs(spoor):
    # The first run grows the kernel's heap and page tables to their working size.
    assert "memtest: ok" in spoor.command("run memtest")
    before = free_frames(spoor)
    for i in range(MEMTEST_RUNS):
        out = spoor.command("run memtest")
        assert "memtest: ok (" in out and "FAIL" not in out, f"run {i}: {out}"
    assert free_frames(spoor) == before


# A fresh machine: what the fuzzer did to it (names registered, objects left
# behind) is not for the next test to find.
@pytest.mark.parametrize("smp", [1, 4], ids=["smp1", "smp4"])
def test_sysfuzz_100000_random_syscalls_leave_kernel_and_shell_working(boot, smp):
    spoor = boot(smp=smp)
    out = spoor.command(f"run sysfuzz 1 {FUZZ_CALLS}", timeout=FUZZ_TIMEOUT)
    assert re.search(rf"^sysfuzz: {FUZZ_CALLS} calls, \d+ errors$", out, re.MULTILINE), out[-2000:]
    assert not re.search(r"sysfuzz \(pid \d+\):", out), "sysfuzz did not exit 0: " + out[-2000:]
    assert "killed:" not in out, out[-2000:]

    assert "hello: argv[1]='still'" in spoor.command("run hello still here")
    assert "memtest: ok" in spoor.command("run memtest")
    assert re.search(r"^\s+1\s+0\s+\d+\s+init\s", spoor.command("ps"), re.MULTILINE)


def test_capability_errors_are_the_documented_ones(spoor2):
    out = spoor2.command("run captest")
    assert re.search(r"^captest: ok \(\d+ checks\)$", out, re.MULTILINE), out


def test_copy_on_write_shares_data_pages_until_written(spoor4):
    spoor = spoor4
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
        kill_job(spoor, pid, "memtest")
