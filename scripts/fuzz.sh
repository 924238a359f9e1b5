#!/usr/bin/env bash
# Runs the cargo-fuzz targets of the Paimon decoders (BinaryRow, manifests, deletion vectors),
# the SQL parser and the Iceberg manifest / manifest-list decoder.
#   bash scripts/fuzz.sh            # each target for FUZZ_SECONDS (default 20) — what CI runs
#   FUZZ_SECONDS=600 bash scripts/fuzz.sh   # longer, by hand
# Needs the nightly toolchain (present on this machine kind) and cargo-fuzz (installed here if missing).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
SECONDS_PER_TARGET="${FUZZ_SECONDS:-20}"
# Brief runs (CI) build without optimisation: compiling dominates them. Longer runs optimise.
PROFILE_FLAG=""
if [ "$SECONDS_PER_TARGET" -lt 120 ]; then PROFILE_FLAG="--dev"; fi
if ! rustup toolchain list | grep -q '^nightly'; then
  rustup toolchain install nightly --profile minimal
fi
if [ "$(cargo fuzz --version 2>/dev/null | cut -d' ' -f2)" != "0.13.2" ]; then
  cargo install cargo-fuzz --version 0.13.2 --locked
fi
summary=()
for target in binary_row manifest deletion_vector sql_parser iceberg_manifest; do
  # Seed from the committed corpus; libFuzzer writes new inputs into a scratch copy only.
  work="target/fuzz-corpus/$target"
  mkdir -p "$work"
  cp -n fuzz/corpus/"$target"/* "$work"/ 2>/dev/null || true
  log="target/fuzz-$target.log"
  if ! cargo +nightly fuzz run $PROFILE_FLAG --fuzz-dir fuzz "$target" "$work" -- \
      -max_total_time="$SECONDS_PER_TARGET" -rss_limit_mb=2048 >"$log" 2>&1; then
    tail -40 "$log"
    if grep -q 'failed to build fuzz script' "$log"; then
      echo "fuzz: $target did not build (see $log; 'No space left on device' there means the disk is full)" >&2
    else
      echo "fuzz: $target found a crash (see $log and fuzz/artifacts/$target)" >&2
    fi
    exit 1
  fi
  execs=$(grep -o 'Done [0-9]* runs' "$log" | tail -1 | grep -o '[0-9]*' || echo '?')
  summary+=("$target: $execs execs, 0 crashes")
done
printf 'fuzz: %s\n' "${summary[@]}"
