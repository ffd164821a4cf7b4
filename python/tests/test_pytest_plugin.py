"""The pytest plugin, run as a user runs it: pytest in a subprocess, with the plugin loaded from the
installed distribution's `pytest11` entry point."""
from __future__ import annotations

import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from importlib import metadata

import pytest

from conftest import LARKSPUR


def _entry_point_installed() -> bool:
    eps = metadata.entry_points()
    group = eps.select(group="pytest11") if hasattr(eps, "select") else eps.get("pytest11", [])
    return any(ep.value == "faithprobe.pytest_plugin" for ep in group)


# from the wheel the entry point loads the plugin; from a source tree it is named
PLUGIN = [] if _entry_point_installed() else ["-p", "faithprobe.pytest_plugin"]


def pytest_run(folder, *args):
    # the test's own config file: pytest would otherwise take the repository's pyproject.toml, an
    # ancestor of the suite path given as an option value
    inifile = folder / "pyproject.toml"
    if not inifile.exists():
        inifile = folder / "pytest.ini"
        inifile.write_text("[pytest]\n")
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *PLUGIN, "-c", str(inifile),
           "--rootdir", str(folder), "-q", "-rfEs", *args]
    return subprocess.run(cmd, cwd=folder, capture_output=True, text=True, timeout=300)


def junit_cases(path):
    return {c.get("name"): c for c in ET.parse(path).getroot().iter("testcase")}


def test_the_wheel_registers_the_plugin_under_pytest11():
    if not PLUGIN:
        return
    pytest.skip("running from a source tree: the entry point comes with the installed wheel")


def test_every_row_of_the_suite_is_a_test_item_with_its_rate_in_junit(tmp_path):
    out = pytest_run(tmp_path, "--faithprobe-suite", str(LARKSPUR), "--junit-xml", "report.xml",
                     "--faithprobe-max-false-alarm", "0.2", "--faithprobe-min-catch", "all_faults=0.8")
    assert out.returncode == 0, out.stdout + out.stderr
    cases = junit_cases(tmp_path / "report.xml")
    for row in ("false_alarms", "invariance", "number_swap", "negation_flip", "entity_swap",
                "added_fact", "all_faults", "errors"):
        assert row in cases, sorted(cases)
    props = {p.get("name"): p.get("value") for p in cases["false_alarms"].iter("property")}
    assert props["rate"] == "2/16  rate 0.12  95% CI [0.03, 0.36]"
    assert cases["date_shift"].find("skipped") is not None, "a row no case counts in is skipped, not passed"


def test_a_rate_under_its_threshold_fails_its_item_and_pytest(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\nfaithprobe_min_catch = ["negation_flip=0.9"]\n'
    )
    out = pytest_run(tmp_path, "--faithprobe-suite", str(LARKSPUR))
    assert out.returncode == 1, out.stdout
    assert "larkspur.yaml::negation_flip" in out.stdout
    assert "negation_flip caught 7/9  rate 0.78" in out.stdout and "under the threshold 0.9" in out.stdout
    assert "1 failed" in out.stdout


def test_a_regression_against_the_stored_base_fails_and_passes_once_fixed(tmp_path):
    import faithprobe

    faithprobe.run(LARKSPUR, record=tmp_path / "base.json")
    (tmp_path / "candidate_checks.py").write_text(textwrap.dedent('''
        def rubber_stamp(claim, passages, question):
            """A prompt change that made the judge agree with everything."""
            return "supported"
    '''))
    gate = ["--faithprobe-suite", str(LARKSPUR), "--faithprobe-base", "base.json",
            "--faithprobe-max-new-misses", "0"]
    worse = pytest_run(tmp_path, *gate, "--faithprobe-checker", "candidate_checks:rubber_stamp")
    assert worse.returncode == 1, worse.stdout
    assert "24 fault(s) newly missed" in worse.stdout
    assert "larkspur.yaml::all_faults" in worse.stdout
    fixed = pytest_run(tmp_path, *gate, "--faithprobe-checker", "lexical")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr


def test_no_verdict_from_compare_is_no_pass(tmp_path):
    import faithprobe

    faithprobe.run(LARKSPUR, record=tmp_path / "base.json")
    out = pytest_run(tmp_path, "--faithprobe-suite", str(LARKSPUR), "--faithprobe-base", "base.json")
    assert out.returncode == 1
    assert "compare gave no verdict" in out.stdout


def test_cases_the_checker_could_not_score_fail_the_errors_item(tmp_path):
    (tmp_path / "shaky.py").write_text(textwrap.dedent('''
        import faithprobe

        @faithprobe.checker
        def check(claim, passages, question):
            if "17 per cent" in claim or "50 GB" in claim:
                raise TimeoutError("the judge did not answer in 30 s")
            return "supported" if any(claim.rstrip(".") in p.text for p in passages) else "not_found"
    '''))
    out = pytest_run(tmp_path, "--faithprobe-suite", str(LARKSPUR), "--faithprobe-checker", "shaky:check")
    assert out.returncode == 1, out.stdout
    assert "larkspur.yaml::errors" in out.stdout
    assert "TimeoutError: the judge did not answer in 30 s" in out.stdout


def test_the_fixture_gives_the_run_and_repeats_reach_the_binary(tmp_path):
    (tmp_path / "test_own.py").write_text(textwrap.dedent('''
        def test_false_alarms_stay_low(faithprobe_run):
            assert faithprobe_run.repeats == 2
            assert faithprobe_run.false_alarms.k <= 2
            assert faithprobe_run.case("f01").verdict == "supported"
    '''))
    out = pytest_run(tmp_path, "--faithprobe-suite", str(LARKSPUR), "--faithprobe-repeat", "2", "test_own.py")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "test_own.py ." in out.stdout or "passed" in out.stdout


def test_a_suite_that_does_not_load_is_one_failing_item_with_the_binarys_message(tmp_path):
    bad = tmp_path / "broken.yaml"
    bad.write_text("suite: broken\ncontexts:\n  - id: a\n    passages: [1]\n")
    out = pytest_run(tmp_path, "--faithprobe-suite", str(bad))
    assert out.returncode == 1
    assert "broken.yaml::suite" in out.stdout and ":4:" in out.stdout


def test_without_a_suite_the_plugin_adds_nothing(tmp_path):
    (tmp_path / "test_plain.py").write_text("def test_one():\n    assert 1 + 1 == 2\n")
    out = pytest_run(tmp_path, "test_plain.py")
    assert out.returncode == 0 and "1 passed" in out.stdout, out.stdout

