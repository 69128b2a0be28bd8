"""What one plain program cannot take from everyone else (issue 27, items 3 and
4): the host's saved traces and the user-event ids. tests/programs/hoard is
the hostile program; build/host/spoor-receive is also driven on its own, as
QEMU would, to check it never replaces a file it was not told to and keeps
to its limits."""

import os
import re
import select
import struct
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from spoorlib import ROOT, expect_count, kill_job, start_job

RECEIVER = ROOT / "build" / "host" / "spoor-receive"
SPOOR_TRACE = ROOT / "build" / "host" / "spoor-trace"
HOARD = ("hoard",)
SAVED = re.compile(r"hoard: saved (\d+) events to (\S+\.spoor)")
# Whole lines only: a line still being printed must not match with half its reason.
HOLDS = r"hoard: pid (\d+) holds (\d+) user events, then: ([^\r\n]*)\r*\n"
TREE_QUOTA = 32  # abi/traced.h TRACED_UEVENT_TREE_MAX
SAVE_BURST = 4  # abi/traced.h TRACED_SAVE_BURST
CONTROL_IDS = 32  # abi/traced.h TRACED_UEVENT_CONTROL_IDS
MAX_EVENTS = 256  # abi/uevent.h UEVENT_MAX
ANSWER_TIMEOUT = 30  # the receiver answers a line at once; this only ends a hung test
# The export window's ring (abi/trace_file.h, THE EXPORT WINDOW), as the fake guest lays it out.
WINDOW_SIZE = 65536
CTL_SIZE = 4096
RING_SIZE = WINDOW_SIZE - CTL_SIZE
HEAD_AT, TAIL_AT = 64, 128
EXPORT_MAGIC, REC_MAGIC, PAD_MAGIC = 0x57585053, 0x43455253, 0x44415053
EXPORT_VERSION = 2  # abi/trace_file.h TTRACE_EXPORT_VERSION: the host seals recordings
# A recording's pieces (abi/trace_file.h, A RECORDING), as the fake guest sends them.
FILE_MAGIC, FILE_HEADER_SIZE = 0x46545053, 192
CHUNK, LEDGER, END = 6, 4, 5


# The saved file (abi/trace_file.h): its aux ring's records.

AUX_RING, PROC, USER_EVENT = 3, 3, 5


def aux_ring_records(path):
    """The records of a file's AUX_RING section, as (tag, id, text)."""
    data = path.read_bytes()
    at = struct.unpack_from("<I", data, 8)[0]  # header_size
    while at < len(data):
        kind, _, size = struct.unpack_from("<IIQ", data, at)
        at += 16
        if kind == AUX_RING:
            first, last = struct.unpack_from("<QQ", data, at)
            ring, records = data[at + 16:at + 16 + (last - first)], []
            pos = 0
            while pos < len(ring):
                _, _, rid, tag, length = struct.unpack_from("<QQQHH", ring, pos)
                text = ring[pos + 32:pos + 32 + length].decode("ascii", "replace")
                records.append((tag, rid, text))
                pos += 32 + (length + 7) // 8 * 8
            return records
        at += size
    raise AssertionError(f"{path} has no AUX_RING section")


def test_a_self_save_under_the_operators_name_leaves_its_file_alone(boot):
    spoor = boot(smp=2, modules=HOARD)
    spoor.command("trace on test,user,proc")
    assert "to opsave.spoor" in spoor.command("trace save as opsave")
    operators = (spoor.traces / "opsave.spoor").read_bytes()
    out = spoor.command("run hoard save opsave")
    saved = SAVED.search(out)
    assert saved, out
    assert (spoor.traces / "opsave.spoor").read_bytes() == operators
    assert re.fullmatch(r"self-\d+-opsave\.spoor", saved.group(2)), out
    assert (spoor.traces / saved.group(2)).exists()
    # The same name again is the program's own file, which it may not replace either.
    assert "hoard: again: already exists" in out, out
    # The operator (CONTROL) may replace a file.
    assert "to opsave.spoor" in spoor.command("trace save as opsave")


