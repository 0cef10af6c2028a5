// VS Code client for the action-lsp language server.
//
// Starts `action-lsp serve` (from `actionLsp.server.command`, or `<actionLsp.server.pythonPath> -m
// action_lsp serve`, or `action-lsp serve` on PATH, or else the server bundled in the .vsix, which
// it installs into a private virtual environment on first use: see provision.ts), hands it the
// `actionLsp.*` settings, and adds palette commands that act on the action under the cursor by
// asking the server for its code lenses and executing the lens's server command.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import {
  ApplyWorkspaceEditParams,
  ApplyWorkspaceEditRequest,
  ApplyWorkspaceEditResult,
  CancellationToken,
  CodeLens as ProtocolCodeLens,
  CodeLensRequest,
  CodeLensResolveRequest,
  DocumentSelector,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  ResponseError,
  ServerOptions,
  State,
  TextDocumentEdit,
} from 'vscode-languageclient/node';
import { isolatedEnv, provision, ProvisionError, Provisioned, bundledWheel } from './provision';

const SECTION = 'actionLsp';
const CLIENT_ID = 'actionLsp'; // vscode-languageclient reads `${CLIENT_ID}.trace.server`
const CLIENT_NAME = 'action-lsp';

/**
 * Built-in transcript file names; `actionLsp.filePatterns` adds more. `*.jsonl` are agent sessions
 * (Claude Code, Codex); `*.json` is not here, so a package.json is never analysed: a session saved
 * as `.json` is added with `actionLsp.filePatterns` (README, "Sessions").
 */
export const TRANSCRIPT_PATTERNS = ['**/*.transcript.md', '**/*.chat.md', '**/.aider.chat.history.md', '**/*.jsonl'];

/** Server settings forwarded to the server (architecture.md, "Server commands and settings"). */
export interface ServerSettings {
  dialects?: string[];
  severity?: Record<string, string>;
  allowOverwrite?: boolean;
  workspaceRoots?: string[];
  docsUrl?: string;
}

export interface ResolvedServerCommand {
  command: string;
  args: string[];
  /**
   * Where it came from: a setting ('server.command', 'server.pythonPath'), `action-lsp` found on
   * PATH ('PATH'), or the server bundled in the extension, in its private environment ('bundled').
   */
  source: 'server.command' | 'server.pythonPath' | 'PATH' | 'bundled';
  /** Environment overrides for the server process. */
  env?: NodeJS.ProcessEnv;
}

/** What `activate` returns (used by the end-to-end test and by other extensions). */
export interface ActionLspApi {
  /** The server command line the running client was started with, e.g. ['/venv/bin/action-lsp', 'serve']. */
  readonly serverCommand: string[];
  readonly serverCommandSource: ResolvedServerCommand['source'] | undefined;
  /** The language client (undefined until started / after a failed start). */
  readonly client: LanguageClient | undefined;
  /** Resolves once the current client is running (rejects if it failed to start). */
  ready(): Promise<void>;
  restart(): Promise<void>;
  /** The settings object sent to the server. */
  serverSettings(): ServerSettings;
  /** The private environment of the bundled server, once it was set up or reused. */
  readonly provisioned: Provisioned | undefined;
}

let output: vscode.OutputChannel;
let client: LanguageClient | undefined;
let starting: Promise<void> | undefined;
let resolved: ResolvedServerCommand | undefined;
let extensionContext: vscode.ExtensionContext;
let provisioned: Provisioned | undefined;
let provisioning: Promise<Provisioned> | undefined; // one set-up at a time, shared by the starts
let shownByServer = 0; // window/showDocument requests seen

function expandVars(value: string): string {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? '';
  let v = value.replace(/\$\{workspaceFolder\}/g, folder).replace(/\$\{userHome\}/g, os.homedir());
  if (v === '~' || v.startsWith('~/')) {
    v = path.join(os.homedir(), v.slice(1));
  }
  return v;
}

