"""`trace save FILTERS` per CPU (abi/trace_file.h, PER-CPU SAVES): a save with a
filter carries each CPU's matching events in CPU_EVENTS sections, the filter
applied by traced to ranges copied at once (servers/traced/sieve.c), and only
count= and last= still go through the merge (EVENTS).

The machine of this module runs a workload once, tracing off after it, and
saves the rings whole; each test saves them again with a filter and checks
the file against a recount of the whole file's events made here, from
abi/ alone (tests/system/entries.py): by kind, category, cpu, pid, tid,
process tree and time window, exactly, in the same order."""

import re
import subprocess

import pytest

import entries
from spoorlib import LOST, ROOT, dump, events_in, reset_tracing

SPOOR_TRACE = ROOT / "build" / "host" / "spoor-trace"
SAVED = re.compile(r"trace: saved (\d+) events, (\d+) lost, (\d+) bytes to (\S+)\.spoor")
HEADER_SIZE = slice(8, 12)  # abi/trace_file.h: struct ttrace_file_header's header_size
PREDICATE = 8  # abi/trace_file.h: TTRACE_FILE_PREDICATE, a save's `if PREDICATE` (minor 5)
NS_PER_S = 1000000000


def section_types(path):
    """The types of a saved file's sections, in order (abi/trace_file.h LAYOUT)."""
    data = path.read_bytes()
    at, types = int.from_bytes(data[HEADER_SIZE], "little"), []
    while at < len(data):
        types.append(int.from_bytes(data[at:at + 4], "little"))
        at += 16 + int.from_bytes(data[at + 8:at + 16], "little")
    return types


def predicate_of(path):
    """The text of a saved file's PREDICATE section, which comes first (abi/trace_file.h,
    A SAVE'S PREDICATE), or None: its struct ttrace_file_predicate (len, reserved),
    then the text, then zeros to a multiple of 8."""
    data = path.read_bytes()
    at = int.from_bytes(data[HEADER_SIZE], "little")
    if int.from_bytes(data[at:at + 4], "little") != PREDICATE:
        return None
    size = int.from_bytes(data[at + 8:at + 16], "little")
    length, reserved = (int.from_bytes(data[at + 16 + i:at + 20 + i], "little") for i in (0, 4))
    padded = data[at + 24:at + 16 + size]
    assert reserved == 0 and size == 8 + (length + 7) // 8 * 8, (size, length, reserved)
    assert padded[length:] == bytes(len(padded) - length), padded
    return padded[:length].decode()


def ns_of(trace, ts):
    """ns since boot of a TSC value, as traced converts it (servers/traced/state.c)."""
    d = max(ts - trace.boot_tsc, 0)
    if not trace.tsc_hz:
        return d
    return d // trace.tsc_hz * NS_PER_S + d % trace.tsc_hz * NS_PER_S // trace.tsc_hz


def tree_of(trace, root):
    """root and every process it spawned, from the file's spawn records (tag PROC, id
    pid | parent << 32)."""
    parents = {rec_id & 0xffffffff: rec_id >> 32
               for rec_id in trace.records(entries.AUX_PROC, lambda i: i)}
    tree, grew = {root}, True
    while grew:
        grew = False
        for pid, parent in parents.items():
            if parent in tree and pid not in tree:
                tree.add(pid)
                grew = True
    return tree


def key(e):
    return (e.ts, e.cpu, e.kind, e.pid, e.tid, tuple(e.words))


