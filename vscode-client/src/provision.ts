// Self-provisioning of the bundled language server.
//
// The .vsix ships the server as a wheel (bundled/action_lsp-<version>-py3-none-any.whl, put there
// by `npm run package`). When no server is configured or on PATH, the extension creates a private
// virtual environment in its global storage, installs that wheel (its dependencies come from the
// package index, as with any `pip install`), and starts `<venv python> -m action_lsp serve`.
//
// Layout under the storage directory:
//   server/<version>-<sha256 of the wheel, 12 hex>/   the environment of one bundled wheel
//       venv/                                         python -m venv
//       provisioned.json                              written last: the environment is complete
//   server/.tmp-*                                     an environment being built (renamed when done)
// A start reuses the environment of the bundled wheel when it is complete and its Python still
// imports the server; a new wheel (another version or build) gets a new environment and the old
// ones are removed. Environments are built in a temporary directory and renamed into place, so a
// crash or two windows starting at once never leave a half-built environment that looks complete.
//
// This module uses Node only (no `vscode` import), so that it can be tested outside VS Code
// (test/provision.test.mjs).
import { spawn } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';

export const MIN_PYTHON: [number, number] = [3, 11];

export interface BundledWheel {
  path: string;
  name: string;
  version: string;
  sha256: string;
}

export interface Provisioned {
  /** The environment's interpreter: start the server as `<python> -m action_lsp serve`. */
  python: string;
  /** The server version the environment holds. */
  version: string;
  /** True when an existing environment was reused. */
  reused: boolean;
  /** The base interpreter the environment was made from (when it was made now). */
  basePython?: string[];
  seconds: number;
}

export type ProvisionErrorKind = 'no-wheel' | 'no-python' | 'venv' | 'install';

/** A failure with a message meant for the user (what went wrong and what to do). */
export class ProvisionError extends Error {
  constructor(
    readonly kind: ProvisionErrorKind,
    message: string,
    readonly detail = '',
  ) {
    super(message);
    this.name = 'ProvisionError';
  }
}

export interface ProvisionOptions {
  /** The extension's global storage directory (context.globalStorageUri.fsPath). */
  storageDir: string;
  /** The directory holding the bundled wheel (<extension>/bundled). */
  bundledDir: string;
  /** Interpreters to try, in order, each as a command line; default: defaultPythonCandidates(). */
  pythonCandidates?: string[][];
  log: (line: string) => void;
  /** Short progress messages ("creating a virtual environment", ...). */
  progress?: (message: string) => void;
  /** Extra environment for the processes (tests point pip at a local index this way). */
  env?: NodeJS.ProcessEnv;
}

const IS_WINDOWS = process.platform === 'win32';

/** The bundled wheel, or undefined when the extension was built without one. */
export function bundledWheel(bundledDir: string): BundledWheel | undefined {
  let names: string[];
  try {
    names = fs.readdirSync(bundledDir);
  } catch {
    return undefined;
  }
  const wheels = names.filter((n) => /^action_lsp-[^-]+-.*\.whl$/.test(n)).sort();
  if (wheels.length === 0) {
    return undefined;
  }
  const name = wheels[wheels.length - 1];
  const file = path.join(bundledDir, name);
  const sha256 = createHash('sha256').update(fs.readFileSync(file)).digest('hex');
  return { path: file, name, version: name.split('-')[1], sha256 };
}

/** Interpreters to try, newest first; `py` is the Windows launcher. */
export function defaultPythonCandidates(): string[][] {
  const minors = [14, 13, 12, 11];
  if (IS_WINDOWS) {
    return [...minors.map((m) => ['py', `-3.${m}`]), ['python3'], ['python']];
  }
  return [...minors.map((m) => [`python3.${m}`]), ['python3'], ['python']];
}

export function venvPython(venv: string): string {
  return IS_WINDOWS ? path.join(venv, 'Scripts', 'python.exe') : path.join(venv, 'bin', 'python');
}

/**
 * The environment for the private interpreter: without PYTHONPATH / PYTHONHOME (they would let
 * another action_lsp shadow the bundled one, or break the environment).
 */
export function isolatedEnv(extra?: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  delete env.PYTHONPATH;
  delete env.PYTHONHOME;
  return env;
}

interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  error?: Error;
}

