// Unit test of the VS Code extension's settings translation
// (editors/vscode/src/settings.ts, compiled to out/settings.js): camelCase
// extension settings -> the server's .revline.json keys.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const modulePath = resolve(process.env.REVLINE_VSCODE_OUT ?? join(here, '../../editors/vscode/out'), 'settings.js');
assert.ok(existsSync(modulePath), `${modulePath} is missing: run \`npm ci && npm run compile\` in editors/vscode`);
const { toServerSettings, readExtensionSettings, summarize, ServerCommands } = createRequire(import.meta.url)(modulePath);

// What VS Code returns for untouched settings (package.json defaults).
const defaults = {
  provider: '', model: '', baseUrl: '', apiKeyEnv: '', reviewScope: '', debounceMs: null, instructions: '',
  policy: {}, extraSettings: {},
};

test('untouched settings send nothing (.revline.json stays in charge)', () => {
  assert.deepEqual(toServerSettings(defaults), {});
  assert.deepEqual(toServerSettings({}), {});
});

test('every setting maps to its .revline.json key', () => {
  assert.deepEqual(
    toServerSettings({
      ...defaults,
      provider: 'openai', model: ' gpt-4o-mini ', baseUrl: 'http://127.0.0.1:8080/v1', apiKeyEnv: 'MY_KEY',
      reviewScope: 'workspace', debounceMs: 250.4, instructions: 'Be strict.',
      policy: { blockingSeverity: 'BLOCKER', confidence_threshold: 0.8, blockingCategories: ['SECURITY'], maxFindings: 5 },
      extraSettings: { max_attempts: 2, exclude: ['vendor/**'], policy: { max_explanation_chars: 400 } },
    }),
    {
      provider: 'openai', model: 'gpt-4o-mini', base_url: 'http://127.0.0.1:8080/v1', api_key_env: 'MY_KEY',
      review_scope: 'workspace', debounce_ms: 250, instructions: 'Be strict.',
      max_attempts: 2, exclude: ['vendor/**'],
      policy: {
        max_explanation_chars: 400, blocking_severity: 'BLOCKER', confidence_threshold: 0.8,
        blocking_categories: ['SECURITY'], max_findings: 5,
      },
    },
  );
});

test('the explicit settings win over extraSettings', () => {
  assert.deepEqual(toServerSettings({ model: 'a', extraSettings: { model: 'b', provider: null } }), { model: 'a' });
});

test('readExtensionSettings takes what WorkspaceConfiguration.get returns', () => {
  const values = { ...defaults, provider: 'ollama', debounceMs: 0, policy: { max_findings: 3 } };
  const settings = readExtensionSettings((key) => values[key]);
  assert.deepEqual(toServerSettings(settings), { provider: 'ollama', debounce_ms: 0, policy: { max_findings: 3 } });
  assert.deepEqual(readExtensionSettings(() => undefined), {});
});

test('status bar summary and command names', () => {
  assert.equal(summarize([]), 'no findings');
  assert.equal(summarize([2]), '1 finding (1 major)');
  assert.equal(summarize([1, 2, 3, 4]), '4 findings (1 blocker, 1 major)');
  assert.deepEqual(Object.values(ServerCommands).sort(),
    ['revline.cancelReviews', 'revline.clearDiagnostics', 'revline.dismissFinding', 'revline.reviewFile',
      'revline.reviewWorkspace', 'revline.showDismissed', 'revline.undismiss']);
});

// Where the code and the API key go, and which program runs, are the user's to
// say: a repository's own .vscode/settings.json cannot set them (scope
// "machine": user or remote settings only), as a .revline.json cannot without
// `revline trust`. In Restricted Mode no workspace value of revline's is read.
test('routing settings are the user\'s, never a workspace\'s', async () => {
  const { readFileSync } = await import('node:fs');
  const manifest = JSON.parse(readFileSync(join(here, '../../editors/vscode/package.json'), 'utf8'));
  const props = manifest.contributes.configuration.properties;
  for (const key of ['revline.path', 'revline.provider', 'revline.model', 'revline.baseUrl', 'revline.apiKeyEnv',
    'revline.extraSettings']) {
    assert.equal(props[key].scope, 'machine', `${key} can be set by a workspace`);
  }
  const restricted = manifest.capabilities?.untrustedWorkspaces;
  assert.equal(restricted?.supported, 'limited');
  for (const key of ['revline.path', 'revline.baseUrl', 'revline.extraSettings']) {
    assert.ok(restricted.restrictedConfigurations.includes(key), `${key} is read in Restricted Mode`);
  }
});
