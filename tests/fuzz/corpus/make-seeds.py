#!/usr/bin/env python3
"""Regenerates the checked-in seed corpora under tests/fuzz/corpus/<target>/.

Seeds are small, real inputs of each kind: git diffs made by git itself, model
replies (valid, repairable, broken), JSON-RPC streams as an editor sends them
(paths under the fuzz_jsonrpc workspace /tmp/revline-fuzz-lsp/ws), tool calls
and paths, and .revline.json files. Run it from anywhere; it rewrites the
directories it owns and leaves other files (e.g. crash regressions) alone.
"""
import json
import os
import shutil
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.abspath(os.path.join(HERE, "..", "..", ".."))


def put(target, name, data):
    if isinstance(data, str):
        data = data.encode()
    # fuzz_lsp_review is fuzz_jsonrpc with reviews: the same seeds.
    for t in (target, "lsp_review") if target == "jsonrpc" else (target,):
        d = os.path.join(HERE, t)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)


# ---------------------------------------------------------------- diff

def git_diffs():
    tmp = tempfile.mkdtemp()
    try:
        env = dict(os.environ, GIT_AUTHOR_NAME="s", GIT_AUTHOR_EMAIL="s@e", GIT_COMMITTER_NAME="s",
                   GIT_COMMITTER_EMAIL="s@e", GIT_CONFIG_NOSYSTEM="1", HOME=tmp)

        def git(*args):
            return subprocess.run(["git", "-c", "core.quotePath=true", *args], cwd=repo, env=env, check=True,
                                  stdout=subprocess.PIPE).stdout

        def w(path, data):
            p = os.path.join(repo, path)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "wb") as f:
                f.write(data if isinstance(data, bytes) else data.encode())

        repo = os.path.join(tmp, "r")
        os.makedirs(repo)
        git("init", "-q")
        w("src/main.c", "#include <stdio.h>\n\nint main(void) {\n  puts(\"hi\");\n  return 0;\n}\n")
        w("old/name.txt", "".join("line %d\n" % i for i in range(1, 30)))
        w("gone.txt", "bye\n")
        w("script.sh", "#!/bin/sh\necho hi\n")
        w("crlf.txt", "one\r\ntwo\r\nthree\r\n")
        w("noeol.txt", "last line without newline")
        w("img.bin", b"\x89PNG\r\n\x1a\n\x00\x00\x00")
        git("add", "-A")
        git("commit", "-qm", "base")
        w("src/main.c", "#include <stdio.h>\n#include <string.h>\n\nint main(int argc, char** argv) {\n"
                        "  char buf[8];\n  strcpy(buf, argv[1]);\n  puts(buf);\n  return 0;\n}\n")
        put("diff", "modified.diff", git("diff"))
        os.makedirs(os.path.join(repo, "new"))
        git("mv", "old/name.txt", "new/name.txt")
        w("new/name.txt", "".join("line %d\n" % i for i in range(1, 30)).replace("line 7\n", "line seven\n"))
        git("rm", "-q", "gone.txt")
        w("added file.txt", "new\nfile\n")
        w("caf\u00e9/\u00fc\"q.txt", "quoted path\n")
        os.chmod(os.path.join(repo, "script.sh"), 0o755)
        w("crlf.txt", "one\r\n2\r\nthree\r\n")
        w("noeol.txt", "last line changed, still without newline")
        w("img.bin", b"\x89PNG\r\n\x1a\n\x00\x01\x00")
        git("add", "-A")
        put("diff", "mixed_staged.diff", git("diff", "--cached", "-M"))
        put("diff", "binary_full_index.diff", git("diff", "--cached", "--binary", "--", "img.bin"))
        put("diff", "no_prefix.diff", git("diff", "--cached", "--no-prefix", "--", "src/main.c", "noeol.txt"))
        put("diff", "unified0.diff", git("diff", "--cached", "-U0", "--", "new/name.txt", "crlf.txt"))
        git("commit", "-qm", "second")
        w("copy.txt", "".join("line %d\n" % i for i in range(1, 30)))
        git("add", "-A")
        put("diff", "copied.diff", git("diff", "--cached", "-C", "-C"))
        put("diff", "log_patch.diff", git("log", "-p", "-2", "--format=commit %H%nAuthor: %an%n%n    %s%n"))
    finally:
        shutil.rmtree(tmp)
    with open(os.path.join(SOURCE, "tests", "fixtures", "pr", "pr.diff"), "rb") as f:
        put("diff", "pr_fixture.diff", f.read())
    put("diff", "combined_merge.diff", "diff --cc file.c\nindex 1,2..3\n--- a/file.c\n+++ b/file.c\n"
                                       "@@@ -1,2 -1,2 +1,3 @@@\n  a\n- b\n +c\n++d\n")
    put("diff", "truncated_hunk.diff", "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,3 +1,4 @@\n a\n+b\n")