function run(cmd: string[], opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number; onLine?: (line: string) => void } = {}): Promise<RunResult> {
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    let settled = false;
    const child = spawn(cmd[0], cmd.slice(1), {
      env: { ...isolatedEnv(opts.env), PIP_NO_INPUT: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
    });
    const timer = opts.timeoutMs
      ? setTimeout(() => {
          child.kill();
          stderr += `\n(timed out after ${opts.timeoutMs! / 1000} s)`;
        }, opts.timeoutMs)
      : undefined;
    const lines = (chunk: Buffer, sink: 'out' | 'err') => {
      const text = chunk.toString();
      if (sink === 'out') stdout += text;
      else stderr += text;
      if (opts.onLine) {
        for (const l of text.split(/\r?\n/)) if (l.trim() !== '') opts.onLine(l);
      }
    };
    child.stdout.on('data', (c: Buffer) => lines(c, 'out'));
    child.stderr.on('data', (c: Buffer) => lines(c, 'err'));
    const done = (r: RunResult) => {
      if (!settled) {
        settled = true;
        if (timer) clearTimeout(timer);
        resolve(r);
      }
    };
    child.on('error', (error) => done({ code: null, stdout, stderr, error }));
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

function lastLines(text: string, n: number): string {
  return text.trim().split(/\r?\n/).slice(-n).join('\n');
}

const PROBE = 'import sys; print("%d.%d" % sys.version_info[:2]); print(sys.executable)';

/**
 * The first candidate that runs and is Python >= 3.11, as its command line. Throws a
 * ProvisionError('no-python') that lists what was found.
 */
export async function findBasePython(candidates: string[][], log: (l: string) => void, env?: NodeJS.ProcessEnv): Promise<{ command: string[]; version: string; executable: string }> {
  const seen: string[] = [];
  for (const cand of candidates) {
    const r = await run([...cand, '-c', PROBE], { env, timeoutMs: 20000 });
    const shown = cand.join(' ');
    if (r.error || r.code !== 0) {
      if (!r.error || (r.error as NodeJS.ErrnoException).code !== 'ENOENT') {
        seen.push(`${shown}: does not run`);
      }
      continue;
    }
    const [version, executable] = r.stdout.trim().split(/\r?\n/);
    const [major, minor] = version.split('.').map(Number);
    log(`[provision] ${shown} is Python ${version} (${executable})`);
    if (major > MIN_PYTHON[0] || (major === MIN_PYTHON[0] && minor >= MIN_PYTHON[1])) {
      return { command: cand, version, executable };
    }
    seen.push(`${shown}: Python ${version}`);
  }
  const found = seen.length ? ` Found: ${seen.join('; ')}.` : ' None was found on PATH.';
  throw new ProvisionError(
    'no-python',
    `action-lsp needs Python ${MIN_PYTHON.join('.')} or later to set up its language server.${found} ` +
      'Install Python 3.11+ (https://www.python.org/downloads/, or your system\'s package manager) and ' +
      'run "action-lsp: Restart language server", or set "actionLsp.server.bootstrapPython" to a Python 3.11+ ' +
      'interpreter, or "actionLsp.server.command" to an installed action-lsp.',
  );
}

/** Does `python` import the server (and which version)? undefined when it does not. */
async function serverVersion(python: string, env?: NodeJS.ProcessEnv): Promise<string | undefined> {
  if (!fs.existsSync(python)) {
    return undefined;
  }
  const r = await run([python, '-c', 'import action_lsp; print(action_lsp.__version__)'], { env, timeoutMs: 30000 });
  return r.code === 0 ? r.stdout.trim() : undefined;
}

function rm(p: string): void {
  try {
    fs.rmSync(p, { recursive: true, force: true, maxRetries: 3 });
  } catch {
    // best effort (Windows keeps files of running processes)
  }
}

/** Remove the environments of other wheels and abandoned temporary directories. */
function removeStale(serverDir: string, keep: string, log: (l: string) => void): void {
  let names: string[] = [];
  try {
    names = fs.readdirSync(serverDir);
  } catch {
    return;
  }
  for (const n of names) {
    if (n === keep) continue;
    const p = path.join(serverDir, n);
    if (n.startsWith('.tmp-')) {
      // another window may be building right now: only remove what is clearly abandoned
      try {
        if (Date.now() - fs.statSync(p).mtimeMs < 60 * 60 * 1000) continue;
      } catch {
        continue;
      }
    }
    log(`[provision] removing ${p}`);
    rm(p);
  }
}

/**
 * The interpreter of a private environment holding the bundled server: reused when it is
 * complete, else created (venv + pip install of the bundled wheel).
 */
export async function provision(opts: ProvisionOptions): Promise<Provisioned> {
  const t0 = Date.now();
  const { log } = opts;
  const progress = opts.progress ?? (() => undefined);
  const wheel = bundledWheel(opts.bundledDir);
  if (!wheel) {
    throw new ProvisionError('no-wheel', `this build of the extension has no bundled server (no wheel in ${opts.bundledDir})`);
  }
  const key = `${wheel.version}-${wheel.sha256.slice(0, 12)}`;
  const serverDir = path.join(opts.storageDir, 'server');
  const envDir = path.join(serverDir, key);
  const python = venvPython(path.join(envDir, 'venv'));
  const stamp = path.join(envDir, 'provisioned.json');

  if (fs.existsSync(stamp)) {
    const version = await serverVersion(python, opts.env);
    if (version !== undefined) {
      log(`[provision] reusing ${envDir} (action-lsp ${version})`);
      removeStale(serverDir, key, log);
      return { python, version, reused: true, seconds: (Date.now() - t0) / 1000 };
    }
    log(`[provision] ${envDir} is broken (its Python does not import action_lsp): re-creating it`);
  }
  if (fs.existsSync(envDir)) {
    rm(envDir);
  }

  progress('looking for Python 3.11+');
  const base = await findBasePython(opts.pythonCandidates ?? defaultPythonCandidates(), log, opts.env);
  fs.mkdirSync(serverDir, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(serverDir, `.tmp-${key}-`));
  const tmpVenv = path.join(tmp, 'venv');
  try {
    progress(`creating a virtual environment (Python ${base.version})`);
    log(`[provision] ${base.command.join(' ')} -m venv ${tmpVenv}`);
    const venv = await run([...base.command, '-m', 'venv', tmpVenv], { env: opts.env, timeoutMs: 300000, onLine: (l) => log(`  ${l}`) });
    if (venv.code !== 0) {
      const why = lastLines(venv.stderr || venv.stdout || String(venv.error ?? ''), 6);
      const debian = /ensurepip|python3-venv/.test(why) ? ` On Debian or Ubuntu: sudo apt install python${base.version}-venv.` : '';
      throw new ProvisionError(
        'venv',
        `action-lsp could not create a virtual environment with ${base.command.join(' ')} (Python ${base.version}).${debian} ` +
          'Or set "actionLsp.server.bootstrapPython" to another Python 3.11+, or "actionLsp.server.command" to an installed action-lsp.',
        why,
      );
    }
    progress(`installing action-lsp ${wheel.version} and its dependencies`);
    const pip = [venvPython(tmpVenv), '-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', wheel.path];
    log(`[provision] ${pip.join(' ')}`);
    const inst = await run(pip, { env: opts.env, timeoutMs: 900000, onLine: (l) => log(`  ${l}`) });
    if (inst.code !== 0) {
      throw new ProvisionError(
        'install',
        `action-lsp could not install its language server (pip install ${wheel.name} failed; it needs the package index ` +
          'for the dependencies). Check the network or the pip configuration (a proxy, PIP_INDEX_URL), then run ' +
          '"action-lsp: Restart language server"; or set "actionLsp.server.command" to an installed action-lsp.',
        lastLines(inst.stderr || inst.stdout || String(inst.error ?? ''), 12),
      );
    }
    const version = await serverVersion(venvPython(tmpVenv), opts.env);
    if (version === undefined) {
      throw new ProvisionError('install', `the installed action-lsp does not import in ${tmpVenv}`);
    }
    fs.writeFileSync(
      path.join(tmp, 'provisioned.json'),
      JSON.stringify({ wheel: wheel.name, sha256: wheel.sha256, version, basePython: base.executable, created: new Date().toISOString() }, null, 2),
    );
    try {
      fs.renameSync(tmp, envDir);
    } catch (err) {
      // another window finished first: use its environment
      if (!fs.existsSync(stamp)) throw err;
      log(`[provision] ${envDir} was created meanwhile; using it`);
      rm(tmp);
    }
    removeStale(serverDir, key, log);
    const seconds = (Date.now() - t0) / 1000;
    log(`[provision] action-lsp ${version} ready in ${envDir} (${seconds.toFixed(1)} s)`);
    return { python, version, reused: false, basePython: base.command, seconds };
  } catch (err) {
    rm(tmp);
    throw err;
  }
}
