"""A fake OpenAI-compatible model for the token-budget bench row (c).

An HTTP server on 127.0.0.1 that answers every POST .../chat/completions with
an approving review and no findings, and counts what each request holds: the
bytes of its wire body and of its content (system and user text, tool specs,
the response schema: what a tokenizer would count), converted to tokens at
revline's documented 3 bytes a token. Python 3 standard library only.
"""
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

BYTES_PER_TOKEN = 3

ANSWER = json.dumps({"summary": "Looks fine.", "verdict": "APPROVE", "findings": []})


def content_bytes(body):
    """The bytes of what the model reads: message texts, tool specs and the schema (no JSON framing)."""
    n = 0
    for m in body.get("messages", []):
        c = m.get("content")
        if isinstance(c, str):
            n += len(c.encode())
        elif isinstance(c, list):
            n += sum(len(part.get("text", "").encode()) for part in c if isinstance(part, dict))
    for t in body.get("tools", []) or []:
        n += len(json.dumps(t, separators=(",", ":")).encode())
    if body.get("response_format"):
        n += len(json.dumps(body["response_format"], separators=(",", ":")).encode())
    return n


class FakeModel:
    def __init__(self):
        self.lock = threading.Lock()
        self.requests = []  # (wire bytes, content tokens)
        model = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                body = json.loads(raw)
                tokens = -(-content_bytes(body) // BYTES_PER_TOKEN)
                with model.lock:
                    model.requests.append((len(raw), tokens))
                reply = json.dumps({
                    "id": "fake", "object": "chat.completion",
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": ANSWER}}],
                    "usage": {"prompt_tokens": tokens, "completion_tokens": 12},
                }).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self):
        return "http://127.0.0.1:%d/v1" % self.server.server_address[1]

    def close(self):
        self.server.shutdown()
        self.server.server_close()
