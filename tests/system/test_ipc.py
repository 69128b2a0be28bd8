"""IPC (issue 4): endpoints, capability transfer, failure semantics, load, naming, the keeper.

Most checks run inside the guest: `run ipctest NAME` prints `ipctest NAME: ok`
or one FAIL line per failed check (tests/programs/ipctest). Before its ok it
says how many checks passed, which must be all the test makes (CHECKS): a
test that stopped short, or never got to its checks, is not ok. Where a test
takes what it sends from its command line (call's words, buffers and badge,
badge's three badges, fastpath's badge and words, frame's patterns,
naming's text for echo), they are chosen here and what came back is
checked here too, so that a guest check that passes on nothing does not
pass the test. Tests that provoke errors (efault, cap-drop, fastwake,
server-death, endpoint-delete, client-death) print what each call
returned and the values they saw (`ipctest NAME: observed N: V1 V2
...`), held here against what the kernel must answer (errors by their
abi/errno.def names). The shell-visible facts — ipcping's figures, free
memory around a churn of killed clients, init restarting a killed server
or giving up on one that keeps crashing — are checked here. How much
faster the fast path is, is a measurement, not a test: `make bench`
prints ipcping's ratio.
"""

import re

import pytest

from entries import value_lists
from spoorlib import BOOT_TIMEOUT, COMMAND_TIMEOUT, dump, expect_after, free_frames, \
    lost_per_cpu, pid_of, restarted_pid

LOAD_TIMEOUT = 180  # stress, churn and ipcping: seconds under TCG, minutes if something is wrong
# stress and churn take as long as the host's load makes them (more than
# LOAD_TIMEOUT under two CPU hogs): they say how far they got every 10 s of
# the guest's clock while calls are served, and stop with FAIL lines when
# calls stop; the test waits as long as those lines come.
PROGRESS = r"ipctest {}: \d+ calls served so far"
# ipcping's rounds per figure: enough for every case to run its batches,
# few enough to take seconds when the host is busy (a round trip across
# CPUs then costs milliseconds of waking an idle vCPU).
IPCPING_ROUNDS = 1000
# How late a timeout may fire under -icount: the timer's 10 ms tick, and a
# little (a run measures 300 to 310 ms for 300).
ICOUNT_LATE_MS = 20
# ipctest wakerace (tests/programs/ipctest/wakerace.c): its rounds, and the
# labels of its slow and fast calls as the dump prints them.
WAKERACE_ROUNDS = 100
LABEL_SLOW_CALL = "0x5c0"
LABEL_FAST_CALL = "0xfc0"
# The checks each ipctest test makes, all of which must pass, as a run of a
# working build counts them (loops included: call's and frame's 4096-byte
# buffers are checked byte by byte); a change to a test's checks changes its
# number here.
CHECKS = {"call": 8258, "efault": 48, "frame": 8209, "badge": 18, "cap-drop": 17,
          "fastpath": 46, "fastwake": 30, "timeout": 15, "server-death": 8,
          "endpoint-delete": 12, "client-death": 30, "naming": 50}

# What `ipctest call` and `ipctest badge` send (tests/programs/ipctest/call.c,
# caps.c): words SEED * (i + 1) and buffers of the pattern below, a badge of
# the full 64 bits, and three clients' badges.
CALL_SEED = 0xc0ffee1234567891
CALL_BADGE = 0x8000000000b0d9e1
BADGES = (0xfeedface00000001, 0x2b00, 0x7ffffffffffffffe)
# The seeds of the patterns `ipctest frame` writes and has its receiver write
# (caps.c), in a frame of FRAME_BYTES: a pattern follows its seed's low byte,
# so theirs differ.
FRAME_SEEDS = (0x5eed0000a11ce0d1, 0x77000000000b0b3e)
FRAME_BYTES = 8192
# What `ipctest naming` sends init's echo server (naming.c), and the badge
# init gives a program the shell runs plainly (abi/traced.h TRACED_LEVEL_SELF).
ECHO_TEXT = "spoor-echo-7f3a"
LEVEL_SELF = 1
# What `ipctest fastpath` sends (fastpath.c): its badge, and words FAST_BASE + i.
FAST_BADGE = 0xfa57000000000001
FAST_BASE = 0x8000000000001000
# What `ipctest fastwake` sends (fastwake.c): the badges of its fast-path
# thread's and its server process's endpoint copies, and the word of its calls.
WAKE_BADGE, SERVER_BADGE, WAKE_WORD = 0xa4e, 0x5e7, 41
# What `ipctest server-death`'s serve-hold role flags once it holds a call,
# and the badges of client-death's four clients (ipctest.h, failure.c).
HOLD_GOT_CALL = 1
CLIENT_BADGES = (0xc1, 0xc2, 0xc3, 0xc4)
EXIT_KILLED = 0x100  # abi/proc.h: the status of a killed process
IPC_NO_CAP = 0xffffffff  # abi/ipc.h: no capability in a slot
IPC_WORDS = 8  # abi/ipc.h: word 7 of the echo's reply is the caller's badge
IPC_BUF_MAX = 4096
FNV_OFFSET, FNV_PRIME = 0xcbf29ce484222325, 0x100000001b3


