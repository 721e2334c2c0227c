"""Every route to a banned operator or to communication is refused or traced, found by walking
torch's namespaces rather than listed by hand.

* A banned kernel is refused at the dispatcher (:mod:`graders.comm.operator_bans`), which every
  Python name of it reaches; a banned composite never reaches the dispatcher by name, so its
  decomposition must call a banned operator, whichever Python name it was called by.
* A ``torch.distributed`` function that communicates itself (calls a ProcessGroup's methods) is
  traced, or its calls are refused by the process-group door; a native one that takes a
  ProcessGroup and moves data is refused as a door in multi-rank exercises.
"""

from __future__ import annotations

import fnmatch
import types

import pytest
import torch
import torch._C._distributed_c10d as c10d
import torch.distributed as dist
import torch.nn.functional as F

from graders import catalog
from graders.comm.operator_bans import OperatorBans, operator_patterns
from graders.comm.recorder import LIFECYCLE, WRAPPED

#: where torch binds its operators to Python names
NAMESPACES = {
    "torch": torch,
    "torch._C._VariableFunctions": torch._C._VariableFunctions,
    "torch._VF": torch._VF,
    "torch._C._nn": torch._C._nn,
    "torch.nn.functional": F,
    "torch.special": torch.special,
    "torch.linalg": torch.linalg,
}
ALL_OPERATORS = torch._C._dispatch_get_all_op_names()


def _named_operator(dotted: str) -> str | None:
    """``aten::name`` when a banned dotted name is one of torch's operator bindings."""
    name = dotted.rpartition(".")[2]
    bound = any(getattr(ns, name, None) is not None for ns in NAMESPACES.values())
    return f"aten::{name}" if bound and f"aten::{name}" in ALL_OPERATORS else None


def _banned_operators() -> dict[str, tuple[str, ...]]:
    """Every operator some exercise bans, by pattern or by a Python name of it (without overload)
    -> that exercise's patterns."""
    found: dict[str, tuple[str, ...]] = {}
    for exercise in catalog.EXERCISES.values():
        patterns = operator_patterns(exercise.banned)
        for op in ALL_OPERATORS:
            base = op.partition(".")[0]
            if any(fnmatch.fnmatchcase(base, p) for p in patterns):
                found[base] = patterns
        for dotted in exercise.banned:
            op = _named_operator(dotted) if dotted.startswith("torch.") else None
            if op is not None:
                found[op] = patterns
    return found


BANNED = _banned_operators()


def _composite(op: str) -> bool:
    return torch._C._dispatch_has_kernel_for_dispatch_key(op, "CompositeImplicitAutograd")


def _routes(op: str) -> list[tuple[str, object]]:
    """Every Python name of ``op`` (``aten::name``): its bindings and its ``torch.ops`` overloads."""
    name = op.removeprefix("aten::")
    routes = [(f"{where}.{name}", getattr(ns, name)) for where, ns in NAMESPACES.items() if hasattr(ns, name)]
    packet = getattr(torch.ops.aten, name)
    routes.append((f"torch.ops.aten.{name}", packet))
    routes += [(f"torch.ops.aten.{name}.{o}", getattr(packet, o)) for o in packet.overloads()]
    return routes


class _Refused(Exception):
    pass


class _AlwaysGraded:
    """The bans of a worker in which every call is graded code's: refusals raise."""

    def graded_request(self, frame) -> bool:
        return True

    def refuse(self, dotted: str, why: str = "", *, site: str = "") -> None:
        raise _Refused(dotted)


def test_the_walk_finds_the_banned_families():
    for op in (
        "aten::_fused_adam_",
        "aten::_amp_foreach_non_finite_check_and_unscale_",
        "aten::_amp_update_scale_",
        "aten::_scaled_dot_product_flash_attention_for_cpu",
        "aten::_scaled_dot_product_attention_math",
        "aten::_safe_softmax",
    ):
        assert op in BANNED, op
    assert len(_routes("aten::_scaled_dot_product_attention_math")) >= 4


@pytest.mark.parametrize("op", sorted(op for op in BANNED if not _composite(op)))
def test_a_banned_kernel_is_seen_by_the_dispatcher_by_every_name(op):
    """A kernel (not a composite) reaches the dispatcher, where the patterns refuse it, whatever
    Python name called it: there is no route to check one by one."""
    assert not _composite(op)
    assert any(fnmatch.fnmatchcase(op, p) for p in BANNED[op])


#: sample calls of each banned composite, by argument list (shared by all its Python names)
def _attention_inputs():
    q = torch.randn(1, 2, 8, 4, requires_grad=True)
    return (q, q.detach(), q.detach())


COMPOSITE_CALLS = {
    "aten::scaled_dot_product_attention": _attention_inputs,
    "aten::_scaled_dot_product_attention_math": _attention_inputs,
}


def test_every_banned_composite_has_a_sample_call():
    assert {op for op in BANNED if _composite(op)} == set(COMPOSITE_CALLS)


