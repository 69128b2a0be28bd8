"""Kernel exceptions end in one clear panic block, and QEMU reports the failure."""

import re
import subprocess

import pytest

from spoorlib import EXIT_KERNEL_FAILURE, KERNEL, events_in


@pytest.mark.parametrize("kind,name,mnemonic,vector,cr2", [
    ("pagefault", "page fault", "#PF", 14, "0x00000000dead0000"),
    ("gpf", "general protection fault", "#GP", 13, None),
    ("divide", "divide error", "#DE", 0, None),
    ("ud", "invalid opcode", "#UD", 6, None),
    # The #UD cannot be pushed on the unmapped stack: the #DF arrives on its IST stack.
    ("doublefault", "double fault", "#DF", 8, "0x00000000deacfff8"),
])
def test_kernel_exception_prints_panic_block(boot, kind, name, mnemonic, vector, cr2):
    spoor = boot(smp=4, cmdline=f"selftest={kind}", wait_prompt=False)
    spoor.expect(r"smp: all 4 cpus ticking")
    spoor.expect(rf"KERNEL PANIC on cpu 0: {name} \({mnemonic}, vector {vector}\)\r*\n",
                 allow_panic=True)
    regs = spoor.expect(r"err=(0x[0-9a-f]+) rip=(0x[0-9a-f]+) cr2=(0x[0-9a-f]+) rsp=(0x[0-9a-f]+)",
                        allow_panic=True)
    assert int(regs.group(2), 16) >= 0xffffffff80000000, "rip should be in the kernel image"
    if cr2:
        assert regs.group(3) == cr2
    spoor.expect(r"stack walk:\r*\n  #0 " + regs.group(2), allow_panic=True)
    spoor.expect(r"  #1 0xffffffff80[0-9a-f]{6}", allow_panic=True)
    spoor.expect(r"system halted", allow_panic=True)
    assert spoor.wait_exit() == EXIT_KERNEL_FAILURE


def test_page_fault_block_decodes_error_code(boot):
    spoor = boot(smp=1, cmdline="selftest=pagefault", wait_prompt=False)
    spoor.expect(r"page fault: read, not present, kernel mode", allow_panic=True)
    assert spoor.wait_exit() == EXIT_KERNEL_FAILURE


def test_the_kernel_page_fault_that_panicked_ends_the_flight_recorder(boot):
    spoor = boot(smp=1, cmdline="ttrace=mem selftest=pagefault", wait_prompt=False)
    regs = spoor.expect(r"err=(0x[0-9a-f]+) rip=0x([0-9a-f]+) cr2=", allow_panic=True)
    spoor.expect(r"flight recorder: last \d+ events on cpu 0\r*\n", allow_panic=True)
    spoor.expect(r"system halted", allow_panic=True)
    recorded = events_in("\n".join(line.strip() for line in spoor.child.before.splitlines()))
    assert recorded, spoor.child.before
    last = recorded[-1]
    assert last.kind == "mem_pf_kernel", last.line
    assert last.args == {"vaddr": "0xdead0000", "rip": "0x" + regs.group(2).lstrip("0"),
                         "err": regs.group(1)}, last.line
    assert spoor.wait_exit() == EXIT_KERNEL_FAILURE


def test_too_little_memory_halts_with_message(boot):
    spoor = boot(smp=1, mem="16M", wait_prompt=False)
    spoor.expect(r"memory: \d+ MiB usable; Spoor needs at least 32 MiB", allow_panic=True)
    spoor.expect(r"system halted", allow_panic=True)
    assert spoor.wait_exit() == EXIT_KERNEL_FAILURE


def kernel_functions():
    """The kernel image's functions, (start, name), sorted, as nm gives them."""
    out = subprocess.run(["nm", "-n", "--defined-only", str(KERNEL)], check=True,
                         capture_output=True, text=True).stdout
    return [(int(a, 16), n) for a, t, n in (line.split() for line in out.splitlines())
            if t in "tT" and not n.startswith(".")]


def test_panic_stack_walk_names_each_function_as_the_elf_does(boot):
    spoor = boot(smp=1, cmdline="selftest=pagefault", wait_prompt=False)
    spoor.expect(r"stack walk:\r*\n", allow_panic=True)
    spoor.expect(r"trace counters:", allow_panic=True)  # the walk has ended
    block = spoor.child.before
    lines = re.findall(r"#(\d+) 0x([0-9a-f]{16}) (\w+)\+0x([0-9a-f]+)", block)
    assert len(lines) >= 2, block
    functions = kernel_functions()
    for _, addr, name, offset in lines:
        addr = int(addr, 16)
        start, want = max(f for f in functions if f[0] <= addr)
        assert (name, int(offset, 16)) == (want, addr - start), block
    assert lines[0][2] == "selftest_pagefault", block
    assert spoor.wait_exit() == EXIT_KERNEL_FAILURE