# ---------------------------------------------------------------- reply

def replies():
    finding = {"file": "src/cache.cpp", "line": 12, "endLine": None, "severity": "MAJOR", "category": "CORRECTNESS",
               "title": "Null dereference on a cache miss",
               "explanation": "lookup() returns null on a miss and p->id crashes.", "suggestedFix": None,
               "edit": None, "confidence": 0.8}
    report = {"summary": "Adds a cache in front of the user lookup.", "findings": [finding],
              "verdict": "REQUEST_CHANGES"}
    put("reply", "valid.json", json.dumps(report))
    with_edit = json.loads(json.dumps(report))
    with_edit["findings"][0].update(endLine=13, edit={"original": "  p->id;", "replacement": "  if (p) p->id;"},
                                    suggestedFix="Check for null.")
    put("reply", "with_edit.json", json.dumps(with_edit, indent=2))
    put("reply", "approve_empty.json", '{"summary":"Fine.","findings":[],"verdict":"APPROVE"}')
    put("reply", "fenced_prose.txt", "Here is my review:\n\n```json\n" + json.dumps(report, indent=1) +
        "\n```\nLet me know if you need more.")
    put("reply", "trailing_comma_single_quotes.txt",
        "{'summary': 'x', 'findings': [{'file': 'a.py', 'line': 3, 'severity': 'minor', 'category': 'style', "
        "'title': 't', 'explanation': 'e', 'confidence': 0.5,},], 'verdict': 'comment',}")
    put("reply", "truncated.txt", json.dumps(report)[:120])
    put("reply", "wrong_types.json", '{"summary": 3, "findings": {"file": null}, "verdict": "LGTM", '
                                     '"extra": [1, 2, {"a": "\\ud800"}]}')
    put("reply", "two_candidates.txt", json.dumps(report) + "\nor maybe\n" +
        '{"summary":"Other.","findings":[],"verdict":"APPROVE"}')
    put("reply", "envelope.json", json.dumps({"review": report}))
    put("reply", "enum_spellings.json", json.dumps(dict(report, verdict="request changes", findings=[
        dict(finding, severity="Blocker", category="data-loss", line="12", confidence="80%")])))
    put("reply", "duplicate_keys.json", '{"summary":"a","summary":"b","findings":[],"verdict":"APPROVE"}')
    put("reply", "comments_unquoted.txt", "{summary: \"x\", // note\n findings: [], /* none */ verdict: APPROVE}")


# ---------------------------------------------------------------- jsonrpc

WS = "/tmp/revline-fuzz-lsp/ws"
URI_A = "file://" + WS + "/a.c"
URI_B = "file://" + WS + "/b.py"
A_TEXT = ("#include <string.h>\nint main(int argc, char** argv) {\n  char buf[8];\n  strcpy(buf, argv[1]);\n"
          "  return 0;\n}\n")


