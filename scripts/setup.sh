#!/usr/bin/env bash
# Create .venv with torch and dtlab installed in place. Idempotent.
# The kit runs on Python 3.11, 3.12 and 3.13 and on torch 2.13 to 2.15. PYTHON picks the
# interpreter. Which torch is decided in one place, scripts/install_torch.py: by default the CPU
# build of torch 2.13.0 (DTLAB_TORCH_INDEX, DTLAB_TORCH_FIND_LINKS, DTLAB_ALLOW_CUDA_TORCH); with
# --keep-torch, the torch PYTHON already has, if it is in the range (.venv is then made with
# --system-site-packages, so that it sees PYTHON's packages; nothing is downloaded for torch):
#   bash scripts/setup.sh [--keep-torch]
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
step() { echo "==> $*"; }
case "$*" in
"") keep=() venv_flags=() ;;
--keep-torch) keep=(--keep) venv_flags=(--system-site-packages) ;;
*)
  echo "dtlab setup: usage: bash scripts/setup.sh [--keep-torch] (keep the torch PYTHON has)" >&2
  exit 2
  ;;
esac

# 1. The interpreter first, before anything is created or downloaded.
need_python() {  # need_python INTERPRETER WHAT
  local version
  if ! version=$("$1" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null); then
    echo "dtlab setup: cannot run $2 '$1'. Set PYTHON to a Python 3.11 to 3.13, e.g. PYTHON=python3.11." >&2
    exit 2
  fi
  if ! "$1" -c 'import sys; sys.exit(not (3, 11) <= sys.version_info[:2] < (3, 14))'; then
    echo "dtlab setup: $2 '$1' is Python $version; the kit needs Python 3.11, 3.12 or 3.13." >&2
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
  step "creating .venv ${venv_flags[*]}"
  "$PYTHON" -m venv ${venv_flags[@]+"${venv_flags[@]}"} .venv  # (bash 3.2 and set -u: an empty array)
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
    echo "dtlab setup: the install failed (exit $status); the last lines of $DTLAB_PIP_LOG:" >&2
    tail -n 30 "$DTLAB_PIP_LOG" >&2
  fi
  return "$status"
}

# 2. torch: one of the range already there is kept; else resolved by a dry run first, and a CUDA
# build is installed only with DTLAB_ALLOW_CUDA_TORCH=1.
.venv/bin/python scripts/install_torch.py install ${keep[@]+"${keep[@]}"}

# 3. The kit, in place. DTLAB_EXTRAS adds optional extras: dask (dtlab grade --executor dask),
# nbgrader (dtlab nbgrader).
# The torch now there is pinned for this step: the kit's requirements never replace it.
# uv installs them (seconds; pip's ~40 s where uv cannot be had, or with DTLAB_INSTALLER=pip), from
# the indexes pip is configured with: scripts/install_requirements.py.
step "installing dtlab in place with extras [${DTLAB_EXTRAS:-dev}] (the log: .venv/setup-pip.log)"
.venv/bin/python -c 'from importlib.metadata import version; print("torch==" + version("torch"))' \
  >.venv/torch-pin.txt  # from its metadata: importing torch here would warn that numpy is missing
pip_log .venv/bin/python scripts/install_requirements.py -c .venv/torch-pin.txt -e ".[${DTLAB_EXTRAS:-dev}]"
# Megatron-Core, for the kit's own test that chapter 11's rank grid is its RankGenerator's: without
# its dependencies (its rank groups need only torch), and only where the kit's tests run.
case ",${DTLAB_EXTRAS:-dev}," in *,dev,*)
  step "installing megatron-core==0.16.1 without its dependencies (chapter 11's cross-check)"
  pip_log .venv/bin/python scripts/install_requirements.py --no-deps "megatron-core==0.16.1"
esac

# 4. What was installed is what was asked for.
.venv/bin/python scripts/install_torch.py verify ${keep[@]+"${keep[@]}"}
.venv/bin/python -c "import graders"
step "ready: source .venv/bin/activate, then pytest exercises/ch2 (or .venv/bin/pytest exercises/ch2)"
