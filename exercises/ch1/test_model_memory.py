"""Chapter 1 graders: the memory ledger of training (``model_memory.py``).

``count_parameters`` must equal ``sum(p.numel())`` of the kit's GPT built from the drawn config;
``training_memory`` the bytes a real training step of that GPT keeps, by role (parameters,
gradients, optimizer state, fp32 masters), in every precision and optimizer, and the ZeRO paper's
16 bytes per parameter for mixed-precision Adam; ``activation_memory`` the bytes autograd saves in
one block's forward (a saved-tensors hook, per storage), in each recompute mode.
"""

from hypothesis import given

from graders.chapters.ch1 import cases, checks, tasks
from graders.judge.strategies import smallest_first
from graders.plugin import exercise


@exercise("ch1.count_parameters", part="result")
@given(case=cases.count_cases())
@smallest_first(*cases.COUNT_EDGES)
def test_parameters_are_counted(harness, impl, case):
    checks.assert_count(harness.run(tasks.count_parameters, impl, case), case)


@exercise("ch1.training_memory", part="measured")
@given(case=cases.ledger_cases())
@smallest_first(*cases.LEDGER_EDGES)
def test_the_ledger_matches_a_real_step(harness, impl, case):
    checks.assert_ledger(harness.run(tasks.training_memory, impl, case), case)


@exercise("ch1.training_memory", part="paper")
@given(case=cases.ledger_cases(mixed_adam=True))
@smallest_first(*cases.PAPER_EDGES)
def test_mixed_precision_adam_costs_16_bytes_per_parameter(harness, impl, case):
    checks.assert_paper(harness.run(tasks.training_memory, impl, case), case)


@exercise("ch1.activation_memory", part="none")
@given(case=cases.activation_cases("none"))
@smallest_first(*cases.activation_edges("none"))
def test_activations_without_recomputation(harness, impl, case):
    checks.assert_activations(harness.run(tasks.activation_memory, impl, case), case)


@exercise("ch1.activation_memory", part="selective")
@given(case=cases.activation_cases("selective"))
@smallest_first(*cases.activation_edges("selective"))
def test_activations_with_selective_recomputation(harness, impl, case):
    checks.assert_activations(harness.run(tasks.activation_memory, impl, case), case)


@exercise("ch1.activation_memory", part="full")
@given(case=cases.activation_cases("full"))
@smallest_first(*cases.activation_edges("full"))
def test_activations_with_full_recomputation(harness, impl, case):
    checks.assert_activations(harness.run(tasks.activation_memory, impl, case), case)
