"""traced and the shell's trace verbs: what a person types and reads.

Groups that prepare a trace once and check it from several sides: the
memtest session of the README (2 CPUs) and a mixed workload on 4 CPUs for
the filters. Then exact accounting on a small ring in both modes, following,
traced killed in the middle of a dump (a machine of its own), malformed
requests, the verbs' answers to wrong input, and a shell whose traced is
gone (a fresh boot).
"""

import re

import pytest

import entries
from spoorlib import DUMP_TIMEOUT, END, KERNEL_LOW, LOST, VERIFIED, dump, events_in, expect_after, \
    expect_count, pid_of, ps, reset_tracing, restarted_pid, spawned_pid, status, user_address, verified


@pytest.fixture
def spoor(shared):
    """The module's machine with 2 CPUs (256 MiB, the default command line).

    At the start of each test tracing is off, in overwrite mode, every ring
    empty (the counters only grow: compare them before and after). A test
    must let every program it starts end.
    """
    spoor = shared(smp=2)
    reset_tracing(spoor)
    return spoor


class Session:
    """What a group's fixture recorded once, for its tests to check."""

    def __init__(self, machine, **outputs):
        self.machine = machine
        self.__dict__.update(outputs)


class TestMemtestSession:
    """`trace on mem,proc`, `run memtest`, `trace off` on the 2-CPU machine: the
    session of the README, checked from every side."""

    @pytest.fixture(scope="class")
    def session(self, machines):
        machine = machines.get(smp=2)
        spoor = machine.spoor
        reset_tracing(spoor)
        on = spoor.command("trace on mem,proc")
        memtest = spoor.command("run memtest")
        spoor.command("trace off")
        pid = spawned_pid(spoor, "memtest")
        events, _ = dump(spoor, f"pid={pid}")
        return Session(machine, on=on, memtest=memtest, pid=pid, events=events)

    @pytest.fixture
    def spoor(self, shared, session):
        """The session's machine, tracing off, its rings as the session left them:
        a test may read them and run programs, and must not turn tracing on."""
        return shared.use(session.machine)

    def test_trace_on_says_what_is_traced_now(self, session):
        assert "trace: enabled mem,proc; tracing now: mem,proc" in session.on, session.on

    def test_memtest_passes_while_traced(self, session):
        assert "memtest: ok" in session.memtest, session.memtest

    def test_dump_of_its_pid_has_every_kind_of_memory_event(self, session):
        kinds = {e.kind for e in session.events}
        for kind in ("mem_pf", "mem_map", "mem_unmap", "mem_cow", "mem_copy"):
            assert kind in kinds, f"no {kind} for pid {session.pid}: {sorted(kinds)}"

    def test_dump_of_its_pid_has_only_its_events(self, session):
        for e in session.events:
            assert e.pid == session.pid, e.line

    @pytest.mark.parametrize("kind", ["mem_pf", "mem_map", "mem_unmap", "mem_cow", "mem_copy"])
    def test_memory_events_carry_user_addresses_and_sane_arguments(self, session, kind):
        found = [e for e in session.events if e.kind == kind]
        assert found, kind
        for e in found:
            if kind == "mem_pf":
                # A fault in a user copy has the kernel's rip.
                assert user_address(e.args["vaddr"]), e.line
                assert user_address(e.args["rip"]) or int(e.args["rip"], 16) >= KERNEL_LOW, e.line
                # values as words: the outcome by its name (abi/trace.h TTRACE_PF_OUTCOMES)
                assert e.args["outcome"] in ("mapped", "cow", "fixup", "killed"), e.line
            if kind in ("mem_map", "mem_unmap"):
                assert user_address(e.args["vaddr"]) and int(e.args["len"], 16) > 0, e.line
            if kind == "mem_cow":
                assert user_address(e.args["vaddr"]), e.line
                assert e.args["old_frame"] != e.args["new_frame"], e.line
            if kind == "mem_copy":
                assert user_address(e.args["addr"]) and int(e.args["len"]) > 0, e.line
                assert e.args["dir"] in ("from_user", "to_user"), e.line

    def test_trace_off_stops_recording(self, spoor):
        out = spoor.command("trace off")
        assert "tracing now: none" in out, out
        before = status(spoor)
        assert "memtest: ok" in spoor.command("run memtest")
        assert status(spoor) == before, "events were recorded with tracing off"

    def test_status_counts_as_stored_every_event_the_dump_shows(self, spoor):
        stored = sum(c["stored"] for c in status(spoor).values())
        found, _ = dump(spoor)
        assert len(found) == stored

    def test_tracecat_verifies_every_stored_entry_without_loss(self, spoor):
        stored = sum(c["stored"] for c in status(spoor).values())
        out = spoor.command("run -r tracecat -b", timeout=DUMP_TIMEOUT)
        assert verified(out) == (stored, stored, 0), out

    def test_tracecat_copies_every_stored_event_in_process(self, spoor):
        stored = sum(c["stored"] for c in status(spoor).values())
        out = spoor.command("run -t tracecat -c", timeout=DUMP_TIMEOUT)
        copied = re.search(r"tracecat: copied (\d+) events in \d+ ns \(\d+ skipped\)", out)
        assert copied and int(copied.group(1)) == stored, out

    def test_tracecat_copy_needs_the_control_level(self, spoor):
        out = spoor.command("run -r tracecat -c")
        assert "tracecat: cannot map the trace area: " in out, out
        assert "copied" not in out, out


