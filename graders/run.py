"""Grade chapters inside a world torchrun launched: ``torchrun … -m graders.run chN… [options]``.

Every process torchrun starts becomes a rank host (:mod:`graders.world.job.rank_host`): its rank
takes part in the worker worlds the graders make. Rank 0 also runs the driver,
``pytest exercises/chN… [options]`` (any pytest or dtlab option: ``--impl``, ``-k``,
``--backend nccl``, ``--hypothesis-profile``), which judges and reports: its output, points
table and exit status are the job's. On a cluster, with one process per GPU::

    torchrun --nnodes 2 --nproc-per-node 8 --rdzv-backend c10d --rdzv-endpoint HOST:29500 \\
        -m graders.run ch4 --backend nccl

Worlds of 1 … N ranks use the job's ranks 0 … N-1 (ranks, not machines: a world of 2 is on the
first node). A case needing more ranks than the job has is set aside (hypothesis draws another), and a
test none of whose cases fit is skipped.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading

from graders.impl import KIT_ROOT
from graders.plugin.run_spec import GradingRun
from graders.proc import die_with_parent
from graders.world.job.rank_host import without_torchrun


def _job() -> tuple[int, int, int, str, int]:
    missing = [
        name for name in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT") if name not in os.environ
    ]
    if missing:
        raise SystemExit(
            f"graders.run: {', '.join(missing)} not set; start it with torchrun: "
            "torchrun --nproc-per-node 4 -m graders.run ch2"
        )
    env = os.environ
    return (
        int(env["RANK"]),
        int(env["WORLD_SIZE"]),
        int(env.get("LOCAL_RANK", "0")),
        env["MASTER_ADDR"],
        int(env["MASTER_PORT"]),
    )


def _tests_of(chapter: str) -> str:
    """``exercises/chN`` for a chapter, else the test file or folder named (the kit's own tests)."""
    return f"exercises/{chapter}" if (KIT_ROOT / "exercises" / chapter).is_dir() else chapter


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0].startswith("-"):
        print("usage: torchrun [torchrun options] -m graders.run chN… [pytest options]", file=sys.stderr)
        return 2
    first_option = next((i for i, arg in enumerate(args) if arg.startswith("-")), len(args))
    chapters, options = args[:first_option], args[first_option:]
    rank, world_size, local_rank, address, port = _job()

    import torch.distributed as dist

    from graders.world.job.rank_host import RankHost

    # The job's store (rank 0 hosts it, unless torchrun's agent does): kept alive to the end.
    job_store, _, _ = next(dist.rendezvous("env://"))
    host = RankHost(rank, local_rank, address, port, tempfile.mkdtemp(prefix=f"dtlab-host{rank}-"))
    host.announce()
    if rank != 0:
        try:
            host.serve()
        finally:
            host.close()
        return 0
    env = without_torchrun(dict(os.environ))
    env["DTLAB_TORCHRUN_WORLD"] = f"{address}:{port}:{world_size}"
    run = GradingRun(tests=tuple(map(_tests_of, chapters)), cache=True, extra=tuple(options))
    driver = subprocess.Popen(
        [sys.executable, "-m", "pytest", *run.pytest_args(KIT_ROOT)],
        cwd=KIT_ROOT,
        env=env,
        preexec_fn=die_with_parent,  # torchrun ending this rank (another rank failed) ends the driver
    )
    watcher = threading.Thread(target=_end_after, args=(driver, host), daemon=True)
    watcher.start()
    try:
        host.serve()
    finally:
        host.close()
    code = driver.wait()
    del job_store
    return code


def _end_after(driver: subprocess.Popen, host) -> None:
    """When the driver has ended, whatever ended it, every host ends too."""
    from graders.world.job.cluster import end_every_host

    driver.wait()
    end_every_host(host.replies)


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)  # no destructor runs: a store client freed while a relay still uses it aborts
