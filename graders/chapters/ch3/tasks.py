"""Chapter 3 worker tasks: optimizers stepped beside torch's, and the state they keep.

* An optimizer task steps the case's parameters twice: with ``torch.optim``'s optimizer (the
  cross-check, outside the student block; none for Lion, whose reference is the driver's) and
  with the student's class, under the live ledger. Gradients are written as a training loop
  leaves them: into the existing ``.grad`` in place, a fresh tensor where there was none, ``None``
  for a parameter without one this step. What is alive afterwards that was born while the
  optimizer was built or stepped (the parameters' own storages aside) is its state.
* The memory tasks measure a real optimizer's state and a real training step
  (:func:`graders.training.step_ledger.measure_step`) beside the student's formula.
"""

from __future__ import annotations

import torch

from graders.chapters.ch3.cases import CLASSES
from graders.training.gpt import build_gpt
from graders.training.live_memory import LiveLedger
from graders.training.step_ledger import measure_step
from graders.world.task import task
from graders.world.values import plain


class OneMoment(torch.optim.Optimizer):
    """An optimizer that keeps what Lion keeps, one moment per parameter (``exp_avg``), for
    measuring that state. Its update is a moving average of the gradient, not Lion's: the workers,
    where graded code runs, hold no reference of an exercise."""

    def __init__(self, params, lr=1e-3, beta=0.9):
        super().__init__(params, dict(lr=lr, beta=beta))

    @torch.no_grad()
    def step(self) -> None:
        stepped = [(g, p) for g in self.param_groups for p in g["params"] if p.grad is not None]
        for g, p in stepped:
            moment = self.state[p].setdefault("exp_avg", torch.zeros_like(p))
            moment.lerp_(p.grad, 1 - g["beta"])
            p.sub_(moment, alpha=g["lr"])


#: a name of ``state_memory.py`` -> the optimizer measured for it
NAMED = {
    "sgd": lambda params: torch.optim.SGD(params, lr=0.1),
    "sgd_momentum": lambda params: torch.optim.SGD(params, lr=0.1, momentum=0.9),
    "adam": lambda params: torch.optim.Adam(params),
    "adam_amsgrad": lambda params: torch.optim.Adam(params, amsgrad=True),
    "adamw": lambda params: torch.optim.AdamW(params),
    "adagrad": lambda params: torch.optim.Adagrad(params),
    "lion": lambda params: OneMoment(params),
}
TORCH = {
    "sgd": torch.optim.SGD,
    "adam": torch.optim.Adam,
    "adamw": torch.optim.AdamW,
    "adagrad": torch.optim.Adagrad,
}


def _write_grads(params: list[torch.Tensor], grads) -> None:
    for p, g in zip(params, grads, strict=True):
        if g is None:
            p.grad = None
        elif p.grad is None:
            p.grad = g.clone()
        else:
            p.grad.copy_(g)


def _stepped(case, build, ledger: LiveLedger) -> tuple[list, list[torch.Tensor], torch.optim.Optimizer]:
    """Build an optimizer (``build(param_groups)``) over fresh copies of the case's parameters and
    step it through the case's gradients: the parameters after every step, the parameters, and
    the optimizer (alive: what it keeps is measured while it is).
    At ``case.resume_at`` the optimizer's ``state_dict()`` is loaded into a new one over copies."""
    params = case.fresh_params()
    optimizer = build(case.param_groups(params))
    history = []
    for s, grads in enumerate(case.gradients):
        if s == case.resume_at:
            saved = optimizer.state_dict()
            with ledger.paused():
                params = [p.detach().clone().requires_grad_() for p in params]
            optimizer = build(case.param_groups(params))
            optimizer.load_state_dict(saved)
        with ledger.paused():
            _write_grads(params, grads)
        ledger.enter("step", step=s)
        optimizer.step()
        with ledger.paused():
            history.append([p.detach().clone() for p in params])
    return history, params, optimizer


