"""Chapter 5 worker tasks for ZeRO-Infinity: train with the student's ``InfinityOptimizer`` on a
drive the kit hands it (:class:`graders.training.swap_files.SwapFiles`, a fresh folder per rank).

Besides the parameters after every step, a task returns what the drive saw: every request in
program order (each tagged with the step it came in: 0 for construction), the files and their
sizes after construction and after every step, and the most bytes of swapped tensors alive at
once in each step. The crash task tears one write of the last step and returns the files as
the crash left them.
"""

from __future__ import annotations

from graders.chapters.ch5.tasks import _train_with_optimizer
from graders.training.models import build_model, lm_loss, make_batches
from graders.training.swap_files import SimulatedPowerLoss, SwapFiles
from graders.world.task import task


def _construct(swap: SwapFiles, case):
    def construct(student, model, optimizer_cls, group):
        return student.InfinityOptimizer(
            model.parameters(),
            optimizer_cls,
            swap.drive(),
            group=group,
            partition_numel=case.partition_numel,
            **case.optimizer.hparams,
        )

    return construct


def _drive_report(swap: SwapFiles, on_drive: list[dict[str, int]]) -> dict:
    return {
        "events": [event.plain() for event in swap.events],
        "on_drive": on_drive,  # [after construction, after step 1, ...]
        "resident": {str(step): peak for step, peak in swap.resident_peak.items()},
        "tampered": swap.tampered(),
    }


def _train_infinity(ctx, case, *, measure: bool):
    with ctx.scratch_dir() as folder:
        swap = SwapFiles(folder)
        on_drive: list[dict[str, int]] = []

        def on_mark(label: str) -> None:
            if label == "backward_end":
                swap.begin_step(swap.step + 1)
            elif label in ("constructed", "step_end"):
                on_drive.append(swap.files())

        try:
            observed = swap.observed(case.optimizer.optimizer_cls)
            value = _train_with_optimizer(
                ctx, case, _construct(swap, case), measure=measure, on_mark=on_mark, optimizer_cls=observed
            )
        finally:
            swap.close()
        if value is not None:
            value["drive"] = _drive_report(swap, on_drive)
        return value


@task("ch5.infinity")
def infinity_train(ctx, case):
    return _train_infinity(ctx, case, measure=False)


@task("ch5.infinity")
def infinity_measured(ctx, case):
    """As infinity_train, and the live ledger of everything the rank holds."""
    return _train_infinity(ctx, case, measure=True)


@task("ch5.infinity")
def infinity_crash(ctx, case):
    """One rank: step 1 as usual, then step 2 with its ``tear_at``-th write (counted modulo the
    writes step 1 made) cut off half-done. Returns the files before and after step 2 and what
    the step raised."""
    with ctx.scratch_dir() as folder:
        swap = SwapFiles(folder)
        model = build_model(case.seed)
        first, second = make_batches(case.data_seed, 2, case.rows)
        raised = None
        try:
            with ctx.student_code() as student:
                observed = swap.observed(case.optimizer.optimizer_cls)
                optimizer = _construct(swap, case)(student, model, observed, None)
                swap.begin_step(1)
                _one_step(model, optimizer, first)
                before = swap.files()
                writes = sum(1 for event in swap.events if event.step == 1 and event.op == "write")
                swap.tear_write((case.tear_at - 1) % max(writes, 1) + 1)
                swap.begin_step(2)
                try:
                    _one_step(model, optimizer, second)
                except SimulatedPowerLoss as exc:
                    raised = str(exc)
        finally:
            swap.close()
        return {
            "before": before,
            "after": swap.files(),
            "raised": raised,
            "writes": writes,
            "tampered": swap.tampered(),
        }


def _one_step(model, optimizer, batch) -> None:
    optimizer.zero_grad()
    lm_loss(model, batch.tokens, batch.targets).backward()
    optimizer.step()
