"""Predicates on the read side (issue 34 item 3, common/trace_filter_pred.h):
`trace dump|follow|stats|hist|save [FILTERS] if PREDICATE`, run by traced,
and spoor-trace's FILE verbs with the same words, compiled by the one parser
and run by the one evaluator the kernel's filters use. The module's machine
records sysfuzz once with every syscall event kept, so each test compares a
predicate's selection with the same selection made here from the whole dump,
and with sysfuzz's own count of its failing calls. Bad predicates (item 4)
get one line naming the place and print or save nothing. A binary dump (BULK,
tracecat -b) with a predicate returns what the text dump with it does."""

import re
import subprocess

import pytest

from spoorlib import DUMP_TIMEOUT, END, EVENT, ROOT, Event, dump, reset_tracing, verified

SPOOR_TRACE = ROOT / "build" / "host" / "spoor-trace"
SYSFUZZ = re.compile(r"^sysfuzz: (\d+) calls, (\d+) errors\r*$", re.MULTILINE)
SAVED = re.compile(r"trace: saved (\d+) events, (\d+) lost, (\d+) bytes to (\S+)\.spoor")
STATS_HEAD = re.compile(r"^# stats: (\d+) events, (\d+) lost\r?$", re.MULTILINE)
HIST_HEAD = re.compile(r"^# hist \w+: (\d+) values", re.MULTILINE)
CALLS = 3000
FAILING = "kind=syscall_exit if result < 0"


def spoor_trace(*args):
    """Runs spoor-trace; returns (exit status, stdout, stderr)."""
    done = subprocess.run([str(SPOOR_TRACE), *map(str, args)], capture_output=True, text=True,
                          timeout=300)
    return done.returncode, done.stdout, done.stderr


def event_lines(text):
    return [line.rstrip() for line in text.splitlines() if line.startswith("[")]


def failing(e):
    """Whether an event of the whole dump is a failing call's exit (-EINVAL, or a number)."""
    return e.kind == "syscall_exit" and e.args["result"].startswith("-")


@pytest.fixture(scope="module")
def recorded(machines):
    """A machine that recorded sysfuzz with the syscall category unfiltered,
    tracing off after: (machine, sysfuzz's errors, the whole dump's events)."""
    machine = machines.get(smp=2)
    spoor = machine.spoor
    reset_tracing(spoor)
    spoor.command("trace on all")  # drops every kernel filter
    spoor.command("trace off")
    assert "tracing now: syscall" in spoor.command("trace on syscall")
    out = spoor.command(f"run sysfuzz 34 {CALLS}", timeout=300)
    calls, errors = map(int, SYSFUZZ.search(out).groups())
    assert calls == CALLS and errors > 0, out
    spoor.command("trace off")
    events, out = dump(spoor)
    assert END.search(out).group(2) == "0", "the rings lost events: the comparisons need them all"
    return machine, errors, events


@pytest.fixture
def spoor(shared, recorded):
    machine, _, _ = recorded
    shared.use(machine)
    return machine.spoor


def test_dump_if_prints_exactly_the_failing_exits(spoor, recorded):
    _, errors, whole = recorded
    events, _ = dump(spoor, FAILING)
    assert [e.line for e in events] == [e.line for e in whole if failing(e)]
    # sysfuzz's own count: each of its failing calls, and nothing else of it.
    assert len([e for e in events if e.comm == "sysfuzz"]) == errors, (len(events), errors)


def test_a_field_a_kind_lacks_is_false_for_its_events(spoor, recorded):
    """Without kind=, `if result < 0` is every kind's, and false for the kinds
    without result (syscall_entry here): the same events as with kind=."""
    _, _, whole = recorded
    events, _ = dump(spoor, "if result < 0")
    assert [e.line for e in events] == [e.line for e in whole if failing(e)]
    events, _ = dump(spoor, "cat=syscall if !(result < 0) && comm == sysfuzz")
    assert [e.line for e in events] == \
        [e.line for e in whole if e.comm == "sysfuzz" and not failing(e)]


def test_common_fields_apply_to_every_kind(spoor, recorded):
    _, _, whole = recorded
    pid = next(e.pid for e in whole if e.comm == "sysfuzz")
    events, _ = dump(spoor, f"if pid == {pid} && cpu != 7")
    assert [e.line for e in events] == [e.line for e in whole if e.pid == pid]
    assert {e.kind for e in events} == {"syscall_entry", "syscall_exit"}