def test_a_self_save_carries_only_its_own_names_and_user_events(boot):
    spoor = boot(smp=2, modules=HOARD)
    spoor.command("trace on test,user,proc")
    assert "registered user event" in spoor.command("trace register other_ev u32 x")
    assert "hello" in spoor.command("run hello")
    out = spoor.command("run hoard save mine")
    saved = SAVED.search(out)
    assert saved and int(saved.group(1)) > 0, out
    path = spoor.traces / saved.group(2)
    code = subprocess.run([str(SPOOR_TRACE), "text", str(path)], capture_output=True, text=True,
                          timeout=300)
    assert code.returncode == 0, code.stderr
    pids = {int(p) for p in re.findall(r" pid=(\d+) ", code.stdout)}
    hoard = int(re.search(r"self-(\d+)-", path.name).group(1))
    assert hoard in pids and len(pids) == 2, pids  # hoard and its child
    records = aux_ring_records(path)
    named = {rid & 0xffffffff for tag, rid, _ in records if tag == PROC}
    events = {text for tag, _, text in records if tag == USER_EVENT}
    assert named <= pids and hoard in named, (named, pids)
    assert events == {"hoard_mark u32 n"}, events


def test_a_flood_of_saves_is_held_to_the_allowance(boot):
    spoor = boot(smp=2, modules=HOARD)
    spoor.command("trace on test")
    out = spoor.command("run hoard flood 20", timeout=300)
    flood = re.search(r"hoard: flood: (\d+) saved, (\d+) refused: ([^\r\n]*)", out)
    assert flood, out
    saved, refused, why = int(flood.group(1)), int(flood.group(2)), flood.group(3)
    assert refused > 0 and why == "try again", out
    assert saved >= SAVE_BURST, out
    assert len(list(spoor.traces.glob("self-*-flood-*.spoor"))) == saved


def test_the_hosts_limit_of_files_is_refused_in_words(boot, monkeypatch):
    monkeypatch.setenv("SPOOR_SAVE_MAX_FILES", "2")
    spoor = boot(smp=2)
    assert "to a.spoor" in spoor.command("trace save as a")
    assert "to b.spoor" in spoor.command("trace save as b")
    out = spoor.command("trace save as c")
    assert ("trace: the host refused c.spoor: its limit of files or bytes for this run is "
            "reached") in out, out
    assert ("traced: the host refused 'begin c replace': error limit: 2 files saved this run "
            "(--max-files)") in spoor.console()
    assert {p.name for p in spoor.traces.glob("*.spoor")} == {"a.spoor", "b.spoor"}


def test_one_tree_registering_without_end_gets_its_quota(boot):
    spoor = boot(smp=2, modules=HOARD)
    start = len(spoor.console())
    pid = start_job(spoor, "run hoard uevents 5")
    holds = expect_count(spoor, HOLDS, 5, start)
    assert sum(int(n) for _, n, _ in holds) == TREE_QUOTA, holds
    assert all("quota" in why for _, _, why in holds), holds
    assert "trace: registered user event" in spoor.command("trace register shell_ev u32 a")
    assert "uevdemo: 10 rounds" in spoor.command("run uevdemo 10")
    kill_job(spoor, pid, "hoard")


def test_trees_together_leave_the_shell_its_ids(boot):
    """Eight trees of one program each, registering at once: between them they
    get every id but the 32 kept for the shell, none more than its quota, and
    the shell still registers."""
    spoor = boot(smp=2, modules=HOARD)
    live = int(re.search(r"Active: (\d+)", spoor.command("trace events")).group(1))
    start = len(spoor.console())
    pids = [start_job(spoor, "run hoard uevents 1") for _ in range(8)]
    holds = expect_count(spoor, HOLDS, 8, start)
    counts = [int(n) for _, n, _ in holds]
    assert sum(counts) == MAX_EVENTS - CONTROL_IDS - live, holds
    assert all(int(n) == TREE_QUOTA or "no user-event id is free" in why
               for _, n, why in holds), holds
    assert "trace: registered user event" in spoor.command("trace register shell_ev u32 a")
    for pid in pids:
        kill_job(spoor, pid, "hoard")


# spoor-receive on its own: a fake guest on its FIFOs and window.

