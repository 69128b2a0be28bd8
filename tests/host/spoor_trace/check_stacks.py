"""Checks spoor-trace's call stacks against a program it did not make (make test-host).

usage: check_stacks.py SPOOR_TRACE GEN

Builds a small static program whose functions are known (hot, called by
middle, called by _start) into a build folder of its own, as build/bin/prog,
generates a trace whose stacks point into it (gen stacks), and checks:
  - the text names each frame as addr2line does, function+offset (file:line),
    and a frame nothing names as hex with its module;
  - report and flamegraph --folded give exactly the expected text, idle
    left out unless --idle, the report's samples' effective rate as the
    text's prof_sample lines give it;
  - the SVG is XML with a box for hot and the rate; flamegraph FILE OUT.svg
    writes the same picture, leaves an existing file alone and leaves no
    file after an error;
  - the Trace Event JSON's stackFrames chain from each sample's sf is its stack;
  - babeltrace2 reads the CTF's stack sequence and its names.
"""

import json
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree

PROG = """\
void hot(void)
{
	for (volatile int i = 0; i < 10; i++) {
	}
}

void middle(void)
{
	hot();
	__asm__ volatile("");
}

void _start(void)
{
	middle();
	for (;;) {
	}
}
"""

KERNEL_IP = 0xffffffff80101234  # the test has no kernel.elf: stays hex, module kernel

FOLDED = """\
prog;0x7fe0001234;hot 1
prog;_start;middle;hot 3
prog;_start;middle;hot;0x{k:x}_[k] 1
"""
FOLDED_IDLE = "idle 1\n" + FOLDED  # --idle: the idle CPU's sample too

# Idle left out: the share of the work, over the stacks that are work.
REPORT = """\
# 5 stacks (prof_sample)
# {rate}; 1 idle left out (--idle shows them)
# the timer interrupt samples: one due while interrupts were masked lands on the first
# instruction after they are unmasked
# modules: prog 80.0% (4) kernel 20.0% (1)
#
#   self   total     self    total  module           function
 80.00% 100.00%        4        5  prog             hot
 20.00%  20.00%        1        1  kernel           0x{k:x}_[k]
  0.00%  80.00%        0        4  prog             _start
  0.00%  80.00%        0        4  prog             middle
  0.00%  20.00%        0        1  prog             0x7fe0001234
"""

REPORT_IDLE = """\
# 6 stacks (prof_sample)
# {rate}; 1 idle counted
# the timer interrupt samples: one due while interrupts were masked lands on the first
# instruction after they are unmasked
# modules: prog 66.7% (4) idle 16.7% (1) kernel 16.7% (1)
#
#   self   total     self    total  module           function
 66.67%  83.33%        4        5  prog             hot
 16.67%  16.67%        1        1  idle             idle
 16.67%  16.67%        1        1  kernel           0x{k:x}_[k]
  0.00%  66.67%        0        4  prog             _start
  0.00%  66.67%        0        4  prog             middle
  0.00%  16.67%        0        1  prog             0x7fe0001234
"""

SAMPLE = re.compile(r"^\[\s*(\d+)\.(\d{6})\] cpu=(\d+) .* prof_sample ", re.MULTILINE)


def rate(text):
    """The samples' effective rate, from the text's prof_sample lines: each CPU's first
    starts the span, the others fill it."""
    found = [(int(s) * 1000000 + int(us), int(c)) for s, us, c in SAMPLE.findall(text)]
    cpus = len({c for _, c in found})
    span = (max(t for t, _ in found) - min(t for t, _ in found)) / 1e6
    return (f"{len(found)} samples on {cpus} cpu{'' if cpus == 1 else 's'} in {span:.6f} s: "
            f"{(len(found) - cpus) / cpus / span:.0f} Hz a cpu")

def run(cmd, **kw):
    done = subprocess.run(cmd, capture_output=True, text=True, **kw)
    assert done.returncode == 0, f"{cmd}: exit {done.returncode}: {done.stderr}"
    return done.stdout


def addresses(elf):
    """hot+4, the return address in middle after its call of hot, the one in _start."""
    syms = {m.group(2): int(m.group(1), 16)
            for m in re.finditer(r"^([0-9a-f]+) T (\w+)$", run(["nm", elf]), re.MULTILINE)}
    dis = run(["objdump", "-d", "--no-show-raw-insn", elf]).splitlines()
    rets = {}
    for i, line in enumerate(dis):
        m = re.search(r"call\s+[0-9a-f]+ <(\w+)>", line)
        if m:
            rets[m.group(1)] = int(dis[i + 1].split(":")[0], 16)
    return [syms["hot"] + 4, rets["hot"], rets["middle"]]


def addr2line(elf, addr):
    """addr2line's function and file:line, as spoor-trace should print them."""
    fn, where = run(["addr2line", "-f", "-e", elf, hex(addr)]).splitlines()
    path, line = where.rsplit(":", 1)
    return fn, f"{os.path.basename(path)}:{line.split()[0]}"


