"""Chapter 5 references and promises, computed in the driver (never by student code).

* training histories: single-device AdamW on the global batch (and, for parameters that get no
  gradient, the zero-gradient variant a flat buffer produces), and mixed-precision training
  with the casts of ZeRO-Offload;
* the promises of each stage in bytes per rank: ``sum(ceil(numel / N))`` elements of every
  sharded tensor (the 1/N share plus the padding of each tensor), and the bucket layout of
  ZeRO-2;
* the cost model of the ZeRO paper.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from functools import lru_cache

import torch
from torch import nn

from graders.chapters.ch5.cases import CostCase, OffloadCase, TrainCase
from graders.training import FunctionalOptimizer, train_single_device, trainable
from graders.training.tiny_lm import TINY, TinyConfig, build_model, lm_loss, make_batches, named_parameters
from graders.words.messages import say
from graders.words.text import Text, join

#: AdamW keeps exp_avg and exp_avg_sq per element, plus a scalar step per tensor (4 bytes;
#: 8 allowed, which covers float64 steps too); SGD a momentum buffer when momentum is on.
STEP_BYTES = 8
#: alignment padding a partition may add (DeepSpeed aligns partitions to 4 elements)
ALIGNMENT_BYTES = 16
#: bytes of bookkeeping a rank may keep beyond the promise (step counters, a flag tensor)
LIVE_SLACK_BYTES = 64


def _single_threaded(fn):
    """Run a reference with one intra-op thread, as the workers do, so sums run in one order."""

    def run(*args, **kwargs):
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            return fn(*args, **kwargs)
        finally:
            torch.set_num_threads(threads)

    return run


@lru_cache(maxsize=128)
@_single_threaded
def histories(case: TrainCase) -> tuple[list[dict], list[dict]]:
    """(skip, zero): parameters after each step when a parameter without gradient is skipped
    (torch.optim) or given a zero gradient (a flat buffer).

    The optimizers are elementwise, so the two differ only in the parameters that get no
    gradient, and those follow the optimizer alone: ``zero`` replays just them.
    """
    batches = case.batches(case.steps, case.rows * case.n)
    skip = train_single_device(case.model(), batches, case.optimizer)
    facts = model_facts(case.config)
    idle = [facts.names[i] for i in facts.indices(trained_only=True) if not facts.gets_grad[i]]
    initial = dict(case.model().named_parameters())
    params = [nn.Parameter(initial[name].detach().clone()) for name in idle]
    optimizer = FunctionalOptimizer(case.optimizer, params)
    zero = []
    for step in skip:
        for p in params:
            p.grad = torch.zeros_like(p)
        optimizer.step()
        zero.append(step | {name: p.detach().clone() for name, p in zip(idle, params, strict=True)})
    return skip, zero


# -- the model's shape -------------------------------------------------------------------------


@dataclass(frozen=True)
class ModelFacts:
    """What the promises depend on: the parameters' sizes, in ``model.parameters()`` order."""

    names: tuple[str, ...]  # every parameter, tied ones once
    numels: tuple[int, ...]
    trained: tuple[bool, ...]  # requires_grad
    gets_grad: tuple[bool, ...]  # gets a gradient in backward
    grad_order: tuple[int, ...]  # the order in which backward finishes their gradients
    units: tuple[tuple[int, ...], ...]  # per submodule owning parameters: indices of its parameters
    root_unit: tuple[int, ...]  # the root module's own parameters
    itemsize: int
    used_in_forward: tuple[bool, ...] = ()  # read by some operator in forward
    saved_for_backward: tuple[bool, ...] = ()  # autograd saves it: backward needs it again

    def bytes_of(self, which: tuple[bool, ...]) -> int:
        return sum(numel for numel, chosen in zip(self.numels, which, strict=True) if chosen) * self.itemsize

    def indices(self, *, trained_only: bool) -> list[int]:
        return [i for i in range(len(self.names)) if self.trained[i] or not trained_only]

    def shard_elements(self, n: int, *, trained_only: bool = True) -> int:
        """The most elements one rank may own: ``sum(ceil(numel / n))``."""
        return sum(math.ceil(self.numels[i] / n) for i in self.indices(trained_only=trained_only))

    def trained_elements(self) -> int:
        return sum(self.numels[i] for i in self.indices(trained_only=True))


