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


class _FakeModel:
    """A JSON-over-HTTP fake on 127.0.0.1: answer(raw body, parsed body) -> reply dict.
    Start with start(); url is the base_url to give revline; stop() ends it."""

    url_suffix = ""

    def __init__(self):
        model = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                reply = json.dumps(model.answer(raw, json.loads(raw))).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d%s" % (self.server.server_address[1], self.url_suffix)

    def start(self):
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def _report(prompt):
    return {"summary": "Reviewed the hunks shown.", "findings": _findings(prompt), "verdict": "COMMENT"}


class CountingModel(_FakeModel):
    """An OpenAI-compatible API (POST .../chat/completions); bytes/requests/hunks are the counts."""

    url_suffix = "/v1"

    def __init__(self):
        self.bytes = 0
        self.requests = 0
        self.hunks = 0  # hunk headers in the diffs sent
        self.diff_bytes = 0  # of those bytes, the diff message (the rest: system prompt, schema, tool specs)
        # Everything before the diff message (model, schema, tools, system prompt), as sent: one
        # value over a whole editing session, or no provider could cache it from save to save.
        self.fixed_parts = set()
        self.lock = threading.Lock()
        super().__init__()

    def answer(self, raw, request):
        # The diff message: the user turn holding the annotated diff (the system prompt names <diff> too).
        prompt = "\n".join(m["content"] for m in request.get("messages", [])
                           if m.get("role") == "user" and isinstance(m.get("content"), str)
                           and "<diff>\n" in m["content"])
        fixed = json.dumps({k: v for k, v in request.items() if k != "messages"}, sort_keys=True) + \
            json.dumps([m for m in request.get("messages", []) if m.get("role") == "system"])
        with self.lock:
            self.fixed_parts.add(fixed)
            self.bytes += len(raw)
            self.requests += 1
            self.hunks += prompt.count("\n@@ ")
            self.diff_bytes += len(json.dumps(prompt).encode())
        return {"choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": json.dumps(_report(prompt))}}],
                "usage": {"prompt_tokens": len(raw) // 4, "completion_tokens": 50}}

    def counts(self):
        with self.lock:
            return self.bytes, self.requests, self.hunks, self.diff_bytes, len(self.fixed_parts)


class BillingAnthropic(_FakeModel):
    """The same careful model behind a fake Anthropic Messages API that bills prompt
    caching as fake_model_cache.PromptCache does (a prefix up to a cache_control
    breakpoint written at 1.25x, read by a later request at 0.1x): what an editing
    session costs when the part before the diff is served from the cache between saves.
    billed() is (with caching, without)."""

    def __init__(self):
        from fake_model_cache import PromptCache
        self.cache = PromptCache()
        super().__init__()

    def answer(self, raw, body):
        from fake_model_cache import tokens, _canonical
        usage = self.cache.bill(body, len(raw))
        texts = []
        for m in body.get("messages", []):
            if m.get("role") != "user":
                continue
            content = m.get("content")
            blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
            texts += [b.get("text", "") for b in blocks if b.get("type") == "text" and "<diff>\n" in b.get("text", "")]
        content = [{"type": "tool_use", "id": "toolu_bench", "name": "submit_review", "input": _report("\n".join(texts))}]
        return {"id": "msg_bench", "type": "message", "role": "assistant", "model": body.get("model"),
                "content": content, "stop_reason": "tool_use",
                "usage": {"input_tokens": usage["uncached"], "cache_creation_input_tokens": usage["write"],
                          "cache_read_input_tokens": usage["read"], "output_tokens": tokens(_canonical(content))}}

    def billed(self):
        return self.cache.billed()
