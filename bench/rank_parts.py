"""Where one live example's time goes on a rank: the steps of a task, timed one by one.

A rank is served in this process (a world of one gloo rank, preloaded as the fork server
preloads), and runs the probe ``bench/world_overhead.py`` measures (one tiny ``all_reduce``
under the guard, the recorder and the live ledger) ``--examples`` times. Each step of the task
is timed by a wrapper; what is left is the task itself (the context, the student block, the
collective through the recorder and the ledger) and the worker's own bookkeeping. The floor's
whole per-rank work, a bare ``all_reduce`` of one element, is timed alongside.

    .venv/bin/python bench/rank_parts.py [--examples 2000]
"""

from __future__ import annotations

import argparse
import collections
import functools
import os
import pickle
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

#: (owner's dotted name, attribute, label): the steps timed
STEPS = (
    ("graders.comm.recorder:Recorder", "begin", "guard and recorder armed (Recorder.begin)"),
    ("graders.comm.recorder:Recorder", "end", "guard and recorder lifted (Recorder.end)"),
    ("graders.training.live_memory:LiveLedger", "__enter__", "live ledger started (sweep of what is alive)"),
    ("graders.training.live_memory:LiveLedger", "__exit__", "live ledger stopped"),
    ("graders.world.graded_import", "import_student_module", "the graded module imported afresh"),
    ("graders.world.graded_import", "purge_student_modules", "the graded modules purged"),
    ("graders.world.graded_import:StateGuard", "restore", "the state guard's restore"),
    ("graders.world.graded_import", "reset_numerics", "seeds, dtype and threads reset"),
    ("graders.world.worker", "encode_reply", "the reply encoded"),
)


def _owner(dotted: str):
    import importlib

    module, _, cls = dotted.partition(":")
    owner = importlib.import_module(module)
    return getattr(owner, cls) if cls else owner


def _timed(spent: collections.Counter, label: str, fn):
    @functools.wraps(fn)
    def timed(*args, **kwargs):
        start = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            spent[label] += time.perf_counter() - start

    return timed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--examples", type=int, default=2000)
    args = parser.parse_args()

    import torch
    import torch.distributed as dist

    from graders.world.preload import preload

    preload()
    from graders.impl import KIT_ROOT, Impl
    from graders.world import worker
    from tests.world import probe_tasks as probe

    spent: collections.Counter = collections.Counter()
    for dotted, attr, label in STEPS:
        owner = _owner(dotted)
        setattr(owner, attr, _timed(spent, label, getattr(owner, attr)))

    class OneRank(worker.TaskServer):
        def group(self, ranks):
            return None

    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    store = dist.TCPStore("127.0.0.1", 0, 1, is_master=True)
    dist.init_process_group("gloo", store=store, rank=0, world_size=1)
    rank = OneRank(0, 1, tempfile.mkdtemp(prefix="dtlab-rank-parts-"))
    rank._install_recorder()
    rank._install_state_guard()
    impl = Impl.resolve(KIT_ROOT / "fixtures" / "probes")
    task = probe.call_measured
    message = pickle.dumps(
        {
            "task": f"{task.__module__}:{task.__qualname__}",
            "case": probe.ProbeCase(1, "tiny_all_reduce"),
            "location": impl.location("probe").wire(),
            "seed": 0,
        }
    )
    report = sys.stderr  # a task empties the rank's log, file descriptor 1
    log = tempfile.TemporaryFile()
    saved_stdout = os.dup(1)
    os.dup2(log.fileno(), 1)
    try:

        def example() -> None:
            worker.encode_reply(rank.run_task(pickle.loads(message)))

        for _ in range(50):
            example()
        spent.clear()
        start = time.perf_counter()
        for _ in range(args.examples):
            example()
        total = (time.perf_counter() - start) / args.examples
    finally:
        os.dup2(saved_stdout, 1)
    tensor = torch.zeros(1)
    start = time.perf_counter()
    for _ in range(args.examples):
        dist.all_reduce(tensor)
    bare = (time.perf_counter() - start) / args.examples

    print(f"one example on a rank: {total * 1e6:7.1f} us", file=report)
    steps = 0.0
    for label, seconds in spent.most_common():
        per = seconds / args.examples
        steps += per
        print(f"  {per * 1e6:7.1f} us {per / total:6.1%}  {label}", file=report)
    rest = total - steps
    print(f"  {rest * 1e6:7.1f} us {rest / total:6.1%}  the task and the worker's bookkeeping", file=report)
    print(f"the floor's work on a rank, a bare all_reduce of one element: {bare * 1e6:.1f} us", file=report)


if __name__ == "__main__":
    main()
