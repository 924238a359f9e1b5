//! "Nothing a user committed is ever lost", on S3: 8 writers × 25 commits race on one Paimon
//! append table in a real S3 server (moto on 127.0.0.1), while two more writers die between
//! writing their manifests and creating their snapshot.
//!
//! The commit protocol relies on one store primitive: `put_if_absent` of `snapshot-N`, which
//! `S3Store` sends as `PUT` with `If-None-Match: *` (412 → lost the race). moto honours that
//! header: its `put_object` looks the key up and answers 412 if it exists. The look-up and the
//! insert are not under one lock in moto, so the test's moto serves one request at a time
//! (lakescope-test-support's `moto`), which makes the create atomic as on AWS S3. Should a store
//! ever tell two writers that each created the same snapshot, this test says so explicitly (a
//! store fault, not a commit-protocol fault) instead of reporting a lost commit.
//!
//! After the race, every object of the table is copied from the bucket to a local folder
//! (through `S3Store`'s listing and get) and Java Paimon 0.9 reads that copy: it must see
//! exactly the acknowledged rows, as lakescope does.
//!
//! moto comes from `bash scripts/s3-test-server.sh` (target/venv-moto); without it this test
//! fails, unless LAKESCOPE_SKIP_S3=1 (developers only). The Java oracle comes from
//! `bash scripts/oracles.sh` (see lakescope-test-support's `oracles`).
#![cfg(not(target_arch = "wasm32"))]

use arrow_array::{Array, ArrayRef, Int32Array, RecordBatch};
use arrow_schema::{Field, Schema};
use async_trait::async_trait;
use bytes::Bytes;
use futures::future::{select, Either};
use lakescope_paimon::commit::CommitOptions;
use lakescope_paimon::scan::{plan, plan_delta, PartitionFilter};
use lakescope_paimon::spec::{DataType, TypeKind};
use lakescope_paimon::table::Table;
use lakescope_paimon::table_read::{read_snapshot, ReadRequest};
use lakescope_paimon::write::schema::{create_table, TableDefinition};
use lakescope_paimon::write::{write_files, FixedEnv, WriteEnv};
use lakescope_paimon::write_commit::commit_write;
use lakescope_storage::retry::{RetryPolicy, SeededJitter, Sender, Timer, TokioTimer};
use lakescope_storage::s3::{S3Auth, S3Config, S3Credentials, S3Store};
use lakescope_storage::transport::{HttpRequest, HttpTransport, ReqwestTransport};
use lakescope_storage::{Listing, ObjectMeta, ObjectStore, PutOutcome};
use lakescope_test_support::moto::Moto;
use lakescope_test_support::oracles::{oracles, read_java};
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet};
use std::future::Future;
use std::ops::Range;
use std::path::Path;
use std::pin::{pin, Pin};
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};

const WRITERS: i32 = 8;
const COMMITS: i32 = 25;
const ROWS_PER_COMMIT: i32 = 2;
const BUCKET: &str = "concurrent";
const TABLE: &str = "db.db/events";

fn creds() -> S3Credentials {
    S3Credentials {
        access_key_id: "AKIDLAKESCOPETEST".to_string(),
        secret_access_key: "lakescope-test-secret".to_string(),
        session_token: None,
    }
}

fn reqwest() -> Rc<dyn HttpTransport> {
    Rc::new(ReqwestTransport::new(Duration::from_secs(20)).expect("client"))
}

/// A store of its own (own HTTP client, own retry jitter) for each writer, as separate
/// processes would have.
fn s3_store(endpoint: &str, seed: u64) -> Rc<dyn ObjectStore> {
    let mut config = S3Config::new(BUCKET, "warehouse");
    config.endpoint = Some(endpoint.to_string());
    config.path_style = true;
    config.auth = S3Auth::Keys(creds());
    let sender = Sender {
        transport: reqwest(),
        timer: Rc::new(TokioTimer),
        jitter: Rc::new(SeededJitter::new(seed)),
        policy: RetryPolicy::default(),
    };
    Rc::new(S3Store::new(config, sender))
}

