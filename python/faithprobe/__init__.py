"""faithprobe from Python: the binary that came with this package, with typed results.

    import faithprobe
    run = faithprobe.run("suites/larkspur.yaml")
    print(run.false_alarms)            # 2/16  rate 0.12  95% CI [0.03, 0.36]

    @faithprobe.checker
    def check(claim, passages, question):
        return faithprobe.Verdict("supported" if ... else "not_found", score=...)

    faithprobe.run("suites/larkspur.yaml", checker=check)

Everything is read from the JSON the binary prints (`--format json`); an input error raises
FaithprobeError with the binary's message, file and line."""
from __future__ import annotations

from ._api import FaithprobeError, compare, invoke, run, score, sweep
from ._checker import LABELS, Checker, Claim, Passage, Verdict, checker
from ._find_bin import find_faithprobe_bin
from ._results import (
    Case,
    Clustered,
    CompareRow,
    Comparison,
    FaultType,
    Rate,
    Run,
    Score,
    ScoreDefinition,
    SuiteRun,
    Sweep,
    SweepPoint,
)

__all__ = [
    "find_faithprobe_bin",
    "run",
    "compare",
    "score",
    "sweep",
    "invoke",
    "FaithprobeError",
    "checker",
    "Checker",
    "Passage",
    "Claim",
    "Verdict",
    "LABELS",
    "Rate",
    "Clustered",
    "FaultType",
    "Case",
    "SuiteRun",
    "Run",
    "CompareRow",
    "Comparison",
    "ScoreDefinition",
    "Score",
    "SweepPoint",
    "Sweep",
]
