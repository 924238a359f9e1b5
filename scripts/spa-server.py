#!/usr/bin/env python3
"""A static host with a single-page-app fallback, for tests.

Serves FOLDER like a static web host does, but answers every path that is not a file there with
`200 OK` and FOLDER/index.html as `text/html`, as many real hosts are configured for single-page
apps (trunk serve, Netlify's `/* /index.html 200`, CloudFront's 404 -> 200 /index.html error
page, nginx's `try_files $uri /index.html`). `Range: bytes=...` requests get `206 Partial Content`
with `Content-Range` (or `416` past the end), the fallback page included, as nginx answers them.

    python3 scripts/spa-server.py FOLDER [--port PORT] [--quiet]

Binds 127.0.0.1 (port 0, the default, picks a free port) and prints its URL on the first line of
stdout, e.g. `http://127.0.0.1:43121/`. Stops on SIGTERM or Ctrl-C.
"""
import argparse
import mimetypes
import os
import posixpath
import re
import signal
import sys
import urllib.parse
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

TYPES = {".wasm": "application/wasm", ".js": "text/javascript", ".mjs": "text/javascript", ".json": "application/json"}


def parse_range(header, size):
    """(start, end_inclusive) for a single `bytes=` range; None to ignore the header (a malformed
    or multi-range header: the whole file is sent, as RFC 9110 allows); "unsatisfiable" for 416."""
    m = re.fullmatch(r"\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*", header or "")
    if not m or (m.group(1) == "" and m.group(2) == ""):
        return None
    first, last = m.group(1), m.group(2)
    if first == "":  # the last N bytes
        n = int(last)
        if n == 0:
            return "unsatisfiable"
        return (max(0, size - n), size - 1)
    start = int(first)
    end = size - 1 if last == "" else min(int(last), size - 1)
    if start >= size or (last != "" and int(last) < start):
        return "unsatisfiable"
    return (start, end)


class SpaHandler(SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as real hosts (every answer has a Content-Length)
    quiet = False

    def file_for(self, url_path):
        """The file a path names: itself, its folder's index.html, or the app's index.html."""
        path = self.translate_path(url_path)
        if os.path.isdir(path):
            path = os.path.join(path, "index.html")
        if os.path.isfile(path):
            return path, False
        return os.path.join(self.directory, "index.html"), True

    def content_type(self, path):
        ext = posixpath.splitext(path)[1].lower()
        return TYPES.get(ext) or mimetypes.guess_type(path)[0] or "application/octet-stream"

    def send_head(self):
        path, fallback = self.file_for(urllib.parse.urlsplit(self.path).path)
        try:
            f = open(path, "rb")
        except OSError:
            self.send_error(HTTPStatus.NOT_FOUND, "no index.html to fall back to")
            return None
        size = os.fstat(f.fileno()).st_size
        ctype = "text/html; charset=utf-8" if fallback else self.content_type(path)
        wanted = parse_range(self.headers.get("Range"), size)
        if wanted == "unsatisfiable":
            f.close()
            self.send_response(HTTPStatus.REQUESTED_RANGE_NOT_SATISFIABLE)
            self.send_header("Content-Range", f"bytes */{size}")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return None
        if wanted is None:
            self.send_response(HTTPStatus.OK)
            start, length = 0, size
        else:
            start, end = wanted
            length = end - start + 1
            self.send_response(HTTPStatus.PARTIAL_CONTENT)
            self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(length))
        self.send_header("Accept-Ranges", "bytes")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        f.seek(start)
        self.remaining = length
        return f

    def copyfile(self, source, outputfile):
        left = self.remaining
        while left > 0:
            chunk = source.read(min(left, 64 * 1024))
            if not chunk:
                break
            outputfile.write(chunk)
            left -= len(chunk)

    def log_message(self, format, *args):
        if not self.quiet:
            super().log_message(format, *args)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder")
    parser.add_argument("--port", type=int, default=0, help="0 (the default): a free port")
    parser.add_argument("--quiet", action="store_true", help="no request log on stderr")
    args = parser.parse_args()
    folder = os.path.abspath(args.folder)
    if not os.path.isfile(os.path.join(folder, "index.html")):
        sys.exit(f"spa-server: no index.html in {folder}")
    SpaHandler.quiet = args.quiet

    def handler(*a, **kw):
        return SpaHandler(*a, directory=folder, **kw)

    server = ThreadingHTTPServer(("127.0.0.1", args.port), handler)
    server.daemon_threads = True
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print(f"http://127.0.0.1:{server.server_address[1]}/", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
