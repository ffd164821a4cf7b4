"""The Python API over the installed binary: typed results from its JSON, one exception type."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from dataclasses import fields

import pytest

import faithprobe
from conftest import REPO

README_FALSE_ALARMS = "2/16  rate 0.12  95% CI [0.03, 0.36]"


def test_the_binary_is_found_in_the_environments_scripts_folder():
    if os.environ.get("FAITHPROBE_BIN"):
        pytest.skip("FAITHPROBE_BIN is set: the binary is the one it names")
    path = faithprobe.find_faithprobe_bin()
    assert os.path.dirname(path) == sysconfig.get_path("scripts")
    assert os.access(path, os.X_OK)


def test_python_dash_m_faithprobe_runs_the_binary_with_its_arguments_and_exit_code():
    out = subprocess.run([sys.executable, "-m", "faithprobe", "stats", "wilson", "2", "16"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "0.03" in out.stdout and "0.36" in out.stdout, out.stdout
    bad = subprocess.run([sys.executable, "-m", "faithprobe", "run", "no-such-suite.yaml"],
                         capture_output=True, text=True)
    assert bad.returncode == 2
    assert "no-such-suite.yaml" in bad.stderr


def test_larkspur_false_alarms_are_the_readmes_figure(larkspur):
    run = faithprobe.run(larkspur)
    assert run.exit_code == 0 and run.ok
    assert (run.false_alarms.k, run.false_alarms.n) == (2, 16)
    assert str(run.false_alarms) == README_FALSE_ALARMS
    assert README_FALSE_ALARMS in (REPO / "README.md").read_text()
    assert "2/16" in repr(run.false_alarms)
    assert 0.03 < run.false_alarms.ci_low < run.false_alarms.rate < run.false_alarms.ci_high < 0.37
    assert (run.all_faults.k, run.all_faults.n) == (24, 29)
    assert (run.invariance.k, run.invariance.n) == (1, 10)
    negation = run.fault_types["negation_flip"]
    assert (negation.caught.k, negation.caught.n, negation.hard_cases) == (7, 9, 1)
    assert not run.fault_types["date_shift"].has_cases
    assert len(run.cases) == 62
    f01 = run.case("f01")
    assert (f01.kind, f01.verdict, f01.outcome, f01.evidence_passage) == ("original", "supported", "passed", "plans")
    assert run.checker == "lexical" and run.suite == "larkspur-help-center"


def test_the_done_when_line_prints_the_readmes_figure_in_a_fresh_interpreter():
    code = "import faithprobe; print(faithprobe.run('suites/larkspur.yaml').false_alarms)"
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == README_FALSE_ALARMS


def test_several_suites_are_one_suite_run_each_and_the_shortcut_says_so(larkspur):
    run = faithprobe.run([larkspur, REPO / "suites" / "audit-logs.yaml"])
    assert len(run.suites) == 2 and run.suites[0].suite == "larkspur-help-center"
    with pytest.raises(AttributeError, match="2 suites"):
        run.false_alarms  # noqa: B018


def test_an_input_error_raises_with_the_binarys_message_file_and_line(tmp_path):
    suite = tmp_path / "support-answers.yaml"
    suite.write_text(
        "suite: support-answers\n"
        "contexts:\n"
        "  - id: refunds\n"
        "    passages: [\"Refunds are issued within 5 business days.\"]\n"
    )
    with pytest.raises(faithprobe.FaithprobeError) as err:
        faithprobe.run(suite)
    e = err.value
    assert e.kind == "input" and e.exit_code == 2
    assert e.file == str(suite) and e.line == 4
    assert "expected a passage" in e.message
    assert e.help and "passages" in e.help
    assert str(suite) in str(e)


def test_a_missing_file_is_the_same_exception_naming_the_file():
    with pytest.raises(faithprobe.FaithprobeError) as err:
        faithprobe.run("no-such-suite.yaml")
    assert err.value.file == "no-such-suite.yaml" and err.value.kind == "io"


def test_an_unknown_checker_name_is_refused_with_the_binarys_sentence(larkspur):
    with pytest.raises(faithprobe.FaithprobeError) as err:
        faithprobe.run(larkspur, checker="no-such-checker")
    assert "no-such-checker" in err.value.message


def test_compare_of_two_records_gives_rows_and_the_gate_as_exit_status(larkspur, tmp_path):
    base = tmp_path / "base.json"
    cand = tmp_path / "cand.json"
    faithprobe.run(larkspur, record=base)
    faithprobe.run(larkspur, record=cand)
    same = faithprobe.compare(base, cand)
    assert same.exit_code == 3 and same.no_verdict, "one context: no row can fail, no verdict"
    ruled = faithprobe.compare(base, cand, max_new_misses=0)
    assert ruled.passed and ruled.exit_code == 0
    row = ruled.row("false alarms")
    assert (row.base.k, row.base.n) == (2, 16) and row.worse == 0


def test_sweep_gives_every_threshold_with_rates(larkspur):
    sweep = faithprobe.sweep(larkspur, checker="lexical", max_false_alarm=0.2)
    assert sweep.points and sweep.exit_code in (0, 1)
    for p in sweep.points:
        assert p.false_alarms.n == 16 and 0 < p.detection.n <= 29  # informative mutants vary
    assert sweep.max_false_alarm == 0.2


def test_score_of_a_log_gives_the_rates_per_definition(tmp_path):
    log = tmp_path / "answers.jsonl"
    rows = [
        {"id": "q-101", "question": "How much did churn fall after the price change?",
         "answer": "Here is a summary: churn fell by 17 per cent in the quarter after the price change.",
         "passages": [{"id": "kpi-q3", "text": "Churn fell by 17 per cent in the quarter after the price change."}]},
        {"id": "q-102", "question": "When is the report due?",
         "answer": "The quarterly report is due on 14 March. It is reviewed by the finance team.",
         "passages": [{"id": "cal-1", "text": "The quarterly report is due on 14 April."}]},
    ]
    log.write_text("".join(json.dumps(r) + "\n" for r in rows))
    s = faithprobe.score(log)
    assert s.definitions and s.unsupported_answers.n == 2
    assert s.unsupported_answers.k >= 1
    assert [a["id"] for a in s.answers] == ["q-101", "q-102"]


def test_case_carries_every_field_of_the_run_records_case_row():
    schema = json.loads((REPO / "schemas" / "run-record.json").read_text())
    props = set(schema["definitions"]["RecordCase"]["properties"])
    have = {f.name for f in fields(faithprobe.Case)}
    assert props <= have, f"schemas/run-record.json has case fields Case lacks: {sorted(props - have)}"
