#!/usr/bin/env python3
"""The timeline's picture measured against the events it draws.

    check_timeline.py SPOOR_TRACE GEN

GEN writes the timeline's test traces (gen_timeline(): the same programs
and times under other pids in the second, and with no switch in the
third). The events come back through `spoor-trace text`; from them this
script works out, independently of the tool's C, who ran when on each
CPU, and checks for each window, width and filter in CASES that the SVG
draws exactly that:

- each lane's rectangles of class run, idle and other at the x and width
  of the runs' times (a process's runs that touch are one rectangle; idle
  is the idle threads' time, drawn as idle, labelled, and not as a program);
- the page faults and IPC messages as density strips whose counts add up
  to the events in the window, fewer rectangles than events, each over
  the pixels of its events;
- the axis ticks at their offsets from the window's start;
- --cpu: only those lanes; --pid: only those processes in colour and
  counted, the rest "other";
- the same program in the same colour in both files, different programs
  in different colours, idle in none of theirs;
- the legend's times add up to no more than the window on every lane;
- without switches (sched not traced) no one is drawn as running and
  each lane with events says that who ran is not known;
- a bad value: one line on stderr, exit status 2, no picture.
"""

import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"
TEXT_LINE = re.compile(r"^\[\s*(\d+)\.(\d{6})\] cpu=(\d+) pid=(\d+) tid=(\d+) comm=\S+ (\S+)(.*)$")
LOST_LINE = re.compile(r"^# lost (\d+) events on cpu (\d+)$")
FIELD = re.compile(r" (\w+)=(\S+)")
STRIP_TITLE = re.compile(r"^(\d+) (page faults?|IPC calls? (and|or) repl(y|ies))\b")
TICK = re.compile(r"^(\d+(?:\.\d+)?) (s|ms|us|ns)$")
BUSY = re.compile(r"^(?:idle|other programs|.+ \(pid \d+\)): (\d+(?:\.\d+)?) (s|ms|us|ns)$")
UNKNOWN = "who ran is not known"
UNIT_NS = {"s": 10**9, "ms": 10**6, "us": 10**3, "ns": 1}
DEFAULT_WIDTH = 1200
EPS = 0.011  # x and widths are written with two decimals

# (options, what they mean to the model: since/until as (relative?, ns), cpus, pids, width)
CASES = [
    ([], {}),
    (["--width", "500"], {"width": 500}),
    (["--since", "+2ms", "--until", "+6ms"], {"since": (True, 2000000), "until": (True, 6000000)}),
    (["--since=0.0025", "--until", "6500us", "--width=800"],
     {"since": (False, 2500000), "until": (False, 6500000), "width": 800}),
    (["--cpu", "0,2"], {"cpus": {0, 2}}),
    (["--pid", "3"], {"pids": {3}}),
    (["--since", "+0.75ms", "--until", "+1ms", "--cpu", "0-1", "--pid", "3-4", "--width", "400"],
     {"since": (True, 750000), "until": (True, 1000000), "cpus": {0, 1}, "pids": {3, 4},
      "width": 400}),
]

# Options refused, each with exit status 2 and one line.
BAD = [
    ["--width", "0"], ["--width", "99"], ["--width", "100001"], ["--width", "12px"],
    ["--width"], ["--since", "-1"], ["--since", "soon"], ["--since", "1e400"], ["--since", "+1h"],
    ["--until", "inf"], ["--since", "+5ms", "--until", "+1ms"], ["--since", "20"],
    ["--until", "0.0001"], ["--cpu", "3"], ["--cpu", "8"], ["--cpu", "1-0"], ["--cpu", "0,"],
    ["--cpu", ""], ["--pid", "99"], ["--pid", "x"], ["--pid", "0-100"], ["--colour", "red"],
    ["-w", "500"],
]


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, check=False)


def events(tool, path):
    """The text's events as dicts (ns, cpu, pid, tid, kind, fields) and losses, in file order."""
    r = run([tool, "text", path])
    assert r.returncode == 0, f"text {path}: {r.stderr}"
    items = []
    for line in r.stdout.splitlines()[:-1]:
        m = LOST_LINE.match(line)
        if m:
            items.append({"lost": int(m.group(1)), "cpu": int(m.group(2))})
            continue
        m = TEXT_LINE.match(line)
        assert m, f"not an event line: {line!r}"
        items.append({"ns": (int(m.group(1)) * 10**6 + int(m.group(2))) * 1000,
                      "cpu": int(m.group(3)), "pid": int(m.group(4)), "tid": int(m.group(5)),
                      "kind": m.group(6), "fields": dict(FIELD.findall(m.group(7)))})
    return items


