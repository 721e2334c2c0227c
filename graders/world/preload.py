"""What every rank needs, imported once in the fork server before any world is forked.

Forked ranks share these modules' pages; importing them in every rank of every world would cost
seconds each. Nothing here initialises a process group or runs graded code.
"""

from __future__ import annotations

import gc

from graders.words import catalogue


def _import_chapter_tasks() -> None:
    """Every chapter's worker tasks, its sub-wings' too (and the hypothesis they import, ~0.1 s):
    once, in the fork server, not in every rank of every world."""
    import importlib

    from graders.catalog.discovery import chapter_ids, grader_modules

    for chapter in chapter_ids():
        for name in grader_modules(chapter, "tasks"):
            importlib.import_module(name)


def preload() -> None:
    """Import what every rank needs, once, in the fork server (never initialises a process group)."""
    import torch
    import torch._dynamo  # noqa: F401
    import torch.distributed  # noqa: F401

    # torch.optim (and DDP) import torch._dynamo on first use: about 2 s per rank, and it
    # rebinds torch.manual_seed, which the state guard would report as tampering. Import it
    # once here, before the workers fork and take their snapshot.
    torch.set_num_threads(1)
    # DTensor (chapter 6's cross-check) costs about a second to import: once, here. And the first
    # backward of a process imports torch.fx's symbolic shapes (and sympy) lazily, ~0.7 s: pay it
    # once here rather than in every rank of every world, where it can miss a task's deadline.
    import torch.distributed.device_mesh  # noqa: F401
    import torch.distributed.tensor.parallel  # noqa: F401
    import torch.fx.experimental.symbolic_shapes  # noqa: F401

    import graders.comm.recorder  # noqa: F401
    import graders.comm.trace  # noqa: F401
    import graders.world.graded_import  # noqa: F401
    import graders.world.launched.ranks
    import graders.world.task  # noqa: F401
    import graders.world.wire  # noqa: F401

    graders.world.launched.ranks.preload()
    _import_chapter_tasks()
    catalogue.load_all()
    _import_banned_modules()
    # Everything imported so far lives as long as the process: keep it out of the cyclic
    # collector, so the live-memory ledger's gc.collect() costs microseconds, not 0.2 s (and
    # forked ranks do not copy the pages the collector would touch).
    gc.collect()
    gc.freeze()


def _import_banned_modules() -> None:
    """The recorder bans ZeroRedundancyOptimizer by importing its module (0.5 s) when a task
    starts: import it in the fork server once, not in every rank of every world."""
    import torch.distributed.optim  # noqa: F401
