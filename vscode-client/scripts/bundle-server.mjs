// Builds the server wheel from the repository (`python -m build`: an sdist, then the wheel from
// that sdist, so that nothing stale in the checkout's build/ ends up in it; `pip wheel` when the
// `build` package is missing) and puts it into bundled/, where the extension installs it from on
// first use (src/provision.ts). Run by `npm run package`; `npm run bundle-server` alone also works.
//   PYTHON   the interpreter to build with (default: python3, or python on Windows)
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { fileURLToPath } from 'url';

const EXT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const REPO_DIR = path.resolve(EXT_DIR, '..');
const BUNDLED = path.join(EXT_DIR, 'bundled');
const python = process.env.PYTHON || (process.platform === 'win32' ? 'python' : 'python3');

function die(msg) {
  console.error(`bundle-server: ${msg}`);
  process.exit(1);
}

if (!fs.existsSync(path.join(REPO_DIR, 'pyproject.toml'))) {
  die(`no pyproject.toml in ${REPO_DIR}: run this from a checkout of the action-lsp repository`);
}
const t0 = Date.now();
const out = fs.mkdtempSync(path.join(os.tmpdir(), 'action-lsp-wheel-'));
const hasBuild = spawnSync(python, ['-c', 'import build'], { stdio: 'ignore' }).status === 0;
const cmd = hasBuild
  ? [python, '-m', 'build', '--outdir', out, REPO_DIR]
  : [python, '-m', 'pip', 'wheel', '--no-deps', '--disable-pip-version-check', '--wheel-dir', out, REPO_DIR];
console.log(`bundle-server: ${cmd.join(' ')}`);
const r = spawnSync(cmd[0], cmd.slice(1), { stdio: ['ignore', 'inherit', 'inherit'] });
if (r.error) die(`could not run ${python}: ${r.error.message} (set PYTHON to a Python >= 3.11)`);
if (r.status !== 0) die(`building the wheel failed (exit ${r.status})`);
const wheels = fs.readdirSync(out).filter((n) => /^action_lsp-.*\.whl$/.test(n));
if (wheels.length !== 1) die(`expected one action_lsp wheel in ${out}, found: ${wheels.join(', ') || 'none'}`);
fs.rmSync(BUNDLED, { recursive: true, force: true });
fs.mkdirSync(BUNDLED, { recursive: true });
fs.copyFileSync(path.join(out, wheels[0]), path.join(BUNDLED, wheels[0]));
fs.rmSync(out, { recursive: true, force: true });
const kb = (fs.statSync(path.join(BUNDLED, wheels[0])).size / 1024).toFixed(0);
console.log(`bundle-server: bundled/${wheels[0]} (${kb} KB) in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