def test_stats_and_hist_if_count_the_dumps_events(spoor, recorded):
    _, _, whole = recorded
    want = len([e for e in whole if failing(e)])
    out = spoor.command(f"trace stats {FAILING}")
    assert STATS_HEAD.search(out).groups() == (str(want), "0"), out
    assert re.search(rf"^  syscall_exit +{want}\r?$", out, re.MULTILINE), out
    # A predicate on a common field answers what the filter word does.
    pid = next(e.pid for e in whole if e.comm == "sysfuzz")
    for question, head in (("stats", STATS_HEAD), ("hist syscall", HIST_HEAD)):
        by_word = spoor.command(f"trace {question} pid={pid}")
        assert head.search(by_word).group(1) != "0", by_word
        assert spoor.command(f"trace {question} if pid == {pid}") == by_word


def test_save_if_holds_the_dumps_events_and_spoor_trace_reads_them(spoor, recorded):
    _, _, whole = recorded
    want = [e.line for e in whole if failing(e)]
    saved = SAVED.search(spoor.command(f"trace save {FAILING} as failing"))
    assert saved and saved.groups()[:2] == (str(len(want)), "0"), spoor.console()[-2000:]
    code, text, err = spoor_trace("text", spoor.traces / "failing.spoor")
    assert code == 0, err
    assert event_lines(text) == want
    # The file says what chose its events: the filter's words and the predicate.
    code, info, err = spoor_trace("info", spoor.traces / "failing.spoor")
    assert code == 0, err
    assert f"selection: {FAILING}" in info.splitlines(), info


def test_spoor_trace_if_selects_what_the_dump_does(spoor, recorded):
    _, _, whole = recorded
    saved = SAVED.search(spoor.command("trace save as whole"))
    assert saved and saved.group(1) == str(len(whole)), spoor.console()[-2000:]
    path = spoor.traces / "whole.spoor"
    code, info, err = spoor_trace("info", path)
    assert code == 0 and "selection: every event" in info.splitlines(), (err, info)
    for words in (FAILING, "if result < 0", "cat=syscall if comm == sysfuzz && result == -EINVAL"):
        _, out = dump(spoor, words)
        code, text, err = spoor_trace("text", path, *words.split())
        assert code == 0, err
        assert event_lines(text) == event_lines(out), words
        assert END.search(text).groups() == END.search(out).groups(), words
    code, host, err = spoor_trace("stats", path, *FAILING.split())
    assert code == 0, err
    shell = spoor.command(f"trace stats {FAILING}")
    assert [l.rstrip() for l in host.splitlines()] == \
        [l.rstrip() for l in shell.splitlines() if l.strip() and "not traced now" not in l]


def test_last_and_count_select_among_what_passes(spoor, recorded):
    """last= and count= are positions among the events that pass every test, the
    predicate's too: the dump's and the save's (which goes through the merge, not
    the per-CPU sieve, for them) are the selection's last and first five."""
    _, _, whole = recorded
    want = [e.line for e in whole if failing(e)]
    events, _ = dump(spoor, f"last=5 {FAILING}")
    assert [e.line for e in events] == want[-5:]
    events, _ = dump(spoor, f"count=5 {FAILING}")
    assert [e.line for e in events] == want[:5]
    saved = SAVED.search(spoor.command(f"trace save last=5 {FAILING} as lastfive"))
    assert saved and saved.group(1) == "5", spoor.console()[-2000:]
    code, text, err = spoor_trace("text", spoor.traces / "lastfive.spoor")
    assert code == 0, err
    assert event_lines(text) == want[-5:]


def listing(text_dump):
    """A text dump's output as tracecat -b -l lists a binary dump: each event's
    cpu, pid, tid and kind, and the lines that start with # as they are."""
    lines = []
    for line in text_dump.splitlines():
        line = line.rstrip()
        event = EVENT.match(line)
        if event:
            e = Event(event)
            lines.append(f"cpu={e.cpu} pid={e.pid} tid={e.tid} {e.kind}")
        elif line.startswith("#"):
            lines.append(line)
    return lines


