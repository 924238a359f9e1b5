//! S3 backend against a real S3 server (moto) on 127.0.0.1: listing, ranges, SigV4, presigned
//! URLs, atomic-create races, corpus tables read through the engine, and injected faults.
//!
//! moto comes from `bash scripts/s3-test-server.sh` (target/venv-moto); without it these tests
//! fail, unless LAKESCOPE_SKIP_S3=1 (developers only).
#![cfg(not(target_arch = "wasm32"))]

#[cfg(feature = "native-http")]
mod moto {
    //! One moto server per test binary (and a second for the test that switches on moto's
    //! signature checks); they end with the test process.
    use lakescope_test_support::moto::Moto;
    use std::sync::OnceLock;

    /// The endpoint of the shared moto server, or `None` when LAKESCOPE_SKIP_S3=1.
    pub fn endpoint() -> Option<&'static str> {
        static MOTO: OnceLock<Option<Moto>> = OnceLock::new();
        MOTO.get_or_init(Moto::start).as_ref().map(Moto::endpoint)
    }

    /// A second server, for the test that switches on moto's signature checks.
    pub fn strict_endpoint() -> Option<&'static str> {
        static MOTO: OnceLock<Option<Moto>> = OnceLock::new();
        MOTO.get_or_init(Moto::start).as_ref().map(Moto::endpoint)
    }
}

/// Without the native transport these tests cannot run: fail loudly rather than skip.
#[cfg(not(feature = "native-http"))]
#[test]
fn s3_tests_need_the_native_http_feature() {
    if std::env::var("LAKESCOPE_SKIP_S3").as_deref() == Ok("1") {
        return;
    }
    panic!("the S3 tests need `--features native-http` (cargo test --workspace enables it through the CLI)");
}

#[cfg(feature = "native-http")]
mod suite {
    use super::moto;
    use bytes::Bytes;
    use lakescope_engine::canonical::batches_to_lines;
    use lakescope_engine::scan::ScanRequest;
    use lakescope_engine::{Catalog, TableRef};
    use lakescope_storage::retry::{RetryPolicy, SeededJitter, Sender, TokioTimer};
    use lakescope_storage::s3::{
        presign, PresignService, S3Auth, S3Config, S3Credentials, S3Store,
    };
    use lakescope_storage::transport::{
        Fault, FaultyTransport, HttpRequest, HttpTransport, ReqwestTransport,
    };
    use lakescope_storage::{Error, LocalStore, ObjectStore, PutOutcome};
    use std::path::{Path, PathBuf};
    use std::rc::Rc;
    use std::time::{Duration, Instant};

    fn run<F: std::future::Future<Output = ()>>(f: F) {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime")
            .block_on(f)
    }

    fn creds() -> S3Credentials {
        S3Credentials {
            access_key_id: "AKIDLAKESCOPETEST".to_string(),
            secret_access_key: "lakescope-test-secret".to_string(),
            session_token: None,
        }
    }

    fn sender_with(transport: Rc<dyn HttpTransport>, policy: RetryPolicy) -> Sender {
        Sender {
            transport,
            timer: Rc::new(TokioTimer),
            jitter: Rc::new(SeededJitter::new(42)),
            policy,
        }
    }

    fn reqwest() -> Rc<dyn HttpTransport> {
        Rc::new(ReqwestTransport::new(Duration::from_secs(20)).expect("client"))
    }

    fn config(endpoint: &str, bucket: &str, prefix: &str) -> S3Config {
        let mut c = S3Config::new(bucket, prefix);
        c.endpoint = Some(endpoint.to_string());
        c.path_style = true;
        c.auth = S3Auth::Keys(creds());
        c
    }

    fn store(endpoint: &str, bucket: &str, prefix: &str) -> S3Store {
        S3Store::new(
            config(endpoint, bucket, prefix),
            sender_with(reqwest(), RetryPolicy::default()),
        )
    }

    /// Creates a bucket (signed PUT /bucket).
    async fn create_bucket(endpoint: &str, bucket: &str) {
        let mut request = HttpRequest::new("PUT", format!("{endpoint}/{bucket}"));
        lakescope_storage::s3::sign_request(
            &mut request,
            &creds(),
            "us-east-1",
            std::time::SystemTime::now(),
        )
        .expect("sign");
        let response = reqwest().send(request).await.expect("create bucket");
        assert!(
            response.status == 200 || response.status == 409,
            "create bucket {bucket}: HTTP {}",
            response.status
        );
    }

