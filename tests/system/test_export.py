"""Traces leave the machine: `trace save` through the export channel (COM2 and
the export window, tools/run-qemu), and build/host/spoor-trace turning the
file into the dump's text, CTF for babeltrace2, Trace Event JSON and an SVG.

The machine of this module runs a workload once (the class fixture below)
and saves it; the tests read that file in every form and compare it with
the dump of the same rings, tracing off before either is read."""

import re
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

import pytest

import entries
from spoorlib import DUMP_TIMEOUT, END, LOST, ROOT, dump, events_in, lost_per_cpu, reset_tracing, status

SPOOR_TRACE = ROOT / "build" / "host" / "spoor-trace"
DEVTOOLS = ROOT / "build" / "host" / "devtools" / "node_modules"  # make test-system installs it
SAVED = re.compile(r"trace: saved (\d+) events, (\d+) lost, (\d+) bytes to (\S+)\.spoor")

sys.path.insert(0, str(ROOT / "tests" / "host" / "spoor_trace"))
import check_converters  # noqa: E402  (the host tests' checks of each form)
import check_tracedat  # noqa: E402  (the trace.dat through libtracecmd and trace-cmd report)

READ_TRACEDAT = ROOT / "build" / "host" / "spoor_trace" / "read_tracedat"  # make test-system builds it


def spoor_trace(*args):
    """Runs spoor-trace; returns (exit status, stdout, stderr)."""
    done = subprocess.run([str(SPOOR_TRACE), *map(str, args)], capture_output=True, text=True,
                          timeout=300)
    return done.returncode, done.stdout, done.stderr


def event_lines(text):
    return [line for line in text.splitlines() if line.startswith("[")]


@pytest.fixture(scope="class")
def session(machines):
    """A machine that traced memtest and ipcping with every category, then saved it.

    Yields (machine, the dump's output, the save's match, the file's path)."""
    machine = machines.get(smp=4, cmdline="ttrace.ring_kb=4096")
    spoor = machine.spoor
    reset_tracing(spoor)
    spoor.command("trace on all")
    assert "memtest: ok" in spoor.command("run memtest")
    assert "ipcping: on one cpu" in spoor.command("run ipcping 50")
    spoor.command("trace off")
    _, out = dump(spoor)
    saved = SAVED.search(spoor.command("trace save as session"))
    assert saved, spoor.console()[-2000:]
    yield machine, out, saved, spoor.traces / "session.spoor"


