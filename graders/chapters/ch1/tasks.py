"""Chapter 1 worker tasks.

* ``model_memory.py``: the student's answers, beside a real training step of the kit's GPT
  measured by :func:`graders.training.step_ledger.measure_step` (the ledger).
* ``launch.py``: the student's functions on the case's environment or device; ``device_for`` on
  a machine made to report the case's number of GPUs (``torch.cuda`` and ``torch.accelerator``
  asked, nothing else).
* The first DDP script runs as a program in a world torchrun's launcher starts
  (``launcher="torchrun"``): each rank notes what it fed its model, what DDP synchronised, what
  it saved and printed, and its replica's weights
  (:class:`graders.chapters.ch1.first_ddp.observe.ScriptObserver`). The checkpoint itself is read by the
  driver, from the launch folder (``case.launch_outputs()``).
"""

from __future__ import annotations

import contextlib
from unittest import mock

import torch

from graders.chapters.ch1.first_ddp.observe import ScriptObserver
from graders.training.step_ledger import measure_step
from graders.world.task import task
from graders.world.values import plain

LEDGER_FIELDS = ("params", "grads", "optimizer_states", "master_weights")
OPTIMIZERS = {
    "adam": lambda params: torch.optim.Adam(params),
    "sgd": lambda params: torch.optim.SGD(params, lr=0.1),
    "sgd_momentum": lambda params: torch.optim.SGD(params, lr=0.1, momentum=0.9),
}


def _config(student, case):
    fields = case.config | {"dtype": getattr(torch, case.dtype)}
    return student.GPTConfig(**fields)


@task("ch1.count_parameters")
def count_parameters(ctx, case):
    with ctx.student_code() as student:
        return plain(student.count_parameters(_config(student, case)))


def _ledger(ledger) -> dict:
    """The fields of what ``training_memory`` returned (read inside the student block: they may
    be properties), and its ``total``."""
    if ledger is None:
        return {"none": True}
    fields = {name: plain(getattr(ledger, name, "<missing>")) for name in (*LEDGER_FIELDS, "total")}
    return fields | {"type": type(ledger).__name__}


@task("ch1.training_memory")
def training_memory(ctx, case):
    generator = torch.Generator().manual_seed(case.vocab_size)
    tokens = torch.randint(0, case.vocab_size, (min(4, case.max_seq_len), 2), generator=generator)
    model = case.gpt()
    measured = measure_step(model, case.precision, OPTIMIZERS[case.optimizer], tokens, tokens.roll(1, 0))
    with ctx.student_code() as student:
        ledger = student.training_memory(
            measured["n_params"], precision=case.precision, optimizer=case.optimizer
        )
        answer = _ledger(ledger)
    return {"answer": answer, "measured": measured}


@task("ch1.activation_memory")
def activation_memory(ctx, case):
    with ctx.student_code() as student:
        answer = student.activation_memory(
            _config(student, case), case.micro_batch, case.seq_len, recompute=case.recompute
        )
        return plain(answer)


@task("ch1.read_dist_env")
def read_dist_env(ctx, case):
    with ctx.student_code() as student:
        try:
            env = student.read_dist_env(dict(case.env))
        except (ValueError, KeyError) as exc:
            return {"raised": type(exc).__name__, "message": str(exc)}
        fields = ("rank", "local_rank", "world_size", "local_world_size", "master_addr", "master_port")
        return {"returned": {name: plain(getattr(env, name, "<missing>")) for name in fields}}


@task("ch1.pick_backend")
def pick_backend(ctx, case):
    device = torch.device(case.device) if case.as_object else case.device
    with ctx.student_code() as student:
        return plain(student.pick_backend(device))


def _as_device(value):
    return {"device": str(value)} if isinstance(value, torch.device) else plain(value)


@contextlib.contextmanager
def _gpus(count: int):
    """torch.cuda and torch.accelerator answering as on a machine with ``count`` CUDA devices."""
    available = count > 0
    with contextlib.ExitStack() as stack:
        stack.enter_context(mock.patch.object(torch.cuda, "is_available", lambda: available))
        stack.enter_context(mock.patch.object(torch.cuda, "device_count", lambda: count))
        accelerator = torch.device("cuda") if available else None
        stack.enter_context(mock.patch.object(torch.accelerator, "is_available", lambda: available))
        stack.enter_context(mock.patch.object(torch.accelerator, "device_count", lambda: count))
        stack.enter_context(
            mock.patch.object(torch.accelerator, "current_accelerator", lambda *a, **k: accelerator)
        )
        yield


@task("ch1.device_for")
def device_for(ctx, case):
    with _gpus(case.gpus), ctx.student_code() as student:
        return _as_device(student.device_for(case.local_rank))


@task("ch1.first_ddp")
def first_ddp(ctx, case):
    observer = ScriptObserver()
    with observer:
        try:
            ctx.run_script(case.argv)
        finally:
            intact = observer.hooks_intact()
    replica = observer.replicas[-1].module.state_dict() if observer.replicas else None
    printed = observer.printed.getvalue() + observer.stdout_bytes.decode("utf-8", "replace")
    return {
        "forwards": [[ddp, name, rows] for ddp, name, rows in observer.forwards],
        "synced": observer.synced,
        "outputs": observer.outputs,
        "replica": plain(replica),
        "saves": [list(save) for save in observer.saves],
        "printed": printed[-4000:],
        "hooks_intact": intact,
    }
