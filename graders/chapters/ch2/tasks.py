"""Chapter 2 worker tasks: call the student's collective on every rank of the case's group.

Each task returns plain data only: what the function returned, the state of its input tensor
afterwards, and nothing else. Ranks outside the case's group take no part (they still join the
group's creation, which torch requires of every rank).
"""

from __future__ import annotations

from graders.world.task import task
from graders.world.values import plain


def _member_input(ctx, case):
    """(group, this rank's input clone) or (group, None) for ranks outside the group."""
    group = ctx.group(case.group)
    if not ctx.in_group(case.group):
        return group, None
    return group, case.inputs[ctx.group_rank(case.group)].clone()


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
    inputs = [t.clone() for t in case.inputs[ctx.group_rank(case.group)]]
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


_MEASURED_CALLS = {
    "all_reduce": lambda s, t, case, group: s.ring_all_reduce(t, group=group),
    "all_gather": lambda s, t, case, group: s.ring_all_gather(t, group=group),
    "reduce_scatter": lambda s, t, case, group: s.ring_reduce_scatter(t, group=group),
    "broadcast": lambda s, t, case, group: s.broadcast(t, src=0, group=group),
    "reduce": lambda s, t, case, group: s.reduce(t, dst=0, group=group),
}


@task("ch2.bytes_sent_per_rank")
def measured_traffic(ctx, case):
    """Run the student's own collective (traced), then ask their cost model for its prediction."""
    tensor = case.inputs[ctx.rank].clone()
    with ctx.student_code("collectives") as collectives:
        _MEASURED_CALLS[case.collective](collectives, tensor, case, None)
    with ctx.student_code() as cost_model:
        predicted = cost_model.bytes_sent_per_rank(
            case.collective, case.nbytes, case.n, algorithm=case.algorithm
        )
    return {"predicted": plain(predicted)}
