#!/usr/bin/env bash
# The kit's test command: its own tests, then every chapter's graders (public and hidden) against the
# reference solutions.
#
# Two pytest processes run side by side, one per core of the course machine, chosen by marker
# (pyproject.toml): the suites that grade many submissions or copy the kit (`many_submissions`,
# `slow`: mutants, red team, batch grading, nbgrader, the samples, a new chapter, a new language),
# and everything else (the two then take about as long). Each is an ordinary pytest session with
# its own worker worlds; arguments go to both. Their outputs are shown one after the other, and the
# script fails if either fails. (Background jobs of a script start with SIGINT ignored: what must
# answer Ctrl-C, like `dtlab watch`, installs its own handler.)
set -euo pipefail
cd "$(dirname "$0")/.."
PYTEST=(.venv/bin/python -m pytest --impl solutions --hypothesis-profile ci --dtlab-deadline 5 -q)
HEAVY="many_submissions or slow"

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
"${PYTEST[@]}" tests -m "$HEAVY" "$@" >"$logs/heavy.log" 2>&1 &
heavy=$!
"${PYTEST[@]}" tests exercises hidden -m "not ($HEAVY)" "$@" >"$logs/rest.log" 2>&1 &
rest=$!
# the sessions ignore SIGINT (background jobs of a script do): a Ctrl-C here stops them
trap 'kill "$heavy" "$rest" 2>/dev/null; exit 130' INT TERM
status=0
wait "$heavy" || status=$?
wait "$rest" || status=$?
echo "==> the suites that grade many submissions or copy the kit (-m '$HEAVY')"
cat "$logs/heavy.log"
echo "==> the kit's other tests and every chapter's graders (tests exercises hidden, -m 'not ($HEAVY)')"
cat "$logs/rest.log"
exit "$status"
