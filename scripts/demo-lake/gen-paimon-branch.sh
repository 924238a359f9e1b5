#!/usr/bin/env bash
# Writes the demo lake's Paimon table java09.pk_branch (tag t1, branch dev) with Java Paimon 0.9
# (scripts/demo-lake/GenPaimonBranch.java, against the oracle jars of scripts/oracles.sh), Java's
# reads of each ref into tests/e2e/expected/paimon_pk_branch.json, and regenerates the index.
#   bash scripts/demo-lake/gen-paimon-branch.sh [public/demo/warehouse]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
WH=$(realpath "${1:-public/demo/warehouse}")
LIB=${LAKE_ORACLES:-$HOME/.cache/lake-oracles}/java/lib
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
javac -nowarn -cp "$LIB/*" -d "$OUT" scripts/demo-lake/GenPaimonBranch.java
mkdir -p tests/e2e/expected
java -cp "$LIB/*:$OUT" GenPaimonBranch "$WH" tests/e2e/expected/paimon_pk_branch.json
# Java's local file IO leaves .crc files next to what it writes: the lake has none.
find "$WH/java09.db/pk_branch" -name '.*.crc' -delete
python3 scripts/gen-index.py "$WH"
