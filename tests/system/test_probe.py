"""Kernel probes (`trace probe`, abi/trace_probe.h): a breakpoint at an
instruction boundary of the kernel's text records a probe event with the
registers named, and the instruction runs on as if nothing were there, on
every CPU at once; places that are not instruction boundaries or that must
not be probed are refused in one line, with nothing set; probes come and go
while the rings are written without losing count."""

import re
import subprocess

import pytest

from spoorlib import (KERNEL, dump, expect_count, flip_under_tracegen, reset_tracing, start_job,
                      status)

# A small function every call of uevent_control with a slot that holds no
# trace control runs through, straight through (no branch), which probeload
# drives from user space with a value of its choosing in rdi.
FUNCTION = "syscall_need_trace_control"
SLOT = 0x5EED
CALLS = 150
CPUS = 4
SET = re.compile(r"trace: probe (\S+) at (\S+), recording \((\S*)\); (\d+) probes set")
LISTED = re.compile(r"^(\S+) at (\S+)\+0x([0-9a-f]+) \(0x([0-9a-f]+), (\d+) bytes\) "
                    r"regs=\((\S*)\) hits=(\d+)$", re.MULTILINE)
NONE_SET = re.compile(r"^# 0 probes set \(at most 16\); \d+ hits missed$", re.MULTILINE)
DONE = r"probeload: (\d+) calls on cpu (\d+), each answered (-?\d+)"
INSN = re.compile(r"^\s*([0-9a-f]+):\t((?:[0-9a-f]{2} )+)\s*\t(.*)$", re.MULTILINE)


@pytest.fixture
def spoor(shared):
    """A machine of 4 CPUs; each test leaves no probe set and tracing off."""
    machine = shared(smp=CPUS)
    yield machine
    machine.command("trace probe off")
    reset_tracing(machine)


def function(name):
    """(start, size) of the kernel function name, from kernel.elf's symbols."""
    out = subprocess.run(["nm", "-S", str(KERNEL)], check=True, capture_output=True,
                         text=True).stdout
    for line in out.splitlines():
        words = line.split()
        if len(words) == 4 and words[3] == name:
            return int(words[0], 16), int(words[1], 16)
    raise AssertionError(f"no {name} in {KERNEL}")


def instructions(name):
    """Each instruction of the kernel function name as (offset, length, text), from
    kernel.elf's disassembly by objdump: the test's own, not the kernel's table."""
    start, size = function(name)
    out = subprocess.run(["objdump", "-d", "--insn-width=16", f"--start-address={start:#x}",
                          f"--stop-address={start + size:#x}", str(KERNEL)],
                         check=True, capture_output=True, text=True).stdout
    found = [(int(a, 16) - start, len(raw.split()), text.strip())
             for a, raw, text in INSN.findall(out)]
    assert found and found[0][0] == 0 and sum(n for _, n, _ in found) == size, out
    return found


def run_everywhere(spoor):
    """probeload on every CPU at once; returns their pids once each said how its calls
    were answered (asserting every one answered them all alike) and that answer."""
    start = len(spoor.console())
    pids = [start_job(spoor, f"run probeload {CALLS} {SLOT:#x} {cpu}") for cpu in range(CPUS)]
    done = expect_count(spoor, DONE, CPUS, start, timeout=600)
    assert sorted(int(cpu) for _, cpu, _ in done) == list(range(CPUS)), done
    assert {calls for calls, _, _ in done} == {str(CALLS)}, done
    answers = {answer for _, _, answer in done}
    assert len(answers) == 1 and int(answers.pop()) < 0, done
    return pids, done[0][2]


