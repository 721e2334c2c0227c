#!/usr/bin/env bash
# The kit on another Python and another torch of the supported range (issue 48):
#
#   bash bench/compat.sh PYTHON TORCH      e.g. bash bench/compat.sh 3.12 2.15.0
#
# PYTHON is an interpreter (python3.12, /usr/bin/python3) or a version pyenv has (3.12 takes the
# newest 3.12.x under `pyenv root`); TORCH is a release (2.15.0) or a series (2.15: its newest).
# In a fresh virtual environment under $DTLAB_COMPAT_DIR (default /tmp/dtlab-compat/pyX-torchY):
#   1. torch from pip's indexes (pip's own configuration and PIP_* variables apply: PIP_FIND_LINKS
#      reuses wheels downloaded before; where there is no CPU wheel, the CUDA build, which runs on
#      the CPU here);
#   2. the kit's wheel, built from this checkout, with the dev extra, as a teacher installs it;
#   3. the graders tier on the solutions (tests exercises hidden, -m "graders and not (...)"),
#      run in the copy of the checkout the wheel was built from, its graders first on the path
#      (so that editing the checkout meanwhile changes nothing);
#   4. a workspace from the wheel alone: `dtlab init`, `dtlab progress` (every stub "not started"),
#      then chapter 7's solutions copied in and graded by pytest (full marks).
# Every step runs; each prints its wall time; the exit status says whether all passed. The log of
# each step is kept in the work folder. Steps: DTLAB_COMPAT_STEPS="torch kit graders workspace".
set -uo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
if [ $# -ne 2 ]; then
  echo "usage: bash bench/compat.sh PYTHON TORCH   (e.g. 3.12 2.15.0)" >&2
  exit 2
fi
WANT_PY=$1 WANT_TORCH=$2
STEPS=${DTLAB_COMPAT_STEPS:-torch kit graders workspace}
status=0
step() { printf '\n==> %s\n' "$*"; }
timed() {  # timed NAME COMMAND...: runs it, its output to NAME.log, prints its tail and wall time
  local start=$SECONDS code
  "${@:2}" >"$WORK/$1.log" 2>&1
  code=$?
  tail -n "${DTLAB_COMPAT_TAIL:-15}" "$WORK/$1.log"
  [ "$code" -eq 0 ] || { echo "FAILED (exit $code): ${*:2}"; status=1; }
  echo "    wall: $((SECONDS - start)) s (log: $WORK/$1.log)"
  return "$code"
}
wants() { case " $STEPS " in *" $1 "*) return 0 ;; esac; return 1; }

python_for() {  # the interpreter for a version pyenv has, or the command itself
  if command -v "$1" >/dev/null 2>&1; then
    command -v "$1"
    return
  fi
  local root found
  root=$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")
  found=$(find "$root/versions" -maxdepth 1 -name "$1*" 2>/dev/null | sort -V | tail -n 1)
  [ -n "$found" ] && [ -x "$found/bin/python$1" ] && echo "$found/bin/python$1" && return
  [ -n "$found" ] && [ -x "$found/bin/python3" ] && echo "$found/bin/python3" && return
  return 1
}
PY=$(python_for "$WANT_PY") || {
  echo "compat: no Python '$WANT_PY' here (a command, or a version under pyenv root)" >&2
  exit 2
}
case $WANT_TORCH in
*.*.*) TORCH_REQ="torch==$WANT_TORCH" ;;
*) TORCH_REQ="torch==$WANT_TORCH.*" ;;
esac
PY_VERSION=$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
WORK=${DTLAB_COMPAT_DIR:-/tmp/dtlab-compat/py$PY_VERSION-torch$WANT_TORCH}
VENV=$WORK/venv
mkdir -p "$WORK"
echo "compat: Python $PY_VERSION ($PY), $TORCH_REQ, in $WORK"

if wants torch; then
  step "1. a fresh venv and $TORCH_REQ"
  rm -rf "$VENV"
  timed venv "$PY" -m venv "$VENV" || exit 1
  timed torch "$VENV/bin/python" -m pip install --disable-pip-version-check --progress-bar off "$TORCH_REQ" ||
    exit 1
