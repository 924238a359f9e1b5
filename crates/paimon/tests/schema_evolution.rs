//! Schema evolution commits (`schema-{n+1}` with put-if-absent), reading files written under older
//! schemas by field id (added, renamed, dropped, moved, retyped columns), and table/database
//! rename and drop on object stores.

use arrow_array::{
    Array, ArrayRef, Float32Array, Int32Array, Int64Array, RecordBatch, StringArray,
};
use arrow_cast::display::{ArrayFormatter, FormatOptions};
use async_trait::async_trait;
use bytes::Bytes;
use lakescope_paimon::spec::schema::TableSchema;
use lakescope_paimon::spec::{DataField, DataType, TypeKind};
use lakescope_paimon::table::Table;
use lakescope_paimon::table_read::{read_snapshot, ReadRequest};
use lakescope_paimon::write::catalog_ops::{drop_database, drop_table, rename_table};
use lakescope_paimon::write::schema::{create_table, TableDefinition};
use lakescope_paimon::write::schema_change::commit_schema;
use lakescope_paimon::write::{FixedEnv, WriteEnv};
use lakescope_storage::{Listing, LocalStore, MemoryStore, ObjectMeta, ObjectStore, PutOutcome};
use lakescope_test_support::tables::{batch, string, t, write_and_commit};
use std::collections::BTreeMap;
use std::ops::Range;
use std::rc::Rc;
use std::sync::Arc;

/// `name=value` cells of every row, sorted rows.
fn rows(batches: &[RecordBatch]) -> Vec<String> {
    let mut out = Vec::new();
    for b in batches {
        let names: Vec<String> = b
            .schema()
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect();
        let fmts: Vec<_> = b
            .columns()
            .iter()
            .map(|c| ArrayFormatter::try_new(c.as_ref(), &FormatOptions::default()).unwrap())
            .collect();
        for r in 0..b.num_rows() {
            let cells: Vec<String> = (0..b.num_columns())
                .map(|i| {
                    let v = if b.column(i).is_null(r) {
                        "null".to_string()
                    } else {
                        fmts[i].value(r).to_string()
                    };
                    format!("{}={v}", names[i])
                })
                .collect();
            out.push(cells.join(" "));
        }
    }
    out.sort();
    out
}

async fn open(store: &Rc<dyn ObjectStore>, path: &str) -> Table {
    Table::open(store.clone(), path).await.unwrap()
}

/// Reads the latest snapshot with the latest schema (a plain `SELECT *` after the ALTERs).
async fn read_latest(store: &Rc<dyn ObjectStore>, path: &str) -> Result<Vec<String>, String> {
    let table = open(store, path).await;
    let snapshot = table.latest_snapshot().await.unwrap();
    let request = ReadRequest {
        latest_schema: true,
        ..ReadRequest::default()
    };
    read_snapshot(&table, snapshot.as_ref(), &request)
        .await
        .map(|r| rows(&r.batches))
        .map_err(|e| e.to_string())
}

async fn insert(store: &Rc<dyn ObjectStore>, path: &str, env: &dyn WriteEnv, b: RecordBatch) {
    let table = open(store, path).await;
    write_and_commit(&table, env, &[b], None, "test-user").await;
}

/// Computes the next schema from the latest with `change` and commits it.
async fn evolve(
    store: &Rc<dyn ObjectStore>,
    path: &str,
    env: &dyn WriteEnv,
    change: impl FnOnce(&mut TableSchema),
) -> TableSchema {
    let table = open(store, path).await;
    let mut next = (**table.current_schema()).clone();
    next.id += 1;
    change(&mut next);
    commit_schema(&table, &next, env).await.unwrap()
}

fn add(s: &mut TableSchema, at: usize, name: &str, data_type: DataType) {
    s.highest_field_id += 1;
    let f = DataField {
        id: s.highest_field_id,
        name: name.into(),
        data_type,
        description: None,
    };
    s.fields.insert(at, f);
}

fn index(s: &TableSchema, name: &str) -> usize {
    s.field_index(name).unwrap()
}

