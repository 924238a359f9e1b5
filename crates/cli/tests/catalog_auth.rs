//! The catalog flags of the CLI against a scripted server (`lakescope_test_support::http_faults`):
//! `--catalog-credential` (or LAKESCOPE_CATALOG_CREDENTIAL) is exchanged for an OAuth2 token of an
//! Iceberg REST catalog, `--catalog-timeout` (or LAKESCOPE_CATALOG_TIMEOUT) bounds each request,
//! and a credential is refused for a Paimon REST catalog. Flink SQL's `CREATE CATALOG … 'credential'`
//! exchanges it the same way.

use lakescope_test_support::http_faults::{FaultServer, Reply};
use std::process::{Command, Output};

/// Runs `lakescope ARGS` with `env`, without the catalog variables of the calling shell.
fn lakescope(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_lakescope"));
    command.args(args);
    for var in [
        "LAKESCOPE_CATALOG_TOKEN",
        "LAKESCOPE_CATALOG_CREDENTIAL",
        "LAKESCOPE_CATALOG_TIMEOUT",
    ] {
        command.env_remove(var);
    }
    command.envs(env.iter().copied());
    command.output().unwrap()
}

fn iceberg_catalog() -> FaultServer {
    FaultServer::start(vec![
        Reply::Answer(
            200,
            r#"{"access_token":"t0k","token_type":"bearer","expires_in":3600}"#.into(),
        ),
        Reply::Answer(200, r#"{"defaults":{}}"#.into()),
        Reply::Answer(200, r#"{"namespaces":[["ns"]]}"#.into()),
        Reply::Answer(
            200,
            r#"{"identifiers":[{"namespace":["ns"],"name":"t"}]}"#.into(),
        ),
    ])
}

#[test]
fn a_client_credential_is_exchanged_for_the_token_of_every_request() {
    for from_env in [false, true] {
        let server = iceberg_catalog();
        let address = format!(
            "iceberg+rest://{}",
            server.url().trim_start_matches("http://")
        );
        let out = if from_env {
            lakescope(
                &["tables", &address],
                &[("LAKESCOPE_CATALOG_CREDENTIAL", "cli:s3cret")],
            )
        } else {
            lakescope(
                &["--catalog-credential", "cli:s3cret", "tables", &address],
                &[],
            )
        };
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{stderr}");
        assert_eq!(String::from_utf8_lossy(&out.stdout), "ns.t\n");
        let requests = server.requests();
        let targets: Vec<_> = requests.iter().map(|r| r.target.as_str()).collect();
        assert_eq!(
            targets,
            [
                "/v1/oauth/tokens",
                "/v1/config",
                "/v1/namespaces",
                "/v1/namespaces/ns/tables"
            ]
        );
        assert_eq!(
            requests[0].body,
            "grant_type=client_credentials&client_id=cli&client_secret=s3cret&scope=catalog"
        );
        assert!(requests[1..]
            .iter()
            .all(|r| r.header("authorization") == Some("Bearer t0k")));
    }
}

#[test]
fn a_catalog_answering_too_slowly_fails_after_the_timeout_naming_the_endpoint() {
    for from_env in [false, true] {
        let server = FaultServer::start(vec![Reply::Silent]);
        let address = format!(
            "iceberg+rest://{}",
            server.url().trim_start_matches("http://")
        );
        let started = std::time::Instant::now();
        let out = if from_env {
            lakescope(
                &["tables", &address],
                &[("LAKESCOPE_CATALOG_TIMEOUT", "0.4")],
            )
        } else {
            lakescope(&["--catalog-timeout", "0.4", "tables", &address], &[])
        };
        assert!(!out.status.success());
        assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());
        let stderr = String::from_utf8_lossy(&out.stderr);
        let endpoint = format!("GET {}/v1/config", server.url());
        assert!(
            stderr.contains(&endpoint) && stderr.contains("no response within 400ms"),
            "{stderr}"
        );
    }
    let out = lakescope(
        &["--catalog-timeout", "0", "tables", "iceberg+rest://h:1"],
        &[],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains("give a positive number of seconds"),
        "{stderr}"
    );
}

#[test]
fn a_client_credential_is_refused_for_a_paimon_rest_catalog() {
    let server = FaultServer::start(vec![]);
    let address = format!(
        "paimon+rest://{}/wh",
        server.url().trim_start_matches("http://")
    );
    let out = lakescope(
        &["--catalog-credential", "id:s3cret", "tables", &address],
        &[],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success()
            && stderr.contains("OAuth2 client credentials are an Iceberg REST flow"),
        "{stderr}"
    );
    assert!(!stderr.contains("s3cret"), "{stderr}");
    assert!(server.requests().is_empty());
}

#[test]
fn a_sql_catalog_exchanges_its_credential_option_for_the_token() {
    let server = iceberg_catalog();
    let sql = format!(
        "CREATE CATALOG i WITH ('type' = 'iceberg', 'catalog-type' = 'rest', 'uri' = '{}', \
         'credential' = 'sql:s3cret', 'scope' = 'PRINCIPAL_ROLE:ALL'); USE CATALOG i; SHOW DATABASES;",
        server.url()
    );
    let out = lakescope(&["sql", "-e", &sql], &[]);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("ns"), "{stdout}");
    assert!(
        !stdout.contains("s3cret") && !stderr.contains("s3cret"),
        "the secret is never printed"
    );
    let requests = server.requests();
    let targets: Vec<_> = requests.iter().map(|r| r.target.as_str()).collect();
    assert_eq!(
        targets,
        ["/v1/oauth/tokens", "/v1/config", "/v1/namespaces"]
    );
    assert_eq!(
        requests[0].body,
        "grant_type=client_credentials&client_id=sql&client_secret=s3cret&scope=PRINCIPAL_ROLE%3AALL"
    );
    assert!(requests[1..]
        .iter()
        .all(|r| r.header("authorization") == Some("Bearer t0k")));
}
