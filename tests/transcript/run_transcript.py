#!/usr/bin/env python3
"""Runs a transcript test (*.test) against the real `revline lsp` binary.

A transcript is a sequence of sections, each introduced by a line starting with
`--- `. The driver creates a fresh git repository, runs the sections in order,
and fails on the first mismatch, or if the server sent a message that no
`expect` consumed (window/logMessage excepted).

  --- start [ARGS...]      start `revline lsp ARGS` (cwd = the repository)
  --- file PATH            write the following lines (up to the next section) to PATH
  --- delete PATH          delete PATH
  --- git ARGS...          run git in the repository (must succeed)
  --- commit               git add -A && git commit
  --- send                 send the following JSON message, framed with Content-Length
  --- send-raw             write the following lines in one write: a line "FRAME text" is
                           text with its Content-Length header; other lines are written as
                           is (without their line break) with the escapes \\r and \\n expanded
  --- shell COMMAND        run COMMAND (placeholders expanded) with /bin/sh in the repository (must succeed)
  --- expect               the next message (logs skipped) must match the following JSON
  --- expect-quiet         no message (logs skipped) may arrive within 300 ms
  --- close                close the server's stdin
  --- exit-code N          wait for the server to exit with status N

Matching: objects match when every expected key matches (extra keys are fine;
the value "{{ABSENT}}" requires the key to be absent); arrays match element by
element with equal length; "{{ANY}}" matches anything; "{{RE:regex}}" matches
strings by full regex; "{{CAPTURE:name}}" matches anything and remembers it.
Placeholders in sent and expected text and in shell commands: {{ROOT}}
(repository path), {{ROOT_URI}}, {{URI:relative/path}}, {{CONFIG_HOME}} (this
transcript's own $XDG_CONFIG_HOME, empty at the start: the user config is
{{CONFIG_HOME}}/revline/config.json), {{CONFIG_HOME_URI}}, {{REVLINE}} (the
binary), and {{name}} for a captured value (a JSON string that is exactly
"{{name}}" becomes the captured value, whatever its type).
"""
import json
import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from lsp_process import LspProcess, file_uri, frame  # noqa: E402

TIMEOUT = float(os.environ.get("REVLINE_TRANSCRIPT_TIMEOUT", "20"))


class Failure(Exception):
    pass


class Server(LspProcess):
    def __init__(self, binary, args, cwd, env, stderr_path):
        super().__init__([binary, "lsp"] + args, cwd, env, stderr_path)

    def next(self, timeout):
        """The next non-log message, or None on EOF; raises queue.Empty on timeout."""
        while True:
            item = self.messages.get(timeout=timeout)
            if item is None:
                self.messages.put(None)  # stay at EOF
                return None
            kind, value = item
            if kind == "bad":
                raise Failure(value)
            if value.get("method") == "window/logMessage":
                continue
            return value