async fn new_table(
    store: &Rc<dyn ObjectStore>,
    path: &str,
    env: &dyn WriteEnv,
    def: TableDefinition,
) {
    create_table(store.as_ref(), path, &def, env).await.unwrap();
}

#[tokio::test]
async fn commit_schema_writes_the_next_id_once() {
    let store: Rc<dyn ObjectStore> = Rc::new(MemoryStore::new());
    let env = FixedEnv::new(1_700_000_000_000, 1);
    let def = TableDefinition {
        columns: vec![("id".into(), t(TypeKind::BigInt), None)],
        ..Default::default()
    };
    new_table(&store, "db.db/t", &env, def).await;
    let base = open(&store, "db.db/t").await;
    let mut next = (**base.current_schema()).clone();
    next.id = 1;
    next.time_millis = 0;
    add(&mut next, 1, "c1", t(TypeKind::Int));

    let later = FixedEnv::new(1_800_000_000_000, 2);
    let written = commit_schema(&base, &next, &later).await.unwrap();
    assert_eq!(written.time_millis, 1_800_000_000_000, "time from the env");
    let json: serde_json::Value =
        serde_json::from_slice(&store.get("db.db/t/schema/schema-1").await.unwrap()).unwrap();
    assert_eq!(json["id"], 1);
    assert_eq!(json["version"], 3);
    assert_eq!(json["highestFieldId"], 1);
    assert_eq!(json["timeMillis"], 1_800_000_000_000i64);
    assert_eq!(json["fields"][1]["name"], "c1");
    assert_eq!(json["fields"][1]["id"], 1);
    assert_eq!(json["fields"][1]["type"], "INT");
    assert_eq!(open(&store, "db.db/t").await.current_schema().id, 1);

    // A second writer that computed schema-1 from schema-0 loses the race.
    let err = commit_schema(&base, &next, &later).await.unwrap_err();
    assert!(err.to_string().contains("schema conflict"), "{err}");
    assert!(err.to_string().contains("db.db/t"), "{err}");
    // The put-if-absent itself refuses too (the table handle still thinks schema-1 is next).
    let racer = open(&store, "db.db/t").await;
    let mut skip = next.clone();
    skip.id = 3;
    let err = commit_schema(&racer, &skip, &later).await.unwrap_err();
    assert!(err.to_string().contains("expected id 2"), "{err}");
    // Field ids never go down, names stay unique, keys must be columns.
    let mut bad = next.clone();
    bad.id = 2;
    bad.highest_field_id = 0;
    assert!(commit_schema(&racer, &bad, &later).await.is_err());
    let mut dup = next.clone();
    dup.id = 2;
    dup.fields[1].name = "id".into();
    let err = commit_schema(&racer, &dup, &later).await.unwrap_err();
    assert!(err.to_string().contains("duplicate column id"), "{err}");
    assert!(store
        .get_opt("db.db/t/schema/schema-2")
        .await
        .unwrap()
        .is_none());
}

/// A memory store with two faults: another writer always creates `schema-1` just before us, and
/// `put` of any key ending in `manifest-fail` fails.
struct FlakyStore(MemoryStore);

#[async_trait(?Send)]
impl ObjectStore for FlakyStore {
    fn describe(&self) -> String {
        self.0.describe()
    }
    async fn get(&self, path: &str) -> lakescope_storage::Result<Bytes> {
        self.0.get(path).await
    }
    async fn get_range(&self, path: &str, range: Range<u64>) -> lakescope_storage::Result<Bytes> {
        self.0.get_range(path, range).await
    }
    async fn head(&self, path: &str) -> lakescope_storage::Result<ObjectMeta> {
        self.0.head(path).await
    }
    async fn list_dir(&self, prefix: &str) -> lakescope_storage::Result<Listing> {
        self.0.list_dir(prefix).await
    }
    async fn put(&self, path: &str, data: Bytes) -> lakescope_storage::Result<()> {
        if path.ends_with("manifest-fail") {
            return Err(lakescope_storage::Error::Io {
                operation: "put",
                path: path.into(),
                message: "disk full".into(),
            });
        }
        self.0.put(path, data).await
    }
    async fn put_if_absent(
        &self,
        path: &str,
        data: Bytes,
    ) -> lakescope_storage::Result<PutOutcome> {
        if path.ends_with("schema-1") {
            self.0
                .put_if_absent(path, Bytes::from_static(b"{}"))
                .await?;
        }
        self.0.put_if_absent(path, data).await
    }
    async fn delete(&self, path: &str) -> lakescope_storage::Result<()> {
        self.0.delete(path).await
    }
}