def pattern(seed, n):
    """ipctest's byte pattern of a seed (ipctest.h pattern_byte()), n bytes."""
    return bytes((seed * 31 + i * 7 + (i >> 8)) & 0xff for i in range(n))


def fnv1a(data):
    h = FNV_OFFSET
    for byte in data:
        h = (h ^ byte) * FNV_PRIME % (1 << 64)
    return h


# The errors of abi/errno.def by what a system call returns: {-14: "-EFAULT"}.
ERRNO_NAMES = value_lists()["errno"]


def observed(out, test):
    """The values an ipctest test observed (its observed line), errors by name as
    abi/errno.def has them ("-EFAULT"), other values as numbers."""
    found = re.search(rf"^ipctest {test}: observed (\d+):((?: -?\d+)*)$", out, re.M)
    assert found, out
    values = [int(v) for v in found.group(2).split()]
    assert len(values) == int(found.group(1)), out
    return [ERRNO_NAMES.get(v, v) for v in values]


def run_naming(spoor):
    """ipctest naming, and echo's answer to ECHO_TEXT: reversed, with our badge."""
    out = run_ipctest(spoor, f"naming {ECHO_TEXT}")
    assert f"ipctest naming: echo sent back '{ECHO_TEXT[::-1]}', badge {LEVEL_SELF}\n" in out, out


@pytest.fixture
def spoor(shared):
    """The module's machine: 4 CPUs, 256 MiB, the default command line, init's
    servers (traced, echo) as they started.

    A test may rely on the prompt, no program of its own running, and the
    servers at their first pids; it must not kill or crash a server (those
    tests boot their own machine) and must wait for what it runs to end.
    """
    return shared(smp=4)


def run_ipctest(spoor, name, timeout=COMMAND_TIMEOUT, progressing=False):
    """Runs one ipctest test; asserts its ok line, after all of CHECKS[name] passed if
    the table has it, and returns its output. With progressing, timeout bounds the
    time between two of its PROGRESS lines, not the whole run."""
    test = name.split()[0]
    if progressing:
        out = spoor.command_progressing(f"run ipctest {name}", PROGRESS.format(test), timeout)
    else:
        out = spoor.command(f"run ipctest {name}", timeout=timeout)
    assert f"ipctest {test}: ok" in out and "FAIL" not in out, out
    passed = re.search(rf"^ipctest {test}: (\d+) checks passed$", out, re.MULTILINE)
    assert passed, out
    if test in CHECKS:
        assert int(passed.group(1)) == CHECKS[test], out
    return out


def test_call_and_reply_carry_registers_and_buffers(spoor):
    out = run_ipctest(spoor, f"call {CALL_SEED:#x} {CALL_BADGE:#x}")
    words = [CALL_SEED * (i + 1) % (1 << 64) for i in range(IPC_WORDS - 1)] + [CALL_BADGE]
    assert "ipctest call: reply words " + " ".join(map(hex, words)) + "\n" in out, out
    back = pattern(CALL_SEED + IPC_BUF_MAX, IPC_BUF_MAX)[::-1]  # the echo reverses it
    assert f"ipctest call: {IPC_BUF_MAX} bytes back, fnv1a {fnv1a(back):#x}\n" in out, out