/** The first `name` executable on PATH (with PATHEXT on Windows), or undefined. */
export function findOnPath(name: string): string | undefined {
  const exts = process.platform === 'win32' ? (process.env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';') : [''];
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    for (const ext of exts) {
      const candidate = path.join(dir, name + ext);
      try {
        if (fs.statSync(candidate).isFile()) {
          fs.accessSync(candidate, fs.constants.X_OK);
          return candidate;
        }
      } catch {
        // not here
      }
    }
  }
  return undefined;
}

/** The server command from the settings, else `action-lsp` on PATH (found or not). */
export function resolveServerCommand(): ResolvedServerCommand {
  const cfg = vscode.workspace.getConfiguration(SECTION);
  const command = (cfg.get<string[]>('server.command') ?? []).filter((s) => typeof s === 'string');
  if (command.length > 0 && command[0].trim() !== '') {
    const [exe, ...args] = command.map(expandVars);
    return { command: exe, args, source: 'server.command' };
  }
  const python = (cfg.get<string>('server.pythonPath') ?? '').trim();
  if (python !== '') {
    return { command: expandVars(python), args: ['-m', 'action_lsp', 'serve'], source: 'server.pythonPath' };
  }
  return { command: 'action-lsp', args: ['serve'], source: 'PATH' };
}

/** Python >= 3.11 candidates for creating the private environment. */
function bootstrapCandidates(): string[][] | undefined {
  const configured = (vscode.workspace.getConfiguration(SECTION).get<string>('server.bootstrapPython') ?? '').trim();
  return configured !== '' ? [[expandVars(configured)]] : undefined;
}

/**
 * The server to start: a configured one, else `action-lsp` on PATH, else the bundled server in
 * its private environment (set up now when needed, with a progress notification).
 */
async function resolveServer(): Promise<ResolvedServerCommand> {
  const r = resolveServerCommand();
  const bundledDir = path.join(extensionContext.extensionPath, 'bundled');
  if (r.source !== 'PATH' || findOnPath('action-lsp') !== undefined || bundledWheel(bundledDir) === undefined) {
    return r;
  }
  let pending = provisioning;
  if (!pending) {
    const storageDir = extensionContext.globalStorageUri.fsPath;
    output.appendLine(`[client] no server configured and no action-lsp on PATH: using the bundled server (${storageDir})`);
    // Reusing the environment is quick and silent; setting it up shows a notification
    // (opened at the first progress message, closed when the set-up ends).
    let last = '';
    let opened = false;
    let ended = false;
    let report: ((message: string) => void) | undefined;
    let finish: (() => void) | undefined;
    const progress = (message: string) => {
      last = message;
      if (!opened) {
        opened = true;
        void vscode.window.withProgress(
          { location: vscode.ProgressLocation.Notification, title: 'action-lsp: setting up the language server (first start only)' },
          (p) => {
            report = (m) => p.report({ message: m });
            report(last);
            return ended ? Promise.resolve() : new Promise<void>((resolve) => (finish = resolve));
          },
        );
      }
      report?.(message);
    };
    pending = provisioning = provision({
      storageDir,
      bundledDir,
      pythonCandidates: bootstrapCandidates(),
      log: (line) => output.appendLine(line),
      progress,
    }).finally(() => {
      provisioning = undefined;
      ended = true;
      finish?.();
    });
  }
  provisioned = await pending;
  return {
    command: provisioned.python,
    args: ['-m', 'action_lsp', 'serve'],
    source: 'bundled',
    env: isolatedEnv(),
  };
}

/** The server settings from the `actionLsp` section, without the client-only keys. */
export function serverSettings(scope?: vscode.ConfigurationScope): ServerSettings {
  const cfg = vscode.workspace.getConfiguration(SECTION, scope);
  const settings: ServerSettings = {
    dialects: cfg.get<string[]>('dialects'),
    severity: cfg.get<Record<string, string>>('severity') ?? {},
    allowOverwrite: cfg.get<boolean>('allowOverwrite') ?? false,
    workspaceRoots: (cfg.get<string[]>('workspaceRoots') ?? []).map(expandVars),
    // '' means the server's default; always sent so that clearing it overrides an earlier value
    docsUrl: (cfg.get<string>('docsUrl') ?? '').trim(),
  };
  return settings;
}