class TestASavedTrace:
    def test_save_reports_what_the_file_holds(self, shared, session):
        machine, out, saved, path = session
        shared.use(machine)
        assert path.stat().st_size == int(saved.group(3))
        end = END.search(out)
        assert (saved.group(1), saved.group(2)) == end.groups()

    def test_text_of_the_file_is_the_dump_line_for_line(self, shared, session):
        machine, out, _, path = session
        shared.use(machine)
        code, text, err = spoor_trace("text", path)
        assert code == 0, err
        assert event_lines(text) == event_lines(out)
        assert END.search(text).groups() == END.search(out).groups()

    def test_the_file_read_from_its_layout_alone_is_the_dump(self, shared, session):
        """The dump and spoor-trace's text share their formatter (common/): each
        line must be the file's event as tests/system/entries.py rebuilds it from
        abi/ alone (time, cpu, pid, tid, the program's name from the file's aux
        records, kind, every argument with its string, syscall name or value
        name), and the losses the same. The workload gives it every argument
        format to rebuild."""
        machine, out, _, path = session
        shared.use(machine)
        trace = entries.Trace(path)
        whole = entries.assert_lines_are(trace, events_in(out))
        assert whole == sum(e.kind != entries.KIND_USER for e in trace.events) > 0
        assert trace.lost == lost_per_cpu(out)
        kinds = {trace.table[e.kind][0] for e in trace.events}
        assert {"proc_spawn", "syscall_entry", "syscall_exit", "mem_pf", "mem_copy",
                "sched_switch"} <= kinds, kinds

    @pytest.mark.parametrize("question", [["stats"], ["hist", "syscall"]])
    def test_stats_and_hist_of_the_file_are_the_shells(self, shared, session, question):
        """spoor-trace answers with traced's code (common/trace_stats.h): on the
        file, the shell's answer over the same rings, tracing off in between."""
        machine, _, saved, path = session
        shared.use(machine)
        assert saved.group(2) == "0", "a lossy window: traced would say what its losses mean"
        shell = machine.spoor.command("trace " + " ".join(question))
        code, host, err = spoor_trace(question[0], path, *question[1:])
        assert code == 0, err
        # The shell also says which categories are off now (a word about the live
        # machine, which a file has no "now" for): tracing is off here.
        shell = [l.rstrip() for l in shell.splitlines() if l.strip() and "not traced now" not in l]
        assert [l.rstrip() for l in host.splitlines()] == shell

    def test_every_line_names_its_program(self, shared, session):
        machine, out, _, _ = session
        shared.use(machine)
        found = events_in(out)
        names = {e.pid: e.comm for e in found}
        assert names.get(0) == "kernel" and "memtest" in names.values(), names
        assert all(e.comm == names[e.pid] for e in found)

    def test_ctf_json_and_svg_of_the_file_pass_the_converters_checks(self, shared, session,
                                                                     tmp_path):
        """babeltrace2 prints the CTF without a warning, with the text's events,
        comm and field values, the trace named after the file with a UUID; the JSON
        loads with every event's ph, ts, pid and tid, whole slices nested per thread,
        flows paired, CPU tracks apart, and loads in Chrome DevTools' trace engine
        with no error or warning; losses where the text puts them; the SVG parses
        (tests/host/spoor_trace/check_converters.py)."""
        machine, _, _, path = session
        shared.use(machine)
        check_converters.check_file(str(SPOOR_TRACE), str(path), str(tmp_path), str(DEVTOOLS))

    def test_tracedat_of_the_file_reads_back_in_libtracecmd_and_trace_cmd(self, shared, session,
                                                                          tmp_path):
        """libtracecmd reads the text's events per CPU, at its times, with its field values
        and losses; trace-cmd report prints as many of each (check_tracedat.py)."""
        machine, _, _, path = session
        shared.use(machine)
        check_tracedat.check_file(str(SPOOR_TRACE), str(READ_TRACEDAT), str(path), str(tmp_path))

    def test_timeline_svg_has_a_lane_per_cpu(self, shared, session, tmp_path):
        machine, _, _, path = session
        shared.use(machine)
        code, _, err = spoor_trace("timeline", path, tmp_path / "out.svg")
        assert code == 0, err
        root = ElementTree.parse(tmp_path / "out.svg").getroot()
        text = " ".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
        assert [f"cpu {c}" in text for c in range(4)] == [True] * 4, text


def test_discarded_events_in_babeltrace2_equal_the_dumps_loss(boot, tmp_path):
    spoor = boot(smp=2, cmdline="ttrace.ring_kb=4")
    spoor.command("trace on test")
    assert "emitted 1000 of 1000" in spoor.command("run tracegen 1000 1")
    spoor.command("trace off")
    _, out = dump(spoor)
    lost = sum(int(m.group(1)) for m in LOST.finditer(out))
    assert lost == status(spoor)[1]["overwritten"] > 0
    assert SAVED.search(spoor.command("trace save as lossy"))
    assert entries.Trace(spoor.traces / "lossy.spoor").lost == lost_per_cpu(out)
    code, _, err = spoor_trace("ctf", spoor.traces / "lossy.spoor", tmp_path / "ctf")
    assert code == 0, err
    bt = subprocess.run(["babeltrace2", str(tmp_path / "ctf")], capture_output=True, text=True,
                        timeout=300)
    discarded = re.findall(r"Tracer discarded (\d+) events?", bt.stdout + bt.stderr)
    assert sum(map(int, discarded)) == lost, bt.stderr[-2000:]
    # Each loss where the text puts it, in the CTF and the JSON alike (abi/trace_file.h
    # LOSS PLACEMENT), and the whole file through the converters' checks.
    check_converters.check_file(str(SPOOR_TRACE), str(spoor.traces / "lossy.spoor"),
                                str(tmp_path), str(DEVTOOLS))


def test_save_says_which_losses_could_have_matched_and_its_ledger_stays_exact(boot):
    """A last= window's losses before it are saved as markers and counted, and
    the summary says they could not have matched, as a dump's end does."""
    spoor = boot(smp=2, cmdline="ttrace.ring_kb=4")  # 64 entries a CPU
    spoor.command("trace on test")
    assert "emitted 1000 of 1000" in spoor.command("run tracegen 1000 1")
    spoor.command("trace off")
    out = spoor.command("trace save kind=test_tick last=3 as last3")
    assert re.search(r"^trace: saved 3 events, 936 lost, \d+ bytes to last3\.spoor\n# of the 936 "
                     r"lost: 936 could not have matched \(on CPUs the filter leaves out, or "
                     r"outside the window it asks for\)$", out, re.MULTILINE), out
    code, text, err = spoor_trace("text", spoor.traces / "last3.spoor")  # checks the ledger
    assert code == 0 and len(event_lines(text)) == 3, err
    assert "# lost 936 events on cpu 1\n" in text and "# end of dump: 3 events, 936 lost" in text


