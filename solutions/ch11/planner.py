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
    ### BEGIN SOLUTION
    return (
        p.tp * p.cp * p.pp * p.dp == cluster.world
        and model.heads % p.tp == 0
        and model.layers % p.pp == 0
        and model.seq_len % p.cp == 0
        and p.dp % p.ep == 0
        and model.experts % p.ep == 0
        and global_batch % (p.dp * p.micro_batch) == 0
        and p.zero in ZERO_STATE_BYTES
    )
    ### END SOLUTION


def memory_per_gpu(p: Plan, model: ModelConfig, cluster: ClusterConfig, global_batch: int) -> float:
    ### BEGIN SOLUTION
    h, layers = model.hidden, model.layers
    psi = (layers * 4 * h * h + model.vocab * h) / (p.tp * p.pp)
    psi += layers * 8 * h * h * model.experts / (p.tp * p.pp * p.ep)
    states = psi * ZERO_STATE_BYTES[p.zero](p.dp)
    tokens = p.micro_batch * model.seq_len / p.cp
    per_layer = tokens * h * (34 + 5 * model.heads * model.seq_len / h) / p.tp
    in_flight = min(p.pp, global_batch // (p.dp * p.micro_batch))
    return states + layers / p.pp * per_layer * in_flight
    ### END SOLUTION


def step_time(p: Plan, model: ModelConfig, cluster: ClusterConfig, global_batch: int) -> float:
    ### BEGIN SOLUTION
    h, layers, node = model.hidden, model.layers, cluster.gpus_per_node
    m = global_batch // (p.dp * p.micro_batch)

    def bw(inside: bool) -> float:
        return (cluster.nvlink_gbs if inside else cluster.ib_gbs) * 1e9

    def ring(n: int, nbytes: float) -> float:
        return 2 * (n - 1) / n * nbytes

    flops = 6 * global_batch * model.seq_len * (layers * 12 * h * h + model.vocab * h)
    compute = flops / (cluster.world * cluster.tflops * 1e12) * (1 + (p.pp - 1) / m)
    psi = (layers * 4 * h * h + model.vocab * h) / (p.tp * p.pp)
    psi += layers * 8 * h * h * model.experts / (p.tp * p.pp * p.ep)
    activation = 2 * p.micro_batch * model.seq_len / p.cp * h
    stage = layers / p.pp * m
    tp_comm = stage * 4 * ring(p.tp, activation) / bw(p.tp <= node)
    cp_comm = stage * 2 * (p.cp - 1) * activation / p.tp / bw(p.tp * p.cp <= node)
    dp_inside = p.tp * p.cp * p.dp <= node
    ep_comm = stage * 4 * (p.ep - 1) / p.ep * activation / bw(dp_inside)
    pp_comm = m * 2 * activation / p.tp / bw(cluster.world <= node) if p.pp > 1 else 0.0
    dp_comm = ring(p.dp, 2 * psi) / bw(dp_inside) * (1.5 if p.zero == 3 else 1.0)
    return compute + tp_comm + cp_comm + ep_comm + pp_comm + dp_comm
    ### END SOLUTION


def plan(model: ModelConfig, cluster: ClusterConfig, global_batch: int) -> Plan:
    ### BEGIN SOLUTION
    world = cluster.world
    divisors = [d for d in range(1, world + 1) if world % d == 0]
    best, best_time = None, float("inf")
    for tp in divisors:
        for cp in divisors:
            for pp in divisors:
                if world % (tp * cp * pp):
                    continue
                dp = world // (tp * cp * pp)
                if global_batch % dp:
                    continue
                per_replica = global_batch // dp
                for ep in (e for e in range(1, dp + 1) if dp % e == 0):
                    for micro in (b for b in range(1, per_replica + 1) if per_replica % b == 0):
                        for zero in ZERO_STATE_BYTES:
                            p = Plan(tp, cp, pp, dp, ep, micro, zero)
                            if not is_valid(p, model, cluster, global_batch):
                                continue
                            if memory_per_gpu(p, model, cluster, global_batch) > cluster.memory_gb * 1e9:
                                continue
                            time = step_time(p, model, cluster, global_batch)
                            if time < best_time:
                                best, best_time = p, time
    if best is None:
        raise ValueError(f"no plan fits {model} in {cluster.memory_gb} GB per GPU on {world} GPUs")
    return best
    ### END SOLUTION
