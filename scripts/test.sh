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
# All three run as three lanes of pytest processes side by side on the course machine's two cores:
# a third lane keeps the processor busy while another waits (a deadline, a subprocess starting).
# Each lane is an ordinary pytest session (or a few, one after the other) with its own worker
# worlds, and the lanes take about as long as each other (docs/measured.md); other arguments go to
# every session. Outputs are shown one after the other, and the script fails if any fails.
# (Background jobs of a script start with SIGINT ignored: what must answer Ctrl-C, like
# `dtlab watch`, installs its own handler.)
set -euo pipefail
cd "$(dirname "$0")/.."
PYTEST=(.venv/bin/python -m pytest --impl solutions --hypothesis-profile ci --dtlab-deadline 5 -q)
HEAVY="many_submissions or slow"
FAST=(tests -m "not (graders or $HEAVY)")
GRADERS=(tests exercises hidden -m "graders and not ($HEAVY)")
HEAVY_TIER=(tests -m "$HEAVY")
#: the lanes, each about as long as the others: the submissions graded by the hundred (mutants,
#: red team), then the heavy tier's torchrun jobs; the rest of the heavy tier, then the coverage of
#: the strategies' draws (a graders-tier file); the fast tier, then the rest of the graders tier
MANY=(tests/chapters/test_mutants.py tests/chapters/test_cheats.py)
TORCHRUN=tests/world/test_torchrun_mode.py
COVERAGE=tests/chapters/test_coverage.py

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
lane() { # lane NAME COMMAND...: one session, its output kept in $logs/NAME.log
	local name=$1 && shift
	"$@" >"$logs/$name.log" 2>&1
}
{
	lane many "${PYTEST[@]}" "${MANY[@]}" -m "$HEAVY" "$@" && a=0 || a=$?
	lane torchrun "${PYTEST[@]}" "$TORCHRUN" -m "$HEAVY" "$@" && b=0 || b=$?
	exit $((a || b))
} &
first=$!
{
	lane heavy "${PYTEST[@]}" "${HEAVY_TIER[@]}" --ignore "${MANY[0]}" --ignore "${MANY[1]}" --ignore "$TORCHRUN" "$@" && a=0 || a=$?
	lane coverage "${PYTEST[@]}" "$COVERAGE" "$@" && b=0 || b=$?
	exit $((a || b))
} &
second=$!
{
	lane fast "${PYTEST[@]}" "${FAST[@]}" "$@" && a=0 || a=$?
	lane graders "${PYTEST[@]}" "${GRADERS[@]}" --ignore "$COVERAGE" "$@" && b=0 || b=$?
	exit $((a || b))
} &
third=$!
# the sessions ignore SIGINT (background jobs of a script do): a Ctrl-C here stops them
trap 'kill "$first" "$second" "$third" 2>/dev/null; exit 130' INT TERM
status=0
for job in "$first" "$second" "$third"; do
	wait "$job" || status=$?
done
show() { # show NAME TITLE
	echo "==> $2"
	cat "$logs/$1.log"
}
show many "mutants and red team (tests -m '$HEAVY': ${MANY[*]})"
show torchrun "the heavy tier's torchrun jobs ($TORCHRUN)"
show heavy "the rest of the heavy tier: batches, copies of the kit, nbgrader, Classroom (-m '$HEAVY')"
show coverage "the strategies' coverage ($COVERAGE)"
show fast "the fast tier: the kit's own tests without worker worlds (tests -m 'not (graders or $HEAVY)')"
show graders "the graders tier: every chapter's graders, and the kit's tests with worlds (-m 'graders and not ($HEAVY)')"
exit "$status"