async fn create_bucket(endpoint: &str) {
    let mut request = HttpRequest::new("PUT", format!("{endpoint}/{BUCKET}"));
    lakescope_storage::s3::sign_request(
        &mut request,
        &creds(),
        "us-east-1",
        std::time::SystemTime::now(),
    )
    .expect("sign");
    let response = reqwest().send(request).await.expect("create bucket");
    assert_eq!(response.status, 200, "create bucket {BUCKET}");
}

/// `FixedEnv`'s deterministic clock and UUIDs, but real waits between commit retries (FixedEnv
/// does not wait at all, which would make 8 losers re-run their attempts back to back).
struct TestEnv(FixedEnv);

impl WriteEnv for TestEnv {
    fn now_millis(&self) -> i64 {
        self.0.now_millis()
    }
    fn uuid(&self) -> String {
        self.0.uuid()
    }
    fn sleep(&self, millis: u64) -> Pin<Box<dyn Future<Output = ()> + '_>> {
        TokioTimer.sleep(Duration::from_millis(millis))
    }
}

fn env_for(writer: i32) -> TestEnv {
    TestEnv(FixedEnv::new(1_700_000_000_000, 1000 + writer as u64))
}

fn commit_options(table: &Table, writer: i32) -> CommitOptions {
    let mut opts = CommitOptions::for_table(table, format!("writer-{writer}")).unwrap();
    // Never give up inside the test: a commit that gives up is not acknowledged, and the test
    // wants all 200 acknowledged. Short waits keep the run well under a minute.
    opts.max_retries = 10_000;
    opts.min_retry_wait_ms = 2;
    opts.max_retry_wait_ms = 64;
    opts
}

/// The rows of commit `commit` of writer `writer`: `(writer, commit, r)` for each r.
fn commit_batch(writer: i32, commit: i32) -> RecordBatch {
    let n = ROWS_PER_COMMIT as usize;
    let cols: Vec<(&str, ArrayRef)> = vec![
        ("w", Arc::new(Int32Array::from(vec![writer; n]))),
        ("c", Arc::new(Int32Array::from(vec![commit; n]))),
        (
            "r",
            Arc::new(Int32Array::from_iter_values(0..ROWS_PER_COMMIT)),
        ),
    ];
    let fields: Vec<Field> = cols
        .iter()
        .map(|(name, a)| Field::new(*name, a.data_type().clone(), true))
        .collect();
    RecordBatch::try_new(
        Arc::new(Schema::new(fields)),
        cols.into_iter().map(|(_, a)| a).collect(),
    )
    .unwrap()
}

/// What an acknowledged commit told its writer.
#[derive(Debug, Clone)]
struct Acked {
    writer: i32,
    commit: i32,
    snapshot: i64,
    data_file: String,
    retries: u32,
}

async fn writer(store: Rc<dyn ObjectStore>, w: i32, acked_so_far: Rc<Cell<i64>>) -> Vec<Acked> {
    let table = Table::open(store, TABLE).await.unwrap();
    let env = env_for(w);
    let mut acked = Vec::new();
    for c in 0..COMMITS {
        let files = write_files(&table, &env, &[commit_batch(w, c)], 0)
            .await
            .unwrap_or_else(|e| panic!("writer {w} commit {c}: writing the data file: {e}"));
        assert_eq!(files.len(), 1, "one data file per commit");
        let data_file = files[0].file.file_name.clone();
        let out = commit_write(&table, &env, commit_options(&table, w), files, None)
            .await
            .unwrap_or_else(|e| panic!("writer {w} commit {c} failed: {e}"));
        acked.push(Acked {
            writer: w,
            commit: c,
            snapshot: out.snapshot.id,
            data_file,
            retries: out.retries,
        });
        acked_so_far.set(acked_so_far.get() + 1);
    }
    acked
}

/// How a writer dies when it is about to create its snapshot.
#[derive(Clone, Copy, Debug)]
enum Death {
    /// The process is gone mid-commit: its future is dropped while the snapshot PUT waits.
    Dropped,
    /// The snapshot PUT fails before it is sent (e.g. the network is gone): the commit errors.
    PutFails,
}

