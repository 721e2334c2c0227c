"""Chapter 7: run a pipeline schedule for real, with point-to-point messages between stages.

Every rank of ``group`` holds one stage of the model: group rank ``s`` is stage ``s`` of
``p = dist.get_world_size(group)``. Activations travel from stage ``s`` to ``s + 1`` and
gradients from ``s + 1`` back to ``s``. Only ``send``, ``recv``, ``isend``, ``irecv`` (and
``batch_isend_irecv``) are allowed; the collectives are banned. To talk to stage ``r``, pass
``group=group, group_dst=r`` (``group_src=r`` to receive).

gloo's blocking ``send`` waits until the peer posts the matching ``recv``. In 1F1B's steady
state stage ``s`` sends an activation to ``s + 1`` while ``s + 1`` sends a gradient back to
``s``: two blocking sends facing each other never finish. Post sends with ``isend`` (keep the
handle, ``wait()`` on it before returning) and receive with ``recv``.
"""

import torch
import torch.distributed as dist


def run_pipeline(stage_module, schedule, microbatches, loss_fn, group=None):
    """Run this rank's stage through ``schedule[rank]``: forwards, backwards, and the messages.

    * ``stage_module``: this rank's stage. It maps a tensor shaped like a microbatch input to
      a tensor of the same shape and dtype, so every activation and every gradient that
      crosses a stage boundary is shaped like ``microbatches[mb][0]``.
    * ``schedule``: one list of actions per stage, ``("F", mb)`` or ``("B", mb)``, as returned
      by ``schedules.py``. It is valid (every action once, no deadlock) and every stage
      handles the microbatches in the same order, so the messages between two stages arrive
      in the order they are received.
    * ``microbatches``: list of ``(input, target)`` pairs, the same on every rank. Stage 0
      feeds the inputs to its module; the last stage scores its outputs against the targets.
    * ``loss_fn(output, target)``: the mean loss of one microbatch, a 0-dim tensor.

    Afterwards every parameter of ``stage_module`` that takes part holds in ``.grad`` (which
    starts as None) the gradient of the **mean of the microbatch losses**, which equals the
    full-batch mean loss because the microbatches have equal sizes. Frozen and unused
    parameters keep ``grad=None``.

    Memory: drop a forward's activations (its graph) as soon as its backward is done, so a
    stage never holds more microbatches than the schedule has in flight (GPipe: m; 1F1B: at
    most p - s). Do not use ``retain_graph=True``.

    Returns the mean loss over the microbatches as a 0-dim tensor on the last stage, and None
    on the other stages.
    """
    ### BEGIN SOLUTION
    rank, world = dist.get_rank(group), dist.get_world_size(group)
    first, last = rank == 0, rank == world - 1
    inputs: dict[int, torch.Tensor] = {}  # what each in-flight forward received
    outputs: dict[int, torch.Tensor] = {}  # and produced (the loss on the last stage)
    losses = []
    sends = []
    for kind, mb, *_ in schedule[rank]:
        if kind == "F":
            x, target = microbatches[mb]
            if not first:
                x = torch.empty_like(x)
                dist.recv(x, group=group, group_src=rank - 1)
                x.requires_grad_()
            y = stage_module(x)
            if last:
                y = loss_fn(y, target) / len(microbatches)
                losses.append(y.detach())
            else:
                sends.append(dist.isend(y.detach(), group=group, group_dst=rank + 1))
            inputs[mb], outputs[mb] = x, y
        else:
            x, y = inputs.pop(mb), outputs.pop(mb)
            if last:
                y.backward()
            else:
                grad = torch.empty_like(y)
                dist.recv(grad, group=group, group_src=rank + 1)
                y.backward(grad)
            if not first:
                sends.append(dist.isend(x.grad, group=group, group_dst=rank - 1))
    for work in sends:
        work.wait()
    return torch.stack(losses).sum() if last else None
    ### END SOLUTION