#[tokio::test]
async fn concurrent_schema_writer_is_a_conflict() {
    let store: Rc<dyn ObjectStore> = Rc::new(FlakyStore(MemoryStore::new()));
    let env = FixedEnv::new(1, 1);
    let def = TableDefinition {
        columns: vec![("id".into(), t(TypeKind::BigInt), None)],
        ..Default::default()
    };
    new_table(&store, "db.db/t", &env, def).await;
    let table = open(&store, "db.db/t").await;
    let mut next = (**table.current_schema()).clone();
    next.id = 1;
    let err = commit_schema(&table, &next, &env).await.unwrap_err();
    assert!(
        err.to_string()
            .contains("db.db/t/schema/schema-1 was written concurrently"),
        "{err}"
    );
}

#[tokio::test]
async fn reads_follow_field_ids_through_every_seed_change() {
    let store: Rc<dyn ObjectStore> = Rc::new(MemoryStore::new());
    let env = FixedEnv::new(1_700_000_000_000, 3);
    let p = "db.db/test";
    let def = TableDefinition {
        columns: vec![
            ("user_id".into(), t(TypeKind::BigInt), None),
            ("item_id".into(), t(TypeKind::BigInt), None),
            ("behavior".into(), string(), None),
        ],
        ..Default::default()
    };
    new_table(&store, p, &env, def).await;
    insert(
        &store,
        p,
        &env,
        batch(vec![
            ("user_id", Arc::new(Int64Array::from(vec![1, 2]))),
            ("item_id", Arc::new(Int64Array::from(vec![10, 20]))),
            (
                "behavior",
                Arc::new(StringArray::from(vec!["order", "pay"])),
            ),
        ]),
    )
    .await;

    // ADD (c1 INT, c2 STRING): old rows read NULL.
    evolve(&store, p, &env, |s| {
        add(s, 3, "c1", t(TypeKind::Int));
        add(s, 4, "c2", string());
    })
    .await;
    insert(
        &store,
        p,
        &env,
        batch(vec![
            ("user_id", Arc::new(Int64Array::from(vec![3]))),
            ("item_id", Arc::new(Int64Array::from(vec![30]))),
            ("behavior", Arc::new(StringArray::from(vec!["cart"]))),
            ("c1", Arc::new(Int32Array::from(vec![7]))),
            ("c2", Arc::new(StringArray::from(vec!["x"]))),
        ]),
    )
    .await;
    assert_eq!(
        read_latest(&store, p).await.unwrap(),
        [
            "user_id=1 item_id=10 behavior=order c1=null c2=null",
            "user_id=2 item_id=20 behavior=pay c1=null c2=null",
            "user_id=3 item_id=30 behavior=cart c1=7 c2=x",
        ]
    );

    // RENAME c1 TO c0: the value written as c1 is found by id.
    evolve(&store, p, &env, |s| {
        let i = index(s, "c1");
        s.fields[i].name = "c0".into();
    })
    .await;
    let r = read_latest(&store, p).await.unwrap();
    assert!(
        r.contains(&"user_id=3 item_id=30 behavior=cart c0=7 c2=x".to_string()),
        "{r:?}"
    );
    // Time travel to that snapshot still reads with the schema it was written with.
    let table = open(&store, p).await;
    let snapshot = table.latest_snapshot().await.unwrap();
    let old = read_snapshot(&table, snapshot.as_ref(), &ReadRequest::default())
        .await
        .unwrap();
    assert!(
        rows(&old.batches).contains(&"user_id=3 item_id=30 behavior=cart c1=7 c2=x".to_string())
    );

    // DROP (c0, c2), then ADD c2 again: a new id, so the old c2 values do not come back.
    evolve(&store, p, &env, |s| {
        s.fields.retain(|f| f.name != "c0" && f.name != "c2")
    })
    .await;
    assert_eq!(
        read_latest(&store, p).await.unwrap()[2],
        "user_id=3 item_id=30 behavior=cart"
    );
    let s = evolve(&store, p, &env, |s| add(s, 3, "c2", string())).await;
    assert_eq!(s.field("c2").unwrap().id, 5);
    assert_eq!(
        read_latest(&store, p).await.unwrap()[2],
        "user_id=3 item_id=30 behavior=cart c2=null"
    );
    evolve(&store, p, &env, |s| s.fields.retain(|f| f.name != "c2")).await;

    // ADD a INT FIRST; ADD b INT AFTER a; write; MODIFY b FIRST; MODIFY a AFTER user_id.
    evolve(&store, p, &env, |s| add(s, 0, "a", t(TypeKind::Int))).await;
    evolve(&store, p, &env, |s| add(s, 1, "b", t(TypeKind::Int))).await;
    insert(
        &store,
        p,
        &env,
        batch(vec![
            ("a", Arc::new(Int32Array::from(vec![5]))),
            ("b", Arc::new(Int32Array::from(vec![6]))),
            ("user_id", Arc::new(Int64Array::from(vec![4]))),
            ("item_id", Arc::new(Int64Array::from(vec![40]))),
            ("behavior", Arc::new(StringArray::from(vec!["fav"]))),
        ]),
    )
    .await;
    evolve(&store, p, &env, |s| {
        let b = s.fields.remove(index(s, "b"));
        s.fields.insert(0, b);
    })
    .await;
    evolve(&store, p, &env, |s| {
        let a = s.fields.remove(index(s, "a"));
        let at = index(s, "user_id") + 1;
        s.fields.insert(at, a);
    })
    .await;
    // MODIFY a DOUBLE: INT values read as DOUBLE.
    let s = evolve(&store, p, &env, |s| {
        let i = index(s, "a");
        s.fields[i].data_type = t(TypeKind::Double);
    })
    .await;
    let names: Vec<&str> = s.fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["b", "user_id", "a", "item_id", "behavior"]);
    assert_eq!(s.id, 10);
    assert_eq!(
        read_latest(&store, p).await.unwrap(),
        [
            "b=6 user_id=4 a=5.0 item_id=40 behavior=fav",
            "b=null user_id=1 a=null item_id=10 behavior=order",
            "b=null user_id=2 a=null item_id=20 behavior=pay",
            "b=null user_id=3 a=null item_id=30 behavior=cart",
        ]
    );
}

