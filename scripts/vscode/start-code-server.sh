#!/usr/bin/env bash
# Start a throw-away code-server (VS Code 1.100.3 workbench + Node extension host) in the background,
# in its own session/process group, with fresh user-data, extensions and XDG dirs under $RUN_DIR.
# Stop it with stop-code-server.sh (same PORT / RUN_DIR). Needs setup.sh to have run.
#
#   PORT=8080 bash scripts/vscode/start-code-server.sh /path/to/workspace-folder
#
# Environment:
#   PORT           port to listen on (default 8080); the start fails if it is already taken
#   HOST           bind address (default 127.0.0.1)
#   RUN_DIR        throw-away state dir (default $CS_ROOT/run-$PORT; wiped at start; keep it short)
#   EXT_DIR        install this extension folder as <publisher>.<name>-<version> (copied)
#   EXT_LINK       with EXT_DIR: symlink instead of copying (the extension is then live from source)
#   VSIX           install this .vsix first
#   USER_SETTINGS  JSON file merged over the default user settings.json
#   READY_TIMEOUT  seconds to wait for /healthz (default 60)
#   OWNER_PID      stop the server when this process ends, even if it could not clean up (kill -9)
#   Any other variable (e.g. FFN_LENS_OPEN) is inherited by the server and its extension host.
# Prints "code-server pid <PID> ready on <URL>"; the PID (= process-group id) is in $RUN_DIR/code-server.pid.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
CS_ROOT=${CS_ROOT:-$REPO/.vscode-test/code-server}
PORT=${PORT:-8080}; HOST=${HOST:-127.0.0.1}
RUN_DIR=${RUN_DIR:-$CS_ROOT/run-$PORT}
READY_TIMEOUT=${READY_TIMEOUT:-60}
CS=$CS_ROOT/cs/node_modules/.bin/code-server
die() { echo "[code-server] ERROR: $*" >&2; exit 1; }

