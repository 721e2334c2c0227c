"""Chapter 11's planner reference, computed in the driver: the cost model of ``planner.py``'s
docstring, written out once more, and the best plan found by trying every valid one.

A plan is a dict (``tp, cp, pp, dp, ep, micro_batch, zero``); the model and the cluster are the
cases' (:class:`graders.chapters.ch11.planner.cases.PlanCase`).
"""

from __future__ import annotations

import itertools

STATE_BYTES = (lambda dp: 16, lambda dp: 4 + 12 / dp, lambda dp: 2 + 14 / dp, lambda dp: 16 / dp)


def _divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


def valid(plan: dict, case) -> bool:
    tp, cp, pp, dp, ep, b = (plan[k] for k in ("tp", "cp", "pp", "dp", "ep", "micro_batch"))
    model = case.model
    return (
        all(isinstance(v, int) and v >= 1 for v in (tp, cp, pp, dp, ep, b))
        and tp * cp * pp * dp == case.world
        and model["heads"] % tp == 0
        and model["layers"] % pp == 0
        and model["seq_len"] % cp == 0
        and dp % ep == 0
        and model["experts"] % ep == 0
        and case.global_batch % (dp * b) == 0
        and plan["zero"] in (0, 1, 2, 3)
    )


def _params(plan: dict, model: dict) -> float:
    """Ψ: parameters per GPU."""
    h, layers = model["hidden"], model["layers"]
    shared = (layers * 4 * h * h + model["vocab"] * h) / (plan["tp"] * plan["pp"])
    experts = layers * 8 * h * h * model["experts"] / (plan["tp"] * plan["pp"] * plan["ep"])
    return shared + experts


def memory(plan: dict, case) -> float:
    model = case.model
    h, s = model["hidden"], model["seq_len"]
    m = case.global_batch // (plan["dp"] * plan["micro_batch"])
    states = _params(plan, model) * STATE_BYTES[plan["zero"]](plan["dp"])
    tokens = plan["micro_batch"] * s / plan["cp"]
    layer = tokens * h * (34 + 5 * model["heads"] * s / h) / plan["tp"]
    return states + model["layers"] / plan["pp"] * layer * min(plan["pp"], m)


def time(plan: dict, case) -> float:
    model, cluster = case.model, case.cluster
    h, s, layers, node = model["hidden"], model["seq_len"], model["layers"], cluster["gpus_per_node"]
    tp, cp, pp, dp, ep = (plan[k] for k in ("tp", "cp", "pp", "dp", "ep"))
    m = case.global_batch // (dp * plan["micro_batch"])
    fast, slow = cluster["nvlink_gbs"] * 1e9, cluster["ib_gbs"] * 1e9
    flops = 6 * case.global_batch * s * (layers * 12 * h * h + model["vocab"] * h)
    total = flops / (case.world * cluster["tflops"] * 1e12) * (1 + (pp - 1) / m)
    act = 2 * plan["micro_batch"] * s / cp * h
    per = layers / pp * m
    total += per * 4 * 2 * (tp - 1) / tp * act / (fast if tp <= node else slow)
    total += per * 2 * (cp - 1) * act / tp / (fast if tp * cp <= node else slow)
    dp_bw = fast if tp * cp * dp <= node else slow
    total += per * 4 * (ep - 1) / ep * act / dp_bw
    if pp > 1:
        total += m * 2 * act / tp / (fast if case.world <= node else slow)
    total += 2 * (dp - 1) / dp * 2 * _params(plan, model) / dp_bw * (1.5 if plan["zero"] == 3 else 1.0)
    return total


def feasible(plan: dict, case) -> bool:
    return valid(plan, case) and memory(plan, case) <= case.cluster["memory_gb"] * 1e9


def plans(case):
    """Every valid plan of the case."""
    world = case.world
    for tp, cp, pp in itertools.product(_divisors(world), repeat=3):
        model_parallel = tp * cp * pp
        if world % model_parallel:
            continue
        dp = world // model_parallel
        if case.global_batch % dp:
            continue
        for ep, b, zero in itertools.product(_divisors(dp), _divisors(case.global_batch // dp), range(4)):
            plan = {"tp": tp, "cp": cp, "pp": pp, "dp": dp, "ep": ep, "micro_batch": b, "zero": zero}
            if valid(plan, case):
                yield plan


def best_time(case) -> float | None:
    """The least step time of a feasible plan, or None when none fits."""
    times = [time(p, case) for p in plans(case) if memory(p, case) <= case.cluster["memory_gb"] * 1e9]
    return min(times, default=None)
