//! `lakescope`: look into Paimon and Iceberg lakes from the command line.

mod bench;
mod insert;
mod output;
mod presign_server;
mod sql;
mod stores;
mod threads;

use clap::{Parser, Subcommand, ValueEnum};
use lakescope_engine::parallel_scan;
use lakescope_engine::scan::{parse_filter, ScanRequest};
use lakescope_engine::table::{DiffRead, TableDiff};
use lakescope_engine::{Catalog, CatalogAddress, CatalogSecrets, StoreOpener, TableRef, Version};
use lakescope_storage::uri::StoreOptions;
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "lakescope", version, about = "Look into Apache Paimon and Iceberg lakes", long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    #[command(flatten)]
    remote: RemoteArgs,
}

/// Where remote warehouses are (every command accepts these). S3 credentials come from
/// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN.
#[derive(clap::Args, Clone, Debug, Default)]
struct RemoteArgs {
    /// S3 endpoint URL, e.g. http://127.0.0.1:9000 (default: AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, or AWS).
    #[arg(long, global = true)]
    s3_endpoint: Option<String>,
    /// S3 region (default: AWS_REGION, AWS_DEFAULT_REGION, or us-east-1).
    #[arg(long, global = true)]
    s3_region: Option<String>,
    /// Path-style S3 addressing (endpoint/bucket/key), as MinIO and moto need.
    #[arg(long, global = true)]
    s3_path_style: bool,
    /// Ask this presign endpoint for S3 URLs instead of signing with keys.
    #[arg(long, global = true)]
    presign_endpoint: Option<String>,
    /// Bearer token of a catalog service (a WAREHOUSE such as paimon+rest://host:port/wh);
    /// default: LAKESCOPE_CATALOG_TOKEN.
    #[arg(long, global = true)]
    catalog_token: Option<String>,
    /// OAuth2 client credentials ID:SECRET of an Iceberg REST catalog, exchanged for its bearer
    /// token at the catalog's /v1/oauth/tokens; default: LAKESCOPE_CATALOG_CREDENTIAL.
    #[arg(long, global = true, value_name = "ID:SECRET")]
    catalog_credential: Option<String>,
    /// Seconds a catalog service request (answer and whole body) may take before it fails
    /// [default: LAKESCOPE_CATALOG_TIMEOUT, or 30].
    #[arg(long, global = true, value_name = "SECS")]
    catalog_timeout: Option<f64>,
}

impl RemoteArgs {
    /// The catalog secrets of this run: the flags, else the environment (memory only).
    fn catalog_secrets(&self) -> CatalogSecrets {
        let pick = |flag: &Option<String>, var: &str| {
            flag.clone()
                .or_else(|| std::env::var(var).ok())
                .filter(|t| !t.is_empty())
        };
        CatalogSecrets {
            token: pick(&self.catalog_token, "LAKESCOPE_CATALOG_TOKEN"),
            credential: pick(&self.catalog_credential, "LAKESCOPE_CATALOG_CREDENTIAL"),
        }
    }

    /// The per-request timeout of catalog services.
    fn catalog_timeout(&self) -> Result<std::time::Duration, String> {
        let text = std::env::var("LAKESCOPE_CATALOG_TIMEOUT").ok();
        let secs = match (self.catalog_timeout, text.as_deref().map(str::trim)) {
            (Some(s), _) => s,
            (None, Some(t)) if !t.is_empty() => t
                .parse()
                .map_err(|_| format!("LAKESCOPE_CATALOG_TIMEOUT={t}: not a number of seconds"))?,
            _ => DEFAULT_CATALOG_TIMEOUT_SECS,
        };
        std::time::Duration::try_from_secs_f64(secs)
            .ok()
            .filter(|d| !d.is_zero())
            .ok_or_else(|| format!("catalog timeout {secs}: give a positive number of seconds"))
    }
}

/// How long a catalog request may take by default (seconds).
const DEFAULT_CATALOG_TIMEOUT_SECS: f64 = 30.0;

