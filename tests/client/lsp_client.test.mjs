// Drives the real `revline lsp` over stdio with vscode-jsonrpc /
// vscode-languageserver-protocol (the libraries VS Code's client is built on),
// sending what the VS Code extension sends: VS Code's client capabilities and
// the extension's settings translated by the extension's own module
// (editors/vscode/out/settings.js, built by `npm run compile`).
//
//   REVLINE_BINARY=/path/to/revline node --test tests/client/
//
// Needs git. Creates a temporary git repository; the review is the builtin
// (offline, deterministic) reviewer.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, mkdirSync, rmSync, readFileSync, existsSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  createProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
  InitializeRequest,
  InitializedNotification,
  DidOpenTextDocumentNotification,
  DidSaveTextDocumentNotification,
  DidChangeTextDocumentNotification,
  DidChangeConfigurationNotification,
  PublishDiagnosticsNotification,
  HoverRequest,
  CodeActionRequest,
  ExecuteCommandRequest,
  ShutdownRequest,
  ExitNotification,
  WorkDoneProgressCreateRequest,
  LogMessageNotification,
  ShowMessageNotification,
  ConfigurationRequest,
  RegistrationRequest,
  DocumentDiagnosticRequest,
  DiagnosticRefreshRequest,
} from 'vscode-languageserver-protocol/node';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const TIMEOUT_MS = 30000;

const binary = process.env.REVLINE_BINARY;
const settingsModule = resolve(process.env.REVLINE_VSCODE_OUT ?? join(here, '../../editors/vscode/out'), 'settings.js');

const BEFORE = ['class Order {', '  boolean approved(String status) {', '    return false;', '  }', '}', ''].join('\n');
const AFTER = [
  'class Order {',
  '  boolean approved(String status) {',
  '    if (status == "APPROVED") {',
  '      return true;',
  '    }',
  '    return false;',
  '  }',
  '}',
  '',
].join('\n');
const FIXED_LINE = '    if ("APPROVED".equals(status)) {';

let repo, server, connection, uri, exitCode;
const stderr = [];
const logs = [];
const errorsShown = [];
const progress = []; // [token, kind]
const diagnosticsWaiters = [];
const latestDiagnostics = new Map();
let settings; // the extension's settings module

function git(...args) {
  return execFileSync('git', args, { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

// Resolves with the next publishDiagnostics for `forUri` that satisfies `accept`.
function nextDiagnostics(forUri, accept = () => true, what = 'diagnostics') {
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`timed out after ${TIMEOUT_MS} ms waiting for ${what} on ${forUri}; ` +
        `last published: ${JSON.stringify(latestDiagnostics.get(forUri))}\nserver log:\n${logs.join('\n')}\nstderr:\n${stderr.join('')}`));
    }, TIMEOUT_MS);
    diagnosticsWaiters.push({ forUri, accept, resolve: (d) => { clearTimeout(timer); resolvePromise(d); } });
  });
}

const pushed = []; // publishDiagnostics received (none expected from a pull client's server)
const openUris = new Set();
const resultIds = new Map();
let refreshes = 0;

// textDocument/diagnostic for `forUri`, delivered to the waiters when it is a full report.
async function pull(forUri) {
  const report = await connection.sendRequest(DocumentDiagnosticRequest.type, {
    textDocument: { uri: forUri },
    previousResultId: resultIds.get(forUri),
  });
  resultIds.set(forUri, report.resultId);
  if (report.kind !== 'full') return report;
  latestDiagnostics.set(forUri, report.items);
  for (let i = 0; i < diagnosticsWaiters.length; i++) {
    const w = diagnosticsWaiters[i];
    if (w.forUri === forUri && w.accept(report.items)) {
      diagnosticsWaiters.splice(i, 1);
      w.resolve(report.items);
      break;
    }
  }
  return report;
}

function applyTextEdits(text, edits) {
  const lines = text.split('\n');
  const offset = (pos) => {
    let o = 0;
    for (let i = 0; i < pos.line; i++) o += lines[i].length + 1;
    return o + pos.character;
  };
  const sorted = [...edits].sort((a, b) => offset(b.range.start) - offset(a.range.start));
  let out = text;
  for (const e of sorted) out = out.slice(0, offset(e.range.start)) + e.newText + out.slice(offset(e.range.end));
  return out;
}

