//! `lakescope scan` over s3:// (keys and presign endpoint, moto on 127.0.0.1) and http:// (a
//! static server) prints the same rows as over the local folder.
//!
//! moto comes from `bash scripts/s3-test-server.sh`; without it this test fails, unless
//! LAKESCOPE_SKIP_S3=1 (developers only).

use bytes::Bytes;
use lakescope_storage::s3::{S3Auth, S3Config, S3Credentials, S3Store};
use lakescope_storage::transport::{HttpTransport, ReqwestTransport};
use lakescope_storage::ObjectStore;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::rc::Rc;
use std::time::{Duration, Instant};

const KEY_ID: &str = "AKIDLAKESCOPECLI";
const SECRET: &str = "lakescope-cli-secret";

mod common;

use common::{free_port, repo_root, wait_for_port};
use lakescope_test_support::moto::Moto;
use lakescope_test_support::Server;

fn warehouse() -> PathBuf {
    repo_root().join("../shared/corpus/paimon/warehouse")
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
                out.push((rel.to_string_lossy().into_owned(), path.clone()));
            }
        }
    }
    out
}

fn upload(endpoint: &str) {
    let creds = S3Credentials {
        access_key_id: KEY_ID.into(),
        secret_access_key: SECRET.into(),
        session_token: None,
    };
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
        .block_on(async {
            common::create_bucket(endpoint, "cli", &creds).await;
            let transport: Rc<dyn HttpTransport> =
                Rc::new(ReqwestTransport::new(Duration::from_secs(20)).expect("client"));
            let mut config = S3Config::new("cli", "warehouse");
            config.endpoint = Some(endpoint.to_string());
            config.path_style = true;
            config.auth = S3Auth::Keys(creds);
            let sender = lakescope_storage::retry::Sender {
                transport,
                timer: Rc::new(lakescope_storage::retry::TokioTimer),
                jitter: Rc::new(lakescope_storage::retry::SeededJitter::new(1)),
                policy: Default::default(),
            };
            let store = S3Store::new(config, sender);
            for (key, path) in files_below(&warehouse()) {
                let data = std::fs::read(&path).expect("read corpus file");
                store.put(&key, Bytes::from(data)).await.expect("upload");
            }
        });
}

fn lakescope(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_lakescope"))
        .args(args)
        .env("AWS_ACCESS_KEY_ID", KEY_ID)
        .env("AWS_SECRET_ACCESS_KEY", SECRET)
        .env_remove("AWS_SESSION_TOKEN")
        .env_remove("AWS_ENDPOINT_URL")
        .env_remove("AWS_ENDPOINT_URL_S3")
        .output()
        .expect("run lakescope");
    assert!(
        out.status.success(),
        "lakescope {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.sort_unstable();
    lines.join("\n")
}

#[test]
fn scan_over_s3_and_http_matches_the_local_folder() {
    let Some(moto) = Moto::start() else {
        return;
    };
    let endpoint = moto.endpoint().to_string();
    upload(&endpoint);
    let local = warehouse().to_string_lossy().into_owned();
    // A static web host (python3 -m http.server ignores Range and answers 200: still works),
    // serving a copy of the warehouse with its generated listing index (Paimon lists schema/).
    let static_root = std::env::temp_dir().join(format!("lakescope-http-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&static_root);
    let mut index = Vec::new();
    for (key, path) in files_below(&warehouse()) {
        let target = static_root.join(&key);
        std::fs::create_dir_all(target.parent().expect("parent")).expect("mkdir");
        std::fs::copy(&path, &target).expect("copy corpus file");
        index.push(lakescope_storage::ObjectMeta {
            size: std::fs::metadata(&path).expect("stat").len(),
            path: key,
        });
    }
    std::fs::write(
        static_root.join(lakescope_storage::INDEX_FILE_NAME),
        lakescope_storage::IndexedStore::<lakescope_storage::MemoryStore>::render_index(index),
    )
    .expect("write index");
    let http_port = free_port();
    let _http = Server(
        Command::new("python3")
            .args([
                "-m",
                "http.server",
                &http_port.to_string(),
                "--bind",
                "127.0.0.1",
            ])
            .arg("--directory")
            .arg(&static_root)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start python3 -m http.server"),
    );
    // The reference presign endpoint.
    let presign_port = free_port();
    let _presign = Server(
        Command::new(env!("CARGO_BIN_EXE_lakescope"))
            .args([
                "presign-server",
                "--bucket",
                "cli",
                "--prefix",
                "warehouse/",
            ])
            .args(["--listen", &format!("127.0.0.1:{presign_port}")])
            .args(["--s3-endpoint", &endpoint, "--s3-path-style"])
            .env("AWS_ACCESS_KEY_ID", KEY_ID)
            .env("AWS_SECRET_ACCESS_KEY", SECRET)
            .stdout(Stdio::null())
            .spawn()
            .expect("start presign-server"),
    );
    wait_for_port(http_port, "python3 -m http.server");
    wait_for_port(presign_port, "lakescope presign-server");
    let http_url = format!("http://127.0.0.1:{http_port}");
    let presign = format!("http://127.0.0.1:{presign_port}/presign");
    assert_eq!(
        lakescope(&["tables", &local]),
        lakescope(&[
            "tables",
            "s3://cli/warehouse",
            "--s3-endpoint",
            &endpoint, // an IP endpoint implies path-style
        ])
    );
    for table in [
        "corpus.pk_dedup",
        "corpus.append_types_parquet",
        "java09.pk_deletion_vectors",
    ] {
        let expected = lakescope(&["scan", &local, table, "--format", "jsonl"]);
        assert!(!expected.is_empty(), "{table}: no rows locally");
        let t0 = Instant::now();
        let s3 = lakescope(&[
            "scan",
            "s3://cli/warehouse",
            table,
            "--format",
            "jsonl",
            "--s3-endpoint",
            &endpoint,
            "--s3-path-style",
            "--s3-region",
            "us-east-1",
        ]);
        let s3_time = t0.elapsed();
        assert_eq!(s3, expected, "{table} over s3://");
        let presigned = lakescope(&[
            "--s3-endpoint",
            &endpoint,
            "--presign-endpoint",
            &presign,
            "--s3-path-style",
            "scan",
            "s3://cli/warehouse",
            table,
            "--format",
            "jsonl",
        ]);
        assert_eq!(
            presigned, expected,
            "{table} over s3:// with a presign endpoint"
        );
        let t1 = Instant::now();
        let http = lakescope(&["scan", &http_url, table, "--format", "jsonl"]);
        eprintln!("{table}: s3 {s3_time:?}, http {:?}", t1.elapsed());
        assert_eq!(http, expected, "{table} over http://");
    }
    let _ = std::fs::remove_dir_all(&static_root);
}
