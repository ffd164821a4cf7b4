"""`python -m faithprobe ...` runs the binary with the same arguments, as `python -m ruff` does."""
from __future__ import annotations

import os
import subprocess
import sys

from ._find_bin import find_faithprobe_bin


def _run() -> None:
    binary = find_faithprobe_bin()
    if sys.platform == "win32":
        sys.exit(subprocess.run([binary, *sys.argv[1:]]).returncode)
    os.execvp(binary, [binary, *sys.argv[1:]])


if __name__ == "__main__":
    _run()
