//! Flink SQL (`lakescope sql`) over REST catalogs, against real servers: Apache Paimon's mock
//! REST catalog server with pypaimon 2.1, and lakana-server 0.20 (Iceberg REST) with pyiceberg
//! 0.12 (../shared/catalogs). `CREATE CATALOG … 'metastore' = 'rest'` / `'catalog-type' =
//! 'rest'` connects; SHOW, SELECT (time travel included, and a join with a filesystem catalog's
//! table) read what the writers wrote exactly as they read it; INSERT, UPDATE and DELETE commit
//! through the catalog (Paimon's commit endpoint, Iceberg's updateTable) and the writers read
//! the rows back exactly; CREATE DATABASE / TABLE, DROP TABLE and `CALL sys.create_tag` go
//! through the service, and the tag the service keeps is read by name (`scan.tag-name`, `$tags`);
//! ALTER TABLE SET / RESET / ADD / RENAME / DROP / MODIFY goes to its alterTable endpoint and
//! pypaimon reads the schema and rows back. A wrong token is the endpoint's 401, an unknown table Flink's "not
//! found", a dead service names its config endpoint; the token is never printed.

mod common;

use common::{free_port, lakescope, python_with};
use lakescope_test_support::catalogs::{
    paimon_rest_warehouse, pyiceberg_rest, pypaimon_rest, start_catalog_server,
    PAIMON_REST_TOKEN as TOKEN,
};
use lakescope_test_support::oracles::{normalize, oracles, sections};
use serde_json::{json, Value};

/// `CREATE CATALOG r` over the Paimon REST server at `url` with `token`, made current.
fn paimon_catalog(url: &str, token: &str) -> String {
    format!(
        "CREATE CATALOG r WITH ('type' = 'paimon', 'metastore' = 'rest', 'uri' = '{url}', 'warehouse' = 'wh', 'token.provider' = 'bear', 'token' = '{token}'); USE CATALOG r;"
    )
}

/// Runs a script with `lakescope sql --format jsonl`: (success, the rows and messages printed,
/// stderr). The token must never be printed.
fn sql(script: &str, token: &str) -> (bool, Vec<String>, String) {
    let (ok, out, err) = lakescope(&["sql", "--format", "jsonl", "-e", script]);
    assert!(
        !out.contains(token) && !err.contains(token),
        "the catalog token was printed:\n{out}\n{err}"
    );
    (ok, out.lines().map(String::from).collect(), err)
}

/// The JSON rows among printed lines (not the `[INFO]` messages), canonical and sorted.
fn rows(lines: &[String]) -> Vec<String> {
    normalize(lines.iter().filter(|l| l.starts_with('{')).cloned())
}

/// The snapshot id in `[INFO] N row(s) written to T: snapshot S`.
fn snapshot_of(lines: &[String], table: &str) -> i64 {
    let prefix = format!(" written to {table}: snapshot ");
    lines
        .iter()
        .find_map(|l| l.split_once(&prefix)?.1.parse().ok())
        .unwrap_or_else(|| panic!("no snapshot of {table} in {lines:?}"))
}

