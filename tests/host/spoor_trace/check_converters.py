#!/usr/bin/env python3
"""The script-level checks of spoor-trace's converters, against the tools
people open their output with.

    check_converters.py SPOOR_TRACE GEN

writes test traces with GEN (the sample, the lossy sample, an empty one,
random ones),
converts each and checks, for each file:

- ctf: `babeltrace2 DIR` reads it with no warning when nothing was lost,
  shows the text's events (same count, names, times to the microsecond,
  cpu/pid/tid and every field value), and reports discarded events adding
  up to the text's `# lost` total when something was;
- perfetto: the JSON loads; every event has ph, ts, pid and tid; B and E
  balance per thread; every flow id has one s and one f, in that order;
  the slices of a CPU track never overlap; page faults and user events
  are there as many times as in the text;
- timeline: the SVG parses as XML and has a lane per CPU;
- the command line: usage and exit status 2 for wrong arguments, one
  "byte N" line and exit status 2 for a corrupt file, usage and exit
  status 0 for -h and --help, an output that exists left alone (exit
  status 2) unless -f.

check_file(tool, path, workdir) runs the per-file checks on any saved
trace, so a system test can call it on a file `trace save` wrote:

    sys.path.insert(0, "tests/host/spoor_trace")
    from check_converters import check_file
    check_file("build/host/spoor-trace", "build/traces/t.spoor", tmp_path)

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

TEXT_LINE = re.compile(r"^\[\s*(\d+)\.(\d{6})\] cpu=(\d+) pid=(\d+) tid=(\d+) comm=\S+ (\S+)(.*)$")
FIELD = re.compile(r' (\w+)=("(?:[^"\\]|\\.)*"|\S+)')
LOST_LINE = re.compile(r"^# lost (\d+) events on cpu (\d+)$")
END_LINE = re.compile(r"^# end of dump: (\d+) events, (\d+) lost$")
BT_LINE = re.compile(r"^\[(\d+)\.(\d{9})\] (\S+): \{ cpu_id = (\d+) \}, (.*)$")
BT_DISCARDED = re.compile(r"^WARNING: Tracer discarded (\d+) events? between ")


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, check=False)


def unquote(v):
    return v[1:-1] if len(v) >= 2 and v[0] == '"' and v[-1] == '"' else v


def text_events(tool, path):
    """The text's events as (us, cpu, pid, tid, name, {field: value}), and the loss total."""
    r = run([tool, "text", path])
    assert r.returncode == 0, f"text {path}: exit {r.returncode}: {r.stderr}"
    lines = r.stdout.splitlines()
    events, lost = [], 0
    for line in lines[:-1]:
        m = LOST_LINE.match(line)
        if m:
            lost += int(m.group(1))
            continue
        m = TEXT_LINE.match(line)
        assert m, f"text {path}: not an event line: {line!r}"
        us = int(m.group(1)) * 1000000 + int(m.group(2))
        name, rest = m.group(6), m.group(7)
        fields = {k: unquote(v) for k, v in FIELD.findall(rest)}
        if name.startswith("kind="):  # a kind the table does not know
            name = "kind_" + name[5:]
        if name.startswith("user:") and ("<bad>" in fields.values() or "<bad length" in rest):
            # A payload that does not fit its definition (the kernel refuses to write
            # one): CTF has no field type for <bad>, and keeps it raw (tools/spoor-trace/ctf.h).
            name, fields = "user", None
        events.append((us, int(m.group(3)), int(m.group(4)), int(m.group(5)), name, fields))
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
    if v.startswith("["):  # a byte array: the text shows its hex digits
        return "".join("%02x" % int(x, 0) for x in re.findall(r"\] = (0x[0-9A-Fa-f]+|\d+)", v))
    if v.startswith('"'):
        return v[1:-1]
    if v.lower().startswith("0x"):
        return "0x" + v[2:].lower()
    return v


def ctf_events(out):
    """babeltrace2's lines as text_events() gives the text's."""
    events = []
    for line in out.splitlines():
        m = BT_LINE.match(line)
        assert m, f"babeltrace2: a line not understood: {line!r}"
        us = int(m.group(1)) * 1000000 + int(m.group(2)) // 1000
        ctx, payload = (braces(m.group(5)) + [""])[:2]
        c = dict(i.split(" = ", 1) for i in split_top(ctx))
        fields = {}
        for item in split_top(payload):
            k, v = item.split(" = ", 1)
            fields[k] = bt_value(v)
        if fields.get("name") == "" and "nr" in fields:
            del fields["name"]  # a syscall the durable names do not know: the text shows none
        events.append((us, int(c["cpu"]), int(c["pid"]), int(c["tid"]), m.group(3), fields))
    return events


