"""Worker side: what a backend holds of graded code's buffers ends at a moment of the code's own.

gloo runs every collective on a worker thread, which keeps its reference to the ``Work`` (and
through it to every tensor the collective reads and writes) until a moment *after* the work
completed: ``wait()`` returns as soon as the work is marked complete, and the thread drops its
reference when it gets round to it. A buffer graded code lets go of right after ``wait()`` then
either dies at once or lives on for a few microseconds, as the threads happen to be scheduled
(about one time in six on a quiet 2-core machine), and a live ledger that counts every storage
alive saw one more layer gathered in some runs than in others.

While the live ledger watches (``Recorder.release_buffers``), the recorder hands the backend
*aliases* of graded code's tensors instead of the tensors themselves: new tensors over the
same memory (:func:`alias`), held by the kit. When the collective is done, at a moment the graded
code decides, the kit points each alias at an empty storage (:func:`cut`), so that whatever
the backend still holds no longer keeps graded code's memory alive:

* a blocking collective: when it returns;
* an asynchronous one: when graded code drops its handle after the work completed (while graded
  code keeps the handle, the buffers stay alive with it, as torch's own ``Work`` keeps them).

``all_gather_into_tensor`` (and ``all_gather_single``) is handed to the backend as the list form
of the same all-gather, on aliases of the output's chunks: the tensor form makes views of the
output inside the backend, which the kit could not cut.
"""

from __future__ import annotations

import torch

#: the calls whose tensor arguments are buffers the backend reads or writes (object collectives
#: build their own tensors, and fill the lists they are given: they are handed over as they are)
BUFFER_CALLS = frozenset(
    {
        "all_reduce",
        "broadcast",
        "reduce",
        "all_gather",
        "all_gather_into_tensor",
        "all_gather_single",
        "reduce_scatter",
        "reduce_scatter_tensor",
        "reduce_scatter_single",
        "all_to_all",
        "all_to_all_single",
        "gather",
        "scatter",
        "send",
        "recv",
        "isend",
        "irecv",
    }
)
_TENSOR_FORM_GATHERS = ("all_gather_into_tensor", "all_gather_single")


class CannotAlias(Exception):
    """A tensor the kit cannot alias (sparse, a subclass, ...): the call is made as it is."""


def alias(tensor: torch.Tensor) -> torch.Tensor:
    """A new tensor over ``tensor``'s memory, with its own version counter and no autograd."""
    return _over(tensor, tensor.storage_offset(), tensor.size(), tensor.stride())


def _over(tensor: torch.Tensor, offset: int, size, stride) -> torch.Tensor:
    # (a live ledger sees the empty tensor and the set_: no bytes of graded code's)
    if type(tensor) not in (torch.Tensor, torch.nn.Parameter) or tensor.layout != torch.strided:
        raise CannotAlias(type(tensor).__name__)
    try:
        made = torch.empty(0, dtype=tensor.dtype, device=tensor.device)
        return made.set_(tensor.untyped_storage(), offset, size, stride)
    except RuntimeError as exc:  # an inference tensor outside inference mode, say
        raise CannotAlias(str(exc)) from exc


#: aliases cut loose, kept alive (empty: they hold no memory) until a task later. The backend's
#: thread may still hold an alias for a moment; if the kit let go of its Python object first,
#: torch would hand that object to the thread, which must then take the GIL on a thread state
#: made for it, and CPython 3.11's tracemalloc crashes the process (SIGSEGV in
#: ``traceback_new``) when a thread state is made while it traces (a graded ledger's Python
#: heap). So the kit keeps every alias until no backend thread can hold it and no tracing runs.
_KEPT: list[torch.Tensor] = []
_KEPT_BEFORE: list[torch.Tensor] = []
#: aliases of handles graded code dropped before it waited for them, with their work
_PENDING: list[tuple[object, tuple]] = []


def cut(aliases) -> None:
    """Point every alias at an empty storage: the memory it showed is no longer held by it."""
    for made in aliases:
        made.set_()
    _KEPT.extend(aliases)


def handle_dropped(work, aliases: tuple, waited: bool) -> None:
    """Graded code let go of an async handle: cut its aliases if it waited for the work or the
    work completed, else once it has (:func:`cut_completed`). (gloo's ``reduce_scatter_tensor``
    says it is not completed even after ``wait()``: a wait is the surer sign.)"""
    if waited:
        cut(aliases)
        return
    _PENDING.append((work, aliases))
    cut_completed()


def cut_completed() -> None:
    """Cut the aliases of dropped handles whose work has completed since (the live ledger asks
    at every operator: the memory goes when the backend's copy of the handle would have gone)."""
    if not _PENDING:
        return
    pending = _PENDING[:]
    _PENDING.clear()  # (cutting runs operators: a call from inside finds nothing to do)
    for work, aliases in pending:
        if work.is_completed():
            cut(aliases)
        else:
            _PENDING.append((work, aliases))


def release_kept() -> None:
    """Between tasks, no tracing runs: let go of the aliases cut loose in the task before the
    last (a task later, no backend thread can still hold one)."""
    cut_completed()
    _KEPT_BEFORE[:] = _KEPT
    _KEPT.clear()


def aliased_call(name: str, real, arguments: dict, args: tuple, kwargs: dict, all_gather):
    """``(call, aliases)``: a thunk making the call ``real`` on aliases of its tensors, and the
    aliases to :func:`cut` when the work is done; ``(None, ())`` when the call must be made as it
    is. ``all_gather`` is the untraced list-form all-gather (for the tensor-form gathers)."""
    if name not in BUFFER_CALLS:
        return None, ()
    try:
        if name in _TENSOR_FORM_GATHERS:
            return _as_list_gather(arguments, all_gather)
        made: list[torch.Tensor] = []
        new_args = tuple(_aliased(value, made) for value in args)
        new_kwargs = {key: _aliased(value, made) for key, value in kwargs.items()}
    except CannotAlias:
        return None, ()
    if not made:
        return None, ()
    return (lambda: real(*new_args, **new_kwargs)), tuple(made)


def _aliased(value, made: list):
    if isinstance(value, torch.Tensor):
        made.append(alias(value))
        return made[-1]
    if isinstance(value, list | tuple) and any(isinstance(v, torch.Tensor) for v in value):
        return type(value)(_aliased(v, made) for v in value)
    return value


def _as_list_gather(arguments: dict, all_gather):
    output, piece = arguments["output_tensor"], arguments["input_tensor"]
    group, async_op = arguments.get("group"), arguments.get("async_op", False)
    if not (isinstance(output, torch.Tensor) and isinstance(piece, torch.Tensor)):
        return None, ()
    world = _world_size(group)
    fits = world is not None and output.dtype == piece.dtype and output.numel() == world * piece.numel()
    if not (fits and output.is_contiguous() and piece.is_contiguous()):
        return None, ()  # torch says what is wrong, in its own words
    step, stride = piece.numel(), _contiguous_stride(piece.size())
    chunks = [_over(output, output.storage_offset() + r * step, piece.size(), stride) for r in range(world)]
    mine = alias(piece)
    return (lambda: all_gather(chunks, mine, group=group, async_op=async_op)), (*chunks, mine)


def _contiguous_stride(size) -> tuple[int, ...]:
    stride, step = [], 1
    for extent in reversed(size):
        stride.append(step)
        step *= max(extent, 1)
    return tuple(reversed(stride))


def _world_size(group) -> int | None:
    import torch.distributed as dist

    try:
        return dist.get_world_size(group)
    except (RuntimeError, ValueError):
        return None
