"""Every exercise of the kit and its points: the one place where points are declared.

An exercise is one function or class a student writes. Its points are split into named
parts, each graded by one test (``@exercise("ch2.ring_all_reduce", part="ring")``), so a
submission can earn partial credit: right values but the wrong communication pattern, say.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Exercise:
    id: str  # "ch2.ring_all_reduce"
    module: str  # file stem in the chapter folder: "collectives"
    symbol: str  # the function or class the student writes
    parts: dict[str, int] = field(hash=False)  # part name -> points
    title: str = ""

    @property
    def chapter(self) -> str:
        return self.id.split(".", 1)[0]

    @property
    def points(self) -> int:
        return sum(self.parts.values())


@dataclass(frozen=True)
class Chapter:
    id: str
    title: str
    title_vi: str
    exercises: tuple[Exercise, ...]

    @property
    def points(self) -> int:
        return sum(e.points for e in self.exercises)

    @property
    def modules(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(e.module for e in self.exercises))


def _ex(id: str, module: str, parts: dict[str, int], title: str, symbol: str | None = None) -> Exercise:
    return Exercise(id, module, symbol or id.split(".", 1)[1], parts, title)


CHAPTERS: dict[str, Chapter] = {
    c.id: c
    for c in [
        Chapter(
            "ch2",
            "Collective communication",
            "Giao tiếp tập thể",
            (
                _ex("ch2.ring_shift", "collectives", {"result": 1}, "send right, receive left"),
                _ex("ch2.broadcast", "collectives", {"result": 1, "tree": 1}, "binomial-tree broadcast"),
                _ex("ch2.reduce", "collectives", {"result": 1, "tree": 1}, "binomial-tree reduce"),
                _ex("ch2.ring_all_gather", "collectives", {"result": 1, "ring": 1}, "ring all-gather"),
                _ex(
                    "ch2.ring_reduce_scatter", "collectives", {"result": 2, "ring": 1}, "ring reduce-scatter"
                ),
                _ex("ch2.ring_all_reduce", "collectives", {"result": 2, "ring": 1}, "ring all-reduce"),
                _ex("ch2.all_to_all", "collectives", {"result": 2, "traffic": 1}, "all-to-all"),
                _ex(
                    "ch2.bytes_sent_per_rank",
                    "cost_model",
                    {"formula": 1, "measured": 1},
                    "bytes each rank sends",
                ),
                _ex("ch2.alpha_beta_time", "cost_model", {"formula": 1}, "alpha-beta time model"),
                _ex("ch2.bus_bandwidth", "cost_model", {"formula": 1}, "bus bandwidth (nccl-tests)"),
            ),
        ),
        Chapter(
            "ch4",
            "Data parallelism",
            "Song song dữ liệu",
            (
                _ex(
                    "ch4.param_server",
                    "param_server",
                    {"result": 2, "traffic": 2},
                    "parameter server: gather, average, update, send back",
                    symbol="param_server_step",
                ),
                _ex(
                    "ch4.ddp",
                    "ddp",
                    {"result": 3, "buckets": 2, "overlap": 2, "no_sync": 2, "torch": 1},
                    "DDP: bucketed all-reduce overlapped with backward",
                    symbol="DDP",
                ),
                _ex(
                    "ch4.fsdp",
                    "fsdp",
                    {"result": 3, "memory": 2, "traffic": 2},
                    "sharded data parallelism: flat parameter, gather, reduce-scatter",
                    symbol="ShardedDataParallel",
                ),
            ),
        ),
        Chapter(
            "ch5",
            "ZeRO",
            "Họ ZeRO",
            (
                _ex(
                    "ch5.zero1",
                    "zero",
                    {"result": 2, "memory": 2, "traffic": 1, "crosscheck": 1},
                    "ZeRO-1: partitioned optimizer state",
                    symbol="Zero1Optimizer",
                ),
                _ex(
                    "ch5.zero2",
                    "zero",
                    {"result": 2, "memory": 2, "traffic": 2},
                    "ZeRO-2: gradients reduce-scattered in backward",
                    symbol="Zero2Optimizer",
                ),
                _ex(
                    "ch5.zero3",
                    "zero",
                    {"result": 2, "memory": 2, "traffic": 2},
                    "ZeRO-3: parameters gathered layer by layer",
                    symbol="Zero3Module",
                ),
                _ex(
                    "ch5.offload",
                    "offload",
                    {"result": 2, "placement": 1},
                    "ZeRO-Offload: fp32 master weights and step on the host",
                    symbol="OffloadOptimizer",
                ),
                _ex("ch5.zero_memory_per_gpu", "zero_cost", {"formula": 1, "paper": 1}, "memory per GPU"),
                _ex("ch5.zero_comm_volume", "zero_cost", {"formula": 2}, "communication per step"),
            ),
        ),
        Chapter(
            "ch7",
            "Pipeline parallelism",
            "Song song pipeline",
            (
                _ex("ch7.gpipe_schedule", "schedules", {"valid": 1, "order": 1}, "GPipe schedule"),
                _ex(
                    "ch7.one_f_one_b_schedule",
                    "schedules",
                    {"valid": 1, "warmup": 2, "makespan": 1},
                    "1F1B schedule",
                ),
                _ex(
                    "ch7.interleaved_1f1b_schedule",
                    "schedules",
                    {"valid": 1, "makespan": 1, "torch": 2},
                    "interleaved 1F1B schedule",
                ),
                _ex("ch7.bubble_fraction", "bubble", {"formula": 1, "measured": 1}, "pipeline bubble"),
                _ex(
                    "ch7.run_pipeline",
                    "executor",
                    {"gradients": 3, "memory": 2, "traffic": 1, "own_schedules": 1},
                    "pipeline executor",
                ),
            ),
        ),
    ]
}

EXERCISES: dict[str, Exercise] = {e.id: e for c in CHAPTERS.values() for e in c.exercises}


def exercise(exercise_id: str) -> Exercise:
    try:
        return EXERCISES[exercise_id]
    except KeyError:
        raise KeyError(f"unknown exercise {exercise_id!r}: declare it in graders/catalog.py") from None
