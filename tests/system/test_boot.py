"""Boot: the banner matches the machine QEMU was given, on 1, 4 and 8 CPUs."""

import re

import pytest

from conftest import PROMPT, banner_value


@pytest.mark.parametrize("smp,mem_mib", [(1, 128), (4, 256), (8, 512)])
def test_banner_matches_qemu_cpus_and_memory(boot, smp, mem_mib):
    spoor = boot(smp=smp, mem=f"{mem_mib}M", wait_prompt=False)
    spoor.expect(r"Spoor \d+\.\d+\.\d+ \(x86_64\)")
    spoor.expect(re.escape(PROMPT), timeout=60)
    banner = spoor.child.before

    assert int(banner_value(banner, "cpus online")) == smp
    usable = int(banner_value(banner, "memory").removesuffix(" MiB usable"))
    # The firmware keeps the first MiB's holes and a little at the top for itself.
    assert mem_mib - 4 <= usable <= mem_mib
    assert int(banner_value(banner, "tsc").removesuffix(" MHz")) > 0
    assert banner_value(banner, "cmdline") == ""
    assert f"smp: all {smp} cpus ticking" in banner


def test_smp_option_limits_cpus_started(boot):
    spoor = boot(smp=4, cmdline="smp=2", wait_prompt=False)
    spoor.expect(r"cpus online: 2\r*\n")
    spoor.expect(r"smp: all 2 cpus ticking")
    spoor.expect(re.escape(PROMPT))


def test_unknown_option_warns_and_boot_goes_on(boot):
    spoor = boot(smp=2, cmdline="frobnicate=1 smp=99 selftest=bogus", wait_prompt=False)
    spoor.expect(r"cmdline: unknown option 'frobnicate', ignored")
    spoor.expect(r"cmdline: bad value '99' for 'smp' \(expected 1\.\.8\), ignored")
    spoor.expect(r"cmdline: bad value 'bogus' for 'selftest' \(expected none pagefault")
    spoor.expect(r"cpus online: 2\r*\n")
    spoor.expect(r"cmdline: frobnicate=1 smp=99 selftest=bogus")
    spoor.expect(re.escape(PROMPT))


def test_tlb_shootdown_reaches_every_cpu(boot):
    spoor = boot(smp=4, cmdline="selftest=tlb", wait_prompt=False)
    spoor.expect(r"selftest tlb: ok on 4 cpus")
    spoor.expect(re.escape(PROMPT))


def test_heap_blocks_keep_contents_and_frames_come_back(boot):
    spoor = boot(smp=1, cmdline="selftest=heap", wait_prompt=False)
    spoor.expect(r"selftest heap: ok \(64 blocks x 4 rounds\)")
    spoor.expect(re.escape(PROMPT))
