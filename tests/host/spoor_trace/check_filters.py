#!/usr/bin/env python3
"""spoor-trace's FILTERS, the same on every subcommand.

    check_filters.py SPOOR_TRACE GEN READ_TRACEDAT

writes test traces with GEN (the sample, the lossy sample, random ones)
and, for each filter in FILTERS below:

- `spoor-trace text FILE FILTERS` prints what this script's own filter
  (choose(), written from trace_filter.h and select.h, not from the C)
  keeps of the unfiltered text: the same lines in the same order, the
  losses kept by the placement rule, and the end line's counts;
- every other subcommand given the same words shows what `text` with
  them shows: the checks of check_converters.py (ctf through babeltrace2,
  perfetto, timeline) and check_tracedat.py (libtracecmd, trace-cmd
  report) run on a spoor-trace that adds the words to every call, so
  each output is compared with the filtered text;
- `info` with the same words counts what that text shows: its events
  and losses, each kind's events, each program's (by pid) and each
  CPU's events and losses;
- `follow` given the same words, when it takes them all (the keys an
  event is decided by as it arrives), prints what `text` prints, and
  refuses the others in one line;
- a word that is wrong gets one line and exit status 2 on every
  subcommand.

It raises AssertionError naming the first thing wrong.
"""

import os
import re
import stat
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_converters import LOST_LINE, TEXT_LINE, FIELD, check_file, graph_kind, run  # noqa: E402
import check_tracedat  # noqa: E402

KINDS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "abi",
                     "trace_kinds.def")
CATEGORY = {name: cat.lower() for name, cat in
            re.findall(r"^TTRACE_KIND\(\d+, (\w+), (\w+),", open(KINDS).read(), re.MULTILINE)}

# Times are whole microseconds, so the text's (cut to the microsecond) decide them exactly.
FILTERS = [
    ["cpu=1"], ["cpu=0", "cpu=1"], ["pid=1"], ["pid=3"], ["tid=4"], ["tree=1"], ["tree=3"],
    ["comm=hello"], ["comm=kernel"], ["cat=mem,ipc"], ["cat=sched"],
    ["kind=sched_switch,mem_pf"], ["since=0.000150"], ["until=0.000200"],
    ["since=0.000150", "until=0.000200"], ["count=5"], ["last=5"],
    ["cpu=1", "cat=syscall"], ["comm=init", "since=0.000170"], ["tree=1", "last=3"],
    ["cpu=1", "until=0.000240"],
]
BAD = [["cpu=99"], ["colour=red"], ["kind=nosuch"], ["pid=1", "tree=1"], ["comm="]]
# The keys follow takes: those an event is decided by as it arrives (trace_filter.h).
FOLLOW_KEYS = {"cpu", "pid", "tid", "comm", "kind", "cat"}


def parse(text):
    """The text's lines as items: ('event', line, fields) or ('lost', line, cpu, count)."""
    items = []
    lines = text.splitlines()
    for line in lines[:-1]:
        m = LOST_LINE.match(line)
        if m:
            items.append(("lost", line, int(m.group(2)), int(m.group(1))))
            continue
        m = TEXT_LINE.match(line)
        if not m:  # a frame of the last event's stack goes with it
            items[-1] = (items[-1][0], items[-1][1] + "\n" + line, items[-1][2])
            continue
        e = {"us": int(m.group(1)) * 1000000 + int(m.group(2)), "cpu": int(m.group(3)),
             "pid": int(m.group(4)), "tid": int(m.group(5)), "comm": m.group(6),
             "kind": m.group(7) if m.group(7) != "|" else graph_kind(m.group(8)),
             "fields": dict(FIELD.findall(m.group(8)))}
        items.append(("event", line, e))
    return items


def us_of(value):
    whole, _, frac = value.partition(".")
    return int(whole) * 1000000 + int((frac + "000000000")[:9]) // 1000


