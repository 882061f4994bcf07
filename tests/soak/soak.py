#!/usr/bin/env python3
"""Soak test: drives `revline lsp --sync` through many edits and saves.

In a temporary git repository with several files in different languages, the
driver plays an editor for STEPS steps (default 1,000). Each step edits one
file (inserts lines the builtin rules flag, benign lines, deletions,
replacements, now and then a revert to HEAD), writes it to disk, sends the
matching incremental `didChange`, then `didSave`. Mixed in: malformed frames
(bad JSON with an id, JSON that is not JSON-RPC, bad or missing
Content-Length, junk bytes), unknown requests and notifications,
`revline.reviewFile` requests cancelled in the same write, hovers, code
actions, configuration changes, and commits that move HEAD.

Checked:
  - every valid request is answered exactly once (and malformed frames with a
    readable id get their -32700 / -32600);
  - every diagnostic published after a save sits on lines that `git diff HEAD`
    of that file shows at that moment as RIGHT-side (added or context) lines;
  - no review fails (no window/showMessage error);
  - RSS (VmRSS of /proc/PID/status) after the run is within RSS_RATIO (1.5) x
    the RSS after the first 100 saves;
  - `shutdown` + `exit` ends the server with status 0 (under ASan that also
    means LeakSanitizer found no leak).

Deterministic: a fixed random seed; --sync makes the server answer in order,
so a `revline/stats` request serves as a barrier after each phase of a step.

usage: soak.py --revline PATH [--steps N] [--seed S] [--rss-ratio R] [--keep]
"""
import argparse
import json
import os
import queue
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from lsp_process import LspProcess, file_uri, frame  # noqa: E402

TIMEOUT = float(os.environ.get("REVLINE_SOAK_TIMEOUT", "60"))


class Failure(Exception):
    pass


def utf16_len(s):
    return len(s.encode("utf-16-le")) // 2


# ---------------------------------------------------------------- the server

class Server(LspProcess):
    def __init__(self, binary, cwd, env, stderr_path):
        super().__init__([binary, "lsp", "--sync"], cwd, env, stderr_path)

    def receive(self, timeout=TIMEOUT):
        try:
            m = self.messages.get(timeout=timeout)
        except queue.Empty:
            raise Failure("no message from the server within %.0f s" % timeout)
        if m is None:
            raise Failure("the server closed its output (exit status %s)" % self.proc.poll())
        kind, value = m
        if kind == "bad":
            raise Failure(value)
        return value


# ---------------------------------------------------------------- the repository

FILES = {
    "src/buffer.c": ("c", ["#include <stdio.h>", "#include <string.h>", "", "static int count;", "",
                           "int copy_name(char* out, const char* name) {", "  size_t n = strlen(name);",
                           "  if (n > 15) return -1;", "  memcpy(out, name, n + 1);", "  count++;", "  return 0;",
                           "}", "", "int main(void) {", "  char out[16];", "  return copy_name(out, \"abc\");",
                           "}"]),
    "src/util.c": ("c", ["#include <stdlib.h>", "", "int clamp(int v, int lo, int hi) {",
                         "  if (v < lo) return lo;", "  if (v > hi) return hi;", "  return v;", "}"]),
    "app/service.py": ("python", ["import os", "", "", "def load(path):", "    with open(path) as f:",
                                  "        return f.read()", "", "", "def greet(name):",
                                  "    return 'hello ' + name"]),
    "web/view.js": ("javascript", ["'use strict';", "", "function render(el, user) {",
                                   "  el.textContent = user.name;", "  return el;", "}", "",
                                   "module.exports = { render };"]),
    "java/Pay.java": ("java", ["package pay;", "", "public class Pay {", "    public boolean ok(String c) {",
                               "        return \"NGN\".equals(c);", "    }", "}"]),
}

RISKY = {
    "c": ["  strcpy(out, name);", "  gets(out);", "  sprintf(out, \"%s\", name);", "  strcat(out, name);"],
    "python": ["    result = eval(name)", "    password = \"hunter2-hunter2-hunter2\"",
               "    os.system('rm -rf ' + path)"],
    "javascript": ["  el.innerHTML = user.bio;", "  eval(user.code);", "  const password = \"correct-horse-battery\";"],
    "java": ["        if (c == \"NGN\") return true;", "        String q = \"SELECT * FROM t WHERE c = '\" + c + \"'\";"],
}
COMMENT = {"c": "//", "python": "#", "javascript": "//", "java": "//"}
CONFLICT = ["<<<<<<< HEAD", "=======", ">>>>>>> other"]


