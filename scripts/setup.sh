#!/usr/bin/env bash
# Create .venv with the pinned CPU build of torch and dtlab installed in place. Idempotent.
# PYTHON picks the interpreter (>= 3.11); which torch is installed is decided in one place,
# scripts/install_torch.py (DTLAB_TORCH_INDEX, DTLAB_TORCH_FIND_LINKS, DTLAB_ALLOW_CUDA_TORCH).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
step() { echo "==> $*"; }

# 1. The interpreter first, before anything is created or downloaded.
need_python() {  # need_python INTERPRETER WHAT
  local version
  if ! version=$("$1" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null); then
    echo "dtlab setup: cannot run $2 '$1'. Set PYTHON to a Python >= 3.11, e.g. PYTHON=python3.11." >&2
    exit 2
  fi
  if ! "$1" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
    echo "dtlab setup: $2 '$1' is Python $version; the kit needs Python >= 3.11." >&2
    echo "  Nothing was installed. Run: PYTHON=python3.11 bash scripts/setup.sh" >&2
    exit 2
  fi
  echo "$version"
}
version=$(need_python "$PYTHON" PYTHON)  # an assignment, so that its exit status stops the script
step "checking Python: $PYTHON is Python $version"
if [ -x .venv/bin/python ]; then
  version=$(need_python .venv/bin/python "the python of the existing .venv (remove .venv to start over):")
  step "reusing .venv (Python $version)"
else
  step "creating .venv"
  "$PYTHON" -m venv .venv
fi

# pip's own lines go to a log file; the steps are shown, and the log's tail if pip fails.
export DTLAB_PIP_LOG="$PWD/.venv/setup-pip.log"
: >"$DTLAB_PIP_LOG"
pip_log() {
  local status
  set +e
  "$@" >>"$DTLAB_PIP_LOG" 2>&1
  status=$?
  set -e
  if [ "$status" -ne 0 ]; then
    echo "dtlab setup: pip failed (exit $status); the last lines of $DTLAB_PIP_LOG:" >&2
    tail -n 30 "$DTLAB_PIP_LOG" >&2
  fi
  return "$status"
}

# 2. torch: resolved by a dry run first; a CUDA build is installed only with DTLAB_ALLOW_CUDA_TORCH=1.
.venv/bin/python scripts/install_torch.py install

# 3. The kit, in place. DTLAB_EXTRAS adds optional extras: dask (dtlab grade --executor dask),
# nbgrader (dtlab nbgrader).
step "installing dtlab in place with extras [${DTLAB_EXTRAS:-dev}] (pip's log: .venv/setup-pip.log)"
pip_log .venv/bin/python -m pip install --disable-pip-version-check -e ".[${DTLAB_EXTRAS:-dev}]"
# Megatron-Core, for the kit's own test that chapter 11's rank grid is its RankGenerator's: without
# its dependencies (its rank groups need only torch), and only where the kit's tests run.
case ",${DTLAB_EXTRAS:-dev}," in *,dev,*)
  step "installing megatron-core==0.16.1 without its dependencies (chapter 11's cross-check)"
  pip_log .venv/bin/python -m pip install --disable-pip-version-check --no-deps "megatron-core==0.16.1"
esac

# 4. What was installed is what was asked for.
.venv/bin/python scripts/install_torch.py verify
.venv/bin/python -c "import graders"
step "ready: source .venv/bin/activate, then pytest exercises/ch2 (or .venv/bin/pytest exercises/ch2)"
