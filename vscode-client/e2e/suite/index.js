// End-to-end test that runs inside VS Code's extension host (extensionTestsPath).
// `run()` resolving means exit code 0, a rejection means exit code 1 (see ../run.js).
// ACTION_LSP_E2E_MODE=settings (default) checks the server from the settings and everything the
// extension does; =bundled checks that, with no server setting and none on PATH, the extension
// sets up the server bundled in the .vsix, and reuses it on the next start.
//
// The workspace is a copy of ../fixture: session.transcript.md holds
//   - <create_file> hello.txt            (applied through the palette command actionLsp.apply)
//   - <create_file> ../escape.txt        (must produce a `path-traversal` diagnostic)
//   - ```actions create_task without fields (must produce a `missing-field` diagnostic)
//   - <create_file> notes/todo.md        (applied through the server's code lens command)
'use strict';
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const vscode = require('vscode');

const EXTENSION_ID = 'action-lsp.action-lsp';
// the settings that name a program or widen what may be written: machine-scoped in package.json
const MACHINE_SCOPED = ['server.command', 'server.pythonPath', 'server.bootstrapPython', 'workspaceRoots', 'allowOverwrite'];
const steps = [];
const t0 = Date.now();

function log(msg) {
  const line = `[e2e +${((Date.now() - t0) / 1000).toFixed(2)}s] ${msg}`;
  steps.push(line);
  console.log(line);
}

