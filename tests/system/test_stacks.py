"""Call stacks on chosen events (trace stack) and the sampling profiler (trace profile)."""

import re

import pytest

from spoorlib import EVENT


@pytest.fixture
def spoor(shared):
    """A 2-CPU machine; each test leaves stacks off, the profiler off and tracing off."""
    machine = shared(smp=2)
    yield machine
    machine.command("trace stack off")
    machine.command("trace profile off")
    machine.command("trace off")


def test_explore(spoor):
    print(spoor.command("trace stack on mem_pf"))
    print(spoor.command("trace on mem"))
    print(spoor.command("run memtest"))
    print(spoor.command("trace dump kind=mem_pf last=2"))
    print(spoor.command("trace stack on syscall_entry"))
    print(spoor.command("trace on syscall"))
    print(spoor.command("run stackbad race"))
    print(spoor.command("trace dump kind=syscall_entry last=4"))
    print(spoor.command("trace off"))
    print(spoor.command("trace clear"))
    print(spoor.command("trace profile"))
    print(spoor.command("run hotspot 1"))
    print(spoor.command("trace profile off"))
    print(spoor.command("trace dump kind=prof_sample last=6"))
    assert False
