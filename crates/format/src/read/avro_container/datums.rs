//! The records of an Avro object container read one at a time straight from their bytes by the
//! writer schema, without building a generic value: a reader decodes the fields it knows, moves
//! past the others (and past whole records it does not keep) by reading lengths and skipping
//! bytes, allocating nothing for them.

use super::header::{Cursor, Header};
use apache_avro::schema::{
    InnerDecimalSchema, Name, RecordSchema, ResolvedSchema, UnionSchema, UuidSchema,
};
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
    /// The block's records, read one at a time by the caller (see [`Records::next_record`]).
    pub fn records(&self) -> Records<'_> {
        Records {
            input: Input(Cursor {
                bytes: &self.data,
                at: 0,
            }),
            left: self.count,
            count: self.count,
        }
    }
}

/// The records of one [`Block`], from [`Block::records`].
pub struct Records<'b> {
    input: Input<'b>,
    /// Records not read yet.
    left: u64,
    /// Records the block holds.
    count: u64,
}

impl<'b> Records<'b> {
    /// The input at the start of the next record, which the caller reads to its end (every
    /// field read or skipped by the writer schema) before asking for the next; `None` after the
    /// last, and then bytes left over are an error (the count and the data disagree).
    pub fn next_record(&mut self) -> Result<Option<&mut Input<'b>>, DatumsError> {
        if self.left == 0 {
            let extra = self.input.0.bytes.len().saturating_sub(self.input.0.at);
            if extra == 0 {
                return Ok(None);
            }
            self.input.0.at = self.input.0.bytes.len();
            return Err(
                format!("{extra} bytes after the {} records of a block", self.count).into(),
            );
        }
        self.left -= 1;
        Ok(Some(&mut self.input))
    }
}

/// A position in a block's records, read by Avro's binary encoding.
pub struct Input<'d>(Cursor<'d>);

impl<'d> Input<'d> {
    /// A `long` (or an `int`, an enum's index, a union's branch): a zig-zag varint.
    pub fn long(&mut self) -> Result<i64, DatumsError> {
        Ok(self.0.long()?)
    }

    /// A `bytes` or `string` value: a length, then that many bytes.
    pub fn bytes(&mut self) -> Result<&'d [u8], DatumsError> {
        Ok(self.0.bytes()?)
    }

    /// The next `n` bytes (a `fixed`).
    pub fn take(&mut self, n: usize) -> Result<&'d [u8], DatumsError> {
        Ok(self.0.take(n)?)
    }

    /// How many bytes of the block have been read.
    pub fn position(&self) -> usize {
        self.0.at
    }

    /// How many bytes are left in the block.
    fn left(&self) -> usize {
        self.0.bytes.len().saturating_sub(self.0.at)
    }
}

/// Where an array (or a map) being read is: [`Items::next`] says whether an item follows.
#[derive(Default)]
pub struct Items {
    /// Items of the current block not read yet.
    left: u64,
}

impl Items {
    /// Whether another item follows at `input` (reading a block's count, and its byte size if
    /// given, when one block ends); `false` after the count of 0 that ends the array. A count
    /// larger than the bytes left is an error (every item a manifest holds takes a byte at least).
    pub fn next(&mut self, input: &mut Input<'_>) -> Result<bool, DatumsError> {
        if self.left == 0 {
            let at = input.0.at;
            let count = input.long()?;
            if count == 0 {
                return Ok(false);
            }
            if count < 0 {
                input.long()?;
            }
            let count = count.unsigned_abs();
            if count > input.left() as u64 {
                return Err(format!(
                    "a block of {count} items at byte {at} with {} bytes left",
                    input.left()
                )
                .into());
            }
            self.left = count;
        }
        self.left -= 1;
        Ok(true)
    }
}

/// Reads values of one writer schema: resolves its names and unions, skips values.
pub struct Walker<'s> {
    schema: &'s Schema,
    names: HashMap<Name, &'s Schema>,
}

impl<'s> Walker<'s> {
    /// A walker of the records written with `schema`.
    pub fn new(schema: &'s Schema) -> Result<Self, DatumsError> {
        let resolved = ResolvedSchema::new(schema)
            .map_err(|e| format!("unresolved name in the writer schema: {e}"))?;
        Ok(Walker {
            schema,
            names: resolved.get_names().clone(),
        })
    }

    /// The schema the records were written with.
    pub fn schema(&self) -> &'s Schema {
        self.schema
    }

    /// The schemas of the records `schema` may hold: itself (a name resolved) if a record, the
    /// record branches if a union, else none.
    pub fn records_of(&self, schema: &'s Schema) -> Result<Vec<&'s RecordSchema>, DatumsError> {
        let branches = match schema {
            Schema::Union(union) => union.variants().iter().collect(),
            other => vec![other],
        };
        let mut records = Vec::new();
        for branch in branches {
            let branch = match branch {
                Schema::Ref { name } => self.named(name)?,
                other => other,
            };
            if let Schema::Record(record) = branch {
                records.push(record);
            }
        }
        Ok(records)
    }

    /// The schema of the value at `input` written with `schema`: a union's branch read, a name
    /// resolved, so never a union or a name.
    pub fn value_schema(
        &self,
        schema: &'s Schema,
        input: &mut Input<'_>,
    ) -> Result<&'s Schema, DatumsError> {
        let mut schema = schema;
        // a union's branch is never a union; a name is a record, an enum or a fixed
        for _ in 0..3 {
            schema = match schema {
                Schema::Union(union) => self.branch(union, &mut input.0)?,
                Schema::Ref { name } => self.named(name)?,
                other => return Ok(other),
            };
        }
        Err(format!("unresolvable schema {schema:?}").into())
    }

    /// Moves `input` past one value of `schema`, reading lengths and skipping bytes.
    pub fn skip_value(&self, schema: &Schema, input: &mut Input<'_>) -> Result<(), DatumsError> {
        Ok(self.skip(schema, &mut input.0, 0)?)
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