before(async () => {
  assert.ok(binary, 'set REVLINE_BINARY to the revline executable (CTest does)');
  assert.ok(existsSync(binary), `REVLINE_BINARY=${binary} does not exist`);
  assert.ok(existsSync(settingsModule),
    `${settingsModule} is missing: run \`npm ci && npm run compile\` in editors/vscode first`);
  settings = require(settingsModule);

  repo = realpathSync(mkdtempSync(join(tmpdir(), 'revline-node-client-')));
  git('init', '-q');
  git('config', 'user.email', 'test@example.com');
  git('config', 'user.name', 'revline test');
  git('config', 'commit.gpgsign', 'false');
  mkdirSync(join(repo, 'src'));
  writeFileSync(join(repo, 'src/Order.java'), BEFORE);
  git('add', '.');
  git('commit', '-q', '-m', 'init');
  uri = pathToFileURL(join(repo, 'src/Order.java')).href;

  // What VS Code runs: `revline lsp --stdio` (TransportKind.stdio), cwd = the folder.
  server = spawn(binary, ['lsp', '--stdio'], { cwd: repo, stdio: ['pipe', 'pipe', 'pipe'] });
  server.stderr.on('data', (d) => stderr.push(d.toString()));
  const exited = new Promise((r) => server.on('exit', (code) => { exitCode = code; r(code); }));
  server.exitedPromise = exited;

  connection = createProtocolConnection(new StreamMessageReader(server.stdout), new StreamMessageWriter(server.stdin));
  connection.onRequest(WorkDoneProgressCreateRequest.type, () => null);
  connection.onRequest(ConfigurationRequest.type, (params) => params.items.map(() => null));
  connection.onRequest(RegistrationRequest.type, () => null);
  connection.onNotification('$/progress', (p) => progress.push([p.token, p.value.kind, p.value.message]));
  connection.onNotification(LogMessageNotification.type, (p) => logs.push(`[${p.type}] ${p.message}`));
  connection.onNotification(ShowMessageNotification.type, (p) => {
    logs.push(`[show ${p.type}] ${p.message}`);
    if (p.type === 1) errorsShown.push(p.message);
  });
  // VS Code announces pull diagnostics (LSP 3.17) with refresh support: the
  // server never pushes; on workspace/diagnostic/refresh the client pulls each
  // open document with the resultId it has, as vscode-languageclient does.
  connection.onNotification(PublishDiagnosticsNotification.type, (p) => pushed.push(p));
  connection.onRequest(DiagnosticRefreshRequest.type, () => {
    refreshes++;
    setImmediate(() => { for (const u of openUris) pull(u).catch((e) => logs.push(`pull failed: ${e}`)); });
    return null;
  });
  connection.listen();

  const capabilities = JSON.parse(readFileSync(join(here, 'vscode-client-capabilities.json'), 'utf8'));
  delete capabilities._comment;
  // The extension's settings: user-level camelCase, translated by the extension's module.
  const initializationOptions = settings.toServerSettings({
    provider: 'builtin',
    model: '',
    baseUrl: '',
    apiKeyEnv: '',
    reviewScope: 'file',
    debounceMs: 50,
    instructions: '',
    policy: { blockingSeverity: 'MAJOR', confidence_threshold: 0.6 },
    extraSettings: {},
  });
  assert.deepEqual(initializationOptions, {
    provider: 'builtin',
    review_scope: 'file',
    debounce_ms: 50,
    policy: { blocking_severity: 'MAJOR', confidence_threshold: 0.6 },
  });
  const result = await connection.sendRequest(InitializeRequest.type, {
    processId: process.pid,
    clientInfo: { name: 'Visual Studio Code', version: '1.82.0' },
    locale: 'en',
    rootPath: repo,
    rootUri: pathToFileURL(repo).href,
    capabilities,
    initializationOptions,
    trace: 'off',
    workspaceFolders: [{ uri: pathToFileURL(repo).href, name: 'repo' }],
  });
  const caps = result.capabilities;
  assert.ok(caps.hoverProvider, 'hoverProvider');
  assert.ok(caps.codeActionProvider, 'codeActionProvider');
  assert.equal(caps.diagnosticProvider?.interFileDependencies, false, 'diagnosticProvider (pull diagnostics)');
  const commands = caps.executeCommandProvider?.commands ?? [];
  for (const c of Object.values(settings.ServerCommands)) assert.ok(commands.includes(c), `server command ${c} advertised`);
  await connection.sendNotification(InitializedNotification.type, {});
});

after(async () => {
  if (connection && exitCode === undefined) {
    try {
      await connection.sendRequest(ShutdownRequest.type);
      await connection.sendNotification(ExitNotification.type);
    } catch { /* already gone */ }
  }
  if (server && exitCode === undefined) {
    const t = setTimeout(() => server.kill('SIGKILL'), 5000);
    await server.exitedPromise;
    clearTimeout(t);
  }
  connection?.dispose();
  if (repo) rmSync(repo, { recursive: true, force: true });
});

