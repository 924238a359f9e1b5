//! `lakescope`: look into Paimon and Iceberg lakes from the command line.

mod output;

use clap::{Parser, Subcommand, ValueEnum};
use lakescope_engine::scan::{ScanRequest, TimeTravel};
use lakescope_engine::{Catalog, TableRef};
use lakescope_storage::LocalStore;
use std::process::ExitCode;
use std::rc::Rc;

#[derive(Parser)]
#[command(name = "lakescope", version, about = "Look into Apache Paimon and Iceberg lakes", long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// How rows are printed.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Format {
    /// One canonical JSON object per row.
    Jsonl,
    /// RFC 4180 CSV with a header line.
    Csv,
    /// An aligned text table.
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
        /// <DB>.<TABLE>, or <DB>.<TABLE>$<SYSTEM> for a system table.
        table: String,
        /// Read this snapshot id.
        #[arg(long, conflicts_with_all = ["tag", "timestamp_millis"])]
        snapshot: Option<i64>,
        /// Read the snapshot of this tag.
        #[arg(long, conflicts_with = "timestamp_millis")]
        tag: Option<String>,
        /// Read the latest snapshot committed at or before this time (epoch milliseconds).
        #[arg(long)]
        timestamp_millis: Option<i64>,
        /// Only these columns, comma-separated, in this order.
        #[arg(long, value_delimiter = ',')]
        columns: Option<Vec<String>>,
        /// At most this many rows.
        #[arg(long)]
        limit: Option<usize>,
        /// Output format.
        #[arg(long, value_enum, default_value = "table")]
        format: Format,
    },
    /// List the snapshots of a table (the same as scanning <DB>.<TABLE>$snapshots).
    Snapshots {
        /// Warehouse: a local path or file:// URI.
        warehouse: String,
        /// <DB>.<TABLE>
        table: String,
        /// Output format.
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
}

fn main() -> ExitCode {
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
    match runtime.block_on(run(cli)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn open_catalog(warehouse: &str) -> Catalog {
    Catalog::new(Rc::new(LocalStore::from_uri(warehouse)))
}

fn parse_table(text: &str) -> Result<TableRef, String> {
    text.parse()
}

async fn run(cli: Cli) -> Result<(), String> {
    match cli.command {
        Command::Tables { warehouse } => {
            let tree = open_catalog(&warehouse)
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
            timestamp_millis,
            columns,
            limit,
            format,
        } => {
            let at = match (snapshot, tag, timestamp_millis) {
                (Some(id), _, _) => TimeTravel::SnapshotId(id),
                (_, Some(tag), _) => TimeTravel::Tag(tag),
                (_, _, Some(ms)) => TimeTravel::TimestampMillis(ms),
                _ => TimeTravel::Latest,
            };
            let request = ScanRequest { at, columns, limit };
            scan_and_print(&warehouse, &table, &request, format).await
        }
        Command::Snapshots {
            warehouse,
            table,
            format,
        } => scan_system(&warehouse, &table, "snapshots", format).await,
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
    let mut table_ref = parse_table(table)?;
    table_ref.system = Some(system.to_string());
    let request = ScanRequest::default();
    scan_and_print(warehouse, &table_ref.to_string(), &request, format).await
}

async fn scan_and_print(
    warehouse: &str,
    table: &str,
    request: &ScanRequest,
    format: Format,
) -> Result<(), String> {
    let table_ref = parse_table(table)?;
    let result = open_catalog(warehouse)
        .scan(&table_ref, request)
        .await
        .map_err(|e| e.to_string())?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    output::write(&mut out, &result.schema, &result.batches, format).map_err(|e| e.to_string())
}
