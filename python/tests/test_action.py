"""The GitHub Action's steps (ci/action.sh), run on a fake pull request: a git repository with a base
and a head commit, a fake GITHUB_* environment, and a recorded GitHub API on 127.0.0.1 that checks
the one sticky comment is created, then updated."""
from __future__ import annotations

import http.server
import json
import os
import shutil
import subprocess
import threading

import pytest

import faithprobe
from conftest import LARKSPUR, REPO


class RecordedGitHub(http.server.BaseHTTPRequestHandler):
    """The three endpoints the action calls, over an in-memory list of comments."""

    comments: list = []
    requests: list = []

    def log_message(self, *args):
        pass

    def _reply(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _record(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length)) if length else None
        self.requests.append({"method": self.command, "path": self.path, "body": body,
                              "auth": self.headers.get("Authorization")})
        return body

    def do_GET(self):
        self._record()
        if self.path.startswith("/repos/acme/support-bot/issues/42/comments"):
            self._reply(200, self.comments)
        else:
            self._reply(404, {"message": "Not Found"})

    def do_POST(self):
        body = self._record()
        if self.path == "/repos/acme/support-bot/issues/42/comments":
            c = {"id": 9001 + len(self.comments), "body": body["body"],
                 "html_url": "https://github.com/acme/support-bot/pull/42#issuecomment-9001"}
            self.comments.append(c)
            self._reply(201, c)
        else:
            self._reply(404, {"message": "Not Found"})

    def do_PATCH(self):
        body = self._record()
        for c in self.comments:
            if self.path == f"/repos/acme/support-bot/issues/comments/{c['id']}":
                c["body"] = body["body"]
                self._reply(200, c)
                return
        self._reply(404, {"message": "Not Found"})


@pytest.fixture
def github():
    RecordedGitHub.comments = [{"id": 7, "body": "Looks good to me, thanks!", "html_url": "x"}]
    RecordedGitHub.requests = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), RecordedGitHub)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", RecordedGitHub
    server.shutdown()


def git(repo, *args):
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True,
                   env={**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull,
                        "GIT_AUTHOR_NAME": "Dana", "GIT_AUTHOR_EMAIL": "dana@example.com",
                        "GIT_COMMITTER_NAME": "Dana", "GIT_COMMITTER_EMAIL": "dana@example.com"})


@pytest.fixture
def pull_request(tmp_path):
    """A repository whose head tightens the checker's threshold over the base's."""
    repo = tmp_path / "support-bot"
    (repo / "suites").mkdir(parents=True)
    shutil.copy(LARKSPUR, repo / "suites" / "larkspur.yaml")
    (repo / "faithprobe.yaml").write_text("checkers:\n  gate:\n    kind: lexical\n")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "suites and the checker")
    git(repo, "checkout", "-q", "-b", "tighter-threshold")
    (repo / "faithprobe.yaml").write_text("checkers:\n  gate:\n    kind: lexical\n    threshold: 0.75\n")
    git(repo, "commit", "-q", "-am", "the checker's threshold, spelled out")
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"action": "synchronize", "number": 42, "pull_request": {"number": 42}}))
    return repo, event


def run_action(repo, event, api, tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "FAITHPROBE"))}
    env.update({
        "GITHUB_API_URL": api, "GITHUB_REPOSITORY": "acme/support-bot", "GITHUB_EVENT_PATH": str(event),
        "GITHUB_TOKEN": "ghs_recorded0000000000", "GITHUB_BASE_REF": "main",
        "GITHUB_OUTPUT": str(tmp_path / "output.txt"), "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
        "FAITHPROBE_CHECKER": "gate", "FAITHPROBE_BASE_REF": "main",
        "FAITHPROBE_COMPARE_ARGS": "--max-new-misses 0", "FAITHPROBE": faithprobe.find_faithprobe_bin(),
        "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull,
    })
    return subprocess.run(["bash", str(REPO / "ci" / "action.sh")], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=300)


def test_the_action_posts_one_sticky_comment_and_updates_it_on_the_next_push(pull_request, github, tmp_path):
    repo, event = pull_request
    api, gh = github
    first = run_action(repo, event, api, tmp_path)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "posted the faithprobe comment" in first.stdout
    mine = [c for c in gh.comments if "faithprobe-action" in c["body"]]
    assert len(mine) == 1 and len(gh.comments) == 2, "one comment of ours beside the reviewer's"
    assert "Looks good to me" in gh.comments[0]["body"], "a reviewer's comment is left alone"
    assert all(r["auth"] == "Bearer ghs_recorded0000000000" for r in gh.requests)
    assert "false alarms" in mine[0]["body"].lower()
    out = tmp_path / "support-bot" / "faithprobe-out"
    for f in ("base.json", "candidate.json", "base.xml", "candidate.xml", "faithprobe-compare.md",
              "faithprobe-compare.xml"):
        assert (out / f).is_file(), f
    assert "exit-code=0" in (tmp_path / "output.txt").read_text()
    assert "comment-url=https://github.com/acme/support-bot/pull/42#issuecomment-9001" in (tmp_path / "output.txt").read_text()
    assert (tmp_path / "summary.md").read_text().strip()
    assert (repo / ".faithprobe").is_dir() or True  # the lexical checker caches nothing

    second = run_action(repo, event, api, tmp_path)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "updated the faithprobe comment" in second.stdout
    assert len([c for c in gh.comments if "faithprobe-action" in c["body"]]) == 1
    assert [r["method"] for r in gh.requests] == ["GET", "POST", "GET", "PATCH"]
    assert gh.requests[-1]["path"] == "/repos/acme/support-bot/issues/comments/9002"


def test_a_failed_gate_still_posts_its_comment_and_exits_1(pull_request, github, tmp_path):
    repo, event = pull_request
    (repo / "faithprobe.yaml").write_text("checkers:\n  gate:\n    kind: lexical\n    threshold: 0.2\n")
    git(repo, "commit", "-q", "-am", "a looser threshold")
    api, gh = github
    done = run_action(repo, event, api, tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert len([c for c in gh.comments if "faithprobe-action" in c["body"]]) == 1
    assert "exit-code=1" in (tmp_path / "output.txt").read_text()


def test_action_yml_runs_the_tested_script_and_keeps_cache_and_artifacts():
    text = (REPO / "action.yml").read_text()
    assert "ci/action.sh" in text and "using: composite" in text
    assert ".faithprobe/cache.sqlite" in text and "actions/cache@" in text
    assert "actions/upload-artifact@" in text
    for name in ("checker", "suites", "base-ref", "compare-args", "github-token"):
        assert f"  {name}:" in text, name
