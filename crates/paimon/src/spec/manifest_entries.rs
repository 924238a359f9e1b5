//! Data manifest entries decoded straight from their Avro bytes by the writer schema, fields
//! matched by name once per file; an entry of a partition the reader does not keep is skipped.
//!
//! Fields are matched by name, never by position (see [`super::manifest`]): fields this decoder
//! does not know are skipped by their schema, missing optional fields become `None`, missing or
//! null required fields and values of the wrong type are [`Error::Corrupt`] naming the file and
//! the field.

use super::manifest::{DataFileMeta, FileKind, ManifestEntry, SimpleStats};
use crate::error::{Error, Result};
use apache_avro::schema::{RecordField, RecordSchema, SchemaKind};
use apache_avro::Schema;
use lakescope_format::read::avro_container::datums::{Blocks, DatumsError, Input, Items, Walker};

/// Decodes a data or changelog manifest (`manifest/manifest-…`).
pub fn decode_manifest(file_name: &str, bytes: &[u8]) -> Result<Vec<ManifestEntry>> {
    decode_manifest_where(file_name, bytes, |_| Ok(true)).map(|(entries, _)| entries)
}

/// Decodes a data or changelog manifest, keeping only the entries whose partition (its
/// `BinaryRow` bytes) `keep` accepts: the fields of an entry are decoded in the writer's order,
/// and once `_PARTITION` is rejected the rest of the entry is skipped by the schema without
/// building anything, so time and memory grow with the entries kept. Also says whether every
/// entry was kept.
pub fn decode_manifest_where(
    file_name: &str,
    bytes: &[u8],
    mut keep: impl FnMut(&[u8]) -> Result<bool>,
) -> Result<(Vec<ManifestEntry>, bool)> {
    let invalid = |e: DatumsError| Error::from(e.into_error(file_name));
    let (schema, mut blocks) = Blocks::open(bytes).map_err(invalid)?;
    let walker = Walker::new(&schema).map_err(invalid)?;
    let decoder = EntryDecoder::new(file_name, &walker)?;
    let mut entries = Vec::new();
    let mut kept_all = true;
    while let Some(block) = blocks.next_block().map_err(invalid)? {
        if kept_all {
            // every entry so far was kept: likely this block's too (a filter that drops most
            // reserves one block's worth at most); a damaged count is bounded by the block's
            // bytes, as every entry takes one at least
            let count = block.count.min(block.data.len() as u64);
            entries.reserve(usize::try_from(count).unwrap_or(0));
        }
        let mut records = block.records();
        while let Some(input) = records.next_record().map_err(invalid)? {
            match decoder.entry(input, &mut keep)? {
                Some(entry) => entries.push(entry),
                None => kept_all = false,
            }
        }
    }
    Ok((entries, kept_all))
}

/// The fields of a manifest entry this decoder reads.
#[derive(Clone, Copy)]
enum EntryField {
    Kind,
    Partition,
    Bucket,
    TotalBuckets,
    File,
}

impl EntryField {
    fn by_name(name: &str) -> Option<Self> {
        Some(match name {
            "_KIND" => Self::Kind,
            "_PARTITION" => Self::Partition,
            "_BUCKET" => Self::Bucket,
            "_TOTAL_BUCKETS" => Self::TotalBuckets,
            "_FILE" => Self::File,
            _ => return None,
        })
    }
}

/// The fields of `_FILE` (a `DataFileMeta`) this decoder reads.
#[derive(Clone, Copy)]
enum FileField {
    FileName,
    FileSize,
    RowCount,
    MinKey,
    MaxKey,
    KeyStats,
    ValueStats,
    MinSequenceNumber,
    MaxSequenceNumber,
    SchemaId,
    Level,
    ExtraFiles,
    CreationTime,
    DeleteRowCount,
    EmbeddedFileIndex,
    FileSource,
    ValueStatsCols,
    ExternalPath,
    FirstRowId,
    WriteCols,
    WriteColsSequences,
}

