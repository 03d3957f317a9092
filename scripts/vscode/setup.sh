#!/usr/bin/env bash
# Install what the integration, e2e and demo scripts need to run FFN Lens in a REAL VS Code, using
# only Debian apt and the npm registry (no VS Code download, no Playwright browser download):
#
#   - chromium (Debian)             the browser Playwright drives (/usr/bin/chromium)
#   - code-server 4.100.3 (npm)     the real VS Code 1.100.3 workbench + Node extension host, installed
#                                   into the git-ignored cache $CS_ROOT/cs (never into the project's deps)
#   - playwright-core               comes from the project's devDependencies (npm ci), only checked here
#
#   bash scripts/vscode/setup.sh            # = npm run setup:vscode ; idempotent, ~1 s when done
#   CS_ROOT=/some/dir bash scripts/vscode/setup.sh
#
# Cold install takes about 2-3 minutes (code-server compiles a few native modules with node-gyp).
# Safe to run concurrently: a lock serialises installs. Needs root (or sudo) only when apt packages
# are missing.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
CS_ROOT=${CS_ROOT:-$REPO/.vscode-test/code-server}
CS_VERSION=4.100.3            # last code-server whose engines.node is 20 (4.103+ want Node 22)
RG_PKG_VERSION=1.15.11        # @vscode/ripgrep version pinned by code-server 4.100.3's lib/vscode
RG_ASSET=ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz
CS_DIR=$CS_ROOT/cs
CS_PKG=$CS_DIR/node_modules/code-server
CS_BIN=$CS_DIR/node_modules/.bin/code-server
MARKER=$CS_DIR/.ffn-lens-installed-$CS_VERSION
T0=$(date +%s)

say() { echo "[setup:vscode] $*"; }
die() { echo "[setup:vscode] ERROR: $*" >&2; exit 1; }

mkdir -p "$CS_ROOT"/{cs,tmp,logs}

# Serialise concurrent runs (two suites started at once must not both run npm install).
if command -v flock >/dev/null; then
  exec 9>"$CS_ROOT/.setup.lock"
  flock -w 1200 9 || die "another setup has held $CS_ROOT/.setup.lock for 20 minutes"
fi

# ---- Node: code-server 4.100.3 runs on (and its native modules are built for) Node 20 --------------
command -v node >/dev/null || die "node is not on PATH (Node 20 is required)"
NODE_MAJOR=$(node -p 'process.versions.node.split(".")[0]')
[ "$NODE_MAJOR" = 20 ] || [ -n "${CS_ALLOW_ANY_NODE:-}" ] ||
  die "code-server $CS_VERSION needs Node 20, found $(node -v) (set CS_ALLOW_ANY_NODE=1 to try anyway)"

# ---- is code-server already installed and whole? -------------------------------------------------------
cs_files_ok() {
  [ -x "$CS_BIN" ] && [ -f "$CS_PKG/package.json" ] &&
    [ "$(node -p "require('$CS_PKG/package.json').version" 2>/dev/null)" = "$CS_VERSION" ] &&
    [ -f "$CS_PKG/lib/vscode/node_modules/node-pty/build/Release/pty.node" ] &&
    [ -f "$CS_PKG/lib/vscode/node_modules/@vscode/spdlog/build/Release/spdlog.node" ] &&
    [ -x "$CS_PKG/lib/vscode/node_modules/@vscode/ripgrep/bin/rg" ] &&
    [ -d "$CS_PKG/lib/vscode/extensions/json-language-features" ]
}
cs_runs() {   # keep code-server out of ~/.config and ~/.local while asking its version
  local x="$CS_ROOT/tmp/xdg"; mkdir -p "$x"
  local out; out=$(XDG_CONFIG_HOME="$x" XDG_DATA_HOME="$x" timeout 60 "$CS_BIN" --version 2>/dev/null) || return 1
  case "$out" in *"$CS_VERSION "*) return 0 ;; *) return 1 ;; esac
}
NEED_CS=1
if [ -f "$MARKER" ] && cs_files_ok; then NEED_CS=0
elif cs_files_ok && cs_runs; then touch "$MARKER"; NEED_CS=0   # installed by an earlier/other setup
fi

# ---- Debian packages (only the missing ones) --------------------------------------------------------
PKGS=()
command -v chromium >/dev/null || PKGS+=(chromium)
command -v curl >/dev/null || PKGS+=(curl)
if [ "$NEED_CS" = 1 ]; then
  # ripgrep replaces @vscode/ripgrep's GitHub download; libkrb5-dev = gssapi.h for the `kerberos`
  # native module; build-essential + python3 for node-gyp.
  command -v rg >/dev/null || PKGS+=(ripgrep)
  [ -f /usr/include/gssapi/gssapi.h ] || PKGS+=(libkrb5-dev)
  { command -v make >/dev/null && command -v g++ >/dev/null; } || PKGS+=(build-essential)
  command -v python3 >/dev/null || PKGS+=(python3)
