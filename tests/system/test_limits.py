"""Limits and lifetimes (issue 14, items 2 and 3): kernel memory comes back after
any program, the per-process limits answer EAGAIN, children end with their
parent, ps shows every process's parent, and kill reaches any process but
init and the servers it keeps.

The program under test is tests/programs/churn: it creates and frees the
kernel's objects (threads, processes, endpoints) in batches, or runs into
the limits of abi/proc.h, and says what it did in one line.
"""

import re

import pytest

from spoorlib import assert_free_back_to, free_frames, kill_job, pid_of, ps, start_background, \
    until

# abi/proc.h
PROC_THREADS_MAX = 64
PROC_TREE_MAX = 64
CHURN_TIMEOUT = 300  # seconds under TCG on a busy host; minutes only if something is wrong


@pytest.fixture
def spoor(shared):
    """The module's machine: 4 CPUs, 256 MiB, the default command line.

    A test may rely on the prompt and on no program of its own running; it
    must kill or wait for every program it starts (and their children).
    Free memory is whatever the tests before left: a test that compares it
    takes its own baseline.
    """
    spoor = shared(smp=4)
    # traced sets itself up (its mappings, its copies of the aux ring) while the
    # shell already prompts; its first answer means that memory is in place, so
    # a baseline taken after it does not move.
    assert "trace: mask" in spoor.command("trace status")
    return spoor


def churn_pids(spoor):
    return {row[0] for row in ps(spoor) if row[2] == "churn"}


def assert_gone(spoor, pids):
    """None of pids is (or, after looks until SETTLE_TIMEOUT, still is) in ps."""
    left = until(lambda: churn_pids(spoor) & set(pids), lambda left: not left)
    assert not left, f"still running: {sorted(left)}"


# The first tests of the module: the heap's high-water mark is still the
# boot's, so a heap that kept its pages would show them here.
@pytest.mark.parametrize("mode, line", [
    ("ipc 10", r"churn ipc: 320 endpoints, 320 calls"),
    ("threads 20", r"churn threads: 640 joined, 640 detached"),
    ("spawn 20", r"churn spawn: 320 children"),
], ids=["ipc", "threads", "spawn"])
def test_churn_gives_every_frame_back(spoor, mode, line):
    before = free_frames(spoor)
    out = spoor.command(f"run churn {mode}", timeout=CHURN_TIMEOUT)
    assert re.search(line, out) and "exited with status" not in out, out
    assert_free_back_to(spoor, before)


def test_stopped_children_start_once_and_die_unstarted_giving_every_frame_back(spoor):
    before = free_frames(spoor)
    out = spoor.command("run churn stopped 10", timeout=CHURN_TIMEOUT)
    assert "churn stopped: 160 children, 80 killed before they ran, 80 started" in out, out
    assert "exited with status" not in out, out
    # Never started, they end with their parent.
    left = re.search(r"^churn stopped: left stopped:((?: \d+)+)$", out, re.MULTILINE)
    assert left and len(left.group(1).split()) == 8, out
    assert_gone(spoor, [int(pid) for pid in left.group(1).split()])
    assert_free_back_to(spoor, before)


def test_threads_nobody_joins_stop_at_the_limit_with_eagain(spoor):
    before = free_frames(spoor)
    out = spoor.command("run churn unjoined", timeout=CHURN_TIMEOUT)
    # The main thread holds a record too.
    assert (f"churn unjoined: thread_create answered EAGAIN (try again) after "
            f"{PROC_THREADS_MAX - 1} threads") in out, out
    assert re.search(r"churn unjoined: after a join, thread_create gave tid \d+", out), out
    assert_free_back_to(spoor, before)


def test_spawn_tree_stops_at_the_limit_with_eagain(spoor):
    before = free_frames(spoor)
    out = spoor.command("run churn tree", timeout=CHURN_TIMEOUT)
    # The tree's root is churn itself.
    assert (f"churn tree: spawn answered EAGAIN (try again) after {PROC_TREE_MAX - 1} "
            f"children") in out, out
    assert_gone(spoor, churn_pids(spoor))
    assert_free_back_to(spoor, before)


def test_children_end_with_their_parent(spoor):
    out = spoor.command("run churn orphans 3")
    assert "churn orphans: exiting" in out, out
    children = [int(p) for p in re.findall(r"churn orphans: child pid (\d+)", out)]
    assert len(children) == 3, out
    assert_gone(spoor, children)


def test_ps_shows_each_process_with_its_parent(spoor):
    parent, child = start_background(spoor, "run churn parent", r"churn parent: child pid (\d+)\r*\n")
    child = int(child.group(1))
    try:
        rows = ps(spoor)
        ppid = {row[0]: row[6] for row in rows}
        init = pid_of(spoor, "init")
        assert ppid[child] == parent and ppid[parent] == init and ppid[init] == 0, rows
        assert ppid[pid_of(spoor, "traced")] == init, rows
    finally:
        kill_job(spoor, parent, "churn")
    assert_gone(spoor, [child])


def test_kill_reaches_a_process_the_shell_did_not_start(spoor):
    parent, child = start_background(spoor, "run churn parent", r"churn parent: child pid (\d+)\r*\n")
    child = int(child.group(1))
    try:
        out = spoor.command(f"kill {child}")
        assert f"kill: pid {child} killed" in out, out
        assert_gone(spoor, [child])
        assert parent in churn_pids(spoor), "the parent went with its child"
    finally:
        kill_job(spoor, parent, "churn")


def test_kill_refuses_init_and_the_servers_init_keeps(spoor):
    init = pid_of(spoor, "init")
    out = spoor.command(f"kill {init}")
    assert f"kill: pid {init} is init, which runs this shell; it cannot be killed" in out, out
    traced = pid_of(spoor, "traced")
    out = spoor.command(f"kill {traced}")
    assert (f"kill: pid {traced} is traced, a server init keeps running (kill -f {traced}: "
            f"init restarts it)") in out, out
    assert pid_of(spoor, "traced") == traced and "init: traced exited" not in out


def test_kill_of_an_unknown_pid_says_so(spoor):
    assert "kill: no process with pid 99999" in spoor.command("kill 99999")
    assert "kill: usage: kill [-f] PID" in spoor.command("kill")


def test_spawn_bomb_stops_at_the_limit_and_dies_with_its_root(spoor):
    before = free_frames(spoor)
    root, _ = start_background(spoor, "run churn bomb",
                               r"churn bomb: spawn answered EAGAIN: the tree is full",
                               timeout=CHURN_TIMEOUT)
    try:
        # The tree is full once its last process exists, which is a moment before
        # ps lists it: ps shows threads, and that process's first thread is still
        # being made when its siblings are refused.
        bomb = until(lambda: churn_pids(spoor), lambda bomb: len(bomb) >= PROC_TREE_MAX)
        assert len(bomb) == PROC_TREE_MAX, sorted(bomb)
        assert "memory:" in spoor.command("mem"), "the shell does not answer"
    finally:
        kill_job(spoor, root, "churn")
    assert_gone(spoor, bomb)
    assert_free_back_to(spoor, before)