def runs(items):
    """Who ran when on each CPU: {cpu: [(start, end, tid)]}, from the switches alone.

    Between two switches of a CPU with nothing lost between, the first's
    next thread ran. A CPU's first switch says its previous thread ran
    since the trace's first event if that switch is the CPU's first event
    and nothing was lost there before, else since the CPU's first event
    (after the loss); the last switch's thread runs until the trace's last
    event, unless a loss came after it. A loss ends what was running at
    the CPU's last event. Events without a switch before them say nothing
    of how long their thread ran: nothing is drawn there."""
    evs = [i for i in items if "ns" in i]
    first, last = min(e["ns"] for e in evs), max(e["ns"] for e in evs)
    out = {}
    # state[cpu]: tid (known from a switch, else None), since, lossy, last event time
    state = {}
    for i in items:
        cpu = i["cpu"]
        st = state.setdefault(cpu, {"tid": None, "since": None, "lossy": False, "last": None})
        if "lost" in i:
            if st["tid"] is not None:
                out.setdefault(cpu, []).append((st["since"], st["last"], st["tid"]))
            state[cpu] = {"tid": None, "since": None, "lossy": True, "last": None}
            continue
        if st["since"] is None:
            switch_first = i["kind"] == "sched_switch" and not st["lossy"]
            st["since"] = first if switch_first else i["ns"]
        st["last"] = i["ns"]
        if i["kind"] != "sched_switch":
            continue
        prev, nxt = int(i["fields"]["prev_tid"]), int(i["fields"]["next_tid"])
        ran = st["tid"] if st["tid"] is not None else prev
        if st["since"] < i["ns"]:
            out.setdefault(cpu, []).append((st["since"], i["ns"], ran))
        st["tid"], st["since"] = nxt, i["ns"]
    for cpu, st in state.items():
        if st["tid"] is not None:
            out.setdefault(cpu, []).append((st["since"], last, st["tid"]))
    return out, first, last


def expected_rects(items, opts, ncpus):
    """{cpu: [(class, x, width, pid)]} as the picture must draw them, and the window."""
    by_cpu, first, last = runs(items)
    pid_of = {}
    for i in items:
        if "ns" in i:
            pid_of[i["tid"]] = i["pid"]
    since = first + opts["since"][1] if opts.get("since", (0, 0))[0] else \
        opts.get("since", (False, first))[1]
    until = first + opts["until"][1] if opts.get("until", (0, 0))[0] else \
        opts.get("until", (False, last))[1]
    width = opts.get("width", DEFAULT_WIDTH)
    cpus = opts.get("cpus", set(range(ncpus)))
    pids = opts.get("pids")

    def x(ns):
        return (ns - since) * width / (until - since)

    rects = {}
    for cpu in sorted(cpus):
        drawn = []
        for start, end, tid in by_cpu.get(cpu, []):
            s, e = max(start, since), min(end, until)
            if s >= e:
                continue
            pid = pid_of.get(tid, 0)
            cls = "idle" if pid == 0 else "run" if pids is None or pid in pids else "other"
            key = (cls, pid if cls == "run" else None)
            if drawn and drawn[-1][0] == key and x(s) - drawn[-1][2] < 0.5:
                drawn[-1][2] = x(e)
            else:
                drawn.append([key, x(s), x(e)])
        rects[cpu] = [(k[0], x0, x1 - x0, k[1]) for k, x0, x1 in drawn]
    return rects, since, until, width


def lanes(root):
    """{cpu: (group, lane rect)} of the picture."""
    out = {}
    for g in root.iter(SVG + "g"):
        m = re.fullmatch(r"cpu(\d+)", g.get("id", ""))
        if m:
            lane = [r for r in g.iter(SVG + "rect") if r.get("class") == "lane"]
            assert len(lane) == 1, f"cpu{m.group(1)}: {len(lane)} lane rectangles"
            out[int(m.group(1))] = (g, lane[0])
    return out


def title(el):
    t = el.find(SVG + "title")
    return t.text if t is not None else ""


