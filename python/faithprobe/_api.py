"""`run`, `compare`, `score` and `sweep`: the binary with `--format json`, its output made typed.

Nothing here reads the binary's human output. An error before any work (exit 2) arrives as one
JSON line on stderr (`FAITHPROBE_ERROR_FORMAT=json`) and is raised as FaithprobeError."""
from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple, Union

from ._checker import Checker
from ._find_bin import find_faithprobe_bin
from ._results import Comparison, Run, Score, SuiteRun, Sweep

__all__ = ["FaithprobeError", "run", "compare", "score", "sweep", "invoke"]

PathLike = Union[str, "os.PathLike[str]"]
CheckerArg = Union[None, str, Checker, Callable[..., Any]]


class FaithprobeError(Exception):
    """The binary refused its input (exit 2) or could not write an output (exit 4).

    `message`, `help`, `file`, `line` and `column` are the binary's own (None where they do not
    apply); `kind` is `input`, `io`, `usage`, `refused`, `write`, `interrupted` or `other`."""

    def __init__(
        self,
        message: str,
        *,
        kind: str = "other",
        file: Optional[str] = None,
        line: Optional[int] = None,
        column: Optional[int] = None,
        help: Optional[str] = None,
        exit_code: int = 2,
        text: Optional[str] = None,
        stderr: str = "",
        args: Sequence[str] = (),
    ) -> None:
        super().__init__(text or message)
        self.message = message
        self.kind = kind
        self.file = file
        self.line = line
        self.column = column
        self.help = help
        self.exit_code = exit_code
        self.stderr = stderr
        self.command = list(args)

    @classmethod
    def from_json(cls, e: Dict[str, Any], stderr: str, args: Sequence[str]) -> "FaithprobeError":
        return cls(
            e.get("message") or e.get("text") or "faithprobe failed",
            kind=e.get("kind", "other"),
            file=e.get("file"),
            line=e.get("line"),
            column=e.get("column"),
            help=e.get("help"),
            exit_code=int(e.get("exit", 2)),
            text=e.get("text"),
            stderr=stderr,
            args=args,
        )


def _error_line(line: str) -> Optional[Dict[str, Any]]:
    if not line.startswith('{"error"'):
        return None
    try:
        e = json.loads(line)["error"]
    except (ValueError, KeyError, TypeError):
        return None
    return e if isinstance(e, dict) else None