impl FileField {
    fn by_name(name: &str) -> Option<Self> {
        Some(match name {
            "_FILE_NAME" => Self::FileName,
            "_FILE_SIZE" => Self::FileSize,
            "_ROW_COUNT" => Self::RowCount,
            "_MIN_KEY" => Self::MinKey,
            "_MAX_KEY" => Self::MaxKey,
            "_KEY_STATS" => Self::KeyStats,
            "_VALUE_STATS" => Self::ValueStats,
            "_MIN_SEQUENCE_NUMBER" => Self::MinSequenceNumber,
            "_MAX_SEQUENCE_NUMBER" => Self::MaxSequenceNumber,
            "_SCHEMA_ID" => Self::SchemaId,
            "_LEVEL" => Self::Level,
            "_EXTRA_FILES" => Self::ExtraFiles,
            "_CREATION_TIME" => Self::CreationTime,
            "_DELETE_ROW_COUNT" => Self::DeleteRowCount,
            "_EMBEDDED_FILE_INDEX" => Self::EmbeddedFileIndex,
            "_FILE_SOURCE" => Self::FileSource,
            "_VALUE_STATS_COLS" => Self::ValueStatsCols,
            "_EXTERNAL_PATH" => Self::ExternalPath,
            "_FIRST_ROW_ID" => Self::FirstRowId,
            "_WRITE_COLS" => Self::WriteCols,
            "_WRITE_COLS_SEQUENCES" => Self::WriteColsSequences,
            _ => return None,
        })
    }
}

/// The fields of a `SimpleStats` record this decoder reads.
#[derive(Clone, Copy)]
enum StatsField {
    MinValues,
    MaxValues,
    NullCounts,
}

impl StatsField {
    fn by_name(name: &str) -> Option<Self> {
        Some(match name {
            "_MIN_VALUES" => Self::MinValues,
            "_MAX_VALUES" => Self::MaxValues,
            "_NULL_COUNTS" => Self::NullCounts,
            _ => return None,
        })
    }
}

/// What the decoder does with each field of one writer record schema, in the writer's order:
/// read it as a known field, or skip it (`None`).
struct RecordPlan<'s, F> {
    record: &'s RecordSchema,
    fields: Vec<(Option<F>, &'s RecordField)>,
}

/// The plans of every record schema a role (the entry, `_FILE`, the stats) may be written with
/// (a union may hold more than one).
struct Plans<'s, F>(Vec<RecordPlan<'s, F>>);

impl<'s, F: Copy> Plans<'s, F> {
    /// The plans of the records `schemas` may hold.
    fn new(
        walker: &Walker<'s>,
        schemas: impl IntoIterator<Item = &'s Schema>,
        by_name: fn(&str) -> Option<F>,
    ) -> std::result::Result<Self, DatumsError> {
        let mut plans: Vec<RecordPlan<'s, F>> = Vec::new();
        for schema in schemas {
            for record in walker.records_of(schema)? {
                if plans.iter().any(|p| std::ptr::eq(p.record, record)) {
                    continue;
                }
                let fields = record
                    .fields
                    .iter()
                    .map(|field| (by_name(&field.name), field))
                    .collect();
                plans.push(RecordPlan { record, fields });
            }
        }
        Ok(Plans(plans))
    }

    /// The fields of `record`, one of the schemas the plans were made for.
    fn of(
        &self,
        record: &RecordSchema,
    ) -> std::result::Result<&[(Option<F>, &'s RecordField)], DatumsError> {
        self.0
            .iter()
            .find(|p| std::ptr::eq(p.record, record))
            .map(|p| &p.fields[..])
            .ok_or_else(|| DatumsError::Invalid(format!("no plan for record '{}'", record.name)))
    }

    /// The schemas of the fields read as `wanted`, in every plan.
    fn field_schemas(&self, wanted: impl Fn(F) -> bool) -> Vec<&'s Schema> {
        self.0
            .iter()
            .flat_map(|p| &p.fields)
            .filter(|(f, _)| f.is_some_and(&wanted))
            .map(|(_, field)| &field.schema)
            .collect()
    }
}