def check_runs(name, lane_map, want, width):
    fills = {}
    for cpu, rects in want.items():
        g, lane = lane_map[cpu]
        left = float(lane.get("x"))
        assert abs(float(lane.get("width")) - width) < EPS, \
            f"{name}: cpu {cpu}: the plot is {lane.get('width')} wide, not {width}"
        got = [r for r in g.iter(SVG + "rect") if r.get("class") in ("run", "idle", "other")]
        assert len(got) == len(rects), \
            f"{name}: cpu {cpu}: {len(got)} rectangles, the events make {len(rects)}: " \
            f"{[(r.get('class'), r.get('x'), r.get('width')) for r in got]} vs {rects}"
        for r, (cls, x0, w, pid) in zip(got, rects):
            gx, gw = float(r.get("x")) - left, float(r.get("width"))
            assert r.get("class") == cls, f"{name}: cpu {cpu} at {x0:.2f}: {r.get('class')}, not {cls}"
            assert abs(gx - x0) < EPS and abs(gw - max(w, 0.5)) < EPS, \
                f"{name}: cpu {cpu}: {cls} at x {gx:.2f} width {gw:.2f}, the events say " \
                f"{x0:.2f} width {w:.2f}"
            assert float(r.get("y")) == float(lane.get("y")), f"{name}: cpu {cpu}: off its lane"
            if cls == "run":
                assert f"pid {pid}," in title(r) or f"pid {pid})" in title(r), \
                    f"{name}: cpu {cpu}: run of pid {pid} titled {title(r)!r}"
                fills.setdefault(title(r).split(" ")[0].rstrip(":"), set()).add(r.get("fill"))
            else:
                fills.setdefault(cls, set()).add(r.get("fill"))
    return fills


def check_strips(name, lane_map, items, since, until, width, cpus, pids):
    for cls, kinds in (("pf", {"mem_pf"}), ("ipc", {"ipc_call", "ipc_reply"})):
        for cpu in cpus:
            g, lane = lane_map[cpu]
            left = float(lane.get("x"))
            evs = [i for i in items if "ns" in i and i["cpu"] == cpu and i["kind"] in kinds
                   and since <= i["ns"] <= until and (pids is None or i["pid"] in pids)]
            strips = [r for r in g.iter(SVG + "rect") if r.get("class") == cls]
            counts = []
            for r in strips:
                m = STRIP_TITLE.match(title(r))
                assert m, f"{name}: cpu {cpu}: a {cls} strip titled {title(r)!r}"
                counts.append(int(m.group(1)))
                x0 = float(r.get("x")) - left
                x1 = x0 + float(r.get("width"))
                inside = [e for e in evs if x0 - 1 <= (e["ns"] - since) * width / (until - since) <= x1 + 1]
                assert inside, f"{name}: cpu {cpu}: a {cls} strip at {x0}..{x1} over no event"
            assert sum(counts) == len(evs), \
                f"{name}: cpu {cpu}: the {cls} strips count {sum(counts)}, the window has {len(evs)}"
            # A rectangle covers one pixel column or more: never one a fault.
            columns = {int((e["ns"] - since) * width / (until - since)) for e in evs}
            assert len(strips) <= len(columns), \
                f"{name}: cpu {cpu}: {len(strips)} {cls} marks over {len(columns)} pixels"
            assert not evs or len(evs) < 2 * len(columns) or len(strips) < len(evs) / 2, \
                f"{name}: cpu {cpu}: {len(strips)} {cls} marks for {len(evs)} events: not a density"


def check_busy(name, root, nlanes, since, until):
    """The legend's times (idle, other programs, each program) fit in the window's lanes."""
    busy = 0
    for t in root.iter(SVG + "text"):
        m = BUSY.match(t.text or "")
        if m:
            busy += float(m.group(1)) * UNIT_NS[m.group(2)]
    # Each time is rounded to 2 or 3 digits in the legend.
    assert busy <= (until - since) * nlanes * 1.01, \
        f"{name}: the legend's times add up to {busy / 1e6:.3f} ms, more than " \
        f"{(until - since) / 1e6:.3f} ms on {nlanes} cpus"


def check_unknown(tool, path, workdir):
    """A trace without switches: who ran is known nowhere, and each lane with events says so."""
    items = events(tool, path)
    assert not any(i.get("kind") == "sched_switch" for i in items), "the trace has switches"
    root = picture(tool, path, [], os.path.join(workdir, "unknown.svg"))
    for cpu, (g, _) in lanes(root).items():
        drawn = [(r.get("class"), title(r)) for r in g.iter(SVG + "rect")
                 if r.get("class") in ("run", "idle", "other")]
        assert not drawn, f"no switches: cpu {cpu} drawn as run by {drawn}"
        said = [t.text or "" for t in g.iter(SVG + "text")]
        has_events = any("ns" in i and i["cpu"] == cpu for i in items)
        assert (UNKNOWN in " ".join(said)) == has_events, \
            f"no switches: cpu {cpu} ({'with' if has_events else 'without'} events) says {said}"
    progs = [t.text for t in root.iter(SVG + "text") if BUSY.match(t.text or "")
             and not t.text.startswith("idle")]
    assert not progs, f"no switches: the legend gives programs busy times: {progs}"


