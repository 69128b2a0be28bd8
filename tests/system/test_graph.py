"""The function graph (`trace graph`, abi/trace_func.h THE GRAPH): each call of
a root and of everything it calls records graph_entry and graph_exit with its
depth and duration. The saved events are read by entries.py (abi/ alone) and
the calls are checked against kernel.elf (nm, objdump): every call a parent
made is one its code makes, a thread's entries and exits pair up, durations
nest, a thread that exits inside a call ends it as exited, a depth past the
limit is counted, and the graph goes on and off under load with the ledger
exact."""

import functools
import json
import re
import subprocess
from collections import defaultdict

import pytest

import entries
from spoorlib import KERNEL, ROOT, flip_under_tracegen, reset_tracing, status

KINDS = {name: kind for kind, (name, _) in entries.kinds().items()}
ENTRY, EXIT = KINDS["graph_entry"], KINDS["graph_exit"]
ENDS = {name: value for value, name in entries.value_lists()["graph_end"].items()}
CTX_IRQ = int(re.search(r"#define TTRACE_CTX_IRQ\s+(\d+)",
                        (ROOT / "abi" / "trace.h").read_text()).group(1))
SPOOR_TRACE = ROOT / "build" / "host" / "spoor-trace"
SAVED = re.compile(r"trace: saved (\d+) events, (\d+) lost")
GRAPH = re.compile(r"trace: graph of (\d+) kernel functions and all they call")
PAST = re.compile(r"# (\d+) calls past the depth not recorded; (\d+) entries missed")


@pytest.fixture
def spoor(shared):
    """A machine of 2 CPUs, with rings that keep a few programs' graphs; each test
    leaves the graph off and tracing off."""
    machine = shared(smp=2, cmdline="ttrace.ring_kb=8192")
    reset_tracing(machine)
    yield machine
    machine.command("trace graph off")
    reset_tracing(machine)


@functools.cache
def code():
    """kernel.elf's functions: {name: (address, whether it begins with the entry
    NOP, the functions its code calls or jumps to, whether it calls indirectly)}."""
    text = subprocess.run(["objdump", "-d", "--no-show-raw-insn", str(KERNEL)], check=True,
                          capture_output=True, text=True).stdout
    functions = {}
    for block in re.split(r"\n\n(?=[0-9a-f]+ <)", text):
        head = re.match(r"([0-9a-f]+) <([\w.]+)>:\n", block)
        if not head:
            continue
        body = block[head.end():]
        first = body.split("\n", 1)[0]
        callees = set(re.findall(r"\s(?:call|jmp)\s+[0-9a-f]+ <([\w.]+)>", body))
        indirect = bool(re.search(r"\scall\s+\*", body))
        functions[head.group(2)] = (int(head.group(1), 16), "nopl   0x0(%rax,%rax,1)" in first,
                                    callees, indirect)
    return functions


@functools.cache
def reached(name):
    """What a call of name can record under it: the functions its code calls or jumps
    to, and what those without the entry NOP reach in turn (they are not recorded, so
    their calls show as their caller's); and whether any of them calls through a
    pointer."""
    seen, todo, indirect = set(), [name], False
    while todo:
        _, _, callees, through = code()[todo.pop()]
        indirect |= through
        for c in callees - seen:
            seen.add(c)
            if c in code() and not code()[c][1]:
                todo.append(c)
    return seen, indirect


@functools.cache
def names():
    """{address: function} of kernel.elf's functions."""
    return {address: name for name, (address, *_) in code().items()}


def saved(spoor, name):
    """Saves the rings and reads the file with entries.py."""
    out = spoor.command(f"trace save as {name}", timeout=300)
    assert SAVED.search(out), out
    return entries.Trace(spoor.traces / f"{name}.spoor")


def run_pid(spoor, line, verdict):
    """Runs a program to its end and returns its pid, from the shell's [pid N] line."""
    out = spoor.command(line, timeout=300)
    assert verdict in out, out
    return int(re.search(r"^\[pid (\d+)\]", out, re.MULTILINE).group(1))


