//! Where a table's files are: branch folders, partition and bucket directories, data and index
//! files.

use super::Table;
use crate::error::{Error, Result};
use crate::spec::binary_row::Datum;
use crate::spec::manifest::DataFileMeta;
use lakescope_storage::join;

/// Bucket number of the postpone bucket mode (`bucket = -2`).
pub const POSTPONE_BUCKET: i32 = -2;

/// The branch every table has, kept in the table folder itself.
pub const MAIN_BRANCH: &str = "main";

/// Hive-style escaping of a partition path component, as Paimon's `PartitionPathUtils`.
pub fn escape_path_name(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        let escape = matches!(
            c,
            '\u{01}'
                ..='\u{1F}'
                    | '"'
                    | '#'
                    | '%'
                    | '\''
                    | '*'
                    | '/'
                    | ':'
                    | '='
                    | '?'
                    | '\\'
                    | '\u{7F}'
                    | '{'
                    | '['
                    | ']'
                    | '^'
        );
        if escape {
            out.push_str(&format!("%{:02X}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// The folder name prefix of a branch (`branch/branch-<name>`).
pub const BRANCH_PREFIX: &str = "branch-";

/// Where branch `branch` of the table at `table` keeps its metadata (Java's
/// `BranchManager.branchPath`): the table itself for `main`. A name that is empty or would
/// leave the folder (`/`, `..`) is refused.
pub fn branch_path(table: &str, branch: &str) -> Result<String> {
    if branch == MAIN_BRANCH {
        return Ok(table.to_string());
    }
    if branch.trim().is_empty()
        || branch.contains('/')
        || branch.contains('\\')
        || branch == ".."
        || branch == "."
    {
        return Err(Error::Invalid(format!(
            "'{branch}' is not a branch name of {table}"
        )));
    }
    Ok(join(
        &join(table, "branch"),
        &format!("{BRANCH_PREFIX}{branch}"),
    ))
}

impl Table {
    /// The partition directory part `k1=v1/k2=v2` for these partition values (in partition-key
    /// order), rendered as Paimon does: `partition.legacy-name` decides the rendering (see
    /// [`Datum::to_partition_string`]), NULL, empty and whitespace-only values become
    /// `partition.default-name`, and names and values are Hive-escaped.
    pub fn partition_path(&self, partition_values: &[Datum]) -> Result<String> {
        let parts: Vec<String> = self
            .partition_spec(partition_values)?
            .iter()
            .map(|(name, text)| format!("{}={}", escape_path_name(name), escape_path_name(text)))
            .collect();
        Ok(parts.join("/"))
    }

    /// The partition spec (key name, value text) of these partition values, unescaped: the
    /// texts of [`Table::partition_path`] (a REST catalog's partition statistics name
    /// partitions this way).
    pub fn partition_spec(&self, partition_values: &[Datum]) -> Result<Vec<(String, String)>> {
        let options = self.options();
        let legacy = options.partition_legacy_name()?;
        let default_name = options.partition_default_name();
        let fields = self.schema.partition_fields();
        if fields.len() != partition_values.len() {
            return Err(Error::Invalid(format!(
                "table {} has {} partition keys but {} partition values were given",
                self.path,
                fields.len(),
                partition_values.len()
            )));
        }
        Ok(fields
            .iter()
            .zip(partition_values)
            .map(|(field, value)| {
                let text = value
                    .to_partition_string(&field.data_type, legacy)
                    .filter(|s| !s.trim().is_empty())
                    .unwrap_or_else(|| default_name.clone());
                (field.name.clone(), text)
            })
            .collect())
    }

    /// The bucket directory name: `bucket-<b>`, or `bucket-postpone` for bucket -2.
    pub fn bucket_dir(bucket: i32) -> String {
        if bucket == POSTPONE_BUCKET {
            "bucket-postpone".into()
        } else {
            format!("bucket-{bucket}")
        }
    }

    /// Store key of a data (or changelog) file: `<table>[/<data-file.path-directory>]/<k1>=<v1>/…/bucket-<b>/<file_name>`.
    ///
    /// `partition_values` must come from the manifest entry's `_PARTITION` BinaryRow (never parse
    /// them from a path). When the file has an `external_path`, that location's key in the store
    /// is returned instead ([`Table::external_file_key`]).
    pub fn data_file_path(
        &self,
        partition_values: &[Datum],
        bucket: i32,
        file: &DataFileMeta,
    ) -> Result<String> {
        match self.external_data_file_key(file) {
            Some(key) => key,
            None => Ok(join(
                &self.bucket_path(partition_values, bucket)?,
                &file.file_name,
            )),
        }
    }

    /// Store key of the directory of a partition's bucket:
    /// `<table>[/<data-file.path-directory>]/<k1>=<v1>/…/bucket-<b>` (see
    /// [`Table::data_file_path`]).
    pub fn bucket_path(&self, partition_values: &[Datum], bucket: i32) -> Result<String> {
        let mut dir = self.path.clone();
        if let Some(sub) = self.options().data_file_path_directory() {
            dir = join(&dir, &sub);
        }
        let partition = self.partition_path(partition_values)?;
        if !partition.is_empty() {
            dir = join(&dir, &partition);
        }
        Ok(join(&dir, &Self::bucket_dir(bucket)))
    }

    /// [`Table::data_file_path`] of a file of the bucket whose [`Table::bucket_path`] is
    /// `bucket_path` (a caller listing many files of one bucket builds the directory once).
    pub fn data_file_path_in(&self, bucket_path: &str, file: &DataFileMeta) -> Result<String> {
        match self.external_data_file_key(file) {
            Some(key) => key,
            None => Ok(join(bucket_path, &file.file_name)),
        }
    }

    /// The store key of `file`'s `external_path`, if it has one.
    fn external_data_file_key(&self, file: &DataFileMeta) -> Option<Result<String>> {
        let external = file.external_path.as_deref().filter(|p| !p.is_empty())?;
        Some(self.external_file_key(&file.file_name, external))
    }

    /// Store key of an index file: `<table>/index/<name>`.
    pub fn index_file_path(&self, file_name: &str) -> String {
        join(&self.key("index"), file_name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::fixtures::table_with;

    #[tokio::test(flavor = "current_thread")]
    async fn data_file_paths() {
        let t = table_with(&[]).await;
        let file = DataFileMeta {
            file_name: "data-1.parquet".into(),
            ..Default::default()
        };
        let p = t
            .data_file_path(
                &[Datum::String("2024-01-01".into()), Datum::Int(3)],
                1,
                &file,
            )
            .unwrap();
        assert_eq!(p, "db.db/t/dt=2024-01-01/h=3/bucket-1/data-1.parquet");
        let p = t
            .data_file_path(&[Datum::String(" ".into()), Datum::Null], 0, &file)
            .unwrap();
        assert_eq!(p, "db.db/t/dt=NULLP/h=NULLP/bucket-0/data-1.parquet");
        let p = t
            .data_file_path(
                &[Datum::String("a/b:c=d%".into()), Datum::Int(-1)],
                -2,
                &file,
            )
            .unwrap();
        assert_eq!(
            p,
            "db.db/t/dt=a%2Fb%3Ac%3Dd%25/h=-1/bucket-postpone/data-1.parquet"
        );
        assert!(t.data_file_path(&[], 0, &file).is_err());
        // the fixture's memory store has no root location: an external file is refused
        let ext = DataFileMeta {
            external_path: Some("s3://bucket/ext/data-1.parquet".into()),
            ..file
        };
        let refused = t.data_file_path(&[], 0, &ext).unwrap_err().to_string();
        assert!(
            refused.contains(
                "data-1.parquet: unsupported: external data path s3://bucket/ext/data-1.parquet"
            ),
            "{refused}"
        );
        assert_eq!(t.index_file_path("index-1"), "db.db/t/index/index-1");
    }
}