function documentSelector(): DocumentSelector {
  const extra = vscode.workspace.getConfiguration(SECTION).get<string[]>('filePatterns') ?? [];
  const selector: DocumentSelector = [
    { scheme: 'file', language: 'markdown' },
    { scheme: 'file', language: 'plaintext' },
    { scheme: 'untitled', language: 'markdown' },
    { scheme: 'untitled', language: 'plaintext' },
  ];
  for (const pattern of [...TRANSCRIPT_PATTERNS, ...extra]) {
    if (typeof pattern === 'string' && pattern.trim() !== '') {
      selector.push({ scheme: 'file', pattern: pattern.trim() });
    }
  }
  return selector;
}

function createClient(server: ResolvedServerCommand): LanguageClient {
  resolved = server;
  const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const serverOptions: ServerOptions = {
    command: server.command,
    args: server.args,
    options: { ...(cwd ? { cwd } : {}), ...(server.env ? { env: server.env } : {}) },
  };
  output.appendLine(
    `[client] starting server (from ${resolved.source}): ${JSON.stringify([resolved.command, ...resolved.args])}`,
  );
  const clientOptions: LanguageClientOptions = {
    documentSelector: documentSelector(),
    outputChannel: output,
    traceOutputChannel: output,
    synchronize: { configurationSection: SECTION },
    initializationOptions: serverSettings(),
    middleware: {
      window: {
        // Count the documents the server shows (previewDiff shows its diff this way).
        showDocument: async (params, next) => {
          shownByServer++;
          const r = await next(params, CancellationToken.None);
          return r instanceof ResponseError ? { success: false } : r;
        },
      },
      workspace: {
        // Answer `workspace/configuration` for our section with the cleaned server settings.
        configuration: async (params, token, next) => {
          const result = await next(params, token);
          if (!Array.isArray(result)) {
            return result;
          }
          return params.items.map((item, i) => {
            if (item.section === SECTION) {
              const scope = item.scopeUri ? vscode.Uri.parse(item.scopeUri) : undefined;
              return serverSettings(scope);
            }
            return result[i];
          });
        },
      },
    },
  };
  const c = new LanguageClient(CLIENT_ID, CLIENT_NAME, serverOptions, clientOptions);
  // Registered before start(), so it replaces the client's built-in handler.
  c.onRequest(ApplyWorkspaceEditRequest.type, (params) => applyWorkspaceEdit(c, params));
  return c;
}

/**
 * `workspace/applyEdit` as the built-in handler does it (including its check of the versions of
 * open documents), then, with `actionLsp.saveAfterApply`, saves the documents the edit made dirty,
 * so that an applied action is on disk like `action-lsp apply --write` would leave it.
 */
async function applyWorkspaceEdit(c: LanguageClient, params: ApplyWorkspaceEditParams): Promise<ApplyWorkspaceEditResult> {
  const open = new Map(vscode.workspace.textDocuments.map((d) => [d.uri.toString(), d] as const));
  for (const change of params.edit.documentChanges ?? []) {
    if (TextDocumentEdit.is(change) && typeof change.textDocument.version === 'number' && change.textDocument.version >= 0) {
      const doc = open.get(c.protocol2CodeConverter.asUri(change.textDocument.uri).toString());
      if (doc && doc.version !== change.textDocument.version) {
        output.appendLine(`[client] workspace/applyEdit refused: ${doc.uri.toString()} changed since the server computed the edit`);
        return { applied: false, failureReason: 'Version mismatch' };
      }
    }
  }
  const edit = await c.protocol2CodeConverter.asWorkspaceEdit(params.edit);
  const dirtyBefore = new Set(vscode.workspace.textDocuments.filter((d) => d.isDirty).map((d) => d.uri.toString()));
  let applied: boolean;
  try {
    applied = await vscode.workspace.applyEdit(edit);
  } catch (err) {
    return { applied: false, failureReason: err instanceof Error ? err.message : String(err) };
  }
  output.appendLine(`[client] workspace/applyEdit${params.label ? ` (${params.label})` : ''}: ${applied ? 'applied' : 'not applied'}`);
  if (applied && vscode.workspace.getConfiguration(SECTION).get<boolean>('saveAfterApply', true)) {
    for (const [uri] of edit.entries()) {
      const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
      if (doc && doc.isDirty && !dirtyBefore.has(uri.toString()) && !doc.isUntitled) {
        if (!(await doc.save())) {
          output.appendLine(`[client] could not save ${uri.toString()}`);
        }
      }
    }
  }
  return applied ? { applied } : { applied, failureReason: 'VS Code did not apply the edit' };
}

