//! `lakescope presign-server`: a reference presign endpoint for development (credentials stay here).
//!
//! Contract (what the browser's `Presigner` expects from any presign endpoint):
//!
//! `GET <endpoint>?method=GET|HEAD|PUT|DELETE|LIST&key=<full bucket key>[&continuation-token=T]`
//! answers `200 text/plain` with one presigned URL (SigV4 query signature, valid `--expires-secs`).
//! `key` is percent-encoded. For `LIST`, `key` is a key prefix ending in `/` and the URL is a
//! ListObjectsV2 request (`list-type=2`, `delimiter=/`, the continuation token if given).
//! Keys outside `--prefix` answer `403`, malformed queries `400`, each with a one-line reason.
//! Every answer carries `Access-Control-Allow-Origin: *` so pages on other origins can call it.
//! Any path is accepted (`/`, `/presign`, ...). Credentials: AWS_ACCESS_KEY_ID,
//! AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN; the bucket's endpoint, region and addressing come
//! from the global `--s3-endpoint`, `--s3-region`, `--s3-path-style` options.

use lakescope_storage::s3::{presign, PresignService};
use lakescope_storage::uri::{s3_config, StoreOptions};
use std::time::Duration;

/// Options of `presign-server`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The bucket to sign for.
    #[arg(long)]
    bucket: String,
    /// Address to listen on, e.g. 127.0.0.1:8787.
    #[arg(long)]
    listen: String,
    /// Only sign keys below this prefix (default: the whole bucket).
    #[arg(long, default_value = "")]
    prefix: String,
    /// Lifetime of the presigned URLs.
    #[arg(long, default_value_t = 900)]
    expires_secs: u64,
}

/// Serves presign queries until the process is stopped.
pub fn run(args: &Args, options: &StoreOptions) -> Result<(), String> {
    let options = StoreOptions {
        presign_endpoint: None,
        ..options.clone()
    };
    let config =
        s3_config(&format!("s3://{}", args.bucket), &options).map_err(|e| e.to_string())?;
    let service =
        PresignService::new(config, &args.prefix, Duration::from_secs(args.expires_secs))?;
    let listener = std::net::TcpListener::bind(&args.listen)
        .map_err(|e| format!("cannot listen on {}: {e}", args.listen))?;
    let addr = listener
        .local_addr()
        .map_err(|e| format!("cannot listen on {}: {e}", args.listen))?;
    println!(
        "presign endpoint: http://{addr}/presign (bucket {})",
        args.bucket
    );
    presign::serve(listener, service).map_err(|e| format!("presign server on {addr}: {e}"))
}
