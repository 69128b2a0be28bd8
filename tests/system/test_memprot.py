"""Memory protection in the page tables (issue 14, item 1), seen through
tests/programs/memprot: a page made PROT_NONE is not present to user
space on any CPU, and a frame capability maps only as far as its rights
allow."""

import re

import pytest


@pytest.fixture
def spoor(shared):
    """The module's machine (2 CPUs, 256 MiB): the cases leave nothing behind."""
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
