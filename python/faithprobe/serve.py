"""`python -m faithprobe.serve MODULE:NAME` (or `path/to/file.py:NAME`) serves a checker written as a
Python function over the `command` protocol on stdin and stdout, for a `faithprobe.yaml` entry:

    checkers:
      mine:
        kind: command
        argv: [python3, -m, faithprobe.serve, my_checks:check]

NAME is a function decorated with `@faithprobe.checker`, or a plain function `check(claim, passages,
question)`. What the function prints goes to stderr (faithprobe copies it, prefixed with the
checker's name), so it never mixes with the answers."""
from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from typing import Any, List, Optional

from ._checker import Checker

__all__ = ["load", "main"]


def load(target: str) -> Checker:
    """The checker `MODULE:NAME` or `FILE.py:NAME` names."""
    where, sep, attr = target.rpartition(":")
    if not sep or not where or not attr:
        raise SystemExit(f"faithprobe.serve: {target!r} is not MODULE:NAME or FILE.py:NAME")
    if where.endswith(".py") or os.sep in where:
        path = os.path.abspath(where)
        spec = importlib.util.spec_from_file_location("__faithprobe_serve__", path)
        if spec is None or spec.loader is None:
            raise SystemExit(f"faithprobe.serve: cannot load {path}")
        module = importlib.util.module_from_spec(spec)
        sys.path.insert(0, os.path.dirname(path))
        spec.loader.exec_module(module)
    else:
        sys.path.insert(0, os.getcwd())
        module = importlib.import_module(where)
    obj: Any = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise SystemExit(f"faithprobe.serve: {where} has no {attr!r}") from None
    if isinstance(obj, Checker):
        return obj
    if callable(obj):
        return Checker(obj)
    raise SystemExit(f"faithprobe.serve: {target} is not a function")


def main(argv: Optional[List[str]] = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or args[0] in ("-h", "--help"):
        print(__doc__, file=sys.stderr)
        return 2
    os.environ["FAITHPROBE_SERVING"] = "1"
    answers = sys.stdout
    sys.stdout = sys.stderr  # what the module prints on import must not reach the answers either
    try:
        checker = load(args[0])
    finally:
        sys.stdout = answers
    return checker.serve_stdio()


if __name__ == "__main__":
    sys.exit(main())
