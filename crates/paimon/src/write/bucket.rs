//! Fixed-bucket placement exactly as Java Paimon: `abs(hash(bucket-key BinaryRow) % N)`.
//!
//! The bucket key is `bucket-key`, else the primary key without partition columns. Its
//! BinaryRow (RowKind +I) is hashed with Murmur3 over 4-byte words, seed 42 (Java
//! `BinaryRow.hashCode`, `KeyAndBucketExtractor.bucket`). Bucket-unaware tables use bucket 0.

use super::binary_row::hash_code;
use super::datum::datum_at;
use crate::error::{Error, Result};
use crate::spec::schema::TableSchema;
use crate::spec::types::DataType;
use arrow_array::ArrayRef;

/// Java's `KeyAndBucketExtractor.bucket(hashcode, numBuckets)`.
pub fn bucket_of_hash(hash: i32, num_buckets: i32) -> i32 {
    (hash % num_buckets).abs()
}

/// Chooses the bucket of each row of a table.
#[derive(Debug, Clone)]
pub struct BucketAssigner {
    num_buckets: i32,
    key_idx: Vec<usize>,
    key_types: Vec<DataType>,
}

impl BucketAssigner {
    /// The assigner for a table's schema (fixed `bucket=N`, or bucket-unaware `-1` append).
    pub fn new(schema: &TableSchema) -> Result<Self> {
        let options = schema.core_options();
        let num_buckets = options.bucket()?;
        let mut names = options.bucket_key();
        if names.is_empty() {
            names = if schema.primary_keys.is_empty() {
                Vec::new()
            } else {
                schema.trimmed_primary_keys()
            };
        }
        let key_idx = names
            .iter()
            .map(|n| {
                schema
                    .field_index(n)
                    .ok_or_else(|| Error::Invalid(format!("bucket key column {n} does not exist")))
            })
            .collect::<Result<Vec<_>>>()?;
        let key_types = key_idx
            .iter()
            .map(|i| schema.fields[*i].data_type.clone())
            .collect();
        if num_buckets > 0 && key_idx.is_empty() {
            return Err(Error::Invalid("bucket > 0 needs a bucket key".into()));
        }
        Ok(Self {
            num_buckets,
            key_idx,
            key_types,
        })
    }

    /// `_TOTAL_BUCKETS` of written entries (`-1` when bucket-unaware).
    pub fn total_buckets(&self) -> i32 {
        self.num_buckets
    }

    /// The bucket of row `row` of the table's columns.
    pub fn bucket(&self, columns: &[ArrayRef], row: usize) -> Result<i32> {
        if self.num_buckets <= 0 {
            return Ok(0);
        }
        let key = self
            .key_idx
            .iter()
            .zip(&self.key_types)
            .map(|(i, t)| datum_at(columns[*i].as_ref(), row, t))
            .collect::<Result<Vec<_>>>()?;
        Ok(bucket_of_hash(
            hash_code(&key, &self.key_types)?,
            self.num_buckets,
        ))
    }
}
