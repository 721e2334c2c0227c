#!/usr/bin/env bash
# The kit's test command: its own tests, then every chapter's graders (public and hidden) against the
# reference solutions.
#
# Two pytest processes run side by side, one per core of the course machine: the suites that grade
# many submissions (mutants, red team, batch grading, nbgrader, the samples), and everything else
# (coverage included: the two then take about as long). Each is an
# ordinary pytest session with its own worker worlds; arguments go to both. Their outputs are shown
# one after the other, and the script fails if either fails. (Background jobs of a script start with
# SIGINT ignored: what must answer Ctrl-C, like `dtlab watch`, installs its own handler.)
set -euo pipefail
cd "$(dirname "$0")/.."
PYTEST=(.venv/bin/python -m pytest --impl solutions --hypothesis-profile ci --dtlab-deadline 5 -q)
VARIANTS=(
  tests/test_mutants.py tests/test_cheats.py tests/test_batch.py tests/test_nbgrader.py
  tests/test_samples.py tests/test_adversarial.py tests/test_misconceptions.py tests/test_torchrun_mode.py
)
IGNORED=()
for file in "${VARIANTS[@]}"; do IGNORED+=("--ignore=$file"); done

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
"${PYTEST[@]}" "${VARIANTS[@]}" "$@" >"$logs/variants.log" 2>&1 &
variants=$!
"${PYTEST[@]}" tests exercises hidden "${IGNORED[@]}" "$@" >"$logs/rest.log" 2>&1 &
rest=$!
# the sessions ignore SIGINT (background jobs of a script do): a Ctrl-C here stops them
trap 'kill "$variants" "$rest" 2>/dev/null; exit 130' INT TERM
status=0
wait "$variants" || status=$?
wait "$rest" || status=$?
echo "==> the suites that grade many submissions (${VARIANTS[*]})"
cat "$logs/variants.log"
echo "==> the kit's other tests and every chapter's graders (tests exercises hidden)"
cat "$logs/rest.log"
exit "$status"