async function waitFor(what, fn, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      last = await fn();
      if (last) return last;
    } catch (err) {
      if (err && err.fatal) throw err;
      last = err;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}` + (last instanceof Error ? `: ${last.message}` : ''));
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

function codeOf(diagnostic) {
  const c = diagnostic.code;
  return c !== null && typeof c === 'object' ? String(c.value) : String(c);
}

function lineOf(doc, needle) {
  const i = doc.getText().indexOf(needle);
  assert.ok(i >= 0, `fixture does not contain ${needle}`);
  return doc.positionAt(i).line;
}

function readIfExists(p) {
  try {
    return fs.readFileSync(p, 'utf8');
  } catch {
    return undefined;
  }
}

async function writeResult(ws, result) {
  const out = vscode.Uri.joinPath(ws, 'out', 'result.json');
  await vscode.workspace.fs.writeFile(out, Buffer.from(JSON.stringify(result, null, 2) + '\n'));
}

async function main(result) {
  const ws = vscode.workspace.workspaceFolders[0].uri;
  const wsPath = ws.fsPath;
  const ext = vscode.extensions.getExtension(EXTENSION_ID);
  assert.ok(ext, `extension ${EXTENSION_ID} is not loaded`);
  assert.strictEqual(vscode.workspace.isTrusted, true, 'workspace is not trusted');

  // 1. Open the transcript: the extension activates on it (markdown / *.transcript.md).
  const transcript = vscode.Uri.joinPath(ws, 'session.transcript.md');
  const doc = await vscode.workspace.openTextDocument(transcript);
  let editor = await vscode.window.showTextDocument(doc);
  log(`opened ${transcript.fsPath} (language ${doc.languageId})`);
  const api = await ext.activate();
  log(`extension active: ${ext.isActive}`);

  // 2. The server was found through the setting, not on PATH. (In the web workbench the user
  //    settings can arrive after the extension activated: it then restarts with the new command.)
  const expected = JSON.parse(process.env.ACTION_LSP_E2E_EXPECTED_COMMAND || 'null');
  assert.ok(Array.isArray(expected), 'the driver did not pass ACTION_LSP_E2E_EXPECTED_COMMAND');
  let seen;
  const setting = await waitFor(
    'the actionLsp.server.command machine setting',
    () => {
      seen = vscode.workspace.getConfiguration('actionLsp').get('server.command');
      return JSON.stringify(seen) === JSON.stringify(expected) ? seen : undefined;
    },
    30000,
  ).catch((err) => {
    throw new Error(`${err.message}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(seen)}`);
  });
  const onPath = (process.env.PATH || '').split(path.delimiter).filter((d) => d && fs.existsSync(path.join(d, 'action-lsp')));
  assert.deepStrictEqual(onPath, [], 'action-lsp must not be on the extension host PATH for this test');
  await waitFor(
    'the language server started from the setting',
    async () => {
      if (JSON.stringify(api.serverCommand) !== JSON.stringify(setting)) return false;
      await api.ready().catch((err) => {
        // started with the right command and failed: no point in waiting
        throw Object.assign(new Error(`the server ${JSON.stringify(setting)} did not start: ${(err && err.message) || err}`), { fatal: true });
      });
      return JSON.stringify(api.serverCommand) === JSON.stringify(setting);
    },
    60000,
  );
  log(`actionLsp.server.command = ${JSON.stringify(setting)}; extension started ${JSON.stringify(api.serverCommand)} (from ${api.serverCommandSource})`);
  result.setting = setting;
  result.serverCommand = api.serverCommand;
  result.serverCommandSource = api.serverCommandSource;
  assert.deepStrictEqual(api.serverCommand, setting);
  assert.strictEqual(api.serverCommandSource, 'server.command');
  log('language client running');
  result.serverSettings = api.serverSettings();

  // 2b. The workspace's .vscode/settings.json (the fixture's) sets every machine-scoped setting to
  //     a hostile value: a command that touches PWNED, an interpreter that does, the roots ["/"],
  //     allowOverwrite. VS Code reads that file (its editor.tabSize arrives) and drops those keys:
  //     the server came from the machine setting above, and nothing it is sent widens the roots.
  await waitFor(
    "the workspace's .vscode/settings.json (editor.tabSize 3)",
    () => vscode.workspace.getConfiguration('editor').inspect('tabSize').workspaceValue === 3,
    30000,
  );
  const cfg = vscode.workspace.getConfiguration('actionLsp');
  // read as the server's workspace/configuration requests do too: for the folder (scopeUri)
  const cfgFolder = vscode.workspace.getConfiguration('actionLsp', ws);
  result.workspaceSettings = {};
  for (const key of MACHINE_SCOPED) {
    const seenHere = cfg.inspect(key);
    const inFolder = cfgFolder.inspect(key);
    result.workspaceSettings[key] = {
      workspaceValue: seenHere.workspaceValue ?? inFolder.workspaceFolderValue ?? null,
      value: cfg.get(key) ?? null,
    };
    for (const v of [seenHere.workspaceValue, inFolder.workspaceValue, inFolder.workspaceFolderValue]) {
      assert.strictEqual(v, undefined, `actionLsp.${key} was taken from the workspace: ${JSON.stringify(v)}`);
    }
    assert.deepStrictEqual(cfgFolder.get(key), cfg.get(key), `actionLsp.${key} differs for the folder`);
  }
  assert.deepStrictEqual(cfg.get('server.pythonPath'), '', 'actionLsp.server.pythonPath is set');
  assert.deepStrictEqual(result.serverSettings.workspaceRoots, [], 'workspaceRoots reached the server');
  assert.strictEqual(result.serverSettings.allowOverwrite, false, 'allowOverwrite reached the server');
  assert.strictEqual(fs.existsSync(path.join(wsPath, 'PWNED')), false, "the workspace's command ran (PWNED)");
  log(`the workspace's machine-scoped settings are ignored: ${JSON.stringify(result.workspaceSettings)}`);

  // 3. Diagnostics from action-lsp.
  const diagnostics = await waitFor(
    'path-traversal and missing-field diagnostics',
    () => {
      const ds = vscode.languages.getDiagnostics(transcript);
      const codes = new Set(ds.map(codeOf));
      return codes.has('path-traversal') && codes.has('missing-field') ? ds : undefined;
    },
    60000,
  );
  result.diagnostics = diagnostics.map((d) => ({
    code: codeOf(d),
    severity: vscode.DiagnosticSeverity[d.severity],
    line: d.range.start.line,
    source: d.source,
    message: d.message,
  }));
  log(`diagnostics: ${JSON.stringify(result.diagnostics.map((d) => `${d.line}:${d.code}`))}`);
  const traversal = diagnostics.find((d) => codeOf(d) === 'path-traversal');
  assert.strictEqual(traversal.range.start.line, lineOf(doc, '../escape.txt'), 'path-traversal is on the wrong line');

  // 3b. The README's picture (docs/vscode-transcript.png): the transcript with its diagnostics,
  //     code lenses and the Problems panel, taken by run.js (E2E_SCREENSHOT) from the browser.
  if (process.env.ACTION_LSP_E2E_SCREENSHOT === '1') {
    await waitFor('code lenses for the picture', async () => {
      const ls = await vscode.commands.executeCommand('vscode.executeCodeLensProvider', transcript, 100);
      return ls && ls.some((l) => l.command && l.command.command === 'action-lsp.apply');
    }, 15000);
    await vscode.commands.executeCommand('workbench.action.closeAuxiliaryBar').then(undefined, () => undefined);
    await vscode.commands.executeCommand('workbench.actions.view.problems');
    editor = await vscode.window.showTextDocument(doc);
    await new Promise((r) => setTimeout(r, 1500)); // the lenses and squiggles are drawn
    const out = path.join(wsPath, 'out');
    fs.mkdirSync(out, { recursive: true });
    fs.writeFileSync(path.join(out, 'screenshot-ready'), '');
    await waitFor('run.js to take the picture', () => fs.existsSync(path.join(out, 'screenshot-taken')), 20000)
      .catch((err) => log(`no picture: ${err.message}`));
    await vscode.commands.executeCommand('workbench.action.closePanel');
    log('picture taken');
  }

  // 4. "Preview diff", then "Apply", from the command palette on the action under the cursor (hello.txt).
  const helloLine = lineOf(doc, '<path>hello.txt</path>');
  editor.selection = new vscode.Selection(helloLine, 3, helloLine, 3);
  log(`cursor on line ${helloLine}; running actionLsp.previewDiff`);
  const preview = await vscode.commands.executeCommand('actionLsp.previewDiff');
  result.previewResult = preview === undefined ? null : preview;
  log(`actionLsp.previewDiff returned ${JSON.stringify(preview)}`);
  const diffText = typeof preview === 'string' ? preview : preview && preview.diff;
  assert.ok(typeof diffText === 'string' && diffText.includes('hello.txt') && /^\+hi/m.test(diffText), 'previewDiff did not return the diff of hello.txt');
  editor = await vscode.window.showTextDocument(doc);
  editor.selection = new vscode.Selection(helloLine, 3, helloLine, 3);
  log('running actionLsp.apply');
  const applyResult = await vscode.commands.executeCommand('actionLsp.apply');
  result.applyResult = applyResult === undefined ? null : applyResult;
  log(`actionLsp.apply returned ${JSON.stringify(applyResult)}`);
  const helloPath = path.join(wsPath, 'hello.txt');
  // No saveAll here: the extension saves what an applied action changed (actionLsp.saveAfterApply).
  const hello = await waitFor('hello.txt on disk', () => readIfExists(helloPath), 15000).catch(async (err) => {
    const dirty = vscode.workspace.textDocuments.filter((d) => d.isDirty).map((d) => d.uri.toString());
    throw new Error(`${err.message} (dirty documents: ${JSON.stringify(dirty)})`);
  });
  result.hello = hello;
  log(`hello.txt on disk: ${JSON.stringify(hello)}`);
  assert.strictEqual(hello.trim(), 'hi');

  // 5. "Apply" through the server's code lens on the notes/todo.md action.
  const todoLine = lineOf(doc, '<path>notes/todo.md</path>');
  const lenses = await waitFor(
    'code lenses',
    async () => {
      const ls = await vscode.commands.executeCommand('vscode.executeCodeLensProvider', transcript, 100);
      return ls && ls.some((l) => l.command && l.command.command === 'action-lsp.apply') ? ls : undefined;
    },
    15000,
  );
  result.lenses = lenses
    .filter((l) => l.command)
    .map((l) => ({ line: l.range.start.line, title: l.command.title, command: l.command.command, arguments: l.command.arguments }));
  log(`code lenses: ${JSON.stringify(result.lenses.map((l) => `${l.line}:${l.command}:${l.title}`))}`);
  const applyLenses = lenses.filter((l) => l.command && l.command.command === 'action-lsp.apply' && l.range.start.line <= todoLine);
  assert.ok(applyLenses.length > 0, `no action-lsp.apply lens at or above line ${todoLine}`);
  const todoLens = applyLenses.reduce((a, b) => (b.range.start.line > a.range.start.line ? b : a));
  log(`running lens "${todoLens.command.title}" ${todoLens.command.command} ${JSON.stringify(todoLens.command.arguments)}`);
  await vscode.commands.executeCommand(todoLens.command.command, ...(todoLens.command.arguments || []));
  const todoPath = path.join(wsPath, 'notes', 'todo.md');
  const todo = await waitFor('notes/todo.md on disk', () => readIfExists(todoPath), 15000);
  result.todo = todo;
  log(`notes/todo.md on disk: ${JSON.stringify(todo)}`);
  assert.ok(todo.includes('- ship it'), 'notes/todo.md has the wrong content');

  // 6. Applying the ../escape.txt action is refused (the workspace's workspaceRoots ["/"] is
  //    ignored), and the traversal target never appears.
  const escapeLine = lineOf(doc, '<path>../escape.txt</path>');
  editor = await vscode.window.showTextDocument(doc);
  editor.selection = new vscode.Selection(escapeLine, 3, escapeLine, 3);
  const escapeResult = await vscode.commands.executeCommand('actionLsp.apply');
  result.escapeApplyResult = escapeResult === undefined ? null : escapeResult;
  log(`actionLsp.apply on ../escape.txt returned ${JSON.stringify(escapeResult)}`);
  assert.ok(escapeResult && escapeResult.applied === false, 'the apply of ../escape.txt was not refused');
  await new Promise((r) => setTimeout(r, 500)); // a late write would show up by now
  for (const p of [path.join(wsPath, '..', 'escape.txt'), '/escape.txt']) {
    assert.strictEqual(fs.existsSync(p), false, `${p} was written`);
  }

  // 7. Settings reach the server: silencing missing-field removes that diagnostic.
  const config = () => vscode.workspace.getConfiguration('actionLsp');
  const codesNow = () => new Set(vscode.languages.getDiagnostics(transcript).map(codeOf));
  await config().update('severity', { 'missing-field': 'off' }, vscode.ConfigurationTarget.Global);
  await waitFor('missing-field to go away after actionLsp.severity turned it off', () => {
    const codes = codesNow();
    return !codes.has('missing-field') && codes.has('path-traversal');
  }, 30000);
  log('actionLsp.severity {"missing-field": "off"} reached the server');
  await config().update('severity', undefined, vscode.ConfigurationTarget.Global);
  await waitFor('missing-field to come back', () => codesNow().has('missing-field'), 30000);
  log('missing-field is back after resetting actionLsp.severity');

  // 8. Restart keeps working.
  await vscode.commands.executeCommand('actionLsp.restartServer');
  await waitFor('the restarted language server', async () => (await api.ready(), true), 60000);
  assert.deepStrictEqual(api.serverCommand, setting);
  await waitFor('diagnostics after the restart', () => codesNow().has('path-traversal'), 30000);
  log('restart ok');

  // 9. actionLsp.server.pythonPath: `<python> -m action_lsp serve`; changing it restarts the server.
  const python = process.env.ACTION_LSP_E2E_PYTHON;
  if (python) {
    await config().update('server.command', [], vscode.ConfigurationTarget.Global);
    await config().update('server.pythonPath', python, vscode.ConfigurationTarget.Global);
    const want = [python, '-m', 'action_lsp', 'serve'];
    await waitFor(
      'the server started from actionLsp.server.pythonPath',
      async () => {
        if (JSON.stringify(api.serverCommand) !== JSON.stringify(want)) return false;
        await api.ready();
        return JSON.stringify(api.serverCommand) === JSON.stringify(want);
      },
      60000,
    );
    assert.strictEqual(api.serverCommandSource, 'server.pythonPath');
    // a fresh diagnostics round from the new server process
    await vscode.workspace.openTextDocument(transcript);
    await waitFor('diagnostics from the pythonPath server', () => codesNow().has('path-traversal'), 30000);
    result.pythonPathCommand = api.serverCommand;
    log(`pythonPath ok: ${JSON.stringify(api.serverCommand)}`);
  }
}

