# Generated from solutions/ch11/planner.py by `dtlab stubs`: fill in the TODOs, keep the signatures.
"""Chapter 11: choosing a parallel plan for a model on a cluster.

A plan splits a cluster of ``world = nodes · gpus_per_node`` GPUs as ``tp · cp · pp · dp = world``
(expert parallelism ``ep`` works inside the data-parallel dimension, as in Megatron-Core: it
divides ``dp``), runs ``micro_batch`` sequences per micro-batch, and shards the model states with
a ZeRO ``zero`` stage over ``dp``. This module holds a simple model of what a plan costs, and a
search for the best plan under it. Every formula below is the grader's: implement them as
written (the README works an example through).

**Validity.** ``tp`` divides ``heads``; ``pp`` divides ``layers``; ``cp`` divides ``seq_len``; ``ep``
divides ``dp`` and ``experts`` (``ep = 1`` for a dense model, ``experts = 1``); ``dp · micro_batch``
divides ``global_batch``; ``zero`` is 0, 1, 2 or 3. Then ``m = global_batch / (dp · micro_batch)``
micro-batches run through the pipeline per step.

**Parameters per GPU** (each layer: attention ``4h²``, an MLP of ``8h²`` per expert; embeddings
``V·h``)::

    Ψ = (layers · 4h² + V·h) / (tp · pp)  +  layers · 8h² · experts / (tp · pp · ep)

**Memory per GPU**, in bytes: the model states of mixed-precision Adam (2 + 2 + 12 bytes per
parameter), sharded over ``dp`` by the ZeRO stage, plus the activations of 1F1B's micro-batches
in flight on the first stage::

    states      = Ψ · (16, 4 + 12/dp, 2 + 14/dp, 16/dp)[zero]
    activation  = (layers / pp) · s'·b·h · (34 + 5 · heads · seq_len / h) / tp
    memory      = states + activation · min(pp, m)

with ``s' = seq_len / cp`` and ``b = micro_batch``

(Korthikanti et al.'s bytes per layer with sequence parallelism, the sequence split by ``cp``).
A plan is **feasible** when ``memory ≤ memory_gb · 1e9``.

**Step time**, in seconds: compute at the GPUs' peak, stretched by the pipeline bubble, plus every
communication at the bandwidth of the link it crosses, nothing overlapped. A group is inside a
node when the ranks it spans fit in one (with Megatron's order ``tp-cp-ep-dp-pp``: tp when
``tp ≤ gpus_per_node``, cp when ``tp·cp ≤ gpus_per_node``, dp when ``tp·cp·dp ≤ gpus_per_node``; ep
with dp; pp never, unless ``world ≤ gpus_per_node``), and uses ``nvlink_gbs`` then, else
``ib_gbs`` (GB/s, 1e9 bytes). With ``t = micro_batch · seq_len / cp`` tokens per micro-batch,
``A = 2·t·h`` bytes (a bf16 activation of one micro-batch on one rank) and ``ring(n, x) =
2·(n − 1)/n · x``::

    flops     = 6 · global_batch · seq_len · (layers · 12h² + V·h)
    compute   = flops / (world · tflops · 1e12) · (1 + (pp − 1) / m)
    tp_comm   = layers/pp · m · 4 · ring(tp, A) / bw_tp          (2 all-reduces forward, 2 backward)
    cp_comm   = layers/pp · m · 2 · (cp − 1) · A / tp / bw_cp     (K and V around the ring, both ways)
    ep_comm   = layers/pp · m · 4 · (ep − 1)/ep · A / bw_ep       (dispatch and combine, both ways)
    pp_comm   = m · 2 · A / tp / bw_pp                            (only when pp > 1)
    dp_comm   = ring(dp, 2Ψ) / bw_dp · (1.5 when zero == 3 else 1)
    time      = compute + tp_comm + cp_comm + ep_comm + pp_comm + dp_comm

``flops`` counts one expert per layer: every token passes one (top-1 routing), so a step of a
Mixture of Experts costs a dense model's FLOPs.

``plan(model, cluster, global_batch)`` returns the feasible plan of least step time (any plan
within 1% of the least is as good), and raises ``ValueError`` saying so when no valid plan fits in
memory.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class ModelConfig:
    layers: int
    hidden: int
    heads: int
    vocab: int
    seq_len: int
    experts: int = 1


@dataclass(frozen=True)
class ClusterConfig:
    nodes: int
    gpus_per_node: int
    memory_gb: float
    tflops: float
    nvlink_gbs: float
    ib_gbs: float

    @property
    def world(self) -> int:
        return self.nodes * self.gpus_per_node


@dataclass(frozen=True)
class Plan:
    tp: int = 1
    cp: int = 1
    pp: int = 1
    dp: int = 1
    ep: int = 1
    micro_batch: int = 1
    zero: int = 0


ZERO_STATE_BYTES = {
    0: lambda dp: 16,
    1: lambda dp: 4 + 12 / dp,
    2: lambda dp: 2 + 14 / dp,
    3: lambda dp: 16 / dp,
}


def is_valid(p: Plan, model: ModelConfig, cluster: ClusterConfig, global_batch: int) -> bool:
    raise NotImplementedError("[dtlab TODO] ch11/planner.py: implement is_valid")


def memory_per_gpu(p: Plan, model: ModelConfig, cluster: ClusterConfig, global_batch: int) -> float:
    raise NotImplementedError("[dtlab TODO] ch11/planner.py: implement memory_per_gpu")


def step_time(p: Plan, model: ModelConfig, cluster: ClusterConfig, global_batch: int) -> float:
    raise NotImplementedError("[dtlab TODO] ch11/planner.py: implement step_time")


def plan(model: ModelConfig, cluster: ClusterConfig, global_batch: int) -> Plan:
    raise NotImplementedError("[dtlab TODO] ch11/planner.py: implement plan")
