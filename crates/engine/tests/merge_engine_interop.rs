//! Interop of lakescope's writes to primary-key tables with the partial-update (plain and with
//! sequence groups) and aggregation merge engines: several lakescope commits (inserts, partial
//! upserts, keys repeated within a commit, retractions where the engine takes them) read
//! identically at every snapshot in lakescope, Java Paimon 0.9 and pypaimon 2.1 (where pypaimon
//! implements the engine's options; otherwise its exact refusal is asserted); a commit of Java's
//! own writer on top of a lakescope-written table reads the same in lakescope and Java. Also the
//! writes lakescope refuses (retractions an engine rejects, conflicting options). Compaction
//! (`CALL sys.compact`, in a SQL session) of deduplicate and aggregation tables and first-row
//! tables (written as Java's writer does: APPEND, then COMPACT) through several commits and
//! ALTERs read identically at every snapshot, also after Java commits on top.
//! The oracles are subprocesses set up by `scripts/oracles.sh` (`MergeEngineJava` is compiled
//! here); without them the oracle test fails (set `LAKESCOPE_SKIP_ORACLES=1` to skip it).

use arrow_array::{
    ArrayRef, BooleanArray, Decimal128Array, Int32Array, Int64Array, Int8Array, RecordBatch,
    StringArray,
};
use arrow_schema::{Field, Schema};
use lakescope_engine::write::Definition;
use lakescope_engine::{Catalog, TableRef, Version};
use lakescope_paimon::spec::types::MAX_LENGTH;
use lakescope_paimon::spec::{DataType, TypeKind};
use lakescope_paimon::write::FixedEnv;
use lakescope_storage::LocalStore;
use lakescope_test_support::engine::{canonical_rows, local_session, sql};
use lakescope_test_support::interop::{agree_at_snapshots, Pypaimon};
use lakescope_test_support::oracles::{read_pypaimon, run, Oracles};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

/// The oracles, with `MergeEngineJava` compiled next to `ReadJava`.
fn oracles() -> Option<Oracles> {
    Some(
        lakescope_test_support::oracles::oracles()?.with_java(
            &Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/merge_engine_oracle/MergeEngineJava.java"),
            &Path::new(env!("CARGO_TARGET_TMPDIR")).join("merge-engine-classes"),
        ),
    )
}

fn temp_warehouse(name: &str) -> PathBuf {
    lakescope_test_support::temp_dir("lakescope-mergeeng", name)
}

/// One commit of Java 0.9's writer; returns the latest snapshot id after it.
fn java_write(o: &Oracles, warehouse: &Path, table: &TableRef, rows: &[&str]) -> i64 {
    let out = run(
        o.java("MergeEngineJava")
            .arg("write")
            .arg(warehouse.join(table.path()))
            .args(rows),
        "Java 0.9 write",
    );
    out.lines()
        .find_map(|l| l.strip_prefix("latest "))
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or_else(|| panic!("no snapshot id from Java: {out}"))
}

async fn ours(catalog: &Catalog, table: &TableRef, id: i64) -> Vec<String> {
    canonical_rows(catalog, table, Version::SnapshotId(id))
        .await
        .unwrap()
}

#[derive(Clone, Copy)]
enum Ty {
    Int,
    Big,
    Str,
    Dec(u8, i8),
    Bool,
}

fn data_type(t: Ty) -> DataType {
    DataType::nullable(match t {
        Ty::Int => TypeKind::Int,
        Ty::Big => TypeKind::BigInt,
        Ty::Str => TypeKind::VarChar(MAX_LENGTH),
        Ty::Dec(p, s) => TypeKind::Decimal {
            precision: p,
            scale: s as u8,
        },
        Ty::Bool => TypeKind::Boolean,
    })
}

fn definition(
    cols: &[(&str, Ty)],
    pk: &[&str],
    part: &[&str],
    opts: &[(&str, &str)],
) -> Definition {
    Definition {
        columns: cols
            .iter()
            .map(|(n, t)| (n.to_string(), data_type(*t), None))
            .collect(),
        partition_keys: part.iter().map(|s| s.to_string()).collect(),
        primary_keys: pk.iter().map(|s| s.to_string()).collect(),
        options: opts
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .chain([("bucket".to_string(), "2".to_string())])
            .collect(),
        ..Default::default()
    }
}

