"""User-defined trace events: register, enable, write, dump, disable; the
status byte programs read instead of a syscall; refused writes and their
counters; cleanup when a program exits; the duplicate-registration rules;
listings longer than a page; and four writers on four CPUs with exact
accounting."""

import re

import pytest

from spoorlib import dump, expect_after, expect_count, pid_of, reset_tracing, restarted_pid, status, \
    verified

TICK = "uevdemo_tick u32 seq;char[16] tag"
MSG = "uevdemo_msg u64 value;__data_loc char[] text"
ROUNDS = re.compile(r"uevdemo: (\d+) rounds, (\d+) writes \(tick (\d+), msg (\d+)\), (\d+) refused")
LOAD_TIMEOUT = 300
MAX_EVENTS = 256


def events(spoor):
    """`trace events`: {name: (id, used, holders, written, rejected, desc)} and the totals."""
    out = spoor.command("trace events")
    found = {}
    for m in re.finditer(r"^(\d+):(\w+)( # used)?\n#   holders (\d+), written (\d+), "
                         r"rejected (\d+): (.*)$", out, re.MULTILINE):
        found[m.group(2)] = (int(m.group(1)), bool(m.group(3)), int(m.group(4)),
                             int(m.group(5)), int(m.group(6)), m.group(7))
    totals = re.search(r"^Active: (\d+)\nBusy: (\d+)\nMax: (\d+)$", out, re.MULTILINE)
    assert totals, out
    return found, tuple(int(t) for t in totals.groups())


def rounds(out):
    m = ROUNDS.search(out)
    assert m, out
    return tuple(int(g) for g in m.groups())


@pytest.fixture
def spoor(shared):
    """The module's machine with 2 CPUs (256 MiB, the default command line).

    At the start of each test tracing is off (every user event too), in
    overwrite mode, every ring empty, and no user event is registered: the
    next registration of a name starts its counters at zero. The aux strings
    of earlier registrations stay (they are durable). A test must let every
    program it starts end, so that no event is held.
    """
    spoor = shared(smp=2)
    found, _ = events(spoor)
    for name in found:
        spoor.command(f"trace off user:{name}")
        # An event nobody holds or enables may go as soon as it is off.
        spoor.command(f"trace unregister {name}")
    reset_tracing(spoor)
    assert events(spoor) == ({}, (0, 0, MAX_EVENTS))
    return spoor


def hold_demo_events(spoor):
    """The shell registers uevdemo's two events and holds them: they outlive the
    program (an event nobody holds or enables is released when its last holder
    lets go)."""
    for desc in (TICK, MSG):
        assert "trace: registered user event" in spoor.command(f"trace register '{desc}'")


def test_program_nobody_listens_to_makes_no_writes(spoor):
    # The program checks its status bytes and makes no write syscall.
    assert rounds(spoor.command("run uevdemo 50")) == (50, 0, 0, 0, 0)


def test_events_listing_shows_each_description_and_zero_counts(spoor):
    hold_demo_events(spoor)
    spoor.command("run uevdemo 50")
    found, totals = events(spoor)
    assert found["uevdemo_tick"][1:] == (False, 1, 0, 0, TICK)
    assert found["uevdemo_msg"][1:] == (False, 1, 0, 0, MSG)
    assert totals == (2, 0, MAX_EVENTS)


def test_an_event_nobody_holds_or_enables_is_released_with_its_last_holder(spoor):
    spoor.command("run uevdemo 50")
    assert events(spoor) == ({}, (0, 0, MAX_EVENTS))


def test_trace_on_user_has_every_user_event_written(spoor):
    assert "trace: enabled user; tracing now: user" in spoor.command("trace on user")
    assert rounds(spoor.command("run uevdemo 50")) == (50, 100, 50, 50, 0)


def test_dump_decodes_user_event_fields_by_name(spoor):
    spoor.command("trace on user")
    spoor.command("run uevdemo 50")
    found, _ = dump(spoor, "cat=user")
    ticks = [e for e in found if e.kind == "user:uevdemo_tick"]
    msgs = [e for e in found if e.kind == "user:uevdemo_msg"]
    assert [e.args["seq"] for e in ticks] == [str(i) for i in range(50)]
    assert [e.args["tag"] for e in ticks[:2]] == ['"round', '"round']
    assert re.search(r"user:uevdemo_tick seq=7 tag=\"round 7\"$", ticks[7].line), ticks[7].line
    assert [e.args["value"] for e in msgs[:4]] == ["0", "1", "4", "9"]
    assert msgs[3].line.endswith('text="odd"'), msgs[3].line


