"""Fixtures for the system tests: Spoor under QEMU, driven over its serial console.

Two ways to get a machine:

  - `boot`, a fresh machine for one test: for whatever changes what other
    tests would see (a panic, halt, a killed server, a fuzzer) or needs its
    own command line, memory or boot banner.

        def test_something(boot):
            spoor = boot(smp=4, mem="256M", cmdline="")

  - `shared`, the module's machine of a configuration, booted by the first
    test that asks for it and lent to the next ones until the module ends.
    Each module wraps it in a fixture whose docstring says what state a
    test may rely on and what a test must leave behind.

        @pytest.fixture
        def spoor(shared):
            return shared(smp=2)

    A group that prepares state once for several tests (a class-scoped
    fixture) takes its machine from `machines` and lends it to each test
    with `shared.use(machine)`.

Every expect also watches for a kernel panic and fails the test at once with
the panic block, unless the test says it expects one. Each test's console
log is written to build/test-logs/<module>--<test>.log; a shared machine
also keeps the log of its whole life in
build/test-logs/<module>--<machine>.log. A test that fails or errors says
the paths of its logs in its report ("console log").

`make test-system` runs two test files at once (pytest-xdist, --dist
loadfile: a module's tests run in order in one worker, so its shared
machines are booted once). Whatever two tests running at once could both
write is named per test or per boot: the logs, each boot's export folder
(build/test-traces/boot-*), each worker's ISOs (a temporary folder).

After each test that used a shared machine, the machine must answer at its
prompt, without a panic, running only the programs it ran after booting;
otherwise the test errors in its teardown and the machine is replaced by a
fresh boot for the tests that follow. A shared machine found dead when a
test asks for it (it died after the last check) fails that test with the
console's last lines; the tests after it get a fresh boot. A test that
borrows a shared machine reads only its own part of the console
(Spoor.console()).
"""

import os
import shutil
import tempfile

import pytest

from spoorlib import BOOT_TIMEOUT, KERNEL, LOGS, ROOT, TRACES, IsoCache, Spoor, Transcript, \
    console_log_path, log_name, ps, SETTLE_TIMEOUT, until


def pytest_addoption(parser):
    parser.addoption("--stress", action="store_true",
                     help="run only the tests marked stress, which take minutes (make stress)")
    parser.addoption("--stress-short", action="store_true",
                     help="the stress tests' every step, small: seconds (make stress STRESS_SHORT=1)")


def pytest_configure(config):
    config.addinivalue_line("markers", "stress: minutes long; make stress runs it, make test not")


def pytest_collection_modifyitems(config, items):
    """`make test` runs every test but the stress ones; `--stress` runs only those."""
    stress = config.getoption("--stress")
    keep = [item for item in items if bool(item.get_closest_marker("stress")) == stress]
    if len(keep) != len(items):
        config.hook.pytest_deselected(items=[item for item in items if item not in keep])
        items[:] = keep


def pytest_sessionstart(session):
    """Removes the export folders of an earlier run, once a run: in the
    process that runs the tests or, under xdist, in the controller before it
    starts its workers (xdist's own pytest_sessionstart, which starts them,
    runs last). A worker must not: the other worker's machines may already
    keep their folders there."""
    if not hasattr(session.config, "workerinput"):
        shutil.rmtree(TRACES, ignore_errors=True)


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    """Keeps each phase's report on the test, so fixtures can tell a failed test;
    a failed phase's report names the test's console logs (console_log())."""
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"report_{report.when}", report)
    logs = getattr(item, "console_logs", [])
    if report.failed and logs:
        report.sections.append(("console log", "".join(
            f"{os.path.relpath(path, ROOT)}\n" for path in logs)))


def note_log(node, path):
    """Notes a console log a test writes to, for its report if it fails."""
    node.console_logs = getattr(node, "console_logs", []) + [path]


@pytest.fixture
def console_log(request):
    """The test's console log (console_log_path()), open for writing: its fresh
    machines' consoles and its part of shared ones go there. A failed test's
    report names it and the logs of the shared machines it used."""
    path = console_log_path(request.node)
    note_log(request.node, path)
    LOGS.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", errors="replace") as log:
        yield log


