"""What the guard costs per task: ``Recorder.begin`` + ``end`` for an exercise's bans (the bans
swapped in, the doors and the collective operators' namespaces shadowed, all lifted again).

    .venv/bin/python bench/guard_cost.py
"""

from __future__ import annotations

import time

from graders import catalog
from graders.comm.recorder import Recorder

#: ch3 bans sixteen module trees (torch's optimizers), ch6 and ch10 three (tensor parallelism)
EXERCISES = (
    "ch5.zero1",
    "ch2.ring_all_reduce",
    "ch3.adamw",
    "ch6.column_parallel_linear",
    "ch7.run_pipeline",
    "ch10.expert_parallel_moe",
)
ROUNDS = 200


def per_task_ms(recorder: Recorder, exercise_id: str) -> float:
    exercise = catalog.exercise(exercise_id)
    recorder.begin(exercise.id, exercise.banned, "/nonexistent")  # the first one prepares the swaps
    recorder.end()
    start = time.perf_counter()
    for _ in range(ROUNDS):
        recorder.begin(exercise.id, exercise.banned, "/nonexistent", side_channels=exercise.multi_rank)
        recorder.end()
    return (time.perf_counter() - start) / ROUNDS * 1e3


def main() -> None:
    from graders.world.preload import preload

    preload()  # what a rank has loaded, the banned trees' modules among them
    recorder = Recorder()
    recorder.install()
    for exercise_id in EXERCISES:
        print(f"{exercise_id:28s} {per_task_ms(recorder, exercise_id):6.2f} ms per begin/end")


if __name__ == "__main__":
    main()
