"""Boot fixture for the system tests: Spoor under QEMU, driven over its serial console.

A test asks for `boot` and calls it with the machine it wants:

    def test_something(boot):
        spoor = boot(smp=4, mem="256M", cmdline="")
        out = spoor.command("help")

Every expect also watches for a kernel panic and fails the test at once with
the panic block, unless the test says it expects one. The whole console log
of each test is written to build/test-logs/<test>.log.
"""

import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pexpect
import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "build"
KERNEL = BUILD / "kernel.elf"
LOGS = BUILD / "test-logs"

PROMPT = "init> "
PANIC = r"KERNEL PANIC[^\n]*\n(?:.*\n){0,20}?system halted"
BOOT_TIMEOUT = 60
COMMAND_TIMEOUT = 30

# QEMU's exit status: 0 after ACPI power-off; (1 << 1) | 1 after the kernel
# wrote 1 to the isa-debug-exit port, which it does when it panics.
EXIT_POWER_OFF = 0
EXIT_KERNEL_FAILURE = 3


class KernelPanic(AssertionError):
    pass


class Transcript:
    """Everything the console printed, kept for tests and written to the log as it comes."""

    def __init__(self, log):
        self.log = log
        self.text = []

    def write(self, data):
        self.text.append(data)
        self.log.write(data)

    def flush(self):
        self.log.flush()


class Spoor:
    """One running QEMU with Spoor on its serial console."""

    def __init__(self, child):
        self.child = child

    def console(self):
        """Everything the console has printed so far, including output between prompts."""
        return "".join(self.child.logfile_read.text).replace("\r", "")

    def expect(self, pattern, timeout=COMMAND_TIMEOUT, allow_panic=False):
        """Waits for a regex; returns its match. A panic fails unless allowed."""
        patterns = [pattern, pexpect.EOF, pexpect.TIMEOUT]
        if not allow_panic:
            patterns.append(PANIC)
        index = self.child.expect(patterns, timeout=timeout)
        if index == 0:
            return self.child.match
        seen = self.child.before + (self.child.after if isinstance(self.child.after, str) else "")
        if index == 3:
            raise KernelPanic(f"kernel panic while waiting for {pattern!r}:\n{seen}")
        what = "QEMU exited" if index == 1 else f"timeout after {timeout}s"
        raise AssertionError(f"{what} while waiting for {pattern!r}; console tail:\n{seen[-2000:]}")

    def send(self, text):
        self.child.send(text)

    def command(self, line, timeout=COMMAND_TIMEOUT):
        """Types a line at the prompt; returns what it printed before the next prompt."""
        self.child.send(line + "\r")
        self.expect(re.escape(line) + r"\r*\n", timeout)
        self.expect(re.escape(PROMPT), timeout)
        return self.child.before.replace("\r", "")

    def wait_exit(self, timeout=COMMAND_TIMEOUT):
        """Waits for QEMU to end; returns its exit status."""
        self.child.expect(pexpect.EOF, timeout=timeout)
        self.child.close()
        return self.child.exitstatus


# The programs only tests use (tests/programs/), loaded into every image
# the tests boot; `make run` boots without them. echo is a server init
# starts and keeps.
TEST_MODULES = ("spin", "fault", "captest", "sysfuzz", "echo server", "ipctest", "tracecap",
                "tracegen", "tracedfuzz")


class IsoCache:
    """One ISO per kernel command line and extra modules, built once per test session."""

    def __init__(self, directory):
        self.directory = Path(directory)
        self.isos = {}

    def get(self, cmdline, modules=()):
        modules = TEST_MODULES + tuple(modules)
        key = (cmdline, modules)
        if key not in self.isos:
            iso = self.directory / f"spoor-{len(self.isos)}.iso"
            subprocess.run([str(ROOT / "tools" / "mkiso"), str(iso), str(KERNEL), cmdline,
                            *modules], check=True)
            self.isos[key] = iso
        return self.isos[key]


@pytest.fixture(scope="session")
def iso_cache():
    if not KERNEL.exists():
        pytest.fail(f"{KERNEL} is missing: run the tests through `make test`")
    directory = tempfile.mkdtemp(prefix="spoor-iso-")
    yield IsoCache(directory)
    shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture
def boot(request, iso_cache):
    """Factory: boot(smp=4, mem="256M", cmdline="", modules=(), wait_prompt=True) -> Spoor.

    modules are module2 lines ("NAME [ATTRIBUTES]") for programs of
    build/tests/bin or build/bin beyond grub.cfg's and TEST_MODULES.
    """
    children = []
    LOGS.mkdir(parents=True, exist_ok=True)
    log_name = re.sub(r"[^A-Za-z0-9_.-]", "_", request.node.name)
    log = open(LOGS / f"{log_name}.log", "w", encoding="utf-8", errors="replace")

    def start(smp=4, mem="256M", cmdline="", modules=(), wait_prompt=True):
        iso = iso_cache.get(cmdline, modules)
        args = ["-smp", str(smp), "-m", mem, "-cdrom", str(iso), "-serial", "mon:stdio",
                "-display", "none", "-no-reboot",
                "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04"]
        log.write(f"### qemu-system-x86_64 {' '.join(args)}\n")
        child = pexpect.spawn("qemu-system-x86_64", args, encoding="utf-8",
                              codec_errors="replace", timeout=COMMAND_TIMEOUT)
        child.logfile_read = Transcript(log)
        children.append(child)
        spoor = Spoor(child)
        if wait_prompt:
            spoor.expect(re.escape(PROMPT), timeout=BOOT_TIMEOUT)
        return spoor

    yield start
    for child in children:
        if child.isalive():
            child.terminate(force=True)
    log.close()


def banner_value(text, name):
    """The value of a `name: value` banner line, as a string."""
    match = re.search(rf"^{re.escape(name)}: (.*?)\r*$", text, re.MULTILINE)
    assert match, f"no '{name}:' line in the banner:\n{text}"
    return match.group(1)