let diagnostic; // the CORRECTNESS finding, as published

test('saving an edited file publishes the finding as a diagnostic', async () => {
  writeFileSync(join(repo, 'src/Order.java'), AFTER);
  await connection.sendNotification(DidOpenTextDocumentNotification.type, {
    textDocument: { uri, languageId: 'java', version: 1, text: AFTER },
  });
  openUris.add(uri);
  const published = nextDiagnostics(uri, (d) => d.length > 0, 'the review of src/Order.java');
  await connection.sendNotification(DidSaveTextDocumentNotification.type, { textDocument: { uri } });
  const diagnostics = await published;
  assert.equal(diagnostics.length, 1, JSON.stringify(diagnostics));
  diagnostic = diagnostics[0];
  assert.equal(diagnostic.range.start.line, 2, 'on the `if (status == "APPROVED")` line (0-based 2)');
  assert.equal(diagnostic.range.end.line, 2);
  assert.equal(diagnostic.severity, 3, 'MINOR (string-identity is below the blocking bar) maps to Information');
  assert.equal(diagnostic.source, 'revline');
  assert.equal(diagnostic.code, 'CORRECTNESS');
  assert.match(diagnostic.message, /^String compared with == \/ != instead of equals\(\)\n\n/);
  assert.match(diagnostic.message, /\(confidence 0\.60?\)$/);
  assert.equal(typeof diagnostic.data?.id, 'string', 'data.id');
  assert.deepEqual(errorsShown, [], 'no error shown to the user');
  assert.ok(refreshes >= 1, 'the server asked for a pull (workspace/diagnostic/refresh)');
  assert.deepEqual(pushed, [], 'a pull client gets no publishDiagnostics');
});

test('pulling again with the resultId answers "unchanged"', async () => {
  const first = await pull(uri);
  assert.equal(first.kind, 'unchanged', JSON.stringify(first));
  resultIds.delete(uri);
  const full = await pull(uri);
  assert.equal(full.kind, 'full');
  assert.equal(full.items.length, 1);
  const again = await pull(uri);
  assert.deepEqual(again, { kind: 'unchanged', resultId: full.resultId });
});

test('code actions find the finding by Diagnostic.data.id, not by position', async () => {
  const actions = await connection.sendRequest(CodeActionRequest.type, {
    textDocument: { uri },
    range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, // elsewhere
    context: { diagnostics: [diagnostic], triggerKind: 1 },
  });
  const fix = actions.find((a) => a.kind === 'quickfix' && a.edit);
  assert.ok(fix, JSON.stringify(actions.map((a) => a.title)));
  const change = fix.edit.documentChanges?.[0];
  assert.deepEqual(change?.textDocument, { uri, version: 1 }, 'a documentChanges edit for version 1 of the document');
  assert.equal(fix.edit.changes, undefined, 'no unversioned changes');
});

test('the review reports its progress (the status bar follows it)', async () => {
  for (let waited = 0; !progress.some(([, kind]) => kind === 'end') && waited < TIMEOUT_MS; waited += 20) {
    await new Promise((r) => setTimeout(r, 20));
  }
  const kinds = progress.map(([, kind]) => kind);
  assert.ok(kinds.includes('begin'), `progress: ${JSON.stringify(progress)}`);
  assert.ok(kinds.includes('end'), `progress: ${JSON.stringify(progress)}`);
  const end = progress.find(([, kind]) => kind === 'end');
  assert.equal(end[2], '1 finding, verdict COMMENT');
});

test('hover on the line explains the finding', async () => {
  const hover = await connection.sendRequest(HoverRequest.type, {
    textDocument: { uri },
    position: { line: 2, character: 10 },
  });
  assert.ok(hover, 'a hover');
  const contents = hover.contents;
  const text = typeof contents === 'string' ? contents : Array.isArray(contents) ? contents.map((c) => c.value ?? c).join('\n') : contents.value;
  if (typeof contents === 'object' && !Array.isArray(contents)) assert.equal(contents.kind, 'markdown');
  assert.match(text, /String compared with == \/ != instead of equals\(\)/);
  assert.match(text, /equals/);
  const none = await connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position: { line: 0, character: 0 } });
  assert.equal(none, null, 'no hover on a line without findings');
});

