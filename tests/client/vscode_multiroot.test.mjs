// A multi-root VS Code workspace: a git repository beside a folder that is none
// (docs, a scratch folder). "Review Workspace" (also the status bar item's
// click) reviews the repository and leaves the other folder out with a line in
// the output, not an error message on every click.
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

before(async () => {
  top = realpathSync(mkdtempSync(join(tmpdir(), 'revline-vscode-multiroot-')));
  const repo = join(top, 'service');
  const notes = join(top, 'notes');
  mkdirSync(repo);
  mkdirSync(notes);
  const git = (...args) => execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd: repo });
  git('init', '-q');
  writeFileSync(join(repo, 'app.py'), 'x = 1\n');
  git('add', '.');
  git('commit', '-q', '-m', 'init');
  writeFileSync(join(repo, 'app.py'), 'x = 1\nresult = eval(user_input)\n');
  writeFileSync(join(notes, 'todo.txt'), 'nothing here is code\n');
  state.folders.push({ uri: vscode.Uri.file(repo), name: 'service', index: 0 });
  state.folders.push({ uri: vscode.Uri.file(notes), name: 'notes', index: 1 });
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
