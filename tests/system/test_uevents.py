"""User-defined trace events: register, enable, write, dump, disable; the
status byte programs read instead of a syscall; refused writes and their
counters; cleanup when a program exits; the duplicate-registration rules;
and four writers on four CPUs with exact accounting."""

import re
import time

from test_traced import VERIFIED, after_line, dump, status

TICK = "uevdemo_tick u32 seq;char[16] tag"
MSG = "uevdemo_msg u64 value;__data_loc char[] text"
ROUNDS = re.compile(r"uevdemo: (\d+) rounds, (\d+) writes \(tick (\d+), msg (\d+)\), (\d+) refused")
LOAD_TIMEOUT = 180


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


def test_register_enable_write_dump_disable_and_cleanup(boot):
    spoor = boot(smp=2)
    # Nobody listens: the program checks its status bytes and makes no write.
    assert rounds(spoor.command("run uevdemo 50")) == (50, 0, 0, 0, 0)
    found, totals = events(spoor)
    assert found["uevdemo_tick"][1:] == (False, 0, 0, 0, TICK)
    assert found["uevdemo_msg"][1:] == (False, 0, 0, 0, MSG)
    assert totals == (2, 0, 256)

    assert "trace: enabled user; tracing now: user" in spoor.command("trace on user")
    assert rounds(spoor.command("run uevdemo 50")) == (50, 100, 50, 50, 0)
    found, _ = dump(spoor, "cat=user")
    ticks = [e for e in found if e.kind == "user:uevdemo_tick"]
    msgs = [e for e in found if e.kind == "user:uevdemo_msg"]
    assert [e.args["seq"] for e in ticks] == [str(i) for i in range(50)]
    assert [e.args["tag"] for e in ticks[:2]] == ['"round', '"round']
    assert re.search(r"user:uevdemo_tick seq=7 tag=\"round 7\"$", ticks[7].line), ticks[7].line
    assert [e.args["value"] for e in msgs[:4]] == ["0", "1", "4", "9"]
    assert msgs[3].line.endswith('text="odd"'), msgs[3].line
    found, totals = events(spoor)
    assert found["uevdemo_tick"][1:5] == (True, 0, 50, 0), "the program's hold outlived it"
    assert totals == (2, 2, 256)

    # One event on its own: the other stays quiet.
    spoor.command("trace off user")
    out = spoor.command("trace on user:uevdemo_msg")
    assert "trace: enabled user event uevdemo_msg; tracing now: user" in out, out
    assert rounds(spoor.command("run uevdemo 10")) == (10, 10, 0, 10, 0)
    out = spoor.command("trace off user:uevdemo_msg")
    assert "trace: disabled user event uevdemo_msg" in out, out
    assert rounds(spoor.command("run uevdemo 10")) == (10, 0, 0, 0, 0)
    assert "trace: no user event 'nosuch' (see trace events)" in \
        spoor.command("trace on user:nosuch")


def test_a_long_payload_takes_continuation_entries(boot):
    spoor = boot(smp=1)
    spoor.command("trace on user")
    out = spoor.command("run uevdemo big")
    assert "uevdemo: big event written (184 bytes)" in out, out
    found, _ = dump(spoor, "cat=user")
    text = "".join(chr(ord("a") + i % 26) for i in range(179))
    assert len(found) == 1 and found[0].line.endswith(f' user:uevdemo_big n=7 text="{text}"'), \
        [e.line for e in found]
    out = spoor.command("run tracecat -b")
    assert "tracecat: 1 events verified (4 entries, 0 lost)" in out, out


def test_the_status_byte_flips_without_a_syscall(boot):
    spoor = boot(smp=2)
    after_line(spoor, spoor.command("run uevdemo watch &"), r"uevdemo: uevdemo_tick is off")
    after_line(spoor, spoor.command("trace on user:uevdemo_tick"), r"uevdemo: uevdemo_tick is on")
    after_line(spoor, spoor.command("trace off user:uevdemo_tick"), r"uevdemo: uevdemo_tick is off")
    spoor.expect(r"\[done\] uevdemo \(pid \d+\): exit status 0")


def test_bad_writes_are_refused_and_counted(boot):
    spoor = boot(smp=2)
    out = spoor.command("run uevdemo bad")
    assert "uevdemo: 4 bad writes refused, 1 counted as rejected" in out, out
    found, _ = events(spoor)
    assert found["uevdemo_tick"][4] == 1 and found["uevdemo_msg"][4] == 0, found
    spoor.command("trace on user")
    out = spoor.command("run uevdemo bad")
    assert "uevdemo: 8 bad writes refused, 5 counted as rejected" in out, out
    found, _ = events(spoor)
    assert found["uevdemo_tick"][3:5] == (0, 4), found
    assert found["uevdemo_msg"][3:5] == (0, 2), found
    found, _ = dump(spoor, "cat=user")
    assert not found, "a refused write stored something"


