#!/usr/bin/env python3
"""Bench row (b): what prompt caching saves on a review with tool rounds.

A fake Anthropic Messages API (POST /v1/messages) on 127.0.0.1 that bills
prompt caching the way Anthropic documents it, and the row that drives
`revline review` against it on a 2,000-line diff whose model asks for three
tool rounds before it answers.

The caching rules simulated (Anthropic "Prompt caching"):
- The prompt is the sequence tools -> system -> messages, block by block. A
  block marked "cache_control" is a breakpoint: the prefix up to and including
  it is written to the cache (billed at 1.25x the input price, the 5-minute
  cache), once it is at least MIN_CACHEABLE tokens long.
- A later request reads from the cache (billed at 0.1x) the longest prefix
  that was cached before, looked for at each breakpoint and up to LOOKBACK
  blocks before it. What lies between that hit and the request's last
  breakpoint is written; what follows the last breakpoint is plain input.
Honesty: a prefix counts as cached only when every block of it is identical
to a prefix sent before: blocks are compared by their exact serialisation
(keys in the order sent; the "cache_control" marker itself taken out, as the
API keys the cache by content). The model name and tool_choice head the
prefix, so changing either drops the whole cache (stricter than the API,
which keeps tools and system on a tool_choice change). Tokens are bytes / 4.

The baseline is the same conversation billed without caching: every input
token of every request at 1x, summed by the same fake in the same run.

    tests/bench/fake_model_cache.py [--revline PATH] [--quick]   (this row alone)
"""
import argparse
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CACHE_READ = 0.1     # x the input price: cache hits and refreshes
CACHE_WRITE = 1.25   # x the input price: 5-minute cache writes
MIN_CACHEABLE = 1024  # tokens: shorter prefixes are not cached (Claude Sonnet / Opus minimum)
LOOKBACK = 20        # blocks before a breakpoint where an earlier cache hit is looked for
GOAL = 0.5           # billed with caching / without, at most


def tokens(data):
    return (len(data) + 3) // 4


def _canonical(obj):
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode()


def _strip(block):
    if isinstance(block, dict) and "cache_control" in block:
        block = {k: v for k, v in block.items() if k != "cache_control"}
        return block, True
    return block, False


def prefix_blocks(body):
    """The request as (bytes, is_breakpoint) blocks in the order the cache prefix is built."""
    out = [(_canonical({"model": body.get("model"), "tool_choice": body.get("tool_choice")}), False)]
    for tool in body.get("tools", []):
        t, mark = _strip(tool)
        out.append((b"tool:" + _canonical(t), mark))
    system = body.get("system")
    if isinstance(system, str):
        out.append((b"system:" + _canonical(system), False))
    elif isinstance(system, list):
        for block in system:
            b, mark = _strip(block)
            out.append((b"system:" + _canonical(b), mark))
    for i, m in enumerate(body.get("messages", [])):
        content = m.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for j, block in enumerate(blocks):
            b, mark = _strip(block)
            # The role and the turn boundary are part of what must match.
            out.append((("%s:%d:%d:" % (m.get("role"), i, j)).encode() + _canonical(b), mark))
    return out


class PromptCache:
    """The provider's cache, shared by every request the fake serves."""

    def __init__(self):
        self.lock = threading.Lock()
        self.entries = set()  # hashes of cached prefixes
        self.requests = []    # per request: total, uncached, read, write, body bytes

    def bill(self, body, raw_size):
        blocks = prefix_blocks(body)
        cum, hashes, h, n = [], [], hashlib.sha256(), 0
        for data, _ in blocks:
            h.update(hashlib.sha256(data).digest())
            hashes.append(h.copy().hexdigest())
            n += tokens(data)
            cum.append(n)
        total = cum[-1]
        breakpoints = [i for i, (_, mark) in enumerate(blocks) if mark]
        read = write = 0
        with self.lock:
            if breakpoints:
                last = breakpoints[-1]
                hit = -1
                for b in breakpoints:
                    for j in range(b, max(-1, b - LOOKBACK - 1), -1):
                        if hashes[j] in self.entries:
                            hit = max(hit, j)
                            break
                read = cum[hit] if hit >= 0 else 0
                if cum[last] >= MIN_CACHEABLE:
                    write = cum[last] - read
                for b in breakpoints:
                    if cum[b] >= MIN_CACHEABLE:
                        self.entries.add(hashes[b])
            usage = {"total": total, "uncached": total - read - write, "read": read, "write": write, "bytes": raw_size}
            self.requests.append(usage)
        return usage

    def billed(self):
        """(input billed with caching, the same input billed without), in input-price tokens."""
        with_cache = sum(r["uncached"] + CACHE_WRITE * r["write"] + CACHE_READ * r["read"] for r in self.requests)
        without = sum(r["total"] for r in self.requests)
        return with_cache, without


