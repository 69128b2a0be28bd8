#!/usr/bin/env python3
"""The script-level checks of spoor-trace's converters, against the tools
people open their output with.

    check_converters.py SPOOR_TRACE GEN NODE_MODULES

writes test traces with GEN (the sample, the lossy sample, an empty one,
random ones),
converts each and checks, for each file:

- ctf: `babeltrace2 DIR` reads it with no warning when nothing was lost,
  shows the text's events (same count, names, times to the microsecond,
  cpu/pid/tid/comm and every field value, named values by their enum
  label; a system call's result that is no error by the label "ok" and
  its number, never as <unknown>), names the trace after the file and
  gives it a UUID, one a file;
- perfetto: the JSON loads; every event has ph, ts, pid and tid; slices
  are whole (X) with a name and cat; every flow id has one s and one f,
  in that order; the slices of a CPU track never overlap; page faults and
  user events are there as many times as in the text; and Chrome
  DevTools' trace engine (devtools/load_trace.mjs, from NODE_MODULES)
  loads it with no error and no warning, its Samples handler finding the
  text's prof_sample events as CPU profiles;
- losses: the three formats place each loss by one rule (abi/trace_file.h
  LOSS PLACEMENT): at the first event its CPU kept after it, else at that
  CPU's last event, else at the trace's first; the text by the marker's
  place, babeltrace2 by the end of its discarded events, the JSON by its
  "loss" instant on the CPU's track;
- timeline: the SVG parses as XML and has a lane per CPU, whose page-fault
  and IPC strips count the text's events of that CPU (check_timeline.py
  measures the rest on traces made for it);
- the command line: usage and exit status 2 for wrong arguments, one
  "byte N" line and exit status 2 for a corrupt file, usage and exit
  status 0 for -h and --help, an output that exists left alone (exit
  status 2) unless -f.

check_file(tool, path, workdir, devtools) runs the per-file checks on any
saved trace, so a system test can call it on a file `trace save` wrote:

    sys.path.insert(0, "tests/host/spoor_trace")
    from check_converters import check_file
    check_file("build/host/spoor-trace", "build/traces/t.spoor", tmp_path,
               "build/host/devtools/node_modules")

With devtools=None the JSON skips DevTools' engine, which a caller must
say; a devtools folder without the engine in it fails the check.

It raises AssertionError naming the first thing wrong.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

PERFETTO_CPU_PID = 0x7FFFFFF0  # tools/spoor-trace/perfetto.h
DEVTOOLS_ENGINE = os.path.join("@paulirish", "trace_engine", "analyze-trace.mjs")  # load_trace.mjs

TEXT_LINE = re.compile(r"^\[\s*(\d+)\.(\d{6})\] cpu=(\d+) pid=(\d+) tid=(\d+) comm=(\S+) (\S+)(.*)$")
FIELD = re.compile(r' (\w+)=("(?:[^"\\]|\\.)*"|\S+)')
LOST_LINE = re.compile(r"^# lost (\d+) events on cpu (\d+)$")
END_LINE = re.compile(r"^# end of dump: (\d+) events, (\d+) lost$")
# With a hostname in the environment, babeltrace2 prints it (the trace's name) first.
BT_LINE = re.compile(r"^\[(\d+)\.(\d{9})\] (\S+) (\S+): \{ cpu_id = (\d+) \}, (.*)$")
BT_DISCARDED = re.compile(
    r'^WARNING: Tracer discarded (\d+) events? between \[[\d.]+\] and \[(\d+)\.(\d{9})\] '
    r'in trace "([^"]*)" \(UUID: ([0-9a-f-]{36})\) within stream "[^"]*stream_(\d+)"')
BT_ENUM = re.compile(r'^\( (?:"(.*)"|<unknown>) : container = (-?\d+) \)$')
# The label of every value of a list of errors that is none (tools/spoor-trace/ctf.c).
BT_SUCCESS = "ok"
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
LOST_INSTANT = re.compile(r"^lost (\d+) events$")


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, check=False)


def unquote(v):
    return v[1:-1] if len(v) >= 2 and v[0] == '"' and v[-1] == '"' else v


def graph_kind(rest):
    """The kind of a function graph's text line, from what follows its prefix's "|"
    (tools/spoor-trace/graph.h): an exit closes its brace with a comment."""
    return "graph_exit" if rest.endswith("*/") else "graph_entry"


def text_events(tool, path, losses=None):
    """The text's events as (us, cpu, pid, tid, name, {field: value}, comm), and the loss
    total; each loss marker appended to losses as (cpu, count, index of the next event)."""
    r = run([tool, "text", path])
    assert r.returncode == 0, f"text {path}: exit {r.returncode}: {r.stderr}"
    lines = r.stdout.splitlines()
    events, lost = [], 0
    for line in lines[:-1]:
        if line.startswith("    ") and events:  # a frame of the event's call stack, or its cut
            if not line.startswith("    ... ") and events[-1][5] is not None:
                fields = events[-1][5]
                fields["stack_len"] = str(int(fields.get("stack_len", "0")) + 1)
            continue
        m = LOST_LINE.match(line)
        if m:
            lost += int(m.group(1))
            if losses is not None:
                losses.append((int(m.group(2)), int(m.group(1)), len(events)))
            continue
        m = TEXT_LINE.match(line)
        assert m, f"text {path}: not an event line: {line!r}"
        us = int(m.group(1)) * 1000000 + int(m.group(2))
        comm, name, rest = m.group(6), m.group(7), m.group(8)
        fields = {k: unquote(v) for k, v in FIELD.findall(rest)}
        if name == "|":  # the function graph's line (tools/spoor-trace/graph.h): no fields
            name, fields = graph_kind(rest), None
        if name.startswith("kind="):  # a kind the table does not know
            name = "kind_" + name[5:]
        if name.startswith("user:") and ("<bad>" in fields.values() or "<bad length" in rest):
            # A payload that does not fit its definition (the kernel refuses to write
            # one): CTF has no field type for <bad>, and keeps it raw (tools/spoor-trace/ctf.h).
            name, fields = "user", None
        events.append((us, int(m.group(3)), int(m.group(4)), int(m.group(5)), name, fields, comm))
    m = END_LINE.match(lines[-1]) if lines else None
    assert m, f"text {path}: no end line"
    assert int(m.group(1)) == len(events), f"text {path}: the end line counts {m.group(1)} events"
    assert int(m.group(2)) == lost, f"text {path}: the end line counts {m.group(2)} lost"
    return events, lost


def split_top(s):
    """The comma-separated items of a babeltrace2 { ... } body, quotes and brackets respected."""
    items, depth, quoted, cur, i = [], 0, False, "", 0
    while i < len(s):
        c = s[i]
        if quoted:
            cur += c
            if c == "\\" and i + 1 < len(s):
                cur += s[i + 1]
                i += 1
            elif c == '"':
                quoted = False
        elif c == '"':
            quoted, cur = True, cur + c
        elif c in "[{":
            depth, cur = depth + 1, cur + c
        elif c in "]}":
            depth, cur = depth - 1, cur + c
        elif c == "," and depth == 0:
            items.append(cur.strip())
            cur = ""
        else:
            cur += c
        i += 1
    if cur.strip():
        items.append(cur.strip())
    return items


def braces(s):
    """The { ... } groups at the top of s."""
    groups, depth, quoted, start = [], 0, False, 0
    for i, c in enumerate(s):
        if quoted:
            if c == '"' and s[i - 1] != "\\":
                quoted = False
        elif c == '"':
            quoted = True
        elif c == "{":
            if depth == 0:
                start = i + 1
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                groups.append(s[start:i])
    return groups


def bt_value(v):
    """A babeltrace2 value the way the text shows it."""
    v = v.strip()
    m = BT_ENUM.match(v)
    if m:  # an enum: the text shows a value's name, or the number of one without
        return m.group(1) if m.group(1) not in (None, BT_SUCCESS) else m.group(2)
    if v.startswith("["):  # a byte array: the text shows its hex digits
        return "".join("%02x" % int(x, 0) for x in re.findall(r"\] = (0x[0-9A-Fa-f]+|\d+)", v))
    if v.startswith('"'):
        return re.sub(r"\\(.)", r"\1", v[1:-1])  # babeltrace2 escapes \\, " and ?
    if v.lower().startswith("0x"):
        return "0x" + v[2:].lower()
    return v


def ctf_events(out, trace):
    """babeltrace2's lines as text_events() gives the text's; each names the trace."""
    events = []
    for line in out.splitlines():
        m = BT_LINE.match(line)
        assert m, f"babeltrace2: a line not understood: {line!r}"
        assert m.group(3) == trace, f"babeltrace2: host {m.group(3)}, not the trace's name {trace}"
        us = int(m.group(1)) * 1000000 + int(m.group(2)) // 1000
        ctx, payload = (braces(m.group(6)) + [""])[:2]
        c = dict(i.split(" = ", 1) for i in split_top(ctx))
        fields = {}
        for item in split_top(payload):
            k, v = item.split(" = ", 1)
            fields[k] = bt_value(v)
            success = BT_ENUM.match(v.strip())
            if k == "result" and success and int(success.group(2)) >= 0:
                assert success.group(1) == BT_SUCCESS, \
                    f"babeltrace2: {m.group(4)} succeeded, its result shows as {v.strip()}"
        # A kind's call stack: its length is the text's count of frame lines (an event
        # without one, of a kind others of which carry one, has length 0: check_ctf()).
        fields.pop("stack", None)
        fields.pop("stack_names", None)
        if fields.get("name") == "" and "nr" in fields:
            del fields["name"]  # a syscall the durable names do not know: the text shows none
        events.append((us, int(c["cpu"]), int(c["pid"]), int(c["tid"]), m.group(4), fields,
                       bt_value(c["comm"])))
    return events


def trace_name(path):
    """The name spoor-trace gives the trace of the file at path: its own, without .spoor."""
    base = os.path.basename(path)
    return base[: -len(".spoor")] if base.endswith(".spoor") else base


def loss_places(text, losses):
    """Where the rule (abi/trace_file.h LOSS PLACEMENT) puts each loss, as sorted
    (cpu, us, count), counts of one CPU and time added up."""
    places = {}
    first = min((e[0] for e in text), default=0)
    for cpu, count, at in losses:
        after = [e[0] for e in text[at:] if e[1] == cpu]
        before = [e[0] for e in text[:at] if e[1] == cpu]
        us = after[0] if after else before[-1] if before else first
        places[(cpu, us)] = places.get((cpu, us), 0) + count
    return merge_places([(c, us, n) for (c, us), n in places.items()])


def merge_places(places):
    """places sorted, those of one CPU less than a microsecond apart (the formats round
    times differently) as one."""
    out = []
    for cpu, us, n in sorted(places):
        if out and out[-1][0] == cpu and us - out[-1][1] <= 1:
            out[-1] = (cpu, out[-1][1], out[-1][2] + n)
        else:
            out.append((cpu, us, n))
    return out


def same_places(got, want, what):
    ok = len(got) == len(want) and all(
        g[0] == w[0] and g[2] == w[2] and abs(g[1] - w[1]) <= 1 for g, w in zip(got, want))
    assert ok, f"{what}: losses (cpu, us, count) at {got}, the text's rule puts them at {want}"


def check_ctf(tool, path, workdir, text, lost, losses):
    """Returns the trace's UUID."""
    out = os.path.join(workdir, "ctf")
    name = trace_name(path)
    shutil.rmtree(out, ignore_errors=True)
    r = run([tool, "ctf", path, out])
    assert r.returncode == 0, f"ctf {path}: exit {r.returncode}: {r.stderr}"
    r = run(["babeltrace2", out, "-c", "sink.text.details"])
    assert r.returncode == 0, f"babeltrace2 {out}: exit {r.returncode}: {r.stderr}"
    if text or lost:
        found = re.findall(r"^  Trace `([^`]*)`:\n    UUID: (\S+)$", r.stdout, re.MULTILINE)
        assert found and all(f == found[0] for f in found), f"babeltrace2 {out}: traces {found}"
        assert found[0][0] == name, f"babeltrace2 {out}: trace {found[0][0]!r}, not {name!r}"
        uuid = found[0][1]
        assert UUID.match(uuid), f"babeltrace2 {out}: UUID {uuid!r}"
    else:
        uuid = None  # no event and no loss, no stream: babeltrace2 shows no trace
    r = run(["babeltrace2", "--clock-seconds", "--no-delta", out])
    assert r.returncode == 0, f"babeltrace2 {out}: exit {r.returncode}: {r.stderr}"
    warnings = [l for l in r.stderr.splitlines() if l.strip()]
    discarded = []
    for w in warnings:
        m = BT_DISCARDED.match(w)
        assert m and lost, f"babeltrace2 {out}: {w}"
        assert m.group(4) == name and m.group(5) == uuid, f"babeltrace2 {out}: {w}"
        us = int(m.group(2)) * 1000000 + int(m.group(3)) // 1000
        discarded.append((int(m.group(6)), us, int(m.group(1))))
    total = sum(d[2] for d in discarded)
    assert total == lost, f"babeltrace2 {out}: {total} events discarded, the text lost {lost}"
    same_places(merge_places(discarded), loss_places(text, losses), f"babeltrace2 {out}")
    got = ctf_events(r.stdout, name)
    assert len(got) == len(text), f"babeltrace2 {out}: {len(got)} events, the text {len(text)}"
    # Only the kinds of which some event carries a stack have the stack fields.
    stacked = {t[4] for t in text if t[5] and "stack_len" in t[5]}
    for g in got:
        if g[4] in stacked and g[5].get("stack_len") == "0":
            del g[5]["stack_len"]
        assert g[4] in stacked or "stack_len" not in g[5], \
            f"ctf {g[4]} at {g[0]} us: stack fields, though no {g[4]} carries a stack"
    # Each CPU's own order is exact in both; across CPUs, events of one instant
    # may come in either order, and the two round times to the microsecond apart.
    for cpu in sorted({e[1] for e in text}):
        mine = [e for e in got if e[1] == cpu]
        theirs = [e for e in text if e[1] == cpu]
        assert len(mine) == len(theirs), f"ctf cpu {cpu}: {len(mine)} events, the text {len(theirs)}"
        for g, t in zip(mine, theirs):
            assert abs(g[0] - t[0]) <= 1 and g[1:5] == t[1:5], f"ctf {g[:5]} is text {t[:5]}"
            assert g[6] == t[6], f"ctf {g[4]} at {g[0]} us: comm {g[6]}, the text {t[6]}"
            assert t[5] is None or g[5] == t[5], \
                f"ctf {g[4]} at {g[0]} us: fields {g[5]}, the text {t[5]}"
    return uuid


