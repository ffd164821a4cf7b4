#!/usr/bin/env bash
# Tests the Python package of the wheel (python/faithprobe) against the freshly built wheel: for
# each Python 3.9 or newer on this machine (python3.9 ... python3.14 on PATH or in pyenv, else
# python3), a fresh
# virtual environment target/python-venv-<version> with only the wheel and ci/requirements-python.txt
# (pytest), then python/tests from an empty folder, so the package under test is the installed one
# and no configuration but the tests' own is read. Uses target/wheels from ci/check-wheel.sh when
# it is there, else builds the wheel (needs target/venv from ci/setup.sh: maturin).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
wheel=$(find target/wheels -maxdepth 1 -name "faithprobe-*.whl" 2>/dev/null | head -n 1 || true)
if [ -z "$wheel" ] || [ -n "$(find src python/faithprobe pyproject.toml Cargo.toml -newer "$wheel" -type f -print -quit)" ]; then
  [ -x "$repo/target/venv/bin/maturin" ] || { echo "test-python: run bash ci/setup.sh first (maturin, to build the wheel)" >&2; exit 2; }
  rm -rf target/wheels
  "$repo/target/venv/bin/maturin" build --release --locked --quiet --out target/wheels --compatibility linux
  wheel=$(ls target/wheels/faithprobe-*.whl)
fi
echo "test-python: testing $wheel"
# the wheel carries the package, its typing marker and the plugin's entry point, and not its tests
python3 - "$wheel" <<'PY' || { echo "test-python: the wheel does not carry the Python package as it should" >&2; exit 1; }
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
for need in ("faithprobe/__init__.py", "faithprobe/py.typed", "faithprobe/pytest_plugin.py", "faithprobe/serve.py"):
    assert need in names, (need, names)
assert not [n for n in names if "tests/" in n], names
ep = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
text = zipfile.ZipFile(sys.argv[1]).read(ep).decode()
assert "[pytest11]" in text and "faithprobe=faithprobe.pytest_plugin" in text.replace(" ", ""), text
PY
# every Python 3.9 or newer that runs: python3.X on PATH, else pyenv's (its shims on PATH answer
# for versions that are installed but not selected, and fail)
pythons=()
for v in 9 10 11 12 13 14; do
  if "python3.$v" -c "" >/dev/null 2>&1; then
    pythons+=("$(command -v "python3.$v")")
    continue
  fi
  for py in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3."$v".*/bin/python3."$v"; do
    if [ -x "$py" ] && "$py" -c "" >/dev/null 2>&1; then pythons+=("$py"); break; fi
  done
done
[ "${#pythons[@]}" -gt 0 ] || pythons=(python3)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for py in "${pythons[@]}"; do
  version=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
  venv="target/python-venv-$version"
  rm -rf "$venv"
  "$py" -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$wheel" -r ci/requirements-python.txt \
    || { echo "test-python: could not install the wheel and ci/requirements-python.txt (pytest from PyPI) into $venv" >&2; exit 2; }
  echo "test-python: Python $version ($venv)"
  # from an empty folder with no variable of the user's that the tests read
  (cd "$work" && env -u FAITHPROBE_BIN -u FAITHPROBE_CONFIG -u CI -u PYTHONPATH FAITHPROBE_REPO="$repo" \
    "$repo/$venv/bin/python" -m pytest -p no:cacheprovider -c /dev/null --rootdir "$work" -q "$repo/python/tests")
done
