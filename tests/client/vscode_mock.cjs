// A small stand-in for the `vscode` module, enough to activate the revline
// extension (editors/vscode/out/extension.js) and run vscode-languageclient
// against the real server in Node: workspace folders, configuration, commands,
// output channels, a status bar item, diagnostic collections. What is not
// modelled is a no-op stub (any property, callable, constructible, disposable).
'use strict';
const path = require('node:path');
const { pathToFileURL, fileURLToPath } = require('node:url');

function stub(name) {
  const fn = function () {
    return stub(`${name}()`);
  };
  return new Proxy(fn, {
    get(target, prop) {
      if (prop === 'then') return undefined; // not a promise
      if (prop === Symbol.toPrimitive) return () => `[stub ${name}]`;
      if (prop === 'dispose') return () => {};
      if (typeof prop === 'symbol') return undefined;
      if (!(prop in target)) target[prop] = stub(`${name}.${String(prop)}`);
      return target[prop];
    },
    apply() {
      return stub(`${name}()`);
    },
    construct() {
      return stub(`new ${name}`);
    },
  });
}

class Disposable {
  constructor(fn) {
    this._fn = fn;
  }
  static from(...items) {
    return new Disposable(() => items.forEach((i) => i && i.dispose && i.dispose()));
  }
  dispose() {
    if (this._fn) this._fn();
    this._fn = undefined;
  }
}

class EventEmitter {
  constructor() {
    this.listeners = new Set();
    this.event = (listener, thisArg) => {
      const l = thisArg ? listener.bind(thisArg) : listener;
      this.listeners.add(l);
      return new Disposable(() => this.listeners.delete(l));
    };
  }
  fire(value) {
    for (const l of [...this.listeners]) l(value);
  }
  dispose() {
    this.listeners.clear();
  }
}

class Uri {
  constructor(scheme, fsPath, raw) {
    this.scheme = scheme;
    this.fsPath = fsPath;
    this.path = fsPath;
    this._raw = raw;
  }
  static file(p) {
    return new Uri('file', path.resolve(p), pathToFileURL(path.resolve(p)).href);
  }
  static parse(s) {
    if (s.startsWith('file:')) return new Uri('file', fileURLToPath(s), pathToFileURL(fileURLToPath(s)).href);
    return new Uri(s.split(':')[0], s, s);
  }
  toString() {
    return this._raw;
  }
  toJSON() {
    return this._raw;
  }
  with() {
    return this;
  }
}

class Position {
  constructor(line, character) {
    this.line = line;
    this.character = character;
  }
}
class Range {
  constructor(a, b, c, d) {
    if (typeof a === 'number') {
      this.start = new Position(a, b);
      this.end = new Position(c, d);
    } else {
      this.start = a;
      this.end = b;
    }
  }
}
class Diagnostic {
  constructor(range, message, severity) {
    this.range = range;
    this.message = message;
    this.severity = severity;
  }
}
const DiagnosticSeverity = { Error: 0, Warning: 1, Information: 2, Hint: 3 };

// An open notebook document of code cells, each given as its lines (what VS Code's
// notebook editor holds: a text document per cell, `vscode-notebook-cell:` URIs).
function notebookDocument(uri, cells) {
  const documents = cells.map((lines, i) => ({
    uri: Uri.parse(`vscode-notebook-cell:${uri.fsPath}#cell${i}`),
    lineCount: lines.length,
    lineAt: (n) => ({
      lineNumber: n,
      text: lines[n],
      firstNonWhitespaceCharacterIndex: lines[n].length - lines[n].trimStart().length,
      range: new Range(n, 0, n, lines[n].length),
    }),
  }));
  return { uri, notebookType: 'jupyter-notebook', cellCount: cells.length, cellAt: (i) => ({ index: i, document: documents[i] }) };
}

// ---------------------------------------------------------------- state the test reads and drives