def choose(text, words):
    """What the words keep of the unfiltered text, as the text prints it."""
    f = {}
    for w in words:
        k, v = w.split("=", 1)
        if k in ("cpu",):
            f.setdefault("cpu", set()).add(int(v))
        elif k in ("kind", "cat"):
            f.setdefault(k, set()).update(v.split(","))
        else:
            f[k] = v
    items = parse(text)
    events = [i[2] for i in items if i[0] == "event"]
    tree = set()
    if "tree" in f:
        tree = {int(f["tree"])}
        spawns = [(int(e["fields"]["pid"]), int(e["fields"]["parent"])) for e in events
                  if e["kind"] == "proc_spawn"]
        while True:
            more = {c for c, p in spawns if p in tree} - tree
            if not more:
                break
            tree |= more
    since = us_of(f["since"]) if "since" in f else None
    until = us_of(f["until"]) if "until" in f else None

    def window(us):
        return (since is None or us >= since) and (until is None or us < until)

    def cpu_ok(c):
        return "cpu" not in f or c in f["cpu"]

    def passes(e):
        return (cpu_ok(e["cpu"]) and window(e["us"])
                and ("pid" not in f or e["pid"] == int(f["pid"]))
                and ("tid" not in f or e["tid"] == int(f["tid"]))
                and ("tree" not in f or e["pid"] in tree)
                and ("comm" not in f or e["comm"] == f["comm"])
                and ("kind" not in f or e["kind"] in f["kind"])
                and ("cat" not in f or CATEGORY.get(e["kind"]) in f["cat"]))

    # A loss stays by the time of its CPU's next event, else when the window has no end.
    keep = []
    for n, item in enumerate(items):
        if item[0] == "lost":
            nxt = [i[2] for i in items[n + 1:] if i[0] == "event" and i[2]["cpu"] == item[2]]
            keep.append(cpu_ok(item[2]) and (window(nxt[0]["us"]) if nxt else until is None))
        else:
            keep.append(passes(item[2]))
    chosen = [i for i, k in zip(items, keep) if k]
    if "count" in f:
        n, cut = 0, len(chosen)
        for j, i in enumerate(chosen):
            n += i[0] == "event"
            if n == int(f["count"]):
                cut = j + 1
                break
        chosen = chosen[:cut]
    if "last" in f:
        at = [j for j, i in enumerate(chosen) if i[0] == "event"]
        if len(at) > int(f["last"]):
            chosen = chosen[at[-int(f["last"])]:]
    nev = sum(1 for i in chosen if i[0] == "event")
    lost = sum(i[3] for i in chosen if i[0] == "lost")
    return "".join(i[1] + "\n" for i in chosen) + f"# end of dump: {nev} events, {lost} lost\n"


INFO_EVENTS = re.compile(r"^events: (\d+), (\d+) lost")
INFO_CPU = re.compile(r"^  (\d+) +(\d+) +\d+ +\d+ +\d+ +\d+ +\d+ +(\d+)$")
INFO_ROW = re.compile(r"^  (\S+) +(\d+)$")
INFO_PROG = re.compile(r"^  (\S+) +(\d+) +(\d+)$")


def check_info(tool, path, words, text):
    """info with words against the text with them."""
    r = run([tool, "info", path] + words)
    assert r.returncode == 0, f"info {' '.join(words)}: {r.stderr}"
    items = parse(text)
    events = [i[2] for i in items if i[0] == "event"]
    lost = [(i[2], i[3]) for i in items if i[0] == "lost"]
    lines = r.stdout.splitlines()
    m = INFO_EVENTS.match(lines[1])
    assert m and (int(m.group(1)), int(m.group(2))) == (len(events), sum(n for _, n in lost)), \
        f"info {' '.join(words)}: {lines[1]!r}"
    section, kinds, progs, cpus = None, {}, {}, {}
    for line in lines[2:]:
        if line.startswith("# "):
            section = line.split()[1]
        elif section == "cpu":
            c = INFO_CPU.match(line)
            cpus[int(c.group(1))] = (int(c.group(2)), int(c.group(3)))
        elif section == "kind":
            k = INFO_ROW.match(line.replace("(unknown kinds)", "unknown"))
            kinds[k.group(1)] = int(k.group(2))
        elif section == "program":
            p = INFO_PROG.match(line)
            progs[int(p.group(2))] = int(p.group(3))
    want = {}
    for e in events:
        k = "user" if e["kind"].startswith("user") else e["kind"]
        k = k if k in CATEGORY else "unknown"
        want[k] = want.get(k, 0) + 1
    assert kinds == want, f"info {' '.join(words)}: kinds {kinds}, the text {want}"
    want = {}
    for e in events:
        want[e["pid"]] = want.get(e["pid"], 0) + 1
    assert progs == want, f"info {' '.join(words)}: programs {progs}, the text {want}"
    for c, (n, gone) in cpus.items():
        assert n == sum(1 for e in events if e["cpu"] == c) and \
            gone == sum(k for cpu, k in lost if cpu == c), f"info: cpu {c}: {n} {gone}"


