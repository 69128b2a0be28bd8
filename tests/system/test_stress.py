"""make stress, the system part (issue 14, item 13): a machine of 4 CPUs with
every category traced, for minutes. sysfuzz makes a million system calls
over several seeds while tracegen emits on every CPU; then thread, spawn
and IPC churn. Afterwards: no panic (every expect watches for one), each
CPU's ledger adds up exactly, every tracegen emitted all it was asked to,
the rings dropped nothing in overwrite mode, and free memory is back at its
baseline.

Not part of `make test`: only `--stress` (make stress) selects it
(conftest.py)."""

import re

import pytest

from spoorlib import PS_POLLS, expect_count, free_frames, ps, status

SEEDS = (101, 102, 103, 104, 105)
CALLS = 200_000  # per seed: a million in all
TRACEGEN_EVENTS = 2_000_000  # on each CPU, running through the fuzzing
CHURN = (("threads 50", r"churn threads: 1600 joined, 1600 detached"),
         ("spawn 50", r"churn spawn: 800 children"),
         ("ipc 25", r"churn ipc: 800 endpoints, 800 calls"))
# churn's own line, not the shell's `[pid N] churn`: the warm-up must have done its work.
WARM_UP = (("threads 2", r"churn threads: 64 joined, 64 detached"),
           ("spawn 2", r"churn spawn: 32 children"),
           ("ipc 2", r"churn ipc: 64 endpoints, 64 calls"))
SLACK_FRAMES = 4  # as test_limits.py: what the shell and servers do meanwhile
LONG = 1800  # seconds: a step under TCG on a busy host, with everything traced


def run_churn(spoor, mode, line):
    out = spoor.command(f"run churn {mode}", timeout=LONG)
    assert re.search(rf"^{line}$", out, re.MULTILINE), out[-2000:]


def settled_free_frames(spoor, before):
    """Free frames once within SLACK_FRAMES of before, or the last count seen."""
    after = free_frames(spoor)
    for _ in range(PS_POLLS):
        if abs(after - before) <= SLACK_FRAMES:
            break
        after = free_frames(spoor)
    return after


@pytest.mark.stress
def test_a_million_syscalls_with_churn_and_tracegen_on_every_cpu(boot):
    spoor = boot(smp=4, mem="512M")
    # The first runs grow the kernel's heap and the servers to their working size.
    for mode, line in WARM_UP:
        run_churn(spoor, mode, line)
    before = free_frames(spoor)

    assert "trace: enabled all" in spoor.command("trace on all")
    start = len(spoor.console())
    for cpu in range(4):
        assert "[started]" in spoor.command(f"run tracegen {TRACEGEN_EVENTS} {cpu} &")
    for seed in SEEDS:
        out = spoor.command(f"run sysfuzz {seed} {CALLS}", timeout=LONG)
        assert re.search(rf"^sysfuzz: {CALLS} calls, \d+ errors\r*$", out, re.MULTILINE), \
            out[-2000:]
        assert not re.search(r"sysfuzz \(pid \d+\):", out), out[-2000:]
    for mode, line in CHURN:
        run_churn(spoor, mode, line)
    emitted = expect_count(spoor, r"tracegen: emitted (\d+) of (\d+) events", 4, start,
                           timeout=LONG)
    assert all(int(got) == int(asked) == TRACEGEN_EVENTS for got, asked in emitted), emitted
    spoor.command("trace off")

    cpus = status(spoor)  # checks emitted = stored + overwritten + dropped + cleared per CPU
    assert sorted(cpus) == [0, 1, 2, 3]
    assert all(c["dropped"] == 0 for c in cpus.values()), cpus
    assert all(c["emitted"] >= TRACEGEN_EVENTS for c in cpus.values()), cpus
    assert {row[2] for row in ps(spoor)} <= {"init", "traced", "echo"}
    after = settled_free_frames(spoor, before)
    assert abs(after - before) <= SLACK_FRAMES, f"{before} frames free before, {after} after"