def test_events_listing_counts_writes_and_no_hold_outlives_its_program(spoor):
    spoor.command("trace on user")
    spoor.command("run uevdemo 50")
    found, totals = events(spoor)
    assert found["uevdemo_tick"][1:5] == (True, 0, 50, 0), "the program's hold outlived it"
    assert totals == (2, 2, MAX_EVENTS)


@pytest.mark.parametrize("cats", ["all", "sched,user"])
def test_user_category_from_the_boot_command_line_has_every_user_event_written(boot, cats):
    spoor = boot(smp=2, cmdline=f"ttrace={cats}")
    assert re.search(r"^trace: mask \S*user", spoor.command("trace status"), re.MULTILINE)
    assert rounds(spoor.command("run uevdemo 20")) == (20, 40, 20, 20, 0)
    # The kernel keeps the enabled state: a restarted traced finds it as it was.
    old = pid_of(spoor, "traced")
    out = spoor.command(f"kill -f {old}")
    expect_after(spoor, out, r"init: traced killed, restarting")
    restarted_pid(spoor, "traced", old)
    assert rounds(spoor.command("run uevdemo 20")) == (20, 40, 20, 20, 0)
    spoor.command("trace off user")
    assert rounds(spoor.command("run uevdemo 20")) == (20, 0, 0, 0, 0)


def test_one_user_event_enabled_alone_is_the_only_one_written(spoor):
    hold_demo_events(spoor)
    out = spoor.command("trace on user:uevdemo_msg")
    assert "trace: enabled user event uevdemo_msg; tracing now: user" in out, out
    assert rounds(spoor.command("run uevdemo 10")) == (10, 10, 0, 10, 0)


def test_one_user_event_disabled_is_no_longer_written(spoor):
    hold_demo_events(spoor)
    spoor.command("trace on user:uevdemo_msg")
    out = spoor.command("trace off user:uevdemo_msg")
    assert "trace: disabled user event uevdemo_msg" in out, out
    assert rounds(spoor.command("run uevdemo 10")) == (10, 0, 0, 0, 0)


def test_enabling_an_unknown_user_event_is_refused(spoor):
    assert "trace: no user event 'nosuch' (see trace events)" in \
        spoor.command("trace on user:nosuch")


def test_a_long_payload_takes_continuation_entries(spoor):
    spoor.command("trace on user")
    out = spoor.command("run uevdemo big")
    assert "uevdemo: big event written (184 bytes)" in out, out
    found, _ = dump(spoor, "cat=user")
    text = "".join(chr(ord("a") + i % 26) for i in range(179))
    assert len(found) == 1 and found[0].line.endswith(f' user:uevdemo_big n=7 text="{text}"'), \
        [e.line for e in found]


def test_binary_reader_verifies_an_event_with_continuations(spoor):
    spoor.command("trace on user")
    spoor.command("run uevdemo big")
    out = spoor.command("run -r tracecat -b")
    assert "tracecat: 1 events verified (4 entries, 0 lost)" in out, out


def test_the_status_byte_flips_without_a_syscall(spoor):
    expect_after(spoor, spoor.command("run uevdemo watch &"), r"uevdemo: uevdemo_tick is off")
    expect_after(spoor, spoor.command("trace on user:uevdemo_tick"), r"uevdemo: uevdemo_tick is on")
    out = spoor.command("trace off user:uevdemo_tick")
    expect_after(spoor, out, r"uevdemo: uevdemo_tick is off")
    expect_after(spoor, out, r"\[done\] uevdemo \(pid \d+\): exited with status 0")


def test_bad_writes_while_nobody_listens_are_refused_and_counted(spoor):
    hold_demo_events(spoor)
    out = spoor.command("run uevdemo bad")
    assert "uevdemo: 4 bad writes refused, 1 counted as rejected" in out, out
    found, _ = events(spoor)
    assert found["uevdemo_tick"][4] == 1 and found["uevdemo_msg"][4] == 0, found