/** No server setting, no action-lsp on PATH: the bundled server, set up in global storage. */
async function bundledMain(result) {
  const ws = vscode.workspace.workspaceFolders[0].uri;
  const ext = vscode.extensions.getExtension(EXTENSION_ID);
  assert.ok(ext, `extension ${EXTENSION_ID} is not loaded`);
  const onPath = (process.env.PATH || '').split(path.delimiter).filter((d) => d && fs.existsSync(path.join(d, 'action-lsp')));
  assert.deepStrictEqual(onPath, [], 'action-lsp must not be on the extension host PATH for this test');
  const config = vscode.workspace.getConfiguration('actionLsp');
  for (const key of ['server.command', 'server.pythonPath', 'server.bootstrapPython']) {
    const v = config.inspect(key);
    assert.ok(!v.globalValue?.length && !v.workspaceValue?.length, `${key} must not be set for this test`);
  }
  const transcript = vscode.Uri.joinPath(ws, 'session.transcript.md');
  const start = Date.now();
  const doc = await vscode.workspace.openTextDocument(transcript);
  const editor = await vscode.window.showTextDocument(doc);
  const api = await ext.activate();
  log('extension active; waiting for the bundled server to be set up');
  await waitFor('the bundled server to be set up and started', async () => {
    await api.ready().catch((err) => {
      throw Object.assign(new Error(`the server did not start: ${(err && err.message) || err}`), { fatal: true });
    });
    return true;
  }, 600000);
  const started = Date.now();
  result.extensionPath = ext.extensionPath;
  result.serverCommand = api.serverCommand;
  result.serverCommandSource = api.serverCommandSource;
  result.provisioned = api.provisioned;
  log(`server started from ${api.serverCommandSource}: ${JSON.stringify(api.serverCommand)}; ${JSON.stringify(api.provisioned)}`);
  assert.strictEqual(api.serverCommandSource, 'bundled');
  assert.ok(api.provisioned && api.provisioned.reused === false, 'the first start must set up the environment');
  assert.deepStrictEqual(api.serverCommand, [api.provisioned.python, '-m', 'action_lsp', 'serve']);

  const codes = () => new Set(vscode.languages.getDiagnostics(transcript).map(codeOf));
  await waitFor('path-traversal and missing-field diagnostics', () => codes().has('path-traversal') && codes().has('missing-field'), 60000);
  const diagnosed = Date.now();
  result.diagnostics = vscode.languages.getDiagnostics(transcript).map((d) => ({ code: codeOf(d), line: d.range.start.line }));
  log(`diagnostics: ${JSON.stringify(result.diagnostics)}`);

  // the bundled server applies like any other
  const helloLine = lineOf(doc, '<path>hello.txt</path>');
  editor.selection = new vscode.Selection(helloLine, 3, helloLine, 3);
  await vscode.commands.executeCommand('actionLsp.apply');
  const hello = await waitFor('hello.txt on disk', () => readIfExists(path.join(ws.fsPath, 'hello.txt')), 15000);
  assert.strictEqual(hello.trim(), 'hi');
  log('applied hello.txt');

  // a later start reuses the environment
  const restart0 = Date.now();
  await vscode.commands.executeCommand('actionLsp.restartServer');
  await waitFor('the restarted server', async () => (await api.ready(), true), 60000);
  const restarted = Date.now();
  assert.strictEqual(api.serverCommandSource, 'bundled');
  assert.ok(api.provisioned.reused, 'the second start must reuse the environment');
  await waitFor('diagnostics after the restart', () => codes().has('path-traversal'), 30000);
  result.reused = api.provisioned;
  result.timings = {
    firstStartToReadyS: (started - start) / 1000,
    firstStartToDiagnosticsS: (diagnosed - start) / 1000,
    provisionS: result.provisioned.seconds,
    laterStartToReadyS: (restarted - restart0) / 1000,
    laterStartToDiagnosticsS: (Date.now() - restart0) / 1000,
    reuseCheckS: api.provisioned.seconds,
  };
  log(`timings: ${JSON.stringify(result.timings)}`);
}

exports.run = async function run() {
  const ws = vscode.workspace.workspaceFolders[0].uri;
  const result = { ok: false, steps };
  try {
    await (process.env.ACTION_LSP_E2E_MODE === 'bundled' ? bundledMain(result) : main(result));
    result.ok = true;
    log('PASS');
  } catch (err) {
    result.error = err && err.stack ? err.stack : String(err);
    result.diagnosticsAtFailure = vscode.languages
      .getDiagnostics()
      .map(([uri, ds]) => [uri.toString(), ds.map((d) => `${d.range.start.line}:${codeOf(d)}`)]);
    result.openDocuments = vscode.workspace.textDocuments.map((d) => `${d.uri.toString()} v${d.version}${d.isDirty ? ' dirty' : ''}`);
    result.visibleEditors = vscode.window.visibleTextEditors.map((e) => e.document.uri.toString());
    log(`FAIL: ${err && err.message}`);
    throw err;
  } finally {
    result.seconds = (Date.now() - t0) / 1000;
    await writeResult(ws, result).catch((e) => console.error('could not write result.json', e));
  }
};