def invoke(
    args: Sequence[str],
    *,
    cwd: Optional[PathLike] = None,
    env: Optional[Dict[str, str]] = None,
    echo_stderr: bool = True,
) -> Tuple[int, str, str]:
    """Runs the binary with `args`; returns (exit code, stdout, stderr). Raises FaithprobeError on
    exit 2 or 4, with the binary's message, file and line."""
    if os.environ.get("FAITHPROBE_SERVING"):
        raise RuntimeError(
            "faithprobe was called from a module being served as a checker: put the call under "
            "`if __name__ == '__main__':`"
        )
    full_env = dict(os.environ)
    full_env.update(env or {})
    full_env["FAITHPROBE_ERROR_FORMAT"] = "json"
    argv = [find_faithprobe_bin(), "--color", "never", *args]
    proc = subprocess.Popen(
        argv,
        cwd=None if cwd is None else os.fspath(cwd),
        env=full_env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    err_lines: List[str] = []
    errors: List[Dict[str, Any]] = []

    def read_stderr() -> None:
        assert proc.stderr is not None
        for raw in proc.stderr:
            line = raw.decode("utf-8", "replace")
            e = _error_line(line.rstrip("\n"))
            if e is not None:
                errors.append(e)
            else:
                err_lines.append(line)
                if echo_stderr:
                    sys.stderr.write(line)
                    sys.stderr.flush()

    reader = threading.Thread(target=read_stderr, daemon=True)
    reader.start()
    try:
        assert proc.stdout is not None
        out = proc.stdout.read()
        code = proc.wait()
    except KeyboardInterrupt:
        proc.send_signal(signal.SIGINT)  # the binary stops after the calls in flight
        proc.wait()
        raise
    reader.join()
    stderr = "".join(err_lines)
    if code in (2, 4):
        if errors:
            raise FaithprobeError.from_json(errors[-1], stderr, argv)
        raise FaithprobeError(stderr.strip() or f"faithprobe exited {code}", exit_code=code, stderr=stderr, args=argv)
    if code == 130:
        raise KeyboardInterrupt("faithprobe was interrupted")
    return code, out.decode("utf-8"), stderr


def _paths(p: Union[PathLike, Sequence[PathLike]]) -> List[str]:
    if isinstance(p, (str, os.PathLike)):
        return [os.fspath(p)]
    return [os.fspath(x) for x in p]


def _json_lines(out: str, args: Sequence[str], code: int, stderr: str) -> List[Dict[str, Any]]:
    try:
        return [json.loads(line) for line in out.splitlines() if line.strip()]
    except ValueError as e:
        raise FaithprobeError(
            f"faithprobe printed something that is not JSON ({e})", exit_code=code, stderr=stderr, args=args
        ) from None


def _yaml_str(s: str) -> str:
    return json.dumps(s)  # a JSON string is a YAML double-quoted scalar


class _Served:
    """Python checkers served to the binary for one call: a config naming each as a command checker
    whose program relays to a thread of this process, where the function runs."""

    def __init__(self, checkers: Sequence[Checker]) -> None:
        self.dir = tempfile.mkdtemp(prefix="faithprobe-py-")
        self.checkers = list(checkers)
        self.sockets: List[socket.socket] = []
        self.env: Dict[str, str] = {}
        self.names: List[str] = []
        lines = ["# written by the faithprobe Python package for one call", "checkers:"]
        taken = set()
        pkg_parent = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        for i, c in enumerate(self.checkers):
            name = c.name
            while name in taken:
                name = f"{c.name}-{i + 1}"
            taken.add(name)
            self.names.append(name)
            path = os.path.join(self.dir, f"{name}.sock")
            srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            srv.bind(path)
            srv.listen(8)
            self.sockets.append(srv)
            threading.Thread(target=self._accept, args=(srv, c), daemon=True).start()
            # the argv names no temporary path, so records of two calls carry the same settings
            lines += [
                f"  {name}:",
                "    kind: command",
                f"    argv: [{_yaml_str(sys.executable)}, -m, faithprobe._relay, {_yaml_str(name)}]",
                f"    timeout_s: {float(c.timeout_s)}",
            ]
        self.config = os.path.join(self.dir, "faithprobe.yaml")
        with open(self.config, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        pythonpath = os.environ.get("PYTHONPATH")
        self.env["FAITHPROBE_PY_SOCKETS"] = self.dir
        self.env["PYTHONPATH"] = pkg_parent + (os.pathsep + pythonpath if pythonpath else "")

    def _accept(self, srv: socket.socket, c: Checker) -> None:
        while True:
            try:
                conn, _ = srv.accept()
            except OSError:
                return  # closed: the call is over
            threading.Thread(target=self._serve, args=(conn, c), daemon=True).start()

    @staticmethod
    def _serve(conn: socket.socket, c: Checker) -> None:
        with conn:
            rfile = conn.makefile("r", encoding="utf-8", newline="\n")
            wfile = conn.makefile("w", encoding="utf-8", newline="\n")
            try:
                c.serve(rfile, wfile)
                wfile.close()
                conn.shutdown(socket.SHUT_WR)
            except OSError:
                pass  # faithprobe stopped the program (a timeout, Ctrl-C): nothing to answer

    def close(self) -> None:
        for s in self.sockets:
            s.close()
        for name in os.listdir(self.dir):
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(self.dir, name))
        with contextlib.suppress(OSError):
            os.rmdir(self.dir)


def _as_checker(c: Union[Checker, Callable[..., Any]]) -> Checker:
    return c if isinstance(c, Checker) else Checker(c)


@contextlib.contextmanager
def _checkers(
    checkers: Sequence[CheckerArg], config: Optional[PathLike]
) -> Iterator[Tuple[List[str], List[Optional[str]], Dict[str, str]]]:
    """(config args, each checker's name, env) for the call: Python checkers are served."""
    python = [c for c in checkers if c is not None and not isinstance(c, str)]
    if not python:
        yield (["--config", os.fspath(config)] if config is not None else []), list(checkers), {}  # type: ignore[misc]
        return
    if config is not None:
        raise ValueError(
            "a Python checker runs with a config of its own: pass config=None, or name a configured checker"
        )
    served = _Served([_as_checker(c) for c in python])  # type: ignore[arg-type]
    try:
        names: List[Optional[str]] = []
        it = iter(served.names)
        for c in checkers:
            names.append(c if c is None or isinstance(c, str) else next(it))
        yield ["--config", served.config], names, served.env
    finally:
        served.close()


def _opt(flag: str, value: Any) -> List[str]:
    if value is None or value is False:
        return []
    if value is True:
        return [flag]
    return [flag, str(value)]


def run(
    suites: Union[PathLike, Sequence[PathLike]],
    *,
    checker: CheckerArg = None,
    config: Optional[PathLike] = None,
    repeat: Optional[int] = None,
    confidence: Optional[float] = None,
    record: Optional[PathLike] = None,
    cache: Optional[PathLike] = None,
    no_cache: bool = False,
    mutators: Optional[PathLike] = None,
    require_reviewed: bool = False,
    extra_args: Sequence[str] = (),
    cwd: Optional[PathLike] = None,
    echo_stderr: bool = True,
) -> Run:
    """`faithprobe run SUITE...`: the false alarms, invariance and catch rates per fault type with
    their intervals, every case, and the exit status (0, 1 or 3: errors are in the cases).

    `checker` is a configured checker's name, or a Python function (decorated with
    `@faithprobe.checker` or not) that faithprobe runs over the command protocol."""
    with _checkers([checker], config) as (cfg, names, env):
        args = ["run", *_paths(suites), "--format", "json", *cfg]
        args += _opt("--checker", names[0])
        args += _opt("--repeat", repeat) + _opt("--confidence", confidence)
        args += _opt("--record", None if record is None else os.fspath(record))
        args += _opt("--cache", None if cache is None else os.fspath(cache)) + _opt("--no-cache", no_cache)
        args += _opt("--mutators", None if mutators is None else os.fspath(mutators))
        args += _opt("--require-reviewed", require_reviewed) + list(extra_args)
        code, out, err = invoke(args, cwd=cwd, env=env, echo_stderr=echo_stderr)
    objs = _json_lines(out, args, code, err)
    return Run(
        suites=[SuiteRun.from_json(o) for o in objs],
        exit_code=code,
        stderr=err,
        args=args,
        record=None if record is None else os.fspath(record),
    )


def compare(
    base: Union[PathLike, CheckerArg],
    candidate: Union[PathLike, CheckerArg],
    *,
    suites: Union[None, PathLike, Sequence[PathLike]] = None,
    config: Optional[PathLike] = None,
    alpha: Optional[float] = None,
    cluster_by: Optional[str] = None,
    max_new_misses: Union[None, int, str] = None,
    max_new_false_alarms: Union[None, int, str] = None,
    adjust: Optional[str] = None,
    gate_on: Sequence[str] = (),
    min_detectable: Optional[float] = None,
    extra_args: Sequence[str] = (),
    cwd: Optional[PathLike] = None,
    echo_stderr: bool = True,
) -> Comparison:
    """`faithprobe compare BASE.json CANDIDATE.json` (two run or score records), or, with
    `suites`, `compare --checker BASE --checker CANDIDATE SUITE...` (each a configured name or a
    Python checker). Exit 1 (a failed gate) and 3 (no verdict) are results, not exceptions."""
    gate = _opt("--alpha", alpha) + _opt("--cluster-by", cluster_by)
    gate += _opt("--max-new-misses", max_new_misses) + _opt("--max-new-false-alarms", max_new_false_alarms)
    gate += _opt("--adjust", adjust) + _opt("--min-detectable", min_detectable)
    for row in gate_on:
        gate += ["--gate-on", row]
    if suites is None:
        if not isinstance(base, (str, os.PathLike)) or not isinstance(candidate, (str, os.PathLike)):
            raise TypeError("compare of records takes two paths; pass suites=... to compare two checkers")
        cfg = ["--config", os.fspath(config)] if config is not None else []
        args = ["compare", os.fspath(base), os.fspath(candidate), "--format", "json", *cfg, *gate, *extra_args]
        code, out, err = invoke(args, cwd=cwd, echo_stderr=echo_stderr)
    else:
        pair = [base if not isinstance(base, os.PathLike) else os.fspath(base),
                candidate if not isinstance(candidate, os.PathLike) else os.fspath(candidate)]
        with _checkers(pair, config) as (cfg, names, env):
            args = ["compare", "--checker", str(names[0]), "--checker", str(names[1]), *_paths(suites)]
            args += ["--format", "json", *cfg, *gate, *extra_args]
            code, out, err = invoke(args, cwd=cwd, env=env, echo_stderr=echo_stderr)
    objs = _json_lines(out, args, code, err)
    if len(objs) != 1:
        raise FaithprobeError(f"compare printed {len(objs)} JSON objects, not one", exit_code=code, stderr=err, args=args)
    return Comparison.from_json(objs[0], code, err)


def score(
    log: PathLike,
    *,
    checker: CheckerArg = None,
    config: Optional[PathLike] = None,
    contexts: Optional[PathLike] = None,
    labels: Optional[PathLike] = None,
    correct_with: Optional[PathLike] = None,
    record: Optional[PathLike] = None,
    show: Optional[str] = None,
    extra_args: Sequence[str] = (),
    cwd: Optional[PathLike] = None,
    echo_stderr: bool = True,
) -> Score:
    """`faithprobe score LOG`: logged answers split into claims, each verified; the rates of
    unsupported answers and claims per definition, and every answer with its claims."""
    with _checkers([checker], config) as (cfg, names, env):
        args = ["score", os.fspath(log), "--format", "json", *cfg]
        args += _opt("--checker", names[0])
        for flag, value in (("--contexts", contexts), ("--labels", labels), ("--correct-with", correct_with),
                            ("--record", record)):
            args += _opt(flag, None if value is None else os.fspath(value))
        args += _opt("--show", show) + list(extra_args)
        code, out, err = invoke(args, cwd=cwd, env=env, echo_stderr=echo_stderr)
    objs = _json_lines(out, args, code, err)
    if len(objs) != 1:
        raise FaithprobeError(f"score printed {len(objs)} JSON objects, not one", exit_code=code, stderr=err, args=args)
    return Score.from_json(objs[0], code, err)


def sweep(
    suites: Union[PathLike, Sequence[PathLike]],
    *,
    checker: CheckerArg,
    config: Optional[PathLike] = None,
    max_false_alarm: Optional[float] = None,
    calibrate_on: Optional[float] = None,
    margin: Optional[float] = None,
    extra_args: Sequence[str] = (),
    cwd: Optional[PathLike] = None,
    echo_stderr: bool = True,
) -> Sweep:
    """`faithprobe sweep SUITE... --checker NAME`: every threshold with its false-alarm and
    detection rates, and the recommended threshold (None when none qualifies)."""
    with _checkers([checker], config) as (cfg, names, env):
        args = ["sweep", *_paths(suites), "--format", "json", *cfg, "--checker", str(names[0])]
        args += _opt("--max-false-alarm", max_false_alarm) + _opt("--calibrate-on", calibrate_on)
        args += _opt("--margin", margin) + list(extra_args)
        code, out, err = invoke(args, cwd=cwd, env=env, echo_stderr=echo_stderr)
    objs = _json_lines(out, args, code, err)
    if len(objs) != 1:
        raise FaithprobeError(f"sweep printed {len(objs)} JSON objects, not one", exit_code=code, stderr=err, args=args)
    return Sweep.from_json(objs[0], code, err)