def test_bad_writes_while_traced_are_refused_and_counted(spoor):
    spoor.command("trace on user")
    out = spoor.command("run uevdemo bad")
    assert "uevdemo: 8 bad writes refused, 5 counted as rejected" in out, out
    found, _ = events(spoor)
    assert found["uevdemo_tick"][3:5] == (0, 3), found
    assert found["uevdemo_msg"][3:5] == (0, 2), found


def test_refused_writes_store_nothing(spoor):
    spoor.command("trace on user")
    spoor.command("run uevdemo bad")
    found, _ = dump(spoor, "cat=user")
    assert not found, "a refused write stored something"


DEMO = "demo u32 a;char[16] s"


def register_demo(spoor):
    out = spoor.command(f"trace register '{DEMO}'")
    m = re.search(r"trace: registered user event (\d+) 'demo' \(write index (\d+)\)", out)
    assert m, out
    return int(m.group(1))


def test_registering_the_same_fields_again_gives_the_same_event(spoor):
    number = register_demo(spoor)
    # The same fields, spaced differently: the same event.
    out = spoor.command("trace register 'demo   u32 a ; char[16] s;'")
    assert f"trace: registered user event {number} 'demo'" in out, out


@pytest.mark.parametrize("other", ["demo u32 a", "demo char[16] s;u32 a", "demo u64 a;char[16] s",
                                   "demo u32 a;char[17] s", "demo u32 b;char[16] s"])
def test_other_fields_under_a_registered_name_are_refused_and_change_nothing(spoor, other):
    register_demo(spoor)
    out = spoor.command(f"trace register '{other}'")
    assert "trace: cannot register" in out and "already in use" in out, out
    found, totals = events(spoor)
    assert found["demo"][5] == DEMO and totals[0] == 1, found


@pytest.mark.parametrize("bad,why", [("demo2 long x", "long"), ("demo3 u32 a 4", "size"),
                                     ("demo4:BPF u32 a", "flags"), ("x" * 64, "longer than 63")],
                         ids=["type", "size", "flags", "name length"])
def test_refused_description_gets_the_parsers_reason(spoor, bad, why):
    out = spoor.command(f"trace register '{bad}'")
    assert re.search(rf"^trace: cannot register '{re.escape(bad)}': .*{why}", out,
                     re.MULTILINE), out


def test_held_event_cannot_be_unregistered(spoor):
    expect_after(spoor, spoor.command("run uevdemo watch &"), r"uevdemo: uevdemo_tick is off")
    out = spoor.command("trace unregister uevdemo_tick")
    assert "trace: user event 'uevdemo_tick' is busy" in out, out
    expect_after(spoor, spoor.command("trace on user:uevdemo_tick"), r"uevdemo: uevdemo_tick is on")
    expect_after(spoor, spoor.command("trace off user:uevdemo_tick"),
                 r"\[done\] uevdemo \(pid \d+\): exited with status 0")


def test_an_enabled_event_nobody_holds_can_be_unregistered(spoor):
    register_demo(spoor)
    spoor.command("trace on user:demo")
    out = spoor.command("trace unregister demo")
    assert "trace: unregistered user event 'demo'" in out, out
    assert "demo" not in events(spoor)[0]


def test_unregistered_event_is_gone(spoor):
    register_demo(spoor)
    out = spoor.command("trace unregister demo")
    assert "trace: unregistered user event 'demo'" in out, out
    assert "demo" not in events(spoor)[0]
    out = spoor.command("trace unregister demo")
    assert "trace: no user event 'demo' (see trace events)" in out, out


def test_a_programs_hold_goes_with_it(spoor):
    # Held while the program runs; free to delete once it exits.
    expect_after(spoor, spoor.command("run uevdemo watch &"), r"uevdemo: uevdemo_tick is off")
    found, _ = events(spoor)
    assert found["uevdemo_tick"][2] == 1, found
    assert "is busy" in spoor.command("trace unregister uevdemo_tick")
    expect_after(spoor, spoor.command("trace on user:uevdemo_tick"), r"uevdemo: uevdemo_tick is on")
    expect_after(spoor, spoor.command("trace off user:uevdemo_tick"),
                 r"\[done\] uevdemo \(pid \d+\): exited with status 0")
    # Its last holder gone and nobody enabling it, the event is released.
    assert "uevdemo_tick" not in events(spoor)[0]


