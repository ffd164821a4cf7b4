"""The pytest plugin: `pytest --faithprobe-suite SUITE --faithprobe-checker NAME` makes the false-alarm
row, the invariance row, each fault type, all faults and the unscored cases of each suite a test
item, so a checker's rates gate CI through pytest (and its JUnit output, `--junit-xml`).

An item fails when its rate breaks a threshold, or, with `--faithprobe-base RECORD.json`, when
`faithprobe compare` against that stored run finds the row significantly worse (or a count rule
broken). Thresholds come from the command line or pytest's own configuration (the suite and
`faithprobe.yaml` formats have no place for them):

    [tool.pytest.ini_options]
    faithprobe_max_false_alarm = "0.2"
    faithprobe_min_catch = ["all_faults=0.8", "number_swap=0.9"]

Without a threshold or a base an item passes and records its rate (a JUnit property). The
`faithprobe_run` fixture gives the run of the first suite for assertions of one's own. The plugin
does nothing unless `--faithprobe-suite` is given."""
from __future__ import annotations

import os
import pathlib
import tempfile
from typing import Any, Dict, List, Optional, Tuple

import pytest

from ._api import FaithprobeError, compare, run
from ._results import Comparison, Rate, Run

ROWS_BEFORE = ("false_alarms", "invariance")
ROWS_AFTER = ("all_faults", "errors")
COMPARE_GROUP = {"false_alarms": "false alarms", "invariance": "invariance", "all_faults": "all faults"}


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("faithprobe", "faithprobe: a faithfulness checker's rates as test items")
    group.addoption("--faithprobe-suite", action="append", default=[], metavar="SUITE",
                    help="a faithprobe suite to run (repeat for several); each row of its report is a test item")
    group.addoption("--faithprobe-checker", default=None, metavar="NAME",
                    help="a checker of faithprobe.yaml, or MODULE:FUNCTION for a Python checker (default: lexical)")
    group.addoption("--faithprobe-config", default=None, metavar="FILE", help="faithprobe.yaml to read checkers from")
    group.addoption("--faithprobe-repeat", type=int, default=None, metavar="N",
                    help="score every case N times, for judges whose verdicts vary")
    group.addoption("--faithprobe-base", default=None, metavar="RECORD",
                    help="a stored run record (faithprobe run --record) to compare against; a row fails when worse")
    group.addoption("--faithprobe-record", default=None, metavar="FILE",
                    help="write this run's record (the next base)")
    group.addoption("--faithprobe-max-false-alarm", type=float, default=None, metavar="R",
                    help="fail the false-alarm row when its rate is above R")
    group.addoption("--faithprobe-min-catch", action="append", default=[], metavar="TYPE=R",
                    help="fail a fault type's row (or all_faults) when its catch rate is under R; repeatable")
    group.addoption("--faithprobe-max-new-misses", default=None, metavar="N",
                    help="with --faithprobe-base: fail when the candidate newly misses more than N faults")
    parser.addini("faithprobe_max_false_alarm", "the highest false-alarm rate that passes", default="")
    parser.addini("faithprobe_min_catch", "TYPE=RATE lines: the lowest catch rate that passes", type="linelist",
                  default=[])


def _min_catch(config: Any) -> Dict[str, float]:
    out: Dict[str, float] = {}
    for spec in list(config.getini("faithprobe_min_catch")) + list(config.getoption("faithprobe_min_catch")):
        name, sep, value = str(spec).partition("=")
        if not sep:
            raise pytest.UsageError(f"--faithprobe-min-catch {spec!r}: expected TYPE=RATE, e.g. number_swap=0.9")
        try:
            out[name.strip()] = float(value)
        except ValueError:
            raise pytest.UsageError(f"--faithprobe-min-catch {spec!r}: {value!r} is not a number") from None
    return out


def _max_false_alarm(config: Any) -> Optional[float]:
    flag = config.getoption("faithprobe_max_false_alarm")
    if flag is not None:
        return float(flag)
    ini = str(config.getini("faithprobe_max_false_alarm") or "").strip()
    return float(ini) if ini else None


def _checker(config: Any) -> Any:
    name = config.getoption("faithprobe_checker")
    if name and ":" in name and not os.path.exists(name):
        from .serve import load

        return load(name)
    return name


class _Session:
    """One run per suite (and its comparison with the base), made when its first item runs."""

    def __init__(self, config: Any) -> None:
        self.config = config
        self.runs: Dict[str, Tuple[Optional[Run], Optional[Comparison], Optional[BaseException]]] = {}

    def get(self, suite: str) -> Tuple[Run, Optional[Comparison]]:
        if suite not in self.runs:
            self.runs[suite] = self._run(suite)
        r, cmp, exc = self.runs[suite]
        if exc is not None:
            raise exc
        assert r is not None
        return r, cmp

    def _run(self, suite: str) -> Tuple[Optional[Run], Optional[Comparison], Optional[BaseException]]:
        opt = self.config.getoption
        base = opt("faithprobe_base")
        record = opt("faithprobe_record")
        if base and not record:
            record = os.path.join(tempfile.mkdtemp(prefix="faithprobe-pytest-"), "candidate.json")
        try:
            r = run(suite, checker=_checker(self.config), config=opt("faithprobe_config"),
                    repeat=opt("faithprobe_repeat"), record=record, echo_stderr=False)
            cmp = None
            if base:
                cmp = compare(base, record, max_new_misses=opt("faithprobe_max_new_misses"), echo_stderr=False)
            return r, cmp, None
        except FaithprobeError as e:
            return None, None, e


