//! Tests of the record walker against apache-avro's own writer and reader: every kind of schema
//! node, every codec apache-avro writes, and damaged input.

use super::datums::{Blocks, DatumsError, Walker};
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

/// Every record of `bytes` as the walker splits them, each decoded by apache-avro alone, with its
/// `part` and `opt_part` fields as the walker reads them.
type Walked = Vec<(Value, Option<Vec<u8>>, Option<Vec<u8>>)>;
fn walk(bytes: &[u8]) -> Result<Walked, DatumsError> {
    let (schema, mut blocks) = Blocks::open(bytes)?;
    let walker = Walker::new(&schema)?;
    let mut out = Vec::new();
    while let Some(block) = blocks.next_block()? {
        for record in block.records(&walker) {
            let record = record?;
            let part = walker.leading_bytes(record, "part")?.map(<[u8]>::to_vec);
            let opt = walker
                .leading_bytes(record, "opt_part")?
                .map(<[u8]>::to_vec);
            #[allow(deprecated)]
            let value = apache_avro::from_avro_datum(&schema, &mut &record[..], None)
                .map_err(|e| DatumsError::Invalid(e.to_string()))?;
            out.push((value, part, opt));
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
        for (i, (value, part, opt)) in walked.into_iter().enumerate() {
            let i = i as i64;
            assert_eq!(value, written[i as usize], "{codec:?} record {i}");
            assert_eq!(part, Some(vec![(i % 10) as u8]));
            assert_eq!(opt, (i % 4 != 0).then(|| vec![i as u8]));
        }
    }
}

#[test]
fn a_field_that_is_not_bytes_or_missing_is_an_error_not_a_value() {
    let (schema, bytes, _) = container(Codec::Null, 3);
    let walker = Walker::new(&schema).unwrap();
    let (_, mut blocks) = Blocks::open(&bytes).unwrap();
    let block = blocks.next_block().unwrap().unwrap();
    for field in ["kind", "tags", "nothing"] {
        let e = walker.leading_bytes(&block.data, field).unwrap_err();
        assert!(e.to_string().contains(field), "{e}");
    }
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
    let mut datum = Vec::new();
    put_long(&mut datum, i64::MAX);
    put_long(&mut datum, 0);
    put_bytes(&mut datum, b"xy");
    assert_eq!(walker.leading_bytes(&datum, "p").unwrap(), Some(&b"xy"[..]));
    assert_eq!(walker.split_record(&datum).unwrap().1, b"");
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
    let parts: Vec<_> = block
        .records(&walker)
        .map(|r| walker.leading_bytes(r.unwrap(), "p").unwrap())
        .collect();
    assert_eq!(parts, [Some(&[0][..]), Some(&[1][..]), Some(&[2][..])]);
}

#[test]
fn a_block_whose_count_and_bytes_disagree_is_an_error_after_its_records() {
    let (_, bytes, _) = container(Codec::Null, 3);
    let (schema, mut blocks) = Blocks::open(&bytes).unwrap();
    let walker = Walker::new(&schema).unwrap();
    let mut block = blocks.next_block().unwrap().unwrap();
    let all = block.records(&walker).count();
    assert_eq!(all, 3);
    // a count one short leaves the last record's bytes over
    block.count = 2;
    let read: Vec<_> = block.records(&walker).collect();
    assert_eq!(read.len(), 3);
    assert!(read[..2].iter().all(Result::is_ok));
    let first_two: usize = read[..2].iter().map(|r| r.as_ref().unwrap().len()).sum();
    let last_len = block.data.len() - first_two;
    let err = read[2].as_ref().err().map(ToString::to_string);
    assert_eq!(
        err.as_deref(),
        Some(format!("{last_len} bytes after the 2 records of a block").as_str())
    );
    // a count one over runs out of bytes: an error, and nothing after it
    block.count = 4;
    let read: Vec<_> = block.records(&walker).collect();
    assert_eq!(read.len(), 4);
    assert!(read[3].is_err());
}
