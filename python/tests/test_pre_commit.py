"""The pre-commit hooks of `.pre-commit-hooks.yaml`, run as pre-commit runs them: each hook's `files`
pattern picks from the staged files, its `entry` runs in the hook's Python environment (here the
tests' own, which has the wheel) with the picked files appended unless `pass_filenames: false`,
and a non-zero exit fails the commit."""
from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys

import pytest

import faithprobe
from conftest import LARKSPUR, REPO

REFUNDS = """\
suite: refunds-policy
description: Refund policy passages from a support bot's retrieval index, with claims a person verified.
contexts:
  - id: refund-window
    question: Can I still get my money back for an order from last month?
    passages:
      - id: policy-2.1
        text: >-
          Orders can be refunded within 30 days of delivery. Refunds are issued to the original
          payment method within 5 business days.
    faithful:
      - {id: r01, claim: "Orders can be refunded within 30 days of delivery."}
      - {id: r02, claim: "Refunds are issued to the original payment method."}
"""


def hooks():
    """`.pre-commit-hooks.yaml`: a list of flat mappings (the subset of YAML it is written in)."""
    out, cur = [], None
    for line in (REPO / ".pre-commit-hooks.yaml").read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = re.match(r"^(- |  )(\w+): (.*)$", line)
        assert m, f"unexpected line in .pre-commit-hooks.yaml: {line!r}"
        if m.group(1) == "- ":
            cur = {}
            out.append(cur)
        cur[m.group(2)] = m.group(3)
    return {h["id"]: h for h in out}


def run_hook(hook_id, repo, staged):
    """What pre-commit does for one hook on the staged files: (exit code, output)."""
    h = hooks()[hook_id]
    files = [f for f in staged if re.search(h.get("files", ""), f)]
    if not files and h.get("always_run") != "true":
        return 0, "(no files to check) Skipped"
    argv = shlex.split(h["entry"])
    assert argv[0] == "python" and h["language"] == "python"
    argv[0] = sys.executable  # pre-commit's `python` is the hook environment's
    if h.get("pass_filenames", "true") != "false":
        argv += files
    out = subprocess.run(argv, cwd=repo, capture_output=True, text=True, timeout=120)
    return out.returncode, out.stdout + out.stderr


@pytest.fixture
def repo(tmp_path):
    r = tmp_path / "support-bot"
    (r / "suites").mkdir(parents=True)
    (r / "suites" / "refunds.yaml").write_text(REFUNDS)
    (r / ".github" / "workflows").mkdir(parents=True)
    (r / ".github" / "workflows" / "ci.yml").write_text("name: ci\non: [push]\n")
    return r


def test_there_are_three_hooks_each_running_the_package():
    assert sorted(hooks()) == ["faithprobe-quick", "faithprobe-reviews", "faithprobe-snapshots"]
    assert all(h["entry"].startswith("python -m faithprobe.hooks ") for h in hooks().values())


def test_reviews_pending_fail_the_commit_until_a_person_reviews_them(repo):
    code, out = run_hook("faithprobe-reviews", repo, ["suites/refunds.yaml", ".github/workflows/ci.yml"])
    assert code == 1, out
    assert "7 of 7 mutants and rewrites unreviewed" in out
    block = subprocess.run([faithprobe.find_faithprobe_bin(), "mutants", "suites/refunds.yaml", "--format", "yaml"],
                           cwd=repo, capture_output=True, text=True, check=True).stdout
    (repo / "suites" / "refunds.yaml").write_text(REFUNDS + block)
    code, out = run_hook("faithprobe-reviews", repo, ["suites/refunds.yaml"])
    assert code == 0, out


def test_a_changed_side_file_stands_for_its_suite(repo):
    # `review --set` writes the decision into the side file refunds.reviews.yaml
    subprocess.run([faithprobe.find_faithprobe_bin(), "review", "suites/refunds.yaml", "--set",
                    "m-f294c19da4664f05=fault"], cwd=repo, capture_output=True, text=True, check=True)
    assert (repo / "suites" / "refunds.reviews.yaml").is_file()
    code, out = run_hook("faithprobe-reviews", repo, ["suites/refunds.reviews.yaml"])
    assert code == 1 and "6 of 7 mutants and rewrites unreviewed" in out, out


def test_snapshots_pending_fail_the_commit(repo, larkspur):
    code, out = run_hook("faithprobe-snapshots", repo, [])
    assert code == 0, "no snapshots folder: nothing pending"
    shutil.copy(larkspur, repo / "suites" / "larkspur.yaml")
    config = repo / "faithprobe.yaml"
    env = {**os.environ, "CI": "", "FAITHPROBE_CONFIG": str(config)}
    snapshot = [faithprobe.find_faithprobe_bin(), "run", "suites/larkspur.yaml", "--checker", "gate",
                "--snapshot", "snapshots"]
    config.write_text("checkers:\n  gate: {kind: lexical}\n")
    subprocess.run(snapshot, cwd=repo, capture_output=True, check=True, env=env)
    assert run_hook("faithprobe-snapshots", repo, [])[0] == 0, "accepted snapshots only"
    config.write_text("checkers:\n  gate: {kind: lexical, threshold: 0.3}\n")
    subprocess.run(snapshot, cwd=repo, capture_output=True, env=env)
    assert list((repo / "snapshots").glob("*.snap.new")), "the changed checker wrote a .snap.new"
    code, out = run_hook("faithprobe-snapshots", repo, [])
    assert code == 1, out


def test_the_quick_run_fails_on_a_suite_that_does_not_load_and_ignores_other_yaml(repo):
    code, out = run_hook("faithprobe-quick", repo, ["suites/refunds.yaml", ".github/workflows/ci.yml"])
    assert code == 0, out
    assert "refunds-policy" in out and "lexical" in out
    (repo / "suites" / "refunds.yaml").write_text(REFUNDS.replace("- {id: r02,", "- {id: r01,"))
    code, out = run_hook("faithprobe-quick", repo, ["suites/refunds.yaml"])
    assert code == 2, out
    assert "suites/refunds.yaml:" in out