test('the quick fix replaces the line; applying it clears the diagnostic', async () => {
  const actions = await connection.sendRequest(CodeActionRequest.type, {
    textDocument: { uri },
    range: diagnostic.range,
    context: { diagnostics: [diagnostic], triggerKind: 1 },
  });
  const titles = actions.map((a) => a.title);
  const fix = actions.find((a) => a.kind === 'quickfix' && a.edit);
  assert.ok(fix, `a quickfix with an edit among ${JSON.stringify(titles)}`);
  assert.equal(fix.isPreferred, true);
  assert.ok(titles.includes('Dismiss this finding'), JSON.stringify(titles));
  const edits = fix.edit.changes?.[uri] ?? fix.edit.documentChanges?.find((c) => c.textDocument.uri === uri)?.edits;
  assert.ok(edits && edits.length > 0, JSON.stringify(fix.edit));
  const fixed = applyTextEdits(AFTER, edits);
  assert.equal(fixed.split('\n')[2], FIXED_LINE);
  assert.equal(fixed, AFTER.replace('    if (status == "APPROVED") {', FIXED_LINE));

  // VS Code applies the edit as a didChange (incremental) on the open document.
  const cleared = nextDiagnostics(uri, (d) => d.length === 0, 'the applied fix to clear the diagnostic');
  await connection.sendNotification(DidChangeTextDocumentNotification.type, {
    textDocument: { uri, version: 2 },
    contentChanges: edits.map((e) => ({ range: e.range, text: e.newText })),
  });
  await cleared;

  // Saved, the fixed file gives no finding.
  writeFileSync(join(repo, 'src/Order.java'), fixed);
  const reviewed = await connection.sendRequest(ExecuteCommandRequest.type, {
    command: settings.ServerCommands.reviewFile,
    arguments: [{ uri }],
  });
  assert.equal(reviewed?.findings, 0, JSON.stringify(reviewed));
  // Back to the buggy version (undo + save) for the next tests.
  writeFileSync(join(repo, 'src/Order.java'), AFTER);
  await connection.sendNotification(DidChangeTextDocumentNotification.type, {
    textDocument: { uri, version: 3 },
    contentChanges: [{ text: AFTER }],
  });
  const again = nextDiagnostics(uri, (d) => d.length === 1, 'the review after undoing the fix');
  await connection.sendNotification(DidSaveTextDocumentNotification.type, { textDocument: { uri } });
  await again;
});

test('Review Workspace, then Clear Findings', async () => {
  const result = await connection.sendRequest(ExecuteCommandRequest.type, {
    command: settings.ServerCommands.reviewWorkspace,
    arguments: [{ uri: pathToFileURL(repo).href }],
  });
  assert.equal(result?.findings, 1, JSON.stringify(result));
  // The same finding as before: a pull answers "unchanged" (or full, with it).
  const report = await pull(uri);
  assert.equal((report.kind === 'full' ? report.items : latestDiagnostics.get(uri)).length, 1, JSON.stringify(report));

  const cleared = nextDiagnostics(uri, (d) => d.length === 0, 'Clear Findings');
  await connection.sendRequest(ExecuteCommandRequest.type, { command: settings.ServerCommands.clearDiagnostics, arguments: [] });
  await cleared;
});

test('changed settings arrive as workspace/didChangeConfiguration', async () => {
  // The extension sends {settings: {revline: toServerSettings(...)}}; excluding src/** leaves nothing to review.
  const changed = settings.toServerSettings({ provider: 'builtin', extraSettings: { exclude: ['src/**'] } });
  await connection.sendNotification(DidChangeConfigurationNotification.type, { settings: { revline: changed } });
  const result = await connection.sendRequest(ExecuteCommandRequest.type, {
    command: settings.ServerCommands.reviewFile,
    arguments: [{ uri }],
  });
  assert.equal(result?.findings, 0, `excluded by the new settings: ${JSON.stringify(result)}`);

  const back = settings.toServerSettings({ provider: 'builtin', extraSettings: { exclude: [] } });
  await connection.sendNotification(DidChangeConfigurationNotification.type, { settings: { revline: back } });
  const published = nextDiagnostics(uri, (d) => d.length === 1, 'the review after re-including src/**');
  const again = await connection.sendRequest(ExecuteCommandRequest.type, {
    command: settings.ServerCommands.reviewFile,
    arguments: [{ uri }],
  });
  assert.equal(again?.findings, 1, JSON.stringify(again));
  await published;
  assert.deepEqual(errorsShown, [], 'no error shown to the user');
});

test('shutdown and exit end the server with status 0', async () => {
  await connection.sendRequest(ShutdownRequest.type);
  await connection.sendNotification(ExitNotification.type);
  const t = setTimeout(() => server.kill('SIGKILL'), 10000);
  const code = await server.exitedPromise;
  clearTimeout(t);
  assert.equal(code, 0, `exit status; stderr:\n${stderr.join('')}`);
});