/// Passes everything through to S3, records what the writer wrote, and kills the writer at
/// the `put_if_absent` of its snapshot, after its data file and manifests are written.
struct DyingStore {
    inner: Rc<dyn ObjectStore>,
    death: Death,
    reached_snapshot: Rc<Cell<bool>>,
    written: RefCell<Vec<String>>,
}

#[async_trait(?Send)]
impl ObjectStore for DyingStore {
    fn describe(&self) -> String {
        self.inner.describe()
    }
    async fn get(&self, p: &str) -> lakescope_storage::Result<Bytes> {
        self.inner.get(p).await
    }
    async fn get_range(&self, p: &str, r: Range<u64>) -> lakescope_storage::Result<Bytes> {
        self.inner.get_range(p, r).await
    }
    async fn head(&self, p: &str) -> lakescope_storage::Result<ObjectMeta> {
        self.inner.head(p).await
    }
    async fn list_dir(&self, p: &str) -> lakescope_storage::Result<Listing> {
        self.inner.list_dir(p).await
    }
    async fn put(&self, p: &str, d: Bytes) -> lakescope_storage::Result<()> {
        self.inner.put(p, d).await?;
        self.written.borrow_mut().push(p.to_string());
        Ok(())
    }
    async fn put_if_absent(&self, p: &str, d: Bytes) -> lakescope_storage::Result<PutOutcome> {
        if p.contains("/snapshot/snapshot-") {
            self.reached_snapshot.set(true);
            return match self.death {
                Death::Dropped => futures::future::pending().await,
                Death::PutFails => Err(lakescope_storage::Error::Io {
                    operation: "create",
                    path: p.to_string(),
                    message: "injected: connection lost before the snapshot PUT was sent"
                        .to_string(),
                }),
            };
        }
        self.inner.put_if_absent(p, d).await
    }
    async fn delete(&self, p: &str) -> lakescope_storage::Result<()> {
        self.inner.delete(p).await
    }
}

/// A writer that waits until `after` commits are acknowledged, writes one commit's data file
/// and manifests, and dies before its snapshot exists. Returns the keys it wrote.
async fn dying_writer(
    store: Rc<dyn ObjectStore>,
    w: i32,
    acked_so_far: Rc<Cell<i64>>,
    after: i64,
    death: Death,
) -> Vec<String> {
    let reached = Rc::new(Cell::new(false));
    let dying = Rc::new(DyingStore {
        inner: store,
        death,
        reached_snapshot: reached.clone(),
        written: RefCell::new(Vec::new()),
    });
    let table = Table::open(dying.clone(), TABLE).await.unwrap();
    // Watching an in-process counter, not the store: polling S3 would only load the server.
    while acked_so_far.get() < after {
        TokioTimer.sleep(Duration::from_millis(5)).await;
    }
    let env = env_for(w);
    let files = write_files(&table, &env, &[commit_batch(w, 0)], 0)
        .await
        .unwrap();
    let commit = pin!(commit_write(
        &table,
        &env,
        commit_options(&table, w),
        files,
        None
    ));
    match death {
        Death::Dropped => {
            let killed = pin!(async {
                while !reached.get() {
                    TokioTimer.sleep(Duration::from_millis(1)).await;
                }
            });
            match select(commit, killed).await {
                Either::Left((r, _)) => {
                    panic!("writer {w} was to die, but its commit ended: {r:?}")
                }
                // The commit future is never polled again (it is dropped when this function
                // returns): the process dying mid-commit.
                Either::Right(((), _abandoned)) => {}
            }
        }
        Death::PutFails => {
            let e = commit
                .await
                .expect_err("the commit must fail when its snapshot PUT fails");
            assert!(e.to_string().contains("injected"), "{e}");
        }
    }
    assert!(reached.get(), "writer {w} reached its snapshot PUT");
    let written = dying.written.borrow().clone();
    written
}

