"""Training for the graders of the training chapters (data parallelism, ZeRO, ...).

* :mod:`.tiny_lm`, :mod:`.gpt`: the tiny models and data, with the curriculum's awkward parameters;
* :mod:`.optimizers`: optimizers as plain data (:class:`OptimizerSpec`) and drawn;
* :mod:`.loop`: the driver's single-device reference and the workers' training loop;
* :mod:`.history`: parameters after every step compared with the reference;
* :mod:`.live_memory`: every tensor storage alive on a rank, with its peaks inside phases;
* :mod:`.measured_training`: that ledger cut into a training task's phases and roles;
* :mod:`.memory_promises`: a chapter's memory promise, judged against what was alive;
* :mod:`.ledger`: storage bytes, a reference walk, and memory bars for feedback.
"""

from graders.training.history import TRAINING_TOLERANCES, assert_history_close
from graders.training.loop import data_parallel_steps, report_gradients_ready, train_single_device, trainable
from graders.training.optimizers import FunctionalOptimizer, OptimizerSpec, optimizer_specs

__all__ = [
    "TRAINING_TOLERANCES",
    "FunctionalOptimizer",
    "OptimizerSpec",
    "assert_history_close",
    "data_parallel_steps",
    "optimizer_specs",
    "report_gradients_ready",
    "train_single_device",
    "trainable",
]