function serverCommandLine(): string[] {
  return resolved ? [resolved.command, ...resolved.args] : [];
}

function errorText(err: unknown): string {
  if (err instanceof Error) {
    return err.message;
  }
  if (err && typeof err === 'object' && typeof (err as { message?: unknown }).message === 'string') {
    return (err as { message: string }).message;
  }
  try {
    return JSON.stringify(err) ?? String(err);
  } catch {
    return String(err);
  }
}

function showStartError(message: string): void {
  void vscode.window.showErrorMessage(message, 'Show Output', 'Open Settings', 'Retry').then((choice) => {
    if (choice === 'Open Settings') {
      void vscode.commands.executeCommand('workbench.action.openSettings', 'actionLsp.server');
    } else if (choice === 'Show Output') {
      output.show(true);
    } else if (choice === 'Retry') {
      void restart().catch(() => undefined);
    }
  });
}

class Superseded extends Error {}
/** Cancels the wait of the start under way for the server set-up (a restart supersedes it). */
let supersede: ((err: Error) => void) | undefined;

async function startClient(): Promise<void> {
  const superseded = new Promise<never>((_, reject) => (supersede = reject));
  superseded.catch(() => undefined);
  starting = (async () => {
    let server: ResolvedServerCommand;
    try {
      // the set-up goes on when superseded (the environment is kept for the next start)
      server = await Promise.race([resolveServer(), superseded]);
    } catch (err) {
      if (!(err instanceof Superseded)) {
        const msg = errorText(err);
        output.appendLine(`[client] the bundled server could not be set up: ${msg}`);
        if (err instanceof ProvisionError && err.detail) {
          output.appendLine(err.detail);
        }
        showStartError(err instanceof ProvisionError ? msg : `action-lsp: could not set up the bundled language server: ${msg}`);
      }
      throw err;
    } finally {
      supersede = undefined;
    }
    const c = createClient(server);
    client = c;
    await c.start().catch((err: unknown) => {
      const msg = errorText(err);
      output.appendLine(`[client] failed to start the server: ${msg}`);
      const notFound = server.source === 'PATH' && findOnPath(server.command) === undefined;
      showStartError(
        notFound
          ? 'action-lsp: the language server `action-lsp` is not on PATH and this build of the extension bundles none. ' +
              'Install it (`pipx install /path/to/action-lsp`, see the README) or set "actionLsp.server.command".'
          : `action-lsp: could not start the language server ${JSON.stringify([server.command, ...server.args])}: ${msg}. ` +
              'Set "actionLsp.server.command" or "actionLsp.server.pythonPath".',
      );
      throw err;
    });
  })();
  return starting;
}

async function stopClient(): Promise<void> {
  const c = client;
  client = undefined;
  starting = undefined;
  if (c && c.state !== State.Stopped) {
    try {
      // dispose, not stop: a restart makes a new client, so the old one's diagnostic
      // collections and command registrations must go for good.
      await c.dispose(5000);
    } catch (err) {
      output.appendLine(`[client] error while stopping the server: ${String(err)}`);
    }
  }
}

// Starts, stops and restarts run one after the other (settings can change while a start is
// under way, e.g. when the user settings arrive after activation).
let lifecycle: Promise<void> = Promise.resolve();
function enqueue(fn: () => Promise<void>): Promise<void> {
  const p = lifecycle.then(fn, fn);
  lifecycle = p.catch(() => undefined);
  return p;
}

function restart(): Promise<void> {
  supersede?.(new Superseded('superseded by a restart'));
  return enqueue(async () => {
    output.appendLine('[client] restarting the server');
    await stopClient();
    await startClient();
  });
}

