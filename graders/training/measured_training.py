"""Worker side: the live ledger of a training task, cut into the training loop's phases.

* :class:`TrainingPhases` turns the marks of :func:`graders.training.data_parallel_steps`
  into ledger phases and records what is alive by role (kept between steps, optimizer state,
  at the end of forward and of backward);
* :func:`plain_training_peaks` measures a single device's step the same way, so a promise can
  be stated as a difference from it;
* :class:`MeasuredTraining` wires both around a chapter's training task.
"""

from __future__ import annotations

import gc
import time

import torch

from graders.training.live_memory import LiveLedger

#: ``data_parallel_steps`` marks -> the phase that starts there
_NEXT_PHASE = {
    "constructed": "forward",
    "forward_end": "backward",
    "backward_end": "step",
    "step_end": "forward",
}


class TrainingPhases:
    """Follows the marks of :func:`graders.training.data_parallel_steps` into ledger phases
    (``forward``, ``backward``, ``step``) and records what is alive by role:

    * ``kept``: what is alive between two steps (at ``step_end``), less the model's current
      parameters and their gradients (``model_tensors()``): shards, state, buffers, hoards;
    * ``state``: the storages born in a ``step`` phase that are still alive one whole step
      later: what an optimizer keeps per element, whichever class made it;
    * ``at_forward_end``: all that is alive when forward returns (activations, saved
      tensors and whatever forward left gathered);
    * ``grads_at_backward_end``: the storages born in this step's backward that are alive
      when it returns (autograd's temporaries are gone by then): gradients, reduced
      chunks, buffers still on the wire, and any copy of them.

    The roles that need the optimizer state to exist are recorded from the second step on.
    Each role is the least over the steps recorded: what is kept on purpose is there at
    every step.
    """

    def __init__(self, ledger: LiveLedger, model_tensors=lambda: ()) -> None:
        self.ledger = ledger
        self.model_tensors = model_tensors
        self.roles: dict[str, int] = {}
        self._state_candidates: set[int] = set()

    def mark(self, label: str) -> None:
        ledger = self.ledger
        if label == "forward_end" and ledger.step >= 1:
            self._settle()
            self._least("at_forward_end", ledger.total)
        elif label == "backward_end":
            self._settle()
            self._least("grads_at_backward_end", ledger.born_alive.get(("backward", ledger.step), 0))
        elif label == "step_end":
            self._settle()
            born_in_step = ledger.alive_born_in("step")
            if ledger.step >= 1:
                self._least("kept", ledger.total - ledger.bytes_of(self.model_tensors()))
                state = sum(size for key, size in born_in_step.items() if key in self._state_candidates)
                self._least("state", state)
            self._state_candidates = set(born_in_step)
            ledger.enter("forward", step=ledger.step + 1)
            return
        if label in _NEXT_PHASE:
            ledger.enter(_NEXT_PHASE[label])

    def _settle(self) -> None:
        """Let go of what is already garbage before a measure: cycles (this step's are young),
        and what a backend thread is about to let go of.

        What a finished collective's backend thread still holds is not graded code's: the
        recorder cut it loose when the collective returned or its handle was dropped
        (``graders.comm.backend_hold``). But a thread that drops the last reference to a
        tensor Python has let go of (gloo's, dropping a finished ``Work``: a reduce-scatter's
        input, say) must take the GIL to free it, and graded code's step may not give it up
        before the measure; the tensor then shows as kept, in some runs and not others. The
        GIL is given up first, so that a thread waiting for it frees what it holds."""
        time.sleep(0)
        with self.ledger.paused():
            gc.collect(1)

    def _least(self, role: str, value: int) -> None:
        self.roles[role] = min(self.roles.get(role, value), value)

    def summary(self) -> dict:
        return {"peaks": self.ledger.summary(), "roles": dict(self.roles)}


