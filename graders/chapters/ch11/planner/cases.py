"""The examples of chapter 11's planner: a model, a cluster and a global batch.

Sizes are drawn from those of real jobs scaled down (up to 64 GPUs, hidden sizes of 512 to 4096,
a Mixture of Experts now and then); whether a request can fit, and the best step time, come from
the reference (:mod:`graders.chapters.ch11.planner.reference`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import strategies as st

from graders.chapters.ch11.planner import reference as planning

PLAN_FIELDS = ("tp", "cp", "pp", "dp", "ep", "micro_batch", "zero")


@dataclass(frozen=True)
class PlanCase:
    model_items: tuple[tuple[str, int], ...]
    cluster_items: tuple[tuple[str, float], ...]
    global_batch: int
    plan_items: tuple[tuple[str, int], ...] = ()  # a plan to cost (memory and time parts)
    world_size: int = 1
    best: float | None = field(default=None, compare=False)

    @property
    def model(self) -> dict:
        return dict(self.model_items)

    @property
    def cluster(self) -> dict:
        return dict(self.cluster_items)

    @property
    def plan(self) -> dict:
        return dict(self.plan_items)

    @property
    def world(self) -> int:
        return self.cluster["nodes"] * self.cluster["gpus_per_node"]

    def __repr__(self) -> str:
        model = ", ".join(f"{k}={v}" for k, v in self.model_items)
        cluster = ", ".join(f"{k}={v}" for k, v in self.cluster_items)
        text = f"ModelConfig({model}), ClusterConfig({cluster}), global_batch={self.global_batch}"
        if self.plan_items:
            text += ", Plan(" + ", ".join(f"{k}={v}" for k, v in self.plan_items) + ")"
        return text


def build(model: dict, cluster: dict, global_batch: int, plan: dict | None = None) -> PlanCase:
    case = PlanCase(tuple(model.items()), tuple(cluster.items()), global_batch, tuple((plan or {}).items()))
    if plan is None:
        return PlanCase(case.model_items, case.cluster_items, global_batch, best=planning.best_time(case))
    return case


@st.composite
def requests(draw, *, memory=(16, 24, 40, 80)):
    model = {
        "layers": draw(st.sampled_from((2, 4, 8, 12, 16, 24, 32))),
        "hidden": draw(st.sampled_from((512, 1024, 2048, 4096))),
        "heads": draw(st.sampled_from((8, 16, 32))),
        "vocab": draw(st.sampled_from((32000, 50000))),
        "seq_len": draw(st.sampled_from((512, 1024, 2048, 4096))),
        "experts": draw(st.sampled_from((1, 1, 1, 4, 8))),
    }
    cluster = {
        "nodes": draw(st.sampled_from((1, 2, 4, 8))),
        "gpus_per_node": draw(st.sampled_from((1, 2, 4, 8))),
        "memory_gb": draw(st.sampled_from(memory)),
        "tflops": draw(st.sampled_from((100.0, 300.0, 1000.0))),
        "nvlink_gbs": draw(st.sampled_from((100.0, 300.0, 900.0))),
        "ib_gbs": draw(st.sampled_from((12.5, 25.0, 50.0))),
    }
    return model, cluster, draw(st.sampled_from((8, 16, 32, 64, 128, 256)))


def feasible_cases():
    """Requests some plan fits."""
    return requests().map(lambda r: build(*r)).filter(lambda case: case.best is not None)


def infeasible_cases():
    """Requests no plan fits (a big model on GPUs of 1 or 2 GB)."""
    return requests(memory=(1, 2)).map(lambda r: build(*r)).filter(lambda case: case.best is None)


@st.composite
def costed_cases(draw):
    """A request and one of its valid plans, feasible or not."""
    model, cluster, global_batch = draw(requests())
    every = list(planning.plans(build(model, cluster, global_batch, {"tp": 1})))
    plan = every[draw(st.integers(0, len(every) - 1))]
    return build(model, cluster, global_batch, plan)


_MODEL = {"layers": 8, "hidden": 1024, "heads": 16, "vocab": 32000, "seq_len": 2048, "experts": 1}
_MOE = _MODEL | {"experts": 8}
_CLUSTER = {
    "nodes": 2,
    "gpus_per_node": 4,
    "memory_gb": 16,
    "tflops": 100.0,
    "nvlink_gbs": 300.0,
    "ib_gbs": 25.0,
}
_ONE = _CLUSTER | {"nodes": 1, "gpus_per_node": 1, "memory_gb": 80}
PLAN_EDGES = [build(_MODEL, _ONE, 8), build(_MODEL, _CLUSTER, 64), build(_MOE, _CLUSTER, 64)]
INFEASIBLE_EDGES = [build(_MODEL | {"hidden": 4096, "layers": 32}, _ONE | {"memory_gb": 1}, 8)]
COST_EDGES = [
    build(_MODEL, _ONE, 8, {"tp": 1, "cp": 1, "pp": 1, "dp": 1, "ep": 1, "micro_batch": 2, "zero": 0}),
    build(_MODEL, _CLUSTER, 64, {"tp": 2, "cp": 1, "pp": 2, "dp": 2, "ep": 1, "micro_batch": 4, "zero": 1}),
    build(_MOE, _CLUSTER, 64, {"tp": 1, "cp": 2, "pp": 1, "dp": 4, "ep": 2, "micro_batch": 2, "zero": 3}),
    # tensor parallelism wider than a node: its all-reduces cross InfiniBand
    build(
        _MODEL,
        _CLUSTER | {"nodes": 4, "gpus_per_node": 2},
        64,
        {"tp": 4, "cp": 1, "pp": 1, "dp": 2, "ep": 1, "micro_batch": 4, "zero": 2},
    ),
]