def test_bad_buffers_on_either_side_give_efault(spoor):
    out = run_ipctest(spoor, "efault")
    # The caller's 13 bad buffers and ipc_extras, the server's 3 (as it reports
    # them), then recv's and reply's ipc_extra at a kernel address.
    assert observed(out, "efault") == ["-EFAULT"] * (13 + 3 + 2), out


def test_frame_sent_over_ipc_is_readable_and_its_rights_cannot_grow(spoor):
    read, write = FRAME_SEEDS
    out = run_ipctest(spoor, f"frame {read:#x} {write:#x}")
    assert f"ipctest frame: the receiver read fnv1a {fnv1a(pattern(read, FRAME_BYTES)):#x}\n" \
        in out, out
    assert f"ipctest frame: read back fnv1a {fnv1a(pattern(write, FRAME_BYTES)):#x} of what the " \
        "receiver wrote\n" in out, out


def test_badges_identify_three_clients(spoor):
    out = run_ipctest(spoor, "badge " + " ".join(map(hex, BADGES)))
    seen = re.findall(r"^ipctest badge: client (\d)'s call came with badge (\w+)$", out, re.M)
    assert [(int(i), int(b, 16)) for i, b in seen] == list(enumerate(BADGES)), out


def test_capability_sent_to_register_only_receiver_is_dropped(spoor):
    out = run_ipctest(spoor, "cap-drop")
    # Once to a server in its first receive, once to one on the fast path:
    # the call's result, its reply (word 7 plus 1), no capability back, and
    # the receiver on the endpoint sent, woken when our copy goes.
    assert observed(out, "cap-drop") == [0, 8, IPC_NO_CAP, "-EPIPE"] * 2, out


def test_fast_path_carries_badges_and_exactly_the_words_sent_and_falls_back_to_the_slow_path(spoor):
    out = run_ipctest(spoor, f"fastpath {FAST_BADGE:#x} {FAST_BASE:#x}")
    # The server's reply to all eight words: the badge, how many registers past
    # the count it found not 0, then the first six words as they arrived.
    want = [FAST_BADGE, 0] + [FAST_BASE + i for i in range(IPC_WORDS - 2)]
    assert f"ipctest fastpath: reply to {IPC_WORDS} words " + " ".join(map(hex, want)) + "\n" \
        in out, out
    pid = re.search(r"^\[pid (\d+)\] ipctest$", out, re.M)
    assert pid, out
    assert f"ipctest fastpath: the ipc_extra server saw pid {pid.group(1)}, badge " \
        f"{FAST_BADGE:#x}\n" in out, out


def test_threads_blocked_on_the_fast_path_resume_when_woken_by_a_generic_call_or_a_kill(spoor):
    out = run_ipctest(spoor, "fastwake")
    # Each call answered with the badge of the copy it went through and its word
    # plus 1; each kill done, its process's status EXIT_KILLED: three calls to
    # the thread on the fast path, the client killed while it waits there, a
    # call after the dropped reply, two calls to a server process, the server
    # killed there, and a call to the endpoint with no receiver left.
    answer = [0, WAKE_BADGE, WAKE_WORD + 1]
    server = [0, SERVER_BADGE, WAKE_WORD + 1]
    killed = [0, EXIT_KILLED]
    assert observed(out, "fastwake") == answer * 3 + killed + answer + server * 2 + killed \
        + ["-EPIPE"], out


def test_fast_path_switches_between_threads_of_one_process_and_of_two(spoor):
    out = run_ipctest(spoor, "spaces", timeout=LOAD_TIMEOUT)
    assert "ipctest spaces: 6000 calls served" in out, out


def test_fast_path_between_threads_on_any_cpu_loses_and_repeats_no_call(spoor):
    out = run_ipctest(spoor, "roam", timeout=LOAD_TIMEOUT)
    assert "ipctest roam: 12000 calls served" in out, out