fi
VPY=$VENV/bin/python
"$VPY" -c 'import sys, torch; print("    python", sys.version.split()[0], "| torch", torch.__version__,
  "| cuda", torch.version.cuda, "| gloo", torch.distributed.is_gloo_available())' || exit 1

if wants kit; then
  step "2. the kit's wheel, built from this checkout, with the dev extra"
  rm -rf "$WORK/source" "$WORK/dist"
  mkdir -p "$WORK/source"
  # the checkout's files as they are now (committed or not), without its .venv, caches or builds
  git ls-files -z --cached --others --exclude-standard | tar --null -T - -c | tar -x -C "$WORK/source"
  timed wheel "$VPY" -m pip wheel --disable-pip-version-check --no-deps -w "$WORK/dist" "$WORK/source"
  wheel=$(find "$WORK/dist" -name 'dtlab-*.whl' | head -n 1)
  # the kit's requirements must accept this torch: pip keeps it (a change is a failure below)
  before=$("$VPY" -c 'import torch; print(torch.__version__)')
  timed kit "$VPY" -m pip install --disable-pip-version-check --progress-bar off "${wheel}[dev]"
  # the same version number as a wheel installed by an earlier run: this build replaces it
  timed kit-again "$VPY" -m pip install --disable-pip-version-check --force-reinstall --no-deps "$wheel"
  # Megatron-Core without its dependencies, as scripts/setup.sh: chapter 11's cross-check
  timed megatron "$VPY" -m pip install --disable-pip-version-check --no-deps "megatron-core==0.16.1"
  after=$("$VPY" -c 'import torch; print(torch.__version__)')
  [ "$before" = "$after" ] || { echo "FAILED: installing the kit replaced torch $before by $after"; status=1; }
fi

SOURCE=$WORK/source
if wants graders; then
  step "3. the graders tier on the solutions"
  # the copy's graders (its tests and solutions too), on this venv's torch
  cd "$SOURCE" || exit 1
  PYTHONPATH="$SOURCE" timed graders "$VPY" -m pytest --impl solutions --hypothesis-profile ci \
    --dtlab-deadline 5 -q -p no:cacheprovider -rfE tests exercises hidden \
    -m "graders and not (many_submissions or slow)"
  cd "$REPO" || exit 1
fi

if wants workspace; then
  step "4. a workspace from the wheel: dtlab init, every stub not started, chapter 7 graded"
  rm -rf "$WORK/ws"
  # shellcheck disable=SC2317  # run through timed
  workspace() (  # a subshell: its first failure ends it, and timed reports that
    set -e
    cd "$WORK"
    "$VENV/bin/dtlab" init ws
    cd ws
    "$VENV/bin/dtlab" progress >/dev/null
    "$VPY" - <<'EOF'
import json
state = json.load(open(".dtlab/progress.json"))
marks = {m["status"] for record in state["chapters"].values() for m in record["exercises"].values()}
assert marks == {"not started"}, marks
print("every exercise of", len(state["chapters"]), "chapters: not started")
EOF
    cp "$SOURCE"/solutions/ch7/*.py exercises/ch7/
    "$VPY" -m pytest exercises/ch7 -q -p no:cacheprovider --hypothesis-profile=ci --dtlab-report="$WORK/ch7.json"
    "$VPY" - "$WORK/ch7.json" <<'EOF'
import json, sys
book = json.load(open(sys.argv[1]))
rows = book["exercises"]
assert rows and all(r["points"] == r["max_points"] > 0 for r in rows), rows
print("chapter 7:", len(rows), "exercises, full marks")
EOF
  )
  timed workspace workspace
fi
echo
[ "$status" -eq 0 ] && echo "compat: Python $PY_VERSION, $TORCH_REQ: every step passed" ||
  echo "compat: Python $PY_VERSION, $TORCH_REQ: a step failed (logs in $WORK)"
exit "$status"