/// Copies every object under `prefix` in `store` to `local` (same relative layout); returns
/// how many objects were copied.
async fn download(store: &dyn ObjectStore, prefix: &str, local: &Path) -> usize {
    let mut pending = vec![prefix.to_string()];
    let mut copied = 0;
    while let Some(dir) = pending.pop() {
        let listing = store
            .list_dir(&dir)
            .await
            .unwrap_or_else(|e| panic!("listing {dir}: {e}"));
        for f in &listing.files {
            let rel = f
                .path
                .strip_prefix(prefix)
                .unwrap_or_else(|| panic!("{} is not under {prefix}", f.path))
                .trim_start_matches('/');
            let bytes = store
                .get(&f.path)
                .await
                .unwrap_or_else(|e| panic!("get {}: {e}", f.path));
            assert_eq!(bytes.len() as u64, f.size, "{}: listed size", f.path);
            let target = local.join(rel);
            std::fs::create_dir_all(target.parent().expect("a parent folder")).unwrap();
            std::fs::write(&target, &bytes).unwrap();
            copied += 1;
        }
        for d in &listing.dirs {
            pending.push(format!("{}/{d}", dir.trim_end_matches('/')));
        }
    }
    copied
}

/// Rows as the Java oracle's canonical JSON lines, normalized and sorted as it parses them.
fn canonical(rows: &[(i32, i32, i32)]) -> Vec<String> {
    lakescope_test_support::oracles::normalize(
        rows.iter()
            .map(|(w, c, r)| serde_json::json!({ "w": w, "c": c, "r": r }).to_string()),
    )
}

fn rows(batches: &[RecordBatch]) -> Vec<(i32, i32, i32)> {
    let mut out = Vec::new();
    for b in batches {
        let col = |name: &str| {
            b.column_by_name(name)
                .unwrap()
                .as_any()
                .downcast_ref::<Int32Array>()
                .unwrap()
                .clone()
        };
        let (w, c, r) = (col("w"), col("c"), col("r"));
        for i in 0..b.num_rows() {
            assert!(!w.is_null(i) && !c.is_null(i) && !r.is_null(i));
            out.push((w.value(i), c.value(i), r.value(i)));
        }
    }
    out
}