def _optimizer_task(ctx, case, *, state: bool = False) -> dict:
    """``state``: the state part's run, whose memory promise counts the Python data graded code
    keeps too (from its import on); the result part's run measures the storages only."""
    hyper = dict(case.hparams)
    expected = None
    if case.optimizer in TORCH:
        expected, _, _ = _stepped(case, lambda groups: TORCH[case.optimizer](groups, **hyper), LiveLedger())
    ledger = LiveLedger(ctx.location.chapter_dir, python_heap="steady" if state else None)
    with ledger:
        ledger.enter("construct")  # from the import on: what the module makes for itself counts too
        with ctx.student_code() as student:
            cls = ctx.graded_class(student, CLASSES[case.optimizer], (torch.optim.Optimizer, object))
            history, params, optimizer = _stepped(case, lambda groups: cls(groups, **hyper), ledger)
            ledger.enter("after")
    born = sum(sum(ledger.alive_born_in(phase).values()) for phase in ("construct", "step"))
    state_bytes = born - sum(p.numel() * p.element_size() for p in params if ledger.bytes_of([p]))
    del optimizer  # alive until its state was measured
    return {"history": history, "torch": expected, "state_bytes": state_bytes}


def _optimizer_tasks(name: str):
    """The result part's task and the state part's (``<name>_state``) of one optimizer."""

    def result(ctx, case):
        return _optimizer_task(ctx, case)

    def state(ctx, case):
        return _optimizer_task(ctx, case, state=True)

    result.__name__ = result.__qualname__ = name
    state.__name__ = state.__qualname__ = f"{name}_state"
    return task(f"ch3.{name}")(result), task(f"ch3.{name}")(state)


sgd, sgd_state = _optimizer_tasks("sgd")
adam, adam_state = _optimizer_tasks("adam")
adamw, adamw_state = _optimizer_tasks("adamw")
adagrad, adagrad_state = _optimizer_tasks("adagrad")
lion, lion_state = _optimizer_tasks("lion")


# -- state_memory.py ------------------------------------------------------------------------------------


def measured_state_bytes(name: str, shapes, dtype: torch.dtype) -> int:
    """The per-element state of optimizer ``name`` after one step of parameters of ``shapes``."""
    params = [torch.zeros(shape, dtype=dtype, requires_grad=True) for shape in shapes]
    for p in params:
        p.grad = torch.ones_like(p)
    optimizer = NAMED[name](params)
    optimizer.step()
    return sum(
        value.nbytes
        for p, state in optimizer.state.items()
        for value in state.values()
        if isinstance(value, torch.Tensor) and value.shape == p.shape
    )


def _refusal(call) -> str:
    """The exception type ``call()`` raises (``""`` when it returns)."""
    try:
        call()
    except Exception as exc:  # noqa: BLE001 - whatever graded code raises is the answer
        return type(exc).__name__
    return ""


@task("ch3.optimizer_state_bytes")
def optimizer_state_bytes(ctx, case):
    dtype = getattr(torch, case.dtype)
    measured = measured_state_bytes(case.name, case.shapes, dtype)
    with ctx.student_code() as student:
        answer = plain(student.optimizer_state_bytes(case.name, case.n_params, dtype))
        unknown = _refusal(lambda: student.optimizer_state_bytes("adamax", case.n_params, dtype))
    return {"answer": answer, "measured": measured, "unknown": unknown}


#: the kit's GPT the bytes per parameter are measured on (vocabulary, positions, hidden, heads)
K_MODEL = (32, 8, 8, 2)


@task("ch3.bytes_per_param")
def bytes_per_param(ctx, case):
    generator = torch.Generator().manual_seed(case.layers)
    tokens = torch.randint(0, K_MODEL[0], (4, 2), generator=generator)
    model = build_gpt(*K_MODEL, case.layers, seed=case.layers)
    measured = measure_step(model, case.precision, NAMED[case.optimizer], tokens, tokens.roll(1, 0))
    with ctx.student_code() as student:
        answer = plain(student.bytes_per_param(case.precision, case.optimizer))
        unknown = _refusal(lambda: student.bytes_per_param("fp8", case.optimizer))
    return {"answer": answer, "measured": measured, "unknown": unknown}
