"""Answers, not just events: `trace stats` and `trace hist` computed by traced
over the rings, checked against the same figures recomputed here from a
`trace dump` of the same window (abi/traced.h, STATS, says how pairs are
made and percentiles ranked); program names on every line; the kernel's
console echo.

The module's machine has rings large enough that a workload of memtest
and ipcping loses nothing; each test starts from empty rings."""

import math
import re

import pytest

from spoorlib import (LOST, dump, events_in, kill_job, ps, reset_tracing, spawned_pid,
                      start_background)

KV = re.compile(r"^(\S+=\S+(?: \S+=\S+)*)$", re.MULTILINE)
PERCENTILES = (50, 90, 99)


@pytest.fixture
def spoor(shared):
    """The module's machine with 8 MiB rings, tracing off and the rings empty."""
    spoor = shared(smp=4, cmdline="ttrace.ring_kb=8192")
    reset_tracing(spoor)
    return spoor


def stats_kv(spoor, filters=""):
    """tracecat -S's rows: {'events': {...}, ('kind', name): {...}, (measure, key): {...}}."""
    out = spoor.command(f"run -r tracecat -S {filters}".strip(), timeout=300)
    rows = {}
    for line in KV.findall(out):
        words = dict(w.split("=", 1) for w in line.split())
        if "events" in words:
            rows["events"] = words
        elif "kind" in words:
            rows[("kind", words["kind"])] = words
        elif "measure" in words:
            key = [k for k in words if k not in ("measure", "path") and not k.endswith("_us")
                   and k not in ("count", "unpaired", "approx")][0]
            rows[(words["measure"], words[key], words.get("path"))] = words
    assert "events" in rows, out[-2000:]
    return rows


def evicted(spoor):
    """The aux records evicted so far, from `trace status`."""
    out = spoor.command("trace status")
    match = re.search(r", aux \d+ KiB \((\d+) evicted\)", out)
    assert match, out
    return int(match.group(1))


def nearest_rank(values, p):
    return sorted(values)[math.ceil(p * len(values) / 100) - 1]


def recompute(out):
    """The rows of STATS from a dump's text: {(measure, key, path): (latencies, [unpaired])},
    by the rules of abi/traced.h: pairs of the same thread, losses end every pending
    half, and a half that does not tell its row counts in the "unknown" row."""
    rows = {}
    pending = {}

    def row(key):
        return rows.setdefault(key, ([], [0]))

    def begin(tid, measure, us, key):
        if (tid, measure) in pending:
            row(pending[(tid, measure)][1])[1][0] += 1
        pending[(tid, measure)] = (us, key)

    def end(tid, measure, us, key):
        first = pending.pop((tid, measure), None)
        if first is None:
            row(key)[1][0] += 1
            return
        k = first[1] if measure == "ipc" else key
        if us >= first[0]:
            row(k)[0].append(us - first[0])
        else:
            row(k)[1][0] += 2

    def flush():
        for _, key in pending.values():
            row(key)[1][0] += 1
        pending.clear()

    for line in out.splitlines():
        if LOST.match(line):
            flush()
            continue
        found = events_in(line)
        if not found:
            continue
        e = found[0]
        a = e.args
        if e.kind == "syscall_entry":
            begin(e.tid, "syscall", e.us, ("syscall", a["name"], None))
        elif e.kind == "syscall_exit":
            end(e.tid, "syscall", e.us, ("syscall", a["name"], None))
        elif e.kind == "ipc_call":
            begin(e.tid, "ipc", e.us, ("ipc", a["endpoint"], "slow"))
        elif e.kind == "ipc_fastpath" and (e.tid, "ipc") in pending:
            us, key = pending[(e.tid, "ipc")]
            pending[(e.tid, "ipc")] = (us, ("ipc", key[1], "fast"))
        elif e.kind == "ipc_reply":
            end(int(a["peer"]), "ipc", e.us, ("ipc", "unknown", "any"))
        elif e.kind == "mem_pf_entry":
            begin(e.tid, "pf", e.us, ("pf", "unknown", None))
        elif e.kind == "mem_pf":
            end(e.tid, "pf", e.us, ("pf", a["outcome"], None))  # the dump names outcomes
        elif e.kind == "sched_wakeup" and (int(a["tid"]), "wakeup") not in pending:
            begin(int(a["tid"]), "wakeup", e.us, ("wakeup", "unknown", None))
        elif e.kind == "sched_switch" and (int(a["next_tid"]), "wakeup") in pending:
            end(int(a["next_tid"]), "wakeup", e.us, ("wakeup", str(e.cpu), None))
    flush()
    return rows


