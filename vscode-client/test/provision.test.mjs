// Tests of src/provision.ts (the bundled server's private environment) outside VS Code, with
// small stand-in wheels (a package `action_lsp` with only `__version__`, no dependencies, so pip
// installs them offline) and a real Python.
//   node --test test/provision.test.mjs        (run by tests/editors/test_vscode.py)
//   PROVISION_TEST_PYTHON  the Python >= 3.11 to create environments with (default python3)
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const EXT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PYTHON = process.env.PROVISION_TEST_PYTHON || 'python3';
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'provision-test-'));
process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));

// provision.ts, compiled as the extension bundle compiles it
const bundle = path.join(tmp, 'provision.js');
await esbuild.build({ entryPoints: [path.join(EXT_DIR, 'src', 'provision.ts')], bundle: true, platform: 'node', format: 'cjs', outfile: bundle, logLevel: 'warning' });
const { provision, ProvisionError, bundledWheel } = createRequire(import.meta.url)(bundle);

/** A bundled/ directory holding a stand-in action_lsp wheel of `version`. */
function bundledDir(name, version) {
  const dir = path.join(tmp, name, 'bundled');
  fs.mkdirSync(dir, { recursive: true });
  const script = `
import sys, zipfile, hashlib, base64
out, v = sys.argv[1], sys.argv[2]
files = {
  "action_lsp/__init__.py": f"__version__ = {v!r}\\n",
  f"action_lsp-{v}.dist-info/METADATA": f"Metadata-Version: 2.1\\nName: action-lsp\\nVersion: {v}\\n",
  f"action_lsp-{v}.dist-info/WHEEL": "Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n",
}
record = []
with zipfile.ZipFile(f"{out}/action_lsp-{v}-py3-none-any.whl", "w") as z:
    for n, t in files.items():
        z.writestr(n, t)
        h = base64.urlsafe_b64encode(hashlib.sha256(t.encode()).digest()).rstrip(b"=").decode()
        record.append(f"{n},sha256={h},{len(t.encode())}")
    record.append(f"action_lsp-{v}.dist-info/RECORD,,")
    z.writestr(f"action_lsp-{v}.dist-info/RECORD", "\\n".join(record) + "\\n")
`;
  const r = spawnSync(PYTHON, ['-c', script, dir, version], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return dir;
}

function options(storageDir, bundled, extra = {}) {
  const lines = [];
  const progress = [];
  return {
    lines,
    progress,
    opts: { storageDir, bundledDir: bundled, pythonCandidates: [[PYTHON]], log: (l) => lines.push(l), progress: (m) => progress.push(m), ...extra },
  };
}

function entries(storageDir) {
  return fs.readdirSync(path.join(storageDir, 'server')).sort();
}

function importedVersion(python) {
  const env = { ...process.env };
  delete env.PYTHONPATH;
  const r = spawnSync(python, ['-c', 'import action_lsp; print(action_lsp.__version__)'], { encoding: 'utf8', env });
  return r.stdout.trim();
}

test('first start sets up an environment, later starts reuse it, a new wheel replaces it', async () => {
  const storage = path.join(tmp, 'storage1');
  const v1 = bundledDir('v1', '9.9.1');
  const first = options(storage, v1);
  const a = await provision(first.opts);
  assert.equal(a.reused, false);
  assert.equal(a.version, '9.9.1');
  assert.equal(importedVersion(a.python), '9.9.1');
  assert.ok(first.progress.some((m) => m.includes('installing action-lsp 9.9.1')), first.progress.join('\n'));
  const key = `9.9.1-${bundledWheel(v1).sha256.slice(0, 12)}`;
  assert.deepEqual(entries(storage), [key], 'one complete environment, no temporary directory left');
  assert.ok(fs.existsSync(path.join(storage, 'server', key, 'provisioned.json')));

  const second = options(storage, v1);
  const b = await provision(second.opts);
  assert.equal(b.reused, true);
  assert.equal(b.python, a.python);
  assert.deepEqual(second.progress, [], 'a reuse shows no progress');
  assert.ok(!second.lines.some((l) => l.includes('pip install')), 'a reuse installs nothing');

  // the extension is updated: another wheel, another environment, the old one removed
  const v2 = bundledDir('v2', '9.9.2');
  const c = await provision(options(storage, v2).opts);
  assert.equal(c.reused, false);
  assert.equal(c.version, '9.9.2');
  assert.equal(importedVersion(c.python), '9.9.2');
  assert.deepEqual(entries(storage), [`9.9.2-${bundledWheel(v2).sha256.slice(0, 12)}`]);

  // a broken environment (its base Python went away) is set up again
  fs.rmSync(c.python);
  const d = await provision(options(storage, v2).opts);
  assert.equal(d.reused, false);
  assert.equal(importedVersion(d.python), '9.9.2');
});

test('two windows starting at once share one environment', async () => {
  const storage = path.join(tmp, 'storage2');
  const v1 = bundledDir('v1b', '9.9.1');
  const [a, b] = await Promise.all([provision(options(storage, v1).opts), provision(options(storage, v1).opts)]);
  assert.equal(a.python, b.python);
  assert.equal(importedVersion(a.python), '9.9.1');
  assert.equal(entries(storage).length, 1);
});

test('no Python 3.11+: an error that says what was found and what to do', async () => {
  const fake = path.join(tmp, 'python3.9');
  fs.writeFileSync(fake, '#!/bin/sh\necho 3.9\necho /usr/bin/python3.9\n', { mode: 0o755 });
  const { opts } = options(path.join(tmp, 'storage3'), bundledDir('v1c', '9.9.1'), {
    pythonCandidates: [['no-such-python-anywhere'], [fake]],
  });
  await assert.rejects(provision(opts), (err) => {
    assert.ok(err instanceof ProvisionError);
    assert.equal(err.kind, 'no-python');
    assert.match(err.message, /needs Python 3\.11 or later/);
    assert.match(err.message, /python3\.9: Python 3\.9/);
    assert.match(err.message, /actionLsp\.server\.bootstrapPython/);
    assert.match(err.message, /python\.org/);
    return true;
  });
  assert.ok(!fs.existsSync(path.join(tmp, 'storage3', 'server')) || entries(path.join(tmp, 'storage3')).length === 0);
});

test('an extension built without a wheel says so', async () => {
  const empty = path.join(tmp, 'empty', 'bundled');
  fs.mkdirSync(empty, { recursive: true });
  await assert.rejects(provision(options(path.join(tmp, 'storage4'), empty).opts), (err) => err.kind === 'no-wheel');
});
