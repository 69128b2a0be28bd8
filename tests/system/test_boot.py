"""Boot: the banner matches the machine QEMU was given, on 1, 4 and 8 CPUs; the
kernel command line's options, good and bad; the boot-time self-tests."""

import re
import subprocess

import pytest

from spoorlib import BOOT_TIMEOUT, BUILD, PROMPT, ROOT, TEST_MODULES, Spoor, Transcript, \
    banner_value, ps


@pytest.mark.parametrize("smp,mem_mib", [(1, 128), (4, 256), (8, 512)])
def test_banner_matches_qemu_cpus_and_memory(boot, smp, mem_mib):
    spoor = boot(smp=smp, mem=f"{mem_mib}M", wait_prompt=False)
    spoor.expect(r"Spoor \d+\.\d+\.\d+ \(x86_64\)")
    banner = spoor.expect_prompt()

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


def test_calibration_windows_read_late_leave_the_clock_rate_as_it_was(boot):
    """The TSC and LAPIC rates came from one 20 ms PIT countdown: a host that did
    not run the boot CPU's vCPU between the count's start and its first reading
    gave a window near zero ("tsc: 4 MHz", then the panic "smp: 2 of 2 cpus took
    no timer interrupts"). inject=calstall reads one countdown too late to see any
    of it and another a whole countdown too late. Both boots run under -icount, so
    that the rates depend on the guest alone and must agree to the MHz."""
    rates = []
    for cmdline in ("", "inject=calstall"):
        spoor = boot(smp=2, cmdline=cmdline, icount=True, wait_prompt=False)
        rates.append(int(spoor.expect(r"tsc: (\d+) MHz").group(1)))
        spoor.expect(r"smp: all 2 cpus ticking")
        spoor.expect_prompt()
        spoor.terminate()
    assert rates[0] > 0 and rates[1] == rates[0], rates


BAD_OPTIONS = "frobnicate=1 smp=99 selftest=bogus"


class TestBadOptions:
    """One boot with three bad options: each is named in a warning and ignored."""

    @pytest.fixture(scope="class")
    def banner(self, machines):
        """The console of a boot (2 CPUs) with BAD_OPTIONS, up to its first prompt."""
        machine = machines.get(smp=2, cmdline=BAD_OPTIONS)
        console = machine.spoor.console()
        yield console[:console.index(PROMPT) + len(PROMPT)]
        machines.retire(machine)

    @staticmethod
    def before_cpus_online(banner, warning):
        """Whether warning comes in the banner, before the CPUs start."""
        match = re.search(warning, banner)
        assert match, banner
        assert match.start() < banner.index("cpus online:"), banner

    def test_unknown_option_is_named_and_ignored(self, banner):
        self.before_cpus_online(banner, r"cmdline: unknown option 'frobnicate', ignored")

    def test_out_of_range_smp_is_refused_and_every_cpu_starts(self, banner):
        self.before_cpus_online(banner,
                                r"cmdline: bad value '99' for 'smp' \(expected 1\.\.8\), ignored")
        assert re.search(r"^cpus online: 2$", banner, re.MULTILINE), banner

    def test_unknown_selftest_is_refused_with_the_known_kinds(self, banner):
        self.before_cpus_online(
            banner, r"cmdline: bad value 'bogus' for 'selftest' \(expected none pagefault")

    def test_boot_goes_on_to_the_prompt_and_shows_the_command_line(self, banner):
        line = re.search(rf"^cmdline: {BAD_OPTIONS}$", banner, re.MULTILINE)
        assert line, banner
        assert line.start() < banner.index(PROMPT), banner


def test_tlb_shootdown_reaches_every_cpu(boot):
    spoor = boot(smp=4, cmdline="selftest=tlb", wait_prompt=False)
    spoor.expect(r"selftest tlb: ok on 4 cpus")
    spoor.expect(re.escape(PROMPT))


def test_heap_blocks_keep_contents_and_frames_come_back(boot):
    spoor = boot(smp=1, cmdline="selftest=heap", wait_prompt=False)
    spoor.expect(r"selftest heap: ok \(64 blocks x 4 rounds\)")
    spoor.expect(re.escape(PROMPT))