def workload(spoor):
    spoor.command("trace on all")
    assert "memtest: ok" in spoor.command("run memtest")
    assert "ipcping: on one cpu" in spoor.command("run ipcping 50")
    spoor.command("trace off")


# The kinds the recount pairs, and the measures it makes of them: the
# workload must give it each, or the comparison would pass on nothing.
RECOUNTED_KINDS = {"syscall_entry", "syscall_exit", "ipc_call", "ipc_reply", "mem_pf_entry",
                   "mem_pf", "sched_wakeup", "sched_switch"}
MEASURES = {"syscall", "ipc", "pf", "wakeup"}


def test_stats_agree_with_a_recount_of_the_dump(spoor):
    workload(spoor)
    _, out = dump(spoor)
    assert not LOST.search(out), "the rings were meant to keep everything"
    got = stats_kv(spoor)
    want = recompute(out)
    found = events_in(out)
    assert RECOUNTED_KINDS <= {e.kind for e in found}, sorted({e.kind for e in found})
    assert {measure for (measure, _, _), (values, _) in want.items() if values} == MEASURES, want
    assert int(got["events"]["events"]) == len(found) and got["events"]["lost"] == "0"
    for kind in {e.kind for e in found if not e.kind.startswith("user")}:
        assert int(got[("kind", kind)]["count"]) == sum(e.kind == kind for e in found), kind
    for (measure, key, path), (values, unpaired) in want.items():
        row = got[(measure, key, path)]
        assert int(row["count"]) == len(values), (measure, key, path)
        assert int(row["unpaired"]) == unpaired[0], (measure, key, path)
        if values:
            assert int(row["min_us"]) == min(values) and int(row["max_us"]) == max(values)
        for p in PERCENTILES if values else ():
            exact, got_p = nearest_rank(values, p), int(row[f"p{p}_us"])
            if row["approx"] == "0":
                assert got_p == exact, (measure, key, p)
            else:  # the start of a bucket an eighth of its value wide (help trace stats)
                assert exact - exact // 8 <= got_p <= exact, (measure, key, p, got_p, exact)
    measured = {k for k in got if isinstance(k, tuple) and k[0] != "kind"}
    assert measured == set(want), measured ^ set(want)


def test_ipcping_makes_at_least_its_round_trips_on_one_endpoint(spoor):
    workload(spoor)
    got = stats_kv(spoor)
    per_endpoint = {}
    for key, row in got.items():
        if isinstance(key, tuple) and key[0] == "ipc":
            per_endpoint[key[1]] = per_endpoint.get(key[1], 0) + int(row["count"])
    assert max(per_endpoint.values()) >= 50 * 4, per_endpoint


def test_ipc_rows_name_the_server_behind_the_endpoint(spoor):
    """ipcping's round trips are between its own threads: its endpoint's rows name
    ipcping as the server, in the table and as server= in key=value lines; every IPC
    row names one (or says ?), none is a bare endpoint number."""
    workload(spoor)
    out = spoor.command("trace stats cat=ipc")
    rows = re.findall(r"^  (\S+)(?: \((\S+)\))? path=(fast|slow|any) +(\d+) ", out, re.MULTILINE)
    assert rows, out
    assert all(server for key, server, _, _ in rows if key != "unknown"), out
    assert sum(int(n) for _, server, _, n in rows if server == "ipcping") >= 50 * 4, out
    got = stats_kv(spoor)
    ipc = [row for key, row in got.items() if isinstance(key, tuple) and key[0] == "ipc"]
    assert ipc and all("server" in row for row in ipc if row["endpoint"] != "unknown"), ipc
    assert sum(int(row["count"]) for row in ipc if row.get("server") == "ipcping") >= 50 * 4, ipc


