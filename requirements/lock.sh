#!/usr/bin/env bash
# Regenerates the locks CI installs, from pyproject.toml's ranges (every extra, and the build
# backend the editable install needs):
#   requirements/ci.txt      the newest versions the ranges allow today  (.ci/run installs it)
#   requirements/lowest.txt  the lowest versions of the direct dependencies (.ci/range-ends)
# Both hold the hash of every file of every pinned version, for every platform and every Python
# that requires-python allows, so `pip install --require-hashes` works anywhere.
# Run it after changing a range in pyproject.toml, or to move the locked set forward; commit the
# two files with the change. uv (pinned below) resolves; it is installed on first use into
# ${XDG_CACHE_HOME:-~/.cache}/olmcat-lock/.
set -euo pipefail
cd "$(dirname "$0")/.."

uv_version=0.13.9
tools=${XDG_CACHE_HOME:-$HOME/.cache}/olmcat-lock/uv-$uv_version
if [ ! -x "$tools/bin/uv" ]; then
  python3 -m venv "$tools"
  "$tools/bin/pip" install --quiet --disable-pip-version-check "uv==$uv_version"
fi

# The build backend, as [build-system] requires it: CI installs the project with
# --no-build-isolation, so nothing is fetched unlocked.
build_requires=$(python3 -c '
import sys, tomllib
with open("pyproject.toml", "rb") as f:
    print("\n".join(tomllib.load(f)["build-system"]["requires"]))
') || { echo "lock.sh needs Python 3.11 or newer as python3 (tomllib)" >&2; exit 1; }
floor=$(python3 -c '
import re, tomllib
with open("pyproject.toml", "rb") as f:
    print(re.search(r"\d+\.\d+", tomllib.load(f)["project"]["requires-python"])[0])
')

compile() {
  printf '%s\n' "$build_requires" | "$tools/bin/uv" pip compile --quiet pyproject.toml - \
    --all-extras --universal --python-version "$floor" --generate-hashes \
    --custom-compile-command requirements/lock.sh "$@"
}
compile -o requirements/ci.txt
compile --resolution lowest-direct -o requirements/lowest.txt
echo "requirements/ci.txt: $(grep -c '^[a-z]' requirements/ci.txt) packages;" \
  "requirements/lowest.txt: $(grep -c '^[a-z]' requirements/lowest.txt) packages"