class FakeAnthropic:
    """Answers each conversation with `tool_rounds` rounds of read_file calls, then an empty review."""

    def __init__(self, read_paths, tool_rounds=3):
        self.cache = PromptCache()
        self.read_paths = read_paths
        self.tool_rounds = tool_rounds
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                try:
                    body = json.loads(raw)
                    reply = fake.answer(body, len(raw))
                    status = 200
                except Exception as e:  # a broken request is the bench's finding, not a crash
                    reply, status = {"type": "error", "error": {"type": "invalid_request_error", "message": str(e)}}, 400
                data = json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self):
        return "http://127.0.0.1:%d" % self.server.server_address[1]

    def close(self):
        self.server.shutdown()
        self.server.server_close()

    def answer(self, body, raw_size):
        usage = self.cache.bill(body, raw_size)
        # Which round this is, from the conversation itself (so parallel chunks work too).
        rounds = sum(1 for m in body.get("messages", []) if m.get("role") == "assistant" and isinstance(m.get("content"), list)
                     and any(b.get("type") == "tool_use" and b.get("name") != "submit_review" for b in m["content"]))
        if rounds < self.tool_rounds:
            path = self.read_paths[rounds % len(self.read_paths)]
            content = [{"type": "text", "text": "I need the rest of %s." % path},
                       {"type": "tool_use", "id": "toolu_bench_%d" % rounds, "name": "read_file", "input": {"path": path}}]
            stop = "tool_use"
        else:
            report = {"summary": "Reviewed.", "findings": [], "verdict": "COMMENT"}
            content = [{"type": "tool_use", "id": "toolu_bench_submit", "name": "submit_review", "input": report}]
            stop = "tool_use"
        out = tokens(_canonical(content))
        return {"id": "msg_bench", "type": "message", "role": "assistant", "model": body.get("model"),
                "content": content, "stop_reason": stop,
                "usage": {"input_tokens": usage["uncached"], "cache_creation_input_tokens": usage["write"],
                          "cache_read_input_tokens": usage["read"], "output_tokens": out}}


WORDS = ("int value return if for while count name result total items size index buffer offset "
         "config logger request response error status update create delete parse render").split()


def _line(rng):
    return "    " * rng.randint(0, 3) + " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 9))) + rng.choice((";", " {", "", "}"))


def make_repo(dest, env, diff_lines, rng):
    """A repository whose working-tree diff has about `diff_lines` lines over 8 files."""
    os.makedirs(dest)

    def git(*args):
        subprocess.run(["git", *args], cwd=dest, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    git("init", "-q", "-b", "main")
    files = ["src/module_%d.c" % i for i in range(8)]
    per_file = max(4, diff_lines // len(files) * 2 // 3)  # every other line changed: ~1.5 diff lines per line
    old = {}
    for f in files:
        os.makedirs(os.path.join(dest, os.path.dirname(f)), exist_ok=True)
        old[f] = [_line(rng) for _ in range(per_file)]
        with open(os.path.join(dest, f), "w") as out:
            out.write("\n".join(old[f]) + "\n")
    git("add", "-A")
    git("commit", "-q", "-m", "base")
    for f in files:
        with open(os.path.join(dest, f), "w") as out:
            out.write("\n".join(_line(rng) if i % 2 else l for i, l in enumerate(old[f])) + "\n")
    return files


def run_row(revline, work, env, quick=False):
    """Runs the row; returns (row tuple for the table, failures)."""
    failures = []
    rng = random.Random(20240202)
    repo = os.path.join(work, "cache-review")
    shutil.rmtree(repo, ignore_errors=True)
    files = make_repo(repo, env, 400 if quick else 2000, rng)
    diff_lines = subprocess.run(["git", "diff"], cwd=repo, env=env, stdout=subprocess.PIPE, check=True).stdout.count(b"\n")
    fake = FakeAnthropic(read_paths=files[:3], tool_rounds=3)
    xdg = os.path.join(work, "cache-xdg")
    os.makedirs(xdg, exist_ok=True)
    e = dict(env, XDG_CONFIG_HOME=xdg, XDG_CACHE_HOME=xdg)
    try:
        r = subprocess.run([revline, "review", "--provider", "anthropic", "--base-url", fake.url, "--model",
                            "claude-bench", "--format", "json", "--max-tool-calls", "5"],
                           cwd=repo, env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300, check=False)
    finally:
        fake.close()
    requests = fake.cache.requests
    with_cache, without = fake.cache.billed()
    if r.returncode not in (0, 1):
        failures.append("the prompt-cache review failed (exit %d): %s" % (r.returncode, r.stderr.decode(errors="replace")[-500:]))
    else:
        usage = json.loads(r.stdout)["usage"]
        # What revline reports must be what the provider billed.
        expect = {"requests": len(requests), "inputTokens": without,
                  "cachedInputTokens": sum(q["read"] for q in requests),
                  "cacheWriteTokens": sum(q["write"] for q in requests)}
        for k, v in expect.items():
            if usage.get(k) != v:
                failures.append("revline reported usage.%s = %s, the fake provider billed %s" % (k, usage.get(k), v))
    if len(requests) < 4:
        failures.append("expected 4 requests (3 tool rounds and the answer), got %d" % len(requests))
    ratio = with_cache / without if without else float("inf")
    row = ("input tokens billed at cache prices (%d-line diff, %d requests, 3 tool rounds, Anthropic 0.1x read / 1.25x write)"
           % (diff_lines, len(requests)),
           "%.0f tokens" % with_cache, "%.0f tokens (no caching)" % without, "%.2fx" % ratio, "<= %.1fx" % GOAL,
           "PASS" if ratio <= GOAL else "MISS")
    return row, failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--revline", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "revline"))
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="revline-cache-bench-")
    try:
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        env.update({"HOME": work, "GIT_CONFIG_NOSYSTEM": "1", "LC_ALL": "C",
                    "GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "bench@example.com",
                    "GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "bench@example.com"})
        row, failures = run_row(os.path.abspath(a.revline), work, env, a.quick)
        print("| " + " | ".join(row) + " |")
        for f in failures:
            print("FAILED CHECK: " + f)
        return 1 if failures else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