def test_page_faults_are_the_ones_memtest_counted(spoor):
    spoor.command("trace on mem")
    out = spoor.command("run memtest")
    counted = re.search(r"; (\d+) page faults\)", out)
    assert counted, out
    spoor.command("trace off")
    pid = [e.pid for e in events_in(spoor.command("trace dump kind=mem_pf"))
           if e.comm == "memtest"][0]
    got = stats_kv(spoor, f"pid={pid}")
    faults = sum(int(row["count"]) + int(row["unpaired"]) for key, row in got.items()
                 if isinstance(key, tuple) and key[0] == "pf")
    assert faults == int(counted.group(1)) == int(got[("kind", "mem_pf")]["count"])


def test_hist_counts_agree_with_the_stats_row(spoor):
    workload(spoor)
    got = stats_kv(spoor)
    row = got[("syscall", "ipc_call", None)]
    out = spoor.command("trace hist syscall name=ipc_call")
    buckets = [int(n) for n in re.findall(r"^(?:\[\d+\]|\[\d+, \d+\))\s+(\d+) \|", out,
                                           re.MULTILINE)]
    assert sum(buckets) == int(row["count"]) > 0, out


def test_bad_measures_and_keys_say_what_is_accepted(spoor):
    assert "unknown measure 'latency' (known: syscall ipc pf wakeup)" in \
        spoor.command("trace hist latency")
    assert "unknown outcome 'maybe' (known: mapped cow fixup killed)" in \
        spoor.command("trace hist pf outcome=maybe")


def test_an_empty_window_prints_zero_counts_only_for_kinds_asked_for(spoor):
    out = spoor.command("trace stats")
    assert out == "# stats: 0 events, 0 lost\n# kind                      count\n", out
    out = spoor.command("trace stats kind=mem_pf,ipc_call")
    assert re.search(r"^# kind +count\n  mem_pf +0\n  ipc_call +0\n$", out, re.MULTILINE), out


def test_stats_list_only_the_kinds_and_measures_with_events(spoor):
    spoor.command("trace on mem")
    assert "memtest: ok" in spoor.command("run memtest")
    spoor.command("trace off")
    out = spoor.command("trace stats")
    kinds = dict(re.findall(r"^  (\w+) +(\d+)$", out, re.MULTILINE))
    assert kinds and all(int(n) > 0 for n in kinds.values()), out
    assert "mem_pf" in kinds and "ipc_call" not in kinds, out
    assert "# pf " in out and "# ipc " not in out and "# wakeup " not in out, out


def test_stats_rows_are_words_with_no_unexplained_marks(spoor):
    """A fault entry whose mem_pf is outside the window cannot tell its outcome: its
    row is "unknown" (explained by help trace stats), and a row without a pair shows
    no latencies rather than zeros."""
    spoor.command("trace on mem")
    assert "memtest: ok" in spoor.command("run memtest")
    spoor.command("trace off")
    out = spoor.command("trace stats kind=mem_pf_entry")
    assert re.search(r"^  unknown +0 +[1-9]\d* +- +- +- +- +-$", out, re.MULTILINE), out
    assert "?" not in out and "~" not in out, out
    assert "unknown " in spoor.command("help trace stats")


def test_help_trace_stats_is_the_tables_legend(spoor):
    out = spoor.command("help trace stats")
    for word in ("# stats: N events, L lost", "could not have matched", "count", "unpaired",
                 "unknown", "p50", "ceil(N * count / 100)", "an eighth", "mapped cow fixup killed",
                 "syscall_entry to syscall_exit", "ipc_fastpath", "sched_wakeup"):
        assert word in out, (word, out)
    assert max(len(line) for line in out.splitlines()) <= 80, out
    assert spoor.command("help trace hist") == out


