#!/usr/bin/env python3
"""Ragas's Faithfulness metric as a faithprobe `command` checker.

faithprobe writes one request per line on stdin, {"id", "claim", "question", "passages": [{"id", "text"}]};
this program answers one line per request, {"id", "label", "score", "reason"}. Each claim is the
`response` Ragas splits into statements and judges against the passages (`retrieved_contexts`);
the judge is any OpenAI-compatible server:

    FAITHPROBE_JUDGE_BASE_URL=http://127.0.0.1:8000/v1   (required)
    FAITHPROBE_JUDGE_MODEL=Qwen/Qwen3-4B-Instruct-2507     (required)
    FAITHPROBE_JUDGE_API_KEY=...                           (optional; "none" when unset)

Labels: Ragas's faithfulness is the share of the claim's statements that can be inferred from the
context. A score of 1 makes the claim `supported`; anything less `not_found` (Ragas has no notion
of contradiction, so a swapped number and an invented fact look the same to it: faithprobe's catch
rates per fault type show what that costs). A Ragas error is printed to stderr and the claim gets
no answer line, which faithprobe records as an error (never a pass).

Install (pinned; see requirements-ragas.txt):
    python3 -m venv .venv-ragas && .venv-ragas/bin/pip install -r examples/checkers/requirements-ragas.txt
Use (faithprobe.yaml):
    checkers:
      ragas:
        kind: command
        argv: [.venv-ragas/bin/python, examples/checkers/ragas_faithfulness.py]
        timeout_s: 300
Then: faithprobe run suites/larkspur.yaml --checker ragas
"""
import asyncio
import json
import os
import sys

os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")

from openai import AsyncOpenAI  # noqa: E402
from ragas.llms import llm_factory  # noqa: E402
from ragas.metrics.collections import Faithfulness  # noqa: E402


async def main() -> None:
    base_url = os.environ.get("FAITHPROBE_JUDGE_BASE_URL")
    model = os.environ.get("FAITHPROBE_JUDGE_MODEL")
    if not base_url or not model:
        sys.exit("ragas checker: set FAITHPROBE_JUDGE_BASE_URL and FAITHPROBE_JUDGE_MODEL")
    client = AsyncOpenAI(base_url=base_url, api_key=os.environ.get("FAITHPROBE_JUDGE_API_KEY", "none"))
    metric = Faithfulness(llm=llm_factory(model, client=client))
    for line in sys.stdin:
        req = json.loads(line)
        try:
            # Ragas needs a question; a claim checked on its own has none
            question = req.get("question") or "What do the passages say?"
            result = await metric.ascore(user_input=question, response=req["claim"],
                                         retrieved_contexts=[p["text"] for p in req["passages"]])
        except Exception as e:  # one failed claim must not stop the others
            print(f"ragas checker: claim {req['id']}: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
            continue
        score = result.value
        if score is None or score != score:  # None or NaN: Ragas could not score it
            print(f"ragas checker: claim {req['id']}: no score ({result.reason})", file=sys.stderr, flush=True)
            continue
        out = {"id": req["id"], "label": "supported" if score >= 1.0 else "not_found",
               "score": float(score), "reason": f"ragas faithfulness {score:.3f}"}
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
