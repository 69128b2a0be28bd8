#!/usr/bin/env python3
"""spoor-trace's trace.dat against the tools that read ftrace's files.

    check_tracedat.py SPOOR_TRACE GEN READ_TRACEDAT [SCREENSHOT.png]

writes test traces with GEN (the sample, the lossy sample, an empty one,
one whose second CPU lost events and kept none, random ones), converts each with `spoor-trace tracedat` and checks that

- libtracecmd and libtraceevent (READ_TRACEDAT, a C program linked with
  them) read every kind's format and the text's events: per CPU the same
  events in the same order, each at the text's time, as the task ftrace
  names it (the thread, idle threads as pid 0), named after its kind
  (system spoor; sched for sched_switch and sched_wakeup; user_events for
  a user event), every field the text shows as a number or a string with
  the text's value, and the losses as missed events on the page of the
  event abi/trace_file.h LOSS PLACEMENT puts them at (a CPU that kept no
  event: a line on standard error instead);
- `trace-cmd report` prints as many events of each name on each CPU as
  the text has, and "CPU:N [M EVENTS DROPPED]" for the same losses;
- KernelShark opens the lossy sample under Xvfb: its window, titled with
  the file, is grabbed once drawn (to SCREENSHOT.png when given) and has
  more than a few colours, so the plots rendered.

check_file(tool, reader, path, workdir) runs the per-file checks on any
saved trace, so a system test can call it on a file `trace save` wrote.
It raises AssertionError naming the first thing wrong.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_converters import loss_places, run, text_events  # noqa: E402

REPORT_EVENT = re.compile(r"^\s*.+-(-?\d+)\s+\[(\d+)\]\s+(\d+)\.(\d+): (\S+):")
REPORT_DROPPED = re.compile(r"^CPU:(\d+) \[(\d+) EVENTS DROPPED\]$")
INTEGER = re.compile(r"^-?(0x[0-9a-f]+|\d+)$")
SCHED = ("sched_switch", "sched_wakeup")
# Spoor's fields that carry Linux's name in the file (tools/spoor-trace/tracedat_class.h).
RENAMED = {("sched_wakeup", "cpu"): "target_cpu"}


def ftrace_name(name):
    """The (system, name) of the text's event name."""
    if name in SCHED:
        return "sched", name
    if name.startswith("user:"):
        return "user_events", re.sub(r"\W", "_", name[5:])
    return "spoor", name


def read(reader, dat):
    """READ_TRACEDAT's formats {(system, name)} and events, as tuples
    (cpu, ns, system, name, pid, comm, missed, {field: value})."""
    r = run([reader, dat])
    assert r.returncode == 0, f"libtracecmd: {dat}: {r.stderr.strip()}"
    formats, events = set(), []
    for line in r.stdout.splitlines():
        cols = line.split("\t")
        if cols[0] == "format":
            formats.add((cols[1], cols[2]))
            continue
        assert cols[0] == "event", f"libtracecmd: {line}"
        fields = dict(c.split("=", 1) for c in cols[8:])
        events.append((int(cols[1]), int(cols[2]), cols[3], cols[4], int(cols[5]), cols[6],
                       int(cols[7]), fields))
    return formats, events


def same_value(text, ours, what):
    if text == ours:
        return
    if INTEGER.match(text) and INTEGER.match(ours):
        assert int(text, 0) == int(ours, 0), f"{what}: {ours}, the text {text}"
    else:
        # A value of a named list: the text shows its name, the file its number.
        assert not INTEGER.match(text) and INTEGER.match(ours), f"{what}: {ours!r}, the text {text!r}"