def frame(msg):
    body = msg if isinstance(msg, str) else json.dumps(msg, separators=(",", ":"))
    body = body.encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def req(i, method, params=None):
    m = {"jsonrpc": "2.0", "id": i, "method": method}
    if params is not None:
        m["params"] = params
    return m


def note(method, params=None):
    m = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        m["params"] = params
    return m


def stream(*msgs):
    return b"".join(m if isinstance(m, bytes) else frame(m) for m in msgs)


def jsonrpc():
    init = req(1, "initialize", {"processId": None, "rootUri": "file://" + WS, "capabilities": {
        "window": {"workDoneProgress": True}}, "initializationOptions": {"debounce_ms": 0}})
    opened = note("textDocument/didOpen", {"textDocument": {"uri": URI_A, "languageId": "c", "version": 1,
                                                            "text": A_TEXT}})
    save = note("textDocument/didSave", {"textDocument": {"uri": URI_A}})
    tail = [req(90, "shutdown"), note("exit")]
    put("jsonrpc", "review_on_save.bin", stream(
        init, note("initialized", {}), opened, save,
        req(2, "textDocument/codeAction", {"textDocument": {"uri": URI_A}, "range": {
            "start": {"line": 3, "character": 2}, "end": {"line": 3, "character": 2}}, "context": {"diagnostics": []}}),
        req(3, "textDocument/hover", {"textDocument": {"uri": URI_A}, "position": {"line": 3, "character": 4}}),
        note("textDocument/didChange", {"textDocument": {"uri": URI_A, "version": 2}, "contentChanges": [
            {"range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 0}},
             "text": "// \u00e9\U0001F600\n"}]}),
        req(4, "revline/stats", {}), *tail))
    put("jsonrpc", "commands.bin", stream(
        init, note("initialized", {}), opened,
        req(2, "workspace/executeCommand", {"command": "revline.reviewFile", "arguments": [URI_A]}),
        req(3, "workspace/executeCommand", {"command": "revline.dismissFinding",
                                            "arguments": [{"uri": URI_A, "id": "abc"}]}),
        req(4, "workspace/executeCommand", {"command": "revline.reviewWorkspace", "arguments": ["file://" + WS]}),
        req(5, "workspace/executeCommand", {"command": "revline.clearDiagnostics", "arguments": [URI_A]}),
        note("workspace/didChangeConfiguration", {"settings": {"revline": {"review_scope": "workspace"}}}),
        note("textDocument/didSave", {"textDocument": {"uri": URI_B}}),
        note("textDocument/didClose", {"textDocument": {"uri": URI_A}}),
        note("workspace/didChangeWorkspaceFolders", {"event": {"added": [{"uri": "file:///tmp", "name": "t"}],
                                                               "removed": []}})))
    put("jsonrpc", "cancel_in_batch.bin", stream(
        init, note("initialized", {}), opened,
        req(7, "workspace/executeCommand", {"command": "revline.reviewFile", "arguments": [{"uri": URI_A}]}),
        note("$/cancelRequest", {"id": 7}), note("$/cancelRequest", {"id": "nope"}), req(8, "revline/stats"),
        *tail))
    put("jsonrpc", "malformed.bin", stream(
        b"Content-Length: 5\r\n\r\n{bad}", b"garbage without header\r\n\r\n",
        b"Content-Length: x\r\n\r\n{}", b"Content-Type: foo\r\n\r\n",
        frame('{"jsonrpc":"2.0","id":4,"method":'), frame('[1,2]'), frame('{"jsonrpc":"1.0","id":5}'),
        init, req(6, "no/such/method"), note("no/such/notification", {"x": 1}),
        req(7, "textDocument/hover", {"textDocument": 5}), req(8, "initialize", {}),
        b"content-length:   12  \r\nX: y\r\n\r\n" + json.dumps(3.5).encode().ljust(12),
        frame({"jsonrpc": "2.0", "id": 9, "result": None}), *tail))
    put("jsonrpc", "before_initialize.bin", stream(req(1, "textDocument/hover", {}), req("s", "shutdown"),
                                                   note("exit")))
    put("jsonrpc", "whole_text_change.bin", stream(
        init, opened, note("textDocument/didChange", {"textDocument": {"uri": URI_A, "version": 2},
                                                      "contentChanges": [{"text": "int x;\n"}]}),
        save, req(2, "textDocument/codeAction", {"textDocument": {"uri": URI_A}, "range": {
            "start": {"line": 0, "character": 0}, "end": {"line": 9, "character": 99}},
            "context": {"diagnostics": [], "only": ["source"]}})))


