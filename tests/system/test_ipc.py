"""IPC (issue 4): endpoints, capability transfer, failure semantics, load, naming, the keeper.

Most checks run inside the guest: `run ipctest NAME` prints `ipctest NAME: ok`
or one FAIL line per failed check (apps/ipctest). The shell-visible facts —
ipcping's figures, free memory around a churn of killed clients, init
restarting a killed server or giving up on one that keeps crashing — are
checked here.
"""

import re

LOAD_TIMEOUT = 120  # stress, churn and ipcping: seconds under TCG, minutes if something is wrong
# ipcping's rounds per figure. Its default (20000) takes minutes when the host is
# busy: a round trip across CPUs then costs milliseconds of waking an idle vCPU.
IPCPING_ROUNDS = 5000
# How many times fewer cycles a same-CPU round trip takes on the fast path, at
# least (in hundredths). Measured over some 80 runs, idle or loaded host, 1 to 8
# CPUs, 128 MiB to 1 GiB: 2.08 to 2.92. Where kernel objects land moves both
# figures by up to a third under TCG (conflicts in QEMU's direct-mapped TLB),
# and the ISO's programs change that with every build: hence the headroom.
FAST_PATH_MIN_RATIO_PERCENT = 175


def run_ipctest(spoor, name, timeout=30):
    """Runs one ipctest test; asserts its ok line and returns its output."""
    out = spoor.command(f"run ipctest {name}", timeout=timeout)
    test = name.split()[0]
    assert f"ipctest {test}: ok" in out and "FAIL" not in out, out
    return out


def free_frames(spoor):
    out = spoor.command("mem")
    match = re.search(r"memory: (\d+) of \d+ frames free", out)
    assert match, out
    return int(match.group(1))


def pid_of(spoor, name):
    """The pid `ps` shows for the program called name, or None."""
    out = spoor.command("ps")
    match = re.search(rf"^\s*(\d+)\s+\d+\s+{re.escape(name)}\s", out, re.MULTILINE)
    return int(match.group(1)) if match else None


def expect_line(spoor, out, pattern, timeout=10):
    """A line the keeper prints may come before or after the prompt: finds it in either."""
    if not re.search(pattern, out):
        spoor.expect(pattern, timeout=timeout)


def ipcping_figures(spoor):
    """Runs ipcping; returns its four figures by (where, path) after checking its ratio line."""
    out = spoor.command(f"run ipcping {IPCPING_ROUNDS}", timeout=LOAD_TIMEOUT)
    figures = {}
    for where, path in (("same cpu", "fast path"), ("same cpu", "slow path"),
                        ("cross cpu", "register-only"), ("cross cpu", "with buffer")):
        match = re.search(rf"ipcping: {where}, {path}: (\d+) cycles per round trip", out)
        assert match, f"no '{where}, {path}' figure:\n{out}"
        figures[where, path] = int(match.group(1))
        assert figures[where, path] > 0, out
    fast, slow = figures["same cpu", "fast path"], figures["same cpu", "slow path"]
    match = re.search(r"on one cpu the fast path takes (\d+)\.(\d\d) times fewer cycles", out)
    assert match, out
    assert int(match.group(1)) * 100 + int(match.group(2)) == slow * 100 // fast, out
    return figures


def test_call_and_reply_carry_registers_and_buffers(boot):
    run_ipctest(boot(), "call")


def test_bad_buffers_on_either_side_give_efault(boot):
    run_ipctest(boot(), "efault")


def test_frame_sent_over_ipc_is_readable_and_its_rights_cannot_grow(boot):
    run_ipctest(boot(), "frame")


def test_badges_identify_three_clients(boot):
    run_ipctest(boot(), "badge")


def test_capability_sent_to_register_only_receiver_is_dropped(boot):
    run_ipctest(boot(), "cap-drop")


def test_recv_and_call_time_out_with_etimedout(boot):
    run_ipctest(boot(), "timeout")


def test_call_to_dead_server_returns_epipe(boot):
    run_ipctest(boot(), "server-death")


def test_deleting_last_endpoint_cap_of_a_side_wakes_the_other_with_epipe(boot):
    run_ipctest(boot(), "endpoint-delete")


def test_reply_to_killed_client_is_a_harmless_noop(boot):
    run_ipctest(boot(), "client-death")


def test_eight_clients_make_10000_calls_each_without_lost_replies(boot):
    spoor = boot(smp=4)
    out = run_ipctest(spoor, "stress", timeout=LOAD_TIMEOUT)
    match = re.search(r"ipctest stress: (\d+) clients made (\d+) calls", out)
    assert match, out
    assert (int(match.group(1)), int(match.group(2))) == (8, 80000), out


def test_ipcping_fast_path_is_clearly_faster_than_slow_path(boot):
    spoor = boot(smp=4)
    # ipcping reports each figure as its best batch, the batches of the fast
    # and the slow path taken in turn, so host load, which only ever adds
    # cycles, falls on both alike: one run is enough.
    figures = ipcping_figures(spoor)
    fast, slow = figures["same cpu", "fast path"], figures["same cpu", "slow path"]
    assert slow * 100 // fast >= FAST_PATH_MIN_RATIO_PERCENT, figures


def test_churn_with_killed_clients_leaves_free_memory_unchanged(boot):
    spoor = boot(smp=4)
    # A first, identical run (the kills follow a fixed seed) grows what stays
    # allocated once grown, such as the kernel heap, to its high-water mark.
    run_ipctest(spoor, "churn", timeout=LOAD_TIMEOUT)
    before = free_frames(spoor)
    out = run_ipctest(spoor, "churn", timeout=LOAD_TIMEOUT)
    match = re.search(r"ipctest churn: (\d+) calls served in \d+ rounds, (\d+) clients killed", out)
    assert match and int(match.group(1)) >= 100000 and int(match.group(2)) > 0, out
    assert free_frames(spoor) == before


def test_lookup_finds_echo_and_rejects_unknown_names(boot):
    run_ipctest(boot(), "naming")


def test_killed_server_is_restarted_and_answers_again(boot):
    spoor = boot()
    old = pid_of(spoor, "echo")
    assert old is not None, "echo is not running"
    out = spoor.command(f"kill {old}")
    assert f"kill: pid {old} killed" in out, out
    expect_line(spoor, out, r"init: echo exited \(status 256\), restarting")
    new = pid_of(spoor, "echo")
    assert new is not None and new != old, f"echo pid {old} -> {new}"
    run_ipctest(spoor, "naming")


def test_keeper_gives_up_on_a_server_that_keeps_crashing(boot):
    spoor = boot(modules=("crasher server",), wait_prompt=False)
    spoor.expect(r"init: crasher exited \(status 3\) 3 times within 2 s of starting; "
                 r"not restarting it", timeout=60)
    restarts = re.findall(r"init: crasher exited \(status 3\), restarting", spoor.child.before)
    assert len(restarts) == 2, spoor.child.before
    assert pid_of(spoor, "crasher") is None
    run_ipctest(spoor, "naming")
    assert "init: crasher" not in spoor.command("mem")
