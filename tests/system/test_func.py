"""The function tracer (`trace func`, abi/trace_func.h): the entries of the
kernel functions a glob matches recorded as func_entry events, named from the
kernel's symbol table with their callers; off puts the NOPs back; list says
what may be traced and why the rest may not; bad patterns change nothing."""

import re
import subprocess

import pytest

from spoorlib import KERNEL, flip_under_tracegen, reset_tracing, status

ENTRY = re.compile(r"^\[ *\d+\.\d+\] cpu=\d+ pid=\d+ tid=\d+ comm=\S+ func_entry "
                   r"func=(\S+) caller=(\S+)$", re.MULTILINE)
TRACED = re.compile(r"trace: (\d+) kernel functions traced")


@pytest.fixture
def spoor(shared):
    """A machine of 2 CPUs; each test leaves no function traced and tracing off."""
    machine = shared(smp=2)
    yield machine
    machine.command("trace func off")
    reset_tracing(machine)


def call_before(ret):
    """The function the call instruction that ends just before the return address
    ret ("do_ipc+0x4a") calls, from kernel.elf's symbols and code."""
    name, offset = ret.split("+")
    symbols = subprocess.run(["nm", str(KERNEL)], check=True, capture_output=True, text=True)
    start = next(int(line.split()[0], 16) for line in symbols.stdout.splitlines()
                 if line.split()[-1] == name)
    at = start + int(offset, 16)
    code = subprocess.run(["objdump", "-d", f"--start-address={at - 5:#x}",
                           f"--stop-address={at:#x}", str(KERNEL)],
                          check=True, capture_output=True, text=True).stdout
    call = re.search(r"\scall\s+[0-9a-f]+ <(\w+)>", code)
    return call and call.group(1)


def entries(spoor):
    """The func_entry events of a dump: (function, caller) pairs."""
    return ENTRY.findall(spoor.command("trace dump kind=func_entry"))


def run_pid(spoor, line, verdict):
    """Runs a program to its end and returns its pid, from the shell's [pid N] line."""
    out = spoor.command(line, timeout=300)
    assert verdict in out, out
    return int(re.search(r"^\[pid (\d+)\]", out, re.MULTILINE).group(1))


def test_traced_ipc_functions_record_their_entries_with_callers(spoor):
    out = spoor.command("trace func ipc_*")
    traced = TRACED.search(out)
    assert traced and int(traced.group(1)) > 5, out
    assert "func" in spoor.command("trace status")
    assert "ipcping:" in spoor.command("run ipcping 20")
    seen = entries(spoor)
    names = {func for func, _ in seen}
    assert {"ipc_call+0x0", "ipc_reply_recv+0x0"} <= names, names
    for func, caller in seen:
        assert func.startswith("ipc_") and func.endswith("+0x0"), (func, caller)
        # the caller is a return address inside a function, never the entry itself
        assert re.fullmatch(r"\w[\w.]*\+0x[0-9a-f]+", caller) and not caller.endswith("+0x0"), \
            (func, caller)
    # kernel.elf says the instruction before each of ipc_call's return addresses calls it
    callers = {caller for func, caller in seen if func == "ipc_call+0x0"}
    for caller in callers:
        assert call_before(caller) == "ipc_call", caller


def test_off_puts_the_entries_back_and_records_nothing_more(spoor):
    assert TRACED.search(spoor.command("trace func ipc_call sched_*"))
    out = spoor.command("trace func off ipc_*")
    assert int(TRACED.search(out).group(1)) > 0, out
    assert "ipc_call traceable" in spoor.command("trace func list ipc_call")
    spoor.command("trace clear")
    spoor.command("run ipcping 20")
    names = {func.split("+")[0] for func, _ in entries(spoor)}
    assert "ipc_call" not in names and names, names
    assert "trace: 0 kernel functions traced" in spoor.command("trace func off")
    assert "func" not in spoor.command("trace status").split("mask")[1].split("\n")[0]
    spoor.command("trace clear")
    spoor.command("run ipcping 20")
    assert not entries(spoor)


def test_list_says_what_matches_and_why_the_rest_may_not_be_traced(spoor):
    out = spoor.command("trace func list *")
    assert re.search(r"^ipc_call traceable$", out, re.MULTILINE), out
    for name, why in [("ttrace_emit_slow", "the tracer itself"),
                      ("func_trace_hit", "the tracer itself"),
                      ("func_trampoline", "the tracer itself"),
                      ("graph_enter", "the tracer itself"),
                      ("graph_leave", "the tracer itself"),
                      ("graph_return", "the tracer itself"),
                      ("graph_root_trampoline", "the tracer itself"),
                      ("static_branches_set", "the patching code"),
                      ("smp_stop_others", "the patching code"),
                      ("watchdog_nmi", r"no entry NOP \(marked notrace"),
                      ("syscall_entry", "entry code"),
                      ("syscall_dispatch", "entry code"),
                      ("trap_dispatch", "trap, interrupt and NMI handling"),
                      ("mb2_header", "entry code")]:
        assert re.search(rf"^{name} not traceable: {why}", out, re.MULTILINE), name
    total = re.search(r"^# (\d+) functions match '\*': (\d+) traceable \(0 traced\), (\d+) not "
                      r"traceable; 0 entries missed$", out, re.MULTILINE)
    assert total and int(total.group(1)) == int(total.group(2)) + int(total.group(3)), out
    assert int(total.group(1)) == len(re.findall(r"^\S+ (?:traceable|not traceable: .*)$", out,
                                                 re.MULTILINE))


