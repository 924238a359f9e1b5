#!/usr/bin/env bash
# README command 2: install what is missing, then run every check and all three test layers:
#   fmt, clippy (native + wasm32), layer 1 native `cargo test`, layer 2 wasm-bindgen-test in
#   headless Chromium, layer 3 end-to-end tests of the built app (dist/) on a static server.
# Idempotent; exits non-zero on the first failure. Timings per step are printed at the end.
#
#   bash scripts/test.sh                  # everything
#   SKIP_SETUP=1 bash scripts/test.sh     # skip the toolchain check (already set up)
#   KEEP_GOING=1 bash scripts/test.sh     # run every step even after a failure (still exits 1)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
export TRUNK_SKIP_VERSION_CHECK=true
# incremental caches only cost disk on a one-shot run
export CARGO_INCREMENTAL=${CARGO_INCREMENTAL:-0}
export CHROMEDRIVER=${CHROMEDRIVER:-/usr/bin/chromedriver}
export WASM_BINDGEN_TEST_WEBDRIVER_JSON=${WASM_BINDGEN_TEST_WEBDRIVER_JSON:-$ROOT/scripts/webdriver.json}
export WASM_BINDGEN_TEST_TIMEOUT=${WASM_BINDGEN_TEST_TIMEOUT:-120}
LOGS=$CARGO_TARGET_DIR/test-logs
mkdir -p "$LOGS"

T_START=$(date +%s)
TIMINGS=()
RESULTS=()
FAILED=()
CURRENT=""

SERVER_PID=""
stop_server() { if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; SERVER_PID=""; fi; }

