"""Chapter 7: pipeline schedules, as pure functions.

A pipeline of ``p`` stages trains on a batch cut into ``m`` microbatches. A schedule says, for
every stage, the order in which it runs its work::

    schedule[s] = [("F", 0), ("F", 1), ("B", 0), ...]    # stage s's actions, in order

* ``("F", mb)``: the forward of microbatch ``mb`` on this stage. It needs the activation that
  stage ``s - 1`` computed for ``mb`` (stage 0 reads the microbatch itself), and it stores the
  activations its backward will need.
* ``("B", mb)``: the backward of microbatch ``mb`` on this stage. It needs the gradient that
  stage ``s + 1`` computed for ``mb`` (the last stage starts from the loss) and the activations
  of its own ``("F", mb)``, which it frees.
* Interleaved schedules cut each stage's layers into ``v`` chunks and name the chunk:
  ``("F", mb, chunk)``. The model then has ``p * v`` virtual stages; chunk ``c`` of stage ``s``
  is virtual stage ``c * p + s`` (the Megatron-LM and ``torch.distributed.pipelining``
  layout). After chunk ``c`` of stage ``p - 1`` the activation goes to chunk ``c + 1`` of stage
  0; gradients flow the other way.

Every function returns a list of ``num_stages`` lists of action tuples. Microbatches and chunks
are numbered from 0. Every stage runs every one of its actions exactly once. These are pure
functions: no torch, no torch.distributed, and no schedule from ``torch.distributed.pipelining``.
"""


def gpipe_schedule(num_stages: int, num_microbatches: int) -> list[list[tuple[str, int]]]:
    """GPipe: every stage runs the forwards of all microbatches, then all the backwards.

    Each stage holds the activations of all ``num_microbatches`` microbatches at its peak.
    """
    ### BEGIN SOLUTION
    forwards = [("F", mb) for mb in range(num_microbatches)]
    backwards = [("B", mb) for mb in range(num_microbatches)]
    return [forwards + backwards for _ in range(num_stages)]
    ### END SOLUTION


def one_f_one_b_schedule(num_stages: int, num_microbatches: int) -> list[list[tuple[str, int]]]:
    """1F1B (one forward, one backward; PipeDream-Flush, Megatron-LM's non-interleaved schedule).

    Stage ``s`` warms up with ``min(num_stages - s - 1, num_microbatches)`` forwards, then
    alternates one forward and one backward while forwards remain (the steady state), and
    ends with the backwards still to do (the cool-down). No stage ever holds more than
    ``num_stages - s`` microbatches' activations, and the bubble is the same as GPipe's.
    """
    ### BEGIN SOLUTION
    schedule = []
    for stage in range(num_stages):
        warmup = min(num_stages - stage - 1, num_microbatches)
        actions = [("F", mb) for mb in range(warmup)]
        for mb in range(warmup, num_microbatches):  # steady state: one forward, one backward
            actions += [("F", mb), ("B", mb - warmup)]
        actions += [("B", mb) for mb in range(num_microbatches - warmup, num_microbatches)]
        schedule.append(actions)
    return schedule
    ### END SOLUTION


def interleaved_1f1b_schedule(
    num_stages: int, num_microbatches: int, num_chunks: int
) -> list[list[tuple[str, int, int]]]:
    """Interleaved 1F1B (Narayanan et al. 2021, Megatron-LM): ``num_chunks`` chunks per stage.

    Actions are ``("F"|"B", microbatch, chunk)``. The order of forwards on every stage is
    depth-first in rounds of ``num_stages`` microbatches: microbatches 0..p-1 through chunk 0,
    the same microbatches through chunk 1, ..., through chunk v-1, then microbatches p..2p-1
    through chunk 0, and so on. Backwards follow the same order with the chunks reversed.
    Each stage warms up with enough forwards to keep the pipeline full, then alternates one
    forward and one backward, then cools down; the bubble shrinks v-fold.

    ``num_microbatches`` must be a multiple of ``num_stages`` when ``num_chunks > 1`` (as in
    Megatron-LM); the graders ask nothing else of it. With one chunk this is plain 1F1B with
    chunk 0 on every action.
    """
    ### BEGIN SOLUTION
    p, m, v = num_stages, num_microbatches, num_chunks
    if v == 1:
        return [[(kind, mb, 0) for kind, mb in actions] for actions in one_f_one_b_schedule(p, m)]
    if m % p:
        raise ValueError(
            f"interleaved 1F1B needs num_microbatches ({m}) to be a multiple of num_stages ({p})"
        )
    total = m * v  # chunk-forwards (and chunk-backwards) per stage

    def unit(k: int, backward: bool) -> tuple[int, int]:
        """(microbatch, chunk) of the k-th forward (or backward) of any stage."""
        round_, within = divmod(k, p * v)
        chunk = within // p
        return round_ * p + k % p, (v - 1 - chunk) if backward else chunk

    schedule = []
    for stage in range(p):
        warmup = min((p - stage - 1) * 2 + (v - 1) * p, total)
        actions = [("F", *unit(k, False)) for k in range(warmup)]
        for k in range(total - warmup):  # steady state
            actions += [("F", *unit(k + warmup, False)), ("B", *unit(k, True))]
        actions += [("B", *unit(k, True)) for k in range(total - warmup, total)]
        schedule.append(actions)
    return schedule
    ### END SOLUTION
