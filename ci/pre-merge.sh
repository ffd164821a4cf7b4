#!/usr/bin/env bash
# Pre-merge gate for a checker or prompt change: runs the named checker as configured on the base
# branch and as configured in the working tree, on the working tree's suites, and compares the two
# case by case (exact McNemar per fault type and on false alarms; newly missed faults listed).
#
#   ci/pre-merge.sh CHECKER [BASE_REF] [SUITE...]
#
# BASE_REF defaults to origin/main; SUITE defaults to suites/*.yaml. The base configuration is read
# from a temporary git worktree of BASE_REF, so its relative paths (models, prompts) resolve to the
# base versions. Writes faithprobe-compare.md (a pull-request comment) and faithprobe-compare.xml
# (JUnit) in the working directory; exits with compare's code: 0 pass, 1 the gate failed,
# 2 bad input, 3 a checker could not score cases.
# $FAITHPROBE_COMPARE_ARGS, when set, is passed on to every compare (split on spaces), for
# example "--max-new-false-alarms 0" to add a zero-tolerance rule to the statistical gate.
# The binary: $FAITHPROBE if set, else `faithprobe` on PATH, else one built with cargo from the
# faithprobe source this script sits in (it says which it uses).
# $FAITHPROBE_CACHE, when set, is the verdict cache both runs use (the base run's worktree would
# otherwise start an empty one); $FAITHPROBE_KEEP, when set, is a folder that receives the two run
# records and their JUnit reports (base.json, candidate.json, base.xml, candidate.xml). The GitHub
# Action (action.yml, ci/action.sh) sets both.
#
# This script is self-contained: copy it into your own repository (e.g. as ci/pre-merge.sh) and it
# works there with a faithprobe on PATH.
set -euo pipefail
checker=${1:?usage: ci/pre-merge.sh CHECKER [BASE_REF] [SUITE...]}
base_ref=${2:-origin/main}
shift $(( $# >= 2 ? 2 : 1 ))
here=$(cd "$(dirname "$0")" && pwd)
if [ -n "${FAITHPROBE:-}" ]; then
  fg=$FAITHPROBE
  echo "pre-merge: using FAITHPROBE=$fg" >&2
elif command -v faithprobe >/dev/null 2>&1; then
  fg=$(command -v faithprobe)
  echo "pre-merge: using $fg (on PATH)" >&2
elif [ -f "$here/../Cargo.toml" ] && grep -q '^name = "faithprobe"' "$here/../Cargo.toml"; then
  echo "pre-merge: faithprobe is not on PATH; building it with cargo from $here/.." >&2
  cargo build --release --quiet --manifest-path "$here/../Cargo.toml"
  fg="$(cd "$here/.." && pwd)/target/release/faithprobe"
else
  echo "pre-merge: faithprobe not found: set FAITHPROBE, put it on PATH (pip install faithprobe, or cargo install --path .), or run this script from a faithprobe checkout" >&2
  exit 2
fi
top=$(git rev-parse --show-toplevel)
cd "$top"
if [ $# -gt 0 ]; then suites=("$@"); else suites=(suites/*.yaml); fi
abs=()
for s in "${suites[@]}"; do abs+=("$top/$s"); done

work=$(mktemp -d)
# shellcheck disable=SC2329 # called by the EXIT trap below
cleanup() { git worktree remove --force "$work/base" >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT
git worktree add --detach --quiet "$work/base" "$base_ref"

cache=()
if [ -n "${FAITHPROBE_CACHE:-}" ]; then
  mkdir -p "$(dirname "$FAITHPROBE_CACHE")"
  cache=(--cache "$(cd "$(dirname "$FAITHPROBE_CACHE")" && pwd)/$(basename "$FAITHPROBE_CACHE")")
fi
(cd "$work/base" && "$fg" run "${abs[@]}" --checker "$checker" "${cache[@]}" --record "$work/base.json" --format junit >"$work/base.xml")
"$fg" run "${abs[@]}" --checker "$checker" "${cache[@]}" --record "$work/candidate.json" --format junit >"$work/candidate.xml"
if [ -n "${FAITHPROBE_KEEP:-}" ]; then
  mkdir -p "$FAITHPROBE_KEEP"
  cp "$work/base.json" "$work/candidate.json" "$work/base.xml" "$work/candidate.xml" "$FAITHPROBE_KEEP/"
fi

status=0
read -r -a extra <<< "${FAITHPROBE_COMPARE_ARGS:-}"
"$fg" compare "$work/base.json" "$work/candidate.json" "${extra[@]}" --format markdown > faithprobe-compare.md || true
"$fg" compare "$work/base.json" "$work/candidate.json" "${extra[@]}" --format junit > faithprobe-compare.xml || true
"$fg" compare "$work/base.json" "$work/candidate.json" "${extra[@]}" || status=$?
exit "$status"
