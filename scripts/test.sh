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
# All three run as seven pytest sessions, at most three at a time on the course machine's two
# cores (a third fills the time one spends waiting: a hang's deadline, a command starting), the
# longest first (docs/measured.md has their times): the heavy tier's batches, nbgrader and copies
# of the kit; the graders tier in two (the coverage with every chapter's graders; the kit's tests
# with worlds); the red team; the mutants; the heavy tier's torchrun jobs and Classroom steps; the
# fast tier. Each is an ordinary pytest session with its own worker worlds; other arguments go to
# every session.
# Outputs are shown one after the other, and the script fails if any fails.
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
#: the heavy tier's suites that run in a session of their own, beside the rest (docs/measured.md)
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

#: the sessions of a whole run (each one's pytest arguments), started the longest first, at most
#: LANES at a time
CHEATS=(tests/chapters/test_cheats.py -m "$HEAVY")
MUTANTS=(tests/chapters/test_mutants.py -m "$HEAVY")
HEAVY_REST=(tests -m "$HEAVY" --ignore=tests/chapters/test_cheats.py --ignore=tests/chapters/test_mutants.py
	"${MOVED[@]/#/--ignore=}")
COVERAGE_AND_CHAPTERS=(tests/chapters/test_coverage.py exercises hidden -m "graders and not ($HEAVY)")
KIT_WITH_WORLDS=(tests -m "graders and not ($HEAVY)" --ignore=tests/chapters/test_coverage.py)
HEAVY_MOVED=("${MOVED[@]}" -m "$HEAVY")
SESSIONS=(heavy_rest coverage_and_chapters kit_with_worlds cheats mutants heavy_moved fast)
LANES=3

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
# the sessions ignore SIGINT (background jobs of a script do): a Ctrl-C here stops them
trap 'kill $(jobs -p) 2>/dev/null; exit 130' INT TERM
session() { # name, then pytest's arguments: the session's output and status in $logs
	local name=$1
	shift
	"${PYTEST[@]}" "$@" >"$logs/$name.log" 2>&1 && echo 0 >"$logs/$name.status" || echo $? >"$logs/$name.status"
}
for name in "${SESSIONS[@]}"; do
	while (($(jobs -rp | wc -l) >= LANES)); do wait -n || true; done
	declare -n arguments=${name^^} # the session's array above
	session "$name" "${arguments[@]}" "$@" &
	unset -n arguments
done
wait
status=0
show() { # name, heading
	echo "==> $2"
	cat "$logs/$1.log"
	[ "$(cat "$logs/$1.status" 2>/dev/null || echo 1)" = 0 ] || status=1
}
show fast "the fast tier: the kit's own tests without worker worlds (tests -m 'not (graders or $HEAVY)')"
show coverage_and_chapters "the graders tier: every chapter's graders and the coverage of their examples"
show kit_with_worlds "the graders tier: the kit's tests with worker worlds or commands"
show cheats "the heavy tier: the red team (tests/chapters/test_cheats.py)"
show mutants "the heavy tier: the mutants (tests/chapters/test_mutants.py)"
show heavy_rest "the heavy tier: batches, nbgrader, copies of the kit, the load test"
show heavy_moved "the heavy tier's torchrun jobs and Classroom steps (${MOVED[*]})"
exit "$status"
