"""Memory protection in the page tables, and reads that cost no memory
(issue 14, items 1 and 4), seen through tests/programs/memprot: a page
made PROT_NONE is not present to user space on any CPU, a frame
capability maps only as far as its rights allow, and untouched anonymous
memory reads as one shared zero page until a page is first written."""

import re

import pytest

from spoorlib import free_frames

# abi/mem.h's pages, and how many of them one last-level page table maps.
PAGE = 4096
PAGES_PER_TABLE = 512
# Frames a read of untouched memory may cost besides its last-level page
# tables: the tables above them, and whatever the kernel's heap takes.
FEW_FRAMES = 8
ZERO_CONSOLE_MIB = 1024  # more than the machine's memory: before the zero page, a frame a page
ZERO_CPU_MIB = 256
ZERO_TIMEOUT = 300
COW_THREADS = 4


@pytest.fixture
def spoor(shared):
    """The module's machine (2 CPUs, 256 MiB): the cases leave nothing behind
    but what the test that frees memory checks."""
    return shared(smp=2, modules=("memprot",))


def killed_reading(spoor, case, reading):
    """Runs memprot case, which says the address it reads with a line matching
    reading and should die on it: checks the kernel's one line and the end."""
    out = spoor.command(f"run memprot {case}")
    assert "FAIL" not in out, out
    said = re.search(reading, out)
    assert said, out
    lines = re.findall(r"^pid \d+ \(memprot\) killed: .*$", out, re.MULTILINE)
    assert len(lines) == 1, out
    match = re.fullmatch(r"pid (\d+) \(memprot\) killed: page fault at (0x[0-9a-f]+) "
                         r"\(read, not present\) rip=0x[0-9a-f]+", lines[0])
    assert match, lines[0]
    assert int(match.group(2), 16) == int(said.group(1), 16), out
    assert f"memprot (pid {match.group(1)}): killed by a fault (vector 14)" in out, out


def test_reading_a_page_made_prot_none_kills_the_program(spoor):
    killed_reading(spoor, "none-read", r"memprot: none-read: reading (0x[0-9a-f]+)")


def test_prot_none_reaches_the_tlb_of_the_cpu_reading_the_page(spoor):
    killed_reading(spoor, "none-cpus", r"memprot: none-cpus: cpu 1 reads (0x[0-9a-f]+);")


def test_the_kernel_cannot_read_or_write_a_prot_none_page_for_a_program(spoor):
    out = spoor.command("run memprot none-kernel")
    assert "memprot: none-kernel: console_write from it: bad address; sys_info into it: " \
           "bad address" in out, out


def test_a_page_made_prot_none_then_readable_again_keeps_its_data(spoor):
    out = spoor.command("run memprot none-restore")
    assert "memprot: none-restore ok (4 pages kept their data; read-write again: ok)" in out, out


# What mapping a frame capability with each rights (r, w) and prot gives:
# any mapping needs READ, a writable one WRITE too (x86 cannot write
# without reading); abi/errno.def's EACCES text otherwise.
DENIED = "permission denied"
FRAME_MAPS = {
    ("-", "none"): DENIED, ("-", "r"): DENIED, ("-", "w"): DENIED, ("-", "rw"): DENIED,
    ("w", "none"): DENIED, ("w", "r"): DENIED, ("w", "w"): DENIED, ("w", "rw"): DENIED,
    ("r", "none"): "ok", ("r", "r"): "ok", ("r", "w"): DENIED, ("r", "rw"): DENIED,
    ("rw", "none"): "ok", ("rw", "r"): "ok", ("rw", "w"): "ok", ("rw", "rw"): "ok",
}


def test_a_frame_maps_only_as_far_as_its_rights_allow(spoor):
    out = spoor.command("run memprot frame-rights")
    assert "memprot: frame-rights done" in out and "FAIL" not in out, out
    got = {(r, p): said for r, p, said in
           re.findall(r"^memprot: map rights=(\S+) prot=(\S+): (.*?)$", out, re.MULTILINE)}
    assert got == FRAME_MAPS


def test_reading_a_frame_mapped_prot_none_kills_the_program(spoor):
    killed_reading(spoor, "frame-none", r"memprot: frame-none: reading (0x[0-9a-f]+)")


def frames_used_by_read(out, mib):
    """From memprot's line for a read of mib MiB: (free frames it cost, the most it may cost)."""
    match = re.search(r"free frames (\d+) before, (\d+) after", out)
    assert match, out
    before, after = int(match.group(1)), int(match.group(2))
    pages = mib * 1024 * 1024 // PAGE
    return before - after, pages // PAGES_PER_TABLE + FEW_FRAMES


def test_console_write_of_1_gib_untouched_memory_costs_no_frames(spoor):
    out = spoor.command(f"run memprot zero-console {ZERO_CONSOLE_MIB}", timeout=ZERO_TIMEOUT)
    size = ZERO_CONSOLE_MIB * 1024 * 1024
    assert f"memprot: zero-console {ZERO_CONSOLE_MIB} MiB: console_write returned {size}," in out, \
        out
    used, most = frames_used_by_read(out, ZERO_CONSOLE_MIB)
    assert used <= most, out


def test_reading_untouched_memory_from_the_cpu_costs_no_frames(spoor):
    out = spoor.command(f"run memprot zero-cpu {ZERO_CPU_MIB}", timeout=ZERO_TIMEOUT)
    assert re.search(rf"memprot: zero-cpu {ZERO_CPU_MIB} MiB: \d+ pages read, all zero,", out), out
    used, most = frames_used_by_read(out, ZERO_CPU_MIB)
    assert used <= most, out


def test_writes_after_reads_see_zeros_then_their_own_data_on_every_cpu(spoor):
    out = spoor.command(f"run memprot zero-cow {COW_THREADS}", timeout=ZERO_TIMEOUT)
    assert f"memprot: zero-cow ok ({COW_THREADS} threads on 2 cpus, " in out, out


def test_free_memory_returns_to_start_after_the_zero_page_cases(spoor):
    cases = (f"zero-cow {COW_THREADS}", f"zero-cpu {ZERO_CPU_MIB}", "none-restore", "frame-none")
    # The first round grows the kernel's heap to its working size.
    for case in cases:
        spoor.command(f"run memprot {case}", timeout=ZERO_TIMEOUT)
    before = free_frames(spoor)
    for case in cases:
        out = spoor.command(f"run memprot {case}", timeout=ZERO_TIMEOUT)
        assert "FAIL" not in out, out
    assert free_frames(spoor) == before