/// Rows in the oracle's format ("<kind>;<v1>;..."; "null" is NULL) as one batch with
/// `_VALUE_KIND`.
fn rows(cols: &[(&str, Ty)], data: &[&str]) -> RecordBatch {
    let cells: Vec<Vec<&str>> = data.iter().map(|r| r.split(';').collect()).collect();
    for c in &cells {
        assert_eq!(c.len(), cols.len() + 1, "{c:?}");
    }
    let val = |r: &Vec<&str>, i: usize| -> Option<String> {
        (r[i + 1] != "null").then(|| r[i + 1].to_string())
    };
    let mut fields = Vec::new();
    let mut arrays: Vec<ArrayRef> = Vec::new();
    for (i, (name, t)) in cols.iter().enumerate() {
        let vals: Vec<Option<String>> = cells.iter().map(|r| val(r, i)).collect();
        let a: ArrayRef = match t {
            Ty::Int => Arc::new(Int32Array::from(
                vals.iter()
                    .map(|v| v.as_ref().map(|s| s.parse().unwrap()))
                    .collect::<Vec<_>>(),
            )),
            Ty::Big => Arc::new(Int64Array::from(
                vals.iter()
                    .map(|v| v.as_ref().map(|s| s.parse().unwrap()))
                    .collect::<Vec<_>>(),
            )),
            Ty::Str => Arc::new(StringArray::from(vals.clone())),
            Ty::Bool => Arc::new(BooleanArray::from(
                vals.iter()
                    .map(|v| v.as_ref().map(|s| s == "true"))
                    .collect::<Vec<_>>(),
            )),
            Ty::Dec(p, s) => Arc::new(
                Decimal128Array::from(
                    vals.iter()
                        .map(|v| {
                            v.as_ref().map(|v| {
                                let (int, frac) = v.split_once('.').unwrap_or((v, ""));
                                let frac = format!("{frac:0<width$}", width = *s as usize);
                                format!("{int}{frac}").parse::<i128>().unwrap()
                            })
                        })
                        .collect::<Vec<_>>(),
                )
                .with_precision_and_scale(*p, *s)
                .unwrap(),
            ),
        };
        fields.push(Field::new(*name, a.data_type().clone(), true));
        arrays.push(a);
    }
    let kinds: Vec<i8> = cells
        .iter()
        .map(|r| match r[0] {
            "+I" => 0,
            "-U" => 1,
            "+U" => 2,
            "-D" => 3,
            k => panic!("row kind {k}"),
        })
        .collect();
    fields.push(Field::new(
        "_VALUE_KIND",
        arrow_schema::DataType::Int8,
        true,
    ));
    arrays.push(Arc::new(Int8Array::from(kinds)));
    RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays).unwrap()
}

/// The row of `id` (a line containing `"id":<id>,`) in `lines`.
fn row_of<'a>(lines: &'a [String], key: &str) -> &'a str {
    let found: Vec<&String> = lines.iter().filter(|l| l.contains(key)).collect();
    assert_eq!(found.len(), 1, "{key} in {lines:?}");
    found[0]
}

async fn insert(
    catalog: &Catalog,
    env: &FixedEnv,
    t: &TableRef,
    cols: &[(&str, Ty)],
    data: &[&str],
) {
    catalog
        .insert_with(env, t, &[rows(cols, data)], None)
        .await
        .unwrap();
}

async fn insert_err(
    catalog: &Catalog,
    env: &FixedEnv,
    t: &TableRef,
    cols: &[(&str, Ty)],
    data: &[&str],
) -> String {
    catalog
        .insert_with(env, t, &[rows(cols, data)], None)
        .await
        .expect_err("the write should be refused")
        .to_string()
}

/// Java's writer committing on top of a lakescope-written table: its rows, then what the table
/// must hold at Java's last snapshot.
struct JavaOnTop {
    rows: &'static [&'static str],
    /// (key, row): the one row containing `key`.
    expect: &'static [(&'static str, &'static str)],
    count: Option<usize>,
}

/// One merge-engine table: its shape, lakescope's commits (a snapshot each), what the oracles
/// must say of each snapshot, and the rows the merge must give.
struct Case {
    name: &'static str,
    cols: &'static [(&'static str, Ty)],
    primary_keys: &'static [&'static str],
    partition_keys: &'static [&'static str],
    options: &'static [(&'static str, &'static str)],
    commits: &'static [&'static [&'static str]],
    /// A commit the merge engine refuses, and words its refusal must contain.
    refused: Option<(&'static [&'static str], &'static [&'static str])>,
    /// pypaimon 2.1 on each snapshot of lakescope's commits, in order.
    pypaimon: &'static [Pypaimon],
    /// (snapshot, key, row): the one row containing `key` at that snapshot.
    expect: &'static [(i64, &'static str, &'static str)],
    /// (snapshot, number of rows).
    counts: &'static [(i64, usize)],
    java: Option<JavaOnTop>,
}

