"""Chapter 2 worker tasks: call the student's collective on every rank of the case's group.

Each task returns plain data only: what the function returned, the state of its input tensor
afterwards, and nothing else. Ranks outside the case's group take no part (they still join the
group's creation, which torch requires of every rank).
"""

from __future__ import annotations

import torch

from graders.world.task import task
from graders.world.values import plain


def _member_input(ctx, case):
    """(group, this rank's input clone on its device) or (group, None) for ranks outside the group."""
    group = ctx.group(case.group)
    if not ctx.in_group(case.group):
        return group, None
    return group, ctx.to_device(case.inputs[ctx.group_rank(case.group)].clone())


@task("ch2.ring_shift")
def ring_shift(ctx, case):
    group, tensor = _member_input(ctx, case)
    if tensor is None:
        return None
    with ctx.student_code() as student:
        returned = student.ring_shift(tensor, group=group)
    return {"returned": plain(returned), "input_after": tensor}


@task("ch2.broadcast")
def broadcast(ctx, case):
    group, tensor = _member_input(ctx, case)
    if tensor is None:
        return None
    with ctx.student_code() as student:
        returned = student.broadcast(tensor, src=case.root, group=group)
    return {"returned": plain(returned), "tensor": tensor}


@task("ch2.reduce")
def reduce(ctx, case):
    group, tensor = _member_input(ctx, case)
    if tensor is None:
        return None
    with ctx.student_code() as student:
        returned = student.reduce(tensor, dst=case.root, op=case.op, group=group)
    return {"returned": plain(returned), "tensor": tensor}


@task("ch2.ring_all_gather")
def ring_all_gather(ctx, case):
    group, tensor = _member_input(ctx, case)
    if tensor is None:
        return None
    with ctx.student_code() as student:
        returned = student.ring_all_gather(tensor, group=group)
    return {"returned": plain(returned), "input_after": tensor}


@task("ch2.ring_reduce_scatter")
def ring_reduce_scatter(ctx, case):
    group, tensor = _member_input(ctx, case)
    if tensor is None:
        return None
    with ctx.student_code() as student:
        returned = student.ring_reduce_scatter(tensor, op=case.op, group=group)
    return {"returned": plain(returned), "input_after": tensor}


@task("ch2.ring_all_reduce")
def ring_all_reduce(ctx, case):
    group, tensor = _member_input(ctx, case)
    if tensor is None:
        return None
    with ctx.student_code() as student:
        returned = student.ring_all_reduce(tensor, op=case.op, group=group)
    return {"returned": plain(returned), "tensor": tensor}


@task("ch2.all_to_all")
def all_to_all(ctx, case):
    group = ctx.group(case.group)
    if not ctx.in_group(case.group):
        return None
    inputs = ctx.to_device([t.clone() for t in case.inputs[ctx.group_rank(case.group)]])
    with ctx.student_code() as student:
        returned = student.all_to_all(inputs, group=group)
    return {"returned": plain(returned), "inputs_after": inputs}


# -- cost model --------------------------------------------------------------------------------


@task("ch2.bytes_sent_per_rank")
def bytes_sent_per_rank(ctx, case):
    with ctx.student_code() as student:
        return plain(
            student.bytes_sent_per_rank(case.collective, case.nbytes, case.n, algorithm=case.algorithm)
        )


def _refusal(call) -> dict:
    """Whether ``call`` raised ValueError (and with what message), or what it returned."""
    try:
        returned = call()
    except ValueError as exc:
        return {"raised": "ValueError", "message": str(exc)}
    return {"raised": None, "returned": plain(returned)}


def _started(call) -> None:
    """Call ``call`` on a supported pair: a stub's TODO raises NotImplementedError there, and the
    exercise is not started, although the stub's given check already refuses unsupported pairs
    (a refusal earns nothing before the function is written). Anything else it raises is the
    formula test's to judge."""
    try:
        call()
    except NotImplementedError:
        raise
    except Exception:
        pass


@task("ch2.bytes_sent_per_rank")
def bytes_sent_per_rank_refusal(ctx, case):
    with ctx.student_code() as student:
        _started(lambda: student.bytes_sent_per_rank("all_reduce", 1024.0, case.n, algorithm="ring"))
        return _refusal(
            lambda: student.bytes_sent_per_rank(
                case.collective, case.nbytes, case.n, algorithm=case.algorithm
            )
        )


@task("ch2.alpha_beta_time")
def alpha_beta_time_refusal(ctx, case):
    with ctx.student_code() as student:
        _started(
            lambda: student.alpha_beta_time(
                "all_reduce", 1024.0, case.n, case.alpha, case.beta, algorithm="ring"
            )
        )
        return _refusal(
            lambda: student.alpha_beta_time(
                case.collective, case.nbytes, case.n, case.alpha, case.beta, algorithm=case.algorithm
            )
        )


@task("ch2.alpha_beta_time")
def alpha_beta_time(ctx, case):
    with ctx.student_code() as student:
        return plain(
            student.alpha_beta_time(
                case.collective, case.nbytes, case.n, case.alpha, case.beta, algorithm=case.algorithm
            )
        )


@task("ch2.bus_bandwidth")
def bus_bandwidth(ctx, case):
    with ctx.student_code() as student:
        return plain(student.bus_bandwidth(case.collective, case.nbytes, case.n, case.seconds))


_COLLECTIVES = {
    "all_reduce": lambda module, tensor: module.ring_all_reduce(tensor),
    "all_gather": lambda module, tensor: module.ring_all_gather(tensor),
    "reduce_scatter": lambda module, tensor: module.ring_reduce_scatter(tensor),
    "broadcast": lambda module, tensor: module.broadcast(tensor, src=0),
    "reduce": lambda module, tensor: module.reduce(tensor, dst=0),
}


@task("ch2.bytes_sent_per_rank")
def collective_traffic(ctx, case):
    """Run ``case.collective`` of the implementation's collectives.py on every rank, traced.

    Not a grader: the kit's tests run it on solutions/ch2 (with ``world_size = case.n``) to
    check the traffic recorded in ``reference_traffic.MEASURED``.
    """
    tensor = ctx.to_device(torch.randn(case.numel))  # the values do not change the traffic
    with ctx.student_code("collectives") as collectives:
        _COLLECTIVES[case.collective](collectives, tensor)