#[tokio::test]
async fn string_to_int_casts_on_read_as_paimon() {
    let store: Rc<dyn ObjectStore> = Rc::new(MemoryStore::new());
    let env = FixedEnv::new(1_700_000_000_000, 4);
    let p = "db.db/test_cast";
    let def = TableDefinition {
        columns: vec![
            ("id".into(), t(TypeKind::BigInt), None),
            ("behavior".into(), string(), None),
        ],
        ..Default::default()
    };
    new_table(&store, p, &env, def).await;
    let rows_of = |ids: Vec<i64>, v: Vec<Option<&str>>| {
        batch(vec![
            ("id", Arc::new(Int64Array::from(ids)) as ArrayRef),
            ("behavior", Arc::new(StringArray::from(v))),
        ])
    };
    insert(
        &store,
        p,
        &env,
        rows_of(vec![1, 2, 3], vec![Some("42"), Some("7"), None]),
    )
    .await;
    evolve(&store, p, &env, |s| {
        s.fields[1].data_type = t(TypeKind::Int)
    })
    .await;
    assert_eq!(
        read_latest(&store, p).await.unwrap(),
        ["id=1 behavior=42", "id=2 behavior=7", "id=3 behavior=null"]
    );

    // An unparseable string fails the read naming the file, as Java's cast throws.
    let q = "db.db/test_cast_bad";
    let def = TableDefinition {
        columns: vec![
            ("id".into(), t(TypeKind::BigInt), None),
            ("behavior".into(), string(), None),
        ],
        ..Default::default()
    };
    new_table(&store, q, &env, def).await;
    insert(
        &store,
        q,
        &env,
        rows_of(vec![1, 2], vec![Some("42"), Some("pay")]),
    )
    .await;
    evolve(&store, q, &env, |s| {
        s.fields[1].data_type = t(TypeKind::Int)
    })
    .await;
    let err = read_latest(&store, q).await.unwrap_err();
    assert!(err.contains("'pay' is not a number"), "{err}");
    assert!(err.contains(".parquet"), "{err}");
}

