#!/usr/bin/env bash
# Runs this repository's pre-commit hooks (.pre-commit-hooks.yaml) through pre-commit's own
# `try-repo`, as a user's `repo:` entry would: pre-commit (ci/requirements-pre-commit.txt, into
# target/venv-precommit) installs the committed HEAD into a hook environment under
# target/pre-commit-home, building the wheel from source (cargo reuses target/), then runs each
# hook in a scratch git repository holding a suite with unreviewed mutants. Checks that the quick
# run and the snapshot hook pass and the reviews hook fails, naming the pending mutants.
# python/tests/test_pre_commit.py tests the same entries faster, without pre-commit.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
venv=target/venv-precommit
if [ ! -x "$venv/bin/pre-commit" ] || ! cmp -s ci/requirements-pre-commit.txt "$venv/.requirements"; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r ci/requirements-pre-commit.txt \
    || { echo "check-pre-commit: could not install pre-commit from PyPI (ci/requirements-pre-commit.txt)" >&2; exit 2; }
  cp ci/requirements-pre-commit.txt "$venv/.requirements"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/suites"
cat > "$work/suites/refunds.yaml" <<'YAML'
suite: refunds-policy
description: Refund policy passages from a support bot's retrieval index, with claims a person verified.
contexts:
  - id: refund-window
    question: Can I still get my money back for an order from last month?
    passages:
      - id: policy-2.1
        text: >-
          Orders can be refunded within 30 days of delivery. Refunds are issued to the original
          payment method within 5 business days.
    faithful:
      - {id: r01, claim: "Orders can be refunded within 30 days of delivery."}
      - {id: r02, claim: "Refunds are issued to the original payment method."}
YAML
printf 'name: ci\non: [push]\n' > "$work/ci.yml"
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_SYSTEM=/dev/null
export PRE_COMMIT_HOME="$repo/target/pre-commit-home" CARGO_TARGET_DIR="$repo/target"
(cd "$work" && git init -q -b main && git add . &&
  env -u FAITHPROBE_CONFIG -u FAITHPROBE_BIN "$repo/$venv/bin/pre-commit" try-repo "$repo" --all-files > "$work/out.txt" 2>&1) && rc=0 || rc=$?
cat "$work/out.txt"
fail() { echo "check-pre-commit: $1" >&2; exit 1; }
[ "$rc" = 1 ] || fail "pre-commit exited $rc, expected 1 (the reviews hook fails)"
grep -q '^faithprobe quick run of changed suites\.*Passed$' "$work/out.txt" || fail "the quick run did not pass"
grep -q '^faithprobe snapshots pending\.*Passed$' "$work/out.txt" || fail "the snapshots hook did not pass"
grep -q '^faithprobe reviews pending\.*Failed$' "$work/out.txt" || fail "the reviews hook did not fail"
grep -q '7 of 7 mutants and rewrites unreviewed' "$work/out.txt" || fail "the reviews hook did not name the pending mutants"
echo "check-pre-commit: pre-commit try-repo ran the three hooks as expected"
