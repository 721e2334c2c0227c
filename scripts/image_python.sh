#!/usr/bin/env bash
# Print a Python the kit runs on (3.11, 3.12 or 3.13) that can make a virtual environment,
# installing one first if the machine has none: for images built as root, such as Gradescope's
# (Ubuntu 22.04 has python3.10 and a python3.11 package; Ubuntu 24.04 has python3.12 and no
# python3.11 package). The image's own `python3` is never replaced (Gradescope's harness runs it).
#
#   PY=$(bash scripts/image_python.sh)
#
# In order: an interpreter already there (python3, then python3.13, python3.12, python3.11), its
# venv module added by apt if Debian left it out; a python3.X package of the image's apt sources;
# the deadsnakes PPA (Ubuntu); `uv python install`. Steps go to stderr, the interpreter to stdout.
set -euo pipefail
MINORS=(13 12 11)
OS_RELEASE=${OS_RELEASE:-/etc/os-release}
say() { echo "==> $*" >&2; }
quiet() { "$@" >/dev/null 2>&1; }

in_range() { quiet "$1" -c 'import sys; sys.exit(not (3, 11) <= sys.version_info[:2] < (3, 14))'; }
makes_venvs() { quiet "$1" -c 'import ensurepip, venv'; }
minor_of() { "$1" -c 'import sys; print(sys.version_info[1])'; }

apt_updated=
apt_install() {
  [ -n "$apt_updated" ] || { quiet apt-get update && apt_updated=1; } || return 1
  DEBIAN_FRONTEND=noninteractive quiet apt-get install -y -q "$@"
}
apt_has() { apt-cache policy "$1" 2>/dev/null | grep -q 'Candidate: [0-9]'; }

usable() {  # usable CMD: prints its path if it is in the range and makes venvs (adding python3.X-venv)
  local path minor
  path=$(command -v "$1" 2>/dev/null) || return 1
  in_range "$path" || return 1
  if ! makes_venvs "$path"; then
    minor=$(minor_of "$path")
    command -v apt-get >/dev/null || return 1
    say "adding the venv module of $path (python3.$minor-venv)"
    apt_install "python3.$minor-venv" && makes_venvs "$path" || return 1
  fi
  echo "$path"
}

for candidate in python3 "${MINORS[@]/#/python3.}"; do
  usable "$candidate" && exit 0
done

if command -v apt-get >/dev/null; then
  [ -n "$apt_updated" ] || { quiet apt-get update && apt_updated=1; } || true
  for minor in "${MINORS[@]}"; do
    if apt_has "python3.$minor" && apt_has "python3.$minor-venv"; then
      say "installing Python 3.$minor from the image's apt sources"
      apt_install "python3.$minor" "python3.$minor-venv" && usable "python3.$minor" && exit 0
    fi
  done
  if grep -qi '^ID=ubuntu' "$OS_RELEASE" 2>/dev/null; then
    say "installing Python 3.12 from the deadsnakes PPA"
    if apt_install software-properties-common && quiet add-apt-repository -y ppa:deadsnakes/ppa; then
      apt_updated=
      apt_install python3.12 python3.12-venv && usable python3.12 && exit 0
    fi
  fi
fi

if command -v uv >/dev/null || { command -v python3 >/dev/null && quiet python3 -m pip install uv; }; then
  say "installing Python 3.12 with uv"
  UV=$(command -v uv || echo "python3 -m uv")
  # shellcheck disable=SC2086  # $UV is a command of one or three words
  if quiet $UV python install 3.12; then
    # shellcheck disable=SC2086
    found=$($UV python find 3.12 2>/dev/null) && usable "$found" && exit 0
  fi
fi

echo "dtlab: no Python 3.11 to 3.13 here, and none could be installed (apt, deadsnakes, uv)." >&2
exit 1
