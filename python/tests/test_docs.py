"""The guide documents what the package offers: the plugin's options, the API's calls, the action's
inputs, the pre-commit hooks (docs/src/how-to/: python.md, own-checker.md, ci.md)."""
from __future__ import annotations

import re

import faithprobe
from conftest import REPO


GUIDE = REPO / "docs" / "src" / "how-to"


def test_the_guide_names_the_plugins_options_the_api_and_the_actions_inputs():
    section = "\n".join((GUIDE / page).read_text() for page in ("python.md", "own-checker.md", "ci.md"))
    for flag in ("--faithprobe-suite", "--faithprobe-checker", "--faithprobe-repeat", "--faithprobe-base",
                 "--faithprobe-min-catch", "--faithprobe-max-false-alarm", "--faithprobe-record",
                 "--faithprobe-config", "--faithprobe-max-new-misses"):
        assert flag in section, flag
    for name in ("run", "compare", "score", "sweep", "find_faithprobe_bin", "FaithprobeError", "checker"):
        assert name in faithprobe.__all__ and name in section, name
    action = (REPO / "action.yml").read_text()
    inputs = action[action.index("\ninputs:\n"):action.index("\noutputs:\n")]
    names = re.findall(r"^  ([\w-]+):$", inputs, re.MULTILINE)
    assert "checker" in names and "github-token" in names, names
    for name in names:
        assert f"`{name}`" in section, f"the guide does not describe the action's input {name}"


def test_the_guide_names_every_pre_commit_hook():
    section = (GUIDE / "ci.md").read_text().split("## pre-commit", 1)[1]
    hooks = re.findall(r"^- id: (\S+)$", (REPO / ".pre-commit-hooks.yaml").read_text(), re.MULTILINE)
    assert len(hooks) == 3
    for hook_id in hooks:
        assert f"id: {hook_id}" in section, hook_id