def benign(lang, rng, n):
    c = COMMENT[lang]
    choice = rng.randrange(4)
    if choice == 0:
        return "%s note %d" % (c, n)
    if choice == 1:
        return "%s caf\u00e9 \U0001F600 %d" % (c, n)  # non-ASCII: UTF-16 positions matter
    if choice == 2:
        return ""
    return {"c": "  int v%d = %d;", "python": "    v%d = %d", "javascript": "  const v%d = %d;",
            "java": "        int v%d = %d;"}[lang] % (n, n)


class Repo:
    def __init__(self, root, env):
        self.root = root
        self.env = env

    def git(self, *args, check=True):
        r = subprocess.run(["git", "-c", "core.quotePath=true", *args], cwd=self.root, env=self.env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if check and r.returncode != 0:
            raise Failure("git %s failed: %s" % (" ".join(args), r.stderr.decode(errors="replace")))
        return r.stdout

    def right_side_lines(self):
        """{path: set of new-file line numbers (1-based) that `git diff HEAD` shows as added or context}."""
        text = self.git("diff", "--no-color", "--no-ext-diff", "-M", "HEAD").decode("utf-8", "replace")
        result = {}
        current = None
        new_line = 0
        in_hunk = False
        for line in text.split("\n"):
            if line.startswith("diff --git "):
                current = None
                in_hunk = False
                continue
            if not in_hunk and line.startswith("+++ "):
                target = line[4:].rstrip("\t")
                current = target[2:] if target.startswith("b/") else None
                if current is not None:
                    result.setdefault(current, set())
                continue
            m = re.match(r"@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@", line)
            if m:
                in_hunk = True
                new_line = int(m.group(1))
                continue
            if not in_hunk or current is None or line == "":
                continue
            if line[0] in " +":
                result[current].add(new_line)
                new_line += 1
        return result


# ---------------------------------------------------------------- the soak

class Soak:
    def __init__(self, args):
        self.args = args
        self.rng = random.Random(args.seed)
        self.next_id = 1
        self.expected = {}    # json.dumps(id) -> description; must be answered once
        self.answered = {}    # json.dumps(id) -> count
        self.null_id_errors = 0  # replies with id null (malformed frames without a readable id)
        self.publishes_checked = 0
        self.diagnostics_checked = 0
        self.stats = {}
        self.cancel_outcomes = {"completed": 0, "cancelled": 0}
        self.late = b""

    def new_id(self):
        i = self.next_id
        self.next_id += 1
        return i

    def request(self, method, params=None, write=True):
        i = self.new_id()
        m = {"jsonrpc": "2.0", "id": i, "method": method}
        if params is not None:
            m["params"] = params
        self.expected[json.dumps(i)] = method
        data = frame(m)
        if write:
            self.server.write(data)
        return i, data

    def notify(self, method, params, write=True):
        data = frame({"jsonrpc": "2.0", "method": method, "params": params})
        if write:
            self.server.write(data)
        return data

    def barrier(self):
        """Sends revline/stats and returns every message that arrived before its reply."""
        i, _ = self.request("revline/stats", {})
        got = []
        while True:
            m = self.server.receive()
            self.account(m)
            if m.get("id") == i and "method" not in m:
                self.stats = m.get("result", {})
                return got
            got.append(m)

    def account(self, m):
        if "method" in m:
            if m["method"] == "window/showMessage" and m["params"].get("type") == 1:
                raise Failure("a review failed: %s" % m["params"].get("message"))
            if "id" in m:
                raise Failure("unexpected request from the server: %s" % json.dumps(m)[:300])
            return
        if m.get("id") is None and m.get("error", {}).get("code") in (-32700, -32600):
            self.null_id_errors += 1  # a malformed frame whose id cannot be read: answered with id null
            return
        key = json.dumps(m.get("id"))
        if key not in self.expected:
            raise Failure("a reply to a request that was not sent (or not valid): %s" % json.dumps(m)[:300])
        self.answered[key] = self.answered.get(key, 0) + 1
        if self.answered[key] > 1:
            raise Failure("request %s answered twice: %s" % (key, json.dumps(m)[:300]))
        want = self.expected[key]
        if want in ("parse-error", "invalid-request"):
            code = {"parse-error": -32700, "invalid-request": -32600}[want]
            if m.get("error", {}).get("code") != code:
                raise Failure("malformed frame %s: expected error %d, got %s" % (key, code, json.dumps(m)[:300]))
        elif want == "unknown-method":
            if m.get("error", {}).get("code") != -32601:
                raise Failure("unknown method %s: expected -32601, got %s" % (key, json.dumps(m)[:300]))
        elif want == "cancelled-review":
            ok = "result" in m or m.get("error", {}).get("code") == -32800
            self.cancel_outcomes["completed" if "result" in m else "cancelled"] += 1
            if not ok:
                raise Failure("cancelled review %s: expected a result or -32800, got %s" % (key, json.dumps(m)[:300]))
        elif "error" in m:
            raise Failure("request %s (%s) failed: %s" % (key, want, json.dumps(m)[:300]))

    def check_diagnostics(self, messages, step):
        right = None
        for m in messages:
            if m.get("method") != "textDocument/publishDiagnostics":
                continue
            if right is None:
                right = self.repo.right_side_lines()
            uri = m["params"]["uri"]
            path = self.path_of.get(uri)
            if path is None:
                raise Failure("step %d: diagnostics for an unknown uri %s" % (step, uri))
            self.publishes_checked += 1
            lines = right.get(path, set())
            for d in m["params"]["diagnostics"]:
                self.diagnostics_checked += 1
                first, last = d["range"]["start"]["line"] + 1, d["range"]["end"]["line"] + 1
                bad = [n for n in range(first, last + 1) if n not in lines]
                if first > last or bad:
                    raise Failure("step %d: diagnostic on %s lines %d-%d, but `git diff HEAD` shows lines %s of it "
                                  "as untouched: %s" % (step, path, first, last, bad, d.get("message", "")[:120]))

    # -- editing

    def write_file(self, path):
        with open(os.path.join(self.repo.root, path), "w", encoding="utf-8", newline="\n") as f:
            f.write("\n".join(self.lines[path]) + "\n")

    def edit(self, path, step):
        lang = FILES[path][0]
        lines = self.lines[path]
        r = self.rng.random()
        self.version[path] += 1
        change = None
        if r < 0.05:  # revert to HEAD: a whole-text change
            text = self.repo.git("show", "HEAD:" + path).decode("utf-8")
            self.lines[path] = text.rstrip("\n").split("\n")
            change = {"text": text}
        elif r < 0.45 or (r < 0.80 and len(lines) < 140):  # insert
            at = self.rng.randrange(len(lines) + 1)
            if r < 0.30:
                new = [self.rng.choice(RISKY[lang])]
            elif r < 0.32:
                new = list(CONFLICT)
            else:
                new = [benign(lang, self.rng, step)]
            lines[at:at] = new
            change = {"range": {"start": {"line": at, "character": 0}, "end": {"line": at, "character": 0}},
                      "text": "".join(s + "\n" for s in new)}
        elif r < 0.90 and len(lines) > 3:  # delete one or two lines
            at = self.rng.randrange(len(lines) - 1)
            n = self.rng.choice([1, 1, 2])
            del lines[at:at + n]
            change = {"range": {"start": {"line": at, "character": 0}, "end": {"line": at + n, "character": 0}},
                      "text": ""}
        else:  # replace the text of one line
            at = self.rng.randrange(len(lines))
            old = lines[at]
            lines[at] = self.rng.choice(RISKY[lang] + [benign(lang, self.rng, step)])
            change = {"range": {"start": {"line": at, "character": 0},
                                "end": {"line": at, "character": utf16_len(old)}}, "text": lines[at]}
        self.write_file(path)
        return self.notify("textDocument/didChange", {
            "textDocument": {"uri": self.uri[path], "version": self.version[path]}, "contentChanges": [change]},
            write=False)

    # -- the noise mixed in

    def malformed(self, step):
        kind = step % 6
        if kind == 0:  # not JSON, id readable: -32700
            rid = "bad-%d" % step
            self.expected[json.dumps(rid)] = "parse-error"
            return frame(b'{"jsonrpc":"2.0","id":"%s","method":"textDocument/hover","params":{' % rid.encode())
        if kind == 1:  # JSON, not JSON-RPC, id readable: -32600
            rid = "inv-%d" % step
            self.expected[json.dumps(rid)] = "invalid-request"
            return frame({"jsonrpc": "1.0", "id": rid, "method": 42})
        if kind == 2:  # bad Content-Length: skipped
            return b"Content-Length: twelve\r\n\r\n{\"x\": 1}"
        if kind == 3:  # header block without Content-Length: skipped
            return b"Content-Type: application/json\r\n\r\n"
        if kind == 4:  # junk bytes before the next header
            return b"\x00\xffjunk that is not a frame"
        return frame(b"")  # an empty body: not JSON, no id: -32700 with id null

    def unknown(self, step):
        if step % 2:
            i, data = self.request("revline/noSuchMethod", {"step": step}, write=False)
            self.expected[json.dumps(i)] = "unknown-method"
            return data
        return self.notify("$/noSuchNotification", {"step": step}, write=False)

    def cancelled_review(self, path, step):
        i, data = self.request("workspace/executeCommand",
                               {"command": "revline.reviewFile", "arguments": [{"uri": self.uri[path]}]},
                               write=False)
        self.expected[json.dumps(i)] = "cancelled-review"
        cancel = self.notify("$/cancelRequest", {"id": i}, write=False)
        stray = self.notify("$/cancelRequest", {"id": 10 ** 9 + step}, write=False)
        if step % 3 == 0:  # the cancellation arrives after the review was answered: a no-op
            self.late = cancel
            return data + stray
        return cancel + data + stray if step % 2 else data + cancel + stray

    def queries(self, path):
        n = max(1, len(self.lines[path]))
        line = self.rng.randrange(n)
        pos = {"textDocument": {"uri": self.uri[path]}}
        _, hover = self.request("textDocument/hover", dict(pos, position={"line": line, "character": 2}),
                                write=False)
        _, action = self.request("textDocument/codeAction", dict(pos, range={
            "start": {"line": line, "character": 0}, "end": {"line": line, "character": 0}},
            context={"diagnostics": []}), write=False)
        return hover + action

    # -- the run

    def run(self):
        a = self.args
        tmp = tempfile.mkdtemp(prefix="revline-soak-")
        ok = False
        try:
            root = os.path.join(tmp, "repo")
            os.makedirs(root)
            home = os.path.join(tmp, "home")
            os.makedirs(home)
            # Under AddressSanitizer, freed memory sits in a quarantine (256 MB by default) that fills
            # over hundreds of saves and would swamp the RSS comparison; a small one fills before the
            # first RSS sample, so growth after it is the program's. (Ignored by other builds.)
            asan = os.environ.get("ASAN_OPTIONS", "")
            if "quarantine_size_mb" not in asan:
                asan = (asan + ":" if asan else "") + "quarantine_size_mb=8"
            env = dict(os.environ, ASAN_OPTIONS=asan, HOME=home, GIT_CONFIG_NOSYSTEM="1", GIT_AUTHOR_NAME="soak",
                       GIT_AUTHOR_EMAIL="soak@example.com", GIT_COMMITTER_NAME="soak",
                       GIT_COMMITTER_EMAIL="soak@example.com", LC_ALL="C")
            self.repo = Repo(root, env)
            self.repo.git("init", "-q")
            self.lines, self.version, self.uri, self.path_of = {}, {}, {}, {}
            for path, (_, lines) in FILES.items():
                os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
                self.lines[path] = list(lines)
                self.version[path] = 1
                self.write_file(path)
                real = os.path.realpath(os.path.join(root, path))
                self.uri[path] = file_uri(real)
                self.path_of[self.uri[path]] = path
            self.repo.git("add", "-A")
            self.repo.git("commit", "-qm", "base")

            stderr_path = os.path.join(tmp, "server.stderr")
            self.server = Server(a.revline, root, env, stderr_path)
            start = time.monotonic()
            self.request("initialize", {"processId": os.getpid(), "rootUri": file_uri(os.path.realpath(root)),
                                        "capabilities": {}})
            self.notify("initialized", {})
            for path, (lang, _) in FILES.items():
                self.notify("textDocument/didOpen", {"textDocument": {
                    "uri": self.uri[path], "languageId": lang, "version": 1,
                    "text": "\n".join(self.lines[path]) + "\n"}})
            self.barrier()

            paths = list(FILES)
            rss_at_100 = None
            rss_samples = []
            scope = "file"
            for step in range(1, a.steps + 1):
                path = self.rng.choice(paths)
                # Phase 1: the edit (diagnostics move with it; not checked against git).
                self.server.write(self.edit(path, step))
                self.barrier()
                # Phase 2: the save and the noise; every diagnostic published now must sit on diff lines.
                out = self.notify("textDocument/didSave", {"textDocument": {"uri": self.uri[path]}}, write=False)
                if step % 7 == 0:
                    out += self.malformed(step // 7)
                if step % 5 == 0:
                    out += self.unknown(step // 5)
                if step % 10 == 3:
                    out += self.cancelled_review(self.rng.choice(paths), step)
                if step % 4 == 1:
                    out += self.queries(path)
                if step % 250 == 125:
                    scope = "workspace" if scope == "file" else "file"
                    out += self.notify("workspace/didChangeConfiguration",
                                       {"settings": {"revline": {"review_scope": scope}}}, write=False)
                if step % 97 == 0:
                    _, data = self.request("workspace/executeCommand", {
                        "command": "revline.clearDiagnostics", "arguments": [self.uri[path]]}, write=False)
                    out += data
                # Split the write at a random point so frames straddle reads.
                cut = self.rng.randrange(len(out) + 1)
                self.server.write(out[:cut])
                self.server.write(out[cut:])
                self.check_diagnostics(self.barrier(), step)
                if self.late:
                    self.server.write(self.late)
                    self.late = b""
                if step % 50 == 0:
                    self.repo.git("commit", "-qam", "step %d" % step, check=False)
                if step % 100 == 0:
                    rss = self.server.rss_kb()
                    rss_samples.append(rss)
                    if step == 100:
                        rss_at_100 = rss
            rss_end = self.server.rss_kb()
            if rss_at_100 is None:
                rss_at_100 = rss_samples[0] if rss_samples else rss_end

            i, _ = self.request("shutdown")
            while True:
                m = self.server.receive()
                self.account(m)
                if m.get("id") == i and "method" not in m:
                    break
            self.notify("exit", None)
            try:
                status = self.server.proc.wait(timeout=TIMEOUT)
            except subprocess.TimeoutExpired:
                self.server.proc.kill()
                raise Failure("the server did not exit within %.0f s of `exit`" % TIMEOUT)
            elapsed = time.monotonic() - start

            unanswered = sorted(k for k in self.expected if self.answered.get(k, 0) != 1)
            if unanswered:
                raise Failure("%d requests never answered: %s" % (len(unanswered), ", ".join(unanswered[:20])))
            print("soak: %d steps (edit + save) in %.1f s; %d requests answered; %d publishes with %d diagnostics "
                  "checked against git diff; stats %s" % (a.steps, elapsed, len(self.expected),
                                                         self.publishes_checked, self.diagnostics_checked,
                                                         json.dumps(self.stats)))
            print("soak: cancelled reviewFile requests: %(cancelled)d answered -32800, %(completed)d completed "
                  "before the cancellation arrived" % self.cancel_outcomes)
            print("soak: RSS after 100 saves %d kB, after the run %d kB (ratio %.2f, limit %.2f); every 100: %s"
                  % (rss_at_100, rss_end, rss_end / rss_at_100, a.rss_ratio, rss_samples))
            if self.diagnostics_checked == 0:
                raise Failure("no diagnostic was published: the soak did not exercise reviews")
            if rss_end > a.rss_ratio * rss_at_100:
                raise Failure("RSS grew from %d kB (after 100 saves) to %d kB, more than %.2fx"
                              % (rss_at_100, rss_end, a.rss_ratio))
            if status != 0:
                raise Failure("the server exited with status %d after shutdown + exit" % status)
            ok = True
        except Failure as e:
            print("soak: FAILED: %s" % e, file=sys.stderr)
            return 1
        finally:
            server = getattr(self, "server", None)
            if server and server.proc.poll() is None:
                server.proc.kill()
                server.proc.wait()
            if server:
                server.stderr.close()
                if not ok:
                    try:
                        with open(os.path.join(tmp, "server.stderr"), "rb") as f:
                            tail = f.read()[-4000:].decode("utf-8", "replace")
                        print("soak: server stderr (tail):\n" + tail, file=sys.stderr)
                    except OSError:
                        pass
            if a.keep:
                print("soak: kept %s" % tmp)
            else:
                shutil.rmtree(tmp, ignore_errors=True)
        return 0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--revline", required=True)
    p.add_argument("--steps", type=int, default=1000)
    p.add_argument("--seed", type=int, default=20240607)
    p.add_argument("--rss-ratio", type=float, default=1.5)
    p.add_argument("--keep", action="store_true")
    return Soak(p.parse_args()).run()


if __name__ == "__main__":
    sys.exit(main())
