"""Checks spoor-trace's pprof profile with pprof itself (make test-host).

usage: check_pprof.py SPOOR_TRACE GEN

Builds check_stacks.py's small program (hot, called by middle, called by
_start), generates a trace whose stacks point into it (gen stacks), writes
its profile with `spoor-trace pprof` and checks, through `go tool pprof`:
  - -top names the functions `spoor-trace report` names, hottest first: the
    same functions at each self count, in the same order of counts, with
    the same totals (a kernel frame without "_[k]", which marks it in the
    report);
  - -raw: each named frame's location has the function, file and line
    addr2line gives, in the mapping of its program; the kernel's mapping
    is kernel.elf; every mapping says it has functions, files and lines;
  - the second sample type, events, holds the page fault's stack, labelled
    with its kind;
  - a trace without stacks gets one line, exit status 2 and no file.
"""

import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_stacks import KERNEL_IP, addr2line, prog_trace, run  # noqa: E402

TOP_ROW = re.compile(r"^\s+(\d+)\s+[\d.]+%\s+[\d.]+%\s+(\d+)\s+[\d.]+%\s+(.+)$")
REPORT_ROW = re.compile(r"^\s*[\d.]+%\s+[\d.]+%\s+(\d+)\s+(\d+)\s+\S+\s+(.+)$")
RAW_LOCATION = re.compile(r"^\s+\d+: 0x([0-9a-f]+) M=(\d+) (\S+) (\S*):(\d+) s=0$")
RAW_MAPPING = re.compile(r"^(\d+): 0x[0-9a-f]+/0x[0-9a-f]+/0x0 (\S+)\s+(.*)$")


def by_count(rows):
    """[(self, {name: total})] from rows (self, total, name), highest self first."""
    groups = {}
    for self_, total, name in rows:
        groups.setdefault(self_, {})[name] = total
    return sorted(groups.items(), reverse=True)


def check_top(tool, trace, profile, env):
    # The profile holds every sample, idle ones too (pprof's -hide=idle leaves them out).
    report = run([tool, "report", "--idle", trace], env=env)
    mine = [(int(m.group(1)), int(m.group(2)), m.group(3).removesuffix("_[k]"))
            for m in map(REPORT_ROW.match, report.splitlines()) if m]
    top = run(["go", "tool", "pprof", "-top", "-nodefraction=0", "-edgefraction=0", profile],
              env=env)
    theirs = [(int(m.group(1)), int(m.group(2)), m.group(3))
              for m in map(TOP_ROW.match, top.splitlines()) if m]
    assert mine and by_count(theirs) == by_count(mine), f"pprof -top:\n{top}\nreport:\n{report}"
    return mine


def check_raw(elf, profile, a, env):
    raw = run(["go", "tool", "pprof", "-raw", profile], env=env)
    maps = {m.group(1): (m.group(2), m.group(3)) for m in map(RAW_MAPPING.match, raw.splitlines())
            if m}
    assert all(flags == "[FN][FL][LN]" for _, flags in maps.values()), raw
    assert {name for name, _ in maps.values()} >= {"prog", "kernel.elf"}, raw
    locs = {int(m.group(1), 16): m.groups()[1:] for m in map(RAW_LOCATION.match, raw.splitlines())
            if m}
    for i, addr in enumerate(a):
        fn, where = addr2line(elf, addr if i == 0 else addr - 1)
        mapping, name, path, line = locs[addr]
        assert maps[mapping][0] == "prog", f"{hex(addr)}: mapping {maps[mapping]}"
        assert (name, f"{path}:{line}") == (fn, where), f"{hex(addr)}: {name} {path}:{line}"
    assert maps[locs[KERNEL_IP][0]][0] == "kernel.elf", raw
    assert "event:[mem_pf]" in raw, raw


def main(argv):
    if len(argv) != 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    tool, gen = argv[1:]
    with tempfile.TemporaryDirectory(prefix="spoor-pprof-check.") as build:
        elf, a, trace = prog_trace(gen, build)
        env = dict(os.environ, SPOOR_BUILD=build, HOME=build, GOCACHE=os.path.join(build, "go"))
        profile = os.path.join(build, "stacks.pb.gz")
        try:
            run([tool, "pprof", trace, profile], env=env)
            rows = check_top(tool, trace, profile, env)
            check_raw(elf, profile, a, env)
            events = run(["go", "tool", "pprof", "-sample_index=events", "-top", profile], env=env)
            assert re.search(r"^\s+1\s+100%\s+100%\s+1\s+100%\s+hot$", events, re.MULTILINE), events
            plain = os.path.join(build, "plain.spoor")
            run([gen, plain, "sample"])
            out = os.path.join(build, "plain.pb.gz")
            done = subprocess.run([tool, "pprof", plain, out], capture_output=True, text=True)
            assert done.returncode == 2 and "no call stacks" in done.stderr, done.stderr
            assert len(done.stderr.splitlines()) == 1 and not os.path.exists(out), done.stderr
        except AssertionError as e:
            print(f"check_pprof: FAIL {e}")
            return 1
    print(f"check_pprof: go tool pprof names report's {len(rows)} functions in its order, "
          "with files, lines, mappings and the events' stacks: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