class Transcript:
    def __init__(self, binary, path):
        self.binary = binary
        self.path = path
        self.dir = tempfile.mkdtemp(prefix="revline-transcript-")
        self.root = os.path.realpath(os.path.join(self.dir, "repo"))
        self.home = os.path.join(self.dir, "home")
        self.config_home = os.path.join(self.dir, "config")  # never the user's own ~/.config
        os.makedirs(self.root)
        os.makedirs(self.home)
        os.makedirs(self.config_home)
        self.env = dict(os.environ, HOME=self.home, XDG_CONFIG_HOME=self.config_home, GIT_CONFIG_NOSYSTEM="1", GIT_AUTHOR_NAME="t",
                        GIT_AUTHOR_EMAIL="t@example.com", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com",
                        LC_ALL="C")
        self.stderr_path = os.path.join(self.dir, "stderr")
        self.server = None
        self.vars = {}
        self.git("init", "-q", "-b", "main")

    def git(self, *args):
        r = subprocess.run(["git"] + list(args), cwd=self.root, env=self.env, capture_output=True, text=True)
        if r.returncode != 0:
            raise Failure("git %s failed: %s" % (" ".join(args), r.stderr))

    # ---- placeholders
    def expand_text(self, text):
        def sub(m):
            name = m.group(1)
            if name == "ROOT":
                return self.root
            if name == "ROOT_URI":
                return file_uri(self.root)
            if name == "CONFIG_HOME":
                return self.config_home
            if name == "CONFIG_HOME_URI":
                return file_uri(self.config_home)
            if name == "REVLINE":
                return self.binary
            if name.startswith("URI:"):
                return file_uri(os.path.join(self.root, name[4:]))
            if name in self.vars and isinstance(self.vars[name], str):
                return self.vars[name]
            return m.group(0)
        return re.sub(r"\{\{([A-Za-z_][A-Za-z0-9_]*(?::[^}]*)?)\}\}", sub, text)

    def expand_json(self, value):
        if isinstance(value, str):
            m = re.fullmatch(r"\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}", value)
            if m and m.group(1) in self.vars:
                return self.vars[m.group(1)]
            if value.startswith(("{{RE:", "{{CAPTURE:")) or value in ("{{ANY}}", "{{ABSENT}}"):
                return value
            return self.expand_text(value)
        if isinstance(value, list):
            return [self.expand_json(v) for v in value]
        if isinstance(value, dict):
            return {self.expand_text(k): self.expand_json(v) for k, v in value.items()}
        return value

    def match(self, expected, actual, where):
        if isinstance(expected, str):
            if expected == "{{ANY}}":
                return
            m = re.fullmatch(r"\{\{CAPTURE:([A-Za-z_][A-Za-z0-9_]*)\}\}", expected)
            if m:
                self.vars[m.group(1)] = actual
                return
            if expected.startswith("{{RE:") and expected.endswith("}}"):
                if not isinstance(actual, str) or not re.fullmatch(expected[5:-2], actual, re.S):
                    raise Failure("%s: %r does not match /%s/" % (where, actual, expected[5:-2]))
                return
        if isinstance(expected, dict):
            if not isinstance(actual, dict):
                raise Failure("%s: expected an object, got %r" % (where, actual))
            for k, v in expected.items():
                if v == "{{ABSENT}}":
                    if k in actual:
                        raise Failure("%s.%s: expected absent, got %r" % (where, k, actual[k]))
                    continue
                if k not in actual:
                    raise Failure("%s.%s: missing" % (where, k))
                self.match(v, actual[k], "%s.%s" % (where, k))
            return
        if isinstance(expected, list):
            if not isinstance(actual, list) or len(actual) != len(expected):
                raise Failure("%s: expected %d elements, got %r" % (where, len(expected), actual))
            for i, (e, a) in enumerate(zip(expected, actual)):
                self.match(e, a, "%s[%d]" % (where, i))
            return
        if expected != actual or type(expected) != type(actual):
            raise Failure("%s: expected %r, got %r" % (where, expected, actual))

    # ---- sections
    def run(self):
        with open(self.path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        sections = []
        for n, line in enumerate(lines, 1):
            if line.startswith("--- "):
                sections.append([n, line[4:].strip(), []])
            elif sections:
                sections[-1][2].append(line)
            elif line.strip() and not line.startswith("#"):
                raise Failure("line %d: text before the first section" % n)
        for n, head, body in sections:
            # Trailing blank and comment lines belong to no section.
            while body and (body[-1].strip() == "" or body[-1].startswith("#")):
                body.pop()
            try:
                self.section(head, body)
            except Failure as e:
                raise Failure("%s:%d (--- %s): %s" % (os.path.basename(self.path), n, head, e))
        if self.server and self.server.proc.poll() is None:
            self.finish_server()

    def section(self, head, body):
        word, _, rest = head.partition(" ")
        text = "\n".join(body)
        if word == "start":
            if self.server and self.server.proc.poll() is None:
                raise Failure("the previous server is still running")
            try:
                self.server = Server(self.binary, rest.split(), self.root, self.env, self.stderr_path)
            except OSError as e:
                raise Failure("cannot start %s: %s" % (self.binary, e))
        elif word == "file":
            p = os.path.join(self.root, rest)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w", encoding="utf-8", newline="") as f:
                f.write(text + "\n")
        elif word == "delete":
            os.remove(os.path.join(self.root, rest))
        elif word == "git":
            self.git(*rest.split())
        elif word == "shell":
            r = subprocess.run(["/bin/sh", "-c", self.expand_text(rest)], cwd=self.root, env=self.env, capture_output=True, text=True)
            if r.returncode != 0:
                raise Failure("%s failed: %s" % (rest, r.stderr))
        elif word == "commit":
            self.git("add", "-A")
            self.git("commit", "-q", "-m", "transcript")
        elif word == "send":
            msg = self.expand_json(json.loads(text))
            self.server.write(frame(json.dumps(msg).encode("utf-8")))
        elif word == "send-raw":
            data = b""
            for line in body:
                if line.startswith("FRAME "):
                    payload = self.expand_text(line[6:]).encode("utf-8")
                    data += frame(payload)
                else:
                    data += self.expand_text(line).replace("\\r", "\r").replace("\\n", "\n").encode("utf-8")
            self.server.write(data)
        elif word == "expect":
            expected = self.expand_json(json.loads(text))
            try:
                actual = self.server.next(TIMEOUT)
            except queue.Empty:
                raise Failure("timed out waiting for %s" % json.dumps(expected))
            if actual is None:
                raise Failure("the server closed its output; expected %s" % json.dumps(expected))
            try:
                self.match(expected, actual, "message")
            except Failure as e:
                raise Failure("%s\n  got: %s" % (e, json.dumps(actual)))
        elif word == "expect-quiet":
            try:
                actual = self.server.next(0.3)
            except queue.Empty:
                return
            if actual is not None:
                raise Failure("unexpected message: %s" % json.dumps(actual))
        elif word == "close":
            self.server.proc.stdin.close()
        elif word == "exit-code":
            try:
                code = self.server.proc.wait(timeout=TIMEOUT)
            except subprocess.TimeoutExpired:
                raise Failure("the server did not exit")
            self.check_drained()
            if code != int(rest):
                raise Failure("exit code %d, expected %s" % (code, rest))
        else:
            raise Failure("unknown section")

    def check_drained(self):
        while True:
            try:
                m = self.server.next(2)
            except queue.Empty:
                raise Failure("the server's output did not end")
            if m is None:
                return
            raise Failure("a server message was never expected: %s" % json.dumps(m))

    def finish_server(self):
        try:
            m = self.server.next(0.3)
            if m is not None:
                raise Failure("a server message was never expected: %s" % json.dumps(m))
        except queue.Empty:
            pass
        self.server.proc.kill()
        self.server.proc.wait()


def main():
    if len(sys.argv) < 3 or sys.argv[1] != "--revline":
        sys.stderr.write("usage: run_transcript.py --revline BINARY TEST...\n")
        return 2
    binary = sys.argv[2]
    failed = 0
    for path in sys.argv[3:]:
        t = Transcript(binary, path)
        try:
            t.run()
            print("PASS %s" % path)
        except Failure as e:
            failed += 1
            print("FAIL %s" % e)
            if t.server:
                if t.server.proc.poll() is None:
                    t.server.proc.kill()
                    t.server.proc.wait()
            with open(t.stderr_path, "a"):
                pass
            with open(t.stderr_path, encoding="utf-8", errors="replace") as f:
                err = f.read()
            if err:
                print("--- server stderr:\n" + err[-4000:])
        finally:
            if t.server and t.server.proc.poll() is None:
                t.server.proc.kill()
                t.server.proc.wait()
            shutil.rmtree(t.dir, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