def prog_trace(gen, build):
    """Builds PROG as build/bin/prog and a trace whose stacks point into it (gen stacks);
    returns the program's path, its addresses (addresses()) and the trace's path."""
    os.makedirs(os.path.join(build, "bin"))
    src, elf = os.path.join(build, "prog.c"), os.path.join(build, "bin", "prog")
    with open(src, "w") as f:
        f.write(PROG)
    run(["gcc", "-g", "-O1", "-fno-omit-frame-pointer", "-static", "-nostdlib", "-no-pie",
         "-fno-pie", "-o", elf, src])
    a = addresses(elf)
    trace = os.path.join(build, "stacks.spoor")
    run([gen, trace, "stacks"] + [hex(x) for x in a + [KERNEL_IP]])
    return elf, a, trace


def main(argv):
    if len(argv) != 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    tool, gen = argv[1:]
    with tempfile.TemporaryDirectory(prefix="spoor-stacks-check.") as build:
        elf, a, trace = prog_trace(gen, build)
        env = dict(os.environ, SPOOR_BUILD=build)
        try:
            text = run([tool, "text", trace], env=env)
            # the first frame is where it was; the others return addresses: their calls
            want = [addr2line(elf, addr if i == 0 else addr - 1) for i, addr in enumerate(a)]
            for fn, where in want:
                assert re.search(rf"^    {fn}\+0x[0-9a-f]+ \({re.escape(where)}\) prog$", text,
                                 re.MULTILINE), f"text: no frame {fn} ({where}):\n{text}"
            assert f"    0x{KERNEL_IP:016x} kernel\n" in text, text
            assert "    0x0000007fe0001234 prog\n    ... user stack cut\n" in text, text
            folded = run([tool, "flamegraph", "--folded", trace], env=env)
            assert folded == FOLDED.format(k=KERNEL_IP), f"folded:\n{folded}"
            folded = run([tool, "flamegraph", "--idle", "--folded", trace], env=env)
            assert folded == FOLDED_IDLE.format(k=KERNEL_IP), f"folded --idle:\n{folded}"
            report = run([tool, "report", trace], env=env)
            assert report == REPORT.format(k=KERNEL_IP, rate=rate(text)), f"report:\n{report}"
            report = run([tool, "report", "--idle", trace], env=env)
            assert report == REPORT_IDLE.format(k=KERNEL_IP, rate=rate(text)), \
                f"report --idle:\n{report}"
            svg = ElementTree.fromstring(run([tool, "flamegraph", trace], env=env))
            titles = [t.text for t in svg.iter("{http://www.w3.org/2000/svg}title")]
            assert any(t.startswith("hot (4 stacks, 80.00%)") for t in titles), titles
            said = [t.text for t in svg.iter("{http://www.w3.org/2000/svg}text")]
            assert rate(text) + "; 1 idle left out (--idle shows them)" in said, said
            # Into OUT.svg as every converter writes: the same picture; nothing on an error.
            out_svg = os.path.join(build, "flame.svg")
            subprocess.run([tool, "flamegraph", trace, out_svg], env=env, check=True)
            with open(out_svg) as f:
                assert f.read() == run([tool, "flamegraph", trace], env=env)
            r = subprocess.run([tool, "flamegraph", trace, out_svg], env=env,
                               capture_output=True, text=True)
            assert r.returncode == 2 and "exists" in r.stderr, r.stderr
            empty = os.path.join(build, "empty.spoor")
            subprocess.run([gen, empty, "empty"], check=True)
            none_svg = os.path.join(build, "none.svg")
            r = subprocess.run([tool, "flamegraph", empty, none_svg], env=env,
                               capture_output=True, text=True)
            assert r.returncode == 2 and len(r.stderr.splitlines()) == 1, r.stderr
            assert not os.path.exists(none_svg), "flamegraph left a file after its error"
            out = os.path.join(build, "stacks.json")
            run([tool, "perfetto", trace, out], env=env)
            with open(out) as f:
                doc = json.load(f)
            frames = doc["stackFrames"]
            samples = [e for e in doc["traceEvents"] if e.get("name") == "sample"]
            assert len(samples) == 6, samples
            chain, node = [], str(samples[0]["sf"])
            while node:
                chain.append(frames[node]["name"])
                node = frames[node].get("parent")
            assert chain == ["hot", "middle", "_start", "prog"], chain
            ctf = os.path.join(build, "ctf")
            run([tool, "ctf", trace, ctf], env=env)
            bt = run(["babeltrace2", ctf])
            want = (f"stack_len = 3, stack = [ [0] = 0x{a[0]:X}, [1] = 0x{a[1]:X}, "
                    f'[2] = 0x{a[2]:X} ], stack_names = "prog;_start;middle;hot"')
            assert bt.count(want) == 4, bt  # three samples and the page fault
        except AssertionError as e:
            print(f"check_stacks: FAIL {e}")
            return 1
    print("check_stacks: names as addr2line gives them, report, folded, SVG, JSON and CTF: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