@pytest.fixture(scope="session")
def iso_cache():
    if not KERNEL.exists():
        pytest.fail(f"{KERNEL} is missing: run the tests through `make test`")
    directory = tempfile.mkdtemp(prefix="spoor-iso-")
    yield IsoCache(directory)
    shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture
def boot(iso_cache, console_log):
    """Factory: boot(smp=4, mem="256M", cmdline="", modules=(), wait_prompt=True,
    export=True, icount=False) -> Spoor.

    A fresh machine for this test alone. modules are module2 lines ("NAME
    [ATTRIBUTES]") for programs of build/tests/bin or build/bin beyond
    grub.cfg's and TEST_MODULES. export=False boots without the export channel;
    icount=True under -icount, for a time that must not depend on the host
    (Spoor.start).
    """
    machines = []

    def start(smp=4, mem="256M", cmdline="", modules=(), wait_prompt=True, export=True,
              icount=False):
        spoor = Spoor.start(iso_cache.get(cmdline, modules), Transcript(console_log), smp, mem,
                            export, icount)
        machines.append(spoor)
        if wait_prompt:
            spoor.expect_prompt(BOOT_TIMEOUT)
        return spoor

    yield start
    for spoor in machines:
        spoor.terminate()


class Machine:
    """A booted Spoor lent to several tests, and what it ran right after booting."""

    def __init__(self, spoor, log, name):
        self.spoor = spoor
        self.log = log
        self.name = name
        self.programs = set()

    def programs_running(self):
        return {row[2] for row in ps(self.spoor)}

    def settle(self, recover):
        """Checks the machine is as a test found it: the prompt answers (no panic) and
        only the programs it ran after booting run. If recover, first tries to get
        back to the prompt from whatever the failed test left running."""
        spoor = self.spoor
        if recover:
            spoor.send("\x03")
        # ps on a line of its own: anything printed before it (a panic, a
        # program's last words) is read and logged before the prompt after it.
        # A program that printed its last line may take a moment to be gone.
        extra = until(lambda: self.programs_running() - self.programs, lambda extra: not extra,
                      0 if recover else SETTLE_TIMEOUT)
        if extra:
            raise AssertionError(f"{self.name}: the test left {sorted(extra)} running")
        # A failed test may have stopped in the middle of a recording, which
        # refuses every later test's `trace clear` and `trace save`. The stop
        # ends it, but what it wrote stays: the machine is replaced (as it is
        # when the stop itself fails or takes too long).
        if recover:
            out = spoor.command("trace record stop")
            if "trace: nothing is recording" not in out:
                raise AssertionError(f"{self.name}: the test left a recording running:\n{out}")


class MachinePool:
    """The machines of one test module, one per configuration and group, booted on first use."""

    def __init__(self, iso_cache, module):
        self.iso_cache = iso_cache
        self.module = module
        self.machines = {}
        self.boots = 0

    def start(self, smp, mem, cmdline, modules, group, icount=False):
        self.boots += 1
        words = [group, f"smp{smp}", mem, cmdline, *modules, "icount" if icount else "",
                 f"boot{self.boots}"]
        name = log_name(f"{self.module}--" + "-".join(w for w in words if w))
        LOGS.mkdir(parents=True, exist_ok=True)
        log = open(LOGS / f"{name}.log", "w", encoding="utf-8", errors="replace")
        spoor = Spoor.start(self.iso_cache.get(cmdline, modules), Transcript(log), smp, mem,
                            icount=icount)
        return Machine(spoor, log, name)

    def get(self, smp=4, mem="256M", cmdline="", modules=(), group="", icount=False):
        """The module's machine of this configuration; a machine of another group is
        another machine (for a group that changes what the others would see). icount:
        under -icount (Spoor.start)."""
        key = (smp, mem, cmdline, tuple(modules), group, icount)
        machine = self.machines.get(key)
        if machine and machine.spoor.alive():
            return machine
        if machine:
            # It passed the last test's check and died since: nothing has said
            # so yet. The next test that asks boots a fresh one.
            self.retire(machine)
            raise AssertionError(f"{machine.name} died after the last test that used it; "
                                 f"the console's last lines:\n{machine.spoor.last_words()}")
        machine = self.start(smp, mem, cmdline, modules, group, icount)
        self.machines[key] = machine
        machine.spoor.expect_prompt(BOOT_TIMEOUT)
        # traced commits its copy of the aux ring (256 frames) as it starts,
        # which on a loaded host may come after the first prompt, and after a
        # test's first count of free memory: test_userspace's 100 memtest runs
        # once found 254 frames fewer than before them. The shell's answer
        # comes from traced's request loop, after its start; a machine
        # without tracing answers at once.
        machine.spoor.command("trace status")
        machine.programs = machine.programs_running()
        return machine

    def record(self, smp=4, mem="256M", cmdline="", modules=()):
        """Boots a machine that ends by itself (a panic, say) and waits for QEMU to exit:
        returns (its console, QEMU's exit status), for several tests to read."""
        machine = self.start(smp, mem, cmdline, modules, "")
        try:
            status = machine.spoor.wait_exit(BOOT_TIMEOUT)
            return machine.spoor.console(), status
        finally:
            machine.spoor.terminate()
            machine.log.close()

    def retire(self, machine):
        machine.spoor.terminate()
        # What QEMU printed as it ended is read later, if ever (last_words(),
        # for a test it is lent to after all): into the transcript, not this
        # closed log.
        machine.spoor.child.logfile_read.detach(machine.log)
        machine.log.close()
        self.machines = {k: m for k, m in self.machines.items() if m is not machine}

    def close(self):
        for machine in list(self.machines.values()):
            self.retire(machine)


