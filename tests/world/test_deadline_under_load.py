"""A verdict does not depend on the machine's load: a slow correct run never misses its deadline
for want of the processor, and a hang is still a hang (``graders/world/patience.py``).

The machine is kept busy on purpose: processes that only burn the processor (one fewer than the
cores; stopped between tasks, so the rest of a test run keeps its processor) while a world of 3
ranks runs a task whose every rank needs one second of processor time against a deadline of two
seconds. On the loaded machine that task takes longer than two seconds of wall time; it must
pass. A deadlock and an endless loop must still end as hangs. And the report of a
crash names the same ranks every time: a second rank that ends a while after the first is waited
for while it works.
"""

import contextlib
import os
import signal
import subprocess
import sys
import time

import pytest

from graders.errors import RankCrash, TaskHang
from graders.impl import KIT_ROOT, Impl
from graders.world.patience import STRETCH, cpu_seconds
from graders.world.pool import WorldPool
from tests.world import probe_tasks as probe

pytestmark = pytest.mark.slow

DEADLINE = 2.0
PROBES = Impl.resolve(KIT_ROOT / "fixtures" / "probes")
#: with the world's 3 busy ranks, more processes than cores (4 on the course's 2 cores: each rank gets
#: half a core); one fewer than the cores, so the other lane of the test run keeps a core
BURNERS = max(1, (os.cpu_count() or 2) - 1)


@pytest.fixture(scope="module")
def busy_machine():
    burners = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"], stdin=subprocess.DEVNULL)
        for _ in range(BURNERS)
    ]
    time.sleep(0.3)  # in their loops
    _stop(burners)
    try:
        yield burners
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()


@pytest.fixture(scope="module")
def pool(busy_machine):
    pool = WorldPool(deadline=DEADLINE)
    pool.run(probe.call, PROBES, probe.ProbeCase(3, "shift"))  # the world starts outside the clock
    yield pool
    pool.close()


def _stop(burners):
    for burner in burners:
        os.kill(burner.pid, signal.SIGSTOP)


@contextlib.contextmanager
def _loaded(burners):
    """The burners run while a task runs, and only then."""
    for burner in burners:
        os.kill(burner.pid, signal.SIGCONT)
    try:
        yield
    finally:
        _stop(burners)


def _run(pool, burners, fn):
    with _loaded(burners):
        return pool.run(probe.call, PROBES, probe.ProbeCase(3, fn))


def test_the_processor_time_of_a_process_is_read():
    assert cpu_seconds(os.getpid()) > 0 and cpu_seconds(2**22 + 7) is None


def test_a_slow_correct_run_on_a_loaded_machine_keeps_its_verdict(pool, busy_machine):
    start = time.monotonic()
    result = _run(pool, busy_machine, "computes_for_a_second")
    took = time.monotonic() - start
    assert result.values == [0, 1, 2]
    assert took > 1.0  # it did run against the load (how much longer depends on the machine)


def test_a_deadlock_on_a_loaded_machine_is_still_reported_at_its_deadline(pool, busy_machine):
    start = time.monotonic()
    with pytest.raises(TaskHang):
        _run(pool, busy_machine, "everyone_sends_first")
    assert time.monotonic() - start < DEADLINE + 5


def test_an_endless_loop_on_a_loaded_machine_is_still_a_hang(pool, busy_machine):
    start = time.monotonic()
    with pytest.raises(TaskHang):
        _run(pool, busy_machine, "spins_forever")
    assert time.monotonic() - start < STRETCH * DEADLINE + 5


def test_a_second_rank_ending_after_work_is_named_every_time(pool, busy_machine):
    reports = []
    for _ in range(2):
        with pytest.raises(RankCrash) as crash:
            _run(pool, busy_machine, "two_ranks_exit_one_after_work")
        reports.append(str(crash.value))
    assert "ranks 1, 2 crashed" in reports[0]
    assert "exited with code 3" in reports[0] and "exited with code 4" in reports[0]
    assert reports[0] == reports[1]