def check_devtools_installed(modules):
    """DevTools' engine is in modules: without it the check cannot run, which is a
    failure said as such, not node's "cannot find module" among the engine's own
    complaints, nor a refusal check_devtools_refuses would take for the engine's."""
    assert os.path.isfile(os.path.join(modules, DEVTOOLS_ENGINE)), \
        f"DevTools' trace engine is not installed in {modules} (make test-host and " \
        "make test-system install it)"


def check_devtools(modules, out):
    """Chrome DevTools' trace engine loads the JSON at out with no error or warning;
    returns the number of samples its Samples handler found."""
    check_devtools_installed(modules)
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "devtools", "load_trace.mjs")
    r = run(["node", script, modules, out])
    assert r.returncode == 0, f"DevTools' trace engine: {(r.stdout + r.stderr).strip()}"
    return int(re.search(r"(\d+) samples in \d+ profiles", r.stdout).group(1))


def check_devtools_refuses(modules, workdir):
    """The DevTools check fails on what made the engine fail before: B/E slices whose E
    has no name (it throws), and a B and E of two threads' slices interleaved (a
    "Begin/End events mismatch" error: it keeps one stack for all threads)."""
    check_devtools_installed(modules)
    for name, events in (
        ("no name", [{"ph": "B", "ts": 1, "pid": 1, "tid": 1, "cat": "syscall", "name": "write"},
                     {"ph": "E", "ts": 2, "pid": 1, "tid": 1}]),
        ("interleaved", [{"ph": "B", "ts": 1, "pid": 1, "tid": 1, "cat": "ipc", "name": "ipc_call"},
                         {"ph": "B", "ts": 2, "pid": 2, "tid": 2, "cat": "syscall", "name": "write"},
                         {"ph": "E", "ts": 3, "pid": 1, "tid": 1, "cat": "ipc", "name": "ipc_call"},
                         {"ph": "E", "ts": 4, "pid": 2, "tid": 2, "cat": "syscall", "name": "write"}]),
    ):
        out = os.path.join(workdir, "bad.json")
        with open(out, "w") as f:
            json.dump({"traceEvents": events}, f)
        try:
            check_devtools(modules, out)
        except AssertionError:
            continue
        raise AssertionError(f"the DevTools check passes B/E events with {name}")


