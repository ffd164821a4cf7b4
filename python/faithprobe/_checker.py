"""Checkers written as Python functions, served over faithprobe's `command` protocol.

faithprobe writes one request a line, `{"id", "claim", "question", "passages": [{"id", "text"}]}`,
and reads one answer a line, `{"id", "label", "score", "evidence": {"passage", "window"},
"reason"}`, or `{"id", "error"}` for a claim the function could not score. A function that
raises gives that claim an error (its traceback goes to stderr), never a verdict."""
from __future__ import annotations

import functools
import json
import re
import sys
import traceback
from dataclasses import dataclass
from typing import IO, Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Union

__all__ = ["Passage", "Claim", "Verdict", "Checker", "checker", "LABELS"]

LABELS = ("supported", "contradicted", "not_found")


@dataclass(frozen=True)
class Passage:
    """One passage of the context set: its id and text."""

    id: str
    text: str


@dataclass(frozen=True)
class Claim:
    """One claim to check, with its context's passages and question: what a batch checker gets."""

    claim: str
    passages: List[Passage]
    question: Optional[str] = None


@dataclass(frozen=True)
class Verdict:
    """What a checker says of one claim.

    `label` is `supported`, `contradicted` or `not_found`; `score` in [0, 1] where the checker has
    one; `evidence` the id of the passage that decided it and `window` the text in it."""

    label: str
    score: Optional[float] = None
    evidence: Optional[str] = None
    window: Optional[str] = None
    reason: Optional[str] = None

    def __post_init__(self) -> None:
        if self.label not in LABELS:
            raise ValueError(f"label {self.label!r} is not one of {', '.join(LABELS)}")
        if self.score is not None and not (0.0 <= float(self.score) <= 1.0):
            raise ValueError(f"score {self.score!r} is outside [0, 1]")

    def to_answer(self, request_id: str) -> Dict[str, Any]:
        out: Dict[str, Any] = {"id": request_id, "label": self.label}
        if self.score is not None:
            out["score"] = float(self.score)
        if self.evidence is not None:
            out["evidence"] = {"passage": self.evidence, "window": self.window or ""}
        if self.reason:
            out["reason"] = self.reason
        return out


VerdictLike = Union[Verdict, str]


def _as_verdict(value: Any) -> Verdict:
    """A Verdict from what the function returned: a Verdict, or a bare label."""
    if isinstance(value, Verdict):
        return value
    if isinstance(value, str):
        return Verdict(value)
    raise TypeError(f"a checker returns a faithprobe.Verdict or a label, not {type(value).__name__}")


def _claim(req: Dict[str, Any]) -> Claim:
    return Claim(
        claim=req["claim"],
        passages=[Passage(str(p["id"]), p["text"]) for p in req.get("passages", [])],
        question=req.get("question"),
    )


def _error(request_id: str, exc: BaseException) -> Dict[str, Any]:
    return {"id": request_id, "error": f"{type(exc).__name__}: {exc}"}