    fn corpus_warehouse() -> PathBuf {
        PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../shared/corpus/paimon/warehouse"
        ))
    }

    fn files_below(root: &Path) -> Vec<(String, PathBuf)> {
        let mut out = Vec::new();
        let mut stack = vec![root.to_path_buf()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).expect("read corpus dir").flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                } else if let Ok(rel) = path.strip_prefix(root) {
                    out.push((rel.to_string_lossy().replace('\\', "/"), path.clone()));
                }
            }
        }
        out.sort();
        out
    }

    #[test]
    fn list_ranged_reads_and_errors_with_sigv4() {
        let Some(endpoint) = moto::endpoint() else {
            return;
        };
        run(async {
            create_bucket(endpoint, "basic").await;
            let s = store(endpoint, "basic", "wh");
            s.put(
                "db.db/t/snapshot/snapshot-1",
                Bytes::from_static(b"0123456789"),
            )
            .await
            .unwrap();
            s.put(
                "db.db/t/dt=2024-01-01/a b+c.parquet",
                Bytes::from_static(b"xyz"),
            )
            .await
            .unwrap();
            for i in 0..7 {
                s.put(&format!("many/f-{i:02}"), Bytes::from(vec![b'a'; i]))
                    .await
                    .unwrap();
            }
            let root = s.list_dir("").await.unwrap();
            assert_eq!(root.dirs, vec!["db.db", "many"]);
            assert!(root.files.is_empty());
            let t = s.list_dir("db.db/t/").await.unwrap();
            assert_eq!(t.dirs, vec!["dt=2024-01-01", "snapshot"]);
            let part = s.list_dir("db.db/t/dt=2024-01-01").await.unwrap();
            assert_eq!(part.files[0].path, "db.db/t/dt=2024-01-01/a b+c.parquet");
            assert_eq!(part.files[0].size, 3);
            // Continuation tokens: pages of 3.
            let mut paged = config(endpoint, "basic", "wh");
            paged.max_keys = Some(3);
            let paged = S3Store::new(paged, sender_with(reqwest(), RetryPolicy::default()));
            let many = paged.list_dir("many").await.unwrap();
            assert_eq!(many.files.len(), 7);
            assert_eq!(many.files[6].size, 6);
            // Ranges, whole reads, head.
            let k = "db.db/t/snapshot/snapshot-1";
            assert_eq!(s.get_range(k, 2..5).await.unwrap(), "234");
            assert_eq!(s.get_range(k, 9..10).await.unwrap(), "9");
            assert_eq!(s.get_range(k, 4..4).await.unwrap(), "");
            assert!(matches!(
                s.get_range(k, 8..12).await,
                Err(Error::OutOfRange { size: 10, .. })
            ));
            assert_eq!(
                s.get("db.db/t/dt=2024-01-01/a b+c.parquet").await.unwrap(),
                "xyz"
            );
            assert_eq!(s.head(k).await.unwrap().size, 10);
            let missing = s.get("db.db/t/snapshot/snapshot-9").await.unwrap_err();
            assert!(missing.is_not_found());
            assert!(missing.to_string().contains("snapshot-9"), "{missing}");
            assert_eq!(s.get_opt("nope").await.unwrap(), None);
            s.delete(k).await.unwrap();
            s.delete(k).await.unwrap(); // deleting a missing object is fine
            assert!(s.get(k).await.unwrap_err().is_not_found());
            // A missing bucket: a clear error naming the object, never the secret.
            let other = store(endpoint, "no-such-bucket", "");
            let e = other.get("x").await.unwrap_err().to_string();
            assert!(
                e.contains('x') && !e.contains("lakescope-test-secret"),
                "{e}"
            );
        });
    }

    #[test]
    fn presigned_get_put_list_delete_via_presign_server() {
        let Some(endpoint) = moto::endpoint() else {
            return;
        };
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let presign_endpoint = format!("http://{}/presign", listener.local_addr().unwrap());
        let service = PresignService::new(
            config(endpoint, "presigned", ""),
            "wh/",
            Duration::from_secs(300),
        )
        .unwrap();
        std::thread::spawn(move || presign::serve(listener, service));
        run(async {
            create_bucket(endpoint, "presigned").await;
            let mut c = config(endpoint, "presigned", "wh");
            c.auth = S3Auth::Presigned {
                endpoint: presign_endpoint.clone(),
            };
            let s = S3Store::new(c, sender_with(reqwest(), RetryPolicy::default()));
            s.put("a/b.txt", Bytes::from_static(b"hello presigned"))
                .await
                .unwrap();
            assert_eq!(s.get("a/b.txt").await.unwrap(), "hello presigned");
            assert_eq!(s.get_range("a/b.txt", 6..15).await.unwrap(), "presigned");
            assert_eq!(s.head("a/b.txt").await.unwrap().size, 15);
            assert_eq!(s.list_dir("a").await.unwrap().files[0].path, "a/b.txt");
            assert_eq!(
                s.put_if_absent("a/b.txt", Bytes::from_static(b"other"))
                    .await
                    .unwrap(),
                PutOutcome::AlreadyExists
            );
            s.delete("a/b.txt").await.unwrap();
            assert!(s.get("a/b.txt").await.unwrap_err().is_not_found());
            // Keys outside the allowed prefix are refused by the signer.
            let mut outside = config(endpoint, "presigned", "elsewhere");
            outside.auth = S3Auth::Presigned {
                endpoint: presign_endpoint,
            };
            let outside = S3Store::new(outside, sender_with(reqwest(), RetryPolicy::default()));
            let e = outside.get("x").await.unwrap_err();
            assert!(matches!(e, Error::PermissionDenied { .. }), "{e}");
        });
    }

    #[test]
    fn put_if_absent_race_has_exactly_one_winner() {
        let Some(endpoint) = moto::endpoint() else {
            return;
        };
        run(async {
            create_bucket(endpoint, "race").await;
            let a = store(endpoint, "race", "wh");
            let b = store(endpoint, "race", "wh");
            for round in 0..10 {
                let key = format!("t/snapshot/snapshot-{round}");
                let (ra, rb) = futures::join!(
                    a.put_if_absent(&key, Bytes::from_static(b"writer-a")),
                    b.put_if_absent(&key, Bytes::from_static(b"writer-b"))
                );
                let (ra, rb) = (ra.unwrap(), rb.unwrap());
                let winners = [ra, rb]
                    .iter()
                    .filter(|o| **o == PutOutcome::Created)
                    .count();
                assert_eq!(winners, 1, "round {round}: {ra:?} {rb:?}");
                let expected = if ra == PutOutcome::Created {
                    "writer-a"
                } else {
                    "writer-b"
                };
                assert_eq!(a.get(&key).await.unwrap(), expected);
            }
        });
    }

    async fn upload_corpus(endpoint: &str, bucket: &str) {
        create_bucket(endpoint, bucket).await;
        let s = store(endpoint, bucket, "warehouse");
        for (key, path) in files_below(&corpus_warehouse()) {
            let data = std::fs::read(&path).expect("read corpus file");
            s.put(&key, Bytes::from(data)).await.expect("upload");
        }
    }

    /// Every table of the local corpus warehouse: its canonical rows at the latest snapshot.
    async fn scan_all(catalog: &Catalog) -> Vec<(String, Result<Vec<String>, String>)> {
        let mut out = Vec::new();
        for db in catalog.tree().await.expect("tree") {
            for t in db.tables {
                let name = format!("{}.{}", db.name, t.name);
                let table: TableRef = name.parse().expect("table ref");
                let rows = catalog
                    .scan(&table, &ScanRequest::default())
                    .await
                    .map_err(|e| e.to_string())
                    .and_then(|r| batches_to_lines(&r.batches).map_err(|e| e.to_string()));
                out.push((name, rows));
            }
        }
        out
    }

    #[test]
    fn corpus_tables_read_the_same_over_s3_as_locally() {
        let Some(endpoint) = moto::endpoint() else {
            return;
        };
        run(async {
            let t0 = Instant::now();
            upload_corpus(endpoint, "corpus").await;
            let uploaded = t0.elapsed();
            let local = scan_all(&Catalog::new(Rc::new(LocalStore::new(corpus_warehouse())))).await;
            assert!(local.len() >= 5, "corpus tables: {}", local.len());
            let options = lakescope_storage::uri::StoreOptions {
                s3_endpoint: Some(endpoint.to_string()),
                s3_path_style: true,
                credentials: Some(creds()),
                ..Default::default()
            };
            let t1 = Instant::now();
            let remote = lakescope_storage::uri::open("s3://corpus/warehouse", &options).unwrap();
            let over_s3 = scan_all(&Catalog::new(remote)).await;
            eprintln!(
                "corpus: {} tables uploaded in {uploaded:?}, scanned over S3 in {:?}",
                local.len(),
                t1.elapsed()
            );
            assert_eq!(over_s3.len(), local.len());
            for ((name, l), (name2, r)) in local.iter().zip(&over_s3) {
                assert_eq!(name, name2);
                assert_eq!(l, r, "{name}: S3 rows differ from the local folder's");
            }
        });
    }

    #[test]
    fn injected_faults_give_the_right_rows_or_a_clear_error_in_time() {
        let Some(endpoint) = moto::endpoint() else {
            return;
        };
        run(async {
            upload_corpus(endpoint, "faults").await;
            let local = scan_all(&Catalog::new(Rc::new(LocalStore::new(corpus_warehouse())))).await;
            let policy = RetryPolicy {
                max_attempts: 8,
                base_delay: Duration::from_millis(2),
                max_delay: Duration::from_millis(50),
                request_timeout: Duration::from_millis(400),
            };
            let faults = vec![
                Fault::Status(500),
                Fault::Status(503),
                Fault::Status(429),
                Fault::Truncate,
                Fault::Reset,
                Fault::Stall,
            ];
            let mut right = 0;
            let mut errors = 0;
            for seed in 1..=2u64 {
                let faulty = Rc::new(FaultyTransport::new(reqwest(), faults.clone(), 0.2, seed));
                let s = S3Store::new(
                    config(endpoint, "faults", "warehouse"),
                    sender_with(faulty.clone(), policy.clone()),
                );
                let t0 = Instant::now();
                let got = scan_all(&Catalog::new(Rc::new(s))).await;
                for ((name, l), (_, r)) in local.iter().zip(&got) {
                    match r {
                        Ok(rows) => {
                            assert_eq!(Ok(rows), l.as_ref(), "{name}: wrong rows under faults");
                            right += 1;
                        }
                        Err(e) => {
                            assert!(e.contains("attempts") || e.contains("bytes"), "{name}: {e}");
                            errors += 1;
                        }
                    }
                }
                eprintln!(
                    "seed {seed}: {} requests, {} faults injected, {:?}",
                    faulty.requests(),
                    faulty.injected(),
                    t0.elapsed()
                );
                assert!(faulty.injected() > 0);
            }
            eprintln!("fault runs: {right} tables right, {errors} clear errors");
            assert!(right > 0);
            // Every request stalls: a clear error after the bounded attempts, never a hang.
            let stalling = Rc::new(FaultyTransport::new(reqwest(), vec![Fault::Stall], 1.0, 9));
            let quick = RetryPolicy {
                max_attempts: 3,
                base_delay: Duration::from_millis(1),
                max_delay: Duration::from_millis(5),
                request_timeout: Duration::from_millis(200),
            };
            let s = S3Store::new(
                config(endpoint, "faults", "warehouse"),
                sender_with(stalling, quick),
            );
            let t0 = Instant::now();
            let e = s
                .get("corpus.db/pk_dedup/snapshot/LATEST")
                .await
                .unwrap_err();
            assert!(t0.elapsed() < Duration::from_secs(2), "{:?}", t0.elapsed());
            assert!(
                e.to_string().contains("no response within")
                    && e.to_string().contains("3 attempts"),
                "{e}"
            );
            // Bodies always cut short: ShortRead, not silently truncated data.
            let cutting = Rc::new(FaultyTransport::new(
                reqwest(),
                vec![Fault::Truncate],
                1.0,
                9,
            ));
            let s = S3Store::new(
                config(endpoint, "faults", "warehouse"),
                sender_with(
                    cutting,
                    RetryPolicy {
                        max_attempts: 2,
                        ..policy.clone()
                    },
                ),
            );
            let e = s
                .get("corpus.db/pk_dedup/schema/schema-0")
                .await
                .unwrap_err();
            assert!(matches!(e, Error::ShortRead { .. }), "{e}");
        });
    }

    /// The text of the first `<name>` element.
    fn xml_tag(text: &str, name: &str) -> String {
        let open = format!("<{name}>");
        let start = text.find(&open).map(|i| i + open.len()).unwrap_or(0);
        let end = text[start..].find('<').map(|i| i + start).unwrap_or(start);
        text[start..end].to_string()
    }

    /// Creates an IAM user with an S3 policy and returns its keys (moto does not check signatures yet).
    async fn iam_user(endpoint: &str) -> S3Credentials {
        let bootstrap = creds();
        let call = |body: String| {
            let mut request = HttpRequest::new("POST", format!("{endpoint}/"))
                .header("content-type", "application/x-www-form-urlencoded");
            request.body = Bytes::from(body);
            lakescope_storage::s3::sign_request_for(
                &mut request,
                &bootstrap,
                "us-east-1",
                "iam",
                std::time::SystemTime::now(),
            )
            .expect("sign");
            async move {
                let r = reqwest().send(request).await.expect("IAM call");
                let text = String::from_utf8_lossy(&r.body).into_owned();
                assert_eq!(r.status, 200, "IAM: {text}");
                text
            }
        };
        call("Action=CreateUser&UserName=lakescope&Version=2010-05-08".into()).await;
        let policy = r#"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:*","Resource":"*"}]}"#;
        call(format!(
        "Action=PutUserPolicy&UserName=lakescope&PolicyName=s3&PolicyDocument={}&Version=2010-05-08",
        lakescope_storage::s3::encode_query(policy)
    ))
    .await;
        let keys =
            call("Action=CreateAccessKey&UserName=lakescope&Version=2010-05-08".into()).await;
        S3Credentials {
            access_key_id: xml_tag(&keys, "AccessKeyId"),
            secret_access_key: xml_tag(&keys, "SecretAccessKey"),
            session_token: None,
        }
    }

    #[test]
    fn sigv4_is_verified_by_moto_and_bad_keys_are_explained() {
        let Some(endpoint) = moto::strict_endpoint() else {
            return;
        };
        run(async {
            let keys = iam_user(endpoint).await;
            assert!(keys.access_key_id.len() > 10, "{keys:?}");
            // From now on moto checks every signature against its IAM users.
            let r = reqwest()
                .send({
                    let mut r = HttpRequest::new("POST", format!("{endpoint}/moto-api/reset-auth"));
                    r.body = Bytes::from_static(b"0");
                    r
                })
                .await
                .expect("reset-auth");
            assert_eq!(r.status, 200);
            let mut c = config(endpoint, "strict", "wh");
            c.auth = S3Auth::Keys(keys.clone());
            let s = S3Store::new(c.clone(), sender_with(reqwest(), RetryPolicy::default()));
            let mut request = HttpRequest::new("PUT", format!("{endpoint}/strict"));
            lakescope_storage::s3::sign_request(
                &mut request,
                &keys,
                "us-east-1",
                std::time::SystemTime::now(),
            )
            .unwrap();
            let created = reqwest().send(request).await.unwrap();
            assert_eq!(
                created.status,
                200,
                "{}",
                String::from_utf8_lossy(&created.body)
            );
            let key = "db.db/t/dt=2024-03-01/bucket-0/data a+b.parquet";
            s.put(key, Bytes::from_static(b"signed bytes"))
                .await
                .unwrap();
            assert_eq!(s.get(key).await.unwrap(), "signed bytes");
            assert_eq!(s.get_range(key, 7..12).await.unwrap(), "bytes");
            assert_eq!(s.head(key).await.unwrap().size, 12);
            assert_eq!(
                s.list_dir("db.db/t").await.unwrap().dirs,
                vec!["dt=2024-03-01"]
            );
            assert_eq!(
                s.put_if_absent(key, Bytes::from_static(b"x"))
                    .await
                    .unwrap(),
                PutOutcome::AlreadyExists
            );
            // A wrong secret: PermissionDenied naming the key and the likely cause, never the secret.
            let mut bad = c.clone();
            bad.auth = S3Auth::Keys(S3Credentials {
                secret_access_key: "not-the-secret-xyz".into(),
                ..keys.clone()
            });
            let bad = S3Store::new(bad, sender_with(reqwest(), RetryPolicy::default()));
            let e = bad.get(key).await.unwrap_err();
            let text = e.to_string();
            assert!(matches!(e, Error::PermissionDenied { .. }), "{text}");
            assert!(
                text.contains("data a+b.parquet") && text.contains("secret"),
                "{text}"
            );
            assert!(
                !text.contains("not-the-secret-xyz") && !text.contains(&keys.secret_access_key),
                "{text}"
            );
            // No credentials at all.
            let mut anon = c.clone();
            anon.auth = S3Auth::Anonymous;
            let anon = S3Store::new(anon, sender_with(reqwest(), RetryPolicy::default()));
            let e = anon.get(key).await.unwrap_err().to_string();
            assert!(e.contains("AWS_ACCESS_KEY_ID"), "{e}");
            s.delete(key).await.unwrap();
        });
    }
}