finish() {
  local rc=$?
  stop_server
  echo
  echo "== timings"
  for t in "${TIMINGS[@]}"; do echo "  $t"; done
  echo "  total: $(( $(date +%s) - T_START ))s"
  echo "  disk: target/ $(du -sh "$CARGO_TARGET_DIR" 2>/dev/null | cut -f1), free $(df -h --output=avail "$CARGO_TARGET_DIR" | tail -n 1 | tr -d ' ')"
  if ((${#RESULTS[@]})); then
    echo "== results"
    for r in "${RESULTS[@]}"; do echo "  $r"; done
  fi
  if ((${#FAILED[@]})); then
    echo "FAILED steps: ${FAILED[*]} (logs in $LOGS)" >&2
  elif [ "$rc" -ne 0 ]; then
    echo "FAILED${CURRENT:+ in step: $CURRENT} (exit $rc; logs in $LOGS)" >&2
  else
    echo "ALL PASSED"
  fi
}
trap finish EXIT

# run NAME CMD...: runs one step, prints and records its duration; stops at a failure
# unless KEEP_GOING=1. Step functions propagate failures explicitly (`set -e` does not apply
# inside a function called from a condition).
run() {
  local name=$1 t0 rc=0
  shift
  CURRENT=$name
  t0=$(date +%s)
  printf '\n== %s\n' "$name"
  if "$@"; then rc=0; else rc=$?; fi
  TIMINGS+=("$(printf '%-34s %5ss%s' "$name" "$(( $(date +%s) - t0 ))" "$( ((rc)) && echo "  FAILED ($rc)")")")
  CURRENT=""
  if ((rc)); then
    FAILED+=("'$name'")
    [ "${KEEP_GOING:-0}" = 1 ] || exit "$rc"
  fi
}

# Sums the `test result:` lines of cargo test output.
cargo_counts() {
  awk '/^test result:/ { p += $4; f += $6; i += $8 } END { printf "%d passed, %d failed, %d ignored", p, f, i }' "$1"
}

setup() {
  if [ "${SKIP_SETUP:-0}" = 1 ]; then echo "skipped (SKIP_SETUP=1)"; return; fi
  NPM_DIRS=tests/e2e bash scripts/setup-toolchain.sh || return
  # Test services and oracles: moto's S3 server (the S3 tests start it) and the interop readers
  # (Java Paimon 0.9 + pypaimon 2.1; pyiceberg 0.12 + DuckDB for Iceberg) that must read back
  # what lakescope writes.
  if ! command -v javac >/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends openjdk-17-jdk-headless || return
  fi
  bash scripts/s3-test-server.sh || return
  bash scripts/oracles.sh >/dev/null || return
  bash scripts/iceberg-oracle.sh || return
}

layer1() {
  cargo test --workspace --no-fail-fast 2>&1 | tee "$LOGS/layer1.log"
  local rc=${PIPESTATUS[0]} counts
  counts=$(cargo_counts "$LOGS/layer1.log")
  echo "LAYER 1 (native cargo test): $counts"
  RESULTS+=("layer 1 native cargo test:        $counts")
  return "$rc"
}

layer2() {
  # Storage in the browser, and the core crates (Paimon + Iceberg readers, engine) reading one
  # corpus table of each kind in headless Chromium (tests/wasm-conformance).
  cargo test --target wasm32-unknown-unknown -p lakescope-storage -p lakescope-wasm-conformance \
    --features lakescope-storage/browser --no-fail-fast 2>&1 | tee "$LOGS/layer2.log"
  local rc=${PIPESTATUS[0]} counts
  counts=$(cargo_counts "$LOGS/layer2.log")
  echo "LAYER 2 (wasm-bindgen-test, headless Chromium): $counts"
  RESULTS+=("layer 2 wasm-bindgen-test:        $counts")
  return "$rc"
}

build_app() {
  rm -rf dist # never let layer 3 test a stale build
  CARGO_NET_OFFLINE=true trunk build --release 2>&1 | tee "$LOGS/trunk.log"
  local rc=${PIPESTATUS[0]}
  if ((rc)); then
    # trunk prints only the last lines of cargo's failure: repeat the compiler's own errors
    grep -E '^(error|warning: unused)|No space left|SIGKILL' "$LOGS/trunk.log" | head -n 20 >&2
    df -h "$CARGO_TARGET_DIR" >&2
    return "$rc"
  fi
  bash scripts/payload-size.sh dist >"$LOGS/payload.txt" || return
  cat "$LOGS/payload.txt"
  RESULTS+=("payload: $(tail -n 1 "$LOGS/payload.txt")")
}

build_engine() {
  # The SQL tab's engine (DataFusion in a worker) as an unoptimised build: a release build takes
  # 25-45 min on 2 cores, this one minutes. The e2e tests of the SQL tab, DDL and Compact run
  # against it (the same code as the release build users get from build-sql-worker.sh).
  [ -f dist/index.html ] || { echo "no dist/index.html: the app build failed" >&2; return 1; }
  bash scripts/build-sql-worker.sh dist --dev 2>&1 | tee "$LOGS/sql-worker.log"
  return "${PIPESTATUS[0]}"
}

layer3() {
  local port
  [ -f dist/index.html ] || { echo "no dist/index.html: the app build failed" >&2; return 1; }
  # tests/e2e/storage.test.js starts its own moto S3 server (another port than the page, with
  # bucket CORS rules) and `lakescope presign-server`: make sure both are there.
  bash scripts/s3-test-server.sh >/dev/null || return
  # The CLI binary as layer 1 built it (a no-op after layer 1). `cargo build -p lakescope-cli`
  # resolves features for that package alone (tokio without `process`) and so rebuilt tokio and
  # everything above it, DataFusion included: ~400 s of layer 3's 707 s in the last CI run.
  cargo test --workspace --no-run -q || return
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  python3 -m http.server "$port" --bind 127.0.0.1 --directory dist >"$LOGS/http-server.log" 2>&1 &
  SERVER_PID=$!
  if python3 - "$port" <<'PY'
import sys, time, urllib.request
url = f"http://127.0.0.1:{sys.argv[1]}/"
for _ in range(100):
    try:
        urllib.request.urlopen(url, timeout=1).read()
        sys.exit(0)
    except Exception:
        time.sleep(0.1)
sys.exit(f"static server at {url} did not answer")
PY
  then :; else stop_server; return 1; fi
  echo "serving dist/ at http://127.0.0.1:$port/ (python3 -m http.server)"
  local rc=0
  (cd tests/e2e && LAKESCOPE_URL="http://127.0.0.1:$port/" \
    LAKESCOPE_SCREENS="$CARGO_TARGET_DIR/e2e-screens" \
    LAKESCOPE_MOTO_VENV="${LAKESCOPE_MOTO_VENV:-$ROOT/target/venv-moto}" \
    LAKESCOPE_BIN="$CARGO_TARGET_DIR/debug/lakescope" node --test --test-reporter=spec 2>&1) |
    tee "$LOGS/layer3.log" || rc=$?
  stop_server
  local pass fail
  pass=$(sed -n 's/^ℹ pass \([0-9]*\)$/\1/p' "$LOGS/layer3.log" | tail -n 1)
  fail=$(sed -n 's/^ℹ fail \([0-9]*\)$/\1/p' "$LOGS/layer3.log" | tail -n 1)
  echo "LAYER 3 (e2e, dist/ on a static server, headless Chromium and Firefox ESR): ${pass:-0} passed, ${fail:-?} failed"
  echo "screenshots: $CARGO_TARGET_DIR/e2e-screens/"
  RESULTS+=("layer 3 e2e (node --test):        ${pass:-0} passed, ${fail:-?} failed")
  return "$rc"
}

run "toolchain set-up" setup
run "cargo fetch" cargo fetch
run "cargo fmt --check" cargo fmt --all --check
run "clippy (native)" cargo clippy --workspace --all-targets -- -D warnings
run "clippy (wasm32: app, ORC worker, storage)" cargo clippy --target wasm32-unknown-unknown \
  -p lakescope-web -p lakescope-orc-worker -p lakescope-storage --features lakescope-storage/browser \
  --all-targets -- -D warnings
run "layer 1: native cargo test" layer1
run "layer 2: wasm-bindgen-test" layer2
run "trunk build --release" build_app
run "SQL engine (dev build, for e2e)" build_engine
run "layer 3: e2e" layer3
# Decoder and parser fuzzing, briefly (longer by hand: FUZZ_SECONDS=600 bash scripts/fuzz.sh).
# Its build takes 7-13 min here; it explores rather than guards (every step above is the gate),
# so it runs only while the whole run stays inside CI's 90 minutes: not after FUZZ_UNTIL seconds
# (3900 = 65 min, leaving 25 for the fuzz build and its runs at worst).
fuzz_brief() {
  local elapsed=$(( $(date +%s) - T_START )) until=${FUZZ_UNTIL:-3900}
  if ((elapsed > until)); then
    echo "skipped: ${elapsed}s elapsed, over FUZZ_UNTIL=${until}s (run it by hand: bash scripts/fuzz.sh)"
    RESULTS+=("fuzz (brief):                     skipped after ${elapsed}s (FUZZ_UNTIL=${until})")
    return 0
  fi
  FUZZ_SECONDS="${FUZZ_SECONDS:-15}" bash scripts/fuzz.sh
}
# Layers 1-3 are done with the test executables: 60-odd binaries of 100-500 MB each (every one
# links the engine), 15-25 GB. CI's disk filled in the fuzz build with them kept (stop 36:
# target/ 33G, 11M free). Deleting them only makes a second local run relink.
prune_test_binaries() {
  local before
  before=$(du -sh "$CARGO_TARGET_DIR" 2>/dev/null | cut -f1)
  find "$CARGO_TARGET_DIR/debug/deps" -maxdepth 1 -type f -executable ! -name '*.so' -delete 2>/dev/null || true
  find "$CARGO_TARGET_DIR/wasm32-unknown-unknown/debug/deps" -maxdepth 1 -type f -name '*.wasm' -delete 2>/dev/null || true
  echo "target/: $before -> $(du -sh "$CARGO_TARGET_DIR" 2>/dev/null | cut -f1), free $(df -h --output=avail "$CARGO_TARGET_DIR" | tail -n 1 | tr -d ' ')"
}
run "prune test executables" prune_test_binaries
run "fuzz (brief)" fuzz_brief
((${#FAILED[@]} == 0)) || exit 1