@pytest.mark.parametrize("op", sorted(COMPOSITE_CALLS))
def test_a_banned_composite_is_refused_by_every_name(op):
    """A composite decomposes before the dispatcher sees it: what it decomposes into must be
    refused, whichever Python name (binding, packet, overload) was called."""
    for route, fn in _routes(op):
        if route.endswith(".dropout") or "for_mps" in route:
            continue
        mode = OperatorBans(_AlwaysGraded(), BANNED[op])
        with pytest.raises(_Refused), mode:
            fn(*COMPOSITE_CALLS[op]())


def test_the_kernels_are_refused_through_torch_ops_with_no_crash():
    """``torch.ops.aten.<kernel>.default`` is an ordinary call, refused like the others (a name
    shadowed by a function used to end in ``'function' object has no attribute 'default'``)."""
    grads, found_inf, inv_scale = [torch.ones(3)], torch.zeros(1), torch.ones(1)
    patterns = operator_patterns(catalog.AMP_SCALING)
    with pytest.raises(_Refused, match="_amp_foreach"), OperatorBans(_AlwaysGraded(), patterns):
        torch.ops.aten._amp_foreach_non_finite_check_and_unscale_.default(grads, found_inf, inv_scale)
    q = _attention_inputs()
    patterns = operator_patterns(catalog.SDPA)
    with pytest.raises(_Refused, match="flash"), OperatorBans(_AlwaysGraded(), patterns):
        torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default(*q)


def test_hand_written_attention_is_not_refused():
    """The lesson's own operations (matmul, softmax, exp, masks) pass the attention bans."""
    q, k, v = _attention_inputs()
    with OperatorBans(_AlwaysGraded(), operator_patterns(catalog.SDPA)):
        scores = q @ k.transpose(-1, -2) / 2
        scores = scores.masked_fill(torch.ones(8, 8, dtype=torch.bool).triu(1), float("-inf"))
        out = torch.softmax(scores, dim=-1) @ v
        out = (torch.exp(scores - scores.amax(-1, keepdim=True)) @ v) + out
        out.sum().backward()


# -- torch.distributed ------------------------------------------------------------------------

#: ProcessGroup methods that communicate (the rest only describe the group or end it)
_COMMUNICATING = catalog.PROCESS_GROUP_METHODS - {"abort", "shutdown", "boxed", "unbox", "get_group_store"}


def _pg_calls(fn: types.FunctionType) -> set[str]:
    names = set(fn.__code__.co_names)
    for const in fn.__code__.co_consts:
        if isinstance(const, types.CodeType):
            names |= set(const.co_names)
    return names & _COMMUNICATING


def _python_communicators() -> dict[str, set[str]]:
    """torch.distributed's Python functions that call a ProcessGroup's communicating methods."""
    found = {}
    for name, fn in vars(dist).items():
        while type(fn) is types.FunctionType and hasattr(fn, "__wrapped__"):
            fn = fn.__wrapped__
        if type(fn) is types.FunctionType and _pg_calls(fn):
            found[name] = _pg_calls(fn)
    return found


def test_every_communicating_function_is_traced_or_refused():
    """A function that communicates is traced by the recorder; one that is not (a private
    alias, the coalescing manager, ``breakpoint``) reaches the ProcessGroup's methods, which the
    process-group door refuses to graded code; one that makes groups runs from a kit frame."""
    communicators = _python_communicators()
    assert {"all_reduce", "broadcast", "send", "all_gather_into_tensor"} <= set(communicators)
    for name, calls in communicators.items():
        traced = name in WRAPPED or name in LIFECYCLE
        assert traced or calls <= catalog.PROCESS_GROUP_METHODS, name


#: native functions that take a ProcessGroup and move no data: they register, look up or name one
_NATIVE_NO_DATA = {
    "_register_process_group",
    "_resolve_process_group",
    "_set_process_group",
    "_current_process_group",
}


def test_every_native_function_that_moves_data_is_a_door():
    natives = {
        name
        for name, value in vars(c10d).items()
        if callable(value)
        and not isinstance(value, type)
        and "ProcessGroup" in (value.__doc__ or "").split("\n")[0]
    }
    doors = {name.rpartition(".")[2] for name in catalog.NATIVE_COLLECTIVE_OBJECTS}
    assert natives - _NATIVE_NO_DATA <= doors, natives - _NATIVE_NO_DATA - doors
    assert {"_broadcast_coalesced", "Reducer"} <= doors


def test_every_communicating_process_group_method_is_refused():
    """Methods of ProcessGroup and its backends that take tensors or a store communicate."""
    for cls in (c10d.ProcessGroup, c10d.Backend, c10d.ProcessGroupGloo):
        for name, value in vars(cls).items():
            head = (getattr(value, "__doc__", "") or "").split("\n")[0]
            moves = "Tensor]" in head or "Store" in head or "Work" in head
            if moves and not name.startswith("__") and name != "allocate_tensor":
                assert name in catalog.PROCESS_GROUP_METHODS, f"{cls.__name__}.{name}"