fn parse(lines: &[String]) -> Vec<Value> {
    lines
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn canonical(values: &[Value]) -> Vec<String> {
    normalize(values.iter().map(Value::to_string))
}

#[test]
fn paimon_rest_catalog_reads_writes_and_creates_through_sql() {
    let Some(o) = oracles() else { return };
    let (dir, wh) = paimon_rest_warehouse();
    let (_server, url, _) = start_catalog_server("paimon-rest-server.sh", &wh);
    pypaimon_rest(&o.python, &url, &["write"]);
    let catalog = paimon_catalog(&url, TOKEN);
    let read = |table: &str, ids: &[i64]| {
        let ids: Vec<String> = ids.iter().map(i64::to_string).collect();
        let mut args = vec!["read", table];
        args.extend(ids.iter().map(String::as_str));
        sections::<i64>(&pypaimon_rest(&o.python, &url, &args))
    };

    // SHOW, and SELECT at a snapshot, at a time and at the latest, as pypaimon reads them
    let (ok, out, err) = sql(
        &format!("{catalog} SHOW DATABASES; SHOW TABLES FROM d;"),
        TOKEN,
    );
    assert!(ok, "{err}");
    assert_eq!(
        rows(&out),
        vec![
            r#"{"database name":"d"}"#,
            r#"{"table name":"ap"}"#,
            r#"{"table name":"pk"}"#
        ]
    );
    let pk = read("d.pk", &[2, 3]);
    for (select, want) in [
        (
            "SELECT * FROM d.pk /*+ OPTIONS('scan.snapshot-id' = '2') */",
            &pk[&2],
        ),
        (
            "SELECT * FROM r.d.pk FOR SYSTEM_TIME AS OF TIMESTAMP '2100-01-01 00:00:00'",
            &pk[&3],
        ),
    ] {
        let (ok, out, err) = sql(&format!("{catalog} {select}"), TOKEN);
        assert!(ok, "{select}: {err}");
        assert_eq!(&rows(&out), want.as_ref().unwrap(), "{select}");
    }

    // a join of the REST catalog's table with a filesystem catalog's
    let fs = dir.path().join("fs");
    let (ok, out, err) = sql(
        &format!(
            "{catalog} CREATE CATALOG f WITH ('type' = 'paimon', 'warehouse' = '{}'); CREATE DATABASE f.x;
             CREATE TABLE f.x.names (n INT, label STRING); INSERT INTO f.x.names VALUES (1, 'one'), (4, 'four'), (9, 'nine');
             SELECT a.n, a.s, b.label FROM d.ap AS a JOIN f.x.names AS b ON a.n = b.n",
            fs.display()
        ),
        TOKEN,
    );
    assert!(ok, "{err}");
    assert_eq!(
        rows(&out),
        normalize([
            r#"{"n":1,"s":"x","label":"one"}"#.to_string(),
            r#"{"n":4,"s":"w","label":"four"}"#.to_string()
        ])
    );

    // INSERT, UPDATE and DELETE commit through the catalog; pypaimon reads exactly the result
    let ap_before = read("d.ap", &[2])[&2].clone().unwrap();
    let (ok, out, err) = sql(
        &format!(
            "{catalog} INSERT INTO d.ap VALUES (10, 'sql'); UPDATE d.pk SET name = 'upd' WHERE id = 1 AND dt = '2024-02';
             DELETE FROM d.pk WHERE id = 2;"
        ),
        TOKEN,
    );
    assert!(ok, "{err}");
    let ap = snapshot_of(&out, "r.d.ap");
    assert_eq!(ap, 3);
    assert_eq!(
        std::fs::read_to_string(wh.join("d/ap/snapshot/LATEST"))
            .unwrap()
            .trim(),
        "3",
        "the server wrote the snapshot and LATEST"
    );
    let mut want = ap_before;
    want.push(r#"{"n":10,"s":"sql"}"#.into());
    assert_eq!(read("d.ap", &[3])[&3].as_ref().unwrap(), &normalize(want));
    let mut want = parse(pk[&3].as_ref().unwrap());
    want.retain(|r| r["id"] != 2);
    let mut updated = 0;
    for r in &mut want {
        if r["id"] == 1 && r["dt"] == "2024-02" {
            r["name"] = json!("upd");
            updated += 1;
        }
    }
    assert_eq!(updated, 1, "the update matches one row");
    assert_eq!(read("d.pk", &[5])[&5].as_ref().unwrap(), &canonical(&want));

    // CREATE DATABASE / TABLE through the service, writes, a tag, DROP TABLE
    let (ok, out, err) = sql(
        &format!(
            "{catalog} CREATE DATABASE s; USE s;
             CREATE TABLE t (id BIGINT, v STRING, dt STRING, PRIMARY KEY (id, dt) NOT ENFORCED) PARTITIONED BY (dt) WITH ('bucket' = '2');
             INSERT INTO t VALUES (1, 'a', 'x'), (2, 'b', 'y'), (3, 'c', 'x');
             CALL sys.create_tag('s.t', 'first');
             UPDATE t SET v = 'B' WHERE id = 2; DELETE FROM t WHERE id = 3;
             CREATE TABLE gone (a INT); DROP TABLE gone; SHOW TABLES;"
        ),
        TOKEN,
    );
    assert!(ok, "{err}");
    assert!(
        out.iter()
            .any(|l| l == "[INFO] tag 'first' of r.s.t at snapshot 1, through REST catalog r"),
        "{out:?}"
    );
    assert_eq!(rows(&out), vec![r#"{"table name":"t"}"#]);
    let t = read("s.t", &[1, 3]);
    assert_eq!(
        t[&1].as_ref().unwrap(),
        &canonical(&[
            json!({"id": 1, "v": "a", "dt": "x"}),
            json!({"id": 2, "v": "b", "dt": "y"}),
            json!({"id": 3, "v": "c", "dt": "x"}),
        ])
    );
    assert_eq!(
        t[&3].as_ref().unwrap(),
        &canonical(&[
            json!({"id": 1, "v": "a", "dt": "x"}),
            json!({"id": 2, "v": "B", "dt": "y"}),
        ])
    );
    assert_eq!(
        pypaimon_rest(&o.python, &url, &["tag", "s.t", "first"]).trim(),
        "1"
    );
    // the tag the catalog keeps (not a tag/ file) is read by name, and listed in $tags
    assert!(!wh.join("s/t/tag").exists(), "the server keeps its tags");
    let (ok, out, err) = sql(
        &format!(
            "{catalog} SELECT * FROM s.t /*+ OPTIONS('scan.tag-name' = 'first') */;
             SELECT tag_name, snapshot_id, record_count FROM s.`t$tags`;"
        ),
        TOKEN,
    );
    assert!(ok, "{err}");
    let mut want = t[&1].clone().unwrap();
    want.push(r#"{"tag_name":"first","snapshot_id":1,"record_count":3}"#.into());
    assert_eq!(rows(&out), normalize(want));
    // CTAS through the service, read back by pypaimon
    let (ok, out, err) = sql(
        &format!("{catalog} CREATE TABLE s.copy AS SELECT id, v FROM s.t WHERE dt = 'x'"),
        TOKEN,
    );
    assert!(ok, "{err}");
    let id = snapshot_of(&out, "r.s.copy");
    assert_eq!(
        read("s.copy", &[id])[&id].as_ref().unwrap(),
        &canonical(&[json!({"id": 1, "v": "a"})])
    );

    // what does not go through the service yet is refused, and nothing changes
    for (statement, refusal) in [
        (
            "ALTER TABLE s.t RENAME TO s.u",
            "ALTER TABLE r.s.t RENAME TO through REST catalog r is not supported yet (nothing was changed)",
        ),
        (
            "CALL sys.expire_snapshots('s.t')",
            "CALL sys.expire_snapshots on r.s.t through REST catalog r is not supported yet",
        ),
        ("CALL sys.create_tag('s.t', 'first')", "answered 409"),
    ] {
        let (ok, _, err) = sql(&format!("{catalog} {statement}"), TOKEN);
        assert!(!ok && err.contains(refusal), "{statement}: {err}");
    }
    assert!(!wh.join("s/t/schema/schema-1").exists(), "no new schema");
    assert_eq!(
        std::fs::read_to_string(wh.join("s/t/snapshot/LATEST"))
            .unwrap()
            .trim(),
        "3"
    );

    // delete_tag through the service: a missing tag is passed over, as Paimon's deleteTags does;
    // the snapshot stays and pypaimon no longer finds the tag
    let (ok, out, err) = sql(
        &format!(
            "{catalog} CALL sys.delete_tag('s.t', 'first,never');
             SELECT tag_name FROM s.`t$tags`; SELECT count(*) AS n FROM s.t /*+ OPTIONS('scan.snapshot-id' = '1') */;"
        ),
        TOKEN,
    );
    assert!(ok, "{err}");
    assert!(
        out.iter()
            .any(|l| l == "[INFO] deleted tags of r.s.t: [first], through REST catalog r"),
        "{out:?}"
    );
    assert_eq!(rows(&out), vec![r#"{"n":3}"#]);
    assert_eq!(
        pypaimon_rest(&o.python, &url, &["tag", "s.t", "first"]).trim(),
        "none"
    );
}

#[test]
fn paimon_rest_catalog_alters_tables_through_the_service() {
    let Some(o) = oracles() else { return };
    let (_dir, wh) = paimon_rest_warehouse();
    let (_server, url, _) = start_catalog_server("paimon-rest-server.sh", &wh);
    let catalog = paimon_catalog(&url, TOKEN);
    let (ok, out, err) = sql(
        &format!(
            "{catalog} CREATE DATABASE s; USE s;
             CREATE TABLE t (id BIGINT, v STRING, w INT, PRIMARY KEY (id) NOT ENFORCED)
               WITH ('bucket' = '1', 'snapshot.num-retained.min' = '3');
             INSERT INTO t VALUES (1, 'a', 10), (2, 'b', 20);
             ALTER TABLE t SET ('snapshot.num-retained.max' = '7', 'comment' = 'altered');
             ALTER TABLE t RESET ('snapshot.num-retained.min');
             ALTER TABLE t ADD (x FLOAT COMMENT 'new');
             ALTER TABLE t ADD y STRING FIRST;
             ALTER TABLE t RENAME v TO label;
             ALTER TABLE t DROP w;
             ALTER TABLE t MODIFY x DOUBLE COMMENT 'new';"
        ),
        TOKEN,
    );
    assert!(ok, "{err}");
    assert!(
        out.iter()
            .any(|l| l == "[INFO] r.s.t: schema 7 committed through REST catalog r"),
        "{out:?}"
    );
    // pypaimon loads the schema the service wrote
    let schema: Value =
        serde_json::from_str(&pypaimon_rest(&o.python, &url, &["schema", "s.t"])).unwrap();
    assert_eq!(schema["id"], 7);
    assert_eq!(
        schema["fields"],
        json!([
            [4, "y", "STRING"],
            [0, "id", "BIGINT NOT NULL"],
            [1, "label", "STRING"],
            [3, "x", "DOUBLE"]
        ])
    );
    assert_eq!(schema["comment"], "altered");
    assert_eq!(schema["options"]["snapshot.num-retained.max"], "7");
    assert!(schema["options"].get("snapshot.num-retained.min").is_none());

    // rows written before and after read back alike by pypaimon and lakescope
    let (ok, out, err) = sql(
        &format!("{catalog} INSERT INTO s.t VALUES ('why', 3, 'c', 1.5)"),
        TOKEN,
    );
    assert!(ok, "{err}");
    let id = snapshot_of(&out, "r.s.t");
    let want = canonical(&[
        json!({"y": null, "id": 1, "label": "a", "x": null}),
        json!({"y": null, "id": 2, "label": "b", "x": null}),
        json!({"y": "why", "id": 3, "label": "c", "x": 1.5}),
    ]);
    let read = sections::<i64>(&pypaimon_rest(
        &o.python,
        &url,
        &["read", "s.t", &id.to_string()],
    ));
    assert_eq!(read[&id].as_ref().unwrap(), &want);
    let (ok, out, err) = sql(&format!("{catalog} SELECT * FROM s.t"), TOKEN);
    assert!(ok, "{err}");
    assert_eq!(rows(&out), want);

    // what the alterTable changes cannot say is refused by name, and nothing changes
    for (statement, refusal) in [
        (
            "ALTER TABLE s.t RENAME TO s.u",
            "ALTER TABLE r.s.t RENAME TO through REST catalog r is not supported yet (nothing was changed)",
        ),
        (
            "ALTER TABLE s.t MODIFY label STRING FIRST",
            "moving existing columns through a Paimon REST catalog's alterTable (nothing was changed)",
        ),
    ] {
        let (ok, _, err) = sql(&format!("{catalog} {statement}"), TOKEN);
        assert!(!ok && err.contains(refusal), "{statement}: {err}");
    }
    assert!(!wh.join("s/t/schema/schema-8").exists(), "no new schema");
}

#[test]
fn paimon_rest_catalog_bad_input_is_refused_by_name() {
    let Some(o) = oracles() else { return };
    let (_dir, wh) = paimon_rest_warehouse();
    let (server, url, _) = start_catalog_server("paimon-rest-server.sh", &wh);
    pypaimon_rest(&o.python, &url, &["write"]);

    let wrong = "not-the-token-123";
    let (ok, _, err) = sql(
        &format!("{} SHOW TABLES FROM d", paimon_catalog(&url, wrong)),
        wrong,
    );
    assert!(!ok);
    assert!(
        err.contains("statement 1")
            && err.contains(&format!("GET {url}/v1/config?warehouse=wh"))
            && err.contains("401"),
        "{err}"
    );

    let (ok, _, err) = sql(
        &format!("{} SELECT * FROM d.nope", paimon_catalog(&url, TOKEN)),
        TOKEN,
    );
    assert!(
        !ok && err.contains("statement 3") && err.contains("Object 'nope' not found within 'r.d'"),
        "{err}"
    );

    let (ok, _, err) = sql(
        &format!("CREATE CATALOG r WITH ('type' = 'paimon', 'metastore' = 'rest', 'uri' = '{url}', 'warehouse' = 'wh', 'token.provider' = 'dlf', 'token' = '{TOKEN}')"),
        TOKEN,
    );
    assert!(
        !ok && err.contains("'token.provider' = 'dlf' is not supported"),
        "{err}"
    );

    drop(server);
    let dead = format!("http://127.0.0.1:{}", free_port());
    let (ok, _, err) = sql(&paimon_catalog(&dead, TOKEN), TOKEN);
    assert!(
        !ok && err.contains(&format!("GET {dead}/v1/config"))
            && err.contains("nothing was created"),
        "{err}"
    );
}

#[test]
fn iceberg_rest_catalog_reads_writes_and_creates_through_sql() {
    let Some(py) = python_with("pyiceberg", "sql_rest") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (_server, url, ready) = start_catalog_server("iceberg-rest-server-lakana.sh", dir.path());
    let token = ready["token"].as_str().unwrap().to_string();
    pyiceberg_rest(&py, &url, &token, &["write", "gold"]);
    let catalog = format!(
        "CREATE CATALOG i WITH ('type' = 'iceberg', 'catalog-type' = 'rest', 'uri' = '{url}', 'prefix' = 'dev', 'token' = '{token}'); USE CATALOG i;"
    );
    // pyiceberg's snapshots of a table: (id, rows), oldest first
    let snapshots = |table: &str| {
        let printed = pyiceberg_rest(&py, &url, &token, &["read", table]);
        let mut rows = sections::<i64>(&printed);
        printed
            .lines()
            .filter_map(|l| l.strip_prefix("== ")?.trim().parse::<i64>().ok())
            .map(|id| (id, rows.remove(&id).unwrap().unwrap()))
            .collect::<Vec<_>>()
    };

    let (ok, out, err) = sql(&format!("{catalog} SHOW TABLES FROM gold"), &token);
    assert!(ok, "{err}");
    assert_eq!(
        rows(&out),
        vec![r#"{"table name":"events"}"#, r#"{"table name":"plain"}"#]
    );
    let events = snapshots("gold.events");
    let (first, last) = (&events[0], events.last().unwrap());
    for (select, want) in [
        ("SELECT * FROM gold.events".to_string(), &last.1),
        (
            format!(
                "SELECT * FROM gold.events /*+ OPTIONS('snapshot-id' = '{}') */",
                first.0
            ),
            &first.1,
        ),
    ] {
        let (ok, out, err) = sql(&format!("{catalog} {select}"), &token);
        assert!(ok, "{select}: {err}");
        assert_eq!(&rows(&out), want, "{select}");
    }

    // INSERT, DELETE and UPDATE commit through updateTable; pyiceberg reads the result
    let before = snapshots("gold.plain");
    let (ok, _, err) = sql(
        &format!(
            "{catalog} INSERT INTO gold.plain VALUES (50, 'sql', 1.25, 0.5, TRUE, TIMESTAMP '2024-06-01 10:00:00', '2024-06-01');
             DELETE FROM gold.plain WHERE id = 1; UPDATE gold.plain SET name = 'u' WHERE id = 2;"
        ),
        &token,
    );
    assert!(ok, "{err}");
    let after = snapshots("gold.plain");
    assert_eq!(after.len(), before.len() + 3, "one snapshot per statement");
    let mut want = parse(&before.last().unwrap().1);
    want.retain(|r| r["id"] != 1);
    for r in &mut want {
        if r["id"] == 2 {
            r["name"] = json!("u");
        }
    }
    want.push(
        json!({"id": 50, "name": "sql", "amount": "1.25", "score": 0.5, "ok": true,
                     "at": "2024-06-01T10:00:00.000000", "dt": "2024-06-01"}),
    );
    assert_eq!(after.last().unwrap().1, canonical(&want));

    // CREATE TABLE through the service (lakana keeps tables under bronze/silver/gold), written
    // and read back by pyiceberg; DROP TABLE
    let (ok, out, err) = sql(
        &format!(
            "{catalog} CREATE TABLE silver.made (id BIGINT, name STRING, dt STRING) PARTITIONED BY (dt);
             INSERT INTO silver.made VALUES (1, 'a', 'x'), (2, NULL, 'y');
             CREATE TABLE silver.gone (a INT); DROP TABLE silver.gone; SHOW TABLES FROM silver;"
        ),
        &token,
    );
    assert!(ok, "{err}");
    assert_eq!(rows(&out), vec![r#"{"table name":"made"}"#]);
    let made = snapshots("silver.made");
    assert_eq!(
        made.iter().map(|(_, r)| r.clone()).collect::<Vec<_>>(),
        vec![canonical(&[
            json!({"id": 1, "name": "a", "dt": "x"}),
            json!({"id": 2, "name": null, "dt": "y"}),
        ])]
    );

    // a wrong token is the endpoint's 401 (lakana answers /v1/config without one); an
    // unknown table is Flink's "not found"
    let wrong = "lakana_pat_wrong";
    let (ok, _, err) = sql(
        &format!("{} SHOW DATABASES", catalog.replace(&token, wrong)),
        wrong,
    );
    assert!(
        !ok && err.contains("statement 3")
            && err.contains(&format!("GET {url}/v1/dev/namespaces"))
            && err.contains("401"),
        "{err}"
    );
    let (ok, _, err) = sql(&format!("{catalog} SELECT * FROM gold.nope"), &token);
    assert!(
        !ok && err.contains("Object 'nope' not found within 'i.gold'"),
        "{err}"
    );
}
