"""Typed results, built from the JSON the binary prints (`--format json`); never from its human
output. Every result keeps the object it was built from as `raw`, so a field the binary gained
after this package was written is still there."""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Dict, Iterator, List, Optional

__all__ = [
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


def _pick(cls, data: Dict[str, Any], **extra: Any) -> Any:
    """`cls` from the keys of `data` it has fields for, with `extra` over them and `raw` the whole."""
    names = {f.name for f in fields(cls)}
    kwargs = {k: v for k, v in data.items() if k in names}
    kwargs.update(extra)
    if "raw" in names:
        kwargs["raw"] = data
    return cls(**kwargs)


def _fmt(x: Optional[float]) -> str:
    return "-" if x is None else f"{x:.2f}"


@dataclass(frozen=True)
class Rate:
    """k of n, the rate (None when n is 0) and its Wilson interval at `confidence`."""

    k: int
    n: int
    rate: Optional[float]
    ci_low: float
    ci_high: float
    confidence: float = 0.95

    @classmethod
    def from_json(cls, data: Dict[str, Any], confidence: float = 0.95) -> "Rate":
        return cls(
            k=int(data["k"]),
            n=int(data["n"]),
            rate=data.get("rate"),
            ci_low=float(data["ci_low"]),
            ci_high=float(data["ci_high"]),
            confidence=confidence,
        )

    @property
    def interval(self) -> "tuple[float, float]":
        return (self.ci_low, self.ci_high)

    def __str__(self) -> str:
        # the line `faithprobe run` prints under each heading
        return (
            f"{self.k}/{self.n}  rate {_fmt(self.rate)}  {self.confidence * 100:g}% CI "
            f"[{self.ci_low:.2f}, {self.ci_high:.2f}]"
        )

    def __repr__(self) -> str:
        return (
            f"Rate({self.k}/{self.n}, rate={_fmt(self.rate)}, {self.confidence * 100:g}% CI "
            f"[{self.ci_low:.2f}, {self.ci_high:.2f}])"
        )


@dataclass(frozen=True)
class Clustered:
    """The interval on the effective number of clusters (contexts or parent claims)."""

    clusters: int
    n_eff: float
    design_effect: float
    icc_upper: float
    ci_low: float
    ci_high: float


def _clustered(data: Optional[Dict[str, Any]]) -> Optional[Clustered]:
    return None if data is None else _pick(Clustered, data)


@dataclass(frozen=True)
class FaultType:
    """One row of the catch-rate table: a fault type, its rate and what was left out of it."""

    fault_type: str
    caught: Rate
    clustered: Optional[Clustered]
    mutants: int
    hard_cases: int
    equivalent: int
    parent_flagged: int
    unreviewed: int
    errors: int
    detectable_drop: Optional[float]
    raw: Dict[str, Any] = field(repr=False, compare=False)

    @property
    def has_cases(self) -> bool:
        """Whether any fault of this type counts (n > 0)."""
        return self.caught.n > 0


@dataclass(frozen=True)
class Case:
    """One case of a run: the record's case row (`schemas/run-record.json`) and the report's extras."""

    id: str
    kind: str
    claim: str
    outcome: str
    role: Optional[str] = None
    context: Optional[str] = None
    fault_type: Optional[str] = None
    parent: Optional[str] = None
    expected: Optional[str] = None
    review: Optional[str] = None
    verdict: Optional[str] = None
    score: Optional[float] = None
    evidence_passage: Optional[str] = None
    evidence_window: Optional[str] = None
    error: Optional[str] = None
    position: Optional[Any] = None
    real: Optional[bool] = None
    flaky_verdicts: Optional[List[Any]] = None
    compound: Optional[bool] = None
    why: Optional[str] = None
    reason: Optional[str] = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True)