def calls(trace, pid):
    """The graph's calls of process pid, by thread: {(pid, tid): [root call, ...]},
    each call a dict of its function's name, depth, context, ns, end and callees;
    and {(pid, tid): the calls still open at the save}. An entry must come at the
    depth of the calls open on its thread; an exit must end the newest of them.
    (Another process may have had calls under way when the trace began, a
    server's from a graph turned off and on again: their exits have no entry.)"""
    roots, open_calls = defaultdict(list), defaultdict(list)
    for e in trace.events:
        if e.kind not in (ENTRY, EXIT) or e.pid != pid:
            continue
        key, stack = (e.pid, e.tid), open_calls[(e.pid, e.tid)]
        func, depth = names()[e.words[0]], e.words[1]
        if e.kind == ENTRY:
            assert depth == len(stack), (key, func, depth, [c["func"] for c in stack])
            call = dict(func=func, depth=depth, ctx=e.ctx, ns=None, end=None, callees=[])
            (stack[-1]["callees"] if stack else roots[key]).append(call)
            stack.append(call)
        else:
            assert stack and (stack[-1]["func"], stack[-1]["depth"]) == (func, depth), \
                (key, func, depth, [c["func"] for c in stack])
            call = stack.pop()
            call["ns"], call["end"] = e.words[2], e.words[3]
    return roots, {key: stack for key, stack in open_calls.items() if stack}


def walk(call):
    yield call
    for callee in call["callees"]:
        yield from walk(callee)


@functools.cache
def trap_callees():
    """What the trap and interrupt entry (trap.c's trap_*, without the entry NOP)
    calls itself: an interrupt taken inside a call can add these to it in the
    call's own context (the EOI, after the handler's context ends)."""
    return set().union(*(callees for name, (_, site, callees, _) in code().items()
                         if name.startswith("trap_") and not site))


def check_nesting_and_code(call):
    """A call's callees took no longer than it did, together; each callee made in
    the call's own context (not an interrupt's) is one the caller's code calls or
    jumps to, or the caller calls through a pointer, or one the interrupt entry
    calls."""
    for c in walk(call):
        if c["end"] == ENDS["returned"]:
            assert sum(k["ns"] for k in c["callees"]) <= c["ns"], c
        callees, indirect = reached(c["func"])
        for k in c["callees"]:
            if k["ctx"] == c["ctx"]:
                assert k["func"] in callees | trap_callees() or indirect, (c["func"], k["func"])


def expected_tree(func):
    """The calls a function with no branch around its calls makes, from its code:
    the functions with the entry NOP it calls, in the order of its code."""
    text = subprocess.run(["objdump", "-d", "--no-show-raw-insn", f"--disassemble={func}",
                           str(KERNEL)], check=True, capture_output=True, text=True).stdout
    made = re.findall(r"\scall\s+[0-9a-f]+ <([\w.]+)>", text)
    return (func, tuple(expected_tree(c) for c in made if code()[c][1]))


def tree(call):
    """A call as (function, (callees...)), leaving out an interrupt's calls."""
    mine = reached(call["func"])[0]
    return (call["func"], tuple(tree(c) for c in call["callees"] if c["ctx"] == call["ctx"] and
                                (c["func"] in mine or c["func"] not in trap_callees())))


def test_graph_of_getpid_is_the_call_tree_of_its_code(spoor):
    out = spoor.command("trace graph sys_getpid")
    assert GRAPH.search(out) and int(GRAPH.search(out).group(1)) == 1, out
    pid = run_pid(spoor, "run ipcping 10", "ipcping:")
    trace = saved(spoor, "graph-getpid")
    roots, open_calls = calls(trace, pid)
    mine = [call for (p, _), rs in roots.items() if p == pid for call in rs]
    assert len(mine) >= 10, len(mine)
    assert not [key for key in open_calls if key[0] == pid], open_calls
    expected = expected_tree("sys_getpid")
    assert len(expected[1]) >= 1, expected  # it calls process_current: a tree, not a leaf
    for call in mine:
        assert call["end"] == ENDS["returned"] and call["depth"] == 0, call
        assert tree(call) == expected, (tree(call), expected)
        check_nesting_and_code(call)


