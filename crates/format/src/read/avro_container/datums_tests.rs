//! Tests of the record reader against apache-avro's own writer and reader: every kind of schema
//! node, every codec apache-avro writes, and damaged input.

use super::datums::{Blocks, DatumsError, Input, Items, Walker};
use super::header::{put_bytes, put_long, Header, MAGIC};
use apache_avro::types::{Record, Value};
use apache_avro::{Codec, DeflateSettings, Schema, Writer, ZstandardSettings};

/// A record using every node the walker skips: a union, an array, a map, a fixed, an enum, a
/// nested record referred to again by name, a decimal, logical types, float and double.
const SCHEMA: &str = r#"{"type": "record", "name": "entry", "fields": [
    {"name": "kind", "type": "int"},
    {"name": "pre", "type": {"type": "record", "name": "stats", "fields": [
        {"name": "min", "type": ["null", "bytes"]},
        {"name": "nulls", "type": {"type": "array", "items": ["null", "long"]}}]}},
    {"name": "part", "type": "bytes"},
    {"name": "again", "type": ["null", "stats"]},
    {"name": "tags", "type": {"type": "map", "values": "string"}},
    {"name": "hash", "type": {"type": "fixed", "name": "md5", "size": 4}},
    {"name": "color", "type": {"type": "enum", "name": "c", "symbols": ["R", "G"]}},
    {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2}},
    {"name": "day", "type": {"type": "int", "logicalType": "date"}},
    {"name": "ts", "type": {"type": "long", "logicalType": "timestamp-millis"}},
    {"name": "f", "type": "float"},
    {"name": "d", "type": "double"},
    {"name": "ok", "type": "boolean"},
    {"name": "opt_part", "type": ["null", "bytes"]}]}"#;

/// A `stats` record for entry `i`.
fn stats(i: i64) -> Value {
    Value::Record(vec![
        (
            "min".into(),
            if i % 3 == 0 {
                Value::Union(0, Box::new(Value::Null))
            } else {
                Value::Union(1, Box::new(Value::Bytes(vec![i as u8; (i % 7) as usize])))
            },
        ),
        (
            "nulls".into(),
            Value::Array(
                (0..i % 4)
                    .map(|k| {
                        if k % 2 == 0 {
                            Value::Union(1, Box::new(Value::Long(k * i)))
                        } else {
                            Value::Union(0, Box::new(Value::Null))
                        }
                    })
                    .collect(),
            ),
        ),
    ])
}

/// The `i`-th record: its partition is `[i % 10]`.
fn entry(schema: &Schema, i: i64) -> Value {
    let mut r = Record::new(schema).unwrap();
    r.put("kind", (i % 2) as i32);
    r.put("pre", stats(i));
    r.put("part", Value::Bytes(vec![(i % 10) as u8]));
    r.put(
        "again",
        if i % 2 == 0 {
            Value::Union(0, Box::new(Value::Null))
        } else {
            Value::Union(1, Box::new(stats(i + 1)))
        },
    );
    r.put(
        "tags",
        Value::Map(
            (0..i % 3)
                .map(|k| (format!("k{k}"), Value::String(format!("v{i}"))))
                .collect(),
        ),
    );
    r.put("hash", Value::Fixed(4, vec![1, 2, 3, i as u8]));
    r.put(
        "color",
        Value::Enum((i % 2) as u32, ["R", "G"][(i % 2) as usize].into()),
    );
    r.put(
        "amount",
        Value::Decimal(apache_avro::Decimal::from(vec![0, (i % 100) as u8])),
    );
    r.put("day", Value::Date(i as i32));
    r.put("ts", Value::TimestampMillis(i * 1000));
    r.put("f", Value::Float(i as f32 / 3.0));
    r.put("d", Value::Double(i as f64 / 7.0));
    r.put("ok", Value::Boolean(i % 2 == 0));
    r.put(
        "opt_part",
        if i % 4 == 0 {
            Value::Union(0, Box::new(Value::Null))
        } else {
            Value::Union(1, Box::new(Value::Bytes(vec![i as u8])))
        },
    );
    r.into()
}

