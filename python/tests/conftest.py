"""Shared fixtures: the repository (for its shipped suites, README and schemas), and a folder of the
test's own as the working directory with an empty faithprobe config, so no test reads a
configuration it did not write."""
from __future__ import annotations

import os
import pathlib

import pytest

REPO = pathlib.Path(os.environ.get("FAITHPROBE_REPO", pathlib.Path(__file__).resolve().parents[2]))
LARKSPUR = REPO / "suites" / "larkspur.yaml"


@pytest.fixture(autouse=True)
def own_folder(tmp_path, monkeypatch):
    """Each test runs in its own folder, with a config it wrote (empty) and no CI variable."""
    empty = tmp_path / "empty-config.yaml"
    empty.write_text("checkers: {}\n")
    monkeypatch.setenv("FAITHPROBE_CONFIG", str(empty))
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("FAITHPROBE_SERVING", raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def larkspur():
    return LARKSPUR
