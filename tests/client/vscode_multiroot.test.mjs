// A multi-root VS Code workspace: a git repository beside a folder that is none
// (docs, a scratch folder), and a second repository. "Review Workspace" (also
// the status bar item's click) reviews the repositories and leaves the other
// folder out with a line in the output, not an error message on every click.
// Each folder's server numbers its progress tokens from 1: a review ending in
// one folder leaves the status bar's spinner (and its cancel) while the other's runs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync, realpathSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname, resolve } from 'node:path';
import { createRequire } from 'node:module';
import Module from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const outDir = resolve(process.env.REVLINE_VSCODE_OUT ?? join(here, '../../editors/vscode/out'));
const mockPath = join(here, 'vscode_mock.cjs');
const originalResolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return originalResolve.call(this, request === 'vscode' ? mockPath : request, ...rest);
};
const vscode = require(mockPath);
const state = vscode.__state;
let top, extension;

async function waitFor(what, predicate, ms = 30000) {
  for (const deadline = Date.now() + ms; !predicate();) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(state.messages)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

before(async () => {
  top = realpathSync(mkdtempSync(join(tmpdir(), 'revline-vscode-multiroot-')));
  const repo = join(top, 'service');
  const notes = join(top, 'notes');
  const worker = join(top, 'worker');
  for (const dir of [repo, notes, worker]) mkdirSync(dir);
  for (const [dir, file] of [[repo, 'app.py'], [worker, 'slow.py']]) {
    const git = (...args) => execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd: dir });
    git('init', '-q');
    writeFileSync(join(dir, file), 'x = 1\n');
    git('add', '.');
    git('commit', '-q', '-m', 'init');
    writeFileSync(join(dir, file), 'x = 1\nresult = eval(user_input)\n');
  }
  writeFileSync(join(notes, 'todo.txt'), 'nothing here is code\n');
  state.folders.push({ uri: vscode.Uri.file(repo), name: 'service', index: 0 });
  state.folders.push({ uri: vscode.Uri.file(notes), name: 'notes', index: 1 });
  state.folders.push({ uri: vscode.Uri.file(worker), name: 'worker', index: 2 });
  Object.assign(state.settings, { 'revline.path': process.env.REVLINE_BINARY });
  extension = require(join(outDir, 'extension.js'));
  await extension.activate({ subscriptions: [], extensionPath: resolve(outDir, '..') });
});

after(async () => {
  if (extension) await extension.deactivate();
  Module._resolveFilename = originalResolve;
  if (top) rmSync(top, { recursive: true, force: true });
});

test('Review Workspace reviews the repository and leaves the other folder out without an error', async () => {
  const fileUri = pathToFileURL(join(top, 'service', 'app.py')).href;
  await vscode.commands.executeCommand('revline.reviewWorkspace');
  const shown = state.collections.filter((c) => c.name === 'revline').flatMap((c) => c.entries.get(fileUri) ?? []);
  assert.ok(shown.length >= 1, `the repository's finding is shown: ${JSON.stringify(state.messages)}`);
  assert.deepEqual(state.messages.filter(([kind]) => kind === 'error'), [], 'no error message');
  const log = state.output.flatMap((o) => o.lines).join('');
  assert.match(log, /Review Workspace: notes left out: .* is not in a git repository/);
});

// A model on 127.0.0.1 for every folder's server that never answers a request
// holding slow.py (the worker folder's change) and approves the others; `run`
// gets the count of slow.py's requests.
async function withSlowModel(run) {
  const { createServer } = await import('node:http');
  let slowAsked = 0;
  const model = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => { body += chunk; });
    req.on('end', () => {
      if (body.includes('slow.py')) { slowAsked += 1; return; }  // never answers
      const report = { summary: 'Fine.', verdict: 'APPROVE', findings: [] };
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: JSON.stringify(report) } }],
                               usage: { prompt_tokens: 10, completion_tokens: 5 } }));
    });
  });
  await new Promise((r) => model.listen(0, '127.0.0.1', r));
  const fire = () => state.configListeners.fire({ affectsConfiguration: (section) => section === 'revline' || section === 'revline.extraSettings' });
  try {
    state.settings['revline.extraSettings'] = { provider: 'openai', model: 'm', base_url: `http://127.0.0.1:${model.address().port}/v1` };
    fire();
    await run(() => slowAsked);
  } finally {
    // Closed whatever happened: an open server keeps Node (and this test) running until CTest's timeout.
    model.closeAllConnections();
    await new Promise((r) => model.close(r));
    state.settings['revline.extraSettings'] = {};
    fire();
  }
}

const spinning = () => state.statusItems[0].text === '$(sync~spin) revline';

// The worker folder's review of slow.py, running (the spinner shown); its command's
// promise, in an object (an async function returning a promise would wait for it).
async function slowReviewRunning(slowAsked) {
  const review = vscode.commands.executeCommand('revline.reviewFile', vscode.Uri.file(join(top, 'worker', 'slow.py')));
  await waitFor('the slow folder\'s model request', () => slowAsked() === 1);
  await waitFor('the spinner', spinning);
  return { review };
}

// Two folders' servers, each with its review's progress token "revline-review-N"
// (here both N = 2: each server's first review was the workspace review of the
// first test): the one that ends first took the other's entry with it, and the status bar
// showed no review running (its click reviewed the workspace again, superseding
// the running review, instead of cancelling it).
test('a review ending in one folder leaves the spinner while the other folder\'s review runs', async () => {
  await withSlowModel(async (slowAsked) => {
    const { review: slow } = await slowReviewRunning(slowAsked);
    await vscode.commands.executeCommand('revline.reviewFile', vscode.Uri.file(join(top, 'service', 'app.py')));
    await new Promise((r) => setTimeout(r, 300));  // the other folder's progress end handled
    assert.ok(spinning(), JSON.stringify(state.statusItems[0].history.slice(-4)));
    assert.equal(state.statusItems[0].command, 'revline.cancelReviews');
    await vscode.commands.executeCommand(state.statusItems[0].command);
    await slow;
    await waitFor('the status bar to leave the spinner', () => !spinning());
  });
});

// "revline: Restart Server" while a review runs: the stopped server ends none of
// its reviews, and the spinner stayed for good ("no review is running" on its click).
test('restarting the server during a review leaves no spinner behind', async () => {
  await withSlowModel(async (slowAsked) => {
    const { review: slow } = await slowReviewRunning(slowAsked);
    await vscode.commands.executeCommand('revline.restart');
    await slow.catch(() => {});  // the connection went with the server
    await waitFor('the status bar to leave the spinner', () => !spinning(), 10000);
    assert.equal(state.statusItems[0].command, 'revline.reviewWorkspace');
  });
});