const state = {
  folders: [],
  settings: {}, // "revline.provider" -> value
  commands: new Map(),
  output: [],
  statusItems: [],
  collections: [],
  messages: [],
  configListeners: new EventEmitter(),
  notebookSaves: new EventEmitter(), // fire({ uri }) as VS Code does when a notebook is saved
  notebooks: [], // the open notebook documents (workspace.notebookDocuments)
  notebookOpens: new EventEmitter(),
};

function collection(name) {
  const entries = new Map();
  const c = {
    name,
    entries,
    set(uri, diagnostics) {
      if (Array.isArray(uri)) {
        for (const [u, d] of uri) entries.set(u.toString(), d || []);
      } else {
        entries.set(uri.toString(), diagnostics || []);
      }
      onDidChangeDiagnostics.fire({ uris: [uri] });
    },
    delete(uri) {
      entries.delete(uri.toString());
    },
    clear() {
      entries.clear();
    },
    get(uri) {
      return entries.get(uri.toString());
    },
    forEach(cb) {
      for (const [u, d] of entries) cb(Uri.parse(u), d, c);
    },
    has(uri) {
      return entries.has(uri.toString());
    },
    dispose() {
      entries.clear();
      state.collections.splice(state.collections.indexOf(c), 1);
    },
  };
  state.collections.push(c);
  state.collectionsCreated = (state.collectionsCreated ?? 0) + 1; // one per client start
  return c;
}
const onDidChangeDiagnostics = new EventEmitter();

function channel(name) {
  const lines = [];
  state.output.push({ name, lines });
  return {
    name,
    append: (t) => lines.push(t),
    appendLine: (t) => lines.push(t),
    replace: (t) => lines.push(t),
    clear: () => {},
    show: () => {},
    hide: () => {},
    dispose: () => {},
    // LogOutputChannel methods used by newer clients
    trace: (t) => lines.push(t),
    debug: (t) => lines.push(t),
    info: (t) => lines.push(t),
    warn: (t) => lines.push(t),
    error: (t) => lines.push(String(t)),
  };
}

function configuration(section) {
  const prefix = section ? `${section}.` : '';
  return {
    get(key, defaultValue) {
      const full = prefix + key;
      if (full in state.settings) return state.settings[full];
      const nested = {};
      let found = false;
      for (const [k, v] of Object.entries(state.settings)) {
        if (k.startsWith(`${full}.`)) {
          nested[k.slice(full.length + 1)] = v;
          found = true;
        }
      }
      return found ? nested : defaultValue;
    },
    has(key) {
      return prefix + key in state.settings;
    },
    inspect() {
      return undefined;
    },
    update() {
      return Promise.resolve();
    },
  };
}

const workspace = new Proxy(
  {
    get workspaceFolders() {
      return state.folders;
    },
    textDocuments: [],
    getConfiguration: (section) => configuration(section),
    getWorkspaceFolder: (uri) => state.folders.find((f) => uri.fsPath.startsWith(f.uri.fsPath)),
    onDidChangeConfiguration: state.configListeners.event,
    onDidChangeWorkspaceFolders: new EventEmitter().event,
    onDidOpenTextDocument: new EventEmitter().event,
    onDidCloseTextDocument: new EventEmitter().event,
    onDidChangeTextDocument: new EventEmitter().event,
    onDidSaveTextDocument: new EventEmitter().event,
    onDidSaveNotebookDocument: state.notebookSaves.event,
    onDidOpenNotebookDocument: state.notebookOpens.event,
    get notebookDocuments() {
      return state.notebooks;
    },
    onWillSaveTextDocument: new EventEmitter().event,
  },
  {
    get(target, prop) {
      if (prop in target) return target[prop];
      return stub(`workspace.${String(prop)}`);
    },
  },
);

