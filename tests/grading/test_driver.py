"""The grading driver vouches for its report: a run cut short keeps no pass, graded code cannot
stop it with a signal, and a part the kit failed on says what failed.

The driver runs here in a subprocess on a tiny suite of marked tests (no worker world: the tests
only pass, fail or stop), and its report is read from the pipe as the batch reads it.
"""

import json
import subprocess
import sys
import textwrap

import pytest

from graders.errors import Failure, render

pytestmark = pytest.mark.graders  # the graders tier: worker worlds, the kit's commands

SCRIPT = """
import os, sys
from graders.grading import driver
read, write = os.pipe()
if sys.argv[1] == "shielded":
    driver.shield()
suite = sys.argv[2]
argv = [suite, "-q", "-p", "no:cacheprovider", "--rootdir", suite, "-c", os.path.join(suite, "pytest.ini")]
driver.run(argv, write, [])
os.close(write)
sys.stdout.write(os.read(read, 1 << 20).decode())
"""


def run_driver(tmp_path, tests: str, mode: str = "plain") -> dict:
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "pytest.ini").write_text("[pytest]\n")
    header = "import os, signal, time\nimport pytest\nmark = pytest.mark.dtlab_exercise\n\n"
    (suite / "test_suite.py").write_text(header + textwrap.dedent(tests))
    run = subprocess.run(
        [sys.executable, "-c", SCRIPT, mode, str(suite)], capture_output=True, text=True, timeout=120
    )
    lines = [line for line in run.stdout.splitlines() if line.startswith("{")]
    assert lines, run.stdout[-3000:] + run.stderr[-3000:]
    return json.loads(lines[-1])


def parts(report: dict) -> dict:
    return {
        (p["exercise"], p["part"]): (
            p["status"],
            p["kind"],
            render(Failure.from_dict(p["failure"])) if p["failure"] else "",
        )
        for row in report["report"]["exercises"]
        for p in row["parts"]
    }


INTERRUPTED_SUITE = """
@mark("ch2.ring_shift", "result")
def test_public():
    pass

@mark("ch2.ring_shift", "result")
def test_stops_the_run():
    raise KeyboardInterrupt  # what a SIGINT reaching the driver does

@mark("ch2.ring_shift", "result")
def test_hidden():
    pass

@mark("ch2.broadcast", "result")
def test_never_reached():
    pass
"""


def test_an_interrupted_run_keeps_no_partial_pass(tmp_path):
    report = run_driver(tmp_path, INTERRUPTED_SUITE)
    found = parts(report)
    for key in (("ch2.ring_shift", "result"), ("ch2.broadcast", "result")):
        status, kind, message = found[key]
        assert (status, kind) == ("failed", "interrupted") and "grading was interrupted" in message, key
    assert report["report"]["score"] == 0
    assert report["run"]["collected"] == 4 and report["run"]["not_run"] == 3


def test_a_signal_from_graded_code_does_not_stop_the_driver(tmp_path):
    suite = """
    @mark("ch2.ring_shift", "result")
    def test_signals_the_driver():
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1):
            os.kill(os.getpid(), signum)
        time.sleep(0.2)

    @mark("ch2.ring_shift", "result")
    def test_hidden():
        pass
    """
    report = run_driver(tmp_path, suite, mode="shielded")
    assert parts(report)[("ch2.ring_shift", "result")][0] == "passed"
    assert report["run"]["not_run"] == 0


def test_a_grader_error_says_what_failed(tmp_path):
    suite = """
    @mark("ch2.ring_shift", "result")
    def test_the_kit_breaks():
        raise OSError(28, "No space left on device")
    """
    status, kind, message = parts(run_driver(tmp_path, suite))[("ch2.ring_shift", "result")]
    assert (status, kind) == ("failed", "internal")
    assert "test_the_kit_breaks" in message and "No space left on device" in message


def test_a_suite_that_cannot_be_collected_is_reported(tmp_path):
    report = run_driver(tmp_path, "import a_module_that_does_not_exist\n")
    assert report["run"]["collected"] == 0
    assert "a_module_that_does_not_exist" in report["run"]["collection_errors"][0]


@pytest.mark.parametrize(
    ("run", "error", "kind"),
    [
        ({"collected": 4, "not_run": 3}, "grading was interrupted: 3 of 4 tests did not run", "interrupted"),
        ({"collected": 0, "collection_errors": ["x: boom"]}, "could not be collected:\nx: boom", "internal"),
        ({"collected": 0}, "the graders collected no test", "internal"),
    ],
)
def test_the_batch_says_why_a_run_is_not_a_whole_grading(run, error, kind):
    from graders.gradebook import Gradebook
    from graders.grading.intake import Staged
    from graders.grading.result import Settings
    from graders.grading.verdict import interpret

    report = {"report": Gradebook().to_dict(), "run": run}
    messages = [report, {"status": {"exit": 0}}]
    result = interpret(Staged("ann", {}), Settings.of("ch2"), messages, False, [], "")
    assert error in result.error and result.error_kind == kind
    assert result.book.total == (0, 20)
