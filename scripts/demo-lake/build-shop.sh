#!/usr/bin/env bash
# Rewrites the demo lake's `shop` database with lakescope itself (a Flink SQL script run by
# `lakescope sql`), then the static-host listing. Run from anywhere:
#   bash scripts/demo-lake/build-shop.sh [WAREHOUSE]     (default: public/demo/warehouse)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
WH=$(realpath -m "${1:-public/demo/warehouse}")
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
cargo build --release -p lakescope-cli
rm -rf "$WH/shop.db"
SQL=$(mktemp --suffix=.sql)
trap 'rm -f "$SQL"' EXIT
python3 scripts/demo-lake/gen_shop.py "$WH" >"$SQL"
target/release/lakescope sql -f "$SQL" >/dev/null
python3 scripts/gen-index.py "$WH"
echo "shop database written to $WH/shop.db"
