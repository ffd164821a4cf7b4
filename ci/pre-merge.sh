#!/usr/bin/env bash
# Pre-merge gate for a checker or prompt change: runs the named checker as configured on the base
# branch and as configured in the working tree, on the working tree's suites, and compares the two
# case by case (exact McNemar per fault type and on false alarms; newly missed faults listed).
#
#   ci/pre-merge.sh CHECKER [BASE_REF] [SUITE...]
#
# BASE_REF defaults to origin/main; SUITE defaults to suites/*.yaml. The base configuration is read
# from a temporary git worktree of BASE_REF, so its relative paths (models, prompts) resolve to the
# base versions. Writes faithgate-compare.md (a pull-request comment) and faithgate-compare.xml
# (JUnit) in the working directory; exits with compare's code: 0 pass, 1 the gate failed,
# 2 bad input, 3 a checker could not score cases.
# The binary: $FAITHGATE if set, else `faithgate` on PATH, else one built with cargo from the
# faithgate source this script sits in (it says which it uses).
#
# This script is self-contained: copy it into your own repository (e.g. as ci/pre-merge.sh) and it
# works there with a faithgate on PATH.
set -euo pipefail
checker=${1:?usage: ci/pre-merge.sh CHECKER [BASE_REF] [SUITE...]}
base_ref=${2:-origin/main}
shift $(( $# >= 2 ? 2 : 1 ))
here=$(cd "$(dirname "$0")" && pwd)
if [ -n "${FAITHGATE:-}" ]; then
  fg=$FAITHGATE
  echo "pre-merge: using FAITHGATE=$fg" >&2
elif command -v faithgate >/dev/null 2>&1; then
  fg=$(command -v faithgate)
  echo "pre-merge: using $fg (on PATH)" >&2
elif [ -f "$here/../Cargo.toml" ] && grep -q '^name = "faithgate"' "$here/../Cargo.toml"; then
  echo "pre-merge: faithgate is not on PATH; building it with cargo from $here/.." >&2
  cargo build --release --quiet --manifest-path "$here/../Cargo.toml"
  fg="$(cd "$here/.." && pwd)/target/release/faithgate"
else
  echo "pre-merge: faithgate not found: set FAITHGATE, put it on PATH (pip install faithgate, or cargo install --path .), or run this script from a faithgate checkout" >&2
  exit 2
fi
top=$(git rev-parse --show-toplevel)
cd "$top"
if [ $# -gt 0 ]; then suites=("$@"); else suites=(suites/*.yaml); fi
abs=()
for s in "${suites[@]}"; do abs+=("$top/$s"); done

work=$(mktemp -d)
cleanup() { git worktree remove --force "$work/base" >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT
git worktree add --detach --quiet "$work/base" "$base_ref"

(cd "$work/base" && "$fg" run "${abs[@]}" --checker "$checker" --record "$work/base.json" --format junit >/dev/null)
"$fg" run "${abs[@]}" --checker "$checker" --record "$work/candidate.json" --format junit >/dev/null

status=0
"$fg" compare "$work/base.json" "$work/candidate.json" --format markdown > faithgate-compare.md || true
"$fg" compare "$work/base.json" "$work/candidate.json" --format junit > faithgate-compare.xml || true
"$fg" compare "$work/base.json" "$work/candidate.json" || status=$?
exit "$status"