def text_of(path):
    """spoor-trace's text of a file (which checks its ledger and END first)."""
    done = subprocess.run([str(SPOOR_TRACE), "text", str(path)], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def whole(machines):
    """A machine that traced memtest (CPU 0) and a tracegen (CPU 1) with every
    category, then saved the rings without a filter. Yields (machine, the whole
    file read from abi/, memtest's pid, its first event's tid)."""
    machine = machines.get(smp=2)
    spoor = machine.spoor
    reset_tracing(spoor)
    spoor.command("trace on all")
    out = spoor.command("run memtest")
    assert "memtest: ok" in out, out
    memtest = int(re.search(r"\[pid (\d+)\] memtest", out).group(1))
    assert "emitted 3000 of 3000" in spoor.command("run tracegen 3000 1")
    spoor.command("trace off")
    saved = SAVED.search(spoor.command("trace save as whole"))
    assert saved and saved.group(2) == "0", spoor.console()[-2000:]
    trace = entries.Trace(spoor.traces / "whole.spoor")
    assert len(trace.events) == int(saved.group(1))
    tid = next(e.tid for e in trace.events if e.pid == memtest)
    yield machine, trace, memtest, tid


def window(trace):
    """since= and until= around the middle third of the whole file's events, as the
    shell takes them (seconds with nine decimals), and the test of an event."""
    times = sorted(ns_of(trace, e.ts) for e in trace.events)
    since, until = times[len(times) // 3] + 1, times[2 * len(times) // 3]
    words = f"since={since // NS_PER_S}.{since % NS_PER_S:09d} " \
            f"until={until // NS_PER_S}.{until % NS_PER_S:09d}"
    return words, lambda e: since <= ns_of(trace, e.ts) < until


def in_tree(trace, root):
    tree = tree_of(trace, root)
    return lambda e: e.pid in tree


CASES = {
    "kind": lambda t, m, tid: ("kind=test_tick,sched_switch",
                               lambda e: t.table[e.kind][0] in ("test_tick", "sched_switch")),
    "cat_cpu": lambda t, m, tid: ("cat=mem cpu=0",
                                  lambda e: entries.categories()[t.table[e.kind][0]] == "mem"
                                  and e.cpu == 0),
    "pid": lambda t, m, tid: (f"pid={m}", lambda e: e.pid == m),
    "tid": lambda t, m, tid: (f"tid={tid}", lambda e: e.tid == tid),
    "tree": lambda t, m, tid: ("tree=1", in_tree(t, 1)),
    "window": lambda t, m, tid: window(t),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_filtered_save_goes_out_per_cpu_with_exactly_the_events_that_match(shared, whole,
                                                                               case):
    machine, trace, memtest, tid = whole
    spoor = shared.use(machine)
    words, match = CASES[case](trace, memtest, tid)
    saved = SAVED.search(spoor.command(f"trace save {words} as {case}"))
    assert saved, spoor.console()[-2000:]
    path = spoor.traces / f"{case}.spoor"
    types = section_types(path)
    assert entries.CPU_EVENTS in types and entries.EVENTS not in types, types
    got = entries.Trace(path)
    want = [e for e in trace.events if match(e)]
    assert 0 < len(want) < len(trace.events), (case, len(want))
    assert [key(e) for e in got.events] == [key(e) for e in want], case
    assert (int(saved.group(1)), int(saved.group(2))) == (len(want), 0)
    assert not got.lost


def test_a_filtered_save_is_the_filtered_dump_line_for_line(shared, whole):
    machine, _, memtest, _ = whole
    spoor = shared.use(machine)
    found, out = dump(spoor, f"pid={memtest} cat=mem,sched")
    assert SAVED.search(spoor.command(f"trace save pid={memtest} cat=mem,sched as pidcat"))
    text = text_of(spoor.traces / "pidcat.spoor")
    assert [e.line for e in events_in(text)] == [e.line for e in found] != []


def test_count_and_last_still_go_through_the_merge(shared, whole):
    machine, trace, _, _ = whole
    spoor = shared.use(machine)
    for words, name, pick in (("cat=test count=5", "first5", slice(0, 5)),
                              ("cat=test last=5", "last5", slice(-5, None))):
        assert SAVED.search(spoor.command(f"trace save {words} as {name}"))
        path = spoor.traces / f"{name}.spoor"
        types = section_types(path)
        assert entries.EVENTS in types and entries.CPU_EVENTS not in types, types
        want = [e for e in trace.events if trace.table[e.kind][0] == "test_tick"][pick]
        assert [key(e) for e in entries.Trace(path).events] == [key(e) for e in want]


def test_a_per_cpu_save_says_the_losses_of_a_cpu_it_leaves_out_could_not_have_matched(boot):
    """CPU 1 overwrites 936 entries of its 64-entry ring; a save of cpu=0 counts them
    lost (its ledger exact), and says none of them could have matched."""
    spoor = boot(smp=2, cmdline="ttrace.ring_kb=4")
    spoor.command("trace on test")
    assert "emitted 1000 of 1000" in spoor.command("run tracegen 1000 1")
    spoor.command("trace off")
    out = spoor.command("trace save cpu=0 as cpu0")
    assert re.search(r"^trace: saved 0 events, 936 lost, \d+ bytes to cpu0\.spoor\n# of the 936 "
                     r"lost: 936 could not have matched \(on CPUs the filter leaves out, or "
                     r"outside the window it asks for\)$", out, re.MULTILINE), out
    assert entries.CPU_EVENTS in section_types(spoor.traces / "cpu0.spoor")
    text = text_of(spoor.traces / "cpu0.spoor")  # checks the ledger
    assert [m.groups() for m in LOST.finditer(text)] == [("936", "1")], text
    assert "# end of dump: 0 events, 936 lost" in text


HOARD_SAVED = re.compile(r"hoard: saved (\d+) events to (self-(\d+)-\S+\.spoor)")


def test_a_self_save_goes_out_per_cpu_with_exactly_its_own_processes_events(boot):
    """A program below the read level saves only its own processes' events
    (abi/traced.h SAVE): per CPU too, sieved by its scope. Each CPU's events in
    its file are the first of that CPU's events of its processes in a save of
    everything made after it (which holds what the program did after its save
    too), read from abi/ alone."""
    spoor = boot(smp=2, modules=("hoard",))
    spoor.command("trace on test,user,proc")
    assert "hello" in spoor.command("run hello")
    out = spoor.command("run hoard save mine")
    saved = HOARD_SAVED.search(out)
    assert saved and int(saved.group(1)) > 0, out
    spoor.command("trace off")
    path = spoor.traces / saved.group(2)
    assert entries.CPU_EVENTS in section_types(path) and \
        entries.EVENTS not in section_types(path), section_types(path)
    own = entries.Trace(path)
    assert len(own.events) == int(saved.group(1))
    assert SAVED.search(spoor.command("trace save as everything"))
    whole = entries.Trace(spoor.traces / "everything.spoor")
    scope = tree_of(whole, int(saved.group(3)))
    assert len(scope) == 2, scope  # hoard and its child
    for cpu in range(2):
        got = [key(e) for e in own.events if e.cpu == cpu]
        want = [key(e) for e in whole.events if e.cpu == cpu and e.pid in scope]
        assert got == want[:len(got)], cpu
    assert {e.pid for e in own.events} == scope
    assert any(e.pid not in scope for e in whole.events)  # hello's, init's, the kernel's


def test_a_save_with_a_predicate_records_its_text_first(shared, whole):
    """Per CPU (the sieve) and through the merge (count=) alike, the file starts
    with the predicate's text as the request carried it, and holds the events
    that pass it; a save without one has no such section."""
    machine, trace, _, _ = whole
    spoor = shared.use(machine)
    ticks = [e for e in trace.events if trace.table[e.kind][0] == "test_tick" and e.cpu == 1]
    for words, name, want in (("cat=test if cpu == 1", "predcpu", ticks),
                              ("cat=test count=5 if cpu == 1", "predfirst5", ticks[:5])):
        saved = SAVED.search(spoor.command(f"trace save {words} as {name}"))
        assert saved and saved.group(1) == str(len(want)), spoor.console()[-2000:]
        path = spoor.traces / f"{name}.spoor"
        assert section_types(path)[0] == PREDICATE
        assert predicate_of(path) == "cpu == 1"
        assert [key(e) for e in entries.Trace(path).events] == [key(e) for e in want] != []
    assert SAVED.search(spoor.command("trace save cat=test as nopred"))
    assert PREDICATE not in section_types(spoor.traces / "nopred.spoor")
