"""make stress, the system part (issue 14, item 13): a machine of 4 CPUs with
every category traced, for minutes. sysfuzz makes a million system calls
over several seeds while tracegen emits on every CPU; then thread, spawn
and IPC churn. Afterwards: no panic (every expect watches for one), each
CPU's ledger adds up exactly, every tracegen emitted all it was asked to,
the rings dropped nothing in overwrite mode, and free memory is back at its
baseline.

Not part of `make test`: only `--stress` (make stress) selects it
(conftest.py). With `--stress-short` (make stress STRESS_SHORT=1, as CI
runs it) every step is there but small: one seed's 20,000 calls, 20,000
tracegen events a CPU, two rounds of each churn, checked alike."""

import re

import pytest

from spoorlib import expect_count, free_frames, ps, start_job, status, until

# seeds, calls per seed (a million in all), tracegen events on each CPU
# (running through the fuzzing), churn's modes and rounds.
FULL = dict(seeds=(101, 102, 103, 104, 105), calls=200_000, tracegen=2_000_000,
            churn=(("threads", 50), ("spawn", 50), ("ipc", 25)))
SHORT = dict(seeds=(101,), calls=20_000, tracegen=20_000,
             churn=(("threads", 2), ("spawn", 2), ("ipc", 2)))
WARM_UP = (("threads", 2), ("spawn", 2), ("ipc", 2))
CHURN_BATCH = 32  # threads or endpoints a round (tests/programs/churn), half as many children
SLACK_FRAMES = 4  # as test_limits.py: what the shell and servers do meanwhile
LONG = 1800  # seconds: a step under TCG on a busy host, with everything traced


def run_churn(spoor, mode, rounds):
    """Runs churn; checks its own line says it did all the rounds (not the shell's
    `[pid N] churn`, which a churn that failed prints too)."""
    n = rounds * CHURN_BATCH
    line = {"threads": f"churn threads: {n} joined, {n} detached",
            "spawn": f"churn spawn: {n // 2} children",
            "ipc": f"churn ipc: {n} endpoints, {n} calls"}[mode]
    out = spoor.command(f"run churn {mode} {rounds}", timeout=LONG)
    assert re.search(rf"^{line}$", out, re.MULTILINE), out[-2000:]


def settled_free_frames(spoor, before):
    """Free frames once within SLACK_FRAMES of before, or the last count seen."""
    return until(lambda: free_frames(spoor), lambda after: abs(after - before) <= SLACK_FRAMES)


@pytest.mark.stress
def test_a_million_syscalls_with_churn_and_tracegen_on_every_cpu(boot, request):
    size = SHORT if request.config.getoption("--stress-short") else FULL
    spoor = boot(smp=4, mem="512M")
    # The first runs grow the kernel's heap and the servers to their working size.
    for mode, rounds in WARM_UP:
        run_churn(spoor, mode, rounds)
    before = free_frames(spoor)

    assert "trace: enabled all" in spoor.command("trace on all")
    start = len(spoor.console())
    for cpu in range(4):
        start_job(spoor, f"run tracegen {size['tracegen']} {cpu}")
    for seed in size["seeds"]:
        out = spoor.command(f"run sysfuzz {seed} {size['calls']}", timeout=LONG)
        assert re.search(rf"^sysfuzz: {size['calls']} calls, \d+ errors\r*$", out,
                         re.MULTILINE), out[-2000:]
        assert not re.search(r"sysfuzz \(pid \d+\):", out), out[-2000:]
    for mode, rounds in size["churn"]:
        run_churn(spoor, mode, rounds)
    emitted = expect_count(spoor, r"tracegen: emitted (\d+) of (\d+) events", 4, start,
                           timeout=LONG)
    assert all(int(got) == int(asked) == size["tracegen"] for got, asked in emitted), emitted
    spoor.command("trace off")

    cpus = status(spoor)  # checks emitted = stored + overwritten + dropped + cleared per CPU
    assert sorted(cpus) == [0, 1, 2, 3]
    assert all(c["dropped"] == 0 for c in cpus.values()), cpus
    assert all(c["emitted"] >= size["tracegen"] for c in cpus.values()), cpus
    assert {row[2] for row in ps(spoor)} <= {"init", "traced", "echo"}
    after = settled_free_frames(spoor, before)
    assert abs(after - before) <= SLACK_FRAMES, f"{before} frames free before, {after} after"
