#!/usr/bin/env python3
"""Ragas's Faithfulness metric as a faithprobe `command` checker.

A `@faithprobe.checker` function served over the command protocol (faithprobe's Python package:
from the wheel, or the `python/` folder of the checkout this file is in). Each claim is the
`response` Ragas splits into statements and judges against the passages (`retrieved_contexts`);
the judge is any OpenAI-compatible server:

    FAITHPROBE_JUDGE_BASE_URL=http://127.0.0.1:8000/v1   (required)
    FAITHPROBE_JUDGE_MODEL=Qwen/Qwen3-4B-Instruct-2507     (required)
    FAITHPROBE_JUDGE_API_KEY=...                           (optional; "none" when unset)

Labels: Ragas's faithfulness is the share of the claim's statements that can be inferred from the
context. A score of 1 makes the claim `supported`; anything less `not_found` (Ragas has no notion
of contradiction, so a swapped number and an invented fact look the same to it: faithprobe's catch
rates per fault type show what that costs). A Ragas error, or no score, raises: the claim is an
error with that message (never a pass), the traceback on stderr.

Install (pinned; see requirements-ragas.txt):
    python3 -m venv .venv-ragas && .venv-ragas/bin/pip install -r examples/checkers/requirements-ragas.txt
Use (faithprobe.yaml):
    checkers:
      ragas:
        kind: command
        argv: [.venv-ragas/bin/python, examples/checkers/ragas_faithfulness.py]
        timeout_s: 300
Then: faithprobe run suites/larkspur.yaml --checker ragas
From Python: faithprobe.run("suites/larkspur.yaml", checker=ragas_faithfulness.make_checker())
"""
import asyncio
import os
import sys
from pathlib import Path

os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")

try:
    import faithprobe
except ImportError:  # a checkout without the wheel installed: its own python/ folder
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))
    import faithprobe

from openai import AsyncOpenAI  # noqa: E402
from ragas.llms import llm_factory  # noqa: E402
from ragas.metrics.collections import Faithfulness  # noqa: E402


def make_checker() -> faithprobe.Checker:
    base_url = os.environ.get("FAITHPROBE_JUDGE_BASE_URL")
    model = os.environ.get("FAITHPROBE_JUDGE_MODEL")
    if not base_url or not model:
        sys.exit("ragas checker: set FAITHPROBE_JUDGE_BASE_URL and FAITHPROBE_JUDGE_MODEL")
    client = AsyncOpenAI(base_url=base_url, api_key=os.environ.get("FAITHPROBE_JUDGE_API_KEY", "none"))
    metric = Faithfulness(llm=llm_factory(model, client=client))
    loop = asyncio.new_event_loop()  # one loop for every claim: the client stays bound to it

    @faithprobe.checker(name="ragas", timeout_s=300)
    def ragas(claim, passages, question):
        # Ragas needs a question; a claim checked on its own has none
        result = loop.run_until_complete(metric.ascore(
            user_input=question or "What do the passages say?", response=claim,
            retrieved_contexts=[p.text for p in passages]))
        score = result.value
        if score is None or score != score:  # None or NaN: Ragas could not score it
            raise ValueError(f"ragas gave no score ({result.reason})")
        return faithprobe.Verdict("supported" if score >= 1.0 else "not_found", score=float(score),
                                  reason=f"ragas faithfulness {score:.3f}")

    return ragas


if __name__ == "__main__":
    sys.exit(make_checker().serve_stdio())