def test_registration_rules_and_unregister(boot):
    spoor = boot(smp=2)
    out = spoor.command("trace register 'demo u32 a;char[16] s'")
    m = re.search(r"trace: registered user event (\d+) 'demo' \(write index (\d+)\)", out)
    assert m, out
    # The same fields, spaced differently: the same event.
    out = spoor.command("trace register 'demo   u32 a ; char[16] s;'")
    assert f"trace: registered user event {m.group(1)} 'demo'" in out, out
    # Other fields under the same name: refused, and nothing changes.
    for other in ("demo u32 a", "demo char[16] s;u32 a", "demo u64 a;char[16] s",
                  "demo u32 a;char[17] s", "demo u32 b;char[16] s"):
        out = spoor.command(f"trace register '{other}'")
        assert "trace: cannot register" in out and "already in use" in out, out
    found, totals = events(spoor)
    assert found["demo"][5] == "demo u32 a;char[16] s" and totals[0] == 1, found
    # The parser's reason, in words, for a description it refuses.
    for bad, why in (("demo2 long x", "long"), ("demo3 u32 a 4", "size"),
                     ("demo4:BPF u32 a", "flags"), ("x" * 64, "longer than 63")):
        out = spoor.command(f"trace register '{bad}'")
        assert re.search(rf"^trace: cannot register '{re.escape(bad)}': .*{why}", out,
                         re.MULTILINE), out

    spoor.command("trace on user")
    out = spoor.command("trace unregister demo")
    assert "trace: user event 'demo' is busy" in out, out
    spoor.command("trace off user")
    out = spoor.command("trace unregister demo")
    assert "trace: unregistered user event 'demo'" in out, out
    assert "demo" not in events(spoor)[0]
    out = spoor.command("trace unregister demo")
    assert "trace: no user event 'demo' (see trace events)" in out, out

    # A program's hold goes with it: its events are free to delete once it exits.
    after_line(spoor, spoor.command("run uevdemo watch &"), r"uevdemo: uevdemo_tick is off")
    found, _ = events(spoor)
    assert found["uevdemo_tick"][2] == 1, found
    assert "is busy" in spoor.command("trace unregister uevdemo_tick")
    after_line(spoor, spoor.command("trace on user:uevdemo_tick"), r"uevdemo: uevdemo_tick is on")
    after_line(spoor, spoor.command("trace off user:uevdemo_tick"),
          r"\[done\] uevdemo \(pid \d+\): exit status 0")
    found, _ = events(spoor)
    assert found["uevdemo_tick"][2] == 0, found
    assert "unregistered user event 'uevdemo_tick'" in spoor.command("trace unregister uevdemo_tick")


def test_listings_longer_than_a_page_end_with_each_entry_once(boot):
    spoor = boot(smp=1)
    names = [f"event_{i:02d}" for i in range(25)]
    for name in names:
        fields = ";".join(f"u32 {name}_field_{j}_long_name" for j in range(5))
        out = spoor.command(f"trace register '{name} {fields}'")
        assert f"'{name}'" in out, out
    out = spoor.command("trace strings events")
    listed = re.findall(r"^event \d+ (event_\d\d) ", out, re.MULTILINE)
    assert listed == names, out[-1500:]
    assert re.search(r"^# 25 strings$", out, re.MULTILINE), out[-500:]
    found, totals = events(spoor)
    assert sorted(found) == names and totals == (25, 0, 256), totals
    out = spoor.command("trace strings")
    assert len(re.findall(r"^event \d+ event_", out, re.MULTILINE)) == 25
    assert re.search(r"^syscall 7 spawn$", out, re.MULTILINE), out[:500]


def test_four_writers_on_four_cpus_account_for_every_event(boot):
    spoor = boot(smp=4)
    n = 10000
    spoor.command("trace on user")
    spoor.command("trace clear")
    before = status(spoor)
    start = len(spoor.console())
    for cpu in range(4):
        spoor.command(f"run uevdemo {n} {cpu} &")
    deadline = time.monotonic() + LOAD_TIMEOUT
    while len(ROUNDS.findall(spoor.console()[start:])) < 4:
        assert time.monotonic() < deadline, spoor.console()[start:]
        spoor.command("cpus")  # reads what the programs print meanwhile
        time.sleep(1)
    written = 0
    for m in ROUNDS.finditer(spoor.console()[start:]):
        assert m.group(1) == str(n) and m.group(5) == "0", m.group(0)
        written += int(m.group(2))
    assert written == 4 * 2 * n
    spoor.command("trace off")
    found, _ = events(spoor)
    assert found["uevdemo_tick"][3] + found["uevdemo_msg"][3] == written, found
    now = status(spoor)
    emitted = sum(now[c]["emitted"] - before[c]["emitted"] for c in now)
    assert emitted == written, (before, now)
    for cpu in range(4):
        assert now[cpu]["emitted"] - before[cpu]["emitted"] == 2 * n, (cpu, before, now)
    # A reader gets every stored event, and the rest are counted lost.
    out = spoor.command("run tracecat -b", timeout=LOAD_TIMEOUT)
    verified = VERIFIED.search(out)
    assert verified, out
    stored = sum(now[c]["stored"] for c in now)
    overwritten = sum(now[c]["overwritten"] - before[c]["overwritten"] for c in now)
    assert int(verified.group(2)) == stored
    assert int(verified.group(3)) == overwritten
