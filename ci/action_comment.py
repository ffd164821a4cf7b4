"""Posts or updates the one faithprobe comment on a pull request (the GitHub Action's sticky comment).

    python3 ci/action_comment.py BODY.md

Reads GITHUB_TOKEN, GITHUB_REPOSITORY (owner/name), GITHUB_EVENT_PATH (the pull_request event,
for its number) and GITHUB_API_URL (default https://api.github.com). The comment carries a hidden
marker; the first comment of the pull request that has it is updated (PATCH), else one is created
(POST). Writes comment-url to GITHUB_OUTPUT when set. Standard library only."""
import json
import os
import sys
import urllib.error
import urllib.request

MARKER = "<!-- faithprobe-action: sticky comment -->"


def api(method, url, token, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method, headers={
        "Authorization": f"Bearer {token}",
        "Accept": "application/vnd.github+json",
        "X-GitHub-Api-Version": "2022-11-28",
        "Content-Type": "application/json",
        "User-Agent": "faithprobe-action",
    })
    with urllib.request.urlopen(req, timeout=30) as resp:
        return json.loads(resp.read() or b"null")


def main():
    body_path = sys.argv[1]
    token = os.environ.get("GITHUB_TOKEN")
    repo = os.environ.get("GITHUB_REPOSITORY")
    event_path = os.environ.get("GITHUB_EVENT_PATH")
    if not token or not repo or not event_path:
        sys.exit("action: GITHUB_TOKEN, GITHUB_REPOSITORY and GITHUB_EVENT_PATH are needed to comment")
    with open(event_path, encoding="utf-8") as f:
        event = json.load(f)
    number = (event.get("pull_request") or {}).get("number") or event.get("number")
    if not number:
        sys.exit("action: the event is not a pull request's; no comment posted")
    base = os.environ.get("GITHUB_API_URL", "https://api.github.com").rstrip("/")
    with open(body_path, encoding="utf-8") as f:
        body = MARKER + "\n" + f.read()
    existing = None
    page = 1
    while existing is None:
        comments = api("GET", f"{base}/repos/{repo}/issues/{number}/comments?per_page=100&page={page}", token)
        existing = next((c for c in comments if MARKER in (c.get("body") or "")), None)
        if len(comments) < 100:
            break
        page += 1
    if existing:
        done = api("PATCH", f"{base}/repos/{repo}/issues/comments/{existing['id']}", token, {"body": body})
        print(f"action: updated the faithprobe comment {done.get('html_url', existing['id'])}")
    else:
        done = api("POST", f"{base}/repos/{repo}/issues/{number}/comments", token, {"body": body})
        print(f"action: posted the faithprobe comment {done.get('html_url', '')}")
    output = os.environ.get("GITHUB_OUTPUT")
    if output:
        with open(output, "a", encoding="utf-8") as f:
            f.write(f"comment-url={done.get('html_url', '')}\n")


if __name__ == "__main__":
    try:
        main()
    except urllib.error.HTTPError as e:
        sys.exit(f"action: GitHub answered {e.code} {e.reason}: {e.read()[:300]!r}")
    except urllib.error.URLError as e:
        sys.exit(f"action: could not reach the GitHub API: {e.reason}")
