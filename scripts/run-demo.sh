#!/usr/bin/env bash
# README command 1: install what is missing, build the app, serve it on the bundled demo lake at
# http://127.0.0.1:8080, and build the SQL engine in the background: the SQL console and the DDL
# tab's Commit work as soon as it is in place (the SQL tab says it is being built meanwhile, and
# picks it up on the next run, without a reload). Idempotent; Ctrl-C stops the server and the build.
#
#   bash scripts/run-demo.sh
#   PORT=9000 bash scripts/run-demo.sh
#   LAKESCOPE_SQL_ENGINE=dev bash scripts/run-demo.sh    # unoptimised engine: minutes, not 25-45
#   LAKESCOPE_SQL_ENGINE=none bash scripts/run-demo.sh   # no engine
#   LAKESCOPE_DEMO_DIST=target/demo-dist bash ...         # where the app is built (default dist/)
#
# The server answers a missing path with the app's page (200 text/html), as `trunk serve`,
# Netlify, CloudFront's 404 rule or nginx `try_files $uri /index.html` do; lakescope reads such an
# answer for a table file as "absent".
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
export TRUNK_SKIP_VERSION_CHECK=true
PORT=${PORT:-8080}
DIST=${LAKESCOPE_DEMO_DIST:-dist}
ENGINE=${LAKESCOPE_SQL_ENGINE:-release}
case $ENGINE in release | dev | none) ;; *) echo "LAKESCOPE_SQL_ENGINE must be release, dev or none" >&2; exit 2 ;; esac
t0=$(date +%s)
say() { printf '== %s (t=%ss)\n' "$*" "$(( $(date +%s) - t0 ))"; }

bash scripts/setup-toolchain.sh
say "cargo fetch"
cargo fetch
say "trunk build --release (a first build takes several minutes)"
CARGO_NET_OFFLINE=true trunk build --release --dist "$DIST"

ENGINE_FILES=(lakescope-sql-worker.js lakescope-sql-worker_bg.wasm lakescope-sql-worker_loader.js)
STAGING=$CARGO_TARGET_DIR/sql-engine-$ENGINE
STATUS=$DIST/lakescope-sql-worker.status.json
LOG=$CARGO_TARGET_DIR/sql-engine-$ENGINE.log
# Puts the staged engine next to the app; the loader goes last, so a page never finds a loader
# whose module is not there yet.
install_engine() {
  local f
  for f in "${ENGINE_FILES[@]}"; do
    cp "$STAGING/$f" "$DIST/.$f.tmp" && mv -f "$DIST/.$f.tmp" "$DIST/$f" || return
  done
}
build_engine() {
  local profile=()
  [ "$ENGINE" = dev ] && profile=(--dev)
  if bash scripts/build-sql-worker.sh "$STAGING" "${profile[@]}" >"$LOG" 2>&1 && install_engine; then
    rm -f "$STATUS"
    say "SQL engine ready ($ENGINE build; the SQL tab picks it up on its next run)"
  else
    printf '{"state":"failed","started":"%s","log":"%s"}\n' "$started" "$LOG" >"$STATUS"
    say "SQL engine build FAILED: see $LOG"
  fi
}

BUILDER=""
if [ "$ENGINE" != none ]; then
  # An engine staged by an earlier run is served at once; the build then brings it up to date.
  if [ -f "$STAGING/lakescope-sql-worker_loader.js" ]; then install_engine; fi
  started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  [ -f "$DIST/lakescope-sql-worker_loader.js" ] ||
    printf '{"state":"building","started":"%s","log":"%s"}\n' "$started" "$LOG" >"$STATUS"
  say "building the SQL engine in the background ($ENGINE; log: $LOG)"
  build_engine &
  BUILDER=$!
fi
# A background job ignores Ctrl-C (SIGINT) in a script: stop the build's process tree explicitly.
kill_tree() { local child; for child in $(pgrep -P "$1"); do kill_tree "$child"; done; kill "$1" 2>/dev/null || true; }
stop() { if [ -n "$BUILDER" ]; then kill_tree "$BUILDER"; fi; }
trap stop EXIT

say "serving $DIST at http://127.0.0.1:$PORT/ (Ctrl-C stops)"
python3 scripts/spa-server.py "$DIST" --port "$PORT"