def check_follow(tool, path, words, text):
    """follow with words prints the text with them, or refuses a key it does not take."""
    r = run([tool, "follow"] + words + [path])
    if {w.split("=", 1)[0] for w in words} <= FOLLOW_KEYS:
        assert r.returncode == 0 and r.stdout == text, \
            f"follow {' '.join(words)}: exit {r.returncode}, {r.stderr}\n{r.stdout}\ntext:\n{text}"
    else:
        assert r.returncode == 2 and len(r.stderr.splitlines()) == 1 and not r.stdout, \
            f"follow {' '.join(words)}: exit {r.returncode}, said {r.stderr!r}"


def wrapper(tool, words, path):
    """A spoor-trace that adds words to every call, for the converters' checks."""
    with open(path, "w") as f:
        f.write('#!/bin/sh\nexec %s "$@" %s\n' % (tool, " ".join(words)))
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return path


def check(tool, reader, path, workdir):
    whole = run([tool, "text", path])
    assert whole.returncode == 0, f"text {path}: {whole.stderr}"
    for words in FILTERS:
        r = run([tool, "text", path] + words)
        assert r.returncode == 0, f"text {' '.join(words)}: exit {r.returncode}: {r.stderr}"
        want = choose(whole.stdout, words)
        assert r.stdout == want, \
            f"text {' '.join(words)}:\n{r.stdout}\nthe script's filter keeps:\n{want}"
        check_info(tool, path, words, r.stdout)
        check_follow(tool, path, words, r.stdout)
        tool_f = wrapper(tool, words, os.path.join(workdir, "filtered-spoor-trace"))
        try:
            # The converters' checks of the filtered output; DevTools' engine, which
            # the filter does not concern, reads check_converters' files.
            check_file(tool_f, path, workdir, None)
            check_tracedat.check_file(tool_f, reader, path, workdir)
        except AssertionError as e:
            raise AssertionError(f"with {' '.join(words)}: {e}") from e
    check_info(tool, path, [], whole.stdout)
    for words in BAD:
        for verb, args, out in (("text", [], []), ("ctf", [], ["d"]),
                                ("perfetto", [], ["o.json"]), ("tracedat", [], ["o.dat"]),
                                ("timeline", [], ["o.svg"]), ("report", [], []),
                                ("flamegraph", [], ["f.svg"]), ("pprof", [], ["o.pb.gz"]),
                                ("info", [], []), ("stats", [], []), ("hist", ["syscall"], [])):
            outs = [os.path.join(workdir, o) for o in out]
            r = run([tool, verb, path] + outs + args + words)
            assert r.returncode == 2 and len(r.stderr.splitlines()) == 1, \
                f"{verb} {' '.join(words)}: exit {r.returncode}, said {r.stderr!r}"
            assert not any(os.path.exists(o) for o in outs), f"{verb} {' '.join(words)} left {out}"
        r = run([tool, "follow"] + words + [path])
        assert r.returncode == 2 and len(r.stderr.splitlines()) == 1 and not r.stdout, \
            f"follow {' '.join(words)}: exit {r.returncode}, said {r.stderr!r}"

def main(argv):
    if len(argv) != 4:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    tool, gen, reader = argv[1:]
    with tempfile.TemporaryDirectory(prefix="spoor-trace-filters.") as workdir:
        names = [("sample", ["sample"]), ("lossy", ["lossy"])] + [
            (f"random{n}", ["random", str(n)]) for n in range(1, 4)]
        path = "?"
        try:
            for name, args in names:
                path = os.path.join(workdir, name + ".spoor")
                r = run([gen, path] + args)
                assert r.returncode == 0, f"{gen} {path}: {r.stderr}"
                check(tool, reader, path, workdir)
        except AssertionError as e:
            print(f"check_filters: FAIL {os.path.basename(path)}: {e}")
            return 1
    print(f"check_filters: {len(FILTERS)} filters on {len(names)} files, every subcommand: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