impl RemoteArgs {
    fn store_options(&self) -> StoreOptions {
        let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        StoreOptions {
            s3_endpoint: self
                .s3_endpoint
                .clone()
                .or_else(|| env("AWS_ENDPOINT_URL_S3"))
                .or_else(|| env("AWS_ENDPOINT_URL")),
            s3_region: self
                .s3_region
                .clone()
                .or_else(|| env("AWS_REGION"))
                .or_else(|| env("AWS_DEFAULT_REGION")),
            s3_path_style: self.s3_path_style,
            presign_endpoint: self.presign_endpoint.clone(),
            credentials: lakescope_storage::s3::S3Credentials::from_env(),
            ..StoreOptions::default()
        }
    }
}

/// The remote options of this run (set once in `run`).
static STORE_OPTIONS: std::sync::OnceLock<StoreOptions> = std::sync::OnceLock::new();

/// The catalog secrets and request timeout of this run (set once in `run`).
static CATALOG: std::sync::OnceLock<(CatalogSecrets, std::time::Duration)> =
    std::sync::OnceLock::new();

/// How rows are printed.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Format {
    /// One canonical JSON object per row, the lines sorted (printed once every row is read).
    Jsonl,
    /// RFC 4180 CSV with a header line.
    Csv,
    /// An aligned text table, printed as the rows come (aligned on its first 1,000 rows).
    Table,
}

