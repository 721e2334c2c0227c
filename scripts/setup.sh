#!/usr/bin/env bash
# Create .venv with the pinned CPU build of torch and dtlab installed in place. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
# torch==2.13.0 exactly: the CPU wheel the course machines provide. Any other version pulls CUDA.
.venv/bin/python -m pip install --quiet --disable-pip-version-check torch==2.13.0 2>&1 | grep -v "WARNING: Location" || true
# DTLAB_EXTRAS adds optional extras: dask (dtlab grade --executor dask), nbgrader (dtlab nbgrader).
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".[${DTLAB_EXTRAS:-dev}]" 2>&1 | grep -v "WARNING: Location" || true
.venv/bin/python -c "import torch, graders; assert torch.__version__.startswith('2.13.0'), torch.__version__"