class Receiver:
    """spoor-receive serving a folder, with this test as QEMU and its guest."""

    def __init__(self, folder, *options):
        self.folder = folder
        os.mkfifo(folder / ".export.in")
        os.mkfifo(folder / ".export.out")
        ctl = struct.pack("<IIQQII", EXPORT_MAGIC, EXPORT_VERSION, CTL_SIZE, RING_SIZE, 0, 0)
        (folder / ".export.window").write_bytes(ctl.ljust(WINDOW_SIZE, b"\0"))
        self.proc = subprocess.Popen([str(RECEIVER), *options, str(folder), str(os.getpid())],
                                     stderr=subprocess.PIPE, text=True)
        # Neither open waits for the receiver: one that died must fail the test, not hang it.
        self.lines = os.open(folder / ".export.out", os.O_RDWR)
        self.answers = os.open(folder / ".export.in", os.O_RDONLY | os.O_NONBLOCK)

    def ask(self, line):
        os.write(self.lines, (line + "\n").encode())
        answer = b""
        deadline = time.monotonic() + ANSWER_TIMEOUT
        while not answer.endswith(b"\n"):
            alive = self.proc.poll() is None
            assert alive and time.monotonic() < deadline, \
                f"no answer to {line!r}: " + ("" if alive else self.proc.stderr.read())
            select.select([self.answers], [], [], deadline - time.monotonic())
            try:
                answer += os.read(self.answers, 1)  # b"" until the receiver opens its end
            except BlockingIOError:
                continue
        return answer.decode().strip()

    def poke(self, at, data):
        """Writes data into the window at at, in place (the receiver keeps it mapped)."""
        with open(self.folder / ".export.window", "r+b") as f:
            f.seek(at)
            f.write(data)

    def peek(self, at, size=8):
        return int.from_bytes((self.folder / ".export.window").read_bytes()[at:at + size],
                              "little")

    def publish(self, payload, length=None):
        """One record of the file's bytes, as traced publishes it (steps E1 to E3)."""
        head = self.peek(HEAD_AT)
        off = head % RING_SIZE
        need = 16 + (len(payload) + 15) // 16 * 16
        pad = RING_SIZE - off if RING_SIZE - off < need else 0
        deadline = time.monotonic() + ANSWER_TIMEOUT
        while head + pad + need - self.peek(TAIL_AT) > RING_SIZE:
            assert time.monotonic() < deadline, "the receiver takes no records"
            select.select([], [], [], 0.001)  # the receiver looks every millisecond
        if pad:
            self.poke(CTL_SIZE + off, struct.pack("<IIQ", PAD_MAGIC, 0, head))
            head += RING_SIZE - off
            off = 0
        size = len(payload) if length is None else length
        self.poke(CTL_SIZE + off, struct.pack("<IIQ", REC_MAGIC, size, head) + payload)
        self.poke(HEAD_AT, struct.pack("<Q", head + need))

    def send(self, name, payload, replace=False):
        """One file through the channel; the answers of its lines."""
        answers = [self.ask(f"begin {name}" + (" replace" if replace else ""))]
        self.publish(payload)
        return answers + [self.ask(f"end {len(payload)} {word_sum(payload):016x}")]

    def close(self):
        self.proc.kill()
        self.proc.wait()
        os.close(self.lines)
        os.close(self.answers)


def section(kind, payload):
    return struct.pack("<IIQ", kind, 0, len(payload)) + payload


def chunk(payload):
    """A chunk as traced sends it: its checksum word zero, for the host to write."""
    return section(CHUNK, payload + bytes(8))


def file_header():
    return struct.pack("<IHHII", FILE_MAGIC, 1, 4, FILE_HEADER_SIZE, 1).ljust(
        FILE_HEADER_SIZE, b"\0")


def ending(events):
    return section(LEDGER, bytes(48)) + section(END, struct.pack("<QQQQ", events, 0, 0, 0))


def word_sum(data):
    """The export channel's checksum (abi/trace_file.h, CHECKSUMS): over
    little-endian 64-bit words."""
    checksum = 0xcbf29ce484222325
    for at in range(0, len(data), 8):
        word = int.from_bytes(data[at:at + 8], "little")
        checksum = ((checksum ^ word) * 0x100000001b3) & (2**64 - 1)
    return checksum