def test_a_probe_at_every_instruction_of_a_function_running_on_every_cpu(spoor):
    """As tracenest steps through a tracepoint: a probe at each instruction
    boundary of FUNCTION in turn (but the entry NOP, the function tracer's),
    while probeload calls it on every CPU. Every call is answered as without
    the probe, every hit is recorded, with rip the probe's address and rdi the
    slot probeload passed until the function overwrites it."""
    spoor.command("trace clear")
    _, answer = run_everywhere(spoor)
    start, _ = function(FUNCTION)
    insns = instructions(FUNCTION)
    # rdi holds the argument until the first instruction that writes it
    rdi_until = next(off for off, _, text in insns if re.search(r",%rdi$", text))
    for off, length, text in insns[1:]:
        out = spoor.command(f"trace probe {FUNCTION}+{off:#x} as at{off} rdi rip rsp")
        assert SET.search(out), (text, out)
        listed = LISTED.findall(spoor.command("trace probe list"))
        assert [(f"at{off}", FUNCTION, f"{off:x}", f"{start + off:x}", str(length))] == \
            [tuple(m[:5]) for m in listed], (text, listed)
        spoor.command("trace clear")
        pids, answered = run_everywhere(spoor)
        assert answered == answer, (text, answered, answer)
        hits = int(LISTED.search(spoor.command("trace probe list")).group(7))
        assert f"trace: at{off} off; 0 probes set" in spoor.command(f"trace probe off at{off}")
        found, _ = dump(spoor, "kind=probe")
        mine = [e for e in found if e.pid in pids]
        assert len(mine) == CPUS * CALLS and hits >= len(mine), (text, hits, len(mine))
        assert {e.cpu for e in mine} == set(range(CPUS)), text
        for e in mine:
            assert e.args["probe"] == f'"at{off}(rdi,rip,rsp)"', e.line
            assert int(e.args["r1"], 16) == start + off, (text, e.line)
            assert int(e.args["r2"], 16) >= 0xffff800000000000, (text, e.line)
            if off <= rdi_until:
                assert int(e.args["r0"], 16) == SLOT, (text, e.line)
    status(spoor)


def first_multibyte(name):
    """The offset of the first instruction of name past its entry NOP that is longer than a byte."""
    return next(off for off, length, _ in instructions(name)[1:] if length > 1)


TRACER = "a function the tracer may not trace (trace func list says why)"


def no_probe(where, why):
    """A `trace probe WHERE` line and its one-line refusal."""
    return f"trace probe {where}", f"no probe at {where}: {why}"


def tracepoint_site():
    """The offset of sys_trace_test's tracepoint: its static branch's NOP inside the loop."""
    return next(off for off, length, text in instructions("sys_trace_test")[1:]
                if length == 5 and text.startswith("nopl"))


def refused(make, id):
    """One refusal case: make() gives (line, its one-line answer), computed from
    kernel.elf when the test runs (collection may come before the build)."""
    return pytest.param(make, id=id)


REFUSALS = [
    refused(lambda: no_probe("no_such_function", "no kernel function has that name"),
            "unknown symbol"),
    refused(lambda: no_probe(f"{FUNCTION}+{first_multibyte(FUNCTION) + 1:#x}",
                             "the offset is inside an instruction, not at its start"),
            "inside an instruction"),
    refused(lambda: no_probe(f"{FUNCTION}+{function(FUNCTION)[1]:#x}",
                             "the offset is past the function's end"),
            "past the end"),
    refused(lambda: no_probe(f"{FUNCTION}+0",
                             "the entry NOP is the function tracer's (probe past it)"),
            "entry NOP"),
    refused(lambda: no_probe("probe_breakpoint", TRACER), "probe handler"),
    refused(lambda: no_probe("probe_step", TRACER), "probe step"),
    refused(lambda: no_probe("trap_dispatch", TRACER), "trap entry"),
    refused(lambda: no_probe("isr_stubs", TRACER), "interrupt stubs"),
    refused(lambda: no_probe("syscall_entry", TRACER), "syscall entry"),
    refused(lambda: no_probe("watchdog_nmi", TRACER), "NMI handler"),
    refused(lambda: no_probe("panic_in_progress", "the function can run in an NMI"),
            "NMI-reachable"),
    refused(lambda: no_probe("ttrace_emit_slow", TRACER), "tracepoint slow path"),
    refused(lambda: no_probe("ttrace_ring_commit", TRACER), "ring writer"),
    refused(lambda: no_probe("static_branches_set", TRACER), "static-branch patcher"),
    refused(lambda: no_probe("func_trace_hit", TRACER), "function tracer"),
    refused(lambda: no_probe(f"sys_trace_test+{tracepoint_site():#x}",
                             "the kernel rewrites or restarts that code (a tracepoint's "
                             "straight path)"),
            "tracepoint site"),
    refused(lambda: (f"trace probe {FUNCTION} rdi rsi rdx rcx r8",
                     "trace: 5 registers named, at most 4 fit a probe event (its five data "
                     "words: the probe and 4 values)"),
            "too many registers"),
    refused(lambda: (f"trace probe {FUNCTION} rdi xmm0",
                     "trace: unknown register 'xmm0' (known: rdi rsi rdx rcx r8 r9 rax rbx "
                     "rbp r12 r13 r14 r15 rsp rip flags)"),
            "unknown register"),
]


