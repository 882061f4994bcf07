// The revline VS Code extension: a thin client of `revline lsp`.
//
// One language client per workspace folder (the server finds the git
// repository of each file itself). Settings are translated to the server's
// `.revline.json` keys (src/settings.ts) and sent as initializationOptions and,
// on change, as workspace/didChangeConfiguration. Commands run the server's
// commands through workspace/executeCommand. A status bar item follows the
// server's $/progress reports and then shows the findings count.
import * as vscode from 'vscode';
import {
  DidChangeConfigurationNotification,
  DidSaveTextDocumentNotification,
  ExecuteCommandRequest,
  LanguageClient,
  type DynamicFeature,
  type StaticFeature,
  LanguageClientOptions,
  LSPErrorCodes,
  ResponseError,
  ServerOptions,
  State,
  TransportKind,
  WorkDoneProgress,
  WorkDoneProgressCreateRequest,
  type ProgressToken,
  type WorkDoneProgressBegin,
  type WorkDoneProgressEnd,
  type WorkDoneProgressReport,
} from 'vscode-languageclient/node';
import { readExtensionSettings, ServerCommands, summarize, toServerSettings, type ServerSettings } from './settings';

// vscode-languageclient registers a VS Code command for each command the server
// lists (executeCommandProvider). With one client per workspace folder, the
// second client's registration would fail ("command already exists"), and the
// names would collide with this extension's own commands. So that feature is
// left out: the extension registers the server's commands once and forwards
// each to the client of the folder it is about (workspace/executeCommand).
class RevlineLanguageClient extends LanguageClient {
  override registerFeature(feature: StaticFeature | DynamicFeature<unknown>): void {
    if ('registrationType' in feature && feature.registrationType.method === ExecuteCommandRequest.method) return;
    super.registerFeature(feature);
  }
}

const clients = new Map<string, LanguageClient>(); // by workspace folder URI
const ready = new Map<string, Promise<void>>(); // by workspace folder URI: the last start or restart
let output: vscode.OutputChannel;
let traceOutput: vscode.OutputChannel;
let status: vscode.StatusBarItem;
let cellDiagnostics: vscode.DiagnosticCollection | undefined; // a notebook's findings on its cells
const cellsShown = new Map<string, vscode.Uri[]>(); // notebook URI -> cell documents given diagnostics
// Folder URI and progress token -> what is reviewed. Each folder's server numbers
// its tokens from 1: by token alone, a review ending in one folder took another's entry.
const reviewsInProgress = new Map<string, string>();
const progressKey = (folderKey: string, token: ProgressToken): string => `${folderKey}\n${String(token)}`;
let lastResult: string | undefined;

function serverSettings(folder: vscode.WorkspaceFolder): ServerSettings {
  const config = vscode.workspace.getConfiguration('revline', folder.uri);
  return toServerSettings(readExtensionSettings((key) => config.get(key)));
}

function executable(folder: vscode.WorkspaceFolder): string {
  const configured = vscode.workspace.getConfiguration('revline', folder.uri).get<string>('path');
  return configured !== undefined && configured.trim() !== '' ? configured.trim() : 'revline';
}

function folderFor(uri: vscode.Uri | undefined): vscode.WorkspaceFolder | undefined {
  if (uri !== undefined) return vscode.workspace.getWorkspaceFolder(uri);
  const editor = vscode.window.activeTextEditor;
  if (editor !== undefined) return vscode.workspace.getWorkspaceFolder(editor.document.uri);
  const folders = vscode.workspace.workspaceFolders;
  return folders !== undefined && folders.length === 1 ? folders[0] : undefined;
}

// ------------------------------------------------------------------ status bar

