"""The aliases the backend is handed outlive its hold on them (``graders.comm.backend_hold``).

gloo's thread drops its reference to a finished work a moment after the work completed. Had the
kit let go of an alias's Python object first, that thread would take the GIL on a thread state
made for it, which crashes a process whose Python heap is traced (CPython 3.11's tracemalloc).
So every alias the kit cuts loose stays referenced by the kit until a task later, and a dropped
handle's aliases are cut once it was waited for or its work completed.
"""

import sys

import torch

from graders.comm import backend_hold


class _Work:
    def __init__(self) -> None:
        self.done = False

    def is_completed(self) -> bool:
        return self.done


def _alias_of(tensor: torch.Tensor) -> torch.Tensor:
    return backend_hold.alias(tensor)


def test_a_cut_alias_holds_no_memory_and_is_kept_for_a_task_more():
    buffer = torch.ones(64)
    made = _alias_of(buffer)
    backend_hold.release_kept()
    backend_hold.release_kept()  # nothing left from earlier tests
    backend_hold.cut((made,))
    assert made.untyped_storage().nbytes() == 0 and buffer.sum() == 64
    refs = sys.getrefcount(made)
    backend_hold.release_kept()  # the task ends: still kept
    assert sys.getrefcount(made) == refs
    backend_hold.release_kept()  # a task later: let go
    assert sys.getrefcount(made) == refs - 1


def test_a_dropped_handle_is_cut_when_waited_for_or_once_its_work_completed():
    waited, pending = _alias_of(torch.ones(8)), _alias_of(torch.ones(8))
    backend_hold.handle_dropped(_Work(), (waited,), waited=True)
    assert waited.untyped_storage().nbytes() == 0
    work = _Work()
    backend_hold.handle_dropped(work, (pending,), waited=False)
    backend_hold.cut_completed()
    assert pending.untyped_storage().nbytes() == 32  # still on the wire
    work.done = True
    backend_hold.cut_completed()
    assert pending.untyped_storage().nbytes() == 0