@pytest.fixture
def receiver():
    made = []

    def start(*options):
        made.append(Receiver(Path(tempfile.mkdtemp(prefix="receive-")), *options))
        return made[-1]

    yield start
    for r in made:
        r.close()


def test_the_receiver_replaces_a_file_only_when_told(receiver):
    r = receiver()
    assert r.send("x", b"first\0\0\0") == ["ok"] * 2
    answers = r.send("x", b"second\0\0")
    assert answers[0].startswith("error exists:"), answers
    assert (r.folder / "x.spoor").read_bytes() == b"first\0\0\0"
    assert r.send("x", b"third\0\0\0", replace=True) == ["ok"] * 2
    assert (r.folder / "x.spoor").read_bytes() == b"third\0\0\0"


def test_the_receiver_never_replaces_or_resumes_a_file_this_run_did_not_make(receiver):
    r = receiver()
    theirs = b"theirs\0\0"
    (r.folder / "old.spoor").write_bytes(theirs)
    answers = r.send("old", b"forged\0\0", replace=True)
    assert answers[0].startswith("error exists:"), answers
    assert r.ask("record old replace").startswith("error exists:")
    for size in (len(theirs), 3):
        answer = r.ask(f"resume old {size}")
        # Refused without a word of what is there: not even its size.
        assert answer == "error not a recording of this run", answer
        r.publish(b"forged\0\0")
        assert r.ask(f"end 8 {word_sum(b'forged{chr(0) * 2}'):016x}") == "error no file begun"
    assert (r.folder / "old.spoor").read_bytes() == theirs


def test_the_receiver_resumes_and_replaces_what_this_run_made(receiver):
    r = receiver()
    first = file_header() + chunk(bytes(8))
    assert r.ask("record rec") == "ok"
    r.publish(first)
    assert r.ask(f"end {len(first)}") == "ok"
    assert r.ask(f"resume rec {len(first)}") == "ok"
    r.publish(chunk(bytes(8)))
    whole = len(first) + len(chunk(bytes(8)))
    assert r.ask(f"end {whole}") == "ok"
    assert r.ask("resume rec 3") == f"error size: the file has {whole} bytes, not 3"
    assert len((r.folder / "rec.spoor").read_bytes()) == whole
    assert r.ask("record rec replace") == "ok"
    r.publish(first)
    assert r.ask(f"resume rec {len(first)}") == "ok"  # taken before the line is answered
    assert len((r.folder / "rec.spoor").read_bytes()) == len(first)
    assert r.send("saved", b"first\0\0\0") == ["ok"] * 2
    assert r.ask("resume saved 8") == "error not a recording of this run"


def test_the_receiver_writes_a_recordings_checksums_itself(receiver):
    """traced leaves each chunk's checksum word and END's checksum zero (abi/trace_file.h,
    HOST CHECKSUMS): the host writes each as the sum of the file before it, across a resume
    too."""
    r = receiver()
    pieces = [file_header() + chunk(b"events\0\0" * 3), chunk(bytes(range(16))), chunk(b""),
              ending(3)]
    assert r.ask("record sealed") == "ok"
    r.publish(pieces[0])
    r.publish(pieces[1])
    assert r.ask(f"resume sealed {len(pieces[0]) + len(pieces[1])}") == "ok"
    r.publish(pieces[2])
    r.publish(pieces[3])
    assert r.ask(f"end {sum(len(p) for p in pieces)}") == "ok"
    data = (r.folder / "sealed.spoor").read_bytes()
    at, sums = FILE_HEADER_SIZE, []
    while at < len(data):
        kind, _, size = struct.unpack_from("<IIQ", data, at)
        word = at + 16 + size - 8 if kind == CHUNK else at + 16 + 16 if kind == END else None
        if word is not None:
            checked = word if kind == CHUNK else at
            sums.append(struct.unpack_from("<Q", data, word)[0] == word_sum(data[:checked]))
        at += 16 + size
    assert sums == [True] * 4, sums


