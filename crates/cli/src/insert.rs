//! `lakescope insert`: appends the rows of a CSV or Parquet file to a table in one commit: a
//! Paimon or Iceberg table of a warehouse, a Paimon REST catalog's table (its commit endpoint)
//! or an Iceberg REST catalog's table (`updateTable`).

use async_trait::async_trait;
use bytes::Bytes;
use lakescope_engine::upload::{FileKind, FileSource, Upload};
use lakescope_engine::write::SystemEnv;

/// Rows written per chunk (each chunk becomes its own level-0 files).
const CHUNK_ROWS: usize = 65_536;

/// Arguments of `lakescope insert`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Warehouse (a path, file://, s3://…) or a REST catalog
    /// (paimon+rest://host:port/warehouse, iceberg+rest://host:port).
    warehouse: String,
    /// <DB>.<TABLE>: an existing Paimon or Iceberg table (INSERT INTO: Paimon primary-key
    /// tables and Iceberg tables with `write.upsert.enabled` upsert).
    table: String,
    /// A .csv file (with a header row) or a .parquet file; columns are matched by name.
    file: std::path::PathBuf,
}

/// A whole file read into memory.
struct InMemory(Bytes);

#[async_trait(?Send)]
impl FileSource for InMemory {
    fn size(&self) -> u64 {
        self.0.len() as u64
    }

    async fn read(&self, start: u64, end: u64) -> Result<Bytes, String> {
        let (start, end) = (start as usize, end as usize);
        if start > end || end > self.0.len() {
            return Err(format!(
                "bytes {start}..{end} are past the end ({} bytes)",
                self.0.len()
            ));
        }
        Ok(self.0.slice(start..end))
    }
}

/// Inserts the file and prints the rows written and the snapshot committed.
pub async fn run(args: &Args) -> Result<(), String> {
    let name = args.file.display().to_string();
    let kind = FileKind::from_name(&name)
        .ok_or_else(|| format!("{name}: not a .csv or .parquet file: nothing was inserted"))?;
    let bytes = std::fs::read(&args.file).map_err(|e| format!("cannot read {name}: {e}"))?;
    let table_ref = crate::parse_table(&args.table)?;
    let catalog = crate::open_catalog(&args.warehouse).await?;
    let upload = Upload {
        file: &name,
        kind,
        table_name: &args.table,
        chunk_rows: CHUNK_ROWS,
    };
    let source = InMemory(bytes.into());
    let inserted = catalog
        .insert_file(
            &table_ref,
            &SystemEnv::default(),
            &upload,
            &source,
            &mut |_| {},
        )
        .await
        .map_err(|e| e.to_string())?;
    let races = match inserted.retries {
        0 => String::new(),
        n => format!(" (planned again after {n} lost race(s) with other writers)"),
    };
    let snapshot = inserted
        .snapshot
        .map_or_else(|| "none".to_string(), |id| id.to_string());
    println!(
        "inserted {} rows into {}: snapshot {snapshot}{races}",
        inserted.rows, args.table
    );
    Ok(())
}