def test_losses_are_reported_and_never_give_absurd_latencies(boot):
    spoor = boot(smp=2, cmdline="ttrace.ring_kb=4")
    spoor.command("trace on all")
    assert "memtest: ok" in spoor.command("run memtest")
    spoor.command("trace off")
    got = stats_kv(spoor)
    assert int(got["events"]["lost"]) > 0
    rows = [r for k, r in got.items() if isinstance(k, tuple) and k[0] != "kind"]
    assert sum(int(r["unpaired"]) for r in rows) > 0
    assert all(0 <= int(r["max_us"]) < 10_000_000 for r in rows)


def test_names_are_known_for_programs_started_before_tracing(spoor):
    # Every pid that can have events, named from outside the trace: the kernel,
    # what ran before this test (ps), and the programs the test starts (the
    # shell's lines), hello having exited by the dump.
    names = {row[0]: row[2] for row in ps(spoor)}
    names[0] = "kernel"
    pid, _ = start_background(spoor, "run spin 1 600", r"spin: 1 threads started")
    names[pid] = "spin"
    spoor.command("trace self on")  # traced, started before tracing too, is left out by default
    spoor.command("trace on sched,syscall")
    hello = re.search(r"^\[pid (\d+)\] hello$", spoor.command("run hello"), re.MULTILINE)
    assert hello
    names[int(hello.group(1))] = "hello"
    spoor.command("trace off")
    spoor.command("trace self off")
    found, _ = dump(spoor)
    kill_job(spoor, pid, "spin")
    for e in found:
        assert e.pid in names and e.comm == names[e.pid], e.line
    assert {"init", "traced", "spin", "hello"} <= {e.comm for e in found}


def test_thread_names_are_written_whatever_the_mask(spoor):
    pid, _ = start_background(spoor, "run spin 2 600", r"spin: 2 threads started")
    tids = [tid for row_pid, tid, *_ in ps(spoor) if row_pid == pid]
    out = spoor.command("trace strings threads")
    kill_job(spoor, pid, "spin")
    assert len(tids) == 3, tids
    for tid in tids:
        assert re.search(rf"^thread {tid} spin$", out, re.MULTILINE), (tid, out[-2000:])


def test_program_names_outlive_aux_traffic_while_a_dump_needs_them(shared):
    """A 4 KiB aux ring takes about a hundred records: three runs of spin write
    about two hundred thread names, which evict the records of nobody's name,
    while hello's, whose events are still in the rings, stays."""
    spoor = shared(smp=2, cmdline="ttrace.aux_kb=4")
    reset_tracing(spoor)
    spoor.command("trace self on")  # traced's name is one the dump needs
    spoor.command("trace on syscall,proc")
    assert "hello" in spoor.command("run hello")
    spoor.command("trace off")
    spoor.command("trace self off")
    before = evicted(spoor)
    for _ in range(3):
        assert "spin: 63 threads started" in spoor.command("run spin 63 1")
    assert evicted(spoor) - before >= 60
    found, _ = dump(spoor)
    hello = spawned_pid(spoor, "hello")
    assert {e.comm for e in found if e.pid == hello} == {"hello"}
    assert {e.comm for e in found} >= {"init", "traced", "hello"}
    assert "?" not in {e.comm for e in found}


def test_hist_of_a_category_not_traced_says_so(spoor):
    """With syscall off, an empty histogram is not a quiet machine: the line after it says
    what is not traced and how to trace it; with syscall on it says nothing of the kind."""
    out = spoor.command("trace hist syscall")
    assert re.search(r"^# hist syscall: 0 values", out, re.MULTILINE), out
    assert "# syscall is not traced now: only what it recorded before is here (trace on " \
        "syscall)" in out.splitlines(), out
    spoor.command("trace on syscall")
    out = spoor.command("trace hist syscall")
    spoor.command("trace off")
    assert re.search(r"^# hist syscall: \d+ values", out, re.MULTILINE), out
    assert "not traced" not in out, out
    assert "# sched is not traced now" in spoor.command("trace hist wakeup")