def test_fast_call_taking_a_server_that_is_still_waking_its_caller_does_not_lock_up(boot):
    """ipctest wakerace on a kernel booted with inject=wakeclaim: the server,
    queued for its next call, waits to be claimed before it wakes the caller
    it replied to, so the fast call lands inside that wake-up in every round,
    not only when the timing happens to allow it. A fast path that waited
    for the server's CPU while holding its own run queue lock locked both
    CPUs up in the first round.

    The trace says that it happened: in each round, between the server's
    reply to the slow caller and its wake-up of that caller (ipc_reply,
    then ipc_slowpath, both naming the caller), the fast client's call
    claimed the server. A fast call records ipc_call only once it has
    claimed its server, and then ipc_fastpath naming it (which may come
    after the wake-up: the claimer's CPU can be slow to get there); a call
    that ipc_fastpath does not follow went the generic way and claimed
    nothing. A round without such a claim inside it would be one the race
    was not run in, and fails the test."""
    spoor = boot(smp=4, cmdline="inject=wakeclaim")
    spoor.command("trace on ipc")
    out = run_ipctest(spoor, "wakerace", timeout=LOAD_TIMEOUT)
    assert f"ipctest wakerace: {WAKERACE_ROUNDS} rounds" in out, out
    spoor.command("trace off")
    found, dumped = dump(spoor, "cat=ipc")
    assert not lost_per_cpu(dumped), dumped[-2000:]
    events = [e for e in found if e.comm == "ipctest"]
    fast = {e.tid for e in events if e.kind == "ipc_call" and e.args["label"] == LABEL_FAST_CALL}
    slow = {e.tid for e in events if e.kind == "ipc_call" and e.args["label"] == LABEL_SLOW_CALL}
    assert len(fast) == 1 and len(slow) == 1, [e.line for e in events[:40]]
    fast, slow = fast.pop(), slow.pop()
    server = {int(e.args["peer"]) for e in events
              if e.tid == fast and e.kind == "ipc_fastpath"}
    assert len(server) == 1, [e.line for e in events[:40]]
    server = server.pop()

    # The fast client's calls that went the fast path: their ipc_call's place in the dump.
    mine = [(i, e) for i, e in enumerate(events) if e.tid == fast]
    claims = {i for (i, e), (_, after) in zip(mine, mine[1:])
              if e.kind == "ipc_call" and after.kind == "ipc_fastpath"
              and int(after.args["peer"]) == server}
    forced = unforced = 0
    reply = None
    for i, e in enumerate(events):
        if e.tid != server or int(e.args["peer"]) != slow:
            continue
        if e.kind == "ipc_reply":
            reply = i
        elif e.kind == "ipc_slowpath" and reply is not None:
            claimed = any(reply < c < i for c in claims)
            forced, unforced = forced + claimed, unforced + (not claimed)
            reply = None
    assert (forced, unforced) == (WAKERACE_ROUNDS, 0), \
        f"{forced} rounds had the fast call land inside the wake-up, {unforced} did not"


def test_recv_and_call_time_out_with_etimedout(boot):
    """On a machine whose clocks count instructions (-icount), a timeout fires
    within ICOUNT_LATE_MS of its time whatever the host's load, so that bound
    is tight; on a machine on the host's clock it had to allow 2 s. The host
    stops QEMU again and again meanwhile, as a loaded host does."""
    spoor = boot(smp=1, icount=True)
    with spoor.stalled():
        run_ipctest(spoor, f"timeout {ICOUNT_LATE_MS}")


def test_call_to_dead_server_returns_epipe(spoor):
    out = run_ipctest(spoor, "server-death")
    # The server took our call (HOLD_GOT_CALL), was killed, and our call ended
    # -EPIPE; the only receiver of a second endpoint was killed, and its two
    # queued calls and one made afterwards ended -EPIPE.
    assert observed(out, "server-death") == [HOLD_GOT_CALL, 0, "-EPIPE", 0] + ["-EPIPE"] * 3, \
        out


def test_deleting_last_endpoint_cap_of_a_side_wakes_the_other_with_epipe(spoor):
    out = run_ipctest(spoor, "endpoint-delete")
    # With a minted, then a copied capability: a call with no receive cap left,
    # a queued caller and a waiting receiver once the other side's last cap
    # goes, and a receive with no call cap left.
    assert observed(out, "endpoint-delete") == ["-EPIPE"] * 4 * 2, out


