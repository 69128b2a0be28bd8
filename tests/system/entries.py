"""Trace entries read from abi/ alone: the 64-byte ring slots of abi/trace.h
(head entries, their continuations, loss markers), the aux records their
string arguments and program names point at, and the event line each one
prints as, rebuilt here from abi/trace_kinds.def and abi's value lists.

traced's dump, the kernel's console and spoor-trace's text all come from
common/trace_format.c, so a test that only holds one against another
passes on a formatter wrong for all of them. This module imports nothing
of the code under test: it reads a saved file (abi/trace_file.h) and says
what each event's line must be. What it cannot say without more of the
machine (a user event's payload, which its definition describes; a
string argument whose record was evicted) it leaves as None, and a test
compares only the part before it.
"""

import heapq
import re
import struct
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ABI = ROOT / "abi"

# abi/trace_file.h
FILE_MAGIC = 0x46545053  # "SPTF"
FILE_MAJOR = 1
FILE_HEADER = struct.Struct("<IHHII4Q")  # magic .. aux_ring_size
SECTION = struct.Struct("<IIQ")  # struct ttrace_file_section
EVENTS, AUX_DURABLE, AUX_RING, CPU_EVENTS = 1, 2, 3, 7
CPU_EVENTS_HEAD = struct.Struct("<II")  # struct ttrace_file_cpu_events: cpu, reserved
AUX_RING_HEAD = struct.Struct("<QQ")  # struct ttrace_file_aux_ring: first, last

# abi/trace.h ENTRIES: ts, seq, kind, cpu, ctx, pid, tid, data[5]; a
# continuation is ts and data[7]. ctx's bits 4-5 count the continuations.
ENTRY = struct.Struct("<QIHBBII5Q")
CONT = struct.Struct("<Q7Q")
NCONT_SHIFT, NCONT_MASK = 4, 3
KIND_LOST = 0  # abi/traced.h TRACED_KIND_LOST: a marker slot, ts 0, data[0] entries lost
KIND_USER = 24  # abi/trace_kinds.def: its payload is its definition's

# abi/trace.h THE AUX BUFFER: a record's head, then len bytes padded to 8.
AUX_RECORD = struct.Struct("<QQQHHBBH")  # pos, ts, id, tag, len, cpu, flags, reserved
AUX_VALID = 0x01
AUX_SYSCALL, AUX_PROC = 1, 3

US_PER_S = 1000000


def x_list(text, macro):
    """The X(value, NAME, name) lines of `#define macro(X)` in text: {value: name}."""
    lines = text[text.index(f"#define {macro}(X)"):].splitlines()
    body = lines[:next(i for i, line in enumerate(lines) if not line.endswith("\\")) + 1]
    return {int(v): name for v, name in re.findall(r"X\((\d+), \w+, (\w+)\)", "\n".join(body))}


def value_lists():
    """The value lists abi/trace_kinds.def's arguments name ("outcome:u=pf_outcome"):
    {list: {value: the name a reader prints}}. The errors are named "-ENAME" for
    -value, as a system call returns them (abi/errno.def)."""
    trace = (ABI / "trace.h").read_text()
    errors = re.findall(r"^ERRNO\((\w+), (\d+),", (ABI / "errno.def").read_text(), re.M)
    return {"pf_outcome": x_list(trace, "TTRACE_PF_OUTCOMES"),
            "copy_dir": x_list(trace, "TTRACE_COPY_DIRS"),
            "prof_mode": x_list(trace, "TTRACE_PROF_MODES"),
            "thread_state": x_list((ABI / "proc.h").read_text(), "THREAD_STATES"),
            "graph_end": x_list((ABI / "trace_func.h").read_text(), "TTRACE_GRAPH_ENDS"),
            "errno": {-int(value): f"-{name}" for name, value in errors}}


def kinds_def():
    """abi/trace_kinds.def's lines: [(id, name, CATEGORY, args)]."""
    text = re.sub(r"/\*.*?\*/", "", (ABI / "trace_kinds.def").read_text(), flags=re.S)
    return re.findall(r'TTRACE_KIND\((\d+), (\w+), (\w+), "([^"]*)"\)', text)


