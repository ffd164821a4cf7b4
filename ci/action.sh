#!/usr/bin/env bash
# The steps of the faithprobe GitHub Action (action.yml): gate a pull request on faithprobe's paired
# comparison and keep one sticky comment on it.
#
# 1. ci/pre-merge.sh runs the checker as configured on the base commit (in a git worktree) and on
#    the head, on the same suites, with the verdict cache at .faithprobe/cache.sqlite (which the
#    action restores and saves), and compares the two runs;
# 2. the Markdown summary becomes one comment on the pull request, marked so that the next run
#    updates it instead of adding another (GitHub's REST API: list, then PATCH or POST);
# 3. the records, the JUnit reports and the summary are left in $FAITHPROBE_OUT for the upload
#    step; `exit-code` and `comment-url` go to $GITHUB_OUTPUT, the summary to $GITHUB_STEP_SUMMARY.
# It exits with compare's code (0 pass, 1 the gate failed, 2 bad input, 3 no verdict or a checker
# could not score cases), after the comment is posted.
#
# Inputs, as the action passes them (environment):
#   FAITHPROBE_CHECKER   the checker to gate (required)
#   FAITHPROBE_SUITES    suites, space-separated globs (default: suites/*.yaml)
#   FAITHPROBE_BASE_REF  the base commit (default: origin/$GITHUB_BASE_REF)
#   FAITHPROBE_COMPARE_ARGS, FAITHPROBE  passed on to ci/pre-merge.sh
#   FAITHPROBE_OUT       where the outputs go (default: faithprobe-out)
#   FAITHPROBE_COMMENT   "false" to post no comment
#   GITHUB_TOKEN, GITHUB_API_URL, GITHUB_REPOSITORY, GITHUB_EVENT_PATH  as on a GitHub runner
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
checker=${FAITHPROBE_CHECKER:?action: set the checker input (FAITHPROBE_CHECKER)}
base_ref=${FAITHPROBE_BASE_REF:-origin/${GITHUB_BASE_REF:?action: not a pull request (no GITHUB_BASE_REF); set base-ref}}
out=${FAITHPROBE_OUT:-faithprobe-out}
mkdir -p "$out"
out=$(cd "$out" && pwd)
read -r -a globs <<< "${FAITHPROBE_SUITES:-suites/*.yaml}"
suites=()
for g in "${globs[@]}"; do
  # shellcheck disable=SC2206 # the globs are meant to expand here
  matched=($g)
  [ -e "${matched[0]}" ] || { echo "action: no suite matches $g" >&2; exit 2; }
  suites+=("${matched[@]}")
done

top=$(git rev-parse --show-toplevel)
status=0
# pre-merge.sh reads the suites relative to the repository's top and writes its two reports there
rm -f "$top/faithprobe-compare.md" "$top/faithprobe-compare.xml"
FAITHPROBE_CACHE="${FAITHPROBE_CACHE:-$top/.faithprobe/cache.sqlite}" FAITHPROBE_KEEP="$out" \
  bash "$here/pre-merge.sh" "$checker" "$base_ref" "${suites[@]}" || status=$?
for f in faithprobe-compare.md faithprobe-compare.xml; do
  [ ! -e "$top/$f" ] || mv "$top/$f" "$out/$f"
done
echo "action: compare exited $status"
md="$out/faithprobe-compare.md"
if [ ! -s "$md" ]; then
  printf '### faithprobe\n\nThe comparison did not run (exit %s); the job log says why.\n' "$status" > "$md"
fi
[ -z "${GITHUB_STEP_SUMMARY:-}" ] || cat "$md" >> "$GITHUB_STEP_SUMMARY"
[ -z "${GITHUB_OUTPUT:-}" ] || echo "exit-code=$status" >> "$GITHUB_OUTPUT"

if [ "${FAITHPROBE_COMMENT:-true}" != "false" ]; then
  python3 "$here/action_comment.py" "$md" || { echo "action: the pull-request comment could not be posted" >&2; [ "$status" != 0 ] || status=1; }
fi
exit "$status"
