"""The hidden graders add evidence the public ones lack, and can fail.

``hidden/fixtures/ch2/drifting_replicas`` is a ring all-reduce whose values are within tolerance
(the public ``result`` test passes) but whose replicas differ bitwise: the hidden replica
property must fail it, so the part is lost at grading time only.
"""

import subprocess
import sys


def test_a_hidden_property_fails_what_the_public_ones_accept(kit_root, tmp_path):
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            str(kit_root / "exercises/ch2/test_collectives.py::test_ring_all_reduce"),
            str(
                kit_root
                / "hidden/ch2/test_hidden_collectives.py::test_ring_all_reduce_leaves_identical_replicas"
            ),
            f"--impl={kit_root / 'hidden/fixtures/ch2/drifting_replicas'}",
            "--hypothesis-profile=ci",
            "-p",
            "no:cacheprovider",
            f"--rootdir={kit_root}",
            "-rA",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    out = run.stdout
    assert "PASSED" in out and "test_collectives.py::test_ring_all_reduce" in out, out[-3000:]
    assert "FAILED" in out and "test_ring_all_reduce_leaves_identical_replicas" in out, out[-3000:]
    assert "bitwise the same values" in out and "Traceback" not in out
    assert "ch2.ring_all_reduce       0/3   failed" in out  # result lost; ring not graded here