def test_graph_of_sys_ipc_holds_every_round_trip_fast_and_slow(spoor):
    """The issue's `trace graph sys_ipc`: sys_ipc, the entry every ipc_call and
    ipc_reply_recv takes, is each IPC call's root. Under it, what the fast path
    calls (ipc_fast_call and ipc_fast_reply_recv, without an entry NOP of their
    own, show what they call) or the slow path's handler (sys_ipc_call,
    sys_ipc_reply_recv, through the dispatch table, after the fast path was
    tried), each made by sys_ipc's code; the slow path's goes down into the IPC
    code, several calls deep."""
    out = spoor.command("trace graph sys_ipc")
    assert int(GRAPH.search(out).group(1)) == 1, out
    pid = run_pid(spoor, "run ipcping 10", "ipcping:")
    trace = saved(spoor, "graph-sys-ipc")
    roots, open_calls = calls(trace, pid)
    assert not [key for key in open_calls if key[0] == pid], open_calls
    mine = [call for (p, _), rs in roots.items() if p == pid for call in rs]
    assert {call["func"] for call in mine} == {"sys_ipc"}, {call["func"] for call in mine}
    handlers = {"sys_ipc_call", "sys_ipc_reply_recv"}
    fast, slow = [], []
    for call in mine:
        assert call["end"] in (ENDS["returned"], ENDS["abandoned"]), call
        check_nesting_and_code(call)
        # tree() leaves out what an interrupt taken inside added (its EOI, say)
        own = [c[0] for c in tree(call)[1]]
        slow_ones = [func for func in own if func in handlers]
        assert len(slow_ones) <= 1 and own[-1:] == slow_ones or not slow_ones, own
        (slow if slow_ones else fast).append(call)
    assert len(fast) >= 20 and len(slow) >= 20, (len(fast), len(slow))
    made = {c["func"] for call in slow for c in walk(call)}
    assert handlers <= made and "ipc_call" in made, made
    assert max(c["depth"] for call in slow for c in walk(call)) >= 3


def test_a_thread_that_exits_inside_a_call_ends_it_as_exited(spoor):
    out = spoor.command("trace graph thread_exit")
    assert GRAPH.search(out), out
    pid = run_pid(spoor, "run hello", "hello:")
    trace = saved(spoor, "graph-exit")
    roots, open_calls = calls(trace, pid)
    threads = [key for key in roots if key[0] == pid]
    assert threads and not [key for key in open_calls if key[0] == pid], open_calls
    for key in threads:
        last = roots[key][-1]
        assert last["func"] == "thread_exit" and last["end"] == ENDS["exited"], last
        # the calls under way when it switched away for good (thread_exit down to the
        # switch) end exited, a chain of last callees; every other call returned
        exited = [c for c in walk(last) if c["end"] == ENDS["exited"]]
        assert exited[0] is last and "schedule" in [c["func"] for c in exited], exited
        for caller, callee in zip(exited, exited[1:]):
            assert callee is caller["callees"][-1], (caller["func"], callee["func"])
        ended = {id(c) for c in exited}
        assert all(c["end"] == ENDS["returned"] for c in walk(last) if id(c) not in ended)
        check_nesting_and_code(last)
        # nothing of the thread is recorded after its exit
        events = [e for e in trace.events if (e.pid, e.tid) == key and e.kind in (ENTRY, EXIT)]
        assert events[-1].kind == EXIT and events[-1].words[3] == ENDS["exited"]


def spoor_trace(*args):
    """spoor-trace's standard output; it must succeed."""
    done = subprocess.run([str(SPOOR_TRACE), *map(str, args)], capture_output=True, text=True,
                          timeout=300, check=True)
    return done.stdout


