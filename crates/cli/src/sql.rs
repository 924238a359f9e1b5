//! `lakescope sql`: runs Flink SQL statements (from -e or a file) in one session and prints their results.

use crate::{output, Format};
use lakescope_engine::session::{Outcome, Session};
use lakescope_engine::write::SystemEnv;
use lakescope_query::DataFusionEngine;
use lakescope_storage::uri::StoreOptions;
use std::rc::Rc;

/// Arguments of `lakescope sql`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Warehouse URI: becomes the current catalog `lakescope` (a Paimon catalog, database `default`).
    #[arg(long)]
    warehouse: Option<String>,
    /// The statements to run (separated by `;`).
    #[arg(
        short = 'e',
        long = "execute",
        conflicts_with = "file",
        required_unless_present = "file"
    )]
    execute: Option<String>,
    /// A file of statements to run.
    #[arg(short = 'f', long = "file")]
    file: Option<std::path::PathBuf>,
    /// Run every statement even after one fails (the exit code is still 1).
    #[arg(long)]
    keep_going: bool,
    /// How rows are printed.
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
}

/// Runs the statements; `Err` carries how many failed (each already reported on stderr).
pub async fn run(args: &Args, options: &StoreOptions) -> Result<(), String> {
    let script = match (&args.execute, &args.file) {
        (Some(sql), _) => sql.clone(),
        (None, Some(path)) => std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?,
        (None, None) => return Err("give statements with -e or a file with -f".into()),
    };
    let mut session = Session::new(
        Rc::new(crate::stores::NativeStores::new(
            options.clone(),
            crate::catalog_settings().1,
        )),
        Rc::new(DataFusionEngine),
        Rc::new(SystemEnv::default()),
    );
    if let Some(warehouse) = &args.warehouse {
        session
            .open_warehouse("lakescope", warehouse)
            .await
            .map_err(|e| format!("--warehouse {warehouse}: {e}"))?;
    }
    let format = args.format;
    let mut stdout = std::io::stdout().lock();
    let failed = session
        .run_script(
            &script,
            args.keep_going,
            &mut |parsed, result| match result {
                Ok(Outcome::Done(message)) => println!("{message}"),
                Ok(Outcome::Rows(rows)) => {
                    if let Err(e) = output::write(&mut stdout, &rows.schema, &rows.batches, format)
                    {
                        eprintln!("error: statement {}: printing rows: {e}", parsed.number);
                    }
                }
                Err(e) => eprintln!(
                    "error: statement {} (line {}, column {}): {}",
                    parsed.number, e.pos.line, e.pos.column, e.message
                ),
            },
        )
        .await;
    match failed {
        0 => Ok(()),
        n => Err(format!("{n} statement(s) failed")),
    }
}