/// Decodes the entries of one manifest file, by plans made from its writer schema.
struct EntryDecoder<'a, 's> {
    file: &'a str,
    walker: &'a Walker<'s>,
    entry: Plans<'s, EntryField>,
    data_file: Plans<'s, FileField>,
    stats: Plans<'s, StatsField>,
}

/// A field's value as read: `None` for null.
type Read<T> = Result<Option<T>>;

impl<'a, 's> EntryDecoder<'a, 's> {
    fn new(file: &'a str, walker: &'a Walker<'s>) -> Result<Self> {
        let invalid = |e: DatumsError| Error::from(e.into_error(file));
        let entry = Plans::new(walker, [walker.schema()], EntryField::by_name).map_err(invalid)?;
        let data_file = Plans::new(
            walker,
            entry.field_schemas(|f| matches!(f, EntryField::File)),
            FileField::by_name,
        )
        .map_err(invalid)?;
        let stats = Plans::new(
            walker,
            data_file.field_schemas(|f| matches!(f, FileField::KeyStats | FileField::ValueStats)),
            StatsField::by_name,
        )
        .map_err(invalid)?;
        Ok(EntryDecoder {
            file,
            walker,
            entry,
            data_file,
            stats,
        })
    }

    fn invalid(&self, e: DatumsError) -> Error {
        e.into_error(self.file).into()
    }

    fn err(&self, path: &str, name: &str, what: impl std::fmt::Display) -> Error {
        Error::corrupt(self.file, format!("{path}{name}: {what}"))
    }

    fn required<T>(&self, path: &str, name: &str, value: Option<T>) -> Result<T> {
        value.ok_or_else(|| self.err(path, name, "required field missing or null"))
    }