def check_ctf(tool, path, workdir, text, lost):
    out = os.path.join(workdir, "ctf")
    shutil.rmtree(out, ignore_errors=True)
    r = run([tool, "ctf", path, out])
    assert r.returncode == 0, f"ctf {path}: exit {r.returncode}: {r.stderr}"
    r = run(["babeltrace2", "--clock-seconds", "--no-delta", out])
    assert r.returncode == 0, f"babeltrace2 {out}: exit {r.returncode}: {r.stderr}"
    warnings = [l for l in r.stderr.splitlines() if l.strip()]
    discarded = 0
    for w in warnings:
        m = BT_DISCARDED.match(w)
        assert m and lost, f"babeltrace2 {out}: {w}"
        discarded += int(m.group(1))
    assert discarded == lost, f"babeltrace2 {out}: {discarded} events discarded, the text lost {lost}"
    got = ctf_events(r.stdout)
    assert len(got) == len(text), f"babeltrace2 {out}: {len(got)} events, the text {len(text)}"
    # Each CPU's own order is exact in both; across CPUs, events of one instant
    # may come in either order, and the two round times to the microsecond apart.
    for cpu in sorted({e[1] for e in text}):
        mine = [e for e in got if e[1] == cpu]
        theirs = [e for e in text if e[1] == cpu]
        assert len(mine) == len(theirs), f"ctf cpu {cpu}: {len(mine)} events, the text {len(theirs)}"
        for g, t in zip(mine, theirs):
            assert abs(g[0] - t[0]) <= 1 and g[1:5] == t[1:5], f"ctf {g[:5]} is text {t[:5]}"
            assert t[5] is None or g[5] == t[5], \
                f"ctf {g[4]} at {g[0]} us: fields {g[5]}, the text {t[5]}"


def fresh(path):
    """path, with whatever an earlier check wrote there removed (spoor-trace keeps it)."""
    if os.path.exists(path):
        os.remove(path)
    return path


def check_perfetto(tool, path, workdir, text):
    out = fresh(os.path.join(workdir, "trace.json"))
    r = run([tool, "perfetto", path, out])
    assert r.returncode == 0, f"perfetto {path}: exit {r.returncode}: {r.stderr}"
    with open(out) as f:
        doc = json.load(f)
    events = doc["traceEvents"]
    threads, flows, cpus = {}, {}, {}
    for i, e in enumerate(events):
        for k in ("ph", "ts", "pid", "tid"):
            assert k in e, f"perfetto: event {i} has no {k}: {e}"
        if e["ph"] in "BE":
            threads.setdefault((e["pid"], e["tid"]), []).append((e["ts"], i, e["ph"]))
        elif e["ph"] in "sf":
            flows.setdefault(e["id"], []).append((e["ph"], e["ts"]))
        elif e["ph"] == "X":
            assert e["pid"] == PERFETTO_CPU_PID, f"perfetto: a slice off the CPU tracks: {e}"
            cpus.setdefault(e["tid"], []).append((e["ts"], e["ts"] + e["dur"]))
    for t, es in threads.items():
        depth = 0
        for ts, i, ph in sorted(es):
            depth += 1 if ph == "B" else -1
            assert depth >= 0, f"perfetto: thread {t}: an E without its B at {ts}"
        assert depth == 0, f"perfetto: thread {t}: {depth} slices left open"
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


def check_timeline(tool, path, workdir):
    out = fresh(os.path.join(workdir, "trace.svg"))
    r = run([tool, "timeline", path, out])
    assert r.returncode == 0, f"timeline {path}: exit {r.returncode}: {r.stderr}"
    root = ET.parse(out).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg", f"timeline: root {root.tag}"
    lanes = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text") if t.text and re.fullmatch(r"cpu \d+", t.text)]
    assert lanes and lanes == [f"cpu {i}" for i in range(len(lanes))], f"timeline: lanes {lanes}"


def check_file(tool, path, workdir):
    """Every converter's checks on the saved trace at path; raises AssertionError."""
    text, lost = text_events(tool, path)
    check_ctf(tool, path, workdir, text, lost)
    check_perfetto(tool, path, workdir, text)
    check_timeline(tool, path, workdir)


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
    for command, name in (("perfetto", "kept.json"), ("timeline", "kept.svg"), ("ctf", "kept-ctf")):
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
    if len(argv) != 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    tool, gen = argv[1], argv[2]
    if not shutil.which("babeltrace2"):
        print("check_converters: babeltrace2 is not installed (make deps)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="spoor-trace-check.") as workdir:
        files = []
        for name, args in [("sample", ["sample"]), ("lossy", ["lossy"]), ("empty", ["empty"])] + [
            (f"random{n}", ["random", str(n)]) for n in range(1, 9)
        ]:
            path = os.path.join(workdir, name + ".spoor")
            r = run([gen, path] + args)
            assert r.returncode == 0, f"{gen} {path}: {r.stderr}"
            files.append(path)
        path = "the command line"
        try:
            check_command_line(tool, workdir, files[0])
            for path in files:
                check_file(tool, path, workdir)
        except AssertionError as e:
            print(f"check_converters: FAIL {os.path.basename(path)}: {e}")
            return 1
    print(f"check_converters: {len(files)} files through babeltrace2, json and xml: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
