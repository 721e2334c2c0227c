"""The examples chapter 5 draws, and their one-line reproductions."""

from __future__ import annotations

from dataclasses import dataclass, replace

from hypothesis import strategies as st

from graders.judge import strategies as S
from graders.training import OptimizerSpec, optimizer_specs
from graders.training.tiny_lm import (
    TINY,
    WIDE,
    Batch,
    TinyConfig,
    TinyLM,
    build_model,
    make_batches,
    parameter_bytes,
)

#: bucket caps in MB (x 2**20 bytes): about 26, 52 and 79 float32 elements, and "one bucket"
BUCKET_CAPS_MB = (0.0001, 0.0002, 0.0003, 25.0)


@dataclass(frozen=True)
class TrainCase(S.GroupMembers):
    """Train the tiny LM for ``steps`` steps on the ranks of ``group``, ``rows`` rows each.

    The model is ``build_model(seed)`` (``wide``: the wide tiny LM, whose parameters dwarf what
    an honest implementation keeps as Python data), the global batches ``make_batches(seed + 1,
    steps, rows * n)``, and group rank r trains on the r-th contiguous share of each batch.
    """

    world_size: int
    group: tuple[int, ...] | None
    seed: int
    rows: int
    optimizer: OptimizerSpec
    steps: int = 3
    bucket_cap_mb: float | None = None  # ZeRO-2 only
    partition_numel: int | None = None  # ZeRO-Infinity only: elements per partition on the drive
    tear_at: int | None = None  # ZeRO-Infinity's crash: the last step's write that fails half-done
    wide: bool = False

    @property
    def data_seed(self) -> int:
        return self.seed + 1

    @property
    def config(self) -> TinyConfig:
        return WIDE if self.wide else TINY

    @property
    def parameter_bytes(self) -> int:
        return parameter_bytes(self.config)

    def model(self, dtype=None) -> TinyLM:
        if dtype is None:
            return build_model(self.seed, self.config)
        return build_model(self.seed, self.config, dtype)

    def batches(self, steps: int, rows: int) -> list[Batch]:
        return make_batches(self.data_seed, steps, rows, self.config)

    def __repr__(self) -> str:
        parts = [f"world_size={self.world_size}"]
        if self.group is not None:
            parts.append(f"group={self.group}")
        parts.append(f"optimizer={self.optimizer!r}")
        parts.append(f"rows_per_rank={self.rows}, steps={self.steps}")
        if self.bucket_cap_mb is not None:
            parts.append(f"bucket_cap_mb={self.bucket_cap_mb}")
        if self.partition_numel is not None:
            parts.append(f"partition_numel={self.partition_numel}")
        if self.tear_at is not None:
            parts.append(f"the write number {self.tear_at} of the last step fails half-done")
        if self.wide:
            parts.append("model=wide")
        parts.append(f"seed={self.seed}")
        return ", ".join(parts)


ADAMW = OptimizerSpec("adamw", lr=0.01, weight_decay=0.05)
#: Adam is nearly blind to the scale of the gradient (m / sqrt(v)), so a sum where an average
#: was due barely shows in its steps; SGD shows it at once. Results are graded with both.
SGD = OptimizerSpec("sgd", lr=0.2, weight_decay=0.05, momentum=0.9)
BOTH = ("sgd", "adamw")


@st.composite
def train_cases(draw, *, min_world: int = 1, buckets: bool = False, subgroups: bool = True, optimizers=BOTH):
    # four ranks cost twice what two do on a 2-core machine: drawn less often (and always
    # run as an explicit example)
    world_size, group = draw(
        S.worlds(sizes=(1, 2, 3, 2, 3, 2, 4), min_members=min_world, subgroups=subgroups)
    )
    return TrainCase(
        world_size=world_size,
        group=group,
        seed=draw(S.seeds),
        rows=draw(st.integers(1, 2)),
        optimizer=draw(optimizer_specs(optimizers)),
        bucket_cap_mb=draw(st.sampled_from(BUCKET_CAPS_MB)) if buckets else None,
    )


def edge(
    world_size: int,
    group=None,
    *,
    bucket_cap_mb: float | None = None,
    optimizer=SGD,
    seed: int = 7,
    partitions: int | None = None,
    wide: bool = False,
) -> TrainCase:
    """An explicit example every profile runs first (ZeRO-Infinity: its shard in ``partitions``;
    ``wide``: the wide model, for a memory part)."""
    case = TrainCase(world_size, group, seed, 1, optimizer, bucket_cap_mb=bucket_cap_mb, wide=wide)
    if partitions is None:
        return case
    return replace(case, partition_numel=partition_numel(case.n, partitions, case.config))


def trained_elements(cfg: TinyConfig = TINY) -> int:
    """The trained elements of the tiny LM (all but its frozen scale), which ZeRO-Infinity's
    shards cut up: 178 for the default model."""
    return parameter_bytes(cfg, itemsize=1) - cfg.dim