[ $# -ge 1 ] || die "usage: PORT=8080 $0 WORKSPACE_FOLDER"
[ -d "$1" ] || die "workspace folder $1 does not exist"
WS=$(realpath "$1")
[ -x "$CS" ] || die "code-server is not installed in $CS_ROOT: run 'npm run setup:vscode'"
# A server already answering on this port would make the readiness check below lie.
node -e 'const s=require("net").createServer();s.once("error",()=>process.exit(1));s.listen(+process.argv[1],process.argv[2],()=>s.close())' "$PORT" "$HOST" ||
  die "port $HOST:$PORT is already in use (choose another PORT=)"

rm -rf "$RUN_DIR"; mkdir -p "$RUN_DIR/ud/User" "$RUN_DIR/exts" "$RUN_DIR/xdg" "$RUN_DIR/tmp"
RUN_DIR=$(realpath "$RUN_DIR")
printf 'bind-addr: %s:%s\nauth: none\ncert: false\n' "$HOST" "$PORT" > "$RUN_DIR/config.yaml"
node - "$RUN_DIR/ud/User/settings.json" "${USER_SETTINGS:-}" <<'JS'
const fs = require('fs');
const [out, extra] = process.argv.slice(2);
const settings = {
  'workbench.startupEditor': 'none',
  'security.workspace.trust.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'workbench.enableExperiments': false,
  'workbench.tips.enabled': false,
  'chat.commandCenter.enabled': false,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'git.openRepositoryInParentFolders': 'never',
};
if (extra) Object.assign(settings, JSON.parse(fs.readFileSync(extra, 'utf8')));
fs.writeFileSync(out, JSON.stringify(settings, null, 2) + '\n');
JS

# keep code-server out of ~/.config, ~/.local, ~/.cache and /tmp (ipc/git sockets, extension temp files);
# unix socket paths must stay under 107 characters: a deep RUN_DIR gets a short temp dir instead
SOCK_DIR="$RUN_DIR/tmp"
if [ $(( ${#SOCK_DIR} + 55 )) -gt 107 ]; then SOCK_DIR=$(mktemp -d /tmp/ffn-cs-tmp-XXXXXX); echo "$SOCK_DIR" > "$RUN_DIR/tmpdir"; fi
[ $(( ${#RUN_DIR} + 25 )) -le 107 ] || echo "[code-server] warning: RUN_DIR $RUN_DIR is long; its ud/code-server-ipc.sock may exceed the socket path limit" >&2
export XDG_CONFIG_HOME="$RUN_DIR/xdg" XDG_DATA_HOME="$RUN_DIR/xdg" XDG_CACHE_HOME="$RUN_DIR/xdg/cache" TMPDIR="$SOCK_DIR"
ARGS=(--config "$RUN_DIR/config.yaml" --user-data-dir "$RUN_DIR/ud" --extensions-dir "$RUN_DIR/exts")
if [ -n "${VSIX:-}" ]; then
  "$CS" "${ARGS[@]}" --install-extension "$(realpath "$VSIX")" >> "$RUN_DIR/code-server.log" 2>&1 ||
    { tail -20 "$RUN_DIR/code-server.log"; die "installing $VSIX failed"; }
fi
if [ -n "${EXT_DIR:-}" ]; then   # folder layout VS Code scans: <publisher>.<name>-<version>
  EXT_DIR=$(realpath "$EXT_DIR")
  ID=$(node -p 'const p=require(process.argv[1]+"/package.json"); p.publisher+"."+p.name+"-"+p.version' "$EXT_DIR")
  if [ -n "${EXT_LINK:-}" ]; then ln -s "$EXT_DIR" "$RUN_DIR/exts/$ID"; else cp -r "$EXT_DIR" "$RUN_DIR/exts/$ID"; fi
fi

# (Workspace Trust off, unless the run's settings turn it on: the Restricted Mode e2e, test/e2e-restricted/settings.json)
TRUST_FLAG=--disable-workspace-trust
if node -e 'process.exit(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))["security.workspace.trust.enabled"] === true ? 0 : 1)' "$RUN_DIR/ud/User/settings.json"; then TRUST_FLAG=; fi

T0=$(date +%s%N)
setsid "$CS" "${ARGS[@]}" --disable-telemetry --disable-update-check $TRUST_FLAG \
  --disable-getting-started-override --ignore-last-opened "$WS" >> "$RUN_DIR/code-server.log" 2>&1 < /dev/null &
PID=$!; echo "$PID" > "$RUN_DIR/code-server.pid"
if [ -n "${OWNER_PID:-}" ]; then   # orphan guard: the owner died without stopping us
  setsid bash -c 'while kill -0 "$1" 2>/dev/null && kill -0 "$2" 2>/dev/null; do sleep 2; done
    if kill -0 -- "-$2" 2>/dev/null; then kill -TERM -- "-$2"; sleep 10; kill -KILL -- "-$2"; fi 2>/dev/null' \
    guard "$OWNER_PID" "$PID" < /dev/null > /dev/null 2>&1 &
fi
URL="http://$HOST:$PORT"
deadline=$(( $(date +%s) + READY_TIMEOUT ))
until curl -sf -o /dev/null --max-time 2 "$URL/healthz"; do
  if ! kill -0 "$PID" 2>/dev/null; then
    tail -30 "$RUN_DIR/code-server.log" >&2; die "code-server exited during start-up (log: $RUN_DIR/code-server.log)"
  fi
  if [ "$(date +%s)" -ge "$deadline" ]; then
    kill -TERM -- "-$PID" 2>/dev/null || true
    tail -30 "$RUN_DIR/code-server.log" >&2; die "code-server did not answer $URL/healthz within ${READY_TIMEOUT}s (log: $RUN_DIR/code-server.log)"
  fi
  sleep 0.2
done
echo "code-server pid $PID ready on $URL/?folder=$WS after $(( ($(date +%s%N) - T0) / 1000000 )) ms (log: $RUN_DIR/code-server.log)"