def test_a_bad_name_is_refused_in_words(boot):
    spoor = boot(smp=2)
    out = spoor.command("trace save as .hidden")
    assert "trace: bad name '.hidden'" in out, out
    assert not list(spoor.traces.glob("*.spoor"))


def test_default_names_count_up(boot):
    spoor = boot(smp=2)
    spoor.command("trace on sched")
    assert "to trace-1.spoor" in spoor.command("trace save")
    assert "to trace-2.spoor" in spoor.command("trace save cat=sched")
    assert {p.name for p in spoor.traces.glob("*.spoor")} == {"trace-1.spoor", "trace-2.spoor"}


def test_without_the_export_channel_save_says_so(boot):
    spoor = boot(smp=2, export=False)
    out = spoor.command("trace save")
    assert "trace: no export channel on this machine" in out, out


def test_a_corrupt_file_gets_one_line_and_status_2(tmp_path):
    bad = tmp_path / "bad.spoor"
    bad.write_bytes(b"SPTF" + bytes(200))
    code, out, err = spoor_trace("text", bad)
    assert code == 2 and not out and len(err.strip().splitlines()) == 1, err
    assert "byte" in err, err


def test_a_program_without_the_port_faults_on_it(boot):
    spoor = boot(smp=2)
    out = spoor.command("run fault ioport")
    assert re.search(r"pid \d+ \(fault\) killed: general protection fault", out), out
    assert "captest: ok" in spoor.command("run captest")


FILE_EVENTS, FILE_CPU_EVENTS = 1, 7  # abi/trace_file.h section types
EVENT_CPU = re.compile(r"^\[[ \d.]+\] cpu=(\d+) ", re.M)


def section_types(path):
    """The types of a saved file's sections, in order (abi/trace_file.h LAYOUT)."""
    data = path.read_bytes()
    at, types = int.from_bytes(data[8:12], "little"), []
    while at < len(data):
        types.append(int.from_bytes(data[at:at + 4], "little"))
        at += 16 + int.from_bytes(data[at + 8:at + 16], "little")
    return types


def test_a_save_without_filters_goes_out_per_cpu_and_counts_a_write_that_never_ends(boot):
    """A save without filters carries each CPU's entries apart (CPU_EVENTS, format
    minor 4), and so does a filtered one (test_save_filtered.py). selftest=tracewedge
    leaves CPU 1's last slot being written for ever: the per-CPU save waits a while
    for it, then skips it and counts it lost on CPU 1, as the dump does."""
    spoor = boot(smp=2, cmdline="ttrace=all ttrace.watchdog=0 selftest=tracewedge",
                 wait_prompt=False)
    spoor.expect(r"selftest tracewedge: cpu 1 stops writing index \d+ of its ring")
    spoor.expect_prompt()
    saved = SAVED.search(spoor.command("trace save as wedged", timeout=DUMP_TIMEOUT))
    assert saved, spoor.console()[-2000:]
    types = section_types(spoor.traces / "wedged.spoor")
    assert FILE_CPU_EVENTS in types and FILE_EVENTS not in types, types
    code, text, err = spoor_trace("text", spoor.traces / "wedged.spoor")
    assert code == 0, err
    lost = [m.groups() for m in LOST.finditer(text) if m.group(2) == "1"]
    assert lost == [("1", "1")], lost
    assert END.search(text).groups() == saved.groups()[:2], (saved.group(0), text[-300:])
    saved = SAVED.search(spoor.command("trace save cpu=0 as filtered", timeout=DUMP_TIMEOUT))
    assert saved, spoor.console()[-2000:]
    types = section_types(spoor.traces / "filtered.spoor")
    assert FILE_CPU_EVENTS in types and FILE_EVENTS not in types, types
    code, text, err = spoor_trace("text", spoor.traces / "filtered.spoor")
    assert code == 0, err
    assert {m.group(1) for m in EVENT_CPU.finditer(text)} == {"0"}, text[-300:]
    assert [m.groups() for m in LOST.finditer(text) if m.group(2) == "1"] == [("1", "1")]