#[tokio::test]
async fn not_null_to_nullable_on_a_primary_key_table() {
    let store: Rc<dyn ObjectStore> = Rc::new(MemoryStore::new());
    let env = FixedEnv::new(1_700_000_000_000, 5);
    let p = "db.db/test_null";
    let def = TableDefinition {
        columns: vec![
            ("id".into(), t(TypeKind::Int), None),
            (
                "coupon_info".into(),
                t(TypeKind::Float).with_nullable(false),
                None,
            ),
        ],
        primary_keys: vec!["id".into()],
        options: BTreeMap::from([("bucket".into(), "1".into())]),
        ..Default::default()
    };
    new_table(&store, p, &env, def).await;
    let b = |id: i32, v: Option<f32>| {
        batch(vec![
            ("id", Arc::new(Int32Array::from(vec![id])) as ArrayRef),
            ("coupon_info", Arc::new(Float32Array::from(vec![v]))),
        ])
    };
    insert(&store, p, &env, b(1, Some(1.5))).await;
    let s = evolve(&store, p, &env, |s| {
        s.fields[1].data_type = t(TypeKind::Float);
    })
    .await;
    assert_eq!(s.fields[1].data_type.to_string(), "FLOAT");
    assert_eq!(s.fields[0].data_type.to_string(), "INT NOT NULL");
    insert(&store, p, &env, b(2, None)).await;
    insert(&store, p, &env, b(1, Some(2.5))).await;
    assert_eq!(
        read_latest(&store, p).await.unwrap(),
        ["id=1 coupon_info=2.5", "id=2 coupon_info=null"]
    );
    // A nullable primary key is refused before anything is written.
    let table = open(&store, p).await;
    let mut next = (**table.current_schema()).clone();
    next.id += 1;
    next.fields[0].data_type = t(TypeKind::Int);
    let err = commit_schema(&table, &next, &env).await.unwrap_err();
    assert!(err.to_string().contains("must be NOT NULL"), "{err}");
    // ... unless the table allows nullable keys.
    next.options
        .insert("primary-key.nullable".into(), "true".into());
    commit_schema(&table, &next, &env).await.unwrap();
}

async fn keys(store: &dyn ObjectStore, prefix: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut pending = vec![prefix.to_string()];
    while let Some(dir) = pending.pop() {
        let l = store.list_dir(&dir).await.unwrap();
        out.extend(l.files.into_iter().map(|f| f.path));
        pending.extend(l.dirs.iter().map(|d| format!("{dir}/{d}")));
    }
    out.sort();
    out
}

async fn small_table(store: &Rc<dyn ObjectStore>, path: &str, env: &dyn WriteEnv) {
    let def = TableDefinition {
        columns: vec![
            ("id".into(), t(TypeKind::BigInt), None),
            ("v".into(), string(), None),
        ],
        ..Default::default()
    };
    new_table(store, path, env, def).await;
    insert(
        store,
        path,
        env,
        batch(vec![
            ("id", Arc::new(Int64Array::from(vec![1, 2]))),
            ("v", Arc::new(StringArray::from(vec!["a", "b"]))),
        ]),
    )
    .await;
}

