"""The pre-commit hooks (`.pre-commit-hooks.yaml`), run as `python -m faithprobe.hooks HOOK [FILE...]`:

    reviews    FILE...  `faithprobe review SUITE... --list`: fails while a changed suite has mutants or
                        rewrites nobody reviewed (a changed `NAME.reviews.yaml` stands for `NAME.yaml`)
    snapshots  [DIR]    `faithprobe snapshot pending DIR` (default snapshots/): fails while a `.snap.new`
                        waits to be accepted or rejected; nothing to do when DIR does not exist
    quick      FILE...  `faithprobe run SUITE... --checker lexical --no-cache`: each changed suite loads
                        and runs with the built-in checker (a fraction of a second a suite)

Files that are not suites (YAML without a top-level `suite:` key) are left out, so the hooks can
match every `.yaml` file. The binary's own output is shown as it is; the exit code is its."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from typing import List, Optional

from ._find_bin import find_faithprobe_bin

SUITE_KEY = re.compile(r"^suite:\s*\S", re.MULTILINE)


def _is_suite(path: str) -> bool:
    try:
        with open(path, encoding="utf-8") as f:
            return bool(SUITE_KEY.search(f.read(65536)))
    except (OSError, UnicodeDecodeError):
        return False


def suites_of(files: List[str]) -> List[str]:
    """The suites among `files`, a side file `NAME.reviews.yaml` standing for its `NAME.yaml`; each once."""
    out: List[str] = []
    for f in files:
        m = re.match(r"(.*)\.reviews\.ya?ml$", f)
        if m:
            f = next((m.group(1) + ext for ext in (".yaml", ".yml") if os.path.exists(m.group(1) + ext)), f)
        if f not in out and _is_suite(f):
            out.append(f)
    return out


def _binary(args: List[str]) -> int:
    return subprocess.call([find_faithprobe_bin(), *args])


def main(argv: Optional[List[str]] = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] not in ("reviews", "snapshots", "quick"):
        print(__doc__, file=sys.stderr)
        return 2
    hook, rest = args[0], args[1:]
    if hook == "snapshots":
        folder = rest[0] if rest else "snapshots"
        if not os.path.isdir(folder):
            return 0
        return _binary(["snapshot", "pending", folder])
    suites = suites_of(rest)
    if not suites:
        return 0
    if hook == "reviews":
        return _binary(["review", *suites, "--list"])
    return _binary(["run", *suites, "--checker", "lexical", "--no-cache"])


if __name__ == "__main__":
    sys.exit(main())