/// `rows` entries written by apache-avro with `codec`, a block every 5 records.
fn container(codec: Codec, rows: i64) -> (Schema, Vec<u8>, Vec<Value>) {
    let schema = Schema::parse_str(SCHEMA).unwrap();
    let mut writer = Writer::with_codec(&schema, Vec::new(), codec).unwrap();
    let mut written = Vec::new();
    for i in 0..rows {
        let value = entry(&schema, i);
        writer.append_value(value.clone()).unwrap();
        written.push(value);
        if i % 5 == 4 {
            writer.flush().unwrap();
        }
    }
    (schema.clone(), writer.into_inner().unwrap(), written)
}

/// The `bytes` value at `input` of a field written with `schema` (`None` for null).
fn bytes_field<'s, 'd>(
    walker: &Walker<'s>,
    schema: &'s Schema,
    input: &mut Input<'d>,
) -> Result<Option<&'d [u8]>, DatumsError> {
    match walker.value_schema(schema, input)? {
        Schema::Null => Ok(None),
        Schema::Bytes => Ok(Some(input.bytes()?)),
        other => Err(DatumsError::Invalid(format!("not bytes: {other:?}"))),
    }
}

/// Every record of `bytes` as the reader ends it, each decoded by apache-avro alone from its
/// bytes (which it must read to their end), with its `part` and `opt_part` fields as the reader
/// reads them, and the items of its `pre.nulls` array as counted by [`Items`].
type Walked = Vec<(Value, Option<Vec<u8>>, Option<Vec<u8>>, usize)>;
fn walk(bytes: &[u8]) -> Result<Walked, DatumsError> {
    let (schema, mut blocks) = Blocks::open(bytes)?;
    let walker = Walker::new(&schema)?;
    let mut out = Vec::new();
    while let Some(block) = blocks.next_block()? {
        let mut records = block.records();
        while let Some(input) = records.next_record()? {
            let start = input.position();
            let Schema::Record(record) = walker.value_schema(walker.schema(), input)? else {
                return Err(DatumsError::Invalid("not a record".into()));
            };
            let (mut part, mut opt, mut nulls) = (None, None, 0);
            for field in &record.fields {
                match field.name.as_str() {
                    "part" => {
                        part = bytes_field(&walker, &field.schema, input)?.map(<[u8]>::to_vec)
                    }
                    "opt_part" => {
                        opt = bytes_field(&walker, &field.schema, input)?.map(<[u8]>::to_vec)
                    }
                    "pre" => {
                        let Schema::Record(pre) = walker.value_schema(&field.schema, input)? else {
                            return Err(DatumsError::Invalid("pre is not a record".into()));
                        };
                        walker.skip_value(&pre.fields[0].schema, input)?;
                        let Schema::Array(array) = &pre.fields[1].schema else {
                            return Err(DatumsError::Invalid("nulls is not an array".into()));
                        };
                        let mut items = Items::default();
                        while items.next(input)? {
                            walker.skip_value(&array.items, input)?;
                            nulls += 1;
                        }
                    }
                    _ => walker.skip_value(&field.schema, input)?,
                }
            }
            let mut datum = &block.data[start..input.position()];
            #[allow(deprecated)]
            let value = apache_avro::from_avro_datum(&schema, &mut datum, None)
                .map_err(|e| DatumsError::Invalid(e.to_string()))?;
            assert!(datum.is_empty(), "apache-avro left {} bytes", datum.len());
            out.push((value, part, opt, nulls));
        }
    }
    Ok(out)
}

