"""A small Iceberg REST catalog for lakescope's tests, backed by pyiceberg 0.12's SqlCatalog
(sqlite + a local warehouse folder), plus the pyiceberg side of the tests.

  rest_server.py serve WAREHOUSE [--token T]   prints "PORT <n>", serves until its parent exits
  rest_server.py create WAREHOUSE NS.TABLE     a table (id long, name string), namespace if needed
  rest_server.py append WAREHOUSE NS.TABLE '[[id, name], ...]'
  rest_server.py read WAREHOUSE NS.TABLE       rows of the current snapshot as JSON, sorted,
                                               and the snapshot ids: {"rows": ..., "snapshots": ...}

Endpoints: GET /v1/config (prefix "lake" as an override), GET/POST /v1/lake/namespaces,
GET/POST /v1/lake/namespaces/{ns}/tables, GET/POST /v1/lake/namespaces/{ns}/tables/{table}
(commits are parsed by pyiceberg's CommitTableRequest and applied by SqlCatalog.commit_table).
POST /test/interfere {"namespace", "table", "rows"} makes pyiceberg append those rows just before
the next commit to that table is applied: a concurrent writer between a client's load and commit.
"""

import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer
from urllib.parse import unquote, urlparse

import pyarrow as pa
from pyiceberg.catalog.rest import CreateTableRequest
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.exceptions import (
    CommitFailedException,
    NamespaceAlreadyExistsError,
    NoSuchNamespaceError,
    NoSuchTableError,
    TableAlreadyExistsError,
)
from pyiceberg.schema import Schema
from pyiceberg.table import CommitTableRequest
from pyiceberg.types import LongType, NestedField, StringType

PREFIX = "lake"
ARROW_SCHEMA = pa.schema([pa.field("id", pa.int64()), pa.field("name", pa.string())])


def catalog(warehouse):
    os.makedirs(warehouse, exist_ok=True)
    return SqlCatalog(
        "rest_test",
        uri=f"sqlite:///{warehouse}/catalog.db",
        warehouse=f"file://{warehouse}",
    )


def arrow_rows(rows):
    return pa.Table.from_pylist([{"id": r[0], "name": r[1]} for r in rows], schema=ARROW_SCHEMA)


class Handler(BaseHTTPRequestHandler):
    cat = None
    token = None
    interfere = {}

    def log_message(self, *args):
        pass

    def reply(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def error(self, status, kind, message):
        self.reply(status, {"error": {"message": message, "type": kind, "code": status}})

    def body(self):
        n = int(self.headers.get("content-length") or 0)
        return self.rfile.read(n) if n else b""

    def table_result(self, table):
        return {
            "metadata-location": table.metadata_location,
            "metadata": json.loads(table.metadata.model_dump_json()),
            "config": {},
        }

    def route(self, method):
        if self.token is not None and self.headers.get("authorization") != f"Bearer {self.token}":
            return self.error(401, "NotAuthorizedException", "missing or wrong bearer token")
        path = urlparse(self.path).path.strip("/")
        parts = [unquote(p) for p in path.split("/")]
        try:
            if method == "GET" and parts == ["v1", "config"]:
                return self.reply(200, {"defaults": {}, "overrides": {"prefix": PREFIX}})
            if method == "POST" and parts == ["test", "interfere"]:
                req = json.loads(self.body())
                Handler.interfere[(req["namespace"], req["table"])] = req["rows"]
                return self.reply(200, {})
            if parts[:3] != ["v1", PREFIX, "namespaces"]:
                return self.error(404, "NoSuchEndpointException", f"no endpoint {method} /{path}")
            rest = parts[3:]
            if not rest:
                if method == "GET":
                    return self.reply(200, {"namespaces": [list(n) for n in self.cat.list_namespaces()]})
                req = json.loads(self.body())
                self.cat.create_namespace(tuple(req["namespace"]), req.get("properties") or {})
                return self.reply(200, {"namespace": req["namespace"], "properties": {}})
            ns = tuple(rest[0].split("\x1f"))
            if len(rest) == 2 and rest[1] == "tables":
                if method == "GET":
                    self.cat.load_namespace_properties(ns)
                    ids = [{"namespace": list(i[:-1]), "name": i[-1]} for i in self.cat.list_tables(ns)]
                    return self.reply(200, {"identifiers": ids})
                req = CreateTableRequest.model_validate_json(self.body())
                table = self.cat.create_table(
                    ns + (req.name,),
                    schema=req.table_schema,
                    location=req.location,
                    partition_spec=req.partition_spec,
                    properties=req.properties,
                )
                return self.reply(200, self.table_result(table))
            if len(rest) == 3 and rest[1] == "tables":
                ident = ns + (rest[2],)
                if method == "GET":
                    return self.reply(200, self.table_result(self.cat.load_table(ident)))
                req = CommitTableRequest.model_validate_json(self.body())
                rows = Handler.interfere.pop((".".join(ns), rest[2]), None)
                if rows is not None:
                    self.cat.load_table(ident).append(arrow_rows(rows))
                table = self.cat.load_table(ident)
                resp = self.cat.commit_table(table, tuple(req.requirements), tuple(req.updates))
                return self.reply(
                    200,
                    {
                        "metadata-location": resp.metadata_location,
                        "metadata": json.loads(resp.metadata.model_dump_json()),
                    },
                )
            return self.error(404, "NoSuchEndpointException", f"no endpoint {method} /{path}")
        except (NoSuchTableError, NoSuchNamespaceError) as e:
            return self.error(404, type(e).__name__, str(e))
        except (TableAlreadyExistsError, NamespaceAlreadyExistsError, CommitFailedException) as e:
            return self.error(409, type(e).__name__, str(e))
        except ValueError as e:  # pydantic's ValidationError among them: a malformed request
            return self.error(400, type(e).__name__, str(e))
        except Exception as e:  # noqa: BLE001 - reported to the client as a server error
            return self.error(500, type(e).__name__, str(e))

    def do_GET(self):
        self.route("GET")

    def do_POST(self):
        self.route("POST")


def watch_parent():
    parent = os.getppid()
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)


def main():
    mode, warehouse = sys.argv[1], sys.argv[2]
    cat = catalog(warehouse)
    if mode == "serve":
        Handler.cat = cat
        if "--token" in sys.argv:
            Handler.token = sys.argv[sys.argv.index("--token") + 1]
        server = HTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=watch_parent, daemon=True).start()
        print(f"PORT {server.server_address[1]}", flush=True)
        server.serve_forever()
    name = tuple(sys.argv[3].split("."))
    if mode == "create":
        try:
            cat.create_namespace(name[:-1])
        except NamespaceAlreadyExistsError:
            pass
        schema = Schema(
            NestedField(1, "id", LongType(), required=False),
            NestedField(2, "name", StringType(), required=False),
        )
        cat.create_table(name, schema=schema)
    elif mode == "append":
        cat.load_table(name).append(arrow_rows(json.loads(sys.argv[4])))
    elif mode == "read":
        table = cat.load_table(name)
        rows = sorted([r["id"], r["name"]] for r in table.scan().to_arrow().to_pylist())
        snapshots = [s.snapshot_id for s in table.snapshots()]
        print(json.dumps({"rows": rows, "snapshots": snapshots}))
    else:
        sys.exit(f"unknown mode {mode}")


if __name__ == "__main__":
    main()