def check_events(text, events, idle):
    for cpu in sorted({e[1] for e in text} | {e[0] for e in events}):
        mine = [e for e in events if e[0] == cpu]
        theirs = [e for e in text if e[1] == cpu]
        assert len(mine) == len(theirs), f"cpu {cpu}: {len(mine)} events, the text {len(theirs)}"
        latest = 0
        for m, t in zip(mine, theirs):
            latest = max(latest, t[0])  # the ring buffer's times never go back within a CPU
            what = f"cpu {cpu} {t[4]} at {t[0]} us"
            assert abs(m[1] // 1000 - latest) <= 1, f"{what}: at {m[1]} ns"
            assert (m[2], m[3]) == ftrace_name(t[4]), f"{what}: {m[2]}:{m[3]}"
            pid = 0 if t[3] in idle else t[3]
            assert m[4] == pid, f"{what}: pid {m[4]}, not {pid}"
            for k, v in (t[5] or {}).items():
                k = RENAMED.get((t[4], k), k)
                ours = m[7].get("spoor_" + k, m[7].get(k))
                assert ours is not None, f"{what}: no field {k} in {sorted(m[7])}"
                same_value(v, ours, f"{what}: {k}")
            if m[2] == "sched":
                who = ("prev_tid", "prev_pid"), ("next_tid", "next_pid")
                for tid, lpid in who if m[3] == "sched_switch" else (("tid", "pid"),):
                    want = int(m[7][tid]) & 0xFFFFFFFF  # Linux's pids are 32-bit
                    got = int(m[7][lpid]) & 0xFFFFFFFF
                    assert got == (0 if want in idle else want), f"{what}: {lpid} {got}"


def check_report(dat, text, places):
    r = run(["trace-cmd", "report", dat])
    assert r.returncode == 0, f"trace-cmd report {dat}: exit {r.returncode}: {r.stderr}"
    counts, dropped = {}, {}
    for line in r.stdout.splitlines():
        m = REPORT_DROPPED.match(line)
        if m:
            dropped[int(m.group(1))] = dropped.get(int(m.group(1)), 0) + int(m.group(2))
            continue
        m = REPORT_EVENT.match(line)
        if m:
            key = (int(m.group(2)), m.group(5))
            counts[key] = counts.get(key, 0) + 1
        else:
            assert line.startswith("cpus=") or not line.strip(), f"trace-cmd report: {line!r}"
    want = {}
    for e in text:
        key = (e[1], ftrace_name(e[4])[1])
        want[key] = want.get(key, 0) + 1
    assert counts == want, f"trace-cmd report: events per (cpu, name) {counts}, the text {want}"
    want_dropped = {}
    for cpu, _, n in places:
        want_dropped[cpu] = want_dropped.get(cpu, 0) + n
    assert dropped == want_dropped, f"trace-cmd report: dropped {dropped}, the text {want_dropped}"


def check_file(tool, reader, path, workdir):
    """The trace.dat checks on the saved trace at path; raises AssertionError."""
    losses = []
    text, _ = text_events(tool, path, losses)
    dat = os.path.join(workdir, "trace.dat")
    if os.path.exists(dat):
        os.remove(dat)
    r = run([tool, "tracedat", path, dat])
    assert r.returncode == 0, f"tracedat {path}: exit {r.returncode}: {r.stderr}"
    formats, events = read(reader, dat)
    kinds = re.findall(r"^TTRACE_KIND\(\d+, (\w+),", open(KINDS).read(), re.MULTILINE)
    missing = [k for k in kinds if ftrace_name(k) not in formats]
    assert not missing, f"libtraceevent: no format for {missing}"
    last = {e[3]: e[2] for e in text}  # each thread's pid: that of its last event
    idle = {tid for tid, pid in last.items() if pid == 0}
    check_events(text, events, idle)
    kept = {e[1] for e in text}
    places = [p for p in loss_places(text, losses) if p[0] in kept]
    got = sorted((e[0], e[1] // 1000, e[6]) for e in events if e[6])
    ok = len(got) == len(places) and all(
        g[0] == w[0] and g[2] == w[2] and abs(g[1] - w[1]) <= 1 for g, w in zip(got, places))
    assert ok, f"libtracecmd: missed events (cpu, us, count) at {got}, the text's rule {places}"
    for cpu in sorted({c for c, _, _ in losses} - kept):
        assert re.search(rf"^spoor-trace: .*: cpu {cpu} lost \d+ events and kept none", r.stderr,
                         re.MULTILINE), f"tracedat: no word on cpu {cpu}'s loss: {r.stderr!r}"
    check_report(dat, text, places)


KINDS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "abi",
                     "trace_kinds.def")


def screenshot(dat, png, workdir):
    """KernelShark opens dat under Xvfb; its window, once drawn (two grabs alike), to png.
    Returns the number of colours in it."""
    xwd = os.path.join(workdir, "window.xwd")
    cache = os.path.join(workdir, "kernelshark")
    os.makedirs(cache, exist_ok=True)
    # As root, KernelShark first asks to be trusted; its own setting says not to ask.
    with open(os.path.join(cache, "setting.ini"), "w") as f:
        f.write("[General]\nnoRootWarn=true\n")
    script = (
        'kernelshark "$1" >"$2/kernelshark.log" 2>&1 & ks=$!\n'
        "for i in $(seq 240); do\n"
        '  if xwd -silent -name "Kernel Shark ($1)" >"$3.a" 2>/dev/null; then\n'
        '    if [ -s "$3.b" ] && cmp -s "$3.a" "$3.b"; then mv "$3.a" "$3"; break; fi\n'
        '    mv "$3.a" "$3.b"\n'
        "  fi\n"
        "  sleep 0.5  # polls the window: KernelShark says nothing when it is drawn\n"
        "done\n"
        "kill $ks\n")
    env = dict(os.environ, HOME=workdir, KS_USER_CACHE_DIR=cache)
    r = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 1280x800x24", "sh", "-c", script,
                        "sh", dat, workdir, xwd], capture_output=True, text=True, env=env,
                       timeout=600, check=False)
    log = open(os.path.join(workdir, "kernelshark.log")).read()[-2000:]
    assert os.path.exists(xwd), f"KernelShark showed no window for {dat}: {r.stderr} {log}"
    r = run(["convert", xwd, png])
    assert r.returncode == 0, f"convert: {r.stderr}"
    colours = int(run(["convert", png, "-format", "%k", "info:"]).stdout)
    assert colours > 50, f"KernelShark's window has {colours} colours: not drawn"
    return colours