def test_the_receiver_wants_a_checksum_in_a_saves_end_line_and_none_in_a_recordings(receiver):
    r = receiver()
    assert r.ask("begin saved") == "ok"
    r.publish(bytes(8))
    assert r.ask("end 8") == "error a save's end line needs its checksum"
    first = file_header() + chunk(bytes(8))
    assert r.ask("record rec") == "ok"
    r.publish(first)
    answer = r.ask(f"end {len(first)} {word_sum(first):016x}")
    assert answer == "error a recording's end line has no checksum (the host makes them)", answer


# A hostile guest's recording: records that are not whole sections (abi/trace_file.h, HOST
# CHECKSUMS), after a good first one; the stderr line's words.
BAD_RECORDINGS = [
    ("a section past its record", struct.pack("<IIQ", CHUNK, 0, 4096), "does not fit"),
    ("a section's head cut", struct.pack("<II", CHUNK, 0), "inside a section's head"),
    ("a chunk without its checksum word", section(CHUNK, b""), "no room for its checksum"),
    ("an end too short", section(END, bytes(8)), "end is too short"),
]


@pytest.mark.parametrize("name,record,words", BAD_RECORDINGS,
                         ids=[row[0] for row in BAD_RECORDINGS])
def test_a_hostile_recording_is_dropped_with_one_line_after_its_last_whole_chunk(
        receiver, name, record, words):
    r = receiver()
    first = file_header() + chunk(bytes(8))
    assert r.ask("record hostile") == "ok"
    r.publish(first)
    r.publish(record)
    answer = r.ask(f"end {len(first) + len(record)}")
    assert answer.startswith("error ") and words in answer, answer
    assert (r.folder / "hostile.spoor").read_bytes()[:len(first) - 8] == first[:-8]
    assert len((r.folder / "hostile.spoor").read_bytes()) == len(first)
    r.proc.kill()
    lines = [line for line in r.proc.stderr.read().splitlines() if "dropped" in line]
    assert len(lines) == 1 and words in lines[0], lines


def test_the_receiver_refuses_to_rename_over_a_file_made_meanwhile(receiver):
    r = receiver()
    assert r.ask("begin late") == "ok"
    r.publish(bytes(8))
    (r.folder / "late.spoor").write_bytes(b"theirs")
    checksum = word_sum(bytes(8))
    assert r.ask(f"end 8 {checksum:016x}").startswith("error exists:")
    assert (r.folder / "late.spoor").read_bytes() == b"theirs"
    assert not list(r.folder.glob("*.part"))


def test_the_receiver_keeps_to_its_limits_of_files_and_bytes(receiver):
    r = receiver("--max-files", "2", "--max-bytes", "24")
    assert r.send("a", bytes(8)) == ["ok"] * 2
    assert r.send("b", bytes(8)) == ["ok"] * 2
    answers = r.send("c", bytes(8))
    assert answers[0] == "error limit: 2 files saved this run (--max-files)", answers
    r2 = receiver("--max-bytes", "24")
    assert r2.send("a", bytes(16)) == ["ok"] * 2
    answers = r2.send("b", bytes(16))
    assert answers[1] == "error limit: 24 bytes saved this run (--max-bytes)", answers
    assert r2.peek(24, 4) == 2  # the window's refused: TTRACE_EXPORT_REFUSED_LIMIT
    assert {p.name for p in r2.folder.iterdir() if not p.name.startswith(".")} == {"a.spoor"}


# A hostile guest's window: each row breaks one thing the receiver must check (a bad record
# after a good one), and its one stderr line's words.
BAD_WINDOWS = [
    ("length not whole words", lambda r: r.publish(bytes(16), length=12), "is not one"),
    ("length past the head", lambda r: r.publish(bytes(16), length=4096), "passes"),
    ("head past the ring", lambda r: r.poke(HEAD_AT, struct.pack("<Q", 2 * RING_SIZE)),
     "not within the ring"),
    ("head not aligned", lambda r: r.poke(HEAD_AT, struct.pack("<Q", 40)), "not within"),
    ("sequence word wrong", lambda r: (r.publish(bytes(8)),
                                       r.poke(CTL_SIZE + 32 + 8, struct.pack("<Q", 7))),
     "says it is at 7"),
    ("bad magic", lambda r: (r.publish(bytes(8)), r.poke(CTL_SIZE + 32, b"XXXX")), "is not one"),
    ("ring past the window", lambda r: (r.publish(bytes(8)),
                                        r.poke(16, struct.pack("<Q", WINDOW_SIZE))),
     "does not fit the window"),
    ("not a ring", lambda r: (r.publish(bytes(8)), r.poke(0, b"XXXX")), "not an export ring"),
]