class SuiteRun:
    """One suite run with one checker."""

    suite: str
    path: Optional[str]
    checker: str
    checker_kind: Optional[str]
    checker_settings: Dict[str, Any]
    confidence: float
    false_alarms: Rate
    invariance: Rate
    all_faults: Rate
    fault_types: Dict[str, FaultType]
    errors: int
    cases: List[Case]
    repeats: int
    flaky: List[Any]
    raw: Dict[str, Any] = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Dict[str, Any]) -> "SuiteRun":
        s = data["summary"]
        conf = float(s.get("confidence", 0.95))
        rows = {}
        for row in s.get("fault_types", []):
            rows[row["fault_type"]] = FaultType(
                fault_type=row["fault_type"],
                caught=Rate.from_json(row, conf),
                clustered=_clustered(row.get("clustered")),
                mutants=row.get("mutants", 0),
                hard_cases=row.get("hard_cases", 0),
                equivalent=row.get("equivalent", 0),
                parent_flagged=row.get("parent_flagged", 0),
                unreviewed=row.get("unreviewed", 0),
                errors=row.get("errors", 0),
                detectable_drop=row.get("detectable_drop"),
                raw=row,
            )
        who = data["checker"]
        if not isinstance(who, dict):
            who = {"name": str(who)}
        return cls(
            suite=data["suite"],
            path=data.get("path"),
            checker=who.get("name", ""),
            checker_kind=who.get("kind"),
            checker_settings=dict(who.get("settings") or {}),
            confidence=conf,
            false_alarms=Rate.from_json(s["false_alarms"], conf),
            invariance=Rate.from_json(s["invariance"], conf),
            all_faults=Rate.from_json(s["all_faults"], conf),
            fault_types=rows,
            errors=int(s.get("errors", 0)),
            cases=[_pick(Case, c) for c in data.get("cases", [])],
            repeats=int(data.get("repeats", 1)),
            flaky=list(data.get("flaky", [])),
            raw=data,
        )

    def case(self, case_id: str) -> Case:
        """The case with this id (KeyError when there is none)."""
        for c in self.cases:
            if c.id == case_id:
                return c
        raise KeyError(case_id)


@dataclass(frozen=True)
class Run:
    """What `faithprobe run` gave: one SuiteRun per suite, the exit status and stderr.

    With one suite, its fields (`false_alarms`, `fault_types`, `cases`, ...) are readable on the
    Run itself."""

    suites: List[SuiteRun]
    exit_code: int
    stderr: str = field(repr=False)
    args: List[str] = field(repr=False)
    record: Optional[str] = None

    @property
    def ok(self) -> bool:
        """Exit 0: everything ran and nothing failed."""
        return self.exit_code == 0

    def __iter__(self) -> Iterator[SuiteRun]:
        return iter(self.suites)

    def __getattr__(self, name: str) -> Any:
        if name in {f.name for f in fields(SuiteRun)} or name == "case":
            suites = self.__dict__.get("suites", [])
            if len(suites) != 1:
                raise AttributeError(
                    f"Run.{name}: this run has {len(suites)} suites; read it from run.suites[i]"
                )
            return getattr(suites[0], name)
        raise AttributeError(name)


@dataclass(frozen=True)
class CompareRow:
    """One row of a comparison: false alarms, invariance, a fault type or all faults."""

    group: str
    faithful: bool
    base: Rate
    candidate: Rate
    better: int
    worse: int
    p_value: Optional[float]
    p_worse: Optional[float]
    p_adjusted: Optional[float]
    gating: bool
    significantly_worse: bool
    tested: bool
    raw: Dict[str, Any] = field(repr=False, compare=False)


@dataclass(frozen=True)
class Comparison:
    """What `faithprobe compare` gave. `exit_code` 1 is a failed gate, 3 no verdict."""

    base: str
    candidate: str
    alpha: float
    rows: List[CompareRow]
    regressions: List[Any]
    failures: List[Any]
    errors: List[Any]
    no_verdict: List[str]
    exit_code: int
    stderr: str = field(repr=False)
    raw: Dict[str, Any] = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Dict[str, Any], exit_code: int, stderr: str) -> "Comparison":
        rows = [
            CompareRow(
                group=r["group"],
                faithful=bool(r.get("faithful")),
                base=Rate.from_json(r["base"]),
                candidate=Rate.from_json(r["candidate"]),
                better=r.get("better", 0),
                worse=r.get("worse", 0),
                p_value=r.get("p_value"),
                p_worse=r.get("p_worse"),
                p_adjusted=r.get("p_adjusted"),
                gating=bool(r.get("gating")),
                significantly_worse=bool(r.get("significantly_worse")),
                tested=bool(r.get("tested")),
                raw=r,
            )
            for r in data.get("rows", [])
        ]
        return cls(
            base=data.get("base", ""),
            candidate=data.get("candidate", ""),
            alpha=data.get("alpha", 0.05),
            rows=rows,
            regressions=list(data.get("regressions", [])),
            failures=list(data.get("failures", [])),
            errors=list(data.get("errors", [])),
            no_verdict=list(data.get("no_verdict", [])),
            exit_code=exit_code,
            stderr=stderr,
            raw=data,
        )

    @property
    def passed(self) -> bool:
        """Exit 0: no gating row is significantly worse and every count rule holds."""
        return self.exit_code == 0

    @property
    def failed(self) -> bool:
        """Exit 1: the gate failed."""
        return self.exit_code == 1

    def row(self, group: str) -> CompareRow:
        for r in self.rows:
            if r.group == group:
                return r
        raise KeyError(group)