async function runningClient(): Promise<LanguageClient> {
  await lifecycle;
  try {
    if (!client) {
      await enqueue(startClient);
    } else if (starting) {
      await starting;
    }
  } catch (err) {
    throw new Error(`the action-lsp server ${JSON.stringify(serverCommandLine())} failed to start: ${errorText(err)}`);
  }
  if (!client || client.state !== State.Running) {
    throw new Error(`the action-lsp server ${JSON.stringify(serverCommandLine())} is not running`);
  }
  return client;
}

type ServerCommand = 'action-lsp.apply' | 'action-lsp.applyAll' | 'action-lsp.previewDiff';

interface Lens {
  range: vscode.Range;
  title: string;
  /** '' for informational lenses such as "Applied ✓". */
  command: string;
  args: unknown;
}

/** The server's code lenses of a document, resolved, in protocol terms. */
async function serverLenses(c: LanguageClient, doc: vscode.TextDocument): Promise<Lens[]> {
  const raw =
    (await c.sendRequest(CodeLensRequest.type, {
      textDocument: { uri: c.code2ProtocolConverter.asUri(doc.uri) },
    })) ?? [];
  const lenses: Lens[] = [];
  for (let lens of raw as ProtocolCodeLens[]) {
    if (!lens.command && c.initializeResult?.capabilities.codeLensProvider?.resolveProvider) {
      lens = await c.sendRequest(CodeLensResolveRequest.type, lens);
    }
    if (lens.command) {
      lenses.push({
        range: c.protocol2CodeConverter.asRange(lens.range),
        title: lens.command.title,
        command: lens.command.command,
        args: lens.command.arguments?.[0],
      });
    }
  }
  return lenses;
}

/** The lens whose range contains `line`, else the nearest one above. */
function pickLens(lenses: Lens[], line: number): Lens | undefined {
  let best: Lens | undefined;
  for (const l of lenses) {
    if (l.range.start.line <= line && (!best || l.range.start.line > best.range.start.line)) {
      best = l;
    }
  }
  return best;
}

const TITLES: Record<ServerCommand, string> = {
  'action-lsp.apply': 'apply',
  'action-lsp.applyAll': 'apply',
  'action-lsp.previewDiff': 'preview',
};

/** Runs a server command on the action (or block) under the cursor of the active editor. */
async function actOnCursor(serverCommand: ServerCommand): Promise<unknown> {
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    void vscode.window.showWarningMessage('action-lsp: open a transcript first.');
    return undefined;
  }
  const c = await runningClient();
  const lenses = await serverLenses(c, editor.document);
  const line = editor.selection.active.line;
  let args: unknown;
  if (serverCommand === 'action-lsp.applyAll') {
    const group = pickLens(
      lenses.filter((l) => l.command === serverCommand),
      line,
    );
    const single = pickLens(
      lenses.filter((l) => l.command === 'action-lsp.apply'),
      line,
    );
    // The block's "Apply all" lens; a block with a single pending action has none: apply that one.
    if (group && (!single || group.range.start.line >= single.range.start.line || groupCovers(group, single))) {
      args = group.args;
    } else if (single) {
      const a = single.args as { uri: string; version: number | null; action: number };
      args = { uri: a.uri, version: a.version, actions: [a.action] };
    }
  } else {
    // The action under the cursor: the nearest per-action lens at or above the cursor line
    // (an applied action has a lens without a command, e.g. "Applied ✓").
    const anchor = pickLens(
      lenses.filter((l) => l.command !== 'action-lsp.applyAll'),
      line,
    );
    const lens = anchor && lenses.find((l) => l.command === serverCommand && l.range.start.line === anchor.range.start.line);
    if (anchor && !lens) {
      const title = lenses.find((l) => l.range.start.line === anchor.range.start.line)?.title ?? '';
      void vscode.window.showInformationMessage(
        `action-lsp: nothing to ${TITLES[serverCommand]} for the action on line ${anchor.range.start.line + 1}${title ? ` (${title})` : ''}.`,
      );
      return undefined;
    }
    args = lens?.args;
  }
  if (args === undefined) {
    void vscode.window.showInformationMessage('action-lsp: no file action at or above the cursor.');
    return undefined;
  }
  output.appendLine(`[client] ${serverCommand} ${JSON.stringify(args)}`);
  const shownBefore = shownByServer;
  const result = await c.sendRequest(ExecuteCommandRequest.type, { command: serverCommand, arguments: [args] });
  await reportResult(serverCommand, result, shownByServer !== shownBefore);
  return result;
}

