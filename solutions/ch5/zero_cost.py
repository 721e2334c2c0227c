"""Chapter 5: what each ZeRO stage costs, per GPU, in memory and in communication.

Notation of the ZeRO paper (Rajbhandari et al., 2020): Φ (``n_params``) parameters trained
with mixed precision on N (``world``) data-parallel GPUs. Each parameter costs 2 bytes of
fp16 weights, 2 bytes of fp16 gradients and K bytes of optimizer state (K = 12 for mixed
precision Adam: fp32 master weights, momentum and variance). Stage 0 is plain data
parallelism (nothing partitioned); stage 1 partitions the optimizer state, stage 2 the
gradients too, stage 3 the parameters too.
"""


def zero_memory_per_gpu(stage: int, n_params: float, world: int, k: float = 12) -> float:
    """Model-state memory per GPU in GB (1 GB = 1e9 bytes) for ZeRO ``stage`` 0, 1, 2 or 3.

    Only parameters, gradients and optimizer state count (no activations, no buffers, no
    fragmentation). The paper's example: 7.5e9 parameters on 64 GPUs with K = 12 needs 120,
    31.4, 16.6 and 1.9 GB for stages 0 to 3 (rounded). Raises ``ValueError`` for any other
    stage: a negative one, 4 or more, or one that is not a whole number (1.5).
    """
    ### BEGIN SOLUTION
    params, grads, states = 2 * n_params, 2 * n_params, k * n_params
    if stage == 0:
        total = params + grads + states
    elif stage == 1:
        total = params + grads + states / world
    elif stage == 2:
        total = params + (grads + states) / world
    elif stage == 3:
        total = (params + grads + states) / world
    else:
        raise ValueError(f"ZeRO has stages 0 to 3, not {stage!r}")
    return total / 1e9
    ### END SOLUTION


def zero_comm_volume(stage: int, n_params: float, world: int) -> float:
    """Elements each GPU sends per training step for ZeRO ``stage`` 0-3, as in the ZeRO paper.

    A ring reduce-scatter or all-gather of Φ elements sends (N - 1)/N · Φ per GPU, which the
    paper (and this model) rounds to Φ: one *pass* over the parameters. Count the passes of
    each stage (stage 0 is plain data parallelism). With one GPU nothing is sent: 0.
    Raises ``ValueError`` for any other stage: a negative one, 4 or more, or one that is not a
    whole number (1.5).
    """
    ### BEGIN SOLUTION
    if stage not in (0, 1, 2, 3):
        raise ValueError(f"ZeRO has stages 0 to 3, not {stage!r}")
    passes = 3 if stage == 3 else 2
    return passes * n_params if world > 1 else 0.0
    ### END SOLUTION