def _time(us):
    return f"{us // 1000000}.{us % 1000000:06d}"


# Each filter of `trace dump`, and which events of the whole dump it keeps.
FILTERS = {
    "cpu": (lambda s: "cpu=1", lambda s, e: e.cpu == 1),
    "two cpus": (lambda s: "cpu=2 cpu=3", lambda s, e: e.cpu in (2, 3)),
    "pid": (lambda s: f"pid={s.pid}", lambda s, e: e.pid == s.pid),
    "tid": (lambda s: f"tid={s.tid}", lambda s, e: e.tid == s.tid),
    "kinds": (lambda s: "kind=mem_pf,test_tick", lambda s, e: e.kind in ("mem_pf", "test_tick")),
    "category": (lambda s: "cat=sched", lambda s, e: e.kind.startswith("sched_")),
    "categories": (lambda s: "cat=irq,test",
                   lambda s, e: e.kind.startswith("irq_") or e.kind == "test_tick"),
    "since": (lambda s: f"since={_time(s.middle)}", lambda s, e: e.us >= s.middle),
    "until": (lambda s: f"until={_time(s.middle)}", lambda s, e: e.us < s.middle),
    "pid and kind": (lambda s: f"pid={s.pid} kind=mem_cow",
                     lambda s, e: e.pid == s.pid and e.kind == "mem_cow"),
}