function updateStatus(): void {
  if (reviewsInProgress.size > 0) {
    const what = [...reviewsInProgress.values()].join(', ');
    status.text = '$(sync~spin) revline';
    status.tooltip = `revline: reviewing ${what}\nClick to cancel.`;
    // VS Code shows a language server's progress in the status bar, where it
    // offers no cancel: the item cancels instead while a review runs.
    status.command = 'revline.cancelReviews';
  } else {
    const severities: number[] = [];
    for (const [, diagnostics] of vscode.languages.getDiagnostics()) {
      for (const d of diagnostics) {
        if (d.source === 'revline') severities.push(d.severity + 1); // vscode's enum is 0-based, LSP's 1-based
      }
    }
    const text = summarize(severities);
    const blocking = severities.some((s) => s === 1);
    // A check mark after a failed review would read as "reviewed, clean": the
    // count is of earlier reviews then, and the item says so.
    const failed = lastResult !== undefined && lastResult.startsWith('failed');
    const icon = failed ? '$(alert)' : severities.length === 0 ? '$(check)' : blocking ? '$(error)' : '$(warning)';
    status.text = `${icon} revline: ${severities.length}${failed ? ', last review failed' : ''}`;
    status.tooltip = `revline: ${text}${lastResult !== undefined ? `\nlast review: ${lastResult}` : ''}\nClick to review the workspace.`;
    status.command = 'revline.reviewWorkspace';
  }
  status.show();
}

function watchProgress(client: LanguageClient, folderKey: string, token: ProgressToken): void {
  const key = progressKey(folderKey, token);
  const disposable = client.onProgress(
    WorkDoneProgress.type,
    token,
    (value: WorkDoneProgressBegin | WorkDoneProgressReport | WorkDoneProgressEnd) => {
      if (value.kind === 'begin') {
        reviewsInProgress.set(key, value.message ?? value.title);
      } else if (value.kind === 'end') {
        reviewsInProgress.delete(key);
        if (value.message !== undefined) lastResult = value.message;
        disposable.dispose();
      }
      updateStatus();
    },
  );
}

// ------------------------------------------------------------------ clients

function startClient(folder: vscode.WorkspaceFolder): Promise<void> {
  const key = folder.uri.toString();
  const started = (ready.get(key) ?? Promise.resolve()).then(() => startClientNow(folder));
  ready.set(key, started);
  return started;
}

function restartClient(folder: vscode.WorkspaceFolder): Promise<void> {
  const key = folder.uri.toString();
  const restarted = (ready.get(key) ?? Promise.resolve())
    .then(() => stopClient(key))
    .then(() => startClientNow(folder));
  ready.set(key, restarted);
  return restarted;
}

async function startClientNow(folder: vscode.WorkspaceFolder): Promise<void> {
  const key = folder.uri.toString();
  if (clients.has(key) || folder.uri.scheme !== 'file') return;
  const settings = serverSettings(folder);
  const command = executable(folder);
  const serverOptions: ServerOptions = {
    command,
    args: ['lsp'],
    transport: TransportKind.stdio, // appends --stdio, which `revline lsp` accepts
    options: { cwd: folder.uri.fsPath },
  };
  const pattern = `${folder.uri.fsPath.replace(/[\\{}[\]*?]/g, (c) => `[${c}]`)}/**/*`;
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: 'file', pattern }],
    workspaceFolder: folder,
    initializationOptions: settings,
    outputChannel: output,
    traceOutputChannel: traceOutput,
    diagnosticCollectionName: 'revline',
    middleware: {
      handleDiagnostics: (uri, diagnostics, next) => {
        next(uri, diagnostics);
        if (isNotebook(uri)) showOnCells(uri, diagnostics);
      },
    },
    // The server reads the git working tree on save; it needs only open/change/save.
    synchronize: {},
  };
  // One id for every folder's client: it names the "revline.trace.server" setting.
  const client = new RevlineLanguageClient('revline', `revline (${folder.name})`, serverOptions, clientOptions);
  clients.set(key, client);
  try {
    await client.start();
  } catch (error) {
    clients.delete(key);
    const message = error instanceof Error ? error.message : String(error);
    output.appendLine(`revline: could not start \`${command} lsp\` for ${folder.uri.fsPath}: ${message}`);
    void vscode.window
      .showErrorMessage(
        `revline: could not start \`${command} lsp\` (${message}). Install revline or set "revline.path".`,
        'Open Settings',
      )
      .then((choice) => {
        if (choice === 'Open Settings') void vscode.commands.executeCommand('workbench.action.openSettings', 'revline.path');
      });
    return;
  }
  // Follow the review progress in the status bar (this replaces the client's
  // default progress notification for revline's reviews).
  client.onRequest(WorkDoneProgressCreateRequest.type, (params) => {
    watchProgress(client, key, params.token);
    return null;
  });
  updateStatus();
}

