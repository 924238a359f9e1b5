//! The records of an Avro object container one at a time as byte slices, each found by walking
//! the writer schema without building a value: a reader looks at a record's leading fields and
//! decodes (with apache-avro) only the records it keeps. The walk reads lengths and skips bytes;
//! it allocates nothing per record.

use super::header::{Cursor, Header};
use apache_avro::schema::{InnerDecimalSchema, Name, ResolvedSchema, UnionSchema, UuidSchema};
use apache_avro::{Codec, Schema};
use std::borrow::Cow;
use std::collections::HashMap;
use std::str::FromStr;

/// The metadata key holding a container's writer schema.
const SCHEMA_KEY: &str = "avro.schema";

/// A container's data blocks, read one at a time.
pub struct Blocks<'a> {
    codec: Codec,
    sync: &'a [u8],
    rest: Cursor<'a>,
}

/// Why a container cannot be read this way.
#[derive(Debug)]
pub enum DatumsError {
    /// The container's compression codec is not one apache-avro decodes (its name).
    UnknownCodec(String),
    /// The bytes are not a valid container, or a record does not match the schema.
    Invalid(String),
}

impl std::fmt::Display for DatumsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::UnknownCodec(codec) => write!(f, "Avro compression codec '{codec}'"),
            Self::Invalid(why) => f.write_str(why),
        }
    }
}

impl DatumsError {
    /// This error as the crate's [`crate::Error`] for container `file`: an unknown codec is
    /// unsupported (as [`crate::spec::avro_names::open_error`] says it), anything else corrupt.
    pub fn into_error(self, file: &str) -> crate::Error {
        match self {
            Self::UnknownCodec(codec) => crate::spec::avro_names::unknown_codec(file, &codec),
            Self::Invalid(why) => crate::Error::corrupt(file, format!("invalid Avro file: {why}")),
        }
    }
}

impl From<String> for DatumsError {
    fn from(why: String) -> Self {
        Self::Invalid(why)
    }
}

impl<'a> Blocks<'a> {
    /// Opens container `bytes`: its writer schema, and its blocks with their codec (`xz` and
    /// `bzip2` must have been rewritten first, see [`super::readable`]).
    pub fn open(bytes: &'a [u8]) -> Result<(Schema, Self), DatumsError> {
        let header = Header::parse(bytes)?;
        let schema_json = header
            .get(SCHEMA_KEY)
            .ok_or_else(|| format!("no '{SCHEMA_KEY}' in the container header"))?;
        let schema = crate::spec::avro_names::parse_schema(schema_json)
            .map_err(|e| format!("invalid writer schema: {e}"))?;
        let codec_name = header.get(super::CODEC_KEY).unwrap_or(b"null");
        let codec_name = String::from_utf8_lossy(codec_name);
        let codec = match &*codec_name {
            // apache-avro's own names, without the ones a build leaves out (`xz`, `bzip2`).
            "null" | "deflate" | "snappy" | "zstandard" => Codec::from_str(&codec_name)
                .map_err(|_| DatumsError::UnknownCodec(codec_name.to_string()))?,
            _ => return Err(DatumsError::UnknownCodec(codec_name.into_owned())),
        };
        let blocks = Blocks {
            codec,
            sync: header.sync,
            rest: Cursor {
                bytes,
                at: header.end,
            },
        };
        Ok((schema, blocks))
    }

    /// The next data block, decompressed, or `None` after the last one.
    pub fn next_block(&mut self) -> Result<Option<Block<'a>>, DatumsError> {
        if self.rest.at_end() {
            return Ok(None);
        }
        let at = self.rest.at;
        let count = self.rest.long()?;
        let count = u64::try_from(count)
            .map_err(|_| format!("negative record count {count} in the block at byte {at}"))?;
        let data = self.rest.bytes()?;
        if self.rest.take(16)? != self.sync {
            return Err(format!("the block at byte {at} does not end with the sync marker").into());
        }
        let data = match self.codec {
            Codec::Null => Cow::Borrowed(data),
            codec => {
                let mut buffer = data.to_vec();
                codec
                    .decompress(&mut buffer)
                    .map_err(|e| format!("the block at byte {at}: {e}"))?;
                Cow::Owned(buffer)
            }
        };
        Ok(Some(Block { count, data }))
    }
}

