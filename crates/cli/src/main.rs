//! `lakescope`: look into Paimon and Iceberg lakes from the command line.

use clap::{Parser, Subcommand};
use lakescope_engine::Catalog;
use lakescope_storage::LocalStore;
use std::process::ExitCode;
use std::rc::Rc;

#[derive(Parser)]
#[command(name = "lakescope", version, about = "Look into Apache Paimon and Iceberg lakes", long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the databases and tables of a warehouse.
    Tables {
        /// Warehouse: a local path or file:// URI.
        warehouse: String,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
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

async fn run(cli: Cli) -> Result<(), String> {
    match cli.command {
        Command::Tables { warehouse } => {
            let catalog = Catalog::new(Rc::new(LocalStore::from_uri(&warehouse)));
            let tree = catalog.tree().await.map_err(|e| e.to_string())?;
            for db in tree {
                for t in db.tables {
                    println!("{}.{}", db.name, t.name);
                }
            }
            Ok(())
        }
    }
}