fi
if [ ${#PKGS[@]} -gt 0 ]; then
  SUDO=
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || die "missing apt packages (${PKGS[*]}) and not root: run  apt-get install -y ${PKGS[*]}  as root"
    SUDO="sudo -n"
  fi
  say "apt-get install ${PKGS[*]}"
  $SUDO apt-get -o DPkg::Lock::Timeout=600 update -q >/dev/null || say "warning: apt-get update failed, trying the cached package lists"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -q "${PKGS[@]}" >"$CS_ROOT/logs/apt.log" 2>&1 ||
    { tail -30 "$CS_ROOT/logs/apt.log"; die "apt-get install ${PKGS[*]} failed (log: $CS_ROOT/logs/apt.log)"; }
fi
command -v chromium >/dev/null || die "chromium is still missing after apt-get"

# ---- code-server from npm ------------------------------------------------------------------------------
if [ "$NEED_CS" = 1 ]; then
  say "installing code-server $CS_VERSION into $CS_DIR (about 2-3 minutes; log: $CS_ROOT/logs/code-server-install.log)"
  rm -rf "$CS_DIR/node_modules" "$CS_DIR/package-lock.json" "$CS_DIR"/.ffn-lens-installed-*
  # Seed @vscode/ripgrep's download cache: its postinstall looks in $TMPDIR/vscode-ripgrep-cache-<ver>/
  # before calling api.github.com; a tarball with Debian's rg at top level satisfies it.
  export TMPDIR="$CS_ROOT/tmp"
  mkdir -p "$TMPDIR/vscode-ripgrep-cache-$RG_PKG_VERSION"
  tar czf "$TMPDIR/vscode-ripgrep-cache-$RG_PKG_VERSION/$RG_ASSET" -C "$(dirname "$(command -v rg)")" rg
  cd "$CS_DIR"
  [ -f package.json ] || printf '{ "name": "ffn-lens-code-server-cache", "private": true }\n' > package.json
  # node-gyp must find the headers of the Node that runs code-server, offline (no headers download).
  NODE_PREFIX=$(dirname "$(dirname "$(command -v node)")")
  if [ -z "${npm_config_nodedir:-}" ] && [ -z "$(npm config get nodedir 2>/dev/null | grep -v '^undefined$\|^null$' || true)" ] &&
     [ -f "$NODE_PREFIX/include/node/node.h" ]; then
    export npm_config_nodedir="$NODE_PREFIX"
  fi
  # code-server's postinstall runs `npm install` in lib/vscode and lib/vscode/extensions and builds
  # node-pty, spdlog, kerberos, native-watchdog, deviceid, argon2 with node-gyp. With npm 11:
  #   npm_config_unsafe_perm=true                 postinstall.sh refuses to run as root without it
  #   npm_config_dangerously_allow_all_scripts    npm 11 skips dependency install scripts unless
  #                                               allow-listed (inherited by the nested installs)
  #   npm_config_yes=true                         a user `yes=false` makes node-pty's `npx node-gyp`
  #                                               abort ("npx canceled due to missing packages")
  if ! npm_config_yes=true npm_config_unsafe_perm=true npm_config_dangerously_allow_all_scripts=true \
       npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false \
       npm install --foreground-scripts "code-server@$CS_VERSION" >"$CS_ROOT/logs/code-server-install.log" 2>&1; then
    tail -40 "$CS_ROOT/logs/code-server-install.log"
    die "npm install code-server@$CS_VERSION failed (full log: $CS_ROOT/logs/code-server-install.log)"
  fi
  cs_files_ok || { tail -40 "$CS_ROOT/logs/code-server-install.log"; die "code-server installed but incomplete (native modules or ripgrep missing)"; }
  cs_runs || die "code-server $CS_VERSION installed but '$CS_BIN --version' fails"
  touch "$MARKER"
fi

# ---- playwright-core from the project's devDependencies --------------------------------------------------
PW_VERSION=$(cd "$REPO" && node -p "require('playwright-core/package.json').version" 2>/dev/null) ||
  die "playwright-core is not installed in $REPO/node_modules: run 'npm ci' first"

say "ok in $(( $(date +%s) - T0 ))s: code-server $CS_VERSION ($CS_BIN), $(chromium --version 2>/dev/null | head -1 || echo chromium), playwright-core $PW_VERSION"