/// One decompressed data block: `count` records, back to back.
pub struct Block<'a> {
    /// How many records the block holds.
    pub count: u64,
    /// The records' bytes.
    pub data: Cow<'a, [u8]>,
}

impl Block<'_> {
    /// The block's records one at a time, each split off by `walker`; once all `count` are
    /// read, bytes left over are an error (the count and the data disagree).
    pub fn records<'b>(&'b self, walker: &'b Walker<'b>) -> Records<'b> {
        Records {
            walker,
            rest: &self.data,
            left: self.count,
            count: self.count,
        }
    }
}

/// The records of one [`Block`], from [`Block::records`].
pub struct Records<'b> {
    walker: &'b Walker<'b>,
    rest: &'b [u8],
    /// Records not read yet.
    left: u64,
    /// Records the block holds.
    count: u64,
}

impl<'b> Iterator for Records<'b> {
    type Item = Result<&'b [u8], DatumsError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            if self.rest.is_empty() {
                return None;
            }
            let extra = std::mem::take(&mut self.rest).len();
            return Some(Err(format!(
                "{extra} bytes after the {} records of a block",
                self.count
            )
            .into()));
        }
        match self.walker.split_record(self.rest) {
            Ok((record, rest)) => {
                self.left -= 1;
                self.rest = rest;
                Some(Ok(record))
            }
            Err(e) => {
                // nothing after a record that does not end where the schema says is read
                (self.left, self.rest) = (0, &[]);
                Some(Err(e))
            }
        }
    }
}

/// Walks records of one writer schema: finds where each ends and reads a leading field.
pub struct Walker<'s> {
    schema: &'s Schema,
    names: HashMap<Name, &'s Schema>,
}

impl<'s> Walker<'s> {
    /// A walker for records written with `schema`.
    pub fn new(schema: &'s Schema) -> Result<Self, DatumsError> {
        let resolved = ResolvedSchema::new(schema)
            .map_err(|e| format!("unresolved name in the writer schema: {e}"))?;
        Ok(Walker {
            schema,
            names: resolved.get_names().clone(),
        })
    }

