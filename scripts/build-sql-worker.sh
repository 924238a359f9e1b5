#!/usr/bin/env bash
# Builds the SQL tab's engine (web/sql-worker: the Flink SQL session with DataFusion) for wasm32
# and adds it to a Trunk dist/ folder as a Web Worker the app starts on first use:
#   lakescope-sql-worker_loader.js, lakescope-sql-worker.js, lakescope-sql-worker_bg.wasm
#   bash scripts/build-sql-worker.sh [dist]        # after `trunk build --release`
#   bash scripts/build-sql-worker.sh dist --dev    # unoptimised (minutes, ~140 MB): for tests
# The folder is created if missing (scripts/run-demo.sh builds into a staging folder); a module
# already bound from the same cargo output is not bound and optimised again.
# A cold build takes long on 2 cores (DataFusion: ~25-45 min), which is why `trunk build` and the
# CI test run leave it out; the app says so when the SQL tab runs without it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
dist=${1:-dist}
profile=${2:-}
mkdir -p "$dist"
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
target=${CARGO_TARGET_DIR:-target}
if [ "$profile" = --dev ]; then
  # The same code unoptimised: the CI's end-to-end tests of the SQL tab run against it.
  cargo build --offline --target wasm32-unknown-unknown -p lakescope-sql-worker
  wasm="$target/wasm32-unknown-unknown/debug/lakescope-sql-worker.wasm"
else
  cargo build --offline --target wasm32-unknown-unknown -p lakescope-sql-worker --profile wasm-sql
  wasm="$target/wasm32-unknown-unknown/wasm-sql/lakescope-sql-worker.wasm"
fi
stamp="$dist/.lakescope-sql-worker.from"
if [ "$dist/lakescope-sql-worker_bg.wasm" -nt "$wasm" ] && [ -f "$dist/lakescope-sql-worker_loader.js" ] &&
  [ "$(cat "$stamp" 2>/dev/null)" = "$wasm" ]; then
  echo "$dist already has the engine built from $wasm"
  exit 0
fi
wasm-bindgen --target no-modules --no-typescript --out-dir "$dist" "$wasm"
# -O1 also drops the name section (~10 MB); higher levels take many minutes on a module this size.
if [ "$profile" != --dev ] && command -v wasm-opt >/dev/null; then
  wasm-opt -O1 --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
    --enable-reference-types --enable-multivalue --enable-mutable-globals \
    -o "$dist/lakescope-sql-worker_bg.wasm.opt" "$dist/lakescope-sql-worker_bg.wasm"
  mv "$dist/lakescope-sql-worker_bg.wasm.opt" "$dist/lakescope-sql-worker_bg.wasm"
fi
printf 'importScripts("./lakescope-sql-worker.js");wasm_bindgen("./lakescope-sql-worker_bg.wasm");\n' \
  > "$dist/lakescope-sql-worker_loader.js"
echo "$wasm" >"$stamp"
# (an unoptimised build says nothing about the payload users download)
if [ "$profile" != --dev ] && [ -f "$dist/index.html" ]; then bash scripts/payload-size.sh "$dist"; fi
