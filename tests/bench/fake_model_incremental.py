"""A fake OpenAI-compatible model on 127.0.0.1 for bench row (a), incremental review.

It serves POST .../chat/completions, counts the bytes of every request body (what
revline really sends), and answers like a careful model would: one MINOR finding
on the first added line of every hunk of the diff it was sent, so carried-over
findings can be checked. Python 3 standard library only.
"""
import http.server
import json
import re
import threading

_FILE = re.compile(r"^File: (\S+) \(")
_ADDED = re.compile(r"^ *(\d+) \+ ")


def _findings(prompt):
    out, path, open_hunk = [], None, False
    for line in prompt.split("\n"):
        m = _FILE.match(line)
        if m:
            path = m.group(1)
        elif line.startswith("@@ "):
            open_hunk = True
        elif open_hunk:
            m = _ADDED.match(line)
            if m and path:
                out.append({"file": path, "line": int(m.group(1)), "endLine": None, "severity": "MINOR",
                            "category": "MAINTAINABILITY", "title": "Check this change",
                            "explanation": "The changed line deserves a second look.", "suggestedFix": None,
                            "edit": None, "confidence": 0.7})
                open_hunk = False
    return out


class CountingModel:
    """Start with start(); url is the base_url to give revline; bytes/requests/hunks are the counts."""

    def __init__(self):
        self.bytes = 0
        self.requests = 0
        self.hunks = 0  # hunk headers in the diffs sent
        self.diff_bytes = 0  # of those bytes, the diff message (the rest: system prompt, schema, tool specs)
        # Everything before the diff message (model, schema, tools, system prompt), as sent: one
        # value over a whole editing session, or no provider could cache it from save to save.
        self.fixed_parts = set()
        self.lock = threading.Lock()
        model = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                request = json.loads(body)
                # The diff message: the user turn holding the annotated diff (the system prompt names <diff> too).
                prompt = "\n".join(m["content"] for m in request.get("messages", [])
                                   if m.get("role") == "user" and isinstance(m.get("content"), str)
                                   and "<diff>\n" in m["content"])
                fixed = json.dumps({k: v for k, v in request.items() if k != "messages"}, sort_keys=True) + \
                    json.dumps([m for m in request.get("messages", []) if m.get("role") == "system"])
                with model.lock:
                    model.fixed_parts.add(fixed)
                    model.bytes += len(body)
                    model.requests += 1
                    model.hunks += prompt.count("\n@@ ")
                    model.diff_bytes += len(json.dumps(prompt).encode())
                report = {"summary": "Reviewed the hunks shown.", "findings": _findings(prompt), "verdict": "COMMENT"}
                reply = json.dumps({"choices": [{"index": 0, "finish_reason": "stop",
                                                 "message": {"role": "assistant", "content": json.dumps(report)}}],
                                    "usage": {"prompt_tokens": len(body) // 4, "completion_tokens": 50}}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d/v1" % self.server.server_address[1]

    def start(self):
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def counts(self):
        with self.lock:
            return self.bytes, self.requests, self.hunks, self.diff_bytes, len(self.fixed_parts)

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
