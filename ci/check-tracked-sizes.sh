#!/usr/bin/env bash
# Fails when a tracked file is over 1 MB and not on the allow-list below: downloads and build
# outputs belong in target/ or a temp folder, never in the repository (twelve unrelated Python
# wheels, 78 MB, were once committed by mistake). Add a file here only on purpose, with the reason.
set -euo pipefail
cd "$(dirname "$0")/.."
limit=$((1024 * 1024))
allow=(
  # (none yet)
)
bad=0
while IFS= read -r -d '' f; do
  [ -f "$f" ] || continue
  size=$(stat -c %s "$f")
  if [ "$size" -gt "$limit" ]; then
    allowed=0
    for a in "${allow[@]}"; do [ "$a" = "$f" ] && allowed=1; done
    if [ "$allowed" = 0 ]; then
      echo "check-tracked-sizes: $f is $size bytes (over 1 MB) and not on the allow-list in ci/check-tracked-sizes.sh; remove it from git or allow it there with a reason" >&2
      bad=1
    fi
  fi
done < <(git ls-files -z)
exit "$bad"