async function stopClient(key: string): Promise<void> {
  const client = clients.get(key);
  if (client === undefined) return;
  clients.delete(key);
  // Its diagnostics go with it (the client disposes its collection); those shown on cells too.
  cellDiagnostics?.clear();
  cellsShown.clear();
  if (client.state === State.Running) {
    try {
      await client.stop(); // 2 s for shutdown + exit
    } catch (error) {
      output.appendLine(`revline: stopping the server: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  // And its reviews, once it is stopped (one may begin while it stops): a stopped server
  // ends none of them (the spinner stayed for good, and the next server's first token is the same).
  for (const review of [...reviewsInProgress.keys()]) {
    if (review.startsWith(progressKey(key, ''))) reviewsInProgress.delete(review);
  }
  updateStatus();
}

async function restartAll(): Promise<void> {
  await Promise.all((vscode.workspace.workspaceFolders ?? []).map(restartClient));
}

function onConfigurationChanged(event: vscode.ConfigurationChangeEvent): void {
  if (!event.affectsConfiguration('revline')) return;
  for (const folder of vscode.workspace.workspaceFolders ?? []) {
    if (!event.affectsConfiguration('revline', folder.uri)) continue;
    const key = folder.uri.toString();
    const client = clients.get(key);
    const settings = serverSettings(folder);
    // Another executable needs a new server. Any other change, a removed setting
    // too, is one notification: the server takes each one as the whole of the
    // editor's settings (a restart would lose the session's totals and the
    // review in flight).
    if (event.affectsConfiguration('revline.path', folder.uri)) {
      void restartClient(folder);
      continue;
    }
    if (client === undefined || client.state !== State.Running) continue;
    void client.sendNotification(DidChangeConfigurationNotification.type, { settings: { revline: settings } });
  }
}

// ------------------------------------------------------------------ commands

async function runServerCommand(
  folder: vscode.WorkspaceFolder | undefined,
  command: string,
  args: unknown[],
  title: string,
  notARepositoryIsFine = false,
): Promise<void> {
  if (folder === undefined) {
    void vscode.window.showWarningMessage(`revline: ${title}: open a file of a workspace folder first.`);
    return;
  }
  await ready.get(folder.uri.toString()); // a (re)start in progress
  const client = clients.get(folder.uri.toString());
  if (client === undefined || client.state !== State.Running) {
    void vscode.window.showWarningMessage(`revline: the server for ${folder.name} is not running (see the revline output).`);
    return;
  }
  try {
    const result: unknown = await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args });
    if (typeof result === 'object' && result !== null) {
      const r = result as { findings?: unknown; verdict?: unknown };
      if (typeof r.verdict === 'string') lastResult = r.verdict;
      else if (typeof r.findings === 'number') lastResult = `${r.findings} finding${r.findings === 1 ? '' : 's'}`;
    }
  } catch (error) {
    if (error instanceof ResponseError && error.code === LSPErrorCodes.ServerCancelled) {
      if ((error.data as { cancelledFromEditor?: unknown } | undefined)?.cancelledFromEditor === true) {
        // Cancelled from the editor (the status bar item, Cancel Running Reviews), as asked: nothing failed.
        output.appendLine(`${title}: cancelled from the editor`);
        return;
      }
      // A newer review of the same file took its place: its result is what is shown.
      void vscode.window.showInformationMessage(`revline: ${title}: superseded by a newer review`);
      return;
    }
    const message = error instanceof Error ? error.message : String(error);
    if (notARepositoryIsFine && message.endsWith(' is not in a git repository')) {
      output.appendLine(`${title}: ${folder.name} left out: ${message}`);
      return;
    }
    void vscode.window.showErrorMessage(`revline: ${title} failed: ${message}`);
  } finally {
    updateStatus();
  }
}

/** The document URI a command argument names: a vscode.Uri (explorer, editor title) or {uri} (code actions). */
function argumentUri(arg: unknown): vscode.Uri | undefined {
  if (arg instanceof vscode.Uri) return arg;
  if (typeof arg === 'string') return vscode.Uri.parse(arg);
  if (typeof arg === 'object' && arg !== null && typeof (arg as { uri?: unknown }).uri === 'string') {
    return vscode.Uri.parse((arg as { uri: string }).uri);
  }
  return undefined;
}

async function reviewFile(arg?: unknown): Promise<void> {
  const target = argumentUri(arg) ?? vscode.window.activeTextEditor?.document.uri;
  if (target === undefined) {
    void vscode.window.showWarningMessage('revline: Review File: no file is open.');
    return;
  }
  const document = vscode.workspace.textDocuments.find((d) => d.uri.toString() === target.toString());
  if (document !== undefined && document.isDirty) await document.save(); // the server reviews what git sees
  await runServerCommand(folderFor(target), ServerCommands.reviewFile, [{ uri: target.toString() }], 'Review File');
}

/**
 * A dismissal command: from a code action ("Dismiss this finding", "Restore dismissed
 * finding", "Show dismissed findings"), with the server's arguments as they are; from
 * the command palette, about the active editor's file (restore: all of its findings).
 */
function dismissalCommand(command: string, title: string): (...args: unknown[]) => Promise<void> {
  return async (...args: unknown[]) => {
    let target = argumentUri(args[0]);
    if (target === undefined) {
      target = vscode.window.activeTextEditor?.document.uri;
      if (target === undefined) {
        void vscode.window.showWarningMessage(`revline: ${title}: no file is open.`);
        return;
      }
      args = [{ uri: target.toString() }];
    }
    await runServerCommand(folderFor(target), command, args, title);
  };
}

async function reviewWorkspace(): Promise<void> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  // In a multi-root workspace a folder that is no git repository (docs, a scratch
  // folder) has nothing to review: said in the output, not as an error on every
  // click of the status bar item. Alone, it is the user's mistake: an error.
  const several = folders.length > 1;
  await Promise.all(
    folders.map((folder) =>
      runServerCommand(folder, ServerCommands.reviewWorkspace, [{ uri: folder.uri.toString() }], 'Review Workspace', several),
    ),
  );
}

// Stops every review (a slow model, a long review of many requests), running or
// waiting for its turn: the server gives up the model call in flight and sends
// no further request; the findings shown stay. Through the server's
// revline.cancelReviews, which cancels the waiting ones too (the progress's
// cancel, window/workDoneProgress/cancel, reaches only a running one).
async function cancelReviews(): Promise<void> {
  const cancelled: string[] = [];
  await Promise.all(
    [...clients.values()].map(async (client) => {
      if (client.state !== State.Running) return;
      try {
        const result: unknown = await client.sendRequest(ExecuteCommandRequest.type, {
          command: ServerCommands.cancelReviews,
          arguments: [],
        });
        const reviews = (result as { reviews?: unknown } | null)?.reviews;
        if (Array.isArray(reviews)) cancelled.push(...reviews.map(String));
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        void vscode.window.showErrorMessage(`revline: Cancel Running Reviews failed: ${message}`);
      }
    }),
  );
  if (cancelled.length === 0) void vscode.window.showInformationMessage('revline: no review is running.');
  else output.appendLine(`cancelled: ${cancelled.join(', ')}`);
}

async function clearDiagnostics(): Promise<void> {
  await Promise.all(
    [...clients.entries()].map(async ([, client]) => {
      if (client.state !== State.Running) return;
      await client.sendRequest(ExecuteCommandRequest.type, { command: ServerCommands.clearDiagnostics, arguments: [] });
    }),
  );
  lastResult = undefined;
  updateStatus();
}

function isNotebook(uri: vscode.Uri): boolean {
  return uri.path.toLowerCase().endsWith('.ipynb');
}

// A notebook's findings on its cells: the server places them on the .ipynb
// file's JSON lines (the Problems view lists them there) and says in each
// diagnostic's data which cell and cell line it is (`cell`, `cellLine`); shown on
// the cell too, where the notebook editor shows diagnostics.
function showOnCells(uri: vscode.Uri, diagnostics: readonly vscode.Diagnostic[]): void {
  const key = uri.toString();
  if (cellDiagnostics === undefined) return;
  for (const cell of cellsShown.get(key) ?? []) cellDiagnostics.delete(cell);
  cellsShown.delete(key);
  const notebook = vscode.workspace.notebookDocuments.find((n) => n.uri.toString() === key);
  if (notebook === undefined) return;
  const byCell = new Map<string, { uri: vscode.Uri; diagnostics: vscode.Diagnostic[] }>();
  for (const d of diagnostics) {
    const at = (d as { data?: { cell?: unknown; cellLine?: unknown } }).data;
    if (typeof at?.cell !== 'number' || typeof at.cellLine !== 'number' || at.cell >= notebook.cellCount) continue;
    const cell = notebook.cellAt(at.cell).document;
    if (at.cellLine >= cell.lineCount) continue;
    const line = cell.lineAt(at.cellLine);
    const onCell = new vscode.Diagnostic(
      new vscode.Range(line.lineNumber, line.firstNonWhitespaceCharacterIndex, line.lineNumber, line.range.end.character),
      d.message,
      d.severity,
    );
    if (d.source !== undefined) onCell.source = d.source;
    if (d.code !== undefined) onCell.code = d.code;
    const entry = byCell.get(cell.uri.toString()) ?? { uri: cell.uri, diagnostics: [] };
    entry.diagnostics.push(onCell);
    byCell.set(cell.uri.toString(), entry);
  }
  for (const { uri: cell, diagnostics: list } of byCell.values()) cellDiagnostics.set(cell, list);
  cellsShown.set(key, [...byCell.values()].map((e) => e.uri));
}

// A notebook opened after its review: its file's findings go on its cells.
function onNotebookOpened(notebook: vscode.NotebookDocument): void {
  if (!isNotebook(notebook.uri)) return;
  showOnCells(notebook.uri, vscode.languages.getDiagnostics(notebook.uri).filter((d) => d.source === 'revline'));
}

// VS Code saves a Jupyter notebook as a notebook document, which the language
// client does not tell the server about (its selector is for text documents, and
// a cell is no file): the notebook's file is told saved, so it is reviewed on save
// as any file, its findings in the Problems view under the .ipynb file.
function onNotebookSaved(notebook: vscode.NotebookDocument): void {
  if (notebook.uri.scheme !== 'file') return;
  const folder = vscode.workspace.getWorkspaceFolder(notebook.uri);
  const client = folder ? clients.get(folder.uri.toString()) : undefined;
  if (client === undefined || client.state !== State.Running) return;
  void client.sendNotification(DidSaveTextDocumentNotification.type, {
    textDocument: { uri: client.code2ProtocolConverter.asUri(notebook.uri) },
  });
}

// ------------------------------------------------------------------ activation

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel('revline');
  traceOutput = vscode.window.createOutputChannel('revline (LSP trace)');
  status = vscode.window.createStatusBarItem('revline.status', vscode.StatusBarAlignment.Left, 10);
  status.name = 'revline';
  status.command = 'revline.reviewWorkspace';
  cellDiagnostics = vscode.languages.createDiagnosticCollection('revline-cells');
  context.subscriptions.push(
    cellDiagnostics,
    output,
    traceOutput,
    status,
    vscode.commands.registerCommand('revline.reviewFile', reviewFile),
    vscode.commands.registerCommand('revline.reviewWorkspace', reviewWorkspace),
    vscode.commands.registerCommand('revline.clearDiagnostics', clearDiagnostics),
    vscode.commands.registerCommand('revline.cancelReviews', cancelReviews),
    // Every command the server's code actions carry (its executeCommandProvider list) is registered here.
    vscode.commands.registerCommand(ServerCommands.dismissFinding, dismissalCommand(ServerCommands.dismissFinding, 'Dismiss Finding')),
    vscode.commands.registerCommand(ServerCommands.undismiss, dismissalCommand(ServerCommands.undismiss, 'Restore Dismissed Findings')),
    vscode.commands.registerCommand(ServerCommands.showDismissed, dismissalCommand(ServerCommands.showDismissed, 'Show Dismissed Findings')),
    vscode.commands.registerCommand('revline.showOutput', () => output.show(true)),
    vscode.commands.registerCommand('revline.restart', restartAll),
    vscode.workspace.onDidChangeConfiguration(onConfigurationChanged),
    vscode.workspace.onDidSaveNotebookDocument(onNotebookSaved),
    vscode.workspace.onDidOpenNotebookDocument(onNotebookOpened),
    vscode.workspace.onDidChangeWorkspaceFolders(async (event) => {
      for (const removed of event.removed) await stopClient(removed.uri.toString());
      for (const added of event.added) await startClient(added);
    }),
    vscode.languages.onDidChangeDiagnostics(() => {
      if (reviewsInProgress.size === 0) updateStatus();
    }),
  );
  await Promise.all((vscode.workspace.workspaceFolders ?? []).map(startClient));
  updateStatus();
}

export async function deactivate(): Promise<void> {
  await Promise.all([...clients.keys()].map(stopClient));
}