@lru_cache(maxsize=4)
def model_facts(cfg: TinyConfig = TINY) -> ModelFacts:
    model = build_model(0, cfg)
    named = list(model.named_parameters())
    index = {id(p): i for i, (_, p) in enumerate(named)}
    order: list[int] = []
    for _, p in named:
        if p.requires_grad:
            p.register_post_accumulate_grad_hook(lambda q: order.append(index[id(q)]))
    batch = make_batches(0, 1, 2, cfg)[0]
    used, saved = _parameters_touched(model, batch)
    lm_loss(model, batch.tokens, batch.targets).backward()
    units = []
    root = tuple(index[id(p)] for p in model._parameters.values() if p is not None)
    for module in model.modules():
        own = [index[id(p)] for p in module._parameters.values() if p is not None]
        if own:
            units.append(tuple(own))
    return ModelFacts(
        names=tuple(name for name, _ in named),
        numels=tuple(p.numel() for _, p in named),
        trained=tuple(p.requires_grad for _, p in named),
        gets_grad=tuple(p.grad is not None for _, p in named),
        grad_order=tuple(order),
        units=tuple(units),
        root_unit=root,
        itemsize=named[0][1].element_size(),
        used_in_forward=tuple(i in used for i in range(len(named))),
        saved_for_backward=tuple(i in saved for i in range(len(named))),
    )


def _parameters_touched(model: nn.Module, batch) -> tuple[set[int], set[int]]:
    """Indices of the parameters forward reads, and of those autograd saves for backward.

    Every parameter is made to require a gradient for one step (on a copy): the ones forward
    reads get one. What autograd saves is seen by a saved-tensors hook."""
    probe = copy.deepcopy(model)
    probed = list(probe.parameters())
    for p in probed:
        p.requires_grad_(True)
    index_of = {p.untyped_storage().data_ptr(): i for i, p in enumerate(probed)}
    saved: set[int] = set()

    def pack(tensor: torch.Tensor) -> torch.Tensor:
        i = index_of.get(tensor.untyped_storage().data_ptr())
        if i is not None:
            saved.add(i)
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        loss = lm_loss(probe, batch.tokens, batch.targets)
    loss.backward()
    used = {i for i, p in enumerate(probed) if p.grad is not None}
    return used, saved


def shard_bytes(case: TrainCase, *, trained_only: bool = True) -> int:
    facts = model_facts(case.config)
    return facts.shard_elements(case.n, trained_only=trained_only) * facts.itemsize


def aligned_shard_bytes(case: TrainCase, *, trained_only: bool = True) -> int:
    """A rank's shards when every parameter is a partition of its own (ZeRO-3): the balanced
    share plus 16 bytes of alignment per parameter."""
    count = len(model_facts(case.config).indices(trained_only=trained_only))
    return shard_bytes(case, trained_only=trained_only) + count * ALIGNMENT_BYTES


def step_bytes() -> int:
    """Bookkeeping state beyond the per-element states: a step counter per trained tensor."""
    return STEP_BYTES * len(model_facts().indices(trained_only=True))


def wire_bytes_limit(case: TrainCase) -> float:
    """Per step: a ring reduce-scatter plus a ring all-gather of the padded partitions (a
    greedy partition pads every rank's to the largest)."""
    return 2 * (case.n - 1) * partition_bytes(case)


def largest_unit_shard_bytes(case: TrainCase) -> int:
    """The biggest layer's parameters, as one rank's shard of them (each aligned to 16 bytes)."""
    facts = model_facts(case.config)
    return max(
        sum(math.ceil(facts.numels[i] / case.n) * facts.itemsize + ALIGNMENT_BYTES for i in unit)
        for unit in facts.units
    )


def partition_bytes(case: TrainCase) -> int:
    """The most one rank may own of the trained parameters, in bytes: the balanced share
    (``sum(ceil(numel / N))``) plus the largest parameter (what a greedy, whole-parameter
    partition such as torch's ``ZeroRedundancyOptimizer`` guarantees) plus 16 bytes of alignment."""
    facts = model_facts(case.config)
    largest = max(facts.numels[i] for i in facts.indices(trained_only=True)) * facts.itemsize
    return shard_bytes(case) + largest + ALIGNMENT_BYTES


