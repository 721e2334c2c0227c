"""The examples chapter 7 draws, and their one-line reproductions."""

from __future__ import annotations

from dataclasses import dataclass, field

import torch
from hypothesis import strategies as st

from graders.chapters.ch7.simulator import label, peak_in_flight
from graders.judge import strategies as S

MAX_STAGES, MAX_MICROBATCHES, MAX_CHUNKS = 8, 32, 4

# -- schedules ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ScheduleCase:
    """One call of a schedule function; it runs on a single worker (pure function)."""

    p: int
    m: int
    v: int = 1
    interleaved: bool = False
    world_size: int = 1

    def __repr__(self) -> str:
        chunks = f", num_chunks={self.v}" if self.interleaved else ""
        return f"num_stages={self.p}, num_microbatches={self.m}{chunks}"


@st.composite
def schedule_cases(draw, max_microbatches: int = MAX_MICROBATCHES):
    p = draw(st.integers(1, MAX_STAGES))
    return ScheduleCase(p, draw(st.integers(1, max_microbatches)))


@st.composite
def interleaved_cases(draw):
    """(p, m, v) where interleaving is defined: v == 1, or m a multiple of p."""
    p = draw(st.integers(1, MAX_STAGES))
    v = draw(st.integers(1, MAX_CHUNKS))
    if v == 1:
        m = draw(st.integers(1, MAX_MICROBATCHES))
    else:
        m = p * draw(st.integers(1, MAX_MICROBATCHES // p))
    return ScheduleCase(p, m, v, interleaved=True)


# -- bubble ---------------------------------------------------------------------------------------

SCHEDULE_NAMES = ("gpipe", "1f1b", "interleaved")


@dataclass(frozen=True)
class BubbleCase:
    name: str
    p: int
    m: int
    v: int = 1
    world_size: int = 1

    def __repr__(self) -> str:
        return f"schedule_name={self.name!r}, p={self.p}, m={self.m}, v={self.v}"


@st.composite
def bubble_cases(draw, max_stages: int = 64, max_microbatches: int = 512, max_chunks: int = 8):
    name = draw(st.sampled_from(SCHEDULE_NAMES))
    p = draw(st.integers(1, max_stages))
    if name == "interleaved":
        v = draw(st.integers(1, max_chunks))
        m = p * draw(st.integers(1, max(1, max_microbatches // p)))
    else:
        v, m = 1, draw(st.integers(1, max_microbatches))
    return BubbleCase(name, p, m, v)


def torch_has_schedule(case: BubbleCase) -> bool:
    """Whether the torch schedule the measured check simulates exists for this case."""
    if case.name == "gpipe":
        return True
    if case.name == "1f1b":  # a one-chunk ScheduleInterleaved1F1B: m a multiple of max(1, m // p)
        return case.m % max(1, case.m // case.p) == 0
    return case.m % case.p == 0


def measured_cases():
    return bubble_cases(
        max_stages=MAX_STAGES, max_microbatches=MAX_MICROBATCHES, max_chunks=MAX_CHUNKS
    ).filter(torch_has_schedule)


# -- the executor ---------------------------------------------------------------------------------

DIM = 4  # width of the activations between stages


def compact(schedule) -> str:
    """``F0 F1 B0 B1 | F0 B0 F1 B1``: one stage per ``|``."""
    return " | ".join(" ".join(label((a[0], a[1], 0)) for a in row) for row in schedule)


@dataclass(frozen=True)
class PipelineCase(S.GroupMembers):
    """One run of ``run_pipeline``: group rank s of ``group`` is stage s of the kit's model."""

    world_size: int
    group: tuple[int, ...] | None
    m: int
    microbatch_size: int
    dtype: str
    kind: str  # "gpipe", "1f1b", "drawn", or "your gpipe" / "your 1f1b"
    schedule: tuple[tuple[tuple[str, int], ...], ...]
    seed: int = 0
    inputs: torch.Tensor = field(default=None, compare=False, repr=False)  # [m * b, DIM]
    targets: torch.Tensor = field(default=None, compare=False, repr=False)

    @property
    def p(self) -> int:
        return self.n

    def microbatch(self, mb: int) -> tuple[torch.Tensor, torch.Tensor]:
        rows = slice(mb * self.microbatch_size, (mb + 1) * self.microbatch_size)
        return self.inputs[rows], self.targets[rows]

    @property
    def activation_bytes(self) -> int:
        return self.microbatch_size * DIM * self.inputs.element_size()

    def peak(self, stage: int) -> int:
        """Microbatches stage ``stage`` holds at most, following its schedule."""
        return peak_in_flight([(a[0], a[1], 0) for a in self.schedule[stage]])

    def __repr__(self) -> str:
        group = f", group={self.group}" if self.group is not None else ""
        shown = self.kind if self.kind in ("gpipe", "1f1b") else f"[{compact(self.schedule)}]"
        return (
            f"world_size={self.world_size}{group}, stages={self.p}, microbatches={self.m}, "
            f"microbatch_size={self.microbatch_size}, dtype={self.dtype}, schedule={shown}, seed={self.seed}"
        )


def gpipe_order(p: int, m: int) -> list[list[tuple[str, int]]]:
    """All forwards, then all backwards (in the same microbatch order), on every stage."""
    return drawn_order(p, m, list(range(m)), [[m] * m for _ in range(p)])


def one_f_one_b_order(p: int, m: int) -> list[list[tuple[str, int]]]:
    return drawn_order(p, m, list(range(m)), [[min(i + p - s, m) for i in range(m)] for s in range(p)])


def drawn_order(p: int, m: int, backward_order: list[int], forwards_before: list[list[int]]):
    """Stage s runs ``forwards_before[s][i]`` forwards (0, 1, ... in order) before its i-th
    backward, which is of microbatch ``backward_order[i]``."""
    schedule = []
    for s in range(p):
        actions, done = [], 0
        for i, mb in enumerate(backward_order):
            while done < forwards_before[s][i]:
                actions.append(("F", done))
                done += 1
            actions.append(("B", mb))
        schedule.append(actions)
    return schedule


@st.composite
def valid_orders(draw, p: int, m: int):
    """A random schedule that is valid and deadlock-free, with every stage handling the
    microbatches in the same order (forwards 0, 1, ...; backwards in one drawn order).

    ``f[s][i]``, the forwards stage s runs before its i-th backward, covers the microbatch of
    that backward, never decreases with i, and never exceeds ``f[s - 1][i]``: a stage never
    needs a forward its upstream neighbour has not run before the same backward.
    """
    order = draw(st.permutations(range(m)))
    slack = draw(st.lists(st.lists(st.integers(0, 2), min_size=m, max_size=m), min_size=p, max_size=p))
    needed, highest = [], -1
    for mb in order:
        highest = max(highest, mb)
        needed.append(highest + 1)
    f = [[0] * m for _ in range(p)]
    for s in reversed(range(p)):
        for i in range(m):
            low = max(needed[i], f[s][i - 1] if i else 0, f[s + 1][i] if s + 1 < p else 0)
            f[s][i] = min(m, low + slack[s][i])
    return drawn_order(p, m, list(order), f)


def build_pipeline_case(world_size, group, m, microbatch_size, dtype, kind, schedule, seed) -> PipelineCase:
    generator = S.seeded_generator(seed)
    rows = m * microbatch_size
    inputs = S.make_tensor((rows, DIM), dtype, generator)
    targets = S.make_tensor((rows, DIM), dtype, generator)
    frozen = tuple(tuple((str(k), int(mb)) for k, mb, *_ in row) for row in schedule)
    return PipelineCase(world_size, group, m, microbatch_size, dtype, kind, frozen, seed, inputs, targets)


@st.composite
def pipeline_cases(draw, kinds=("gpipe", "1f1b", "drawn"), max_microbatches: int = 6):
    world_size, group = draw(S.worlds())
    p = len(group) if group is not None else world_size
    m = draw(st.integers(1, max_microbatches))
    kind = draw(st.sampled_from(kinds))
    if kind == "gpipe":
        schedule = gpipe_order(p, m)
    elif kind == "1f1b":
        schedule = one_f_one_b_order(p, m)
    else:
        schedule = draw(valid_orders(p, m))
    return build_pipeline_case(
        world_size,
        group,
        m,
        draw(st.integers(1, 3)),
        draw(st.sampled_from(S.FLOAT_DTYPES)),
        kind,
        schedule,
        draw(S.seeds),
    )


def pipeline_example(world_size, group, m, kind, microbatch_size=2, dtype="float32", seed=0, schedule=None):
    p = len(group) if group is not None else world_size
    if schedule is None:
        schedule = gpipe_order(p, m) if kind == "gpipe" else one_f_one_b_order(p, m)
    return build_pipeline_case(world_size, group, m, microbatch_size, dtype, kind, schedule, seed)


@dataclass(frozen=True)
class OwnScheduleCase:
    """Run your executor on your own schedule of ``name`` for ``p`` stages and ``m`` microbatches."""

    name: str  # "gpipe" | "1f1b"
    p: int
    m: int
    seed: int = 0

    @property
    def world_size(self) -> int:
        return self.p

    def __repr__(self) -> str:
        return f"schedule={self.name}, stages={self.p}, microbatches={self.m}, seed={self.seed}"


@st.composite
def own_schedule_cases(draw):
    return OwnScheduleCase(
        draw(st.sampled_from(("gpipe", "1f1b"))),
        draw(st.integers(1, 4)),
        draw(st.integers(1, 6)),
        draw(S.seeds),
    )