def main(argv):
    if len(argv) not in (4, 5):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    tool, gen, reader = argv[1:4]
    for need in ("trace-cmd", "kernelshark", "xvfb-run", "xwd", "xwininfo", "convert"):
        if not shutil.which(need):
            print(f"check_tracedat: {need} is not installed (make deps)", file=sys.stderr)
            return 1
    with tempfile.TemporaryDirectory(prefix="spoor-tracedat-check.") as workdir:
        files = []
        for name, args in [("sample", ["sample"]), ("lossy", ["lossy"]), ("empty", ["empty"]),
                           ("lonely", ["lonely"])] + [
            (f"random{n}", ["random", str(n)]) for n in range(1, 9)
        ]:
            path = os.path.join(workdir, name + ".spoor")
            r = run([gen, path] + args)
            assert r.returncode == 0, f"{gen} {path}: {r.stderr}"
            files.append(path)
        path = files[0]
        try:
            for path in files:
                check_file(tool, reader, path, workdir)
            path = files[1]
            check_file(tool, reader, path, workdir)
            png = argv[4] if len(argv) == 5 else os.path.join(workdir, "kernelshark.png")
            colours = screenshot(os.path.join(workdir, "trace.dat"), png, workdir)
        except AssertionError as e:
            print(f"check_tracedat: FAIL {os.path.basename(path)}: {e}")
            return 1
    print(f"check_tracedat: {len(files)} files through libtracecmd and trace-cmd report, "
          f"KernelShark drew {colours} colours: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
