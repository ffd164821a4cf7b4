"""Checkers written as Python functions: served over the command protocol in process
(`run(checker=fn)`) and by import (`python -m faithprobe.serve` from a faithprobe.yaml)."""
from __future__ import annotations

import sys
import textwrap

import pytest

import faithprobe
from faithprobe import Passage, Verdict

BROKEN_CLAIM = "Each Team user gets 50 GB of storage."


def verbatim(claim, passages, question):
    """Supported when a passage holds the claim word for word."""
    needle = claim.rstrip(".").lower()
    for p in passages:
        if needle in p.text.lower():
            return Verdict("supported", score=1.0, evidence=p.id, window=claim, reason="verbatim")
    return Verdict("not_found", score=0.0, reason="no passage holds the claim")


@faithprobe.checker
def flaky_model(claim: str, passages: list, question):
    if claim == BROKEN_CLAIM:
        raise ValueError("the model returned NaN for this claim")
    return verbatim(claim, passages, question)


def test_a_python_function_is_a_checker_with_nothing_else_configured(larkspur):
    run = faithprobe.run(larkspur, checker=verbatim)
    assert run.exit_code == 0, run.stderr
    assert run.checker == "verbatim" and run.suites[0].checker_kind == "command"
    f01 = run.case("f01")
    assert (f01.verdict, f01.score, f01.evidence_passage, f01.reason) == ("supported", 1.0, "plans", "verbatim")
    assert run.case("h03").verdict == "not_found"
    assert run.errors == 0 and len(run.cases) == 62


def test_an_exception_is_that_cases_error_never_a_verdict_with_its_traceback_on_stderr(larkspur, capfd):
    run = faithprobe.run(larkspur, checker=flaky_model)
    assert run.exit_code == 3, "a case the checker could not score is exit 3"
    errored = [c for c in run.cases if c.outcome == "error"]
    assert [c.claim for c in errored] == [BROKEN_CLAIM]
    assert errored[0].verdict is None
    assert "ValueError: the model returned NaN for this claim" in errored[0].error
    assert run.errors == 1
    err = capfd.readouterr().err
    assert "Traceback (most recent call last)" in err and "flaky_model" in err
    # every other case got its verdict
    assert all(c.verdict for c in run.cases if c.outcome != "error")


def test_the_decorated_function_is_still_a_function():
    assert flaky_model("Exports are encrypted.", [Passage("export", "Exports are encrypted.")], None).label == "supported"
    assert repr(flaky_model) == "<faithprobe checker flaky_model (one claim a call)>"


def test_the_batch_form_gives_the_same_verdicts_in_batches(larkspur):
    sizes = []

    @faithprobe.checker(batch=True, batch_size=5, name="verbatim-batch")
    def batch(claims):
        sizes.append(len(claims))
        return [verbatim(c.claim, c.passages, c.question) for c in claims]

    one = faithprobe.run(larkspur, checker=verbatim)
    many = faithprobe.run(larkspur, checker=batch)
    assert many.checker == "verbatim-batch"
    assert [(c.id, c.verdict, c.outcome) for c in many.cases] == [(c.id, c.verdict, c.outcome) for c in one.cases]
    assert max(sizes) == 5 and sum(sizes) == 62


def test_a_batch_that_raises_makes_each_of_its_claims_an_error(larkspur):
    @faithprobe.checker(batch=True, batch_size=100)
    def down(claims):
        raise ConnectionError("the classifier server is down")

    run = faithprobe.run(larkspur, checker=down)
    assert run.exit_code == 3
    assert all(c.outcome == "error" and "ConnectionError" in c.error for c in run.cases if c.kind != "mutant")


def test_a_wrong_return_value_is_an_error_not_a_verdict(larkspur):
    def returns_a_number(claim, passages, question):
        return 0.93

    run = faithprobe.run(larkspur, checker=returns_a_number)
    assert run.exit_code == 3
    assert all("TypeError" in (c.error or "") for c in run.cases if c.outcome == "error")
    assert not any(c.verdict for c in run.cases)


def test_a_verdict_with_an_unknown_label_or_score_is_refused_where_it_is_made():
    with pytest.raises(ValueError, match="not one of"):
        Verdict("probably")
    with pytest.raises(ValueError, match="outside"):
        Verdict("supported", score=1.7)


def test_the_same_function_runs_from_faithprobe_yaml_as_a_command_checker(larkspur, tmp_path):
    (tmp_path / "my_checks.py").write_text(textwrap.dedent('''
        import faithprobe

        @faithprobe.checker
        def check(claim, passages, question):
            print("Here is a summary: checking", claim)   # must not reach the answers
            needle = claim.rstrip(".").lower()
            hit = next((p for p in passages if needle in p.text.lower()), None)
            if hit is None:
                return "not_found"
            return faithprobe.Verdict("supported", score=1.0, evidence=hit.id)
    '''))
    (tmp_path / "faithprobe.yaml").write_text(
        "checkers:\n"
        "  mine:\n"
        "    kind: command\n"
        f"    argv: [{sys.executable}, -m, faithprobe.serve, my_checks:check]\n"
    )
    served = faithprobe.run(larkspur, checker="mine", config=tmp_path / "faithprobe.yaml")
    in_process = faithprobe.run(larkspur, checker=verbatim)
    assert served.exit_code == 0, served.stderr
    assert [(c.id, c.verdict) for c in served.cases] == [(c.id, c.verdict) for c in in_process.cases]
    assert "[mine] Here is a summary: checking" in served.stderr
    assert "[mine] check: answered 62 claims" in served.stderr


def test_a_module_function_knows_its_faithprobe_yaml_argv():
    from faithprobe._checker import Checker

    c = Checker(textwrap.dedent)
    assert c.argv == ["python3", "-m", "faithprobe.serve", "textwrap:dedent"]
    with pytest.raises(ValueError, match="cannot be imported"):
        faithprobe.checker(lambda claim, passages, question: "supported").argv  # noqa: B018


def test_a_python_checker_with_a_config_of_ones_own_is_refused(larkspur, tmp_path):
    with pytest.raises(ValueError, match="config of its own"):
        faithprobe.run(larkspur, checker=verbatim, config=tmp_path / "faithprobe.yaml")


def test_compare_two_python_checkers_on_a_suite(larkspur):
    def lenient(claim, passages, question):
        return "supported"

    cmp = faithprobe.compare(verbatim, lenient, suites=larkspur, max_new_misses=0)
    assert cmp.failed and cmp.exit_code == 1, "a checker that passes everything misses faults"
    assert cmp.row("all faults").candidate.k == 0


def test_score_and_sweep_take_a_python_checker_too(tmp_path, larkspur):
    log = tmp_path / "answers.jsonl"
    log.write_text(
        '{"id": "q-7", "question": "How much did churn fall?", '
        '"answer": "Here is a summary: churn fell by 17 per cent after the price change.", '
        '"passages": [{"id": "kpi", "text": "Churn fell by 17 per cent after the price change."}]}\n'
    )

    @faithprobe.checker
    def graded(claim, passages, question):
        v = verbatim(claim, passages, question)
        return Verdict(v.label, score=0.9 if v.label == "supported" else 0.2, evidence=v.evidence)

    s = faithprobe.score(log, checker=graded)
    assert s.exit_code == 0, s.stderr
    assert s.unsupported_answers.n == 1
    sw = faithprobe.sweep(larkspur, checker=graded)
    assert sw.checker == "graded" and len(sw.points) >= 2