def categories():
    """{kind name: its category's name as `cat=` takes it}."""
    return {name: category.lower() for _, name, category, _ in kinds_def()}


def kinds():
    """abi/trace_kinds.def: {id: (name, [(argument, format, list or None), ...])}."""
    table = {}
    for kind, name, _, args in kinds_def():
        parsed = []
        for arg in args.split():
            arg_name, form = arg.split(":", 1)
            form, _, values = form.partition("=")
            parsed.append((arg_name, form, values or None))
        table[int(kind)] = (name, parsed)
    return table


class Event:
    """One event of a file: its head entry's fields and all its data words."""

    def __init__(self, ts, kind, cpu, ctx, pid, tid, words):
        self.ts, self.kind, self.cpu, self.ctx = ts, kind, cpu, ctx
        self.pid, self.tid, self.words = pid, tid, words


class Trace:
    """A saved file (a save or a post-mortem, not a recording) read from its layout."""

    def __init__(self, path):
        data = Path(path).read_bytes()
        magic, major, _, header_size, _, self.tsc_hz, self.boot_tsc, self.durable_size, _ = \
            FILE_HEADER.unpack_from(data)
        assert magic == FILE_MAGIC and major == FILE_MAJOR, (hex(magic), major)
        self.events = []
        self.lost = defaultdict(int)  # {cpu: entries} from the loss markers
        self.durable = b""
        self.ring, self.first = b"", 0
        streams = defaultdict(list)  # {cpu: its items} of CPU_EVENTS sections
        at = header_size
        while at < len(data):
            section, _, size = SECTION.unpack_from(data, at)
            at += SECTION.size
            if section == EVENTS:
                self.events += self.read_slots(data, at, at + size)
            elif section == CPU_EVENTS:
                cpu, _ = CPU_EVENTS_HEAD.unpack_from(data, at)
                streams[cpu] += self.read_slots(data, at + CPU_EVENTS_HEAD.size, at + size)
            elif section == AUX_DURABLE:
                self.durable = data[at:at + size]
            elif section == AUX_RING:
                self.first, _ = AUX_RING_HEAD.unpack_from(data, at)
                self.ring = data[at + AUX_RING_HEAD.size:at + size]
            at += size
        self.events += merged(streams)
        self.table = kinds()
        self.values = value_lists()
        self.names = self.records(AUX_PROC, lambda id: id & 0xffffffff)  # pid: its program
        self.syscalls = self.records(AUX_SYSCALL, lambda id: id)

    def read_slots(self, data, at, end):
        """The events of the slots in [at, end), counting loss markers in lost."""
        events = []
        while at < end:
            ts, _, kind, cpu, ctx, pid, tid, *words = ENTRY.unpack_from(data, at)
            at += ENTRY.size
            if kind == KIND_LOST and ts == 0:
                self.lost[cpu] += words[0]
                continue
            for _ in range((ctx >> NCONT_SHIFT) & NCONT_MASK):
                words += CONT.unpack_from(data, at)[1:]
                at += CONT.size
            events.append(Event(ts, kind, cpu, ctx, pid, tid, words))
        return events

    def record(self, pos):
        """The aux record at position pos, as (tag, id, its bytes), checked as A3 says
        (valid, repeating its position, whole within what the file holds); None if not."""
        if pos < self.durable_size:
            data, at = self.durable, pos
        elif pos >= self.first:
            data, at = self.ring, pos - self.first
        else:
            return None  # evicted before the save
        if at + AUX_RECORD.size > len(data):
            return None
        rec_pos, _, rec_id, tag, length, _, flags, _ = AUX_RECORD.unpack_from(data, at)
        start = at + AUX_RECORD.size
        if not flags & AUX_VALID or rec_pos != pos or start + length > len(data):
            return None
        return tag, rec_id, data[start:start + length]

    def records(self, tag, key):
        """{key(id): its string} of the records of tag, the newest of each key winning
        (AW1: a name moved is written again, so the newest is the one to read)."""
        found = {}
        for data, base in ((self.durable, 0), (self.ring, self.first)):
            at = 0
            while at + AUX_RECORD.size <= len(data):
                rec = self.record(base + at)
                if rec is None:
                    break
                rec_tag, rec_id, text = rec
                if rec_tag == tag:
                    found[key(rec_id)] = text.decode("ascii", "replace")
                at += AUX_RECORD.size + (len(text) + 7) // 8 * 8
        return found

    def time(self, ts):
        """The line's time: seconds and microseconds since boot, or the raw TSC."""
        if not self.tsc_hz:
            return f"[{ts}]"
        d = max(ts - self.boot_tsc, 0)
        return f"[{d // self.tsc_hz:5d}.{d % self.tsc_hz * US_PER_S // self.tsc_hz:06d}]"

    def comm(self, pid):
        return "kernel" if pid == 0 else printable(self.names.get(pid, "?"))

    def prefix(self, e):
        """What the event's line says before its kind: time, cpu, pid, tid, comm."""
        return f"{self.time(e.ts)} cpu={e.cpu} pid={e.pid} tid={e.tid} comm={self.comm(e.pid)}"

    def argument(self, value, form, values):
        """One argument's text, or None for a string reference the file cannot resolve."""
        named = self.values[values].get(value if form != "d" else signed(value)) \
            if values else None
        if named is not None:
            return named
        if form == "x":
            return f"0x{value:x}"
        if form == "d":
            return str(signed(value))
        if form == "y":
            name = self.syscalls.get(value)
            return f"{value}" + (f" name={name}" if name is not None else "")
        if form == "s":
            rec = self.record(value)
            return f'"{printable(rec[2].decode("ascii", "replace"))}"' if rec else None
        return str(value)

    def line(self, e):
        """The event's line as a dump prints it (its first line, without a stack), or
        None where a user event's payload or an unresolved string starts."""
        if e.kind == KIND_USER:
            return None
        if e.kind not in self.table:
            words = " ".join(f"d{n}=0x{w:x}" for n, w in enumerate(e.words[:5]))
            return f"{self.prefix(e)} kind={e.kind} {words}"
        name, args = self.table[e.kind]
        parts = [self.prefix(e), name]
        for word, (arg, form, values) in zip(e.words, args):
            text = self.argument(word, form, values)
            if text is None:
                return None
            parts.append(f"{arg}={text}")
        return " ".join(parts)

    def text(self, e):
        """(the event's line, or as much of it as line() can say, whether it is whole)."""
        line = self.line(e)
        if line is None:
            return f"{self.prefix(e)} {self.table.get(e.kind, ('kind',))[0]}", False
        return line, True


def merged(streams):
    """The CPUs' streams of a per-CPU file (abi/trace_file.h PER-CPU SAVES) in one
    order, as every reader merges them: the earliest next event first, on a tie the
    lower CPU's, each CPU's own order kept. (Loss markers carry no time: they are
    counted in lost, not placed.)"""
    return [e for _, _, e in heapq.merge(
        *([(e.ts, cpu, e) for e in streams[cpu]] for cpu in sorted(streams)),
        key=lambda item: (item[0], item[1]))]


def signed(value):
    return value - (1 << 64) if value >> 63 else value


def printable(text):
    """A string as a line may carry it: printable ASCII but for the quote and backslash."""
    return "".join(c if " " <= c <= "~" and c not in '"\\' else "?" for c in text)


def assert_lines_are(trace, lines):
    """Each dumped line (spoorlib Events) is the file's event in the same place, as
    rebuilt from abi/ (one rebuilt in part, as far as it goes). Returns how many
    were compared whole."""
    assert len(trace.events) == len(lines), (len(trace.events), len(lines))
    whole = 0
    for e, got in zip(trace.events, lines):
        want, is_whole = trace.text(e)
        assert got.line == want if is_whole else got.line.startswith(want), (want, got.line)
        whole += is_whole
    return whole
