"""CPUs that do not come online: an application processor whose start fails
(inject=apstart: the first one is never sent its start-up IPIs) leaves the
machine with one CPU fewer, and tracing, its ledger and the panic block whole
on the CPUs that did come up (a CPU's trace ring is wired as it comes online;
the slot of the one that failed is taken by the next). An application
processor that starts but is slow to come online (inject=aplate: it stops
for two seconds once started, as a vCPU the host does not run for a while
would) is waited for, not given up on."""

import re

from spoorlib import EXIT_KERNEL_FAILURE, dump, events_in, status

FAILED = r"smp: cpu with APIC id 1 did not start"
CPUS = 4


def test_a_cpu_that_does_not_start_leaves_tracing_whole_on_the_others(boot):
    spoor = boot(smp=4, cmdline="inject=apstart", wait_prompt=False)
    spoor.expect(FAILED)
    spoor.expect(r"cpus online: 3\r*\n")
    spoor.expect(r"smp: all 3 cpus ticking")
    spoor.expect_prompt()

    assert "trace: enabled all" in spoor.command("trace on all")
    assert "trace: cleared every ring" in spoor.command("trace clear")
    assert "memtest: ok" in spoor.command("run memtest", timeout=120)
    assert "tracing now: none" in spoor.command("trace off")

    # Every CPU online recorded (each takes timer interrupts); the ring laid
    # out for the CPU that never came has nothing, and every ledger is exact.
    counts = status(spoor)
    assert set(counts) == {0, 1, 2, 3}, counts
    for cpu in (0, 1, 2):
        assert counts[cpu]["stored"] > 0, counts
    assert counts[3]["emitted"] == 0, counts
    for cpu in (0, 1, 2):
        found, out = dump(spoor, f"cpu={cpu} last=5")
        assert len(found) == 5 and {e.cpu for e in found} == {cpu}, out
    assert re.search(r"^3 cpus, ", spoor.command("cpus"), re.MULTILINE)


def test_a_panic_after_a_cpu_did_not_start_prints_the_counters_of_those_online(boot):
    spoor = boot(smp=4, cmdline="inject=apstart ttrace=all selftest=pagefault",
                 wait_prompt=False)
    spoor.expect(FAILED)
    spoor.expect(r"KERNEL PANIC on cpu 0: page fault", allow_panic=True)
    spoor.expect(r"trace counters:\r*\n", allow_panic=True)
    spoor.expect(r"system halted", allow_panic=True)
    assert spoor.wait_exit() == EXIT_KERNEL_FAILURE
    console = spoor.console()
    assert console.count("KERNEL PANIC") == 1, console[-4000:]
    block = console[console.index("trace counters:"):]
    counters = re.findall(r"^  cpu (\d+): emitted=(\d+) stored=(\d+) overwritten=(\d+) "
                          r"dropped=(\d+) cleared=(\d+)$", block, re.MULTILINE)
    assert [int(c[0]) for c in counters] == [0, 1, 2], block
    for _, emitted, *parts in counters:
        assert int(emitted) == sum(map(int, parts)) and int(emitted) > 0, block
    recorder = re.search(r"^flight recorder: last (\d+) events on cpu 0\n((?:  \[.*\n)+)", block,
                         re.MULTILINE)
    assert recorder and int(recorder.group(1)) > 0, block
    assert events_in("\n".join(line.strip() for line in recorder.group(2).splitlines())), block


def test_a_cpu_slow_to_come_online_once_started_is_waited_for(boot):
    """The boot CPU gave an application processor one second, by the TSC, to
    come online, then sent it INIT and reused its slot: on a loaded host that
    did not run the AP's vCPU for a second, the machine came up a CPU short
    ("cpu with APIC id 2 did not start"), and an AP reset in the middle of
    its own set-up may leave a lock it took held. Once an AP runs its own
    code it is waited for until it is online."""
    spoor = boot(smp=CPUS, cmdline="inject=aplate", wait_prompt=False)
    online = int(spoor.expect(r"cpus online: (\d+)\r*\n").group(1))
    assert online == CPUS and "did not start" not in spoor.console(), spoor.console()
    spoor.expect(rf"smp: all {CPUS} cpus ticking")
    spoor.expect_prompt()
    assert re.search(rf"^{CPUS} cpus, ", spoor.command("cpus"), re.MULTILINE)
