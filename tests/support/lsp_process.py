"""`revline lsp` as a child process, for the Python test drivers (transcripts,
soak): real Content-Length framing on its pipes, and a reader thread that
queues what the server sends as ("ok", message) or ("bad", why), then None at
the end of its output."""

import json
import queue
import subprocess
import threading
import urllib.parse


def file_uri(path):
    """The file:// URI of an absolute path, as editors send it."""
    return "file://" + urllib.parse.quote(path, safe="/-._~")


def frame(message):
    """One Content-Length frame around a message (a JSON value, or raw bytes)."""
    body = message if isinstance(message, bytes) else json.dumps(message, separators=(",", ":")).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class LspProcess:
    def __init__(self, argv, cwd, env, stderr_path):
        self.stderr = open(stderr_path, "ab")
        self.proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.stderr)
        self.messages = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        out = self.proc.stdout
        while True:
            headers = {}
            while True:
                line = out.readline()
                if not line:
                    self.messages.put(None)
                    return
                line = line.decode("ascii", "replace").rstrip("\r\n")
                if line == "":
                    break
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
            if "content-length" not in headers:
                self.messages.put(("bad", "frame without Content-Length: %r" % headers))
                continue
            body = out.read(int(headers["content-length"]))
            try:
                self.messages.put(("ok", json.loads(body.decode("utf-8"))))
            except ValueError as e:
                self.messages.put(("bad", "stdout carried something that is not JSON: %r (%s)" % (body[:200], e)))

    def write(self, data):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def rss_kb(self):
        """Resident memory of the server now, from /proc/PID/status."""
        with open("/proc/%d/status" % self.proc.pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        raise RuntimeError("no VmRSS in /proc/%d/status" % self.proc.pid)