async fn rename_and_drop_on(store: Rc<dyn ObjectStore>) {
    let env = FixedEnv::new(1_700_000_000_000, 6);
    small_table(&store, "db.db/t1", &env).await;
    small_table(&store, "db.db/other", &env).await;
    let before = read_latest(&store, "db.db/t1").await.unwrap();
    let old_keys = keys(store.as_ref(), "db.db/t1").await;

    rename_table(store.as_ref(), "db.db/t1", "db.db/test_new")
        .await
        .unwrap();
    let new_keys = keys(store.as_ref(), "db.db/test_new").await;
    assert_eq!(
        new_keys,
        old_keys
            .iter()
            .map(|k| k.replacen("db.db/t1/", "db.db/test_new/", 1))
            .collect::<Vec<_>>()
    );
    assert!(keys(store.as_ref(), "db.db/t1").await.is_empty());
    assert_eq!(read_latest(&store, "db.db/test_new").await.unwrap(), before);

    // Refusals: target exists, source is not a table, overlapping paths.
    let err = rename_table(store.as_ref(), "db.db/test_new", "db.db/other")
        .await
        .unwrap_err();
    assert!(
        err.to_string().contains("db.db/other already exists"),
        "{err}"
    );
    let err = rename_table(store.as_ref(), "db.db/t1", "db.db/t9")
        .await
        .unwrap_err();
    assert!(err.to_string().contains("db.db/t1"), "{err}");
    assert!(rename_table(store.as_ref(), "db.db/other", "db.db/other/x")
        .await
        .is_err());

    // DROP DATABASE without CASCADE refuses a database with tables, as Flink does.
    let err = drop_database(store.as_ref(), "db.db", false)
        .await
        .unwrap_err();
    assert!(
        err.to_string().starts_with("Database db is not empty"),
        "{err}"
    );
    drop_table(store.as_ref(), "db.db/other").await.unwrap();
    assert!(keys(store.as_ref(), "db.db/other").await.is_empty());
    assert!(drop_table(store.as_ref(), "db.db/other").await.is_err());
    assert!(drop_database(store.as_ref(), "db.db", false).await.is_err());
    store
        .put("db.db/stray.txt", Bytes::from_static(b"x"))
        .await
        .unwrap();
    drop_database(store.as_ref(), "db.db", true).await.unwrap();
    assert!(keys(store.as_ref(), "db.db").await.is_empty());
    // Without tables, DROP DATABASE succeeds without CASCADE.
    small_table(&store, "e.db/t", &env).await;
    drop_table(store.as_ref(), "e.db/t").await.unwrap();
    store
        .put("e.db/readme", Bytes::from_static(b"x"))
        .await
        .unwrap();
    drop_database(store.as_ref(), "e.db", false).await.unwrap();
    assert!(keys(store.as_ref(), "e.db").await.is_empty());
}

#[tokio::test]
async fn rename_and_drop_in_memory() {
    rename_and_drop_on(Rc::new(MemoryStore::new())).await;
}

#[tokio::test]
async fn rename_and_drop_on_a_local_folder() {
    let dir = tempfile::tempdir().unwrap();
    rename_and_drop_on(Rc::new(LocalStore::new(dir.path()))).await;
}

#[tokio::test]
async fn failed_copy_names_the_object_and_keeps_the_source() {
    let store: Rc<dyn ObjectStore> = Rc::new(FlakyStore(MemoryStore::new()));
    let env = FixedEnv::new(1, 7);
    small_table(&store, "db.db/t", &env).await;
    // An object whose copy will fail (put-if-absent is not faulty).
    store
        .put_if_absent("db.db/t/manifest/manifest-fail", Bytes::from_static(b"m"))
        .await
        .unwrap();
    let before = keys(store.as_ref(), "db.db/t").await;
    let err = rename_table(store.as_ref(), "db.db/t", "db.db/u")
        .await
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("writing db.db/u/manifest/manifest-fail failed"),
        "{err}"
    );
    assert_eq!(
        keys(store.as_ref(), "db.db/t").await,
        before,
        "source untouched"
    );
    assert_eq!(
        read_latest(&store, "db.db/t").await.unwrap(),
        ["id=1 v=a", "id=2 v=b"]
    );
}