@pytest.fixture(scope="module")
def machines(request, iso_cache):
    """The module's shared machines (a MachinePool): get(smp=, mem=, cmdline=, modules=,
    group=) -> Machine. For class-scoped fixtures; tests go through `shared`."""
    pool = MachinePool(iso_cache, request.module.__name__)
    yield pool
    pool.close()


class Lender:
    """Lends shared machines to one test: logs the test's part of their console in
    its own log, and checks each machine after the test."""

    def __init__(self, pool, node, log):
        self.pool = pool
        self.node = node
        self.log = log
        self.lent = []

    def __call__(self, smp=4, mem="256M", cmdline="", modules=(), group="", icount=False):
        """The module's machine of this configuration (see MachinePool.get), as a Spoor."""
        return self.use(self.pool.get(smp, mem, cmdline, modules, group, icount))

    def use(self, machine):
        """Lends a machine a class-scoped fixture prepared; returns its Spoor."""
        if not machine.spoor.alive():
            self.pool.retire(machine)
            raise AssertionError(f"{machine.name} died before this test; the console's last "
                                 f"lines:\n{machine.spoor.last_words()}")
        if machine not in self.lent:
            note_log(self.node, LOGS / f"{machine.name}.log")
            machine.spoor.lend()
            self.log.write(f"### shared machine: its whole console is in {machine.name}.log\n")
            machine.log.write(f"\n### test {self.node.nodeid}\n")
            machine.spoor.child.logfile_read.attach(self.log)
            self.lent.append(machine)
        return machine.spoor

    def give_back(self):
        report = getattr(self.node, "report_call", None)
        failed = report is None or report.failed
        errors = []
        for machine in self.lent:
            try:
                machine.settle(recover=failed)
            except Exception as error:  # a panic, QEMU gone, a timeout, a program left
                self.log.write(f"\n### {machine.name} retired: {error}\n")
                errors.append(error)
                self.pool.retire(machine)
            finally:
                machine.spoor.child.logfile_read.detach(self.log)
        # A failed test has said what went wrong; the machine it left is replaced.
        if errors and not failed:
            raise AssertionError(
                "a shared machine was not left as it was found (it will be booted "
                "again for the next tests):\n" + "\n".join(str(e) for e in errors))


@pytest.fixture
def shared(request, machines, console_log):
    """Factory: shared(smp=4, mem="256M", cmdline="", modules=(), group="", icount=False) -> Spoor,
    the module's machine of that configuration, booted once for the module.

    A test may rely on: the shell at its prompt, no panic so far, and only the
    programs that ran right after boot (init, traced, the servers) running.
    Everything else (tracing, user events, memory) is as earlier tests left it,
    unless the module's own fixture resets it. A test must wait for or kill
    every program it started; after it, the fixture checks the machine (see
    the module docstring). shared.use(machine) lends a machine a class-scoped
    fixture prepared.
    """
    lender = Lender(machines, request.node, console_log)
    yield lender
    lender.give_back()