#[test]
fn concurrent_s3_commits_lose_nothing_and_dead_writers_leave_only_orphans() {
    let Some(moto) = Moto::start() else {
        return;
    };
    let endpoint = moto.endpoint().to_string();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let t0 = Instant::now();
        create_bucket(&endpoint).await;
        let def = TableDefinition {
            columns: vec![
                ("w".into(), DataType::nullable(TypeKind::Int), None),
                ("c".into(), DataType::nullable(TypeKind::Int), None),
                ("r".into(), DataType::nullable(TypeKind::Int), None),
            ],
            ..Default::default()
        };
        let admin = s3_store(&endpoint, 1);
        create_table(admin.as_ref(), TABLE, &def, &FixedEnv::new(0, 0))
            .await
            .unwrap();

        // 8 writers and 2 dying writers on one thread, each with its own store and env.
        let t_race = Instant::now();
        let count = Rc::new(Cell::new(0));
        let writers = futures::future::join_all(
            (0..WRITERS).map(|w| writer(s3_store(&endpoint, 100 + w as u64), w, count.clone())),
        );
        let dying = futures::future::join(
            dying_writer(s3_store(&endpoint, 201), 100, count.clone(), 60, Death::Dropped),
            dying_writer(s3_store(&endpoint, 202), 101, count.clone(), 140, Death::PutFails),
        );
        let (acked, (dead_a, dead_b)) = futures::future::join(writers, dying).await;
        let race_secs = t_race.elapsed().as_secs_f64();
        let acked: Vec<Acked> = acked.into_iter().flatten().collect();
        let total = (WRITERS * COMMITS) as i64;
        assert_eq!(acked.len() as i64, total);

        // A fresh handle (no cached manifests) reads what is on S3.
        let t_verify = Instant::now();
        let table = Table::open(s3_store(&endpoint, 2), TABLE).await.unwrap();

        // The store never told two writers that each created the same snapshot.
        let mut by_snapshot: BTreeMap<i64, &Acked> = BTreeMap::new();
        for a in &acked {
            if let Some(other) = by_snapshot.insert(a.snapshot, a) {
                panic!(
                    "put_if_absent(snapshot-{}) answered Created to two writers ({other:?} and \
                     {a:?}): the S3 server's If-None-Match: * create was not atomic, so one \
                     acknowledged commit was overwritten (a store fault, not a commit-protocol one)",
                    a.snapshot
                );
            }
        }

        // One writer's commits are sequential: their snapshots are in commit order.
        for w in 0..WRITERS {
            let mine: Vec<(i32, i64)> = acked
                .iter()
                .filter(|a| a.writer == w)
                .map(|a| (a.commit, a.snapshot))
                .collect();
            assert_eq!(mine.len(), COMMITS as usize);
            assert!(
                mine.windows(2).all(|p| p[0].0 + 1 == p[1].0 && p[0].1 < p[1].1),
                "writer {w}: {mine:?}"
            );
        }

        // Snapshot ids are exactly 1..=200, and every acknowledged commit has its own.
        let ids = table.snapshot_ids().await.unwrap();
        assert_eq!(ids, (1..=total).collect::<Vec<_>>(), "snapshot ids");
        assert_eq!(
            by_snapshot.keys().copied().collect::<Vec<_>>(),
            ids,
            "acknowledged snapshot ids"
        );

        // LATEST: readers resolve it to 200 (hint + probing past it). The hint file itself is a
        // best-effort plain PUT after each commit, so it must name an existing snapshot.
        assert_eq!(table.latest_snapshot_id().await.unwrap(), Some(total));
        let hint = table
            .store()
            .get(&format!("{TABLE}/snapshot/LATEST"))
            .await
            .unwrap();
        let hint: i64 = std::str::from_utf8(&hint).unwrap().trim().parse().unwrap();
        assert!((1..=total).contains(&hint), "LATEST hint {hint}");

        // Each snapshot is the acknowledged commit that got its id: its user, adding exactly
        // its data file; no data file is added twice anywhere in the history.
        let mut added_everywhere: BTreeMap<String, i64> = BTreeMap::new();
        let mut referenced_manifests: BTreeSet<String> = BTreeSet::new();
        for id in 1..=total {
            let s = table.snapshot(id).await.unwrap();
            let a = by_snapshot[&id];
            assert_eq!(s.commit_user, format!("writer-{}", a.writer), "snapshot {id}");
            assert_eq!(s.delta_record_count, Some(ROWS_PER_COMMIT as i64));
            assert_eq!(s.total_record_count, Some(id * ROWS_PER_COMMIT as i64));
            let delta = plan_delta(&table, &s).await.unwrap();
            let added: Vec<&str> = delta
                .added
                .iter()
                .flat_map(|sp| sp.files.iter().map(|f| f.file_name.as_str()))
                .collect();
            assert_eq!(added, vec![a.data_file.as_str()], "files added by snapshot {id}");
            for f in added {
                if let Some(first) = added_everywhere.insert(f.to_string(), id) {
                    panic!("data file {f} added by snapshots {first} and {id}");
                }
            }
            referenced_manifests.insert(s.base_manifest_list.clone());
            referenced_manifests.insert(s.delta_manifest_list.clone());
        }

        // The latest snapshot references each acknowledged data file exactly once. (Its base
        // and delta lists name every data manifest of the history: nothing is compacted.)
        let latest = table.latest_snapshot().await.unwrap().unwrap();
        for list in [&latest.base_manifest_list, &latest.delta_manifest_list] {
            for m in table.manifest_list(list).await.unwrap().iter() {
                referenced_manifests.insert(m.file_name.clone());
            }
        }
        let p = plan(&table, &latest, &PartitionFilter::All).await.unwrap();
        let live: Vec<&str> = p
            .splits
            .iter()
            .flat_map(|sp| sp.files.iter().map(|f| f.file_name.as_str()))
            .collect();
        let live_set: BTreeSet<&str> = live.iter().copied().collect();
        assert_eq!(live.len(), live_set.len(), "a data file is referenced twice");
        let acked_files: BTreeSet<&str> = acked.iter().map(|a| a.data_file.as_str()).collect();
        assert_eq!(live_set, acked_files, "live data files = acknowledged ones");

        // Reading the table gives every (writer, commit) row exactly once, and nothing else.
        let read = read_snapshot(&table, Some(&latest), &ReadRequest::default())
            .await
            .unwrap();
        let mut got = rows(&read.batches);
        got.sort_unstable();
        let mut expected = Vec::new();
        for w in 0..WRITERS {
            for c in 0..COMMITS {
                for r in 0..ROWS_PER_COMMIT {
                    expected.push((w, c, r));
                }
            }
        }
        let missing: Vec<_> = expected.iter().filter(|e| !got.contains(e)).collect();
        assert!(missing.is_empty(), "acknowledged rows missing: {missing:?}");
        assert_eq!(got, expected, "every (writer, commit) row exactly once");

        // The dead writers wrote their data file and manifests, which stay as unreferenced
        // orphans; none of their rows is visible.
        for (w, written) in [(100, &dead_a), (101, &dead_b)] {
            let name = |k: &String| k.rsplit('/').next().unwrap().to_string();
            let manifests: Vec<String> = written
                .iter()
                .filter(|k| k.contains("/manifest/"))
                .map(name)
                .collect();
            let data: Vec<String> = written
                .iter()
                .filter(|k| k.contains("/bucket-"))
                .map(name)
                .collect();
            assert_eq!(manifests.len(), 3, "writer {w}: manifest + 2 lists: {written:?}");
            assert_eq!(data.len(), 1, "writer {w}: one data file: {written:?}");
            for key in written {
                table.store().head(key).await.unwrap_or_else(|e| {
                    panic!("writer {w}: {key} should remain as an orphan: {e}")
                });
            }
            for m in &manifests {
                assert!(!referenced_manifests.contains(m), "dead writer's {m} is referenced");
            }
            assert!(!live_set.contains(data[0].as_str()));
            assert!(!added_everywhere.contains_key(&data[0]));
        }
        assert!(got.iter().all(|(w, _, _)| *w < WRITERS));

        // Java Paimon 0.9 reads a local copy of the bucket's table (orphans included) and sees
        // what lakescope sees: at the first, a middle and the last snapshot.
        let t_java = Instant::now();
        let java = match oracles() {
            Some(o) => {
                let local = lakescope_test_support::temp_dir("lakescope-s3-concurrent", "events");
                let copied = download(table.store().as_ref(), TABLE, &local).await;
                let ids = [1, total / 2, total];
                let java = read_java(&o, &local, &ids);
                for id in ids {
                    let s = table.snapshot(id).await.unwrap();
                    let ours = rows(
                        &read_snapshot(&table, Some(&s), &ReadRequest::default())
                            .await
                            .unwrap()
                            .batches,
                    );
                    assert_eq!(ours.len() as i64, id * ROWS_PER_COMMIT as i64, "snapshot {id}");
                    let theirs = java
                        .get(&id)
                        .unwrap_or_else(|| panic!("snapshot {id}: no Java output"));
                    assert_eq!(
                        theirs.as_ref(),
                        Ok(&canonical(&ours)),
                        "snapshot {id}: Java Paimon 0.9 disagrees with lakescope"
                    );
                }
                assert_eq!(
                    java[&total].as_ref().map(Vec::len),
                    Ok(expected.len()),
                    "Java's row count of the final table"
                );
                assert_eq!(java[&total], Ok(canonical(&expected)), "Java's final rows");
                std::fs::remove_dir_all(&local).unwrap();
                format!(
                    "Java Paimon 0.9 read {} rows of snapshot {total} from {copied} copied objects \
                     in {:.1} s",
                    expected.len(),
                    t_java.elapsed().as_secs_f64()
                )
            }
            None => "Java read skipped (LAKESCOPE_SKIP_ORACLES=1)".to_string(),
        };

        let retries: u32 = acked.iter().map(|a| a.retries).sum();
        let max_retries = acked.iter().map(|a| a.retries).max().unwrap_or(0);
        eprintln!(
            "s3_concurrent_commits: {total} commits by {WRITERS} writers in {race_secs:.1} s \
             ({retries} lost races, at most {max_retries} for one commit); LATEST hint {hint}; \
             verified in {:.1} s; {java}; total {:.1} s",
            t_verify.elapsed().as_secs_f64(),
            t0.elapsed().as_secs_f64()
        );
    });
}