@pytest.mark.parametrize("line,answer", [
    ("trace func ipc_[", "trace: bad function pattern 'ipc_[' (letters, digits, _ and . with "
                         "the globs * and ?, at most 63 characters)"),
    ("trace func ipc_call nosuch_function",
     "trace: no traceable kernel function matches 'nosuch_function' (trace func list "
     "nosuch_function says why)"),
    ("trace func ttrace_emit_slow", "trace: no traceable kernel function matches "
                                    "'ttrace_emit_slow' (trace func list ttrace_emit_slow says why)"),
    ("trace func", "trace: usage: trace func PATTERN...|off [PATTERN...]|list PATTERN"),
    ("trace func list", "trace: usage: trace func PATTERN...|off [PATTERN...]|list PATTERN"),
], ids=["bad glob", "no such function", "not traceable", "no pattern", "list without one"])
def test_bad_patterns_get_one_line_and_change_nothing(spoor, line, answer):
    out = spoor.command(line)
    assert answer in out, out
    assert "# 0 traced" not in out
    listing = spoor.command("trace func list ipc_call")
    assert "ipc_call traceable" in listing, listing


def test_every_function_traced_under_load_on_4_cpus_keeps_the_machine_and_ledger(boot):
    """`trace func *`: ipcping and memtest run through every traceable function
    on 4 CPUs; then tracing every function goes on and off while tracegen
    writes on every CPU: no panic, every tracegen event recorded, every CPU's
    ledger exact, nothing missed by the recursion guard but what it counts."""
    # Rings large enough that nothing the two programs did is overwritten
    # (an idle CPU writes about 1,200 entries a second of its timer ticks),
    # and the tracer off before the dumps, which would otherwise overwrite
    # what they read with the functions the dump itself goes through.
    spoor = boot(smp=4, cmdline="ttrace.ring_kb=8192")
    assert TRACED.search(spoor.command("trace func *"))
    ipcping = run_pid(spoor, "run ipcping 50", "ipcping:")
    memtest = run_pid(spoor, "run memtest", "memtest: ok")
    spoor.command("trace func off")
    for pid, function in ((ipcping, "do_ipc"), (memtest, "uvm_fault")):
        out = spoor.command(f"trace dump kind=func_entry pid={pid} count=3000", timeout=300)
        assert re.search(r"^# end of dump: \d+ events, 0 lost$", out, re.MULTILINE), out[-400:]
        names = {func.split("+")[0] for func, _ in ENTRY.findall(out)}
        assert function in names, (pid, sorted(names))
    status(spoor)
    spoor.command("trace on test")
    flip_under_tracegen(spoor, 4, 100000, lambda _: (
        ("trace func *", TRACED.pattern), ("trace func off", TRACED.pattern)), rounds_max=3)
    status(spoor)
    assert "0 traced" in spoor.command("trace func list ipc_call")


def missed(spoor):
    """The entries the recursion guard turned away so far (every CPU's)."""
    out = spoor.command("trace func list sys_getpid")
    return int(re.search(r"; (\d+) entries missed$", out, re.MULTILINE).group(1))


@pytest.mark.parametrize("line,off,entered", [
    ("trace func sys_getpid printk", "trace func off", r"func_entry func=printk\+0x0 caller=echo_"),
    ("trace graph sys_getpid", "trace graph off", r"graph_entry func=(?:v?printk|console_\w+)\+"),
], ids=["func", "graph"])
def test_the_guard_turns_away_what_the_handler_itself_reaches(spoor, line, off, entered):
    """Issue 35 item 4: with the echo on for func, the handler's own recording
    prints the event through printk, a traced function (trace func printk), or
    one inside the graph's call (trace graph sys_getpid): the per-CPU guard
    turns those entries away and counts them, so the handler never records
    what it reaches itself, nor recurses. While printk is traced the console
    echoes each of its entries, the shell's own typing included, so the
    commands are sent and their answers awaited, not their echo."""
    before = missed(spoor)
    spoor.command("trace echo on func")
    for command, answer in ((line, r"trace: (\d+ kernel functions traced|graph of 1 )"),
                            ("run ipcping 10", "ipcping: the fast path round trip costs"),
                            (off, r"trace: (0 kernel functions traced|graph off)")):
        spoor.send(command + "\r")
        spoor.expect(answer, timeout=300)
        spoor.expect_prompt()
    spoor.command("trace echo off func")
    assert missed(spoor) > before
    out = spoor.command("trace dump cat=func", timeout=300)
    assert re.search(r"(func_entry|graph_entry) func=sys_getpid\+0x0", out), out[-2000:]
    assert not re.search(entered, out), re.search(entered, out).group(0)