def pytest_configure(config: Any) -> None:
    if config.getoption("faithprobe_suite", default=None):
        config._faithprobe = _Session(config)  # type: ignore[attr-defined]


def pytest_collection_modifyitems(session: Any, config: Any, items: List[Any]) -> None:
    suites = config.getoption("faithprobe_suite", default=None)
    if not suites:
        return
    for suite in suites:
        node = FaithprobeSuite.from_parent(session, path=pathlib.Path(suite).resolve())
        items.extend(node.collect())


class FaithprobeSuite(pytest.File):
    """A suite: its items are the rows of its report, in report order."""

    def collect(self) -> List["FaithprobeRow"]:
        suite = str(self.path)
        try:
            r, _ = self.config._faithprobe.get(suite)
        except FaithprobeError:
            # the suite does not load: one item that fails with the binary's message
            return [FaithprobeRow.from_parent(self, name="suite", suite=suite)]
        names = list(ROWS_BEFORE) + list(r.fault_types) + list(ROWS_AFTER)
        return [FaithprobeRow.from_parent(self, name=n, suite=suite) for n in names]


class FaithprobeFailure(Exception):
    pass


class FaithprobeRow(pytest.Item):
    """One row: false_alarms, invariance, a fault type, all_faults, or errors (unscored cases)."""

    def __init__(self, *, suite: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.suite = suite

    def runtest(self) -> None:
        r, cmp = self.config._faithprobe.get(self.suite)
        if self.name == "errors":
            self._errors(r)
            return
        rate = self._rate(r)
        self.user_properties.append(("rate", str(rate)))
        problems: List[str] = []
        if rate.n == 0 and cmp is None:
            pytest.skip(f"{self.name}: no case of this row counts on this suite")
        if self.name == "false_alarms":
            bound = _max_false_alarm(self.config)
            if bound is not None and rate.rate is not None and rate.rate > bound:
                problems.append(f"false alarms {rate}: the rate is above the bound {bound}")
        elif self.name != "invariance":
            floor = _min_catch(self.config).get(self.name)
            if floor is not None and rate.rate is not None and rate.rate < floor:
                problems.append(f"{self.name} caught {rate}: the rate is under the threshold {floor}")
        if cmp is not None:
            problems += self._compared(cmp)
        if problems:
            raise FaithprobeFailure("\n".join(problems))

    def _rate(self, r: Run) -> Rate:
        if self.name in ("false_alarms", "invariance", "all_faults"):
            return getattr(r, self.name)
        return r.fault_types[self.name].caught

    def _errors(self, r: Run) -> None:
        errored = [c for c in r.cases if c.outcome == "error"]
        self.user_properties.append(("errors", str(len(errored))))
        if errored:
            lines = [f"{len(errored)} case(s) the checker could not score (never counted as passes):"]
            lines += [f"  {c.id}: {c.claim!r}: {c.error}" for c in errored[:10]]
            raise FaithprobeFailure("\n".join(lines))

    def _compared(self, cmp: Comparison) -> List[str]:
        group = COMPARE_GROUP.get(self.name, self.name)
        out = []
        try:
            row = cmp.row(group)
        except KeyError:
            return []
        if row.significantly_worse:
            out.append(f"{self.name}: significantly worse than the base ({row.base} -> {row.candidate}, "
                       f"adjusted p {row.p_adjusted})")
        if self.name == "all_faults":
            # the gate as a whole lands on the all-faults row: a broken count rule, or no verdict
            # (a gate never passes on what could not fail)
            out += [f if isinstance(f, str) else str(f) for f in cmp.failures if "newly miss" in str(f)]
            if cmp.exit_code == 3:
                out += [f"compare gave no verdict: {why}" for why in cmp.no_verdict] or [
                    "compare gave no verdict: the candidate could not score some case"]
        return out

    def repr_failure(self, excinfo: Any, style: Any = None) -> str:
        if isinstance(excinfo.value, (FaithprobeFailure, FaithprobeError)):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> Tuple[Any, Optional[int], str]:
        return self.path, None, f"faithprobe {os.path.basename(self.suite)}::{self.name}"


@pytest.fixture
def faithprobe_run(request: Any) -> Run:
    """The run of the first `--faithprobe-suite`, for assertions of one's own."""
    session = getattr(request.config, "_faithprobe", None)
    if session is None:
        raise pytest.UsageError("the faithprobe_run fixture needs --faithprobe-suite SUITE")
    suite = str(pathlib.Path(request.config.getoption("faithprobe_suite")[0]).resolve())
    return session.get(suite)[0]
