"""moto's S3 server for lakescope's tests: one request at a time, gone with the test process.

moto checks `If-None-Match: *` and then writes without a lock across werkzeug's request threads,
so two racing creates can both succeed, unlike on S3: serving one request at a time (werkzeug's
`run_simple` with threaded=False) makes its conditional create atomic, as S3's is.
Usage: python3 moto_serial.py PORT (the python3 of the venv of scripts/s3-test-server.sh).
"""
import os
import sys
import threading
import time

import moto.server


def exit_with_parent(parent):
    """Ends this server once the test process that started it is gone (even if it crashed)."""
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)


def main():
    port = sys.argv[1]
    threading.Thread(target=exit_with_parent, args=(os.getppid(),), daemon=True).start()
    run_simple = moto.server.run_simple
    moto.server.run_simple = lambda *a, **k: run_simple(*a, **dict(k, threaded=False))
    sys.argv = ["moto_server", "-H", "127.0.0.1", "-p", port]
    moto.server.main()


if __name__ == "__main__":
    main()