const window = new Proxy(
  {
    activeTextEditor: undefined,
    visibleTextEditors: [],
    createOutputChannel: (name) => channel(name),
    createStatusBarItem: () => {
      let text = '';
      const item = {
        history: [], // every text shown, in order
        get text() {
          return text;
        },
        set text(value) {
          text = value;
          if (item.history[item.history.length - 1] !== value) item.history.push(value);
        },
        tooltip: '', command: undefined, name: '', show() {}, hide() {}, dispose() {},
      };
      state.statusItems.push(item);
      return item;
    },
    showErrorMessage: (m) => {
      state.messages.push(['error', m]);
      return Promise.resolve(undefined);
    },
    showWarningMessage: (m) => {
      state.messages.push(['warning', m]);
      return Promise.resolve(undefined);
    },
    showInformationMessage: (m) => {
      state.messages.push(['info', m]);
      return Promise.resolve(undefined);
    },
    withProgress: (_options, task) => task({ report() {} }, { isCancellationRequested: false, onCancellationRequested: () => new Disposable() }),
    onDidChangeActiveTextEditor: new EventEmitter().event,
    // No editor tabs open (vscode-languageclient's pull-diagnostics feature reads them).
    tabGroups: { all: [], onDidChangeTabs: new EventEmitter().event, onDidChangeTabGroups: new EventEmitter().event },
  },
  {
    get(target, prop) {
      if (prop in target) return target[prop];
      return stub(`window.${String(prop)}`);
    },
  },
);

const languages = new Proxy(
  {
    createDiagnosticCollection: (name) => collection(name),
    getDiagnostics: (uri) => {
      if (uri) return state.collections.flatMap((c) => c.entries.get(uri.toString()) ?? []);
      const all = [];
      for (const c of state.collections) for (const [u, d] of c.entries) all.push([Uri.parse(u), d]);
      return all;
    },
    onDidChangeDiagnostics: onDidChangeDiagnostics.event,
    match: () => 10,
  },
  {
    get(target, prop) {
      if (prop in target) return target[prop];
      if (String(prop).startsWith('register')) return () => new Disposable();
      return stub(`languages.${String(prop)}`);
    },
  },
);

const commands = {
  registerCommand(id, fn) {
    if (state.commands.has(id)) throw new Error(`command '${id}' already exists`);
    state.commands.set(id, fn);
    return new Disposable(() => state.commands.delete(id));
  },
  executeCommand(id, ...args) {
    const fn = state.commands.get(id);
    if (fn) return Promise.resolve(fn(...args));
    // VS Code's own commands are taken as run; an extension's command nobody
    // registered fails as in VS Code (a code action carrying it shows the error).
    if (/^(workbench|editor|vscode|setContext)[.]?/.test(id)) return Promise.resolve(undefined);
    return Promise.reject(new Error(`command '${id}' not found`));
  },
  getCommands: () => Promise.resolve([...state.commands.keys()]),
};

const real = {
  version: '1.82.0',
  env: { language: 'en', appName: 'Visual Studio Code (test stand-in)', openExternal: () => Promise.resolve(true), machineId: 'x', sessionId: 'y' },
  Uri,
  Position,
  Range,
  Diagnostic,
  DiagnosticSeverity,
  DiagnosticTag: { Unnecessary: 1, Deprecated: 2 },
  Disposable,
  EventEmitter,
  CancellationError: class CancellationError extends Error {},
  CancellationTokenSource: class {
    constructor() {
      this.token = { isCancellationRequested: false, onCancellationRequested: () => new Disposable() };
    }
    cancel() {
      this.token.isCancellationRequested = true;
    }
    dispose() {}
  },
  ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
  StatusBarAlignment: { Left: 1, Right: 2 },
  workspace,
  window,
  languages,
  commands,
  __state: state,
  __notebookDocument: notebookDocument,
};

module.exports = new Proxy(real, {
  get(target, prop) {
    if (prop in target) return target[prop];
    if (typeof prop === 'symbol' || prop === '__esModule' || prop === 'then') return undefined;
    target[prop] = stub(String(prop));
    return target[prop];
  },
});
