"""A generic task for testing the worker world itself (``tests/world/test_world.py``).

It calls ``fixtures/probes/probe.py:<case.fn>(rank, world_size)`` on every rank, under the
recorder, with the chapter-2 ban on built-in collectives.

A fixture of the kit's own tests, so not in the package (nor in a wheel or a student release).
Workers resolve tasks by module name: they import ``tests.world.probe_tasks`` from the kit's
root, which the fork server puts on their path (as ``torchrun -m graders.run`` does, started
there); the kit's tests import it by the same name (pytest names their modules from the kit's
root), and ``bench/`` scripts put the root on ``sys.path`` first.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from graders.catalog import COLLECTIVES, Exercise
from graders.world.task import task
from graders.world.values import plain


@dataclass(frozen=True)
class ProbeCase:
    world_size: int
    fn: str
    tag: int = field(default=0, repr=False)  # a field the repr leaves out, as some cases' do


#: The probes are not exercises of the catalog: they test the world itself.
PROBE = Exercise("probe.call", "probe", "", {}, banned=COLLECTIVES)
PROBE_BANNING_ADAMW = Exercise("probe.call", "probe", "", {}, banned=frozenset({"torch.optim.AdamW"}))


@task(PROBE)
def call(ctx, case):
    with ctx.student_code() as probe:
        return _called(probe, ctx, case)


def _called(probe, ctx, case):
    return plain(getattr(probe, case.fn)(ctx.rank, ctx.world_size))


@task(PROBE, reuse=True)
def call_reused(ctx, case):
    """As :func:`call`, its outcome kept per case (``reuse=True``): ``(value, case.tag)``."""
    with ctx.student_code() as probe:
        return _called(probe, ctx, case), case.tag


@task(PROBE_BANNING_ADAMW)
def call_banning_adamw(ctx, case):
    with ctx.student_code() as probe:
        value = _called(probe, ctx, case)
    import torch.optim

    return {
        "value": value,
        "restored": torch.optim.AdamW.__name__ == "AdamW" and isinstance(torch.optim.AdamW, type),
    }


#: collectives allowed: the probes of what a backend holds of graded code's buffers
PROBE_COLLECTIVES = Exercise("probe.call", "probe", "", {})


#: a world torchrun's launcher starts, for one task (as chapter 1's first DDP script runs)
PROBE_LAUNCHED = Exercise("probe.call", "probe", "", {}, launcher="torchrun")


@task(PROBE_LAUNCHED)
def call_launched(ctx, case):
    """As :func:`call`, in a world torchrun's launcher starts."""
    with ctx.student_code() as probe:
        return _called(probe, ctx, case)


@task(PROBE_COLLECTIVES)
def call_with_collectives(ctx, case):
    """As :func:`call`, with ``torch.distributed``'s own collectives allowed (the NCCL probes)."""
    with ctx.student_code() as probe:
        return _called(probe, ctx, case)


@task(PROBE_COLLECTIVES)
def call_measured(ctx, case):
    """The probe under a live ledger that counts what all-gathers bring in, with the recorder
    cutting the backend's hold on finished collectives (as ``MeasuredTraining`` has it) unless
    ``case.fn`` ends in ``:uncut``: ``{"value", "gathered"}`` (the most bytes gathered at once)."""
    from graders.training.live_memory import LiveLedger

    fn, _, how = case.fn.partition(":")
    ledger = LiveLedger(ctx.location.chapter_dir)
    if how != "uncut":
        ctx.release_buffers()
    with ledger, ctx.student_code() as probe:
        ctx.watch_gathers(ledger.gathered_into)
        value = plain(getattr(probe, fn)(ctx.rank, ctx.world_size))
    return {"value": value, "gathered": max((p.bytes for p in ledger.gathered_peaks.values()), default=0)}
