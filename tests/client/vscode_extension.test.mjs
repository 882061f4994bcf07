// Activates the compiled VS Code extension (editors/vscode/out/extension.js)
// in Node with a stand-in for the `vscode` module (vscode_mock.cjs), so the
// extension's own code and vscode-languageclient start the real `revline lsp`
// on a workspace folder; runs the extension's commands and checks the
// diagnostics VS Code would show, the status bar and a settings change.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, mkdirSync, rmSync, existsSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname, resolve } from 'node:path';
import { createRequire } from 'node:module';
import Module from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const outDir = resolve(process.env.REVLINE_VSCODE_OUT ?? join(here, '../../editors/vscode/out'));
const binary = process.env.REVLINE_BINARY;
const mockPath = join(here, 'vscode_mock.cjs');

// `require('vscode')` from the extension and from vscode-languageclient gets the stand-in.
const originalResolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (request === 'vscode') return mockPath;
  return originalResolve.call(this, request, ...rest);
};
const vscode = require(mockPath);
const state = vscode.__state;

let repo, extension, fileUri;

function git(...args) {
  execFileSync('git', args, { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] });
}

function revlineDiagnostics() {
  // What VS Code shows for the file: every live collection of the client (the
  // pushed one, and the pull-diagnostics one vscode-languageclient adds), so a
  // finding shown twice would count twice. A restart disposes the old ones.
  return state.collections.filter((x) => x.name === 'revline').flatMap((c) => c.entries.get(fileUri) ?? []);
}