def test_reply_to_killed_client_is_a_harmless_noop(spoor):
    out = run_ipctest(spoor, "client-death")
    b1, b2, b3, b4 = CLIENT_BADGES
    killed = [0, EXIT_KILLED]
    assert observed(out, "client-death") == (
        [0, b1] + killed  # the first client's call received, the client killed
        + [0]  # the reply to it, with a buffer and a frame: dropped without error
        + ["-EPIPE", 0, IPC_NO_CAP]  # our next call: -EPIPE; its receiver got no capability
        + [0, b2, 0, 0, 8]  # a thread's call received, answered with its word 7 plus 1
        + killed + ["-ETIMEDOUT"]  # a client killed while its call (b3) was queued: withdrawn
        + [0, b4] + killed  # the fourth client's call received, the client killed
        + [0, 9, b2, 0]  # reply_recv: the reply dropped, the thread's next call (9) arrives
        + [0, 10]  # and is answered
        + ["-ETIMEDOUT"]), out  # nothing left queued


def test_eight_clients_make_10000_calls_each_without_lost_replies(spoor):
    out = run_ipctest(spoor, "stress", timeout=LOAD_TIMEOUT, progressing=True)
    match = re.search(r"ipctest stress: (\d+) clients made (\d+) calls", out)
    assert match, out
    assert (int(match.group(1)), int(match.group(2))) == (8, 80000), out


def test_ipcping_measures_both_paths_on_one_cpu_and_across_cpus(spoor):
    out = spoor.command(f"run ipcping {IPCPING_ROUNDS}", timeout=LOAD_TIMEOUT)
    figures = {}
    for where, path in (("same cpu", "fast path"), ("same cpu", "slow path"),
                        ("cross cpu", "register-only"), ("cross cpu", "with buffer")):
        match = re.search(rf"ipcping: {where}, {path}: (\d+) cycles per round trip", out)
        assert match, f"no '{where}, {path}' figure:\n{out}"
        figures[where, path] = int(match.group(1))
        assert figures[where, path] > 0, out
    # The ratio line is the two same-CPU figures' quotient, whatever it is.
    fast, slow = figures["same cpu", "fast path"], figures["same cpu", "slow path"]
    match = re.search(r"on one cpu the fast path takes (\d+)\.(\d\d) times fewer cycles", out)
    assert match, out
    assert int(match.group(1)) * 100 + int(match.group(2)) == slow * 100 // fast, out


def test_churn_with_killed_clients_leaves_free_memory_unchanged(spoor):
    # A first, identical run (the kills follow a fixed seed) grows what stays
    # allocated once grown, such as the kernel heap, to its high-water mark.
    run_ipctest(spoor, "churn", timeout=LOAD_TIMEOUT, progressing=True)
    before = free_frames(spoor)
    out = run_ipctest(spoor, "churn", timeout=LOAD_TIMEOUT, progressing=True)
    match = re.search(r"ipctest churn: (\d+) calls served in \d+ rounds, (\d+) clients killed", out)
    assert match and int(match.group(1)) >= 100000 and int(match.group(2)) > 0, out
    assert free_frames(spoor) == before


def test_lookup_finds_echo_and_rejects_unknown_names(spoor):
    run_naming(spoor)


def test_killed_server_is_restarted_and_answers_again(boot):
    spoor = boot(smp=4)
    old = pid_of(spoor, "echo")
    assert old is not None, "echo is not running"
    out = spoor.command(f"kill -f {old}")
    assert f"kill: pid {old} killed" in out, out
    expect_after(spoor, out, r"init: echo killed, restarting")
    restarted_pid(spoor, "echo", old)
    run_naming(spoor)


def test_keeper_gives_up_on_a_server_that_keeps_crashing(boot):
    spoor = boot(smp=4, modules=("crasher server",), wait_prompt=False)
    spoor.expect(r"init: crasher exited with status 3 \(3 times within 2 s of starting\); "
                 r"not restarting it", timeout=BOOT_TIMEOUT)
    restarts = re.findall(r"init: crasher exited with status 3, restarting", spoor.child.before)
    assert len(restarts) == 2, spoor.child.before
    assert pid_of(spoor, "crasher") is None
    run_naming(spoor)
    assert "init: crasher" not in spoor.command("mem")