def fresh(path):
    """path, with whatever an earlier check wrote there removed (spoor-trace keeps it)."""
    if os.path.exists(path):
        os.remove(path)
    return path


def check_perfetto(tool, path, workdir, text, losses, devtools):
    out = fresh(os.path.join(workdir, "trace.json"))
    r = run([tool, "perfetto", path, out])
    assert r.returncode == 0, f"perfetto {path}: exit {r.returncode}: {r.stderr}"
    with open(out) as f:
        doc = json.load(f)
    events = doc["traceEvents"]
    threads, flows, cpus, lost = {}, {}, {}, []
    for i, e in enumerate(events):
        for k in ("ph", "ts", "pid", "tid"):
            assert k in e, f"perfetto: event {i} has no {k}: {e}"
        assert e["ph"] not in "BE", f"perfetto: a B/E slice, not a whole one: {e}"
        if e["ph"] in "Xi":
            assert e.get("name") and e.get("cat"), f"perfetto: event {i} has no name or cat: {e}"
        if e["ph"] == "X" and e["pid"] != PERFETTO_CPU_PID:
            threads.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"]))
        elif e["ph"] in "sf":
            flows.setdefault(e["id"], []).append((e["ph"], e["ts"]))
        elif e["ph"] == "X":
            cpus.setdefault(e["tid"], []).append((e["ts"], e["ts"] + e["dur"]))
        elif e["ph"] == "M" and e["name"] == "thread_name" and e["pid"] == 0:
            # A thread of no process is a CPU's idle thread: named so, whatever its tid.
            assert not e["args"]["name"].startswith("tid "), f"perfetto: idle thread {e}"
        elif e["ph"] == "i" and e["cat"] == "loss":
            assert e["pid"] == PERFETTO_CPU_PID, f"perfetto: a loss off the CPU tracks: {e}"
            m = LOST_INSTANT.match(e["name"])
            assert m, f"perfetto: a loss named {e['name']!r}"
            assert m.group(1) == str(e["args"]["lost"]), f"perfetto: a loss's args {e}"
            lost.append((e["args"]["cpu"], int(e["ts"]), int(m.group(1))))
            assert e["tid"] == PERFETTO_CPU_PID + 1 + e["args"]["cpu"], f"perfetto: {e} off its CPU"
    same_places(merge_places(lost), loss_places(text, losses), "perfetto")
    for t, spans in threads.items():
        # A thread's slices nest: one that starts inside another ends inside it.
        open_ = []
        for a0, a1 in sorted(spans, key=lambda sp: (sp[0], -sp[1])):
            while open_ and a0 >= open_[-1] - 1e-6:
                open_.pop()
            assert not open_ or a1 <= open_[-1] + 1e-6, f"perfetto: thread {t}: {a0}..{a1} crosses"
            open_.append(a1)
    for i, fl in flows.items():
        assert sorted(p for p, _ in fl) == ["f", "s"], f"perfetto: flow {i} is {fl}"
        s = [ts for p, ts in fl if p == "s"][0]
        f = [ts for p, ts in fl if p == "f"][0]
        assert s <= f, f"perfetto: flow {i} ends before it starts"
    for t, spans in cpus.items():
        spans.sort()
        for (a0, a1), (b0, _) in zip(spans, spans[1:]):
            assert b0 >= a1 - 1e-6, f"perfetto: cpu track {t}: {a0}..{a1} overlaps {b0}"
    for kind, name in (("mem_pf", "page fault"), ("user", None)):
        want = sum(1 for e in text if e[4] == kind or (kind == "user" and e[4].startswith("user")))
        got = sum(
            1
            for e in events
            if e["ph"] == "i" and (e["name"] == name if name else e.get("cat") == "user")
        )
        assert got == want, f"perfetto: {got} {kind} instants, the text has {want}"
    if devtools:
        # The profiler's samples, as CPU profiles the Performance panel draws.
        samples = check_devtools(devtools, out)
        want = sum(1 for e in text if e[4] == "prof_sample")
        assert samples == want, f"DevTools' engine: {samples} samples, the text {want}"