@pytest.mark.parametrize("name,breaks,words", BAD_WINDOWS, ids=[row[0] for row in BAD_WINDOWS])
def test_a_hostile_window_drops_the_file_with_one_line(receiver, name, breaks, words):
    r = receiver()
    (r.folder / "mine.spoor").write_bytes(b"mine")
    assert r.ask("begin bad") == "ok"
    r.publish(bytes(16))  # a good record first: the file had begun
    breaks(r)
    answer = r.ask(f"end 48 {word_sum(bytes(48)):016x}")
    assert answer.startswith("error ") and words in answer, answer
    assert r.peek(24, 4) == 1  # the window's refused: TTRACE_EXPORT_REFUSED_IO
    assert sorted(p.name for p in r.folder.iterdir() if not p.name.startswith(".")) == \
        ["mine.spoor"]
    assert (r.folder / "mine.spoor").read_bytes() == b"mine"
    r.proc.kill()
    lines = [line for line in r.proc.stderr.read().splitlines() if "dropped" in line]
    assert len(lines) == 1 and words in lines[0], lines


def test_the_receiver_goes_on_after_a_hostile_window(receiver):
    r = receiver()
    assert r.ask("begin bad") == "ok"
    r.poke(HEAD_AT, struct.pack("<Q", 3 * RING_SIZE))
    assert r.ask(f"end 0 {word_sum(b''):016x}").startswith("error ")
    r.poke(HEAD_AT, struct.pack("<Q", 3 * RING_SIZE + 48))  # a head the next begin skips to
    assert r.send("good", b"whole\0\0\0") == ["ok"] * 2
    assert (r.folder / "good.spoor").read_bytes() == b"whole\0\0\0"
    assert r.peek(TAIL_AT) == 3 * RING_SIZE + 48 + 32


def test_records_wrap_at_the_rings_end_through_a_pad(receiver):
    r = receiver()
    assert r.ask("begin wrap") == "ok"
    payload = bytes(range(256)) * 100  # 25600 bytes: the third record does not fit the end
    for _ in range(5):
        r.publish(payload)
    assert r.ask(f"end {5 * len(payload)} {word_sum(payload * 5):016x}") == "ok"
    assert (r.folder / "wrap.spoor").read_bytes() == payload * 5


def test_the_receiver_refuses_bad_limits_in_words(tmp_path):
    done = subprocess.run([str(RECEIVER), "--max-files", "0", str(tmp_path), "1"],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 2 and "usage: spoor-receive" in done.stderr, done.stderr


def test_the_receiver_ends_when_its_qemu_ends_before_anyone_reaps_it(tmp_path):
    """QEMU ended but not yet reaped (pexpect reaps it only once the console it shares with
    the receiver ends): the receiver must end all the same. kill(pid, 0) finds a zombie, so
    a receiver watching by it kept the console open and each wait for QEMU's end ran out
    its whole timeout (the panic tests' 60 s, the harness's 120 s) in the full suite."""
    os.mkfifo(tmp_path / ".export.in")
    os.mkfifo(tmp_path / ".export.out")
    qemu = subprocess.Popen(["true"])
    stat = Path(f"/proc/{qemu.pid}/stat")
    deadline = time.monotonic() + ANSWER_TIMEOUT
    while stat.read_text().rsplit(")", 1)[1].split()[0] != "Z":
        assert time.monotonic() < deadline, "true never ended"
        time.sleep(0.01)
    try:
        done = subprocess.run([str(RECEIVER), str(tmp_path), str(qemu.pid)], capture_output=True,
                              text=True, timeout=ANSWER_TIMEOUT)
        assert done.returncode == 0, done.stderr
    finally:
        qemu.wait()