    /// The schema of the value at `input` (a union's branch read), `None` if it is null.
    fn value_schema(&self, schema: &'s Schema, input: &mut Input<'_>) -> Read<&'s Schema> {
        match self.walker.value_schema(schema, input) {
            Ok(Schema::Null) => Ok(None),
            Ok(schema) => Ok(Some(schema)),
            Err(e) => Err(self.invalid(e)),
        }
    }

    /// The record at `input`, `None` if it is null.
    fn record(
        &self,
        path: &str,
        field: &'s RecordField,
        input: &mut Input<'_>,
    ) -> Read<&'s RecordSchema> {
        match self.value_schema(&field.schema, input)? {
            None => Ok(None),
            Some(Schema::Record(record)) => Ok(Some(record)),
            Some(other) => Err(self.wrong(path, &field.name, "a record", other)),
        }
    }

    fn wrong(&self, path: &str, name: &str, expected: &str, found: &Schema) -> Error {
        let found = SchemaKind::from(found);
        self.err(path, name, format!("expected {expected}, found {found:?}"))
    }

    /// An integer of any width or integer-based logical type apache-avro decodes to an `i64`
    /// (`int`, `long`, `date`, `time-millis`, `timestamp-millis`/`-micros`, local or not).
    fn long_of(
        &self,
        path: &str,
        name: &str,
        schema: &Schema,
        input: &mut Input<'_>,
    ) -> Result<i64> {
        let value = input.long().map_err(|e| self.invalid(e))?;
        match schema {
            Schema::Long
            | Schema::TimestampMillis
            | Schema::TimestampMicros
            | Schema::LocalTimestampMillis
            | Schema::LocalTimestampMicros => Ok(value),
            Schema::Int | Schema::Date | Schema::TimeMillis => i32::try_from(value)
                .map(i64::from)
                .map_err(|_| self.err(path, name, format!("int {value} out of range"))),
            other => Err(self.wrong(path, name, "an integer", other)),
        }
    }

    fn long(&self, path: &str, field: &'s RecordField, input: &mut Input<'_>) -> Read<i64> {
        match self.value_schema(&field.schema, input)? {
            None => Ok(None),
            Some(schema) => self.long_of(path, &field.name, schema, input).map(Some),
        }
    }

    fn int(&self, path: &str, field: &'s RecordField, input: &mut Input<'_>) -> Read<i32> {
        match self.long(path, field, input)? {
            None => Ok(None),
            Some(x) => i32::try_from(x)
                .map(Some)
                .map_err(|_| self.err(path, &field.name, format!("{x} does not fit an int"))),
        }
    }

    fn bytes<'d>(
        &self,
        path: &str,
        field: &'s RecordField,
        input: &mut Input<'d>,
    ) -> Read<&'d [u8]> {
        let read = match self.value_schema(&field.schema, input)? {
            None => return Ok(None),
            Some(Schema::Bytes) => input.bytes(),
            Some(Schema::Fixed(fixed)) => input.take(fixed.size),
            Some(other) => return Err(self.wrong(path, &field.name, "bytes", other)),
        };
        read.map(Some).map_err(|e| self.invalid(e))
    }

    fn string_of(
        &self,
        path: &str,
        name: &str,
        schema: &'s Schema,
        input: &mut Input<'_>,
    ) -> Result<String> {
        match schema {
            Schema::String => {
                let bytes = input.bytes().map_err(|e| self.invalid(e))?;
                String::from_utf8(bytes.to_vec())
                    .map_err(|e| self.err(path, name, format!("invalid UTF-8: {e}")))
            }
            Schema::Enum(e) => {
                let index = input.long().map_err(|e| self.invalid(e))?;
                usize::try_from(index)
                    .ok()
                    .and_then(|i| e.symbols.get(i))
                    .cloned()
                    .ok_or_else(|| self.err(path, name, format!("enum index {index} out of range")))
            }
            other => Err(self.wrong(path, name, "a string", other)),
        }
    }

    fn string(&self, path: &str, field: &'s RecordField, input: &mut Input<'_>) -> Read<String> {
        match self.value_schema(&field.schema, input)? {
            None => Ok(None),
            Some(schema) => self.string_of(path, &field.name, schema, input).map(Some),
        }
    }

    /// An array whose items `item` reads (given each item's schema, a union's branch read, or
    /// `None` for a null item).
    fn array<T>(
        &self,
        path: &str,
        field: &'s RecordField,
        input: &mut Input<'_>,
        mut item: impl FnMut(Option<&'s Schema>, &mut Input<'_>) -> Result<T>,
    ) -> Read<Vec<T>> {
        let items = match self.value_schema(&field.schema, input)? {
            None => return Ok(None),
            Some(Schema::Array(array)) => &*array.items,
            Some(other) => return Err(self.wrong(path, &field.name, "an array", other)),
        };
        let mut out = Vec::new();
        let mut at = Items::default();
        while at.next(input).map_err(|e| self.invalid(e))? {
            let schema = self.value_schema(items, input)?;
            out.push(item(schema, input)?);
        }
        Ok(Some(out))
    }

    fn strings(
        &self,
        path: &str,
        field: &'s RecordField,
        input: &mut Input<'_>,
    ) -> Read<Vec<String>> {
        let name = &field.name;
        self.array(path, field, input, |schema, input| match schema {
            None => Err(self.err(path, name, "expected a string, found Null")),
            Some(schema) => self.string_of(path, name, schema, input),
        })
    }

    fn longs(&self, path: &str, field: &'s RecordField, input: &mut Input<'_>) -> Read<Vec<i64>> {
        let name = &field.name;
        self.array(path, field, input, |schema, input| match schema {
            None => Err(self.err(path, name, "expected an integer, found Null")),
            Some(schema) => self.long_of(path, name, schema, input),
        })
    }

    fn skip(&self, field: &'s RecordField, input: &mut Input<'_>) -> Result<()> {
        self.walker
            .skip_value(&field.schema, input)
            .map_err(|e| self.invalid(e))
    }

    /// The entry at `input`, or `None` (the rest of it skipped) if `keep` rejects its partition.
    fn entry(
        &self,
        input: &mut Input<'_>,
        keep: &mut impl FnMut(&[u8]) -> Result<bool>,
    ) -> Result<Option<ManifestEntry>> {
        let record = match self.walker.value_schema(self.walker.schema(), input) {
            Ok(Schema::Record(record)) => record,
            Ok(Schema::Null) => return Err(Error::corrupt(self.file, "a null manifest entry")),
            Ok(other) => return Err(self.wrong("", "manifest entry", "a record", other)),
            Err(e) => return Err(self.invalid(e)),
        };
        let fields = self.entry.of(record).map_err(|e| self.invalid(e))?;
        let (mut kind, mut partition, mut bucket, mut total_buckets, mut file) =
            (None, None, None, None, None);
        for (at, &(action, field)) in fields.iter().enumerate() {
            let Some(action) = action else {
                self.skip(field, input)?;
                continue;
            };
            match action {
                EntryField::Kind => kind = self.long("", field, input)?,
                EntryField::Partition => {
                    let Some(bytes) = self.bytes("", field, input)? else {
                        return Err(self.err("", "_PARTITION", "required field missing or null"));
                    };
                    if !keep(bytes)? {
                        for &(_, field) in &fields[at + 1..] {
                            self.skip(field, input)?;
                        }
                        return Ok(None);
                    }
                    partition = Some(bytes.to_vec());
                }
                EntryField::Bucket => bucket = self.int("", field, input)?,
                EntryField::TotalBuckets => total_buckets = self.int("", field, input)?,
                EntryField::File => file = self.data_file(field, input)?,
            }
        }
        let partition = partition
            .ok_or_else(|| Error::corrupt(self.file, "manifest entry without _PARTITION"))?;
        let kind = match self.required("", "_KIND", kind)? {
            0 => FileKind::Add,
            1 => FileKind::Delete,
            k => return Err(self.err("", "_KIND", format!("unknown file kind {k}"))),
        };
        Ok(Some(ManifestEntry {
            kind,
            partition,
            bucket: self.required("", "_BUCKET", bucket)?,
            total_buckets,
            file: std::sync::Arc::new(self.required("", "_FILE", file)?),
        }))
    }

    /// `_FILE`, a `DataFileMeta` record.
    fn data_file(&self, field: &'s RecordField, input: &mut Input<'_>) -> Read<DataFileMeta> {
        const PATH: &str = "_FILE.";
        let Some(record) = self.record("", field, input)? else {
            return Ok(None);
        };
        let mut f = DataFileMeta::default();
        let (mut file_name, mut file_size, mut row_count, mut min_key, mut max_key) =
            (None, None, None, None, None);
        let (mut key_stats, mut value_stats, mut min_seq, mut max_seq, mut schema_id, mut level) =
            (None, None, None, None, None, None);
        for &(action, field) in self.data_file.of(record).map_err(|e| self.invalid(e))? {
            let Some(action) = action else {
                self.skip(field, input)?;
                continue;
            };
            let bytes = |input: &mut Input<'_>| -> Read<Vec<u8>> {
                Ok(self.bytes(PATH, field, input)?.map(<[u8]>::to_vec))
            };
            match action {
                FileField::FileName => file_name = self.string(PATH, field, input)?,
                FileField::FileSize => file_size = self.long(PATH, field, input)?,
                FileField::RowCount => row_count = self.long(PATH, field, input)?,
                FileField::MinKey => min_key = bytes(input)?,
                FileField::MaxKey => max_key = bytes(input)?,
                FileField::KeyStats => key_stats = self.stats("_FILE._KEY_STATS.", field, input)?,
                FileField::ValueStats => {
                    value_stats = self.stats("_FILE._VALUE_STATS.", field, input)?
                }
                FileField::MinSequenceNumber => min_seq = self.long(PATH, field, input)?,
                FileField::MaxSequenceNumber => max_seq = self.long(PATH, field, input)?,
                FileField::SchemaId => schema_id = self.long(PATH, field, input)?,
                FileField::Level => level = self.int(PATH, field, input)?,
                FileField::ExtraFiles => {
                    f.extra_files = self.strings(PATH, field, input)?.unwrap_or_default()
                }
                FileField::CreationTime => f.creation_time = self.long(PATH, field, input)?,
                FileField::DeleteRowCount => f.delete_row_count = self.long(PATH, field, input)?,
                FileField::EmbeddedFileIndex => f.embedded_file_index = bytes(input)?,
                FileField::FileSource => f.file_source = self.int(PATH, field, input)?,
                FileField::ValueStatsCols => {
                    f.value_stats_cols = self.strings(PATH, field, input)?
                }
                FileField::ExternalPath => f.external_path = self.string(PATH, field, input)?,
                FileField::FirstRowId => f.first_row_id = self.long(PATH, field, input)?,
                FileField::WriteCols => f.write_cols = self.strings(PATH, field, input)?,
                FileField::WriteColsSequences => {
                    f.write_cols_sequences = self.longs(PATH, field, input)?
                }
            }
        }
        f.file_name = self.required(PATH, "_FILE_NAME", file_name)?;
        f.file_size = self.required(PATH, "_FILE_SIZE", file_size)?;
        f.row_count = self.required(PATH, "_ROW_COUNT", row_count)?;
        f.min_key = self.required(PATH, "_MIN_KEY", min_key)?;
        f.max_key = self.required(PATH, "_MAX_KEY", max_key)?;
        f.key_stats = self.required(PATH, "_KEY_STATS", key_stats)?;
        f.value_stats = self.required(PATH, "_VALUE_STATS", value_stats)?;
        f.min_sequence_number = self.required(PATH, "_MIN_SEQUENCE_NUMBER", min_seq)?;
        f.max_sequence_number = self.required(PATH, "_MAX_SEQUENCE_NUMBER", max_seq)?;
        f.schema_id = self.required(PATH, "_SCHEMA_ID", schema_id)?;
        f.level = self.required(PATH, "_LEVEL", level)?;
        Ok(Some(f))
    }

    /// A `SimpleStats` record (`path`: its name for messages, ending in a dot).
    fn stats(
        &self,
        path: &str,
        field: &'s RecordField,
        input: &mut Input<'_>,
    ) -> Read<SimpleStats> {
        let Some(record) = self.record("_FILE.", field, input)? else {
            return Ok(None);
        };
        let (mut min_values, mut max_values, mut null_counts) = (None, None, None);
        for &(action, field) in self.stats.of(record).map_err(|e| self.invalid(e))? {
            match action {
                None => self.skip(field, input)?,
                Some(StatsField::MinValues) => {
                    min_values = self.bytes(path, field, input)?.map(<[u8]>::to_vec)
                }
                Some(StatsField::MaxValues) => {
                    max_values = self.bytes(path, field, input)?.map(<[u8]>::to_vec)
                }
                Some(StatsField::NullCounts) => {
                    let name = &field.name;
                    null_counts = self.array(path, field, input, |schema, input| match schema {
                        None => Ok(None),
                        Some(schema) => self.long_of(path, name, schema, input).map(Some),
                    })?
                }
            }
        }
        Ok(Some(SimpleStats {
            min_values: self.required(path, "_MIN_VALUES", min_values)?,
            max_values: self.required(path, "_MAX_VALUES", max_values)?,
            null_counts: null_counts.unwrap_or_default(),
        }))
    }
}