def plain_training_peaks(model: torch.nn.Module, batch) -> dict[str, int]:
    """What a single device holds in one plain forward and backward of ``model`` on ``batch``,
    measured by the same ledger and cut into the same phases, so that a promise can be stated
    as a difference from it (activations and autograd's temporaries are never guessed):

    * ``setup``: the model's parameters and buffers;
    * ``forward``, ``at_forward_end``: the peak inside forward, and what is alive when it returns;
    * ``backward``: the peak inside backward;
    * ``backward_working_set``: the most bytes born in backward alive at once that are not a
      parameter's gradient: the gradients of activations that autograd passes along.
    """
    from graders.training.tiny_lm import logits_loss

    ledger = LiveLedger()
    grads = {}  # id(storage) -> bytes of the parameters' gradients accumulated so far
    working = [0]

    def gradient_ready(p) -> None:
        grads[id(p.grad.untyped_storage())] = p.grad.untyped_storage().nbytes()

    def sample_working_set() -> None:
        if ledger.phase == "backward":
            fresh = ledger.born_alive.get(("backward", 0), 0)
            working[0] = max(working[0], fresh - sum(grads.values()))

    trained = [p for p in model.parameters() if p.requires_grad]
    hooks = [p.register_post_accumulate_grad_hook(gradient_ready) for p in trained]
    ledger.track([*model.parameters(), *model.buffers()])
    setup = ledger.total
    ledger.after_op = sample_working_set
    with ledger:
        ledger.enter("forward")
        logits = model(batch.tokens)
        at_forward_end = ledger.total
        ledger.enter("backward")
        loss = logits_loss(logits, batch.targets)
        del logits
        loss.backward()
    for hook in hooks:
        hook.remove()
    return {
        "setup": setup,
        "forward": ledger.peaks["forward"].bytes,
        "at_forward_end": at_forward_end,
        "backward": ledger.peaks["backward"].bytes,
        "backward_working_set": working[0],
    }


# -- a measured training task --------------------------------------------------------------------


class MeasuredTraining:
    """The live ledger of one training task, for a chapter's ``tasks.py``::

        measured = MeasuredTraining(ctx, model, plain_model=build(), batch=batch)  # before the import
        with measured, ctx.student_code() as student:
            wrapper = student.Something(model, group=group)
            measured.mark("constructed")
            data_parallel_steps(..., mark=measured.mark, snapshot=measured.kit(snapshot))
        value["live"] = measured.summary()

    ``plain_model`` is a fresh copy of ``model`` and ``batch`` this rank's share of one global
    batch: the plain single-device peaks are measured on them first
    (:func:`plain_training_peaks`). The training's marks become the ledger's phases; :meth:`kit`
    wraps the kit's own callbacks so that what they allocate is not counted; the most bytes
    asynchronous collectives held at once inside a backward is read from the recorder
    (``on_the_wire``).
    """

    def __init__(self, ctx, model: torch.nn.Module, *, plain_model: torch.nn.Module, batch) -> None:
        self.ctx = ctx
        self.model = model
        self.plain = plain_training_peaks(plain_model, batch)
        self.ledger = LiveLedger(ctx.location.chapter_dir, python_heap="steady")
        self.ledger.track([*model.parameters(), *model.buffers()])
        self.phases = TrainingPhases(self.ledger, model_tensors=self._model_tensors)
        self._wire = {"bytes": 0, "where": ""}  # the most asynchronous collectives held in a backward

    def _model_tensors(self) -> list[torch.Tensor]:
        tensors = [*self.model.parameters(), *self.model.buffers()]
        return tensors + [p.grad for p in tensors if p.grad is not None]

    def __enter__(self) -> MeasuredTraining:
        self.ctx.release_buffers()  # what the backend's threads hold is cut loose in time
        self.ledger.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self.ledger.__exit__(*exc)

    def mark(self, label: str) -> None:
        self.ctx.mark(label)
        self.phases.mark(label)
        if label == "constructed":  # inside the student block: count what all-gathers bring in
            self.ctx.watch_gathers(self.ledger.gathered_into)
        elif label == "forward_end":
            self.ctx.on_the_wire()  # what asynchronous collectives hold in backward, from here
        elif label == "backward_end":
            wire = self.ctx.on_the_wire()
            if wire["bytes"] >= self._wire["bytes"]:
                self._wire = wire

    def enter(self, phase: str) -> None:
        """A phase of the kit's own after training (e.g. ``report``): not part of a promise."""
        self.ledger.enter(phase)

    def kit(self, fn):
        """``fn`` run with the ledger paused: the kit's callbacks allocate outside the ledger."""
        if fn is None:
            return None

        def paused(*args, **kwargs):
            with self.ledger.paused():
                return fn(*args, **kwargs)

        return paused

    def summary(self) -> dict:
        summary = self.phases.summary() | {"plain": self.plain}
        summary["roles"]["on_the_wire"] = self._wire
        return summary