    /// Splits the first record off `data`: `(record, rest)`.
    pub fn split_record<'d>(&self, data: &'d [u8]) -> Result<(&'d [u8], &'d [u8]), DatumsError> {
        let mut cursor = Cursor { bytes: data, at: 0 };
        self.skip(self.schema, &mut cursor, 0)?;
        Ok(data.split_at(cursor.at))
    }

    /// The value of top-level field `field` of `record` if the schema is a record and the field
    /// is `bytes` or a union of `null` and `bytes` (`None` for null); the fields before it are
    /// skipped, the ones after it not read.
    pub fn leading_bytes<'d>(
        &self,
        record: &'d [u8],
        field: &str,
    ) -> Result<Option<&'d [u8]>, DatumsError> {
        let mut cursor = Cursor {
            bytes: record,
            at: 0,
        };
        // Writers may declare the top level as a union with null (pypaimon) or by name.
        let mut schema = self.schema;
        let schema = loop {
            match schema {
                Schema::Union(union) => schema = self.branch(union, &mut cursor)?,
                Schema::Ref { name } => schema = self.named(name)?,
                Schema::Record(record) => break record,
                Schema::Null => return Err("the record is null".to_string().into()),
                _ => return Err(format!("the records are not records, no field '{field}'").into()),
            }
        };
        for f in &schema.fields {
            if f.name != field {
                self.skip(&f.schema, &mut cursor, 1)?;
                continue;
            }
            let mut schema = &f.schema;
            if let Schema::Union(union) = schema {
                schema = self.branch(union, &mut cursor)?;
            }
            return match schema {
                Schema::Null => Ok(None),
                Schema::Bytes => Ok(Some(cursor.bytes()?)),
                _ => Err(format!("field '{field}' is not bytes").into()),
            };
        }
        Err(format!("the writer schema has no field '{field}'").into())
    }

    /// Moves `cursor` past one value of `schema` (`depth`: nesting, bounded against a schema
    /// that refers to itself without end).
    fn skip(&self, schema: &Schema, cursor: &mut Cursor<'_>, depth: usize) -> Result<(), String> {
        if depth > 64 {
            return Err("Avro values nested more than 64 deep".into());
        }
        match schema {
            Schema::Null => {}
            Schema::Boolean => {
                cursor.take(1)?;
            }
            Schema::Int
            | Schema::Long
            | Schema::Date
            | Schema::TimeMillis
            | Schema::TimeMicros
            | Schema::TimestampMillis
            | Schema::TimestampMicros
            | Schema::TimestampNanos
            | Schema::LocalTimestampMillis
            | Schema::LocalTimestampMicros
            | Schema::LocalTimestampNanos
            | Schema::Enum(_) => {
                cursor.long()?;
            }
            Schema::Float => {
                cursor.take(4)?;
            }
            Schema::Double => {
                cursor.take(8)?;
            }
            Schema::Bytes | Schema::String | Schema::BigDecimal => {
                cursor.bytes()?;
            }
            Schema::Uuid(UuidSchema::Bytes | UuidSchema::String) => {
                cursor.bytes()?;
            }
            Schema::Decimal(d) if matches!(d.inner, InnerDecimalSchema::Bytes) => {
                cursor.bytes()?;
            }
            Schema::Decimal(d) => {
                if let InnerDecimalSchema::Fixed(fixed) = &d.inner {
                    cursor.take(fixed.size)?;
                }
            }
            Schema::Uuid(UuidSchema::Fixed(fixed)) | Schema::Fixed(fixed) => {
                cursor.take(fixed.size)?;
            }
            Schema::Duration(_) => {
                cursor.take(12)?;
            }
            Schema::Array(array) => {
                Self::skip_blocks(cursor, |c| self.skip(&array.items, c, depth + 1))?
            }
            Schema::Map(map) => Self::skip_blocks(cursor, |c| {
                c.bytes()?;
                self.skip(&map.types, c, depth + 1)
            })?,
            Schema::Union(union) => {
                let branch = self.branch(union, cursor)?;
                self.skip(branch, cursor, depth + 1)?;
            }
            Schema::Record(record) => {
                for field in &record.fields {
                    self.skip(&field.schema, cursor, depth + 1)?;
                }
            }
            Schema::Ref { name } => self.skip(self.named(name)?, cursor, depth + 1)?,
        }
        Ok(())
    }

    /// Reads a union's branch index: the branch's schema.
    fn branch(
        &self,
        union: &'s UnionSchema,
        cursor: &mut Cursor<'_>,
    ) -> Result<&'s Schema, String> {
        let at = cursor.at;
        let index = cursor.long()?;
        usize::try_from(index)
            .ok()
            .and_then(|i| union.variants().get(i))
            .ok_or_else(|| format!("union branch {index} out of range at byte {at}"))
    }

    /// The schema named `name`.
    fn named(&self, name: &Name) -> Result<&'s Schema, String> {
        self.names
            .get(name)
            .copied()
            .ok_or_else(|| format!("unresolved schema name '{name}'"))
    }

    /// Skips an array's or a map's blocks: a count (negative: followed by the block's byte size,
    /// which is skipped at once), `count` items, until a count of 0. An item that takes no bytes
    /// (a record of nulls) ends its block at once: every other item takes none either.
    fn skip_blocks(
        cursor: &mut Cursor<'_>,
        mut item: impl FnMut(&mut Cursor<'_>) -> Result<(), String>,
    ) -> Result<(), String> {
        loop {
            let at = cursor.at;
            let count = cursor.long()?;
            if count == 0 {
                return Ok(());
            }
            if count < 0 {
                let size = cursor.long()?;
                let size = usize::try_from(size)
                    .map_err(|_| format!("negative block size {size} at byte {at}"))?;
                cursor.take(size)?;
                continue;
            }
            for _ in 0..count {
                let before = cursor.at;
                item(cursor)?;
                if cursor.at == before {
                    break;
                }
            }
        }
    }
}