#[test]
fn every_record_is_split_where_apache_avro_ends_it_for_every_codec() {
    for codec in [
        Codec::Null,
        Codec::Deflate(DeflateSettings::default()),
        Codec::Snappy,
        Codec::Zstandard(ZstandardSettings::default()),
    ] {
        let (_, bytes, written) = container(codec, 23);
        let walked = walk(&bytes).unwrap();
        assert_eq!(walked.len(), 23, "{codec:?}");
        for (i, (value, part, opt, nulls)) in walked.into_iter().enumerate() {
            let i = i as i64;
            assert_eq!(value, written[i as usize], "{codec:?} record {i}");
            assert_eq!(part, Some(vec![(i % 10) as u8]));
            assert_eq!(opt, (i % 4 != 0).then(|| vec![i as u8]));
            assert_eq!(nulls as i64, i % 4);
        }
    }
}

#[test]
fn the_records_a_schema_may_hold_are_its_record_branches_names_resolved() {
    let schema = Schema::parse_str(SCHEMA).unwrap();
    let walker = Walker::new(&schema).unwrap();
    let Schema::Record(entry) = &schema else {
        panic!("not a record")
    };
    let names = |i: usize| -> Vec<String> {
        walker
            .records_of(&entry.fields[i].schema)
            .unwrap()
            .iter()
            .map(|r| r.name.name().to_string())
            .collect()
    };
    assert_eq!(names(1), ["stats"], "a record");
    assert_eq!(names(3), ["stats"], "a union of null and a name");
    assert!(names(2).is_empty(), "bytes");
    assert_eq!(walker.records_of(&schema).unwrap().len(), 1);
}

#[test]
fn a_codec_this_build_cannot_decode_is_named() {
    let (_, bytes, _) = container(Codec::Null, 3);
    let header = Header::parse(&bytes).unwrap();
    let mut other = MAGIC.to_vec();
    let kept: Vec<_> = header
        .metadata
        .iter()
        .filter(|(k, _)| *k != b"avro.codec")
        .collect();
    put_long(&mut other, kept.len() as i64 + 1);
    for (key, value) in kept {
        put_bytes(&mut other, key);
        put_bytes(&mut other, value);
    }
    put_bytes(&mut other, b"avro.codec");
    put_bytes(&mut other, b"lz77");
    put_long(&mut other, 0);
    other.extend_from_slice(&bytes[header.end - 16..]);
    let e = match Blocks::open(&other) {
        Err(e @ DatumsError::UnknownCodec(_)) => e,
        Err(e) => panic!("wrong error: {e}"),
        Ok(_) => panic!("opened"),
    };
    // As the crate's error: unsupported, naming the file and the codec, as apache-avro's
    // reader's refusal is (`spec::avro_names::open_error`).
    match e.into_error("manifest-x") {
        crate::Error::Unsupported { file, feature } => {
            assert_eq!(file, "manifest-x");
            assert!(feature.contains("'lz77'"), "{feature}");
        }
        other => panic!("wrong error: {other}"),
    }
}

#[test]
fn an_array_of_empty_items_with_a_huge_count_ends_at_once() {
    let schema = Schema::parse_str(
        r#"{"type": "record", "name": "r", "fields": [
            {"name": "a", "type": {"type": "array", "items": "null"}},
            {"name": "p", "type": "bytes"}]}"#,
    )
    .unwrap();
    let walker = Walker::new(&schema).unwrap();
    let mut data = Vec::new();
    put_long(&mut data, i64::MAX);
    put_long(&mut data, 0);
    put_bytes(&mut data, b"xy");
    let block = block_of(1, data);
    let mut records = block.records();
    let input = records.next_record().unwrap().unwrap();
    walker.skip_value(walker.schema(), input).unwrap();
    assert!(records.next_record().unwrap().is_none());
    // read item by item instead, the count is more than the bytes could hold: an error
    let mut records = block.records();
    let input = records.next_record().unwrap().unwrap();
    let e = Items::default().next(input).unwrap_err().to_string();
    assert!(e.contains("items at byte 0"), "{e}");
}

