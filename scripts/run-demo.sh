#!/usr/bin/env bash
# README command 1: install what is missing, then serve the app on the bundled demo lake at
# http://127.0.0.1:8080 (a release build, like dist/). Idempotent; Ctrl-C stops the server.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target}
export TRUNK_SKIP_VERSION_CHECK=true

bash scripts/setup-toolchain.sh
echo "== cargo fetch"
cargo fetch
echo "== trunk serve --release (first build takes a few minutes) → http://127.0.0.1:8080/"
CARGO_NET_OFFLINE=true exec trunk serve --release
