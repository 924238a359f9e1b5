//! What the page's host says about a SQL engine that is not there (yet): `scripts/run-demo.sh`
//! builds the engine in the background and writes [`STATUS_FILE`] next to the page meanwhile.

use lakescope_storage::{HttpStore, ObjectStore};

/// Written beside the page by `scripts/run-demo.sh` while it builds the engine (removed once the
/// engine is in place): `{"state": "building" | "failed", "started": "<UTC time>", "log": "<path>"}`.
const STATUS_FILE: &str = "lakescope-sql-worker.status.json";

/// Why the engine could not start when its script `script` is not on the host (a 404, or the
/// host's single-page-app fallback page, which a worker would run as a script and fail on):
/// what the user can do about it. `None` when the script is there.
pub async fn missing_engine_message(script: &str) -> Option<String> {
    let host = HttpStore::new("./");
    match host.head(script).await {
        Err(e) if e.is_not_found() => {}
        _ => return None,
    }
    let status = host
        .get_opt(STATUS_FILE)
        .await
        .ok()
        .flatten()
        .and_then(|body| serde_json::from_slice::<serde_json::Value>(&body).ok());
    let field = |name: &str| {
        status
            .as_ref()
            .and_then(|s| s.get(name))
            .and_then(|v| v.as_str())
            .unwrap_or("?")
            .to_string()
    };
    Some(
        match status
            .as_ref()
            .and_then(|s| s.get("state"))
            .and_then(|v| v.as_str())
        {
            Some("building") => format!(
                "The SQL engine is still being built: scripts/run-demo.sh started its build at {} \
             (a first build takes 25–45 min on 2 cores; progress in {} on the serving machine). \
             Run again once it is ready — no reload needed.",
                field("started"),
                field("log"),
            ),
            Some("failed") => format!(
                "The SQL engine's build failed (see {} on the serving machine); \
             `bash scripts/build-sql-worker.sh dist` builds it again.",
                field("log"),
            ),
            _ => not_loaded_message(script),
        },
    )
}

/// The engine's script `script` could not be loaded, and nothing says it is being built.
pub fn not_loaded_message(script: &str) -> String {
    format!(
        "The SQL engine could not be loaded ({script}): this build of lakescope may not include \
         it — `bash scripts/build-sql-worker.sh dist` adds it."
    )
}