/// A block of `count` records in `data`.
fn block_of(count: i64, data: Vec<u8>) -> super::datums::Block<'static> {
    super::datums::Block {
        count: count as u64,
        data: data.into(),
    }
}

#[test]
fn damaged_containers_are_errors_never_panics() {
    let (_, bytes, _) = container(Codec::Deflate(DeflateSettings::default()), 12);
    for cut in 0..bytes.len() {
        let _ = walk(&bytes[..cut]);
    }
    for at in 0..bytes.len() {
        let mut damaged = bytes.clone();
        damaged[at] ^= 0x5a;
        let _ = walk(&damaged);
    }
    let (_, plain, _) = container(Codec::Null, 12);
    assert!(
        walk(&plain[..plain.len() - 20]).is_err(),
        "a truncated last block is an error"
    );
}

#[test]
fn a_top_level_union_with_null_is_read_through() {
    let schema = Schema::parse_str(
        r#"["null", {"type": "record", "name": "r", "fields": [
            {"name": "k", "type": "string"}, {"name": "p", "type": "bytes"}]}]"#,
    )
    .unwrap();
    let mut writer = Writer::new(&schema, Vec::new()).unwrap();
    for i in 0..3u8 {
        let record = Value::Record(vec![
            ("k".into(), Value::String("x".repeat(i.into()))),
            ("p".into(), Value::Bytes(vec![i])),
        ]);
        writer
            .append_value(Value::Union(1, Box::new(record)))
            .unwrap();
    }
    let bytes = writer.into_inner().unwrap();
    let (schema, mut blocks) = Blocks::open(&bytes).unwrap();
    let walker = Walker::new(&schema).unwrap();
    let block = blocks.next_block().unwrap().unwrap();
    let mut records = block.records();
    let mut parts = Vec::new();
    while let Some(input) = records.next_record().unwrap() {
        let Schema::Record(record) = walker.value_schema(walker.schema(), input).unwrap() else {
            panic!("not a record")
        };
        walker.skip_value(&record.fields[0].schema, input).unwrap();
        parts.push(bytes_field(&walker, &record.fields[1].schema, input).unwrap());
    }
    assert_eq!(parts, [Some(&[0][..]), Some(&[1][..]), Some(&[2][..])]);
}

#[test]
fn a_block_whose_count_and_bytes_disagree_is_an_error_after_its_records() {
    let (_, bytes, _) = container(Codec::Null, 3);
    let (schema, mut blocks) = Blocks::open(&bytes).unwrap();
    let walker = Walker::new(&schema).unwrap();
    let mut block = blocks.next_block().unwrap().unwrap();
    // Skips every record the block's count says, then asks for one more.
    let skip_all = |block: &super::datums::Block<'_>| -> (usize, Result<(), String>) {
        let mut records = block.records();
        let mut read = 0;
        loop {
            match records.next_record() {
                Ok(None) => return (read, Ok(())),
                Ok(Some(input)) => match walker.skip_value(walker.schema(), input) {
                    Ok(()) => read += 1,
                    Err(e) => return (read, Err(e.to_string())),
                },
                Err(e) => return (read, Err(e.to_string())),
            }
        }
    };
    assert_eq!(skip_all(&block), (3, Ok(())));
    // a count one short leaves the last record's bytes over
    let mut records = block.records();
    for _ in 0..2 {
        let input = records.next_record().unwrap().unwrap();
        walker.skip_value(walker.schema(), input).unwrap();
    }
    let last_len = block.data.len() - records.next_record().unwrap().unwrap().position();
    block.count = 2;
    assert_eq!(
        skip_all(&block),
        (
            2,
            Err(format!("{last_len} bytes after the 2 records of a block"))
        )
    );
    // a count one over runs out of bytes: an error
    block.count = 4;
    let (read, result) = skip_all(&block);
    assert_eq!(read, 3);
    assert!(result.is_err());
}