@pytest.mark.parametrize("refusal", REFUSALS)
def test_refused_places_get_one_line_and_nothing_is_set(spoor, refusal):
    line, answer = refusal()
    out = spoor.command(line)
    assert out.strip().splitlines()[-1] == f"trace: {answer}" if answer.startswith("no probe") \
        else answer in out, out
    assert len([l for l in out.strip().splitlines() if l.startswith("trace:")]) == 1, out
    assert NONE_SET.search(spoor.command("trace probe list"))
    # nothing patched: the function runs on without a hit anywhere
    spoor.command("trace clear")
    run_everywhere(spoor)
    found, _ = dump(spoor, "kind=probe")
    assert not found, [e.line for e in found]


def test_probes_set_and_removed_while_tracegen_writes_keep_the_ledger(spoor):
    """A probe on tracegen's own system call comes and goes while tracegen writes
    on every CPU: every tracegen event recorded, every CPU's ledger exact."""
    spoor.command("trace on test")
    status(spoor)
    # 10,000 events and at most 2,000 probe hits a CPU: all fit its ring of 16,384.
    rounds = flip_under_tracegen(spoor, CPUS, 10000, lambda _: (
        ("trace probe sys_trace_test as flip rdi", SET.pattern),
        ("trace probe off flip", r"trace: flip off; 0 probes set")), rate=5000)
    assert rounds >= 1
    status(spoor)
    found, _ = dump(spoor, "kind=probe")
    assert found and all(e.args["probe"] == '"flip(rdi)"' for e in found), found[:3]


def test_spoor_trace_prints_a_saved_probe_event_as_the_dump_does(spoor):
    """A saved trace's probe events, read on the host by spoor-trace text, are the
    dump's lines: the probe's description from the saved aux string, its registers."""
    assert SET.search(spoor.command(f"trace probe {FUNCTION} as host rdi rsi"))
    spoor.command("trace clear")
    pids, _ = run_everywhere(spoor)
    found, _ = dump(spoor, "kind=probe")
    mine = [e.line for e in found if e.pid in pids]
    assert len(mine) == CPUS * CALLS, len(mine)
    assert all(re.search(rf' probe probe="host\(rdi,rsi\)" r0={SLOT:#x} r1=0x\w+ r2=0x0 r3=0x0$',
                         line) for line in mine), mine[:3]
    out = spoor.command("trace save kind=probe as probes", timeout=300)
    assert re.search(r"trace: saved \d+ events, 0 lost", out), out
    text = subprocess.run([str(KERNEL.parent / "host" / "spoor-trace"), "text",
                           str(spoor.traces / "probes.spoor")], capture_output=True, text=True,
                          timeout=300, check=True).stdout
    printed = [line for line in text.splitlines() if any(f" pid={p} " in line for p in pids)]
    assert printed == mine, (printed[:3], mine[:3])