/** Whether the "Apply all" lens `group` lists the action of the apply lens `single`. */
function groupCovers(group: Lens, single: Lens): boolean {
  const actions = (group.args as { actions?: number[] } | undefined)?.actions ?? [];
  return actions.includes((single.args as { action?: number } | undefined)?.action ?? -1);
}

async function reportResult(serverCommand: ServerCommand, result: unknown, serverShowedDocument: boolean): Promise<void> {
  if (result === null || result === undefined) {
    return;
  }
  let diff: string | undefined;
  if (typeof result === 'string') {
    diff = serverCommand === 'action-lsp.previewDiff' ? result : undefined;
  } else if (typeof result === 'object') {
    const r = result as Record<string, unknown>;
    if (typeof r.diff === 'string') {
      diff = r.diff;
    }
    // told: the server showed its message already (window/showMessage): once is enough
    if (typeof r.message === 'string' && r.message !== '' && r.told !== true) {
      const failed = r.applied === false || r.ok === false || r.error !== undefined;
      if (failed) {
        void vscode.window.showWarningMessage(`action-lsp: ${r.message}`);
      } else if (serverCommand !== 'action-lsp.previewDiff') {
        void vscode.window.setStatusBarMessage(`action-lsp: ${r.message}`, 5000);
      }
    }
  }
  // Open the diff unless the server already showed it (window/showDocument).
  if (diff !== undefined && serverCommand === 'action-lsp.previewDiff' && !serverShowedDocument) {
    const doc = await vscode.workspace.openTextDocument({ language: 'diff', content: diff });
    await vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Beside });
  }
}

function command(id: string, fn: () => Promise<unknown>): vscode.Disposable {
  return vscode.commands.registerCommand(id, async () => {
    try {
      return await fn();
    } catch (err) {
      const msg = errorText(err);
      output.appendLine(`[client] ${id} failed: ${msg}`);
      void vscode.window.showErrorMessage(`action-lsp: ${msg}`);
      throw err;
    }
  });
}

export async function activate(context: vscode.ExtensionContext): Promise<ActionLspApi> {
  extensionContext = context;
  output = vscode.window.createOutputChannel(CLIENT_NAME);
  context.subscriptions.push(
    output,
    command('actionLsp.apply', () => actOnCursor('action-lsp.apply')),
    command('actionLsp.applyAll', () => actOnCursor('action-lsp.applyAll')),
    command('actionLsp.previewDiff', () => actOnCursor('action-lsp.previewDiff')),
    command('actionLsp.restartServer', restart),
    command('actionLsp.showOutput', async () => output.show(true)),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (
        e.affectsConfiguration(`${SECTION}.server.command`) ||
        e.affectsConfiguration(`${SECTION}.server.pythonPath`) ||
        e.affectsConfiguration(`${SECTION}.server.bootstrapPython`) ||
        e.affectsConfiguration(`${SECTION}.filePatterns`)
      ) {
        void restart().catch(() => undefined);
      }
    }),
    { dispose: () => void enqueue(stopClient) },
  );

  // A failed start is reported to the user; activation itself succeeds so that the
  // restart command stays available after the settings are fixed.
  void enqueue(startClient).catch(() => undefined);

  return {
    get serverCommand() {
      return serverCommandLine();
    },
    get serverCommandSource() {
      return resolved?.source;
    },
    get client() {
      return client;
    },
    ready: async () => {
      await runningClient();
    },
    restart,
    serverSettings: () => serverSettings(),
    get provisioned() {
      return provisioned;
    },
  };
}

export async function deactivate(): Promise<void> {
  await stopClient();
}
