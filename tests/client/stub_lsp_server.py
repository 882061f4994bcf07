#!/usr/bin/env python3
"""A tiny stand-in for a user's own language server (tests only).

Answers initialize/shutdown, ignores other notifications, and publishes one
diagnostic ("stub: the user's own server") on didOpen, so a test can tell it
is the buffer's server and that it keeps working beside revline."""
import json
import sys


def read():
    length = None
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            return None
        line = line.strip()
        if not line:
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return json.loads(sys.stdin.buffer.read(length))


def send(message):
    body = json.dumps(message).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    sys.stdout.buffer.flush()


while True:
    m = read()
    if m is None:
        sys.exit(1)
    method = m.get("method")
    if "id" in m and method == "initialize":
        send({"jsonrpc": "2.0", "id": m["id"],
              "result": {"capabilities": {"textDocumentSync": 2}, "serverInfo": {"name": "stub-ls"}}})
    elif "id" in m and method is not None:
        send({"jsonrpc": "2.0", "id": m["id"], "result": None})
    elif method == "textDocument/didOpen":
        uri = m["params"]["textDocument"]["uri"]
        send({"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics",
              "params": {"uri": uri, "diagnostics": [{
                  "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 5}},
                  "severity": 3, "source": "stub", "message": "stub: the user's own server"}]}})
    elif method == "exit":
        sys.exit(0)
