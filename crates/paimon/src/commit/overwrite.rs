//! INSERT OVERWRITE: which live partitions a commit replaces (static spec, dynamic, or all).

use crate::error::{Error, Result};
use crate::spec::binary_row::Datum;
use crate::spec::schema::TableSchema;
use crate::write::NewFile;

/// Which partitions an INSERT OVERWRITE replaces.
#[derive(Debug, Clone, PartialEq)]
pub enum Overwrite {
    /// `PARTITION (k = v, ...)`: every partition matching these (a prefix or any subset of the
    /// partition keys); the new rows must all match too. An empty spec replaces the whole table.
    Static(Vec<(String, Datum)>),
    /// Paimon's default dynamic partition overwrite: only partitions receiving new rows are
    /// replaced (an unpartitioned table is replaced whole).
    Dynamic,
}

impl Overwrite {
    fn matches_static(
        schema: &TableSchema,
        spec: &[(String, Datum)],
        partition: &[Datum],
    ) -> Result<bool> {
        for (name, value) in spec {
            let i = schema
                .partition_keys
                .iter()
                .position(|k| k == name)
                .ok_or_else(|| {
                    Error::Invalid(format!("overwrite: {name} is not a partition column"))
                })?;
            if partition.get(i) != Some(value) {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Whether the live partition `partition` is replaced, given the new files.
    pub fn selects(
        &self,
        schema: &TableSchema,
        partition: &[Datum],
        new_files: &[NewFile],
    ) -> Result<bool> {
        match self {
            Overwrite::Static(spec) => Self::matches_static(schema, spec, partition),
            Overwrite::Dynamic => Ok(schema.partition_keys.is_empty()
                || new_files
                    .iter()
                    .any(|f| f.partition.as_slice() == partition)),
        }
    }

    /// Static overwrite only accepts rows of the overwritten partitions.
    pub fn check_new_files(&self, schema: &TableSchema, new_files: &[NewFile]) -> Result<()> {
        if let Overwrite::Static(spec) = self {
            for f in new_files {
                if !Self::matches_static(schema, spec, &f.partition)? {
                    return Err(Error::Invalid(format!(
                        "INSERT OVERWRITE PARTITION {spec:?}: a row belongs to partition {:?}",
                        f.partition
                    )));
                }
            }
        }
        Ok(())
    }
}
