"""Every system call does bounded work before it returns or reschedules
(issue 31, item 8): a plain program that makes each call whose work grows
with its arguments, with the largest arguments it can give, sets off no
lockup report, with the detector at its most sensitive and panicking
(ttrace.watchdog=1 ttrace.watchdog_panic=1). Any report fails the test, as
every expect watches for one (spoorlib.WATCHDOG).

The program under test is tests/programs/bigcall.
"""

import re

from spoorlib import assert_free_back_to, free_frames_once_traced_serves

# The detector's shortest limit: a CPU silent for 1 s is reported, and the
# report panics. A quarter of it without progress, and its tick asks the
# CPU to schedule at the next preemption point.
CMDLINE = "ttrace.watchdog=1 ttrace.watchdog_panic=1"
# 3 GiB copied from the zero page a chunk at a time, 64 MiB committed and
# 65536 regions mapped: about a minute under TCG on an idle host.
BIGCALL_TIMEOUT = 600
GIB = 1024 ** 3
NOT_FOUND = "no such entry"


def test_system_calls_with_the_largest_arguments_set_off_no_lockup_report(boot):
    spoor = boot(smp=2, mem="256M", cmdline=CMDLINE, modules=("bigcall",))
    before = free_frames_once_traced_serves(spoor)
    out = spoor.command("run -m 64M bigcall", timeout=BIGCALL_TIMEOUT)
    assert "bigcall: done" in out, out
    said = re.findall(r"^bigcall: (\S+): (.*)$", out, re.MULTILINE)
    results = {}
    for call, result in said:
        results.setdefault(call, []).append(result)
    assert results["console_write"] == [str(3 * GIB)], out
    assert results["frame_create"] == [str(16 * 1024 * 1024)], out
    for call in ("frame_write", "frame_read", "mem_map_frame", "mem_map_anon"):
        assert results[call] == ["0"], out
    # The commit goes as far as the tree's limit; the copy's page tables may not fit after it.
    assert results["mem_commit"] == ["out of memory"], out
    assert results["mem_cow_copy"][0] in ("0", "out of memory"), out
    assert results["mem_protect"] == ["0", "0", "0"], out
    assert set(results["mem_unmap"]) == {"0"}, out
    assert int(results["thread_list"][0]) > 0 and int(results["program_list"][0]) > 0, out
    assert results["trace_test"] == ["0"] and results["console_read"] == ["0"], out
    assert results["ksym"] == [NOT_FOUND], out
    assert results["regions"] == ["65536"], out
    # Its teardown, the largest it could make, is over and gave everything back.
    assert "bigcall" not in spoor.command("mem")
    assert_free_back_to(spoor, before)