def partitions_bytes(case: TrainCase) -> int:
    """All ranks' partitions together: every trained element once, padded and aligned."""
    return case.n * (shard_bytes(case) + ALIGNMENT_BYTES)


def root_unit_bytes(case: TrainCase) -> int:
    """Bytes of the model's own parameters (the root module's, used around every layer),
    gathered: a ZeRO-3 that gathers per module holds them beside the layers it runs."""
    facts = model_facts(case.config)
    return sum(math.ceil(facts.numels[i] / case.n) * case.n for i in facts.root_unit) * facts.itemsize


def gathered_unit_bytes(case: TrainCase, units: int) -> int:
    """Bytes of the ``units`` largest layers' parameters, gathered (each padded to N chunks)."""
    facts = model_facts(case.config)
    sizes = sorted(
        (
            sum(math.ceil(facts.numels[i] / case.n) * case.n for i in unit) * facts.itemsize
            for unit in facts.units
        ),
        reverse=True,
    )
    return sum(sizes[:units])


def largest_bucket_bytes(case: TrainCase) -> int:
    """The largest ZeRO-2 bucket's reduce-scatter input, padded."""
    return max(reduce_scatter_bytes(case, bucket)[1] for bucket in buckets(case).members)


def two_buckets_on_the_wire(case: TrainCase) -> int:
    """The most bytes two buckets launched one after the other hold in their reduce-scatters
    (padded input and this rank's output each): the one landing and the one just launched.
    Launch order: the complete buckets as backward completes them, then the others in step()."""
    layout = buckets(case)
    order = list(layout.completion) + [b for b in range(len(layout.members)) if not layout.complete[b]]
    held = [reduce_scatter_bytes(case, layout.members[b])[1] for b in order]
    held = [size + size // case.n for size in held]
    return max((a + b for a, b in zip(held, held[1:], strict=False)), default=sum(held))


# -- ZeRO-2 buckets ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Buckets:
    members: tuple[tuple[int, ...], ...]  # parameter indices of each bucket, in bucket order
    complete: tuple[bool, ...]  # every member gets a gradient: reduced during backward
    completion: tuple[int, ...]  # the complete buckets, in the order backward completes them

    @property
    def during_backward(self) -> int:
        return sum(self.complete)

    @property
    def in_step(self) -> int:
        return len(self.members) - self.during_backward

    def on_the_wire(self, case: TrainCase) -> int:
        """Most input bytes of the bucket backward completes last, which may still be in flight."""
        if not self.completion:
            return 0
        return reduce_scatter_bytes(case, self.members[self.completion[-1]])[1]

    def held_after_backward(self, facts: ModelFacts) -> int:
        """Gradient bytes still on the parameters of incomplete buckets when backward ends."""
        return sum(
            facts.numels[i] * facts.itemsize
            for bucket, done in zip(self.members, self.complete, strict=True)
            if not done
            for i in bucket
            if facts.gets_grad[i]
        )


def buckets(case: TrainCase) -> Buckets:
    """The trained parameters in reverse order, cut when a bucket reaches the cap."""
    facts = model_facts(case.config)
    cap = case.bucket_cap_mb * 2**20
    members: list[tuple[int, ...]] = []
    current: list[int] = []
    for i in reversed(facts.indices(trained_only=True)):
        current.append(i)
        if sum(facts.numels[j] for j in current) * facts.itemsize >= cap:
            members.append(tuple(current))
            current = []
    if current:
        members.append(tuple(current))
    complete = tuple(all(facts.gets_grad[i] for i in bucket) for bucket in members)
    last_gradient = {
        b: max(facts.grad_order.index(i) for i in bucket) for b, bucket in enumerate(members) if complete[b]
    }
    completion = tuple(sorted(last_gradient, key=last_gradient.get))
    return Buckets(tuple(members), complete, completion)


def reduce_scatter_bytes(case: TrainCase, bucket: tuple[int, ...]) -> tuple[int, int]:
    """(least, most) input bytes of one bucket's reduce-scatter: its gradients, plus padding of
    at most N - 1 elements per parameter, or N chunks of the balanced share each aligned to 16
    bytes (a flat bucket aligned as DeepSpeed aligns it)."""
    facts = model_facts(case.config)
    numel = sum(facts.numels[i] for i in bucket)
    per_parameter = (numel + len(bucket) * (case.n - 1)) * facts.itemsize
    aligned = case.n * (math.ceil(numel / case.n) * facts.itemsize + ALIGNMENT_BYTES)
    return numel * facts.itemsize, max(per_parameter, aligned)


def describe_buckets(case: TrainCase) -> Text:
    facts = model_facts(case.config)
    layout = buckets(case)
    parts = []
    for bucket, done in zip(layout.members, layout.complete, strict=True):
        names = ", ".join(facts.names[i] for i in bucket)
        parts.append(f"[{names}]" if done else say("ch5:zero2:bucket without gradient", names=names))
    return join(" ", parts)


# -- ZeRO-Offload: mixed precision with the same casts -----------------------------------------


@lru_cache(maxsize=64)
@_single_threaded
def mixed_precision(case: OffloadCase, zero_missing_grads: bool = False):
    """(bf16 model parameters, fp32 masters) after each step: master = p.float() once;
    master.grad = p.grad.float(); AdamW on the masters; p.copy_(master)."""
    model = build_model(case.seed, dtype=torch.bfloat16)
    params = trainable(model)
    masters = [nn.Parameter(p.detach().float().clone()) for p in params]
    opt = FunctionalOptimizer(case.optimizer, masters)
    model_history, master_history = [], []
    for batch in make_batches(case.data_seed, case.steps, case.rows):
        for p, m in zip(params, masters, strict=True):
            p.grad, m.grad = None, None
        lm_loss(model, batch.tokens, batch.targets).backward()
        for p, m in zip(params, masters, strict=True):
            if p.grad is not None:
                m.grad = p.grad.float()
            elif zero_missing_grads:
                m.grad = torch.zeros_like(m)
        opt.step()
        with torch.no_grad():
            for p, m in zip(params, masters, strict=True):
                p.copy_(m)
        model_history.append(named_parameters(model))
        master_history.append([m.detach().clone() for m in masters])
    return model_history, master_history


def trained_names() -> list[str]:
    facts = model_facts()
    return [facts.names[i] for i in facts.indices(trained_only=True)]


# -- cost model --------------------------------------------------------------------------------


def memory_per_gpu(case: CostCase) -> float:
    phi, n, k = case.n_params, case.world, case.k
    per_stage = {
        0: (2 + 2 + k) * phi,
        1: (2 + 2) * phi + k * phi / n,
        2: 2 * phi + (2 + k) * phi / n,
        3: (2 + 2 + k) * phi / n,
    }
    return per_stage[case.stage] / 1e9


def comm_volume(case: CostCase) -> float:
    """The paper's volume: 2Φ for stages 0-2 (an all-reduce, or a reduce-scatter and an
    all-gather), 3Φ for stage 3 (one more all-gather, in backward); nothing on one GPU."""
    if case.world == 1:
        return 0.0
    return (3.0 if case.stage == 3 else 2.0) * case.n_params


def offload_tiers(case) -> dict[str, float]:
    """GB per rank on each tier, as the ZeRO-Infinity paper counts model states: 2 + 2 bytes of
    fp16 parameters and gradients and K + 4 of fp32 optimizer states per parameter, each kind on
    one tier, whole or split N ways."""
    n = case.world
    bytes_per_parameter = {"fp16 parameters": 2, "fp16 gradients": 2, "optimizer states": case.k + 4}
    placement = {  # kind -> (tier, how many ranks share it)
        "offload": {
            "fp16 parameters": ("gpu", 1),
            "fp16 gradients": ("gpu", n),
            "optimizer states": ("cpu", n),
        },
        "cpu": dict.fromkeys(bytes_per_parameter, ("cpu", n)),
        "nvme": dict.fromkeys(bytes_per_parameter, ("nvme", n)),
    }[case.offload]
    gigabytes = {"gpu": 0.0, "cpu": 0.0, "nvme": 0.0}
    for kind, size in bytes_per_parameter.items():
        tier, shared_by = placement[kind]
        gigabytes[tier] += size * case.n_params / shared_by / 1e9
    return gigabytes
