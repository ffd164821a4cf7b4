#!/usr/bin/env bash
# Builds the faithprobe wheel (maturin, bindings = "bin"), installs it with its `onnx` extra into a
# fresh virtual environment under target/, and runs `faithprobe run` and `faithprobe doctor` from
# there; doctor must find the ONNX Runtime of that same environment, and the judge runs from an
# empty folder (its prompt compiled in) against tests/fixtures/judge_server.py. Needs target/venv from
# ci/setup.sh (maturin is in ci/requirements.txt).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x "$PWD/target/venv/bin/maturin" ] || { echo "check-wheel: run bash ci/setup.sh first (maturin)" >&2; exit 2; }
rm -rf target/wheels target/wheel-venv
"$PWD/target/venv/bin/maturin" build --release --locked --quiet --out target/wheels --compatibility linux
wheel=$(ls target/wheels/faithprobe-*.whl)
echo "check-wheel: built $wheel"
# the wheel carries the licence: LICENSE, byte for byte, in its .dist-info and named in METADATA
python3 - "$wheel" <<'PY' || { echo "check-wheel: the wheel does not carry LICENSE in its .dist-info (pyproject.toml, [project] license)" >&2; exit 1; }
import sys, zipfile
wheel = zipfile.ZipFile(sys.argv[1])
names = wheel.namelist()
found = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
meta = next(n for n in names if n.endswith(".dist-info/METADATA"))
assert found, names
assert wheel.read(found[0]) == open("LICENSE", "rb").read(), "LICENSE differs"
assert "License-File: LICENSE" in wheel.read(meta).decode().splitlines()
PY
echo "check-wheel: the wheel carries LICENSE"
python3 -m venv target/wheel-venv
target/wheel-venv/bin/python -m pip install --quiet --disable-pip-version-check "${wheel}[onnx]"
fg="$PWD/target/wheel-venv/bin/faithprobe"
# release builds are stripped: the installed binary carries no debug information
size=$(stat -c %s "$fg")
echo "check-wheel: the installed binary is $((size / 1024 / 1024)) MB"
[ "$size" -lt $((40 * 1024 * 1024)) ] || { echo "check-wheel: the installed binary is $size bytes; is the release profile still stripped?" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# a clean environment: no VIRTUAL_ENV, no ORT_DYLIB_PATH, a PATH without the venvs
(cd "$work" && env -i HOME="$HOME" PATH=/usr/bin:/bin "$fg" run "$OLDPWD/suites/larkspur.yaml" >run.txt)
grep -q "24/29" "$work/run.txt" || { echo "check-wheel: unexpected run output:" >&2; cat "$work/run.txt" >&2; exit 1; }
(cd "$work" && env -i HOME="$HOME" PATH=/usr/bin:/bin "$fg" doctor >doctor.txt) || true
if ! grep -q "^onnx runtime: $PWD/target/wheel-venv/lib/python[0-9.]*/site-packages/onnxruntime/capi/libonnxruntime" "$work/doctor.txt"; then
  echo "check-wheel: doctor did not find the wheel environment's ONNX Runtime:" >&2
  cat "$work/doctor.txt" >&2
  exit 1
fi
grep -q "^all good" "$work/doctor.txt" || { cat "$work/doctor.txt" >&2; exit 1; }
# the judge from an empty folder: its prompt comes from the binary, not from a prompts/ folder
judge=$(mktemp -d)
python3 tests/fixtures/judge_server.py "$work/port" &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$work" "$judge"' EXIT
for _ in $(seq 50); do [ -s "$work/port" ] && break; sleep 0.1; done
[ -s "$work/port" ] || { echo "check-wheel: the scripted judge server did not start" >&2; exit 1; }
printf 'checkers:\n  judge:\n    kind: judge\n    base_url: http://127.0.0.1:%s/v1\n    model: stand-in\n    prompt: prompts/judge-v1.md\n' "$(cat "$work/port")" > "$judge/faithprobe.yaml"
(cd "$judge" && env -i HOME="$HOME" PATH=/usr/bin:/bin "$fg" run "$OLDPWD/suites/larkspur.yaml" --checker judge --no-cache >judge.txt 2>judge.err) \
  || { echo "check-wheel: the installed judge failed from an empty folder:" >&2; cat "$judge/judge.err" >&2; exit 1; }
calls=$(wc -l < "$work/port.requests")
grep -q "^  all faults " "$judge/judge.txt" || { cat "$judge/judge.txt" >&2; exit 1; }
[ "$calls" -ge 1 ] || { echo "check-wheel: the judge made no call" >&2; exit 1; }
echo "check-wheel: the installed wheel's judge ran Larkspur from an empty folder with its built-in prompt ($calls calls)"
echo "check-wheel: the installed wheel runs Larkspur and its doctor finds $(grep '^onnx runtime:' "$work/doctor.txt" | cut -d' ' -f3)"