async function waitFor(what, predicate, ms = 30000) {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) {
      const log = state.output.map((o) => `--- ${o.name}\n${o.lines.join('')}`).join('\n');
      throw new Error(`timed out waiting for ${what}\nmessages: ${JSON.stringify(state.messages)}\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

before(async () => {
  assert.ok(binary && existsSync(binary), `set REVLINE_BINARY to the revline executable, got ${binary}`);
  assert.ok(existsSync(join(outDir, 'extension.js')), `${outDir}/extension.js is missing: run npm run compile in editors/vscode`);
  repo = realpathSync(mkdtempSync(join(tmpdir(), 'revline-vscode-ext-')));
  git('init', '-q');
  git('config', 'user.email', 'test@example.com');
  git('config', 'user.name', 'revline test');
  git('config', 'commit.gpgsign', 'false');
  mkdirSync(join(repo, 'src'));
  writeFileSync(join(repo, 'src/Order.java'), 'class Order {\n  boolean approved(String status) {\n    return false;\n  }\n}\n');
  git('add', '.');
  git('commit', '-q', '-m', 'init');
  writeFileSync(join(repo, 'src/Order.java'),
    'class Order {\n  boolean approved(String status) {\n    if (status == "APPROVED") {\n      return true;\n    }\n    return false;\n  }\n}\n');
  fileUri = pathToFileURL(join(repo, 'src/Order.java')).href;

  state.folders.push({ uri: vscode.Uri.file(repo), name: 'repo', index: 0 });
  // A new user's setup: no revline settings at all, only where the binary is
  // (it is not on PATH here). Everything else is the extension's default.
  Object.assign(state.settings, { 'revline.path': binary });
  extension = require(join(outDir, 'extension.js'));
  await extension.activate({ subscriptions: [], extensionPath: resolve(outDir, '..') });
});

after(async () => {
  if (extension) await extension.deactivate(); // stops the server (shutdown + exit)
  Module._resolveFilename = originalResolve;
  if (repo) rmSync(repo, { recursive: true, force: true });
});

// The commands the server lists (executeCommandProvider), which its code actions
// carry: the extension leaves vscode-languageclient's registration of them out,
// so it must register each itself ("Restore dismissed finding" and "Show
// dismissed findings" ran into "command not found").
function serverCommands() {
  const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { processId: null, rootUri: null, capabilities: {} } });
  const shutdown = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'shutdown' });
  const exit = JSON.stringify({ jsonrpc: '2.0', method: 'exit' });
  const frame = (body) => `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  const input = frame(init) + frame(shutdown) + frame(exit);
  const out = execFileSync(binary, ['lsp'], { input, stdio: ['pipe', 'pipe', 'ignore'] }).toString();
  const reply = out.split('Content-Length').map((m) => m.slice(m.indexOf('{'))).find((m) => m.includes('"capabilities"'));
  return JSON.parse(reply).result.capabilities.executeCommandProvider.commands;
}

test('activation starts the server and registers the commands', () => {
  const ids = ['revline.showOutput', 'revline.restart', ...serverCommands()];
  assert.ok(ids.includes('revline.undismiss') && ids.includes('revline.showDismissed'), ids.join(', '));
  for (const id of ids) {
    assert.ok(state.commands.has(id), `command ${id} registered`);
  }
  assert.deepEqual(state.messages.filter(([kind]) => kind === 'error'), [], 'no error message');
  const status = state.statusItems[0];
  assert.ok(status, 'a status bar item');
  assert.match(status.text, /revline: 0$/);
});

test('revline: Review Workspace shows the finding and counts it in the status bar', async () => {
  await vscode.commands.executeCommand('revline.reviewWorkspace');
  await waitFor('revline diagnostics', () => revlineDiagnostics().length > 0);
  const diagnostics = revlineDiagnostics();
  assert.equal(diagnostics.length, 1);
  const d = diagnostics[0];
  assert.equal(d.range.start.line, 2);
  assert.equal(d.severity, vscode.DiagnosticSeverity.Information);  // string-identity is below the blocking bar
  assert.equal(d.source, 'revline');
  assert.match(d.message, /^String compared with == \/ != instead of equals\(\)/);
  const code = typeof d.code === 'object' && d.code !== null ? d.code.value : d.code;
  assert.equal(code, 'CORRECTNESS');
  await waitFor('the status bar count', () => /revline: 1$/.test(state.statusItems[0].text));
  assert.match(state.statusItems[0].text, /^\$\(warning\) revline: 1$/);
  assert.match(state.statusItems[0].tooltip, /^revline: 1 finding\n/);
  assert.match(state.statusItems[0].tooltip, /last review: 1 finding/);
  // While the review ran ($/progress begin .. end), the item showed a spinner.
  const history = state.statusItems[0].history;
  const spinning = history.indexOf('$(sync~spin) revline');
  assert.ok(spinning >= 0, `a spinner during the review: ${JSON.stringify(history)}`);
  assert.ok(history.indexOf('$(warning) revline: 1') > spinning, JSON.stringify(history));
});

test('revline: Clear Findings clears them', async () => {
  await vscode.commands.executeCommand('revline.clearDiagnostics');
  await waitFor('the diagnostics to clear', () => revlineDiagnostics().length === 0);
});

// A notebook saved in VS Code's notebook editor is a notebook document: the
// language client says nothing of it. The extension tells the server the file
// was saved; the cell's finding shows under the .ipynb file (the Problems view)
// and on the cell's line, where the notebook editor shows it.
test('a Jupyter notebook saved in the notebook editor is reviewed', async () => {
  const notebook = (source, count) => JSON.stringify({
    cells: [{ cell_type: 'code', execution_count: count, id: 'c1', metadata: {},
              outputs: [{ name: 'stdout', output_type: 'stream', text: [`run ${count}\n`] }], source }],
    metadata: { kernelspec: { display_name: 'Python 3', language: 'python', name: 'python3' } },
    nbformat: 4, nbformat_minor: 5 }, null, 1) + '\n';
  const path = join(repo, 'Explore.ipynb');
  writeFileSync(path, notebook(['x = input()'], 1));
  git('add', 'Explore.ipynb');
  git('commit', '-q', '-m', 'notebook');
  const text = notebook(['x = input()\n', '  eval(x)'], 2);
  writeFileSync(path, text);
  const uri = pathToFileURL(path).href;
  const opened = vscode.__notebookDocument(vscode.Uri.file(path), [['x = input()', '  eval(x)']]);
  state.notebooks.push(opened);
  const cellUri = opened.cellAt(0).document.uri.toString();
  const shown = () => state.collections.filter((c) => c.name === 'revline').flatMap((c) => c.entries.get(uri) ?? []);
  const onCell = () => state.collections.filter((c) => c.name === 'revline-cells').flatMap((c) => c.entries.get(cellUri) ?? []);
  state.notebookSaves.fire({ uri: vscode.Uri.file(path), notebookType: 'jupyter-notebook' });
  await waitFor('diagnostics on the notebook', () => shown().length > 0);
  assert.equal(shown().length, 1);
  assert.equal(shown()[0].range.start.line, text.split('\n').findIndex((l) => l.includes('eval(x)')));
  assert.match(shown()[0].message, /^eval\(\) runs a dynamically built string as Python code/);
  await waitFor('the finding on the cell', () => onCell().length > 0);
  assert.equal(onCell().length, 1);
  assert.deepEqual([onCell()[0].range.start.line, onCell()[0].range.start.character, onCell()[0].range.end.character], [1, 2, 9]);
  assert.equal(onCell()[0].message, shown()[0].message);
  // A notebook opened after its review gets its findings on its cells too.
  state.collections.find((c) => c.name === 'revline-cells').clear();
  state.notebookOpens.fire(opened);
  assert.equal(onCell().length, 1);
  git('checkout', '--', 'Explore.ipynb');
  state.notebookSaves.fire({ uri: vscode.Uri.file(path), notebookType: 'jupyter-notebook' });
  await waitFor('the finding cleared', () => shown().length === 0);
  await waitFor('the finding cleared from the cell', () => onCell().length === 0);
  state.notebooks.splice(state.notebooks.indexOf(opened), 1);
});

test('settings changes reach the server by didChangeConfiguration, a removed setting too, without a restart', async () => {
  const started = state.collectionsCreated;
  state.settings['revline.extraSettings'] = { exclude: ['src/**'] };
  state.configListeners.fire({ affectsConfiguration: (section) => section === 'revline' || section === 'revline.extraSettings' });
  await vscode.commands.executeCommand('revline.reviewFile', vscode.Uri.parse(fileUri));
  assert.equal(revlineDiagnostics().length, 0, 'src/** is excluded now');
  state.settings['revline.extraSettings'] = {};
  state.configListeners.fire({ affectsConfiguration: (section) => section === 'revline' || section === 'revline.extraSettings' });
  // The code-action form of the argument ({uri}) works too.
  await vscode.commands.executeCommand('revline.reviewFile', { uri: fileUri });
  await waitFor('the finding after re-including src/**', () => revlineDiagnostics().length === 1);
  assert.deepEqual(state.messages.filter(([kind]) => kind === 'error'), [], 'no error message');
  // The server was not restarted (that lost the session's totals and the review in flight).
  assert.equal(state.collectionsCreated, started, 'no new client was started');
});

// VS Code shows a language server's progress in the status bar, where it offers
// no cancel button: while a review runs the status bar item cancels it (and
// "revline: Cancel Running Reviews" does), through the server's
// revline.cancelReviews. A model that does not answer is given up on.
test('a running review is cancelled from the status bar item', async () => {
  const { createServer } = await import('node:http');
  let asked = 0;
  let closed = 0;
  const model = createServer((req) => {  // never answers
    asked += 1;
    req.socket.on('close', () => { closed += 1; });
  });
  await new Promise((r) => model.listen(0, '127.0.0.1', r));
  try {
    state.settings['revline.extraSettings'] = { provider: 'openai', model: 'slow', base_url: `http://127.0.0.1:${model.address().port}/v1` };
    state.configListeners.fire({ affectsConfiguration: (section) => section === 'revline' || section === 'revline.extraSettings' });
    const before = state.messages.length;
    const review = vscode.commands.executeCommand('revline.reviewFile', vscode.Uri.parse(fileUri));
    await waitFor('the model to be asked', () => asked === 1);
    await waitFor('the spinner', () => state.statusItems[0].text === '$(sync~spin) revline');
    assert.equal(state.statusItems[0].command, 'revline.cancelReviews');
    assert.match(state.statusItems[0].tooltip, /Click to cancel\.$/);
    await vscode.commands.executeCommand(state.statusItems[0].command);
    await waitFor('the model\'s request to be given up', () => closed === 1, 10000);
    const lines = state.output.flatMap((o) => o.lines);
    assert.ok(lines.includes('cancelled: src/Order.java'), `the output says what was cancelled: ${lines.slice(-5).join(' | ')}`);
    await review;
    // The command was cancelled, as asked: nothing failed, nothing was superseded.
    assert.deepEqual(state.messages.slice(before), [], 'no message for the cancelled command');
    await waitFor('the status bar to leave the spinner', () => state.statusItems[0].text !== '$(sync~spin) revline');
    assert.match(state.statusItems[0].tooltip, /last review: cancelled from the editor/);
    assert.equal(state.statusItems[0].command, 'revline.reviewWorkspace');
    assert.equal(asked, 1, 'no further request');
    assert.equal(revlineDiagnostics().length, 1, 'the earlier finding stays');
    await vscode.commands.executeCommand('revline.cancelReviews');  // none running: said, nothing sent
    assert.deepEqual(state.messages.at(-1), ['info', 'revline: no review is running.']);
  } finally {
    // Closed whatever happened: an open server keeps Node (and this test) running until CTest's timeout.
    model.closeAllConnections();
    await new Promise((r) => model.close(r));
    state.settings['revline.extraSettings'] = {};
    state.configListeners.fire({ affectsConfiguration: (section) => section === 'revline' || section === 'revline.extraSettings' });
  }
});

test('a review command that fails is told once: its own error message, no window/showMessage beside it', async () => {
  // A port nothing listens on: the model's server is not running.
  const { createServer } = await import('node:net');
  const probe = createServer();
  await new Promise((r) => probe.listen(0, '127.0.0.1', r));
  const port = probe.address().port;
  await new Promise((r) => probe.close(r));
  state.settings['revline.extraSettings'] = { provider: 'ollama', model: 'none', base_url: `http://127.0.0.1:${port}` };
  state.configListeners.fire({ affectsConfiguration: (section) => section === 'revline' || section === 'revline.extraSettings' });
  const before = state.messages.length;
  await vscode.commands.executeCommand('revline.reviewFile', vscode.Uri.parse(fileUri));
  // The server writes in order and vscode-languageclient handles its messages in order: a
  // window/showMessage sent before the reply has been shown by now.
  const errors = state.messages.slice(before).filter(([kind]) => kind === 'error');
  assert.equal(errors.length, 1, `one failed review, told ${errors.length} times: ${JSON.stringify(errors)}`);
  assert.match(errors[0][1], /^revline: .* failed: /);
  assert.ok(!errors[0][1].includes(': revline: '), `the message names revline once: ${errors[0][1]}`);
  assert.ok(errors[0][1].includes(`127.0.0.1:${port}`), errors[0][1]);
  assert.match(errors[0][1], /diagnostics shown are from earlier reviews/);
  assert.equal(revlineDiagnostics().length, 1, 'the earlier finding stays');
  // The status bar says the last review failed, not a count that reads as its result.
  await waitFor('the status bar to say the review failed', () => /last review failed$/.test(state.statusItems[0].text));
  assert.equal(state.statusItems[0].text, '$(alert) revline: 1, last review failed');
  assert.match(state.statusItems[0].tooltip, /last review: failed: /);
  state.settings['revline.extraSettings'] = {};
  state.configListeners.fire({ affectsConfiguration: (section) => section === 'revline' || section === 'revline.extraSettings' });
});
