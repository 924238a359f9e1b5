#!/usr/bin/env bash
# Installs moto's standalone S3 server into a project venv (idempotent; PyPI only) for the S3 tests
# (crates/storage/tests/s3_moto.rs, crates/cli/tests/s3_scan.rs start it themselves from there).
#
#   bash scripts/s3-test-server.sh               # install only; prints the moto_server path
#   bash scripts/s3-test-server.sh --start PORT  # install, then run moto_server -H 127.0.0.1 -p PORT
#
# The venv is target/venv-moto (override: LAKESCOPE_MOTO_VENV=/abs/dir).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
VENV=${LAKESCOPE_MOTO_VENV:-$PWD/target/venv-moto}
if [ -x "$VENV/bin/moto_server" ] && "$VENV/bin/python" -c 'import moto.server' 2>/dev/null; then
  echo "present: $("$VENV/bin/python" -c 'import moto; print("moto", moto.__version__)') in $VENV"
else
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check "moto[server]"
  echo "installed: $("$VENV/bin/python" -c 'import moto; print("moto", moto.__version__)') in $VENV"
fi
echo "moto_server: $VENV/bin/moto_server"
if [ "${1:-}" = "--start" ]; then
  exec "$VENV/bin/moto_server" -H 127.0.0.1 -p "${2:-5000}"
fi