def test_an_nmi_where_the_kernel_holds_the_users_gs_base_finds_its_own_cpu(boot):
    """An NMI can land between syscall_entry and its swapgs, or between trap_return's
    swapgs and its iretq, where interrupts are masked but GS holds the user's base.
    The entry took the kernel's mode for the per-CPU base, the handler read its
    per-CPU data at address 0 and faulted, and the machine triple-faulted (QEMU exited
    quietly under the lockup detector's NMIs). selftest=nmigs takes one there on
    purpose; the machine then goes on to the prompt and runs a program."""
    spoor = boot(smp=2, cmdline="selftest=nmigs", wait_prompt=False)
    spoor.expect(r"selftest nmigs: an NMI on cpu 0 with the user's GS base found its own "
                 r"per-CPU data")
    spoor.expect(re.escape(PROMPT))
    assert "hello" in spoor.command("run hello")


def test_a_trace_area_too_large_for_memory_is_shrunk_and_said_once(boot):
    spoor = boot(smp=4, mem="64M", cmdline="ttrace.ring_kb=16384 ttrace.aux_kb=65536",
                 wait_prompt=False)
    banner = spoor.expect_prompt()
    cut = re.findall(r"^cmdline: ttrace\.ring_kb=16384 ttrace\.aux_kb=65536 take more than half "
                     r"the free memory \((\d+) KiB\): using ttrace\.ring_kb=(\d+) "
                     r"ttrace\.aux_kb=(\d+)\r*$", banner, re.MULTILINE)
    assert len(cut) == 1, banner
    free_kib, ring_kb, aux_kb = map(int, cut[0])
    assert 4 <= ring_kb < 16384 and 4 <= aux_kb < 65536
    assert ring_kb * 4 + aux_kb <= free_kib // 2
    # Halving the larger part first keeps the two within a factor of two of each other.
    assert aux_kb <= 2 * ring_kb * 4 and ring_kb * 4 <= 2 * aux_kb
    assert re.search(rf"^ttrace: 4 cpus x {ring_kb * 1024 // 64} entries, aux {aux_kb} KiB,",
                     banner, re.MULTILINE), banner
    assert re.search(rf"4 cpus x {ring_kb * 1024 // 64} entries, aux {aux_kb} KiB",
                     spoor.command("trace status"))
    assert "hello: argc=1" in spoor.command("run hello")


def test_without_a_trace_area_traced_says_why_once_and_stays_down(boot):
    spoor = boot(smp=2, cmdline="ttrace.ring_kb=0", wait_prompt=False)
    spoor.expect(r"ttrace: ttrace\.ring_kb=0: no trace area; tracing is off")
    spoor.expect(r"traced: the kernel has no trace area \(its ttrace: line at boot says why\); "
                 r"nothing to serve")
    spoor.expect(r"init: traced has nothing to serve; not restarting it")
    assert "trace: traced is not running" in spoor.command("trace status")
    assert "traced" not in {row[2] for row in ps(spoor)}
    console = spoor.console()
    assert console.count("traced: the kernel has no trace area") == 1, console
    assert "restarting" not in console.replace("not restarting", "")


def make(*args):
    done = subprocess.run(["make", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=BOOT_TIMEOUT)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def iso_programs(iso):
    """The programs an image carries in /boot/bin."""
    out = subprocess.run(["xorriso", "-indev", str(iso), "-find", "/boot/bin", "-type", "f"],
                         capture_output=True, text=True, check=True).stdout
    return {line.strip().strip("'").rsplit("/", 1)[-1] for line in out.splitlines() if line}


def test_make_run_with_programs_boots_those_test_programs_and_the_default_image_has_none(
        console_log):
    """make run PROGRAMS="hotspot tracegen" boots an image of its own with them, for the
    README's examples; make run's own image stays the product's."""
    assert "-cdrom build/spoor.iso" in make("-n", "run")
    assert "-cdrom build/run.iso" in make("-n", "run", "PROGRAMS=hotspot tracegen")
    make("build/run.iso", "PROGRAMS=hotspot tracegen")
    tests_only = {m.split()[0] for m in TEST_MODULES}
    assert not iso_programs(BUILD / "spoor.iso") & tests_only
    assert iso_programs(BUILD / "run.iso") & tests_only == {"hotspot", "tracegen"}
    spoor = Spoor.start(BUILD / "run.iso", Transcript(console_log), smp=2, export=False)
    try:
        banner = spoor.expect_prompt(BOOT_TIMEOUT)
        assert {"hotspot", "tracegen"} <= set(banner_value(banner, "programs").split())
        assert "tracegen: emitted" in spoor.command("run tracegen 10 0")
    finally:
        spoor.terminate()