@dataclass(frozen=True)
class ScoreDefinition:
    """One definition of an unsupported answer (`strict`, ...): its rates over the log."""

    definition: str
    answers: int
    claims: int
    unsupported_answers: Rate
    unsupported_claims: Rate
    errors: int
    raw: Dict[str, Any] = field(repr=False, compare=False)


@dataclass(frozen=True)
class Score:
    """What `faithprobe score` gave: the summary per definition and every answer."""

    log: str
    checker: str
    decomposer: str
    definitions: List[ScoreDefinition]
    answers: List[Dict[str, Any]]
    exit_code: int
    stderr: str = field(repr=False)
    raw: Dict[str, Any] = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Dict[str, Any], exit_code: int, stderr: str) -> "Score":
        defs = [
            ScoreDefinition(
                definition=d.get("definition", ""),
                answers=d.get("answers", 0),
                claims=d.get("claims", 0),
                unsupported_answers=Rate.from_json(d["unsupported_answers"]),
                unsupported_claims=Rate.from_json(d["unsupported_claims"]),
                errors=d.get("errors", 0),
                raw=d,
            )
            for d in data.get("summary", [])
        ]
        return cls(
            log=data.get("log", ""),
            checker=data.get("checker", ""),
            decomposer=data.get("decomposer", ""),
            definitions=defs,
            answers=list(data.get("answers", [])),
            exit_code=exit_code,
            stderr=stderr,
            raw=data,
        )

    def __getattr__(self, name: str) -> Any:
        # the first definition's rates on the Score itself, as `faithprobe score` prints first
        if name in ("unsupported_answers", "unsupported_claims"):
            defs = self.__dict__.get("definitions") or []
            if not defs:
                raise AttributeError(f"Score.{name}: the log gave no summary")
            return getattr(defs[0], name)
        raise AttributeError(name)


@dataclass(frozen=True)
class SweepPoint:
    threshold: float
    false_alarms: Rate
    invariance: Rate
    detection: Rate
    by_fault_type: Dict[str, Rate]
    raw: Dict[str, Any] = field(repr=False, compare=False)


@dataclass(frozen=True)
class Sweep:
    """What `faithprobe sweep` gave: every threshold and the recommended one (None when none qualifies)."""

    checker: str
    confidence: float
    points: List[SweepPoint]
    recommended: Optional[Any]
    max_false_alarm: Optional[float]
    exit_code: int
    stderr: str = field(repr=False)
    raw: Dict[str, Any] = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Dict[str, Any], exit_code: int, stderr: str) -> "Sweep":
        conf = float(data.get("confidence", 0.95))
        points = [
            SweepPoint(
                threshold=p["threshold"],
                false_alarms=Rate.from_json(p["false_alarms"], conf),
                invariance=Rate.from_json(p["invariance"], conf),
                detection=Rate.from_json(p["detection"], conf),
                by_fault_type={k: Rate.from_json(v, conf) for k, v in p.get("by_fault_type", {}).items()},
                raw=p,
            )
            for p in data.get("points", [])
        ]
        return cls(
            checker=data.get("checker", ""),
            confidence=conf,
            points=points,
            recommended=data.get("recommended"),
            max_false_alarm=data.get("max_false_alarm"),
            exit_code=exit_code,
            stderr=stderr,
            raw=data,
        )