class Checker:
    """A Python function made a faithprobe checker by `@faithprobe.checker`.

    Calling it calls the function. `faithprobe.run(suite, checker=it)` serves it to the binary;
    `python -m faithprobe.serve MODULE:NAME` serves it to a `kind: command` entry of
    `faithprobe.yaml` (`argv` gives that entry's argv)."""

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        name: Optional[str] = None,
        batch: bool = False,
        batch_size: int = 16,
        timeout_s: float = 60.0,
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self.fn = fn
        self.name = _config_name(name or getattr(fn, "__name__", "python"))
        self.batch = batch
        self.batch_size = batch_size
        self.timeout_s = timeout_s
        functools.update_wrapper(self, fn)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)

    def __repr__(self) -> str:
        form = f"batch of {self.batch_size}" if self.batch else "one claim a call"
        return f"<faithprobe checker {self.name} ({form})>"

    @property
    def argv(self) -> List[str]:
        """The argv of a `kind: command` entry that serves this checker by import."""
        module = getattr(self.fn, "__module__", None)
        qualname = getattr(self.fn, "__qualname__", None)
        if not module or not qualname or "<" in qualname or module == "__main__":
            raise ValueError(
                f"{self.name}: a function defined in __main__ or inside another cannot be imported; "
                "move it into a module to serve it from faithprobe.yaml"
            )
        return ["python3", "-m", "faithprobe.serve", f"{module}:{qualname}"]

    def answer_all(self, requests: Iterable[Dict[str, Any]]) -> Iterator[Dict[str, Any]]:
        """One answer per request, in order: a verdict or an error, never a skipped claim."""
        if not self.batch:
            for req in requests:
                yield self._one(req)
            return
        chunk: List[Dict[str, Any]] = []
        for req in requests:
            chunk.append(req)
            if len(chunk) == self.batch_size:
                yield from self._many(chunk)
                chunk = []
        if chunk:
            yield from self._many(chunk)

    def _one(self, req: Dict[str, Any]) -> Dict[str, Any]:
        rid = str(req.get("id"))
        try:
            c = _claim(req)
            return _as_verdict(self.fn(c.claim, c.passages, c.question)).to_answer(rid)
        except Exception as exc:  # one failed claim must not stop the others
            _print_traceback(self.name, rid, exc)
            return _error(rid, exc)

    def _many(self, reqs: Sequence[Dict[str, Any]]) -> List[Dict[str, Any]]:
        ids = [str(r.get("id")) for r in reqs]
        try:
            out = list(self.fn([_claim(r) for r in reqs]))
            if len(out) != len(reqs):
                raise ValueError(f"the batch checker returned {len(out)} verdicts for {len(reqs)} claims")
            return [_as_verdict(v).to_answer(i) for i, v in zip(ids, out)]
        except Exception as exc:
            _print_traceback(self.name, ", ".join(ids), exc)
            return [_error(i, exc) for i in ids]

    def serve(self, stdin: IO[str], stdout: IO[str]) -> int:
        """Answers the requests read from `stdin` on `stdout` until `stdin` ends; returns how many."""
        n = 0
        for answer in self.answer_all(_requests(stdin, stdout)):
            stdout.write(json.dumps(answer) + "\n")
            stdout.flush()
            n += 1
        return n


    def serve_stdio(self) -> int:
        """Serves the command protocol on this process's stdin and stdout (a `kind: command`
        program: `if __name__ == "__main__": sys.exit(check.serve_stdio())`). What the function
        prints goes to stderr meanwhile, so it never mixes with the answers. Returns 0."""
        answers = sys.stdout
        sys.stdout = sys.stderr
        try:
            n = self.serve(sys.stdin, answers)
        finally:
            sys.stdout = answers
        print(f"{self.name}: answered {n} claims", file=sys.stderr)
        return 0


def _requests(stdin: IO[str], stdout: IO[str]) -> Iterator[Dict[str, Any]]:
    for line in stdin:
        if not line.strip():
            continue
        try:
            yield json.loads(line)
        except ValueError as exc:
            print(f"faithprobe checker: a request that is not JSON: {exc}", file=sys.stderr, flush=True)


def _print_traceback(name: str, ids: str, exc: BaseException) -> None:
    print(f"faithprobe checker {name}: claim {ids} raised:", file=sys.stderr)
    traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
    sys.stderr.flush()


def _config_name(name: str) -> str:
    """A checker name the config accepts: letters, digits, `-` and `_`."""
    cleaned = re.sub(r"[^A-Za-z0-9_-]+", "-", name).strip("-")
    return cleaned or "python"


def checker(
    fn: Optional[Callable[..., Any]] = None,
    *,
    name: Optional[str] = None,
    batch: bool = False,
    batch_size: int = 16,
    timeout_s: float = 60.0,
) -> Any:
    """Makes a function a faithprobe checker.

    `@faithprobe.checker` on `def check(claim: str, passages: list[Passage], question: str | None)
    -> Verdict`; `@faithprobe.checker(batch=True, batch_size=32)` on `def check(claims:
    list[Claim]) -> list[Verdict]`. A label string is taken for `Verdict(label)`."""

    def wrap(f: Callable[..., Any]) -> Checker:
        return Checker(f, name=name, batch=batch, batch_size=batch_size, timeout_s=timeout_s)

    return wrap if fn is None else wrap(fn)
