#!/usr/bin/env python3
"""DeepEval's FaithfulnessMetric as a faithprobe `command` checker.

A `@faithprobe.checker` function served over the command protocol (faithprobe's Python package:
from the wheel, or the `python/` folder of the checkout this file is in). Each claim is
DeepEval's `actual_output` and the passages its `retrieval_context`; the judge is any
OpenAI-compatible server:

    FAITHPROBE_JUDGE_BASE_URL=http://127.0.0.1:8000/v1   (required)
    FAITHPROBE_JUDGE_MODEL=Qwen/Qwen3-4B-Instruct-2507     (required)
    FAITHPROBE_JUDGE_API_KEY=...                           (optional; "none" when unset)

Labels: DeepEval judges each claim it extracts `yes` (supported), `no` (contradicted) or
`borderline`/`idk` (not backed by the context). Any `no` makes the claim `contradicted`; all `yes`
makes it `supported`; anything else is `not_found`. The score is DeepEval's faithfulness score
with `penalize_ambiguous_claims=True`, so unbacked claims lower it as they lower faithprobe's.
A DeepEval error, or a claim DeepEval finds nothing in (no claims extracted, no verdicts: it
would score 1.0), raises: the claim is an error with that message (never a pass), the traceback
on stderr.

Install (pinned; see requirements-deepeval.txt):
    python3 -m venv .venv-deepeval && .venv-deepeval/bin/pip install -r examples/checkers/requirements-deepeval.txt
Use (faithprobe.yaml):
    checkers:
      deepeval:
        kind: command
        argv: [.venv-deepeval/bin/python, examples/checkers/deepeval_faithfulness.py]
        timeout_s: 300
Then: faithprobe run suites/larkspur.yaml --checker deepeval
From Python: faithprobe.run("suites/larkspur.yaml", checker=deepeval_faithfulness.make_checker())
"""
import os
import sys
from pathlib import Path

os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "YES")
os.environ.setdefault("DEEPEVAL_DISABLE_DOTENV", "1")

try:
    import faithprobe
except ImportError:  # a checkout without the wheel installed: its own python/ folder
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))
    import faithprobe

from deepeval.metrics import FaithfulnessMetric  # noqa: E402
from deepeval.models import OpenAIModel  # noqa: E402
from deepeval.test_case import LLMTestCase  # noqa: E402


def make_checker() -> faithprobe.Checker:
    base_url = os.environ.get("FAITHPROBE_JUDGE_BASE_URL")
    model = os.environ.get("FAITHPROBE_JUDGE_MODEL")
    if not base_url or not model:
        sys.exit("deepeval checker: set FAITHPROBE_JUDGE_BASE_URL and FAITHPROBE_JUDGE_MODEL")
    judge = OpenAIModel(model=model, base_url=base_url,
                        api_key=os.environ.get("FAITHPROBE_JUDGE_API_KEY", "none"), temperature=0)

    @faithprobe.checker(name="deepeval", timeout_s=300)
    def deepeval(claim, passages, question):
        metric = FaithfulnessMetric(model=judge, async_mode=False, include_reason=True,
                                    penalize_ambiguous_claims=True, threshold=0.5)
        metric.measure(LLMTestCase(input=question or "", actual_output=claim,
                                   retrieval_context=[p.text for p in passages]))
        verdicts = [str(getattr(v.verdict, "value", v.verdict)).lower() for v in metric.verdicts or []]
        # no claims extracted or no verdicts returned: DeepEval then scores 1.0, which would count
        # every fault as caught-or-passed by default; it is no verdict, so an error
        if not verdicts or metric.score is None or metric.score != metric.score:
            raise ValueError(f"no verdict (DeepEval extracted {len(metric.claims or [])} claims "
                             f"and returned {len(verdicts)} verdicts, score {metric.score})")
        if any(v == "no" for v in verdicts):
            label = "contradicted"
        elif all(v == "yes" for v in verdicts):
            label = "supported"
        else:
            label = "not_found"
        return faithprobe.Verdict(label, score=float(metric.score or 0.0),
                                  reason=f"deepeval verdicts {verdicts}: {metric.reason or ''}")

    return deepeval


if __name__ == "__main__":
    sys.exit(make_checker().serve_stdio())