class TestFilters:
    """A mixed workload on the 4-CPU machine, traced once (sched, irq, proc, mem,
    test: tracegen's 50 events on CPU 2, then memtest), and every filter and
    window of `trace dump` checked against the whole dump."""

    @pytest.fixture(scope="class")
    def session(self, machines):
        machine = machines.get(smp=4)
        spoor = machine.spoor
        reset_tracing(spoor)
        spoor.command("trace on sched,irq,proc,mem,test")
        tracegen = spoor.command("run tracegen 50 2")
        assert "memtest: ok" in spoor.command("run memtest", timeout=DUMP_TIMEOUT)
        spoor.command("trace off")
        pid = spawned_pid(spoor, "memtest")
        everything, _ = dump(spoor)
        tid = next(e.tid for e in everything if e.pid == pid)
        middle = everything[len(everything) // 2].us
        return Session(machine, tracegen=tracegen, pid=pid, tid=tid, middle=middle,
                       everything=everything)

    @pytest.fixture
    def spoor(self, shared, session):
        """The workload's machine, tracing off, its rings as the workload left them:
        a test may only read them."""
        return shared.use(session.machine)

    def test_tracegen_emits_as_many_events_as_asked(self, session):
        assert "tracegen: emitted 50 of 50 events" in session.tracegen, session.tracegen

    def test_dump_has_the_events_of_every_cpu(self, session):
        assert {e.cpu for e in session.everything} == {0, 1, 2, 3}, \
            "not every CPU's events are there"

    def test_dump_merges_the_cpus_in_time_order(self, session):
        times = [e.us for e in session.everything]
        assert times == sorted(times), "not in time order"

    @pytest.mark.parametrize("name", FILTERS)
    def test_filter_keeps_exactly_the_matching_events_in_order(self, spoor, session, name):
        words, keep = FILTERS[name]
        words = words(session)
        found, out = dump(spoor, words)
        want = [e.line for e in session.everything if keep(session, e)]
        assert want, f"{words}: nothing to find"
        assert [e.line for e in found] == want, f"{words}:\n{out[-1500:]}"

    @pytest.mark.parametrize("n", [1, 7])
    def test_last_gives_the_newest_events(self, spoor, session, n):
        found, _ = dump(spoor, f"last={n}")
        assert [e.line for e in found] == [e.line for e in session.everything[-n:]]

    @pytest.mark.parametrize("n", [1, 7])
    def test_count_gives_the_oldest_events(self, spoor, session, n):
        found, _ = dump(spoor, f"count={n}")
        assert [e.line for e in found] == [e.line for e in session.everything[:n]]

    def test_last_applies_after_the_kind_filter(self, spoor):
        found, _ = dump(spoor, "kind=test_tick last=3")
        assert [e.args["seq"] for e in found] == ["47", "48", "49"]

    @pytest.mark.parametrize("words", ["pid", "cat=sched last=40"])
    def test_tracecat_prints_the_same_dump_as_the_shell(self, spoor, session, words):
        # tracecat speaks the protocol on its own.
        words = f"pid={session.pid}" if words == "pid" else words
        shell = spoor.command(f"trace dump {words}", timeout=DUMP_TIMEOUT)
        tool = spoor.command(f"run -r tracecat {words}", timeout=DUMP_TIMEOUT)
        # The dump is the same; the shell also says the pid it started and,
        # before a long dump, its size (for a person at the console).
        started = re.compile(r"^\[pid \d+\] tracecat$|^# \d+ events to print \(Ctrl-C stops\)$")
        assert [l for l in tool.splitlines() if not started.match(l)] == \
            [l for l in shell.splitlines() if not started.match(l)], words


BULK_EVENTS = 20000  # each CPU's: more than a default ring (1 MiB) holds
FETCHED = r"tracecat: fetched (\d+) bytes in \d+ ns, digest ([0-9a-f]+)"


def fetched(out):
    """tracecat -b's bytes and digest of what it fetched, and its verdict."""
    match = re.search(FETCHED, out)
    assert match, out[-2000:]
    return match.groups(), verified(out)


class TestBulkDump:
    """The 4-CPU machine's rings overwritten on every CPU (tracegen, more events than
    a ring holds, on each), then read through BULK (`tracecat -b`) and page by page
    (`tracecat -b -p`): the same bytes, loss markers included, whatever the filter."""

    @pytest.fixture(scope="class")
    def session(self, machines):
        machine = machines.get(smp=4)
        spoor = machine.spoor
        reset_tracing(spoor)
        spoor.command("trace on test")
        for cpu in range(4):
            out = spoor.command(f"run tracegen {BULK_EVENTS} {cpu}", timeout=DUMP_TIMEOUT)
            assert f"emitted {BULK_EVENTS} of {BULK_EVENTS}" in out, out
        spoor.command("trace off")
        stored = {cpu: c["stored"] for cpu, c in status(spoor).items()}
        return Session(machine, stored=stored)

    @pytest.fixture
    def spoor(self, shared, session):
        """The filled machine, tracing off: a test may only read its rings."""
        return shared.use(session.machine)

    def test_every_ring_was_overwritten(self, spoor):
        assert all(c["overwritten"] > 0 for c in status(spoor).values()), status(spoor)

    def test_bulk_dump_returns_what_the_page_dump_returns_on_full_rings(self, spoor, session):
        bulk = fetched(spoor.command("run -r tracecat -b", timeout=DUMP_TIMEOUT))
        paged = fetched(spoor.command("run -r tracecat -b -p", timeout=DUMP_TIMEOUT))
        events, entries, lost = bulk[1]
        assert events == sum(session.stored.values()) and lost > 0, bulk
        assert bulk == paged

    def test_bulk_dump_in_frames_of_a_page_returns_the_same(self, spoor):
        small = fetched(spoor.command("run -r tracecat -b -k 4", timeout=DUMP_TIMEOUT))
        paged = fetched(spoor.command("run -r tracecat -b -p", timeout=DUMP_TIMEOUT))
        assert small == paged

    @pytest.mark.parametrize("words", ["cpu=1 cpu=3", "kind=test_tick last=1000", "count=777",
                                       "cpu=2 count=5000"])
    def test_bulk_dump_keeps_exactly_what_the_filter_keeps(self, spoor, words):
        bulk = fetched(spoor.command(f"run -r tracecat -b {words}", timeout=DUMP_TIMEOUT))
        paged = fetched(spoor.command(f"run -r tracecat -b -p {words}", timeout=DUMP_TIMEOUT))
        assert bulk[1][0] > 0, bulk
        assert bulk == paged, words

    def test_bulk_refuses_bad_frames_survives_frames_taken_away_and_keeps_nothing(self, spoor):
        out = spoor.command("run -r tracebulk", timeout=DUMP_TIMEOUT)
        assert re.search(r"tracebulk: ok \(\d+ checks\)", out), out


@pytest.mark.parametrize("words,message", [
    ("cpu=4", "trace: bad cpu '4' (cpus: 0 to 3)"),
    ("kind=mem_pff", "trace: unknown kind 'mem_pff' (known: mem_pf mem_map"),
    ("cat=memm", "trace: unknown category 'memm' (known: mem sched syscall ipc irq proc "
                 "user test prof func all)"),
    ("pid=abc", "trace: bad id in 'pid=abc' (a number)"),
    ("last=0", "trace: bad count in 'last=0' (a number above 0)"),
    ("since=x", "trace: bad time in 'since=x' (seconds since boot, such as 1.5)"),
    ("since=2 until=1", "trace: since=2 is not before until=1: no event can be in that window"),
    ("since=2 until=2", "trace: since=2 is not before until=2"),
    ("color=red", "trace: unknown filter 'color' (known: cpu= pid= tid= tree= kind= cat= "
                  "last= count= since= until=)"),
])
def test_bad_filter_is_refused_naming_what_is_allowed(shared, words, message):
    spoor = shared(smp=4)  # four CPUs: 0 to 3
    out = spoor.command(f"trace dump {words}")
    assert message in out and "# end of dump" not in out, out


@pytest.mark.parametrize("words,message", [
    ("last=3 count=2", "trace: last=3 and count=2 cannot both hold (last=N is the newest N "
                       "events, count=N the oldest N)"),
    ("count=2 last=3", "trace: last=3 and count=2 cannot both hold"),
    ("pid=1 pid=2", "trace: pid=1 and pid=2 cannot both hold (give pid= once)"),
    ("since=1 since=2", "trace: since=1 and since=2 cannot both hold (give since= once)"),
    ("pid=2 tree=1", "trace: pid=2 and tree=1 cannot both hold (tree=N is process N and what it "
                     "spawned: give one of them)"),
    ("kind=mem_pf,ipc_call cat=ipc", "trace: kind mem_pf is not in cat=ipc: no event can pass "
                                     "both"),
    ("cpu=3 cpu=4", "trace: bad cpu '4' (cpus: 0 to 3)"),
])
@pytest.mark.parametrize("verb", ["dump", "stats", "save"])
def test_filters_that_contradict_each_other_are_refused(shared, verb, words, message):
    """Not resolved by their order: one line saying which two words cannot both hold."""
    spoor = shared(smp=4)
    out = spoor.command(f"trace {verb} {words}")
    lines = [line for line in out.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith(message), out


def test_the_same_word_twice_and_sets_given_twice_are_not_contradictions(spoor):
    # A few events of each category on each CPU: hello's faults, the shell's
    # calls to traced, tracegen's ticks on CPU 0 and 1.
    spoor.command("trace on mem,ipc,test")
    assert "hello: argc=1" in spoor.command("run hello")
    for cpu in (0, 1):
        assert "emitted 10 of 10" in spoor.command(f"run tracegen 10 {cpu}")
    spoor.command("trace off")
    everything, _ = dump(spoor)
    # Each answers as the words said once would, or as the sets added up, and
    # both are the events of the whole dump that the words select, picked here.
    category = entries.categories()
    for words, once, chosen in (
            ("pid=1 pid=1", "pid=1", lambda e: e.pid == 1),
            ("cpu=0 cpu=1", "", lambda e: True),
            ("cat=mem cat=ipc kind=mem_pf", "kind=mem_pf", lambda e: e.kind == "mem_pf"),
            ("cat=mem cat=ipc", "cat=mem,ipc",
             lambda e: category[e.kind.split(":")[0]] in ("mem", "ipc"))):
        twice, out = dump(spoor, words)
        want = [e.line for e in everything if chosen(e)]
        assert [e.line for e in twice] == [e.line for e in dump(spoor, once)[0]] == want, \
            (words, out)
        assert twice, words
        # Only cpu=0 cpu=1 takes everything: the others must leave something out.
        assert len(twice) < len(everything) or words == "cpu=0 cpu=1", words
    assert {e.cpu for e in everything} == {0, 1}, {e.cpu for e in everything}


SMALL_RING = "ttrace.ring_kb=4"  # 64 entries per CPU
RING_ENTRIES = 64
TICKS = 1000


@pytest.fixture
def small_ring(shared):
    """The module's machine with 2 CPUs and rings of 64 entries, on the terms of `spoor`."""
    spoor = shared(smp=2, cmdline=SMALL_RING)
    reset_tracing(spoor)
    return spoor


def fill_ring(spoor, mode):
    """tracegen's TICKS test events on CPU 1 in this mode, into an emptied ring:
    (CPU 1's counters before, after, the dump of the ticks and its output)."""
    assert f"trace: mode {mode}" in spoor.command(f"trace mode {mode}")
    spoor.command("trace on test")
    assert "trace: cleared every ring" in spoor.command("trace clear")
    before = status(spoor)[1]
    assert f"emitted {TICKS} of {TICKS}" in spoor.command(f"run tracegen {TICKS} 1")
    after = status(spoor)[1]
    found, out = dump(spoor, "kind=test_tick")
    return before, after, found, out


def test_overwrite_mode_keeps_the_newest_entries_and_counts_the_rest(small_ring):
    before, after, found, _ = fill_ring(small_ring, "overwrite")
    assert after["stored"] == RING_ENTRIES, after
    assert after["overwritten"] - before["overwritten"] == TICKS - RING_ENTRIES, (before, after)
    assert [int(e.args["seq"]) for e in found] == list(range(TICKS - RING_ENTRIES, TICKS))


def test_overwrite_mode_dump_reports_the_loss_in_place(small_ring):
    before, after, found, out = fill_ring(small_ring, "overwrite")
    lost = sum(int(m.group(1)) for m in LOST.finditer(out))
    assert lost == TICKS - len(found) == after["overwritten"] - before["overwritten"], out
    assert out.index("# lost") < out.index("test_tick"), "the loss is not reported in place"


WRAPPED = TICKS - RING_ENTRIES  # what tracegen's ticks on CPU 1 leave lost
CANNOT = (f"# of the {WRAPPED} lost: {WRAPPED} could not have matched (on CPUs the filter leaves "
          "out, or outside the window it asks for)\n")
MAY = (f"# of the {WRAPPED} lost: {WRAPPED} overwritten before the dump began may have held "
       "matching events\n")
NOTHING = "# nothing found, but what was lost may have matched: "


@pytest.mark.parametrize("words,events,explained", [
    ("cpu=0", 0, CANNOT),
    ("kind=test_tick last=3", 3, CANNOT),
    ("kind=test_tick", RING_ENTRIES, MAY),
])
def test_dump_says_which_losses_could_have_matched(small_ring, words, events, explained):
    """Losses on a CPU the filter leaves out, or before a last= window, cannot have
    matched; what wrapped before the dump began, with no window asked for, may have."""
    fill_ring(small_ring, "overwrite")
    out = small_ring.command(f"trace dump {words}", timeout=DUMP_TIMEOUT)
    assert f"# end of dump: {events} events, {WRAPPED} lost\n{explained}" in out, out
    assert NOTHING not in out, out


def test_losses_before_the_since_window_could_not_have_matched(small_ring):
    _, _, found, _ = fill_ring(small_ring, "overwrite")
    since = f"{(found[-1].us + 1) / 1e6:.6f}"
    out = small_ring.command(f"trace dump since={since}", timeout=DUMP_TIMEOUT)
    assert f"# end of dump: 0 events, {WRAPPED} lost\n{CANNOT}" in out, out
    assert NOTHING not in out, out


def test_a_dump_that_finds_nothing_but_losses_says_what_keeps_events(small_ring):
    fill_ring(small_ring, "overwrite")
    out = small_ring.command("trace dump kind=test_tick pid=1", timeout=DUMP_TIMEOUT)
    assert f"# end of dump: 0 events, {WRAPPED} lost\n{MAY}{NOTHING}trace mode drop keeps the " \
           "oldest events, a bigger ttrace.ring_kb (kernel command line) more of them\n" in out, out


def test_a_dump_overrun_while_it_reads_says_so(small_ring):
    """tracescope reads a page, then overwrites what the dump has yet to read."""
    spoor = small_ring
    spoor.command("trace on test")
    out = spoor.command(f"run -t tracescope overrun {RING_ENTRIES}", timeout=DUMP_TIMEOUT)
    assert "tracescope: overrun ok" in out, out
    end = END.search(out)
    lost = int(end.group(2))
    assert int(end.group(1)) + lost == RING_ENTRIES and lost > 0, out
    assert f"# of the {lost} lost: {lost} overwritten while the dump read may have held " \
           "matching events\n" in out, out


def test_stats_and_hist_say_which_losses_could_have_matched(small_ring):
    fill_ring(small_ring, "overwrite")
    out = small_ring.command("trace stats cpu=0")
    assert f"# stats: 0 events, {WRAPPED} lost\n{CANNOT}" in out, out
    out = small_ring.command("trace hist syscall kind=test_tick")
    assert f"# hist syscall: 0 values (us), 0 unpaired, {RING_ENTRIES} events, {WRAPPED} " \
           f"lost\n{MAY}" in out, out
    out = small_ring.command("run -r tracecat -S cpu=0")
    assert f"events=0 lost={WRAPPED} lost_outside={WRAPPED} lost_early=0" in out, out


def test_drop_mode_keeps_the_oldest_entries_and_counts_the_rest(small_ring):
    before, after, found, out = fill_ring(small_ring, "drop")
    assert after["stored"] == RING_ENTRIES, after
    assert after["dropped"] - before["dropped"] == TICKS - RING_ENTRIES, (before, after)
    assert not LOST.search(out), out
    assert [int(e.args["seq"]) for e in found] == list(range(RING_ENTRIES))


def test_drop_mode_follower_receives_all_but_what_was_dropped(small_ring):
    spoor = small_ring
    assert "trace: mode drop" in spoor.command("trace mode drop")
    spoor.command("trace on test")
    dropped_before = status(spoor)[1]["dropped"]
    expect_after(spoor, spoor.command("run -r tracecat -f -b -i 1000 kind=test_tick &"),
                 r"# following")
    out = spoor.command(f"run tracegen {TICKS} 1")
    assert f"emitted {TICKS} of {TICKS}" in out, out
    received = expect_after(spoor, out, VERIFIED, timeout=DUMP_TIMEOUT)
    expect_after(spoor, out, r"\[done\] tracecat \(pid \d+\): exited with status 0")
    dropped = status(spoor)[1]["dropped"] - dropped_before
    assert int(received.group(3)) == 0, "a follower that keeps up loses nothing"
    assert dropped > 0 and int(received.group(1)) + dropped == TICKS, (received.group(0), dropped)


def test_follow_request_sent_again_after_a_lost_reply_finds_the_same_events(small_ring):
    """When traced dies after reading a FOLLOW page but before its reply arrives,
    libc's client sends the same request to the restarted traced: in drop mode
    the page's entries must still be there, not reused by a ring's worth of
    later events and counted lost (tracescope resend drops the reply itself)."""
    spoor = small_ring
    assert "trace: mode drop" in spoor.command("trace mode drop")
    spoor.command("trace on test")
    assert "trace: cleared every ring" in spoor.command("trace clear")
    out = spoor.command(f"run -r tracescope resend {RING_ENTRIES}")
    assert "tracescope: resend ok" in out, out


def follow_timer(spoor):
    """Follows CPU 0's timer ticks for 20 events, then Ctrl-C: (the stop line's
    match, every tick number printed)."""
    assert "tracing now: irq" in spoor.command("trace on irq")
    start = len(spoor.console())
    spoor.send("trace follow kind=irq_timer cpu=0\r")
    spoor.expect(r"# following; Ctrl-C stops")
    for _ in range(20):
        spoor.expect(r"cpu=0 pid=\d+ tid=\d+ comm=\S+ irq_timer tick=\d+")
    spoor.send("\x03")
    stopped = spoor.expect(r"# stopped following: (\d+) events, (\d+) lost")
    spoor.expect_prompt()
    ticks = [int(t) for t in re.findall(r"irq_timer tick=(\d+)", spoor.console()[start:])]
    assert "trace: disabled irq" in spoor.command("trace off irq")
    return stopped, ticks


def test_follow_streams_events_until_ctrl_c_and_counts_them(spoor):
    stopped, _ = follow_timer(spoor)
    assert int(stopped.group(1)) >= 20 and stopped.group(2) == "0", stopped.group(0)


def test_follow_prints_events_in_order(spoor):
    _, ticks = follow_timer(spoor)
    assert len(ticks) >= 20 and ticks == sorted(ticks), ticks


STATE_POLLS = 2000  # ps round trips take milliseconds; this is a minute or more


class TestTracedKilledMidDump:
    """A machine of its own (2 CPUs): 15000 events, two slow binary dumps of them
    in the background, one page at a time (DUMP) and one in frames of 64 entries
    (BULK), traced killed meanwhile and restarted by init, 500 events more while
    it restarts."""

    @pytest.fixture(scope="class")
    def session(self, machines):
        machine = machines.get(smp=2, group="traced-killed")
        spoor = machine.spoor
        reset_tracing(spoor)
        spoor.command("trace on test")
        assert "emitted 15000 of 15000" in spoor.command("run tracegen 15000 1")
        start = len(spoor.console())
        spoor.command("run -r tracecat -b -p -s 10 kind=test_tick &")
        spoor.command("run -r tracecat -b -k 4 -s 10 kind=test_tick &")
        # tracecat sleeps (-s) only between the pages of its dump: once ps shows
        # both sleeping, both dumps are under way.
        for _ in range(STATE_POLLS):
            states = [row[3] for row in ps(spoor) if row[2] == "tracecat"]
            assert len(states) == 2, "a tracecat ended before traced was killed"
            if states == ["sleeping", "sleeping"]:
                break
        else:
            raise AssertionError(f"a tracecat never got a page of its dump: {states}")
        out = spoor.command(f"kill -f {pid_of(spoor, 'traced')}")
        expect_after(spoor, out, r"init: traced killed, restarting")
        # Events recorded while traced restarts are kept too: the rings are kernel memory.
        out = spoor.command("run tracegen 500 1")
        assert "emitted 500 of 500" in out, out
        done = expect_count(spoor, VERIFIED.pattern, 2, start, timeout=DUMP_TIMEOUT)
        expect_count(spoor, r"\[done\] tracecat \(pid \d+\): exited with status 0", 2, start)
        fetched = re.findall(FETCHED, spoor.console()[start:])
        spoor.command("trace off")
        yield Session(machine, done=[tuple(int(g) for g in d) for d in done], fetched=fetched)
        machines.retire(machine)

    @pytest.fixture
    def spoor(self, shared, session):
        """The machine after the kill, tracing off: a test may only read its rings."""
        return shared.use(session.machine)

    def test_dump_in_progress_goes_on_and_loses_nothing(self, session):
        assert session.done == [(15000, 15000, 0)] * 2

    def test_bulk_dump_across_the_restart_returns_what_the_page_dump_returns(self, session):
        assert len(session.fetched) == 2 and session.fetched[0] == session.fetched[1], \
            session.fetched

    def test_events_recorded_while_traced_restarts_are_kept(self, spoor):
        found, _ = dump(spoor, "kind=test_tick count=15500")
        assert len(found) == 15500

    def test_restarted_traced_serves_a_binary_dump_that_verifies(self, spoor):
        events, entries, _ = verified(spoor.command("run -r tracecat -b", timeout=DUMP_TIMEOUT))
        assert events == entries


FUZZED_PREDICATES = re.compile(r"^tracedfuzz: 200 predicates: (\d+) answered, (\d+) refused, "
                               r"traced still answering\r?$", re.MULTILINE)


def test_traced_refuses_malformed_requests_and_keeps_answering(spoor):
    """Malformed requests, then predicate texts (valid, mutated, malformed) in
    every operation that takes one: each answered with its error or a result,
    traced never restarted, and with tracing off not one counter moved."""
    spoor.command("trace on all")  # drops every kernel filter: tracedfuzz sets its own
    assert "tracing now: none" in spoor.command("trace off")
    spoor.command("trace trigger off")
    traced = pid_of(spoor, "traced")
    before = status(spoor)
    out = spoor.command("run -t tracedfuzz 200", timeout=DUMP_TIMEOUT)
    assert "tracedfuzz: 200 malformed requests refused, traced still answering" in out, out
    preds = FUZZED_PREDICATES.search(out)
    assert preds and all(int(n) > 0 for n in preds.groups()), out
    assert pid_of(spoor, "traced") == traced, "traced was restarted"
    assert status(spoor) == before
    # Nor did any of them change what is traced.
    assert "tracing now: test" in spoor.command("trace on test")


def test_program_without_trace_capabilities_is_refused_while_tracing(spoor):
    assert "tracing now: test" in spoor.command("trace on test")
    out = spoor.command("run -t tracecap")
    assert "tracecap: ok" in out, out


def test_strings_lists_every_syscall_name_and_counts_them(spoor):
    out = spoor.command("trace strings syscalls")
    assert re.search(r"^syscall 7 spawn$", out, re.MULTILINE), out
    count = re.search(r"^# (\d+) strings$", out, re.MULTILINE)
    assert count and int(count.group(1)) == len(re.findall(r"^syscall \d+ \w+$", out, re.MULTILINE))


@pytest.mark.parametrize("line,answer", [
    ("trace", "  FILTERS: cpu=N pid=N tid=N tree=N kind=NAME,... cat=NAME,... last=N count=N "
              "since=SECONDS until=SECONDS [if PREDICATE]"),
    ("trace bogus", "trace: unknown command 'bogus' (known: on off status dump clear "
                    "mode follow save record track untrack run echo self stack profile top stats hist strings events "
                    "register unregister func graph trigger probe)"),
    ("trace mode fast", "trace: usage: trace mode overwrite|drop"),
    ("trace on", "trace: usage: trace on CATS|KINDS [if PREDICATE] (e.g. mem,ipc or all or user:NAME; "
                 "syscall if result < 0)"),
    ("trace strings files", "trace: unknown strings 'files' (known: syscalls kinds procs "
                            "threads events text)"),
], ids=["listing", "unknown verb", "bad mode", "on without categories", "unknown strings"])
def test_trace_verb_answers_wrong_input_with_what_is_allowed(spoor, line, answer):
    out = spoor.command(line)
    assert answer in out.splitlines(), (line, out)


def test_shell_says_when_traced_is_gone_for_good(boot):
    spoor = boot(smp=2)
    # Quick deaths in a row and init gives up on traced: the shell says so.
    pid = pid_of(spoor, "traced")
    assert pid, spoor.command("ps")
    for _ in range(8):
        out = spoor.command(f"kill -f {pid}")
        verdict = expect_after(
            spoor, out, r"init: traced (killed|exited with status \d+)(, restarting| .*not restarting it)")
        if "not restarting" in verdict.group(2):
            break
        pid = restarted_pid(spoor, "traced", pid)
    else:
        raise AssertionError("init kept restarting a server that died at once")
    out = spoor.command("trace status")
    assert "trace: traced is not running" in out, out


WEDGED = re.compile(r"selftest tracewedge: cpu 1 stops writing index (\d+) of its ring")


def test_a_write_that_never_completes_is_skipped_counted_lost_and_said(boot):
    """selftest=tracewedge wedges CPU 1 inside a write to its ring: the slot stays
    being written while its head has passed it, as a hang leaves it. Dumps, stats
    and saves wait a while for it, then skip it and count it lost, in place."""
    spoor = boot(smp=2, cmdline="ttrace=all ttrace.watchdog=0 selftest=tracewedge",
                 wait_prompt=False)
    spoor.expect(WEDGED.pattern)
    spoor.expect_prompt()
    # CPU 0's newest events come after the wedged slot: every one waited behind it.
    out = spoor.command("trace dump cpu=0 last=3", timeout=DUMP_TIMEOUT)
    assert [e.cpu for e in events_in(out)] == [0, 0, 0], out
    out = spoor.command("trace dump cpu=1", timeout=DUMP_TIMEOUT)
    events = events_in(out)
    assert events and {e.cpu for e in events} == {1}, out
    # The wedged slot is CPU 1's last: lost, and said right after its last event.
    assert [m.group(1) for m in LOST.finditer(out) if m.group(2) == "1"] == ["1"], out
    assert out.index("# lost 1 events on cpu 1") > out.index(events[-1].line), out
    assert int(END.search(out).group(1)) == len(events), out
    out = spoor.command("trace stats", timeout=DUMP_TIMEOUT)
    assert "busy" not in out and "syscall" in out, out
    out = spoor.command("trace save as wedged", timeout=DUMP_TIMEOUT)
    assert re.search(r"trace: saved \d+ events, \d+ lost", out), out
