#!/usr/bin/env bash
# Stop the code-server started by start-code-server.sh with the same PORT / RUN_DIR: its whole process
# group (server, extension hosts, pty host, file watcher). SIGTERM, then SIGKILL after 10 s.
#
#   PORT=8080 bash scripts/vscode/stop-code-server.sh [--clean]     # --clean also deletes RUN_DIR
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
CS_ROOT=${CS_ROOT:-$REPO/.vscode-test/code-server}
PORT=${PORT:-8080}
RUN_DIR=${RUN_DIR:-$CS_ROOT/run-$PORT}
PIDFILE=$RUN_DIR/code-server.pid
if [ ! -f "$PIDFILE" ]; then echo "[code-server] nothing to stop ($PIDFILE not found)"; exit 0; fi
PID=$(cat "$PIDFILE")
case "$PID" in ''|*[!0-9]*) echo "[code-server] bad pid file $PIDFILE" >&2; exit 1 ;; esac

alive() { kill -0 -- "-$PID" 2>/dev/null; }   # any process left in the group?
if alive; then
  kill -TERM -- "-$PID" 2>/dev/null
  for _ in $(seq 1 50); do alive || break; sleep 0.2; done
  if alive; then
    echo "[code-server] group $PID still alive after 10 s: SIGKILL" >&2
    kill -KILL -- "-$PID" 2>/dev/null
    for _ in $(seq 1 25); do alive || break; sleep 0.2; done
  fi
fi
if alive; then echo "[code-server] ERROR: could not stop process group $PID" >&2; exit 1; fi
rm -f "$PIDFILE"
if [ -f "$RUN_DIR/tmpdir" ]; then   # the short socket dir start-code-server.sh made for a deep RUN_DIR
  T=$(cat "$RUN_DIR/tmpdir"); case "$T" in /tmp/ffn-cs-tmp-*) rm -rf "$T" ;; esac; rm -f "$RUN_DIR/tmpdir"
fi
[ "${1:-}" = --clean ] && rm -rf "$RUN_DIR"
echo "[code-server] stopped (pid $PID, port $PORT)"
