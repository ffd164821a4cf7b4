#!/usr/bin/env bash
# Pre-merge check: re-run the shipped suites with the default checker and fail (exit 1) when any
# verdict differs from the committed snapshots in snapshots/. Review the printed diff, then run
# `faithprobe snapshot accept` and commit the updated .snap files if the change is intended.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run --quiet --release -- run suites/*.yaml --snapshot snapshots --check
