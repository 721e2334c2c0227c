"""Loaded first by any ``pytest`` run in this repository: stop at once, saying what to do, when the
Python running pytest is not the kit's virtual environment (``No module named 'graders'``)."""

import os
import shlex
import sys

try:
    import hypothesis  # noqa: F401
    import torch  # noqa: F401

    import graders  # noqa: F401
except ImportError as exc:
    venv = os.path.relpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".venv"))
    args = shlex.join(sys.argv[1:]) or "exercises/ch2"
    if os.path.exists(os.path.join(venv, "bin", "python")):
        todo = (
            f"The kit is installed in the virtual environment {venv}: activate it first,\n"
            f"    source {venv}/bin/activate && pytest {args}\n"
            f"or run its pytest directly:\n"
            f"    {venv}/bin/pytest {args}"
        )
    else:
        setup = os.path.join(os.path.dirname(venv), "scripts", "setup.sh")
        todo = (
            f"There is no {venv} yet: create it (Python >= 3.11, torch, the kit), then use its pytest:\n"
            f"    bash {setup} && {venv}/bin/pytest {args}"
        )
    print(
        f"dtlab: this pytest runs on {sys.executable}, which cannot import the kit ({exc}).\n{todo}",
        file=sys.stderr,
    )
    raise SystemExit(4) from None  # not an Exception: pytest lets it through, with no traceback
