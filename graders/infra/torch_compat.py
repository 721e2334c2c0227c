"""The torch releases the kit runs on, and the one place that knows where they differ.

The kit runs on torch >= 2.13, < 2.16 (:data:`SUPPORTED`; ``pyproject.toml`` and
``scripts/install_torch.py`` say the same, a test checks it; ``bench/compat.sh PYTHON TORCH`` runs
the graders on the solutions with any release of it). Torch's public API is stable over the range,
but the kit also reaches where no public API does: the modes graded code left entered, the store
of the default group, the names torch gives process groups. Those names are private and may move
in any release, so:

* every private torch name the kit's code reads is in :data:`PRIVATE`, with why; a test scans
  ``graders/`` and ``solutions/`` and fails on one left out, and another resolves each on the
  installed torch (``tests/unit/test_torch_compat.py``);
* the world and the recorder read theirs through the functions below;
* public names a release of the range added are in :data:`ADDED`: the kit's lists (the catalog's
  collectives, the process group's methods) name them, and a name the installed torch lacks is
  skipped there (the recorder wraps only the functions this torch has);
* what a release does on graded code's behalf that a door would refuse is in
  :data:`OWN_CODE_EDITS`.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator

#: the torch series the kit runs on: >= the first, < the second
SUPPORTED = ((2, 13), (2, 16))

#: public ``torch.distributed`` names a release of the range added, by the series that added them
#: (the first two are why the range starts at 2.13: the solutions of ch4 to ch6 call them)
ADDED = {
    "all_gather_single": (2, 13),
    "reduce_scatter_single": (2, 13),
    "gather_single": (2, 14),  # and its deprecated alias gather_into_tensor: a collective
    "gather_into_tensor": (2, 14),
    "get_backend_impl": (2, 14),  # the group's Backend object, whose methods the door refuses
    "set_timeout": (2, 14),
    "ProcessGroup.gather_single": (2, 14),  # methods that communicate: refused to graded code
    "ProcessGroup.gather_into_tensor": (2, 14),
    "ProcessGroup.new_window": (2, 14),  # its Window maps other ranks' memory: refused at new_window
    "ProcessGroup.reconfigure": (2, 14),
    "Backend.gather_single": (2, 14),  # a Backend (dist.get_backend_impl) communicates as its group
    "Backend.allreduce_sparse": (2, 14),
    "Backend.split": (2, 14),  # new groups over the same store: torch's new_group runs them
    "Backend.merge": (2, 14),
}

#: every private torch name the kit's code reads (dotted, as imported), and why
PRIVATE = {
    # the worker world (graders/world), through the functions below
    "torch._C._len_torch_dispatch_stack": "a task leaves no dispatch mode of graded code entered",
    "torch._C._len_torch_function_stack": "a task leaves no torch-function mode entered",
    "torch._C._pop_torch_function_stack": "pops a torch-function mode graded code left entered",
    "torch.utils._python_dispatch._pop_mode": "pops a dispatch mode graded code left entered",
    "torch.distributed.distributed_c10d._get_default_group": "the world's default group",
    "torch.distributed.distributed_c10d._world": "the groups this process holds",
    "torch.distributed.distributed_c10d._world.pg_map": "a fresh store prefix for each task's groups",
    "torch.distributed.distributed_c10d._world.pg_names": "the groups graded code still holds",
    "torch.distributed.distributed_c10d._hash_ranks_to_str": "groups named as in a program alone",
    "torch._dynamo": "imported once by the fork server, before any graded code runs",
    # the recorder, the guard and their doors (graders/comm)
    "torch._C._distributed_c10d": "the C++ classes of process groups, whose methods are doors",
    "torch._C._distributed_c10d.ProcessGroup": "its communicating methods are refused",
    "torch._C._distributed_c10d.Backend": "its communicating methods are refused",
    "torch._C._current_autograd_node": "hand-written backward: which node is running",
    "torch._ops": "the operator registry: namespaces of collective operators refused",
    "torch._ops._get_packet": "refuses the collectives of a fresh operator namespace",
    "torch.utils._python_dispatch.TorchDispatchMode": "the dispatch modes that watch graded code",
    # memory and placement (graders/training)
    "torch._C.StorageBase": "storage made or resized by graded code is counted",
    "torch._C.TensorBase": "where a tensor lives, read past graded code's overrides",
    "torch.utils._python_dispatch._disable_current_modes": "the ledger's own tensors go unwatched",
    # chapters' graders
    "torch.nn.modules.module._global_forward_hooks": "ch1: hooks every module's forward",
    "torch.nn.modules.module._global_forward_pre_hooks": "ch1: hooks every module's forward",
    "torch.distributed.pipelining.schedules.ScheduleGPipe._get_pipeline_order": "ch7: torch's order",
    "torch.distributed.pipelining.schedules.ScheduleInterleaved1F1B._calculate_single_rank_operations": (
        "ch7: torch's interleaved order"
    ),
}


#: torch's own functions that remake the code of a function torch itself made, by file (under the
#: torch package) and name: since 2.15 a context-manager decorator (``@torch.no_grad()`` on a
#: graded method) renames the wrapper it makes after the context manager. The doors that refuse
#: building code and rewriting ``__code__`` let exactly these through (graders/comm/doors.py).
OWN_CODE_EDITS = frozenset({("utils/_contextlib.py", "_set_stack_frame_name")})


def torch_remakes_its_own_code(frame, code_file: str) -> bool:
    """Whether ``frame`` is one of :data:`OWN_CODE_EDITS` making code for a function of its own
    file (``code_file``: the new code's ``co_filename``)."""
    import torch

    root = os.path.dirname(torch.__file__) + os.sep
    here = frame.f_code.co_filename
    if not here.startswith(root) or code_file != here:
        return False
    return (here[len(root) :].replace(os.sep, "/"), frame.f_code.co_name) in OWN_CODE_EDITS


def series(version: str) -> tuple[int, int]:
    """``2.15.0+cpu`` -> ``(2, 15)``; ``(0, 0)`` for what is no version."""
    try:
        major, minor = version.partition("+")[0].split(".")[:2]
        return int(major), int(minor)
    except ValueError:
        return 0, 0


def supported(version: str | None = None) -> bool:
    """Whether torch ``version`` (the installed one by default) is of the range."""
    if version is None:
        import torch

        version = torch.__version__
    return SUPPORTED[0] <= series(version) < SUPPORTED[1]


# -- the modes a task leaves entered (graders/world/task.py) ----------------------------------------
def mode_depths() -> tuple[int, int]:
    """How many dispatch and torch-function modes are entered."""
    import torch

    return torch._C._len_torch_dispatch_stack(), torch._C._len_torch_function_stack()


def pop_dispatch_mode() -> None:
    from torch.utils._python_dispatch import _pop_mode

    _pop_mode()


def pop_function_mode() -> None:
    import torch

    torch._C._pop_torch_function_stack()


# -- the default group and group names (graders/world/worker.py, graders/comm) ----------------------
def swap_default_store(make_store: Callable[[object], object]) -> None:
    """Give the default group the store ``make_store(backend)`` returns: where ``new_group``
    rendezvouses the groups made after it (torch keeps ``(backend, store)`` per group)."""
    from torch.distributed import distributed_c10d as c10d

    default = c10d._get_default_group()
    backend, _ = c10d._world.pg_map[default]
    c10d._world.pg_map[default] = (backend, make_store(backend))


def holds_group(group: object) -> bool:
    """Whether this process still holds ``group`` (not destroyed)."""
    from torch.distributed import distributed_c10d as c10d

    return group in c10d._world.pg_names


@contextlib.contextmanager
def group_names_hashed_by(hashed: Callable[[list[int]], str]) -> Iterator[None]:
    """While inside, torch names a group made with ``use_local_synchronization=True`` by
    ``hashed(ranks)``. torch 2.13 salts its own hash with the number of groups the process holds;
    2.14 and 2.15 with a count of the groups made, on every rank that reached ``new_group``: in the
    kit's world neither agrees across the members of a graded program's group."""
    from torch.distributed import distributed_c10d as c10d

    original = c10d._hash_ranks_to_str
    c10d._hash_ranks_to_str = hashed
    try:
        yield
    finally:
        c10d._hash_ranks_to_str = original