#[derive(Subcommand)]
enum Command {
    /// List the databases and tables of a warehouse.
    Tables {
        /// Warehouse: a local path or file:// URI.
        warehouse: String,
    },
    /// Print the rows of a table (or system table such as db.t$snapshots) at a point in time.
    Scan {
        /// Warehouse: a local path or file:// URI.
        warehouse: String,
        /// <DB>.<TABLE>, or <DB>.<TABLE>$<SYSTEM> for a system table; <DB>.<TABLE>$branch_<NAME>
        /// (and <DB>.<TABLE>$branch_<NAME>$<SYSTEM>) for a Paimon branch, whose own snapshot
        /// ids and tags --snapshot and --tag then name.
        table: String,
        /// Read this snapshot id.
        #[arg(long, conflicts_with_all = ["tag", "timestamp_millis"])]
        snapshot: Option<i64>,
        /// Read the snapshot of this tag (Iceberg: a tag ref, read with its snapshot's schema).
        #[arg(long, conflicts_with = "timestamp_millis")]
        tag: Option<String>,
        /// Read the head of this branch (Paimon: branch/branch-<NAME>, with the branch's latest
        /// schema; Iceberg: a branch ref, with the table's current schema; `main`: the table);
        /// with --timestamp-millis, the Paimon branch's own snapshot at that time.
        #[arg(long, conflicts_with_all = ["snapshot", "tag", "incremental_between"])]
        branch: Option<String>,
        /// Read the latest snapshot committed at or before this time (epoch milliseconds).
        #[arg(long)]
        timestamp_millis: Option<i64>,
        /// Read the changes between two snapshot ids or two tags: START,END (START exclusive).
        #[arg(long, conflicts_with_all = ["snapshot", "tag", "timestamp_millis"])]
        incremental_between: Option<String>,
        /// incremental-between-scan-mode: auto, delta, changelog or diff (default: the table option).
        #[arg(long, requires = "incremental_between")]
        incremental_mode: Option<String>,
        /// Only these columns, comma-separated, in this order.
        #[arg(long, value_delimiter = ',')]
        columns: Option<Vec<String>>,
        /// At most this many rows.
        #[arg(long)]
        limit: Option<usize>,
        /// Only rows where this holds, e.g. "a = 'x' AND n >= 3", "b IS NULL", "c IN (1, 2)",
        /// "s LIKE 'ab%'"; dates and timestamps as strings ('2024-01-31 10:00:00').
        #[arg(long)]
        filter: Option<String>,
        /// Output format.
        #[arg(long, value_enum, default_value = "table")]
        format: Format,
        /// Read the splits of a Paimon table on this many threads, rows printed in the same
        /// order as with 1 (1: on the main thread) [default: every core].
        #[arg(long, value_name = "N", value_parser = threads::parse)]
        threads: Option<std::num::NonZeroUsize>,
    },
    /// List the snapshots of a table (the same as scanning <DB>.<TABLE>$snapshots).
    Snapshots {
        /// Warehouse: a local path or file:// URI.
        warehouse: String,
        /// <DB>.<TABLE>
        table: String,
        /// The snapshots of this Paimon branch (<DB>.<TABLE>$branch_<NAME>$snapshots).
        #[arg(long)]
        branch: Option<String>,
        /// Output format.
        #[arg(long, value_enum, default_value = "table")]
        format: Format,
    },
    /// Benchmark read: read the whole table, count rows and touch every column without printing
    /// them; prints one JSON line (rows, checksum, in-process seconds).
    BenchRead {
        /// Warehouse: a local path or file:// URI.
        warehouse: String,
        /// <DB>.<TABLE>
        table: String,
        /// Read this snapshot id (default: the latest).
        #[arg(long)]
        snapshot: Option<i64>,
        /// Read the splits on this many threads (1: on the main thread) [default: every core].
        #[arg(long, value_name = "N", value_parser = threads::parse)]
        threads: Option<std::num::NonZeroUsize>,
    },
    /// Benchmark planning: plan a scan of a snapshot (manifests replayed, live files grouped
    /// into splits, each run on a freshly opened table) RUNS times; prints one JSON line (live
    /// files, splits, manifests skipped by partition stats, milliseconds of each run). For a
    /// system table (<DB>.<TABLE>$files, a tab's rows): reads all its rows RUNS times.
    BenchPlan {
        /// Warehouse: a local path or file:// URI.
        warehouse: String,
        /// <DB>.<TABLE>
        table: String,
        /// Plan this snapshot id (default: the latest).
        #[arg(long)]
        snapshot: Option<i64>,
        /// Only rows where this holds (as `scan --filter`): prunes manifests, partitions, files.
        #[arg(long)]
        filter: Option<String>,
        /// How many times to plan.
        #[arg(long, default_value_t = 5)]
        runs: usize,
    },
    /// Benchmark write: create <DB>.<TABLE> as `PerfTool writepk` does (primary key id, 4 buckets,
    /// Parquet zstd) and upsert its rows in COMMITS commits through lakescope's writer; prints one
    /// JSON line (rows, data file bytes, seconds, rows/s, MB/s).
    BenchWrite {
        /// Warehouse: a local path or file:// URI.
        warehouse: String,
        /// <DB>.<TABLE> (must not exist).
        table: String,
        /// Number of keys (every key is written by 2 of the 5 commits).
        #[arg(long, default_value_t = 2_000_000)]
        keys: i64,
        /// Number of commits.
        #[arg(long, default_value_t = 5)]
        commits: i32,
        /// Rows per generated Arrow batch.
        #[arg(long, default_value_t = 65_536)]
        batch_rows: usize,
    },
    /// Rows inserted, deleted and updated between two snapshots (ids or tag names).
    Diff {
        /// Warehouse: a local path or file:// URI.
        warehouse: String,
        /// <DB>.<TABLE>
        table: String,
        /// The older snapshot: id, tag name (or tag:<name>), latest, for Iceberg also a branch
        /// name (or branch:<name>); 0 = the empty table. An Iceberg branch reads with the
        /// table's current schema, a tag or id with its snapshot's.
        #[arg(long)]
        from: String,
        /// The newer snapshot, named as --from is (an Iceberg branch such as main too).
        #[arg(long)]
        to: String,
        /// Output format (a leading `_change` column: insert, delete, update_before, update_after).
        #[arg(long, value_enum, default_value = "table")]
        format: Format,
    },
    /// List the schema versions of a table (the same as scanning <DB>.<TABLE>$schemas).
    Schema {
        /// Warehouse: a local path or file:// URI.
        warehouse: String,
        /// <DB>.<TABLE>
        table: String,
        /// Output format.
        #[arg(long, value_enum, default_value = "table")]
        format: Format,
    },
    /// Run Flink SQL statements: -e 'SQL' or -f FILE, in one session (CREATE CATALOG, USE,
    /// CREATE TABLE, INSERT, SELECT, ...). Failing statements print
    /// `error: statement N (line L, column C): ...` to stderr; the exit code is then 1.
    Sql(sql::Args),
    /// Append the rows of a CSV or Parquet file to a Paimon or Iceberg table in one snapshot (of
    /// a warehouse, or of a REST catalog: committed through Paimon's commit endpoint or
    /// Iceberg's updateTable).
    Insert(insert::Args),
    /// Development presign endpoint for one bucket (see presign_server.rs for the contract).
    PresignServer(presign_server::Args),
}

