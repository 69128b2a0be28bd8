"""Kernel exceptions end in one clear panic block, and QEMU reports the failure."""

import pytest

from conftest import EXIT_KERNEL_FAILURE


@pytest.mark.parametrize("kind,name,vector,cr2", [
    ("pagefault", r"page fault \(#PF, vector 14\)", 14, "0x00000000dead0000"),
    ("gpf", r"general protection fault \(#GP, vector 13\)", 13, None),
    ("divide", r"divide error \(#DE, vector 0\)", 0, None),
    ("ud", r"invalid opcode \(#UD, vector 6\)", 6, None),
])
def test_kernel_exception_prints_panic_block(boot, kind, name, vector, cr2):
    spoor = boot(smp=4, cmdline=f"selftest={kind}", wait_prompt=False)
    spoor.expect(r"smp: all 4 cpus ticking")
    spoor.expect(rf"KERNEL PANIC on cpu 0: {name}\r*\n", allow_panic=True)
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


def test_too_little_memory_halts_with_message(boot):
    spoor = boot(smp=1, mem="16M", wait_prompt=False)
    spoor.expect(r"memory: \d+ MiB usable; Spoor needs at least 32 MiB", allow_panic=True)
    spoor.expect(r"system halted", allow_panic=True)
    assert spoor.wait_exit() == EXIT_KERNEL_FAILURE