def check_timeline(tool, path, workdir, text):
    out = fresh(os.path.join(workdir, "trace.svg"))
    r = run([tool, "timeline", path, out])
    assert r.returncode == 0, f"timeline {path}: exit {r.returncode}: {r.stderr}"
    root = ET.parse(out).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg", f"timeline: root {root.tag}"
    lanes = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text") if t.text and re.fullmatch(r"cpu \d+", t.text)]
    assert lanes and lanes == [f"cpu {i}" for i in range(len(lanes))], f"timeline: lanes {lanes}"
    svg = "{http://www.w3.org/2000/svg}"
    for g in root.iter(svg + "g"):
        cpu = int(g.get("id", "cpu-1")[3:])
        for cls, kinds in (("pf", ("mem_pf",)), ("ipc", ("ipc_call", "ipc_reply"))):
            got = sum(int(r.find(svg + "title").text.split()[0]) for r in g.iter(svg + "rect")
                      if r.get("class") == cls)
            want = sum(1 for e in text if e[1] == cpu and e[4] in kinds)
            assert got == want, f"timeline: cpu {cpu}: the {cls} strip counts {got}, the text {want}"


def check_file(tool, path, workdir, devtools):
    """Every converter's checks on the saved trace at path; raises AssertionError.
    devtools: DevTools' node_modules, or None to leave its engine out (the caller
    says so; no default leaves it out unsaid). Returns the UUID of its CTF (None
    when it has no events)."""
    losses = []
    text, lost = text_events(tool, path, losses)
    uuid = check_ctf(tool, path, workdir, text, lost, losses)
    check_perfetto(tool, path, workdir, text, losses, devtools)
    check_timeline(tool, path, workdir, text)
    return uuid


