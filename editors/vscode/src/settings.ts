// Translates the extension's settings (camelCase, under "revline.") into the
// server's settings: the `.revline.json` keys (snake_case). Pure: no `vscode`
// import, so the Node client test (tests/client) uses this very module to
// build the initializationOptions and didChangeConfiguration it sends.

/** The "revline.*" settings as VS Code returns them (unset ones at their defaults). */
export interface ExtensionSettings {
  provider?: string;
  model?: string;
  baseUrl?: string;
  apiKeyEnv?: string;
  reviewScope?: string;
  debounceMs?: number | null;
  instructions?: string;
  policy?: Record<string, unknown>;
  extraSettings?: Record<string, unknown>;
}

/** A JSON object with the server's keys (`.revline.json` keys). */
export type ServerSettings = Record<string, unknown>;

const stringKeys: ReadonlyArray<readonly [keyof ExtensionSettings, string]> = [
  ['provider', 'provider'],
  ['model', 'model'],
  ['baseUrl', 'base_url'],
  ['apiKeyEnv', 'api_key_env'],
  ['reviewScope', 'review_scope'],
  ['instructions', 'instructions'],
];

const policyKeys: Readonly<Record<string, string>> = {
  blockingCategories: 'blocking_categories',
  blockingSeverity: 'blocking_severity',
  confidenceThreshold: 'confidence_threshold',
  maxFindings: 'max_findings',
  maxExplanationChars: 'max_explanation_chars',
};

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The server settings for the extension settings. Empty strings, null and empty
 * objects mean "not set here": they are left out, so `.revline.json` and the
 * server's defaults apply. The policy accepts the snake_case keys (as in
 * `.revline.json`) and their camelCase spelling.
 */
export function toServerSettings(settings: ExtensionSettings): ServerSettings {
  const out: ServerSettings = {};
  if (isObject(settings.extraSettings)) {
    for (const [key, value] of Object.entries(settings.extraSettings)) {
      if (value !== null && value !== undefined) out[key] = value;
    }
  }
  for (const [from, to] of stringKeys) {
    const value = settings[from];
    if (typeof value === 'string' && value.trim() !== '') out[to] = value.trim();
  }
  if (typeof settings.debounceMs === 'number' && Number.isFinite(settings.debounceMs)) {
    out['debounce_ms'] = Math.max(0, Math.round(settings.debounceMs));
  }
  if (isObject(settings.policy)) {
    const policy: Record<string, unknown> = isObject(out['policy']) ? { ...out['policy'] } : {};
    for (const [key, value] of Object.entries(settings.policy)) {
      if (value === null || value === undefined) continue;
      policy[policyKeys[key] ?? key] = value;
    }
    if (Object.keys(policy).length > 0) out['policy'] = policy;
  }
  return out;
}

/** Reads the "revline.*" settings through a getter (WorkspaceConfiguration.get in VS Code). */
export function readExtensionSettings(get: (key: string) => unknown): ExtensionSettings {
  const str = (key: string): string | undefined => {
    const v = get(key);
    return typeof v === 'string' ? v : undefined;
  };
  const obj = (key: string): Record<string, unknown> | undefined => {
    const v = get(key);
    return isObject(v) ? v : undefined;
  };
  const settings: ExtensionSettings = {};
  const assign = <K extends keyof ExtensionSettings>(key: K, value: ExtensionSettings[K] | undefined): void => {
    if (value !== undefined) settings[key] = value;
  };
  assign('provider', str('provider'));
  assign('model', str('model'));
  assign('baseUrl', str('baseUrl'));
  assign('apiKeyEnv', str('apiKeyEnv'));
  assign('reviewScope', str('reviewScope'));
  assign('instructions', str('instructions'));
  const debounce = get('debounceMs');
  if (typeof debounce === 'number') settings.debounceMs = debounce;
  assign('policy', obj('policy'));
  assign('extraSettings', obj('extraSettings'));
  return settings;
}

/** The server's command names (see `revline lsp --help` and docs/LSP.md). */
export const ServerCommands = {
  reviewFile: 'revline.reviewFile',
  reviewWorkspace: 'revline.reviewWorkspace',
  clearDiagnostics: 'revline.clearDiagnostics',
  dismissFinding: 'revline.dismissFinding',
  undismiss: 'revline.undismiss',
  showDismissed: 'revline.showDismissed',
  cancelReviews: 'revline.cancelReviews',
} as const;

/** Counts per LSP severity (1 Error … 4 Hint) of a set of diagnostics, for the status bar. */
export function summarize(severities: ReadonlyArray<number | undefined>): string {
  if (severities.length === 0) return 'no findings';
  const n = severities.length;
  const errors = severities.filter((s) => s === 1).length;
  const warnings = severities.filter((s) => s === 2).length;
  let text = `${n} finding${n === 1 ? '' : 's'}`;
  const parts: string[] = [];
  if (errors > 0) parts.push(`${errors} blocker${errors === 1 ? '' : 's'}`);
  if (warnings > 0) parts.push(`${warnings} major`);
  if (parts.length > 0) text += ` (${parts.join(', ')})`;
  return text;
}
