# Generated from solutions/ch5/zero_cost.py by `dtlab stubs`: fill in the TODOs, keep the signatures.
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
    raise NotImplementedError("[dtlab TODO] ch5/zero_cost.py: implement zero_memory_per_gpu")


def zero_comm_volume(stage: int, n_params: float, world: int) -> float:
    """Elements each GPU sends per training step for ZeRO ``stage`` 0-3, as in the ZeRO paper.

    A ring reduce-scatter or all-gather of Φ elements sends (N - 1)/N · Φ per GPU, which the
    paper (and this model) rounds to Φ: one *pass* over the parameters. Count the passes of
    each stage (stage 0 is plain data parallelism). With one GPU nothing is sent: 0.
    Raises ``ValueError`` for any other stage: a negative one, 4 or more, or one that is not a
    whole number (1.5).
    """
    raise NotImplementedError("[dtlab TODO] ch5/zero_cost.py: implement zero_comm_volume")


#: where ZeRO-Offload and ZeRO-Infinity keep the model states (``offload_memory_per_gpu``)
OFFLOADS = ("offload", "cpu", "nvme")


def offload_memory_per_gpu(offload: str, n_params: float, world: int, k: float = 12) -> dict[str, float]:
    """Model-state memory per data-parallel rank on each tier, in GB (1e9 bytes):
    ``{"gpu": ..., "cpu": ..., "nvme": ...}``, counted as the ZeRO-Infinity paper counts it.

    Per parameter: 2 bytes of fp16 parameters, 2 of fp16 gradients, and K + 4 bytes of
    optimizer states kept in fp32 (K for the master weights, momentum and variance, 4 for the
    fp32 gradient the optimizer steps with): 20 bytes in all with K = 12.

    * ``"offload"``, ZeRO-Offload (ZeRO-2, the optimizer on the CPU): the GPU keeps every fp16
      parameter and its 1/N partition of the fp16 gradients; the CPU keeps the partition's
      optimizer states; nothing on NVMe.
    * ``"cpu"``, ZeRO-Infinity offloading to CPU memory (ZeRO-3): every model state is
      partitioned, and the rank's partitions all live on the CPU.
    * ``"nvme"``, ZeRO-Infinity offloading to NVMe: the same partitions, all on NVMe.

    Working memory (activations, a layer gathered for compute, buffers) is not counted. Raises
    ``ValueError`` for any other ``offload``.
    """
    raise NotImplementedError("[dtlab TODO] ch5/zero_cost.py: implement offload_memory_per_gpu")