def binary_listing(out):
    return [line.rstrip() for line in out.splitlines() if line.startswith(("cpu=", "#"))]


def assert_bulk_is_the_text_dump(spoor, words):
    """tracecat with words, as text (DUMP) and as binary (BULK in 1 MiB and in
    4 KiB pages, and DUMP's binary pages), -l: the same events in the same
    order, the same losses in the same places, the same end lines."""
    text = spoor.command(f"run -r tracecat {words}", timeout=DUMP_TIMEOUT)
    want = listing(text)
    assert END.search(text), text[-2000:]
    for how in ("-b -l", "-b -l -k 4", "-b -l -p"):
        out = spoor.command(f"run -r tracecat {how} {words}", timeout=DUMP_TIMEOUT)
        assert binary_listing(out) == want, (how, words, out[-2000:])
        events, _, lost = verified(out)
        assert (str(events), str(lost)) == END.search(text).groups(), (how, words, out[-2000:])


def test_a_bulk_dump_if_returns_the_text_dumps_events(spoor, recorded):
    _, _, whole = recorded
    for words in (FAILING, "if result < 0", "cat=syscall if comm == sysfuzz && result == -EINVAL",
                  f"last=5 {FAILING}", f"count=7 {FAILING}"):
        assert_bulk_is_the_text_dump(spoor, words)
    out = spoor.command(f"run -r tracecat -b {FAILING}", timeout=DUMP_TIMEOUT)
    assert verified(out)[0] == len([e for e in whole if failing(e)]), out[-2000:]


def test_a_bulk_dump_if_accounts_for_losses_as_the_text_dump(boot):
    """Rings of 256 entries that sysfuzz overran (a machine of its own): the
    binary dump with a predicate places and tells apart its losses as the text
    dump does."""
    spoor = boot(smp=2, cmdline="ttrace.ring_kb=16")
    assert "tracing now: syscall" in spoor.command("trace on syscall")
    out = spoor.command(f"run sysfuzz 34 {CALLS}", timeout=300)
    assert SYSFUZZ.search(out), out
    spoor.command("trace off")
    _, out = dump(spoor, FAILING)
    assert END.search(out).group(2) != "0", "the rings must have lost entries"
    for words in (FAILING, f"cpu=1 {FAILING}", "if comm == nosuch", f"last=3 {FAILING}"):
        assert_bulk_is_the_text_dump(spoor, words)


BAD = [
    pytest.param("if rsult < 0", "at 1: unknown field 'rsult'", id="unknown_field"),
    pytest.param("if comm < memtest", "at 6: comm compares only with == and !=",
                 id="string_ordered"),
    pytest.param("kind=syscall_entry if result < 0", "at 1: syscall_entry has no field 'result'",
                 id="field_the_kind_lacks"),
    pytest.param("if pid == 1 && " + "1" * 190, "at 201: too long: more than 200 characters",
                 id="too_long"),
    pytest.param("if ((((((((((pid == 1))))))))))", "at 9: too deep: more than 8 levels",
                 id="too_deep"),
    pytest.param("if cpu == 8", "at 8: value out of range (at most 7)", id="out_of_range"),
]


@pytest.mark.parametrize("verb, named", [("dump", ""), ("stats", ""), ("hist syscall", ""),
                                         ("follow", ""), ("save", " as bad")])
@pytest.mark.parametrize("words, error", BAD)
def test_a_bad_read_predicate_says_where_and_prints_nothing(spoor, verb, named, words, error):
    before = set(spoor.traces.iterdir())
    out = spoor.command(f"trace {verb} {words}{named}")
    said = [l for l in out.splitlines() if l.strip()]
    assert said == [f"trace: bad filter: {error}"], out
    assert set(spoor.traces.iterdir()) == before


@pytest.mark.parametrize("words, error", BAD)
def test_spoor_trace_refuses_a_bad_predicate_in_one_line(spoor, words, error):
    path = spoor.traces / "refused.spoor"
    if not path.exists():
        assert SAVED.search(spoor.command("trace save count=1 as refused"))
    code, text, err = spoor_trace("text", path, *words.split())
    assert code == 2 and not text, (code, text)
    assert err == f"spoor-trace: text: bad filter: {error}\n", err