def check_command_line(tool, workdir, good):
    for args in ([], ["dump", good], ["text"], ["ctf", good], ["text", good, "extra"]):
        r = run([tool] + args)
        assert r.returncode == 2, f"spoor-trace {args}: exit {r.returncode}"
        assert "usage: spoor-trace text FILE" in r.stderr, f"spoor-trace {args}: no usage"
    bad = os.path.join(workdir, "bad.spoor")
    with open(good, "rb") as f:
        data = f.read()
    with open(bad, "wb") as f:
        f.write(data[:300])
    r = run([tool, "text", bad])
    assert r.returncode == 2 and r.stdout == "", f"a cut file: exit {r.returncode}"
    assert re.fullmatch(rf"spoor-trace: {re.escape(bad)}: byte \d+: [^\n]+\n", r.stderr), r.stderr
    r = run([tool, "text", os.path.join(workdir, "missing.spoor")])
    assert r.returncode == 2, f"a missing file: exit {r.returncode}"
    other = os.path.join(workdir, "not-a-trace")
    os.makedirs(other, exist_ok=True)
    open(os.path.join(other, "notes.txt"), "w").close()
    r = run([tool, "-f", "ctf", good, other])
    assert r.returncode == 2 and os.listdir(other) == ["notes.txt"], "ctf wrote into a foreign directory"
    for args in (["-h"], ["--help"]):
        r = run([tool] + args)
        assert r.returncode == 0 and r.stderr == "", f"spoor-trace {args}: exit {r.returncode}"
        assert "usage: spoor-trace text FILE" in r.stdout, f"spoor-trace {args}: no usage"
    check_no_overwrite(tool, workdir, good)


