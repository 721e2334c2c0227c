"""Chapter 1 graders: torchrun's environment, the backend and the device (``launch.py``).

``read_dist_env`` reads valid environments of 1-4 nodes of 1-8 processes (with other variables
beside them) and refuses, naming the variable, environments with one variable missing, not an
integer, or inconsistent with another; ``pick_backend`` picks NCCL for CUDA devices only;
``device_for`` gives GPU ``local_rank`` on machines with GPUs and the CPU without.
"""

from hypothesis import given

from graders.chapters.ch1 import cases, checks, tasks
from graders.judge.strategies import smallest_first
from graders.plugin import exercise


@exercise("ch1.read_dist_env", part="result")
@given(case=cases.env_cases())
@smallest_first(*cases.ENV_EDGES)
def test_the_environment_is_read(harness, impl, case):
    checks.assert_env_read(harness.run(tasks.read_dist_env, impl, case), case)


@exercise("ch1.read_dist_env", part="errors")
@given(case=cases.bad_env_cases())
@smallest_first(*cases.BAD_ENV_EDGES)
def test_a_wrong_environment_is_refused_by_name(harness, impl, case):
    checks.assert_env_errors(harness.run(tasks.read_dist_env, impl, case), case)


@exercise("ch1.pick_backend", part="result")
@given(case=cases.backend_cases())
@smallest_first(*cases.BACKEND_EDGES)
def test_nccl_for_cuda_gloo_otherwise(harness, impl, case):
    checks.assert_backend(harness.run(tasks.pick_backend, impl, case), case)


@exercise("ch1.device_for", part="result")
@given(case=cases.device_cases())
@smallest_first(*cases.DEVICE_EDGES)
def test_a_local_rank_gets_its_gpu(harness, impl, case):
    checks.assert_device(harness.run(tasks.device_for, impl, case), case)