def test_a_filter_on_the_probe_kind_keeps_only_the_hits_it_holds_for(spoor):
    """The probe kind (32) has the filter key of kind 0, which no kind is
    (kernel/trace/tracepoint.h): a filter on it decides at the tracepoint, the
    hits it rejects counted as filtered, and every other kind keeps its own."""
    assert SET.search(spoor.command(f"trace probe {FUNCTION} as filtered rdi"))
    out = spoor.command(f"trace on probe if r0 != {SLOT}")
    assert f"trace: filter on probe: r0 != {SLOT}" in out, out
    spoor.command("trace clear")
    before = sum(c["filtered"] for c in status(spoor).values())
    pids, _ = run_everywhere(spoor)
    found, _ = dump(spoor, "kind=probe")
    assert not [e.line for e in found if e.pid in pids]
    assert sum(c["filtered"] for c in status(spoor).values()) - before >= CPUS * CALLS
    assert "trace: no filter on probe" in spoor.command("trace on probe")
    spoor.command("trace clear")
    pids, _ = run_everywhere(spoor)
    found, _ = dump(spoor, "kind=probe")
    assert len([e for e in found if e.pid in pids]) == CPUS * CALLS


def test_a_probe_at_every_instruction_of_the_clock_keeps_it_right(spoor):
    """timer_now_ns() reads two globals rip-relative, returns by ret, and runs on
    every CPU, in interrupts too: a probe at each of its instructions in turn, and
    one at its ret recording its result, which must be the time the event says
    (the dump's timestamp, from the same TSC), within a millisecond and 1 %. A copy whose
    displacement reached elsewhere than the original's would read another word."""
    insns = instructions("timer_now_ns")
    ret = next(off for off, _, text in insns if text == "ret")
    assert [text for _, _, text in insns if "(%rip)" in text], insns
    for off, _, text in insns[1:]:
        if off != ret:
            assert SET.search(spoor.command(f"trace probe timer_now_ns+{off:#x} as at{off}"))
        assert SET.search(spoor.command(f"trace probe timer_now_ns+{ret:#x} as ret rax"))
        spoor.command("trace clear")
        run_everywhere(spoor)
        listed = {m[0]: int(m[6]) for m in LISTED.findall(spoor.command("trace probe list"))}
        assert all(hits > 0 for hits in listed.values()), (text, listed)
        assert "trace: every probe off; 0 probes set" in spoor.command("trace probe off")
        found, _ = dump(spoor, "kind=probe")
        results = [e for e in found if e.args["probe"] == '"ret(rax)"']
        assert results, text
        for e in results:
            # the kernel's clock and the dump's convert the TSC with their own
            # calibrations, which may differ by a fraction of a per cent
            assert abs(int(e.args["r0"], 16) - e.us * 1000) < 1000000 + e.us * 10, (text, e.line)


def stepless_instruction():
    """(function, offset, text) of a pushf, cli, sti or hlt in a function with the entry
    NOP (one the function tracer may trace), from kernel.elf's disassembly."""
    text = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "-j", ".text", str(KERNEL)],
                          check=True, capture_output=True, text=True).stdout
    for block in re.split(r"\n\n(?=[0-9a-f]+ <)", text):
        head = re.match(r"([0-9a-f]+) <([\w.]+)>:\n\s*[0-9a-f]+:\s+nopl\s+0x0\(%rax,%rax,1\)\n",
                        block)
        if not head:
            continue
        found = re.search(r"^\s*([0-9a-f]+):\s+(pushf|cli|sti|hlt)\s*$", block, re.MULTILINE)
        if found:
            return head.group(2), int(found.group(1), 16) - int(head.group(1), 16), \
                found.group(2)
    raise AssertionError("no pushf, cli, sti or hlt in a traceable function")


def test_an_instruction_a_probe_cannot_step_is_refused(spoor):
    function_name, off, text = stepless_instruction()
    out = spoor.command(f"trace probe {function_name}+{off:#x}")
    assert f"trace: no probe at {function_name}+{off:#x}: an instruction a probe cannot step " \
           "(it traps, or sets IF or TF)" in out, (text, out)
    assert NONE_SET.search(spoor.command("trace probe list"))


def test_a_trap_on_a_removed_probe_runs_the_instruction_again(boot):
    """selftest=probestale (kernel/trace/probe_test.c): a hit on the boot CPU's own
    call, then the frame of a trap taken on an int3 since removed goes back to the
    original instruction, and an int3 no probe set is left to the panic; the boot
    then goes on to the prompt."""
    spoor = boot(smp=2, cmdline="selftest=probestale")
    out = spoor.console()
    assert re.search(r"^probestale: ok, ", out, re.MULTILINE), out[-3000:]