def check_no_overwrite(tool, workdir, good):
    """Each converter leaves an output that exists alone, unless -f, which replaces it."""
    for command, name in (("perfetto", "kept.json"), ("timeline", "kept.svg"), ("ctf", "kept-ctf"),
                          ("tracedat", "kept.dat")):
        out = os.path.join(workdir, name)
        r = run([tool, command, good, out])
        assert r.returncode == 0, f"{command} to a new {name}: exit {r.returncode}: {r.stderr}"
        stamp = os.stat(out).st_mtime_ns
        r = run([tool, command, good, out])
        assert r.returncode == 2 and f"{out} exists" in r.stderr, \
            f"{command} over {name}: exit {r.returncode}: {r.stderr}"
        assert os.stat(out).st_mtime_ns == stamp, f"{command} changed {name} it refused"
        r = run([tool, "-f", command, good, out])
        assert r.returncode == 0, f"{command} -f over {name}: exit {r.returncode}: {r.stderr}"


def main(argv):
    if len(argv) != 4:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    tool, gen, devtools = argv[1:]
    if not shutil.which("babeltrace2"):
        print("check_converters: babeltrace2 is not installed (make deps)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="spoor-trace-check.") as workdir:
        files = []
        stacks = ["stacks", "0x401004", "0x401010", "0x401020", "0xffffffff80101234"]
        for name, args in [("sample", ["sample"]), ("lossy", ["lossy"]), ("empty", ["empty"]),
                           ("stacks", stacks)] + [
            (f"random{n}", ["random", str(n)]) for n in range(1, 9)
        ]:
            path = os.path.join(workdir, name + ".spoor")
            r = run([gen, path] + args)
            assert r.returncode == 0, f"{gen} {path}: {r.stderr}"
            files.append(path)
        path = "the command line"
        try:
            check_command_line(tool, workdir, files[0])
            check_devtools_refuses(devtools, workdir)
            uuids = set()
            for path in files:
                uuid = check_file(tool, path, workdir, devtools)
                assert uuid is None or uuid not in uuids, f"UUID {uuid} again"
                uuids.add(uuid)
        except AssertionError as e:
            print(f"check_converters: FAIL {os.path.basename(path)}: {e}")
            return 1
    print(f"check_converters: {len(files)} files through babeltrace2, DevTools, json and xml: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