fn main() -> ExitCode {
    let started = std::time::Instant::now();
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(cli, started)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// This run's catalog secrets and catalog request timeout (`--catalog-*`; the defaults before
/// the command line is read).
fn catalog_settings() -> (CatalogSecrets, std::time::Duration) {
    CATALOG.get().cloned().unwrap_or_else(|| {
        let default = std::time::Duration::from_secs_f64(DEFAULT_CATALOG_TIMEOUT_SECS);
        (CatalogSecrets::default(), default)
    })
}

/// Opens a warehouse (a path, file://, http(s):// or s3://bucket/prefix) or a catalog service
/// (paimon+rest://host:port/warehouse).
async fn open_catalog(warehouse: &str) -> Result<Catalog, String> {
    open_catalog_typed(warehouse)
        .await
        .map_err(|e| e.to_string())
}

/// [`open_catalog`] with the engine's error (also what each scan worker thread calls).
async fn open_catalog_typed(warehouse: &str) -> lakescope_engine::Result<Catalog> {
    let options = STORE_OPTIONS.get_or_init(StoreOptions::default);
    let address = CatalogAddress::parse(warehouse)?;
    let (secrets, timeout) = catalog_settings();
    let stores = std::rc::Rc::new(stores::NativeStores::new(options.clone(), timeout));
    let transport = stores.catalog_transport(warehouse)?;
    address.open(secrets, transport, stores).await
}

fn parse_table(text: &str) -> Result<TableRef, String> {
    text.parse()
}

async fn run(cli: Cli, started: std::time::Instant) -> Result<(), String> {
    let options = STORE_OPTIONS.get_or_init(|| cli.remote.store_options());
    let timeout = cli.remote.catalog_timeout()?;
    CATALOG.get_or_init(|| (cli.remote.catalog_secrets(), timeout));
    match cli.command {
        Command::PresignServer(args) => presign_server::run(&args, options),
        Command::Sql(args) => sql::run(&args, options).await,
        Command::Insert(args) => insert::run(&args).await,
        Command::Tables { warehouse } => {
            let tree = open_catalog(&warehouse)
                .await?
                .tree()
                .await
                .map_err(|e| e.to_string())?;
            for db in tree {
                for t in db.tables {
                    println!("{}.{}", db.name, t.name);
                }
            }
            Ok(())
        }
        Command::Scan {
            warehouse,
            table,
            snapshot,
            tag,
            branch,
            timestamp_millis,
            incremental_between,
            incremental_mode,
            columns,
            limit,
            filter,
            format,
            threads,
        } => {
            let filter = filter
                .as_deref()
                .map(parse_filter)
                .transpose()
                .map_err(|e| e.to_string())?;
            let at = match (snapshot, tag, timestamp_millis) {
                _ if incremental_between.is_some() => {
                    let between = incremental_between.unwrap_or_default();
                    Version::parse_incremental_between(&between, incremental_mode.as_deref())
                        .map_err(|e| e.to_string())?
                        .ok_or_else(|| {
                            format!("--incremental-between '{between}': expected START,END")
                        })?
                }
                (_, _, ms) if branch.is_some() => {
                    let branch = branch.unwrap_or_default();
                    match ms {
                        Some(ms) => Version::on_branch(&branch, Version::TimestampMillis(ms))
                            .map_err(|e| e.to_string())?,
                        None => Version::Branch(branch),
                    }
                }
                (Some(id), _, _) => Version::SnapshotId(id),
                (_, Some(tag), _) => Version::Tag(tag),
                (_, _, Some(ms)) => Version::TimestampMillis(ms),
                _ => Version::Latest,
            };
            let request = ScanRequest {
                at,
                columns,
                limit,
                filter,
            };
            let threads = threads.unwrap_or_else(threads::default);
            scan_and_print(&warehouse, &table, &request, format, threads).await
        }
        Command::BenchRead {
            warehouse,
            table,
            snapshot,
            threads,
        } => {
            let table_ref = parse_table(&table)?;
            let catalog = open_catalog(&warehouse).await?;
            let threads = threads.unwrap_or_else(threads::default);
            let opener = std::sync::Arc::new(threads::SameWarehouse { warehouse });
            let line =
                bench::bench_read(&catalog, opener, &table_ref, snapshot, threads, started).await?;
            println!("{line}");
            Ok(())
        }
        Command::BenchPlan {
            warehouse,
            table,
            snapshot,
            filter,
            runs,
        } => {
            let table_ref = parse_table(&table)?;
            let catalog = open_catalog(&warehouse).await?;
            let line = if table_ref.system_table().is_some() {
                if snapshot.is_some() || filter.is_some() {
                    return Err(format!(
                        "bench-plan {table_ref}: --snapshot and --filter apply to a table's plan, not to a system table"
                    ));
                }
                bench::bench_system_table(&catalog, &table_ref, runs).await?
            } else {
                bench::bench_plan(&catalog, &table_ref, snapshot, filter.as_deref(), runs).await?
            };
            println!("{line}");
            Ok(())
        }
        Command::BenchWrite {
            warehouse,
            table,
            keys,
            commits,
            batch_rows,
        } => {
            let table_ref = parse_table(&table)?;
            let catalog = open_catalog(&warehouse).await?;
            let line = bench::bench_write(&catalog, &table_ref, keys, commits, batch_rows, started)
                .await?;
            println!("{line}");
            Ok(())
        }
        Command::Diff {
            warehouse,
            table,
            from,
            to,
            format,
        } => diff_and_print(&warehouse, &table, &from, &to, format).await,
        Command::Snapshots {
            warehouse,
            table,
            branch,
            format,
        } => {
            let table = match branch {
                Some(b) => parse_table(&table)?.on_branch(&b).to_string(),
                None => table,
            };
            scan_system(&warehouse, &table, "snapshots", format).await
        }
        Command::Schema {
            warehouse,
            table,
            format,
        } => scan_system(&warehouse, &table, "schemas", format).await,
    }
}

async fn scan_system(
    warehouse: &str,
    table: &str,
    system: &str,
    format: Format,
) -> Result<(), String> {
    let table_ref = parse_table(table)?;
    let branch = table_ref.branch().map(str::to_string);
    let mut table_ref = TableRef {
        system: Some(system.to_string()),
        ..table_ref
    };
    if let Some(b) = branch {
        table_ref = table_ref.on_branch(&b);
    }
    let request = ScanRequest::default();
    let one = std::num::NonZeroUsize::MIN;
    scan_and_print(warehouse, &table_ref.to_string(), &request, format, one).await
}

/// Reads a table (its splits on `threads` threads, in plan order) and prints its rows as they
/// are read (JSON Lines once all are read: they are sorted).
async fn scan_and_print(
    warehouse: &str,
    table: &str,
    request: &ScanRequest,
    format: Format,
    threads: std::num::NonZeroUsize,
) -> Result<(), String> {
    let table_ref = parse_table(table)?;
    let catalog = open_catalog(warehouse).await?;
    let opener = std::sync::Arc::new(threads::SameWarehouse {
        warehouse: warehouse.to_string(),
    });
    let stdout = std::io::stdout();
    let mut sink = Printed {
        printer: output::Printer::new(std::io::BufWriter::new(stdout.lock()), format),
        closed: false,
    };
    parallel_scan::scan_into(&catalog, opener, &table_ref, request, threads, &mut sink)
        .await
        .map_err(|e| e.to_string())?;
    if sink.closed {
        return Ok(());
    }
    sink.printer.finish().map_err(|e| e.to_string())
}

/// A scan's rows printed as they are read; a reader that closed the pipe (`| head`) ends the
/// read quietly.
struct Printed<W: std::io::Write> {
    printer: output::Printer<W>,
    closed: bool,
}

impl<W: std::io::Write> Printed<W> {
    /// `Ok(false)` once the pipe is closed.
    fn printing(
        &mut self,
        printed: Result<(), Box<dyn std::error::Error>>,
    ) -> lakescope_engine::Result<bool> {
        match printed {
            Ok(()) => Ok(true),
            Err(e) if is_broken_pipe(e.as_ref()) => {
                self.closed = true;
                Ok(false)
            }
            Err(e) => Err(lakescope_engine::Error::Invalid(format!(
                "printing the rows: {e}"
            ))),
        }
    }
}

impl<W: std::io::Write> parallel_scan::RowSink for Printed<W> {
    fn schema(&mut self, schema: &arrow_schema::SchemaRef) -> lakescope_engine::Result<()> {
        let printed = self.printer.schema(schema);
        self.printing(printed).map(|_| ())
    }

    fn batch(&mut self, batch: arrow_array::RecordBatch) -> lakescope_engine::Result<bool> {
        if self.closed {
            return Ok(false);
        }
        let printed = self.printer.batch(&batch);
        self.printing(printed)
    }
}

fn is_broken_pipe(e: &(dyn std::error::Error + 'static)) -> bool {
    e.downcast_ref::<std::io::Error>()
        .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
}

async fn diff_and_print(
    warehouse: &str,
    table: &str,
    from: &str,
    to: &str,
    format: Format,
) -> Result<(), String> {
    let table_ref = parse_table(table)?;
    let from_version = Version::parse_diff_side(from).map_err(|e| format!("--from {from}: {e}"))?;
    let to_version = Version::parse_diff_side(to)
        .map_err(|e| format!("--to {to}: {e}"))?
        .ok_or_else(|| format!("--to {to}: not a snapshot"))?;
    let diff = open_catalog(warehouse)
        .await?
        .table(&table_ref)
        .await
        .map_err(|e| e.to_string())?
        .diff(&table_ref, from_version.as_ref(), &to_version, &mut |_| {})
        .await
        .map_err(|e| e.to_string())?;
    print_diff(&diff, format)?;
    let changed = diff.num_rows();
    match diff.read {
        DiffRead::Paimon { buckets, files } => eprintln!(
            "{changed} changed rows; read {files} files in {buckets} (partition, bucket)s"
        ),
        DiffRead::Iceberg { files, skipped } => eprintln!(
            "{changed} changed rows; read {files} data files, skipped {skipped} unchanged"
        ),
    }
    Ok(())
}

/// Writes the changed rows to stdout and the per-partition counts to stderr.
fn print_diff(diff: &TableDiff, format: Format) -> Result<(), String> {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    output::write(&mut out, &diff.schema, &diff.batches, format).map_err(|e| e.to_string())?;
    for p in &diff.partitions {
        let values: Vec<String> = p.partition.iter().map(|v| v.to_string()).collect();
        eprintln!(
            "partition [{}]: {} inserted, {} deleted, {} updated",
            values.join(", "),
            p.inserted,
            p.deleted,
            p.updated
        );
    }
    Ok(())
}