def check_axis(name, root, lane_map, since, until, width):
    left = min(float(lane.get("x")) for _, lane in lane_map.values())
    ticks = [(t, float(t.get("x"))) for t in root.iter(SVG + "text") if t.text and TICK.match(t.text)]
    assert len(ticks) >= 3, f"{name}: {len(ticks)} axis ticks"
    assert ticks[0][0].text.split()[0].strip("0.") == "" and abs(ticks[0][1] - left) < EPS, \
        f"{name}: the axis starts at {ticks[0][0].text!r}, x {ticks[0][1]}"
    for t, tx in ticks:
        m = TICK.match(t.text)
        off = float(m.group(1)) * UNIT_NS[m.group(2)]
        assert abs(left + off * width / (until - since) - tx) < 0.02, \
            f"{name}: tick {t.text!r} at x {tx}, its offset says {left + off * width / (until - since)}"


def picture(tool, path, args, out):
    if os.path.exists(out):
        os.unlink(out)
    r = run([tool, "timeline", *args, path, out])
    assert r.returncode == 0, f"timeline {args}: exit {r.returncode}: {r.stderr}"
    return ET.parse(out).getroot()


def check_case(tool, path, args, opts, workdir):
    name = " ".join(args) or "no options"
    items = events(tool, path)
    ncpus = 1 + max(i["cpu"] for i in items)
    want, since, until, width = expected_rects(items, opts, ncpus)
    root = picture(tool, path, args, os.path.join(workdir, "t.svg"))
    lane_map = lanes(root)
    assert sorted(lane_map) == sorted(want), f"{name}: lanes {sorted(lane_map)}, not {sorted(want)}"
    fills = check_runs(name, lane_map, want, width)
    check_strips(name, lane_map, items, since, until, width, sorted(want), opts.get("pids"))
    check_axis(name, root, lane_map, since, until, width)
    check_busy(name, root, len(lane_map), since, until)
    texts = [t.text or "" for t in root.iter(SVG + "text")]
    assert any(t.startswith("idle: ") for t in texts), f"{name}: the legend has no idle"
    labels = [t.text for g, _ in lane_map.values() for t in g.iter(SVG + "text")]
    assert args or "idle" in labels, f"{name}: no idle stretch labelled: {labels}"
    return fills


def check_colours(tool, files, workdir):
    """Each program one colour, the same in both files; idle and other programs none of theirs."""
    per_file = [check_case(tool, f, [], {}, workdir) for f in files]
    for fills in per_file:
        for prog, fs in fills.items():
            assert len(fs) == 1, f"{prog} in {len(fs)} colours: {fs}"
    a, b = ({k: next(iter(v)) for k, v in f.items()} for f in per_file)
    for prog in ("memtest", "ipcping", "init", "idle"):
        assert prog in a and prog in b, f"no {prog} drawn: {sorted(a)}, {sorted(b)}"
        assert a[prog] == b[prog], f"{prog}: {a[prog]} in one file, {b[prog]} in the other"
    assert len(set(a.values())) == len(a), f"two of {sorted(a)} share a colour: {a}"
    other = check_case(tool, files[0], ["--pid", "3"], {"pids": {3}}, workdir)
    assert other["other"] - {a["idle"]} == other["other"] and not other["other"] & set(a.values()), \
        f"other programs drawn in a program's or idle's colour: {other['other']}"


def check_bad(tool, path, workdir):
    out = os.path.join(workdir, "bad.svg")
    for args in BAD:
        r = run([tool, "timeline", *args, path, out])
        lines = r.stderr.splitlines()
        assert r.returncode == 2, f"timeline {args}: exit {r.returncode}"
        assert len(lines) == 1 and lines[0].startswith("spoor-trace: timeline: "), \
            f"timeline {args}: stderr {r.stderr!r}"
        assert not os.path.exists(out), f"timeline {args}: wrote a picture"


def main(argv):
    if len(argv) != 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    tool, gen = argv[1], argv[2]
    with tempfile.TemporaryDirectory(prefix="spoor-timeline-check.") as workdir:
        files = []
        for n in ("1", "2", "3"):
            path = os.path.join(workdir, f"timeline{n}.spoor")
            r = run([gen, path, "timeline", n])
            assert r.returncode == 0, f"{gen}: {r.stderr}"
            files.append(path)
        try:
            for args, opts in CASES:
                check_case(tool, files[0], args, opts, workdir)
            check_colours(tool, files[:2], workdir)
            check_unknown(tool, files[2], workdir)
            check_bad(tool, files[0], workdir)
        except AssertionError as e:
            print(f"check_timeline: FAIL {e}")
            return 1
    print(f"check_timeline: {len(CASES)} windows and filters, colours, no switches, "
          f"{len(BAD)} refusals: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
