#!/usr/bin/env node
// Driver of the VS Code end-to-end test (see ../README.md and install.sh).
//
//   node run.js
//
// Starts the VS Code server bundled in code-server (on Node 24) on 127.0.0.1 with a free port,
// opens a copy of ./fixture in headless chromium with the extension under development
// (vscode-client/) and the in-VS-Code test (suite/index.js), waits for the test's exit code
// (at most E2E_TIMEOUT_S seconds, default 120), checks the workspace on disk, kills the server's
// process group and exits with the result.
//
// Environment:
//   E2E_MODE                   `settings` (default): the server comes from the settings below;
//                              `bundled`: no server setting and none on PATH, so the extension must
//                              set up the server bundled in it (use with E2E_VSIX)
//   E2E_VSIX                   a packaged extension (npm run package): installed into the run's
//                              extensions directory with the server's --install-extension (what
//                              `code --install-extension` does) and tested instead of vscode-client/
//   ACTION_LSP_SERVER_COMMAND  JSON array, the server command line written to the remote machine
//                              setting actionLsp.server.command (user-data/Machine/settings.json;
//                              default: <repo>/.venv/bin/action-lsp serve)
//   ACTION_LSP_E2E_PYTHON      a Python with action_lsp, for the actionLsp.server.pythonPath step
//                              (default: the python next to the server command; '' skips the step)
//   E2E_RUN_DIR                run directory to use (kept); default: a fresh /tmp/vscode-e2e-XXXX,
//                              removed after a passing run unless E2E_KEEP=1
//   E2E_TIMEOUT_S              how long to wait for the test (default 120)
//   CHROMIUM                   browser executable (default /usr/bin/chromium)
'use strict';
const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const E2E_DIR = __dirname;
const REPO_DIR = path.resolve(E2E_DIR, '..', '..');
const VSIX = process.env.E2E_VSIX ? path.resolve(process.env.E2E_VSIX) : undefined;
// with a .vsix, the development extension is an empty one that only carries the test suite
const EXT_DIR = VSIX ? path.join(E2E_DIR, 'devext') : path.resolve(E2E_DIR, '..');
const MODE = process.env.E2E_MODE || 'settings';
const NODE24 = path.join(E2E_DIR, '.cache', 'node24', 'bin', 'node');
const VSCODE_DIR = path.join(E2E_DIR, 'node_modules', 'code-server', 'lib', 'vscode');
const SERVER_MAIN = path.join(VSCODE_DIR, 'out', 'server-main.js');
const SUITE = path.join(E2E_DIR, 'suite', 'index.js');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const TIMEOUT_S = Number(process.env.E2E_TIMEOUT_S || 120);
const t0 = Date.now();

function log(msg) {
  console.log(`[run.js +${((Date.now() - t0) / 1000).toFixed(1)}s] ${msg}`);
}

function fail(msg) {
  console.error(`[run.js] ERROR: ${msg}`);
  process.exit(2);
}

function serverCommand() {
  if (process.env.ACTION_LSP_SERVER_COMMAND) {
    const cmd = JSON.parse(process.env.ACTION_LSP_SERVER_COMMAND);
    if (!Array.isArray(cmd) || cmd.length === 0 || !cmd.every((s) => typeof s === 'string')) {
      fail('ACTION_LSP_SERVER_COMMAND must be a JSON array of strings');
    }
    return cmd;
  }
  const exe = path.join(REPO_DIR, '.venv', 'bin', 'action-lsp');
  if (!fs.existsSync(exe)) fail(`${exe} does not exist; set ACTION_LSP_SERVER_COMMAND`);
  return [exe, 'serve'];
}

/** PATH without any directory that holds an `action-lsp` (or is the server's directory or a venv). */
function sanitizedPath(cmd) {
  const serverDir = cmd.length && path.isAbsolute(cmd[0]) ? path.dirname(cmd[0]) : undefined;
  const venv = process.env.VIRTUAL_ENV;
  return (process.env.PATH || '/usr/bin:/bin')
    .split(path.delimiter)
    .filter(
      (d) =>
        d &&
        d !== serverDir &&
        !(venv && d.startsWith(venv)) &&
        !fs.existsSync(path.join(d, 'action-lsp')),
    )
    .join(path.delimiter);
}

function tail(file, lines) {
  try {
    const text = fs.readFileSync(file, 'utf8').split('\n');
    return text.slice(-lines).join('\n');
  } catch {
    return undefined;
  }
}

function walk(dir, out = []) {
  let entries = [];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else out.push(p);
  }
  return out;
}

