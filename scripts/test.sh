#!/usr/bin/env bash
# The kit's test command, in tiers (markers in pyproject.toml):
#
#   bash scripts/test.sh --fast      the kit's own tests that start no worker world and copy nothing
#                                    (what a bare `pytest` runs): about a minute, for every save
#   bash scripts/test.sh --graders   every chapter's public and hidden graders against the reference
#                                    solutions, and the kit's tests that need worker worlds or commands
#   bash scripts/test.sh --heavy     mutants, red team, batches, nbgrader, samples, copies of the kit
#   bash scripts/test.sh             all three (CI, and the README's test command)
#
# All three run as two lanes of pytest processes side by side, one per core of the course machine:
# the heavy tier but its torchrun jobs and Classroom steps; and the fast tier, the graders tier,
# then those (the two lanes then take about as long: docs/measured.md). Each is an ordinary
# pytest session with its own worker worlds; other arguments go to every session. Outputs are
# shown one after the other, and the script fails if any fails.
# (Background jobs of a script start with SIGINT ignored: what must answer Ctrl-C, like
# `dtlab watch`, installs its own handler.)
set -euo pipefail
cd "$(dirname "$0")/.."
# The kit's modules compiled once, and pytest's rewritten test modules and plugins cached, for
# the hundreds of Python processes the tests start (where PYTHONDONTWRITEBYTECODE is set, each
# would compile them again; docs/measured.md). Graded code is never compiled ahead: the worker
# worlds import it without writing bytecode.
unset PYTHONDONTWRITEBYTECODE
.venv/bin/python -m compileall -q graders tests bench >/dev/null
PYTEST=(.venv/bin/python -m pytest --impl solutions --hypothesis-profile ci --dtlab-deadline 5 -q)
HEAVY="many_submissions or slow"
FAST=(tests -m "not (graders or $HEAVY)")
GRADERS=(tests exercises hidden -m "graders and not ($HEAVY)")
HEAVY_TIER=(tests -m "$HEAVY")
#: the heavy tier's suites the second lane takes, to balance the lanes (docs/measured.md)
MOVED=(tests/world/test_torchrun_mode.py tests/grading/test_classroom.py)

tier=all
case "${1:-}" in
--fast | --graders | --heavy | --all) tier=${1#--} && shift ;;
esac
case $tier in
fast) exec "${PYTEST[@]}" "${FAST[@]}" "$@" ;;
graders) exec "${PYTEST[@]}" "${GRADERS[@]}" "$@" ;;
heavy) exec "${PYTEST[@]}" "${HEAVY_TIER[@]}" "$@" ;;
esac

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
"${PYTEST[@]}" "${HEAVY_TIER[@]}" "${MOVED[@]/#/--ignore=}" "$@" >"$logs/heavy.log" 2>&1 &
heavy=$!
{
	"${PYTEST[@]}" "${FAST[@]}" "$@" >"$logs/fast.log" 2>&1 && fast=0 || fast=$?
	"${PYTEST[@]}" "${GRADERS[@]}" "$@" >"$logs/graders.log" 2>&1 && graders=0 || graders=$?
	"${PYTEST[@]}" "${MOVED[@]}" -m "$HEAVY" "$@" >"$logs/moved.log" 2>&1 && moved=0 || moved=$?
	exit $((fast || graders || moved))
} &
lane=$!
# the sessions ignore SIGINT (background jobs of a script do): a Ctrl-C here stops them
trap 'kill "$heavy" "$lane" 2>/dev/null; exit 130' INT TERM
status=0
wait "$heavy" || status=$?
wait "$lane" || status=$?
echo "==> the heavy tier: mutants, red team, batches, copies of the kit (tests -m '$HEAVY', but ${MOVED[*]})"
cat "$logs/heavy.log"
echo "==> the fast tier: the kit's own tests without worker worlds (tests -m 'not (graders or $HEAVY)')"
cat "$logs/fast.log"
echo "==> the graders tier: every chapter's graders, and the kit's tests with worlds (-m 'graders and not ($HEAVY)')"
cat "$logs/graders.log"
echo "==> the heavy tier's torchrun jobs and Classroom steps (${MOVED[*]})"
cat "$logs/moved.log"
exit "$status"
