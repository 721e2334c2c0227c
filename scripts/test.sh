#!/usr/bin/env bash
# The kit's test command: its own tests, then every chapter's graders (public and hidden) against the
# reference solutions.
set -euo pipefail
cd "$(dirname "$0")/.."
exec .venv/bin/python -m pytest tests exercises hidden --impl solutions --hypothesis-profile ci --dtlab-deadline 5 -q "$@"