# ---------------------------------------------------------------- sandbox (first byte: the operation)

def sandbox():
    # op 0: resolve; 1: pattern check; 2: glob "pattern\npath"; 3..5: tools (byte / 6 % 4 picks the tool:
    # 0 read_file, 1 search_text, 2 glob, 3 find_usages).
    put("sandbox", "resolve_plain", b"\x00src/main.c")
    put("sandbox", "resolve_dotdot", b"\x00src/../../outside/secret.txt")
    put("sandbox", "resolve_symlink_out", b"\x00link_out")
    put("sandbox", "resolve_symlink_dir", b"\x00src/link_outdir/secret.txt")
    put("sandbox", "resolve_git", b"\x00./link_git")
    put("sandbox", "resolve_backslash", b"\x00src\\util\\..\\main.c")
    put("sandbox", "pattern_abs", b"\x01/etc/**")
    put("sandbox", "glob_match", b"\x02src/**/*.{c,h}\nsrc/util/strings.h")
    put("sandbox", "glob_set", b"\x02[!a-c]?*.md\nREADME.md")
    put("sandbox", "tool_read", b"\x03" + json.dumps({"path": "src/main.c", "start_line": 2, "end_line": 1}).encode())
    put("sandbox", "tool_search", b"\x09" + json.dumps({"query": "secret", "path_glob": "**"}).encode())
    put("sandbox", "tool_glob", b"\x0f" + json.dumps({"pattern": "**/*"}).encode())
    put("sandbox", "tool_usages", b"\x15" + json.dumps({"symbol": "main"}).encode())
    put("sandbox", "tool_read_string", b"\x03link_self/link_in")


# ---------------------------------------------------------------- config

def config():
    put("config", "full.json", json.dumps({
        "provider": "openai", "model": "gpt-4o-mini", "base_url": "http://127.0.0.1:9/v1",
        "api_key_env": "OPENAI_API_KEY", "structured_output": "prompt", "connect_timeout_ms": 1000,
        "read_timeout_ms": 5000, "max_attempts": 2, "max_tool_calls": 4,
        "policy": {"blocking_severity": "MAJOR", "min_confidence": 0.5},
        "include": ["src/**"], "exclude": ["**/*.test.js", "{a,b}/[!x]?"], "review_scope": "workspace",
        "debounce_ms": 0}, indent=2))
    put("config", "replay.json", '{"provider":"replay","cassette":"cassette.json","instructions":"Be brief."}')
    put("config", "api_key.json", '{"api_key":"sk-123"}')
    put("config", "unknown_key.json", '{"providr":"builtin","policy":{"x":1}}')
    put("config", "wrong_types.json", '{"max_attempts":"3","debounce_ms":-1,"include":"src","policy":[]}')
    put("config", "big_numbers.json", '{"connect_timeout_ms":1e300,"read_timeout_ms":18446744073709551615,'
                                      '"max_attempts":-9223372036854775808,"debounce_ms":2147483648}')
    put("config", "empty.json", "{}")


if __name__ == "__main__":
    for target in ("diff", "reply", "jsonrpc", "lsp_review", "sandbox", "config"):
        d = os.path.join(HERE, target)
        if os.path.isdir(d):
            for name in os.listdir(d):
                if not name.startswith("regression-"):
                    os.remove(os.path.join(d, name))
    git_diffs()
    replies()
    jsonrpc()
    sandbox()
    config()