function printLogs(run) {
  const logs = walk(path.join(run, 'logs'));
  const wanted = [
    path.join(run, 'server.log'),
    ...logs.filter((f) => /remoteexthost\.log$/.test(f)),
    ...logs.filter((f) => /output_logging_.*action-lsp.*\.log$/.test(f)),
    path.join(run, 'exit-logs', 'window.log'),
    ...logs.filter((f) => /remoteagent\.log$/.test(f)),
  ];
  for (const f of wanted) {
    const text = tail(f, 80);
    if (text !== undefined && text.trim() !== '') {
      console.log(`\n===== ${path.relative(run, f)} (last 80 lines) =====\n${text}`);
    }
  }
}

async function main() {
  for (const [what, p] of [
    ['Node 24 (run install.sh)', NODE24],
    ['the VS Code server (run install.sh)', SERVER_MAIN],
    VSIX ? ['the .vsix', VSIX] : ['the extension bundle (npm run build)', path.join(EXT_DIR, 'out', 'extension.js')],
    ['chromium', CHROMIUM],
  ]) {
    if (!fs.existsSync(p)) fail(`missing ${what}: ${p}`);
  }
  if (!['settings', 'bundled'].includes(MODE)) fail(`E2E_MODE must be settings or bundled, not ${MODE}`);
  const puppeteer = require(path.join(E2E_DIR, 'node_modules', 'puppeteer-core'));
  const cmd = MODE === 'bundled' ? [] : serverCommand();
  // the interpreter for the actionLsp.server.pythonPath step: ACTION_LSP_E2E_PYTHON, else the
  // python next to an absolute .../bin/action-lsp ('' skips that step)
  const sibling = cmd.length && path.isAbsolute(cmd[0]) ? path.join(path.dirname(cmd[0]), 'python') : '';
  const python = MODE === 'bundled' ? '' : process.env.ACTION_LSP_E2E_PYTHON ?? (sibling && fs.existsSync(sibling) ? sibling : '');

  const keep = Boolean(process.env.E2E_RUN_DIR) || process.env.E2E_KEEP === '1';
  const run = process.env.E2E_RUN_DIR
    ? path.resolve(process.env.E2E_RUN_DIR)
    : fs.mkdtempSync(path.join(os.tmpdir(), 'vscode-e2e-'));
  const ws = path.join(run, 'ws');
  for (const d of ['user-data/User', 'server-data', 'extensions', 'logs', 'chrome-profile', 'exit-logs']) {
    fs.mkdirSync(path.join(run, d), { recursive: true });
  }
  fs.rmSync(ws, { recursive: true, force: true });
  fs.cpSync(path.join(E2E_DIR, 'fixture'), ws, { recursive: true });
  const settings = {
    'security.workspace.trust.enabled': false,
    'telemetry.telemetryLevel': 'off',
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': 'off', // not false: VS Code would migrate (rewrite) settings.json at startup
    'extensions.ignoreRecommendations': true,
    'update.mode': 'none',
    'workbench.enableExperiments': false,
    'workbench.startupEditor': 'none',
    'chat.disableAIFeatures': true,
    'git.enabled': false,
    'actionLsp.trace.server': 'verbose',
  };
  fs.writeFileSync(path.join(run, 'user-data', 'User', 'settings.json'), JSON.stringify(settings, null, 2));
  // actionLsp.server.command is machine-scoped: in this remote window VS Code takes it only from
  // the remote machine's settings, <user-data-dir>/Machine/settings.json (not from User/, nor from
  // the workspace's .vscode/settings.json, which the fixture fills with hostile values)
  const machine = MODE === 'settings' ? { 'actionLsp.server.command': cmd } : {};
  fs.mkdirSync(path.join(run, 'user-data', 'Machine'), { recursive: true });
  fs.writeFileSync(path.join(run, 'user-data', 'Machine', 'settings.json'), JSON.stringify(machine, null, 2));
  log(`run dir ${run}; mode ${MODE}; extension ${VSIX ?? EXT_DIR}; server command ${JSON.stringify(cmd)}; python ${JSON.stringify(python)}`);

  // --- the VS Code server, in its own process group --------------------------------------------
  const env = { ...process.env, EXTENSIONS_GALLERY: '{}', PATH: sanitizedPath(cmd) };
  delete env.VIRTUAL_ENV;
  delete env.ELECTRON_RUN_AS_NODE;
  const serverLog = fs.openSync(path.join(run, 'server.log'), 'a');
  const dirs = [
    '--user-data-dir', path.join(run, 'user-data'),
    '--server-data-dir', path.join(run, 'server-data'),
    '--extensions-dir', path.join(run, 'extensions'),
  ];
  if (VSIX) {
    const { spawnSync } = require('child_process');
    const inst = spawnSync(NODE24, [SERVER_MAIN, '--accept-server-license-terms', ...dirs, '--install-extension', VSIX], {
      cwd: run, env, encoding: 'utf8', timeout: 120000,
    });
    fs.writeSync(serverLog, `${inst.stdout}${inst.stderr}`);
    if (inst.status !== 0 || !/successfully installed/.test(inst.stdout)) {
      fail(`--install-extension ${VSIX} failed (exit ${inst.status}):\n${inst.stdout}${inst.stderr}`);
    }
    log(`installed ${path.basename(VSIX)}: ${inst.stdout.trim().split('\n').pop()}`);
  }
  const server = spawn(
    NODE24,
    [
      SERVER_MAIN,
      '--host', '127.0.0.1', '--port', '0',
      '--without-connection-token', '--accept-server-license-terms',
      '--enable-smoke-test-driver', '--disable-workspace-trust', '--force-disable-user-env',
      '--telemetry-level', 'off', '--disable-telemetry', '--disable-experiments', '--disable-update-check',
      '--disable-getting-started-override',
      ...dirs,
      '--logsPath', path.join(run, 'logs'),
    ],
    { cwd: run, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let browser;
  let serverExited = false;
  server.on('exit', () => (serverExited = true));

  const killServer = async () => {
    if (serverExited) return;
    try { process.kill(-server.pid, 'SIGTERM'); } catch {}
    for (let i = 0; i < 30 && !serverExited; i++) await new Promise((r) => setTimeout(r, 100));
    try { process.kill(-server.pid, 'SIGKILL'); } catch {}
  };
  const cleanup = async () => {
    if (browser) await browser.close().catch(() => undefined);
    await killServer();
  };
  for (const sig of ['SIGINT', 'SIGTERM']) {
    process.on(sig, () => void cleanup().then(() => process.exit(130)));
  }

  let code = 1;
  let reason = '';
  try {
    const port = await new Promise((resolve, reject) => {
      let buf = '';
      const timer = setTimeout(() => reject(new Error('the VS Code server did not report its port within 60 s')), 60000);
      const onData = (chunk) => {
        fs.writeSync(serverLog, chunk);
        buf += chunk.toString();
        const m = /Extension host agent listening on (\d+)/.exec(buf);
        if (m) {
          clearTimeout(timer);
          resolve(Number(m[1]));
        }
      };
      server.stdout.on('data', onData);
      server.stderr.on('data', (chunk) => fs.writeSync(serverLog, chunk));
      server.on('exit', (c, s) => reject(new Error(`the VS Code server exited early (${c ?? s})`)));
    });
    log(`VS Code server listening on 127.0.0.1:${port}`);

    // --- chromium ------------------------------------------------------------------------------
    browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      userDataDir: path.join(run, 'chrome-profile'),
      args: [
        '--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-pings',
        '--disable-features=AutofillServerCommunication,NetworkTimeServiceQuerying',
        '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
      ],
    });
    const page = await browser.newPage();
    const SCREENSHOT = process.env.E2E_SCREENSHOT ? path.resolve(process.env.E2E_SCREENSHOT) : '';
    if (SCREENSHOT) await page.setViewport({ width: 1200, height: 760 });
    let exitCode;
    let resolveExit;
    const exited = new Promise((resolve) => (resolveExit = resolve));
    await page.exposeFunction('codeAutomationExit', (c, logs) => {
      for (const l of logs || []) {
        try {
          const p = path.join(run, 'exit-logs', l.relativePath);
          fs.mkdirSync(path.dirname(p), { recursive: true });
          fs.writeFileSync(p, l.contents);
        } catch {}
      }
      exitCode = c;
      resolveExit(c);
    });
    const authority = `127.0.0.1:${port}`;
    const remote = (p) => `vscode-remote://${authority}${encodeURI(p)}`;
    const payload = [
      ['extensionDevelopmentPath', remote(EXT_DIR)],
      ['extensionTestsPath', remote(SUITE)],
      ['extensionEnvironment', JSON.stringify({ ACTION_LSP_E2E_SCREENSHOT: SCREENSHOT ? '1' : '', ACTION_LSP_E2E_MODE: MODE, ACTION_LSP_E2E_EXPECTED_COMMAND: JSON.stringify(cmd), ACTION_LSP_E2E_PYTHON: python })],
    ];
    const url =
      `http://${authority}/?folder=${encodeURIComponent(ws)}` +
      `&payload=${encodeURIComponent(JSON.stringify(payload))}`;
    await page.goto(url, { waitUntil: 'domcontentloaded' });
    log('workbench loaded; waiting for the test');

    // In bundled mode, watch the workbench for the set-up's progress notification.
    let sawNotification;
    let watching = MODE === 'bundled';
    const watcher = (async () => {
      while (watching && sawNotification === undefined) {
        const text = await page
          .evaluate(() => {
            // the toast, and the workbench's screen-reader announcement of it
            return document.body.innerText;
          })
          .catch(() => '');
        const m = /action-lsp: setting up the language server[^\n]*(\n[^\n]*)?/.exec(text);
        if (m) sawNotification = m[0].replace(/\s+/g, ' ').trim();
        else await new Promise((r) => setTimeout(r, 250));
      }
    })();

    // E2E_SCREENSHOT=PATH: the suite says when the transcript shows its diagnostics and lenses
    // (ws/out/screenshot-ready); the page is then saved as PNG and the suite told to go on.
    const picture = (async () => {
      if (!SCREENSHOT || MODE !== 'settings') return;
      const ready = path.join(ws, 'out', 'screenshot-ready');
      while (exitCode === undefined && !fs.existsSync(ready)) await new Promise((r) => setTimeout(r, 200));
      if (exitCode !== undefined) return;
      await page.screenshot({ path: SCREENSHOT });
      fs.writeFileSync(path.join(ws, 'out', 'screenshot-taken'), '');
      log(`picture saved to ${SCREENSHOT}`);
    })();

    let timer;
    const timeout = new Promise((resolve) => (timer = setTimeout(() => resolve('timeout'), TIMEOUT_S * 1000)));
    const outcome = await Promise.race([exited, timeout]);
    clearTimeout(timer);
    watching = false;
    await watcher;
    await Promise.race([picture, new Promise((r) => setTimeout(r, 1000))]);
    if (MODE === 'bundled') {
      console.log(`E2E_PROGRESS_NOTIFICATION ${JSON.stringify(sawNotification ?? null)}`);
    }
    if (outcome === 'timeout') {
      reason = `the test did not finish within ${TIMEOUT_S} s`;
      await page.screenshot({ path: path.join(run, 'timeout.png') }).catch(() => undefined);
    } else {
      code = exitCode === 0 ? 0 : 1;
      if (code !== 0) reason = `the in-VS-Code test failed (exit code ${exitCode})`;
    }

    // --- check the disk ------------------------------------------------------------------------
    if (code === 0) {
      const hello = path.join(ws, 'hello.txt');
      if (!fs.existsSync(hello) || fs.readFileSync(hello, 'utf8').trim() !== 'hi') {
        code = 1;
        reason = 'ws/hello.txt is missing or wrong';
      } else if (fs.existsSync(path.join(run, 'escape.txt'))) {
        code = 1;
        reason = 'the path-traversal action wrote ../escape.txt';
      } else if (fs.existsSync(path.join(ws, 'PWNED'))) {
        code = 1;
        reason = "a command from the workspace's .vscode/settings.json ran (ws/PWNED exists)";
      }
    }
  } catch (err) {
    reason = err && err.stack ? err.stack : String(err);
  } finally {
    await cleanup();
  }

  const resultFile = path.join(ws, 'out', 'result.json');
  if (fs.existsSync(resultFile)) {
    const result = JSON.parse(fs.readFileSync(resultFile, 'utf8'));
    console.log(`E2E_RESULT ${JSON.stringify({ ok: result.ok, seconds: result.seconds, serverCommand: result.serverCommand, timings: result.timings })}`);
    for (const s of result.steps || []) console.log(`  ${s}`);
    if (result.error) {
      console.log(`  error: ${result.error}`);
      for (const k of ['diagnosticsAtFailure', 'openDocuments', 'visibleEditors']) {
        console.log(`  ${k}: ${JSON.stringify(result[k])}`);
      }
    }
  }
  if (code === 0) {
    log('PASS');
    if (!keep) fs.rmSync(run, { recursive: true, force: true });
  } else {
    console.log(`[run.js] FAIL: ${reason}`);
    printLogs(run);
    console.log(`\n[run.js] logs kept in ${run}`);
  }
  process.exit(code);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
