"""Where the `faithprobe` binary of this installation is, found the way ruff's `find_ruff_bin` finds
ruff's: the scripts folder of the environment the package is installed in, the user scheme's,
the `bin` folder beside the package (`pip install --target`), then PATH."""
from __future__ import annotations

import os
import shutil
import sys
import sysconfig

__all__ = ["find_faithprobe_bin"]


def _user_scheme() -> str:
    if sys.version_info >= (3, 10):
        return sysconfig.get_preferred_scheme("user")
    if os.name == "nt":
        return "nt_user"
    if sys.platform == "darwin" and sys._framework:  # type: ignore[attr-defined]
        return "osx_framework_user"
    return "posix_user"


def find_faithprobe_bin() -> str:
    """The path of the `faithprobe` binary that came with this package.

    `FAITHPROBE_BIN`, when set, wins (a binary built with cargo, say). Raises FileNotFoundError
    naming every place looked in when there is none."""
    override = os.environ.get("FAITHPROBE_BIN")
    if override:
        if os.path.isfile(override):
            return override
        raise FileNotFoundError(f"FAITHPROBE_BIN is {override!r}, which is not a file")
    exe = "faithprobe" + (sysconfig.get_config_var("EXE") or "")
    looked = []
    scripts = sysconfig.get_path("scripts")
    candidates = [os.path.join(scripts, exe)]
    try:
        candidates.append(os.path.join(sysconfig.get_path("scripts", scheme=_user_scheme()), exe))
    except KeyError:
        pass
    pkg_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    candidates.append(os.path.join(pkg_root, "bin", exe))
    for path in candidates:
        looked.append(path)
        if os.path.isfile(path):
            return path
    on_path = shutil.which(exe)
    if on_path:
        return on_path
    looked.append("PATH")
    raise FileNotFoundError(
        "no faithprobe binary (looked in " + ", ".join(looked) + "); `pip install faithprobe` puts one in the "
        "environment's scripts folder"
    )