const MERGE_ENGINE_CASES: &[Case] = &[
    // Partial-update, partitioned: full rows, then partial rows (a key twice in one commit).
    Case {
        name: "pu",
        cols: &[
            ("dt", Ty::Str),
            ("id", Ty::Int),
            ("a", Ty::Str),
            ("b", Ty::Big),
            ("c", Ty::Dec(10, 2)),
        ],
        primary_keys: &["dt", "id"],
        partition_keys: &["dt"],
        options: &[("merge-engine", "partial-update")],
        commits: &[
            &[
                "+I;x;0;a0;0;0.25",
                "+I;y;1;a1;10;1.25",
                "+I;x;2;a2;20;2.25",
                "+I;y;3;a3;30;3.25",
                "+I;x;4;a4;40;4.25",
                "+I;y;5;a5;50;5.25",
                "+I;x;6;a6;60;6.25",
                "+I;y;7;a7;70;7.25",
            ],
            &[
                "+U;x;0;a0-new;null;null",
                "+U;x;0;null;1000;null",
                "+I;x;2;null;null;2.50",
                "+I;y;9;only-a;null;null",
                "+U;x;0;null;null;0.01",
            ],
            &["+U;y;9;null;90;9.99", "+U;x;4;a4-new;null;null"],
        ],
        refused: Some((&["-D;x;2;null;null;null"], &["partial-update", "-U/-D"])),
        pypaimon: &[Pypaimon::Agrees; 3],
        expect: &[
            (
                3,
                "\"id\":0,",
                r#"{"dt":"x","id":0,"a":"a0-new","b":1000,"c":"0.01"}"#,
            ),
            (
                3,
                "\"id\":9,",
                r#"{"dt":"y","id":9,"a":"only-a","b":90,"c":"9.99"}"#,
            ),
        ],
        counts: &[(3, 9)],
        java: Some(JavaOnTop {
            rows: &["+U;x;2;java;null;null", "+I;y;11;java;1;null"],
            expect: &[(
                "\"id\":2,",
                r#"{"dt":"x","id":2,"a":"java","b":20,"c":"2.50"}"#,
            )],
            count: Some(10),
        }),
    },
    // Partial-update with sequence groups (a summed field in a group), retractions.
    Case {
        name: "sg",
        cols: &[
            ("id", Ty::Int),
            ("a", Ty::Str),
            ("ta", Ty::Big),
            ("b", Ty::Big),
            ("tb", Ty::Big),
        ],
        primary_keys: &["id"],
        partition_keys: &[],
        options: &[
            ("merge-engine", "partial-update"),
            ("fields.ta.sequence-group", "a"),
            ("fields.tb.sequence-group", "b"),
            ("fields.b.aggregate-function", "sum"),
        ],
        commits: &[
            &["+I;1;a1;10;5;10", "+I;2;a2;10;7;10", "+I;3;a3;10;1;10"],
            &[
                "+U;1;stale;5;null;null",
                "+U;1;null;null;3;11",
                "+U;2;a2-new;12;null;null",
                "+U;1;null;null;4;9",
            ],
            &["-U;1;null;null;3;12", "-D;2;x;13;null;null"],
        ],
        refused: None,
        pypaimon: &[Pypaimon::Refuses(&["NotImplementedError", "sequence-group"]); 3],
        // Key 1: the stale `a` is ignored, b = 5 + 3 + 4 - 3; key 2: group a retracted.
        expect: &[
            (3, "\"id\":1,", r#"{"id":1,"a":"a1","ta":10,"b":9,"tb":12}"#),
            (3, "\"id\":2,", r#"{"id":2,"a":null,"ta":13,"b":7,"tb":10}"#),
        ],
        counts: &[],
        java: Some(JavaOnTop {
            rows: &["+U;3;java;20;10;11", "-U;1;null;null;9;13"],
            expect: &[
                ("\"id\":3,", r#"{"id":3,"a":"java","ta":20,"b":11,"tb":11}"#),
                ("\"id\":1,", r#"{"id":1,"a":"a1","ta":10,"b":0,"tb":13}"#),
            ],
            count: None,
        }),
    },
    // Aggregation without retraction support (max): inserts only, keys repeated.
    Case {
        name: "agg",
        cols: &[
            ("id", Ty::Int),
            ("s", Ty::Big),
            ("d", Ty::Dec(10, 2)),
            ("mx", Ty::Int),
            ("l", Ty::Str),
            ("bo", Ty::Bool),
        ],
        primary_keys: &["id"],
        partition_keys: &[],
        options: &[
            ("merge-engine", "aggregation"),
            ("fields.s.aggregate-function", "sum"),
            ("fields.d.aggregate-function", "sum"),
            ("fields.mx.aggregate-function", "max"),
            ("fields.bo.aggregate-function", "bool_or"),
        ],
        commits: &[
            &[
                "+I;1;10;1.10;5;first;false",
                "+I;2;20;2.20;7;two;false",
                "+I;1;1;0.01;9;null;true",
            ],
            &["+I;1;100;null;3;second;null", "+I;3;3;3.00;null;three;null"],
        ],
        refused: Some((&["-U;1;100;null;3;second;null"], &["'max'", "mx"])),
        pypaimon: &[Pypaimon::Agrees; 2],
        expect: &[(
            2,
            "\"id\":1,",
            r#"{"id":1,"s":111,"d":"1.11","mx":9,"l":"second","bo":true}"#,
        )],
        counts: &[],
        java: Some(JavaOnTop {
            rows: &["+I;1;1000;1.00;4;java;false", "+I;4;4;4.00;4;java;true"],
            expect: &[(
                "\"id\":1,",
                r#"{"id":1,"s":1111,"d":"2.11","mx":9,"l":"java","bo":true}"#,
            )],
            count: None,
        }),
    },
    // Aggregation with retractable functions: -U/+U pairs and deletes. pypaimon 2.1's
    // AggregateMergeFunction does not implement retraction at all.
    Case {
        name: "rt",
        cols: &[
            ("id", Ty::Int),
            ("s", Ty::Big),
            ("p", Ty::Dec(10, 2)),
            ("lv", Ty::Str),
        ],
        primary_keys: &["id"],
        partition_keys: &[],
        options: &[
            ("merge-engine", "aggregation"),
            ("fields.s.aggregate-function", "sum"),
            ("fields.p.aggregate-function", "sum"),
            ("fields.lv.aggregate-function", "last_value"),
        ],
        commits: &[
            &["+I;1;10;1.00;a", "+I;2;20;2.00;b", "+I;3;30;3.00;c"],
            &["-U;1;10;1.00;a", "+U;1;15;1.50;a2", "-D;3;30;3.00;c"],
            &["+I;3;1;0.10;c2", "-D;4;4;4.00;d"],
        ],
        refused: None,
        pypaimon: &[
            Pypaimon::Agrees,
            Pypaimon::Refuses(&["NotImplementedError", "does not yet implement retract"]),
            Pypaimon::Refuses(&["NotImplementedError", "does not yet implement retract"]),
        ],
        // A retraction merged with its insert leaves an aggregated +I row (Paimon semantics);
        // a lone -D row of key 4 is dropped.
        expect: &[
            (2, "\"id\":1,", r#"{"id":1,"s":15,"p":"1.50","lv":"a2"}"#),
            (2, "\"id\":3,", r#"{"id":3,"s":0,"p":"0.00","lv":null}"#),
        ],
        counts: &[(3, 3)],
        java: None,
    },
    // The seed's aggregate_table shape: sums with ignore-retract.
    Case {
        name: "seed_agg",
        cols: &[
            ("category", Ty::Str),
            ("item_id", Ty::Big),
            ("total_amount", Ty::Dec(10, 2)),
            ("cnt", Ty::Big),
            ("dt", Ty::Str),
        ],
        primary_keys: &["category", "item_id", "dt"],
        partition_keys: &["dt"],
        options: &[
            ("merge-engine", "aggregation"),
            ("fields.total_amount.aggregate-function", "sum"),
            ("fields.cnt.aggregate-function", "sum"),
            ("fields.total_amount.ignore-retract", "true"),
            ("fields.cnt.ignore-retract", "true"),
        ],
        commits: &[
            &[
                "+I;book;1;10.00;1;d1",
                "+I;book;1;5.50;1;d1",
                "+I;pen;2;1.00;1;d1",
            ],
            &[
                "-U;book;1;10.00;1;d1",
                "+U;book;1;12.00;1;d1",
                "-D;pen;2;1.00;1;d1",
            ],
        ],
        refused: None,
        pypaimon: &[Pypaimon::Refuses(&["NotImplementedError", "ignore-retract"]); 2],
        expect: &[(
            2,
            "\"book\"",
            r#"{"category":"book","item_id":1,"total_amount":"27.50","cnt":3,"dt":"d1"}"#,
        )],
        counts: &[],
        java: Some(JavaOnTop {
            rows: &["+I;book;1;0.50;1;d1"],
            expect: &[(
                "\"book\"",
                r#"{"category":"book","item_id":1,"total_amount":"28.00","cnt":4,"dt":"d1"}"#,
            )],
            count: None,
        }),
    },
];

/// Writes one [`Case`] and checks it against the oracles and its expected rows.
async fn check_case(o: &Oracles, catalog: &Catalog, wh: &Path, env: &FixedEnv, case: &Case) {
    let def = definition(
        case.cols,
        case.primary_keys,
        case.partition_keys,
        case.options,
    );
    let table = catalog
        .create_table_with(env, "m", case.name, &def)
        .await
        .unwrap();
    for commit in case.commits {
        insert(catalog, env, &table, case.cols, commit).await;
    }
    if let Some((rows, words)) = case.refused {
        let err = insert_err(catalog, env, &table, case.cols, rows).await;
        for w in words {
            assert!(err.contains(w), "{}: {err}", case.name);
        }
    }
    assert_eq!(case.pypaimon.len(), case.commits.len(), "{}", case.name);
    let mut ours = BTreeMap::new();
    // Snapshots with the same pypaimon expectation are read in one run of each oracle.
    let mut first = 0;
    while first < case.pypaimon.len() {
        let py = case.pypaimon[first];
        let run = case.pypaimon[first..]
            .iter()
            .take_while(|p| **p == py)
            .count();
        let ids: Vec<i64> = (first as i64 + 1..=(first + run) as i64).collect();
        ours.extend(agree_at_snapshots(o, catalog, wh, &table, &ids, py).await);
        first += run;
    }
    for (id, key, row) in case.expect {
        assert_eq!(row_of(&ours[id], key), *row, "{} snapshot {id}", case.name);
    }
    for (id, count) in case.counts {
        assert_eq!(ours[id].len(), *count, "{} snapshot {id}", case.name);
    }
    // Java's writer on top of our files (pypaimon cannot read Java 0.9's manifests).
    if let Some(java) = &case.java {
        let last = java_write(o, wh, &table, java.rows);
        let ids: Vec<i64> = (case.commits.len() as i64 + 1..=last).collect();
        let r = agree_at_snapshots(o, catalog, wh, &table, &ids, Pypaimon::Skip).await;
        for (key, row) in java.expect {
            assert_eq!(row_of(&r[&last], key), *row, "{} after Java", case.name);
        }
        if let Some(count) = java.count {
            assert_eq!(r[&last].len(), count, "{} after Java", case.name);
        }
    }
}

#[tokio::test]
async fn merge_engine_writes_read_identically_in_java_and_pypaimon() {
    let Some(o) = oracles() else { return };
    let wh = temp_warehouse("oracles");
    let catalog = Catalog::new(Rc::new(LocalStore::new(&wh)));
    let env = FixedEnv::new(1_790_000_000_000, 11);
    for case in MERGE_ENGINE_CASES {
        check_case(&o, &catalog, &wh, &env, case).await;
    }
    let _ = std::fs::remove_dir_all(&wh);
}

/// A table name, its options and words the refusal of a +I row must contain.
type RefusedCase = (
    &'static str,
    &'static [(&'static str, &'static str)],
    &'static [&'static str],
);

#[tokio::test]
async fn refused_merge_engine_writes() {
    let wh = temp_warehouse("refused");
    let catalog = Catalog::new(Rc::new(LocalStore::new(&wh)));
    let env = FixedEnv::new(1_790_000_000_000, 12);
    let cols = [("id", Ty::Int), ("v", Ty::Big)];
    let cases: &[RefusedCase] = &[
        (
            "pu_conflict",
            &[
                ("merge-engine", "partial-update"),
                ("ignore-delete", "true"),
                ("partial-update.remove-record-on-delete", "true"),
            ],
            &["conflicting"],
        ),
        (
            "agg_bad_func",
            &[
                ("merge-engine", "aggregation"),
                ("fields.v.aggregate-function", "no_such_agg"),
            ],
            &["no_such_agg"],
        ),
        (
            "pu_agg_no_group",
            &[
                ("merge-engine", "partial-update"),
                ("fields.v.aggregate-function", "sum"),
            ],
            &["sequence group"],
        ),
    ];
    for (name, opts, parts) in cases {
        let def = definition(&cols, &["id"], &[], opts);
        let t = catalog
            .create_table_with(&env, "r", name, &def)
            .await
            .unwrap();
        let err = insert_err(&catalog, &env, &t, &cols, &["+I;1;1"]).await;
        for p in *parts {
            assert!(err.contains(p), "{name}: {err}");
        }
        assert!(
            wh.join(format!("r.db/{name}/snapshot"))
                .read_dir()
                .map_or(true, |mut d| d.next().is_none()),
            "{name}: nothing committed"
        );
    }

    // Retractions: first-row refuses them, partial-update takes them with
    // remove-record-on-delete, and with ignore-delete they are dropped before writing.
    let def = definition(&cols, &["id"], &[], &[("merge-engine", "first-row")]);
    let t = catalog
        .create_table_with(&env, "r", "first_row_delete", &def)
        .await
        .unwrap();
    let err = insert_err(&catalog, &env, &t, &cols, &["-D;1;1"]).await;
    assert!(
        err.contains("first-row") && err.contains("ignore-delete"),
        "{err}"
    );
    let def = definition(
        &cols,
        &["id"],
        &[],
        &[
            ("merge-engine", "partial-update"),
            ("partial-update.remove-record-on-delete", "true"),
        ],
    );
    let t = catalog
        .create_table_with(&env, "r", "pu_remove", &def)
        .await
        .unwrap();
    insert(&catalog, &env, &t, &cols, &["+I;1;1", "+I;2;2"]).await;
    insert(&catalog, &env, &t, &cols, &["-D;1;null", "-U;2;null"]).await;
    assert_eq!(ours(&catalog, &t, 2).await, [r#"{"id":2,"v":2}"#]);
    let def = definition(
        &cols,
        &["id"],
        &[],
        &[
            ("merge-engine", "partial-update"),
            ("ignore-delete", "true"),
        ],
    );
    let t = catalog
        .create_table_with(&env, "r", "pu_ignore", &def)
        .await
        .unwrap();
    insert(&catalog, &env, &t, &cols, &["+I;1;1", "+I;2;2"]).await;
    insert(&catalog, &env, &t, &cols, &["-D;1;null", "+U;2;20"]).await;
    assert_eq!(
        ours(&catalog, &t, 2).await,
        [r#"{"id":1,"v":1}"#, r#"{"id":2,"v":20}"#]
    );
    let table = lakescope_paimon::table::Table::open(catalog.store().unwrap().clone(), t.path())
        .await
        .unwrap();
    let snap = table.snapshot(2).await.unwrap();
    assert_eq!(
        snap.delta_record_count,
        Some(1),
        "the -D row was not written"
    );
    let _ = std::fs::remove_dir_all(&wh);
}

/// `commitKind` of every snapshot of the table, in id order.
async fn kinds(catalog: &Catalog, table: &TableRef) -> Vec<String> {
    let t = lakescope_paimon::table::Table::open(catalog.store().unwrap().clone(), table.path())
        .await
        .unwrap();
    t.snapshots()
        .await
        .unwrap()
        .iter()
        .map(|s| format!("{:?}", s.commit_kind).to_uppercase())
        .collect()
}

#[tokio::test]
async fn compacted_and_first_row_tables_read_identically_in_java_and_pypaimon() {
    let Some(o) = oracles() else { return };
    let wh = temp_warehouse("compaction");
    let catalog = Catalog::new(Rc::new(LocalStore::new(&wh)));
    let env = FixedEnv::new(1_790_000_000_000, 13);
    let mut session = local_session(1_790_000_100_000, 14);
    session
        .open_warehouse("lake", &wh.display().to_string())
        .await
        .unwrap();

    // Deduplicate, partitioned: updates and deletes, a compaction of one partition, a key
    // deleted before the compaction inserted again, a full compaction.
    let cols = [
        ("dt", Ty::Str),
        ("id", Ty::Int),
        ("v", Ty::Str),
        ("n", Ty::Big),
    ];
    let def = definition(&cols, &["dt", "id"], &["dt"], &[]);
    let dd = catalog
        .create_table_with(&env, "m", "dd", &def)
        .await
        .unwrap();
    let first: Vec<String> = (0..6)
        .flat_map(|i| [format!("+I;x;{i};x{i};{i}"), format!("+I;y;{i};y{i};{i}")])
        .collect();
    let first: Vec<&str> = first.iter().map(String::as_str).collect();
    insert(&catalog, &env, &dd, &cols, &first).await;
    insert(
        &catalog,
        &env,
        &dd,
        &cols,
        &[
            "+U;x;1;x1-new;10",
            "-D;x;2;x2;2",
            "+I;y;7;y7;7",
            "-D;y;3;y3;3",
        ],
    )
    .await;
    let m = sql(
        &mut session,
        "CALL sys.compact(`table` => 'm.dd', partitions => 'dt=x')",
    )
    .await;
    assert!(m.contains("snapshot 3"), "{m}");
    insert(&catalog, &env, &dd, &cols, &["+I;x;2;x2-back;20"]).await;
    let m = sql(&mut session, "CALL sys.compact('m.dd')").await;
    assert!(m.contains("snapshot 5"), "{m}");
    let m = sql(&mut session, "CALL sys.compact('m.dd')").await;
    assert!(m.contains("nothing to compact"), "{m}");
    assert_eq!(
        kinds(&catalog, &dd).await,
        ["APPEND", "APPEND", "COMPACT", "APPEND", "COMPACT"]
    );
    let r = agree_at_snapshots(&o, &catalog, &wh, &dd, &[1, 2, 3, 4, 5], Pypaimon::Agrees).await;
    assert_eq!(r[&5].len(), 12);
    assert_eq!(r[&3], r[&2]);
    assert_eq!(
        row_of(&r[&5], r#""dt":"x","id":2,"#),
        r#"{"dt":"x","id":2,"v":"x2-back","n":20}"#
    );
    // Java's writer on top of the compacted table, then lakescope compacts Java's commit.
    let last = java_write(
        &o,
        &wh,
        &dd,
        &["+U;x;1;java;100", "-D;y;0;y0;0", "+I;y;3;java;3"],
    );
    let m = sql(&mut session, "CALL sys.compact('m.dd')").await;
    assert!(m.contains(&format!("snapshot {}", last + 1)), "{m}");
    let ids: Vec<i64> = (6..=last + 1).collect();
    let r = agree_at_snapshots(&o, &catalog, &wh, &dd, &ids, Pypaimon::Skip).await;
    assert_eq!(r[&last], r[&(last + 1)]);
    assert_eq!(
        row_of(&r[&last], r#""dt":"x","id":1,"#),
        r#"{"dt":"x","id":1,"v":"java","n":100}"#
    );
    assert_eq!(r[&last].len(), 12);

    // Aggregation: sums merged by the compaction, later commits added on top.
    let cols = [("id", Ty::Int), ("s", Ty::Big), ("l", Ty::Str)];
    let def = definition(
        &cols,
        &["id"],
        &[],
        &[
            ("merge-engine", "aggregation"),
            ("fields.s.aggregate-function", "sum"),
        ],
    );
    let agg = catalog
        .create_table_with(&env, "m", "agg_c", &def)
        .await
        .unwrap();
    insert(&catalog, &env, &agg, &cols, &["+I;1;10;a", "+I;2;20;b"]).await;
    insert(&catalog, &env, &agg, &cols, &["+I;1;5;a2", "+I;3;1;c"]).await;
    sql(&mut session, "CALL sys.compact('m.agg_c')").await;
    insert(&catalog, &env, &agg, &cols, &["+I;1;1;a3"]).await;
    let r = agree_at_snapshots(&o, &catalog, &wh, &agg, &[1, 2, 3, 4], Pypaimon::Agrees).await;
    assert_eq!(r[&3], r[&2]);
    assert_eq!(row_of(&r[&4], r#""id":1,"#), r#"{"id":1,"s":16,"l":"a3"}"#);

    // First-row: Java 0.9's writer commits APPEND then COMPACT for each write.
    let cols = [
        ("dt", Ty::Str),
        ("id", Ty::Int),
        ("v", Ty::Str),
        ("n", Ty::Big),
    ];
    let def = definition(
        &cols,
        &["dt", "id"],
        &["dt"],
        &[("merge-engine", "first-row")],
    );
    let fr_java = catalog
        .create_table_with(&env, "m", "fr_java", &def)
        .await
        .unwrap();
    java_write(&o, &wh, &fr_java, &["+I;x;1;a;1", "+I;y;1;b;2"]);
    java_write(&o, &wh, &fr_java, &["+I;x;1;late;3", "+I;x;2;c;4"]);
    let java_kinds = kinds(&catalog, &fr_java).await;

    let fr = catalog
        .create_table_with(&env, "m", "fr", &def)
        .await
        .unwrap();
    // A key twice in one commit: the first row wins.
    insert(
        &catalog,
        &env,
        &fr,
        &cols,
        &["+I;x;1;a;1", "+I;x;2;b;2", "+I;x;1;dup;9", "+I;y;1;c;3"],
    )
    .await;
    insert(&catalog, &env, &fr, &cols, &["+I;x;1;late;5", "+I;x;3;d;4"]).await;
    assert_eq!(
        kinds(&catalog, &fr).await,
        java_kinds,
        "first-row snapshot kinds"
    );
    sql(&mut session, "ALTER TABLE m.fr ADD w BIGINT").await;
    let cols = [
        ("dt", Ty::Str),
        ("id", Ty::Int),
        ("v", Ty::Str),
        ("n", Ty::Big),
        ("w", Ty::Big),
    ];
    insert(
        &catalog,
        &env,
        &fr,
        &cols,
        &["+I;x;4;e;5;40", "+I;x;2;no;0;0", "+I;y;2;f;6;60"],
    )
    .await;
    sql(&mut session, "ALTER TABLE m.fr RENAME v TO v2").await;
    let cols = [
        ("dt", Ty::Str),
        ("id", Ty::Int),
        ("v2", Ty::Str),
        ("n", Ty::Big),
        ("w", Ty::Big),
    ];
    insert(
        &catalog,
        &env,
        &fr,
        &cols,
        &["+I;y;2;no;0;0", "+I;y;3;g;7;70"],
    )
    .await;
    let ids: Vec<i64> = (1..=8).collect();
    let r = agree_at_snapshots(&o, &catalog, &wh, &fr, &ids, Pypaimon::Agrees).await;
    assert_eq!(r[&8].len(), 7);
    assert_eq!(
        row_of(&r[&8], r#""dt":"x","id":1,"#),
        r#"{"dt":"x","id":1,"v2":"a","n":1,"w":null}"#
    );
    assert_eq!(
        row_of(&r[&8], r#""dt":"y","id":2,"#),
        r#"{"dt":"y","id":2,"v2":"f","n":6,"w":60}"#
    );
    // Java's writer on top: existing keys keep their first row.
    let last = java_write(&o, &wh, &fr, &["+I;x;3;java;0;0", "+I;x;9;java;9;90"]);
    let ids: Vec<i64> = (9..=last).collect();
    let r = agree_at_snapshots(&o, &catalog, &wh, &fr, &ids, Pypaimon::Skip).await;
    assert_eq!(r[&last].len(), 8);
    assert_eq!(
        row_of(&r[&last], r#""dt":"x","id":3,"#),
        r#"{"dt":"x","id":3,"v2":"d","n":4,"w":null}"#
    );
    let _ = std::fs::remove_dir_all(&wh);
}

/// `sequence.field` tables written by lakescope: at every snapshot lakescope, Java 0.9 and
/// pypaimon 2.1 read the same rows, and so does a twin the same commits were written to by
/// Java's own writer (the row with the largest sequence field wins within a commit too; nulls
/// first; ties by arrival); a Java commit on top reads the same in lakescope.
#[tokio::test]
async fn sequence_field_writes_read_identically_in_java_and_pypaimon() {
    let Some(o) = oracles() else { return };
    let wh = temp_warehouse("seqfield");
    let catalog = Catalog::new(Rc::new(LocalStore::new(&wh)));
    let env = FixedEnv::new(1_790_000_000_000, 13);
    let cols = [
        ("id", Ty::Int),
        ("v", Ty::Str),
        ("w", Ty::Str),
        ("ts", Ty::Big),
    ];
    let commits: [&[&str]; 3] = [
        &[
            "+I;1;a;x;5",
            "+I;1;b;y;3",
            "+I;2;c;x;1",
            "+I;3;x;x;null",
            "+I;3;y;y;0",
            "+I;4;z;z;7",
            "+I;4;w;w;7",
        ],
        &[
            "+I;1;old;old;4",
            "+U;2;new;null;2",
            "-D;4;z;z;1",
            "-D;3;y;y;9",
            "+I;5;e;e;null",
        ],
        &["+I;5;f;null;null", "+U;1;g;null;5", "+I;6;h;h;-1"],
    ];
    let engines: [(&str, &[(&str, &str)]); 2] = [
        ("seq_dedup", &[("sequence.field", "ts")]),
        (
            "seq_pu",
            &[("sequence.field", "ts"), ("merge-engine", "partial-update")],
        ),
    ];
    for (name, opts) in engines {
        let def = definition(&cols, &["id"], &[], opts);
        let t = catalog
            .create_table_with(&env, "w", name, &def)
            .await
            .unwrap();
        let twin = catalog
            .create_table_with(&env, "w", &format!("{name}_java"), &def)
            .await
            .unwrap();
        let mut ids = Vec::new();
        for rows_of_commit in commits {
            // Partial-update takes no retractions here (pypaimon 2.1 has no ignore-delete).
            let rows_of_commit: Vec<&str> = rows_of_commit
                .iter()
                .copied()
                .filter(|r| name == "seq_dedup" || !r.starts_with('-'))
                .collect();
            let rows_of_commit = rows_of_commit.as_slice();
            insert(&catalog, &env, &t, &cols, rows_of_commit).await;
            let id = java_write(&o, &wh, &twin, rows_of_commit);
            ids.push(id);
            let all = agree_at_snapshots(&o, &catalog, &wh, &t, &[id], Pypaimon::Agrees).await;
            assert_eq!(
                ours(&catalog, &twin, id).await,
                all[&id],
                "{name} snapshot {id}: Java's own write of the same rows reads differently"
            );
        }
        let last = &ours(&catalog, &t, ids[2]).await;
        if name == "seq_dedup" {
            assert!(row_of(last, "\"id\":1,").contains("\"g\""), "{last:?}");
            assert!(row_of(last, "\"id\":2,").contains("\"new\""), "{last:?}");
            assert!(row_of(last, "\"id\":4,").contains("\"w\""), "{last:?}");
            assert!(row_of(last, "\"id\":5,").contains("\"f\""), "{last:?}");
            assert!(!last.iter().any(|l| l.contains("\"id\":3,")), "{last:?}");
        } else {
            // Fields merge in sequence-field order: w of id 1 is y (ts 3) then x (ts 5).
            assert!(
                row_of(last, "\"id\":1,").contains("\"w\":\"x\""),
                "{last:?}"
            );
        }
        // Java's writer on top: ts 6 wins over 5, ts 0 loses to 2.
        let id = java_write(&o, &wh, &t, &["+I;1;j;j;6", "+I;2;k;k;0"]);
        let all = agree_at_snapshots(&o, &catalog, &wh, &t, &[id], Pypaimon::Skip).await;
        assert!(row_of(&all[&id], "\"id\":1,").contains("\"j\""));
        assert!(!row_of(&all[&id], "\"id\":2,").contains("\"k\""));
    }

    // Descending sort order (Paimon 1.x; Java 0.9 does not know the option): pypaimon 2.1.
    let def = definition(
        &cols,
        &["id"],
        &[],
        &[
            ("sequence.field", "ts"),
            ("sequence.field.sort-order", "descending"),
        ],
    );
    let t = catalog
        .create_table_with(&env, "w", "seq_desc", &def)
        .await
        .unwrap();
    for (n, rows_of_commit) in commits.iter().enumerate() {
        insert(&catalog, &env, &t, &cols, rows_of_commit).await;
        let id = n as i64 + 1;
        let mine = ours(&catalog, &t, id).await;
        assert_eq!(
            read_pypaimon(&o, &wh, "w.seq_desc", &[id])
                .remove(&id)
                .unwrap(),
            Ok(mine.clone()),
            "seq_desc snapshot {id}: pypaimon 2.1 disagrees with lakescope"
        );
        if id == 1 {
            // The smallest sequence wins; a null still sorts first, so it loses.
            assert!(row_of(&mine, "\"id\":1,").contains("\"b\""), "{mine:?}");
            assert!(row_of(&mine, "\"id\":3,").contains("\"y\""), "{mine:?}");
        }
    }
    let _ = std::fs::remove_dir_all(&wh);
}