def test_spoor_trace_prints_draws_and_folds_the_graph(spoor, tmp_path):
    """text as function_graph prints it (a brace a call), a JSON slice a call on its thread, the
    folded stacks weighted by each call's own time: all as the events say."""
    spoor.command("trace graph sys_getpid")
    pid = run_pid(spoor, "run ipcping 10", "ipcping:")
    trace = saved(spoor, "graph-host")
    path = spoor.traces / "graph-host.spoor"
    roots, _ = calls(trace, pid)
    mine = [call for (p, _), rs in roots.items() if p == pid for call in rs]
    text = spoor_trace("text", path)
    us = r"(\d+)\.(\d{3}) us"
    opened = re.findall(rf"pid={pid} tid=\d+ comm=ipcping \|\s+\|  sys_getpid\(\) \{{$", text,
                        re.M)
    # a call that made none is two lines too: the text keeps one line an event
    callee = re.findall(rf"pid={pid} .*\|\s+\|    process_current\(\) \{{$", text, re.M)
    leaves = re.findall(rf"pid={pid} .*\| +{us} \|    \}} /\* process_current \*/$", text, re.M)
    closed = re.findall(rf"pid={pid} .*\| +{us} \|  \}} /\* sys_getpid \*/$", text, re.M)
    assert len(opened) == len(callee) == len(leaves) == len(closed) == len(mine), \
        (len(opened), len(callee), len(mine))
    assert [int(a) * 1000 + int(b) for a, b in closed] == [call["ns"] for call in mine]
    out = tmp_path / "graph.json"
    spoor_trace("perfetto", path, out)
    slices = [e for e in json.loads(out.read_text())["traceEvents"]
              if e.get("ph") == "X" and e.get("pid") == pid and e.get("cat") == "func"]
    assert sorted({e["name"] for e in slices}) == ["process_current", "sys_getpid"], slices[:3]
    assert sum(e["name"] == "sys_getpid" for e in slices) == len(mine)
    folded = dict(line.rsplit(" ", 1) for line in
                  spoor_trace("flamegraph", "--folded", "--graph", path).splitlines())
    own = sum(call["ns"] - call["callees"][0]["ns"] for call in mine)
    assert int(folded["ipcping;sys_getpid_[k]"]) == own, folded
    assert int(folded["ipcping;sys_getpid_[k];process_current_[k]"]) == \
        sum(call["callees"][0]["ns"] for call in mine), folded


def test_calls_past_the_depth_are_counted_not_recorded(spoor):
    before = int(PAST.search(spoor.command("trace graph sys_getpid depth=1")).group(1))
    pid = run_pid(spoor, "run ipcping 10", "ipcping:")
    trace = saved(spoor, "graph-depth")
    after = int(PAST.search(spoor.command("trace graph off")).group(1))
    roots, _ = calls(trace, pid)
    mine = [call for (p, _), rs in roots.items() if p == pid for call in rs]
    # each getpid calls process_current (test_graph_of_getpid...): one call past depth 1
    assert mine and all(not call["callees"] for call in mine), mine[:3]
    assert after - before >= len(mine), (before, after, len(mine))


@pytest.mark.parametrize("line,answer", [
    ("trace graph", "trace: usage: trace graph FUNC... [depth=N]|off"),
    ("trace graph off sys_getpid", "trace: usage: trace graph FUNC... [depth=N]|off"),
    ("trace graph ipc_[", "trace: bad function pattern 'ipc_['"),
    ("trace graph nosuch_function", "trace: no traceable kernel function matches "
                                    "'nosuch_function'"),
    ("trace graph sys_getpid depth=33", "trace: bad depth 'depth=33' (depth=N, N from 1 to 32)"),
    ("trace graph sys_getpid depth=x", "trace: bad depth 'depth=x'"),
], ids=["no function", "off with one", "bad glob", "no such function", "too deep", "no number"])
def test_bad_graphs_get_one_line_and_change_nothing(spoor, line, answer):
    out = spoor.command(line)
    assert answer in out, out
    assert "sys_getpid traceable" in spoor.command("trace func list sys_getpid")


def test_graph_and_trace_func_exclude_each_other(spoor):
    assert GRAPH.search(spoor.command("trace graph sys_getpid"))
    out = spoor.command("trace func ipc_call")
    assert "trace: the graph is on (trace graph off first)" in out, out
    assert "sys_getpid traceable: the graph's root" in spoor.command("trace func list sys_getpid")
    spoor.command("trace graph off")
    assert "1 kernel functions traced" in spoor.command("trace func ipc_call")
    out = spoor.command("trace graph sys_getpid")
    assert "trace: kernel functions are traced (trace func off first)" in out, out
    spoor.command("trace func off")


def test_graph_on_and_off_under_load_keeps_the_machine_and_ledger(boot):
    """The graph of every system call's handler goes on and off while tracegen
    writes on every CPU of 4: calls under way when it goes off still return
    through their hooks; every tracegen event recorded, every CPU's ledger exact."""
    spoor = boot(smp=4)
    spoor.command("trace on test")
    flip_under_tracegen(spoor, 4, 100000, lambda _: (
        ("trace graph sys_*", GRAPH.pattern), ("trace graph off", PAST.pattern)), rounds_max=3)
    status(spoor)
    assert "ipc_call traceable" in spoor.command("trace func list ipc_call")