def shard_numel(n: int, cfg: TinyConfig = TINY) -> int:
    """Elements of one rank's ZeRO shard of the tiny LM on ``n`` ranks (the flat, padded chunk)."""
    return -(-trained_elements(cfg) // n)


def partition_numel(n: int, partitions: int, cfg: TinyConfig = TINY) -> int:
    """Elements per partition that cut one rank's shard into ``partitions`` (the last shorter)."""
    return -(-shard_numel(n, cfg) // partitions)


@st.composite
def infinity_cases(draw, *, min_world: int = 1, optimizers=BOTH):
    """ZeRO-Infinity: a shard cut into 3 to 5 partitions, so that two of them are well under the
    whole shard's state."""
    case = draw(train_cases(min_world=min_world, optimizers=optimizers))
    return replace(case, partition_numel=partition_numel(case.n, draw(st.integers(3, 5)), case.config))


@st.composite
def crash_cases(draw):
    """One rank, two steps; a write of the second step (the ``tear_at``-th, counted over the
    files the first step wrote) keeps half its bytes and fails."""
    case = draw(infinity_cases(optimizers=("adamw",)))
    return replace(case, world_size=1, group=None, steps=2, tear_at=draw(st.integers(1, 40)))


@dataclass(frozen=True)
class OffloadCase(S.GroupMembers):
    """Mixed-precision training of ``build_model(seed, dtype=bfloat16)`` on one rank."""

    seed: int
    rows: int
    optimizer: OptimizerSpec
    steps: int = 3
    world_size: int = 1
    group: tuple[int, ...] | None = None

    @property
    def data_seed(self) -> int:
        return self.seed + 1

    def batches(self, steps: int, rows: int) -> list[Batch]:
        return make_batches(self.data_seed, steps, rows)

    def __repr__(self) -> str:
        return f"optimizer={self.optimizer!r}, rows={self.rows}, steps={self.steps}, seed={self.seed}"


@st.composite
def offload_cases(draw):
    return OffloadCase(
        seed=draw(S.seeds), rows=draw(st.integers(1, 4)), optimizer=draw(optimizer_specs(("adamw",)))
    )


# -- cost model --------------------------------------------------------------------------------


@dataclass(frozen=True)
class CostCase:
    """One question to ``zero_memory_per_gpu`` / ``zero_comm_volume`` (run on one rank)."""

    stage: int | float  # 1.5 is drawn too: it must be refused
    n_params: float
    world: int
    k: float = 12
    world_size: int = 1

    def __repr__(self) -> str:
        return f"stage={self.stage!r}, n_params={self.n_params:g}, world={self.world}, k={self.k:g}"


#: stages that do not exist, which must raise ValueError: below, above, and between the stages
INVALID_STAGES = (-1, 4, 1.5)


@st.composite
def cost_cases(draw, *, with_k: bool = True):
    return CostCase(
        stage=draw(st.sampled_from((0, 1, 2, 3) * 3 + INVALID_STAGES)),
        n_params=float(draw(st.sampled_from((1e6, 3.5e8, 1.3e9, 7.5e9, 1.75e11, 1e12)))),
        world=draw(st.sampled_from((1, 2, 3, 8, 64, 100, 1024))),
        k=draw(st.sampled_from((4, 8, 12, 16))) if with_k else 12,
    )


@dataclass(frozen=True)
class TierCase:
    """One question to ``offload_memory_per_gpu`` (run on one rank)."""

    offload: str  # "offload", "cpu", "nvme"; others are drawn too: they must be refused
    n_params: float
    world: int
    k: float = 12
    world_size: int = 1

    def __repr__(self) -> str:
        return f"offload={self.offload!r}, n_params={self.n_params:g}, world={self.world}, k={self.k:g}"


OFFLOADS = ("offload", "cpu", "nvme")
#: offloads that do not exist, which must raise ValueError
INVALID_OFFLOADS = ("gpu", "disk", "")


@st.composite
def tier_cases(draw):
    return TierCase(
        offload=draw(st.sampled_from(OFFLOADS * 3 + INVALID_OFFLOADS)),
        n_params=float(draw(st.sampled_from((1e6, 1.3e9, 7.5e9, 1.75e11, 1e12)))),
        world=draw(st.sampled_from((1, 2, 16, 64, 512))),
        k=draw(st.sampled_from((8, 12, 16))),
    )


#: The ZeRO paper (Rajbhandari et al., 2020), figure 1 and section 5: 7.5B parameters, 64 GPUs,
#: K = 12, per-GPU model-state memory of each stage in GB as the paper prints it.
PAPER_TABLE = ((0, 120.0), (1, 31.4), (2, 16.6), (3, 1.9))