class TestListingsLongerThanAPage:
    """A machine of its own (1 CPU), so that its aux holds no other event's
    strings: 25 events with long descriptions, more than a reply page."""

    NAMES = [f"event_{i:02d}" for i in range(25)]

    @pytest.fixture(scope="class")
    def machine(self, machines):
        machine = machines.get(smp=1, group="25-events")
        for name in self.NAMES:
            fields = ";".join(f"u32 {name}_field_{j}_long_name" for j in range(5))
            out = machine.spoor.command(f"trace register '{name} {fields}'")
            assert f"'{name}'" in out, out
        yield machine
        machines.retire(machine)

    @pytest.fixture
    def spoor(self, shared, machine):
        """The machine with the 25 events registered; a test may only read."""
        return shared.use(machine)

    def test_strings_of_events_lists_each_once_in_order(self, spoor):
        out = spoor.command("trace strings events")
        listed = re.findall(r"^event \d+ (event_\d\d) ", out, re.MULTILINE)
        assert listed == self.NAMES, out[-1500:]
        assert re.search(r"^# 25 strings$", out, re.MULTILINE), out[-500:]

    def test_events_listing_has_each_once(self, spoor):
        found, totals = events(spoor)
        assert sorted(found) == self.NAMES and totals == (25, 0, MAX_EVENTS), totals

    def test_all_strings_hold_every_event_and_the_syscalls(self, spoor):
        out = spoor.command("trace strings")
        assert len(re.findall(r"^event \d+ event_", out, re.MULTILINE)) == 25
        assert re.search(r"^syscall 7 spawn$", out, re.MULTILINE), out[:500]


class TestFourWritersOnFourCpus:
    """A machine of its own (4 CPUs): `uevdemo 10000 CPU` on each CPU at once,
    every user event on."""

    N = 10000
    CPUS = 4

    @pytest.fixture(scope="class")
    def session(self, machines):
        machine = machines.get(smp=self.CPUS, group="four-writers")
        spoor = machine.spoor
        hold_demo_events(spoor)  # so the counters outlive the writers
        spoor.command("trace on user")
        spoor.command("trace clear")
        before = status(spoor)
        start = len(spoor.console())
        for cpu in range(self.CPUS):
            spoor.command(f"run uevdemo {self.N} {cpu} &")
        # Each writer's summary and end, wherever they fell among the commands' output.
        summaries = expect_count(spoor, ROUNDS, self.CPUS, start, LOAD_TIMEOUT)
        expect_count(spoor, r"\[done\] uevdemo \(pid \d+\): exited with status 0", self.CPUS, start,
                     LOAD_TIMEOUT)
        spoor.command("trace off")
        yield machine, summaries, before, status(spoor)
        machines.retire(machine)

    @pytest.fixture
    def spoor(self, shared, session):
        """The machine after the writers, tracing off: a test may only read."""
        return shared.use(session[0])

    def test_each_writer_writes_both_events_every_round(self, session):
        summaries = session[1]
        for rounds_done, _writes, _tick, _msg, refused in summaries:
            assert int(rounds_done) == self.N and refused == "0", summaries
        assert sum(int(s[1]) for s in summaries) == self.CPUS * 2 * self.N

    def test_events_listing_counts_every_write(self, spoor, session):
        written = sum(int(s[1]) for s in session[1])
        found, _ = events(spoor)
        assert found["uevdemo_tick"][3] + found["uevdemo_msg"][3] == written, found

    def test_each_cpu_emitted_exactly_its_writers_events(self, session):
        _, summaries, before, now = session
        emitted = {cpu: now[cpu]["emitted"] - before[cpu]["emitted"] for cpu in now}
        assert sum(emitted.values()) == sum(int(s[1]) for s in summaries), (before, now)
        for cpu in range(self.CPUS):
            assert emitted[cpu] == 2 * self.N, (cpu, before, now)

    def test_reader_gets_every_stored_event_and_the_rest_are_counted_lost(self, spoor, session):
        _, _, before, now = session
        _, entries, lost = verified(spoor.command("run -r tracecat -b", timeout=LOAD_TIMEOUT))
        assert entries == sum(now[c]["stored"] for c in now)
        assert lost == sum(now[c]["overwritten"] - before[c]["overwritten"] for c in now)
