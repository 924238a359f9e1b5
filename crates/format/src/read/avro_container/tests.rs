//! Tests of the transcoder against apache-avro's own xz and bzip2 codecs (C liblzma, bzip2).

use super::header::{put_bytes, put_long, Cursor, Header, MAGIC};
use super::transcode::to_null_codec;
use super::*;
use apache_avro::types::{Record, Value};
use apache_avro::{Bzip2Settings, Codec, Schema, Writer, XzSettings};
use std::io::Write;

const SCHEMA: &str = r#"{"type": "record", "name": "r", "fields": [
    {"name": "id", "type": "long"},
    {"name": "b", "type": ["null", "string"]}]}"#;

/// A container of `rows` records written by apache-avro with `codec`, one block per 7 records.
fn container(codec: Codec, rows: i64) -> Vec<u8> {
    let schema = Schema::parse_str(SCHEMA).unwrap();
    let mut writer = Writer::with_codec(&schema, Vec::new(), codec).unwrap();
    for id in 0..rows {
        let mut record = Record::new(&schema).unwrap();
        record.put("id", id);
        let b = (id % 5 != 0).then(|| format!("value {id} {}", "x".repeat(id as usize % 40)));
        record.put(
            "b",
            Value::Union(
                u32::from(b.is_some()),
                Box::new(b.map_or(Value::Null, Value::String)),
            ),
        );
        writer.append_value(record).unwrap();
        if id % 7 == 6 {
            writer.flush().unwrap();
        }
    }
    writer.into_inner().unwrap()
}

/// Runs `f` to completion (the codec futures never wait on I/O here).
fn run<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(f)
}

/// Every record of `bytes`, decoded by apache-avro.
fn records(bytes: &[u8]) -> Vec<Value> {
    apache_avro::Reader::new(bytes)
        .unwrap()
        .map(|r| r.unwrap())
        .collect()
}

/// The blocks of `bytes`: (row count, payload).
fn blocks(bytes: &[u8]) -> Vec<(i64, Vec<u8>)> {
    let header = Header::parse(bytes).unwrap();
    let mut input = Cursor {
        bytes,
        at: header.end,
    };
    let mut out = Vec::new();
    while !input.at_end() {
        let rows = input.long().unwrap();
        let payload = input.bytes().unwrap().to_vec();
        assert_eq!(input.take(16).unwrap(), header.sync);
        out.push((rows, payload));
    }
    out
}

fn codecs() -> [(&'static str, Codec); 2] {
    [
        ("xz", Codec::Xz(XzSettings::new(6))),
        ("bzip2", Codec::Bzip2(Bzip2Settings::new(9))),
    ]
}

#[test]
fn containers_apache_avro_compresses_read_the_same_after_transcoding() {
    for (name, codec) in codecs() {
        let compressed = container(codec, 40);
        let plain = container(Codec::Null, 40);
        assert!(blocks(&compressed).len() >= 6, "{name}: several blocks");
        let transcoded = to_null_codec(&compressed).unwrap();
        // apache-avro decodes xz and bzip2 itself in this (native, test) build: the same records.
        assert_eq!(records(&transcoded), records(&compressed), "{name}");
        assert_eq!(records(&transcoded), records(&plain), "{name}");
        // Block for block the same counts and payloads as the uncompressed container's.
        assert_eq!(blocks(&transcoded), blocks(&plain), "{name}");
        let header = Header::parse(&transcoded).unwrap();
        assert_eq!(header.get("avro.codec"), Some(&b"null"[..]), "{name}");
        assert_eq!(
            header.get("avro.schema"),
            Header::parse(&compressed).unwrap().get("avro.schema"),
            "{name}"
        );
        assert_eq!(
            header.sync,
            Header::parse(&compressed).unwrap().sync,
            "{name}"
        );
    }
}

/// `plain` (codec null) with each block compressed by the pure-Rust encoders, codec `codec`.
fn compress_with_rust_encoders(plain: &[u8], codec: &str) -> Vec<u8> {
    let header = Header::parse(plain).unwrap();
    let mut out = MAGIC.to_vec();
    put_long(&mut out, header.metadata.len() as i64 + 1);
    for (key, value) in &header.metadata {
        put_bytes(&mut out, key);
        put_bytes(&mut out, value);
    }
    put_bytes(&mut out, b"avro.codec");
    put_bytes(&mut out, codec.as_bytes());
    put_long(&mut out, 0);
    out.extend_from_slice(header.sync);
    for (rows, payload) in blocks(plain) {
        let compressed = match codec {
            "xz" => {
                let mut c = Vec::new();
                lzma_rs::xz_compress(&mut &payload[..], &mut c).unwrap();
                c
            }
            _ => {
                let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
                e.write_all(&payload).unwrap();
                e.finish().unwrap()
            }
        };
        put_long(&mut out, rows);
        put_bytes(&mut out, &compressed);
        out.extend_from_slice(header.sync);
    }
    out
}

#[test]
fn blocks_round_trip_byte_for_byte_and_apache_avro_reads_the_rust_encoders_output() {
    let plain = container(Codec::Null, 30);
    for codec in ["xz", "bzip2"] {
        let compressed = compress_with_rust_encoders(&plain, codec);
        assert_eq!(records(&compressed), records(&plain), "{codec}");
        let transcoded = to_null_codec(&compressed).unwrap();
        assert_eq!(
            transcoded[Header::parse(&transcoded).unwrap().end..],
            plain[Header::parse(&plain).unwrap().end..],
            "{codec}"
        );
    }
}

#[test]
fn an_empty_container_and_other_codecs_pass_through() {
    let empty = container(Codec::Xz(XzSettings::new(6)), 0);
    assert!(records(&to_null_codec(&empty).unwrap()).is_empty());
    let deflate = Bytes::from(container(Codec::Deflate(Default::default()), 10));
    let out = run(readable("t/f.avro", deflate.clone())).unwrap();
    assert_eq!(out.as_ptr(), deflate.as_ptr(), "not copied");
    let garbage = Bytes::from_static(b"not avro at all");
    let out = run(readable("t/f.avro", garbage.clone())).unwrap();
    assert_eq!(out, garbage, "left to the Avro reader's own error");
}

#[test]
fn a_corrupt_block_is_an_error_naming_the_file_codec_and_block_never_a_panic() {
    for (name, codec) in codecs() {
        let good = container(codec, 40);
        let header_end = Header::parse(&good).unwrap().end;
        // Every byte of the file flipped in turn: an error or other rows, never a panic.
        for at in header_end..good.len() {
            let mut bad = good.clone();
            bad[at] ^= 0x5a;
            let _ = to_null_codec(&bad);
        }
        // A byte in the middle of the third block's payload.
        let mut bad = good.clone();
        let third = {
            let mut input = Cursor {
                bytes: &good,
                at: header_end,
            };
            for _ in 0..2 {
                input.long().unwrap();
                input.bytes().unwrap();
                input.take(16).unwrap();
            }
            input.long().unwrap();
            let len = input.long().unwrap() as usize;
            input.at + len / 2
        };
        bad[third] ^= 0xff;
        let err = run(readable("db.db/t/bucket-0/data-1.avro", Bytes::from(bad)))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("db.db/t/bucket-0/data-1.avro")
                && err.contains(&format!("codec '{name}'"))
                && err.contains("block 2"),
            "{err}"
        );
        // Truncated in the last block.
        let cut = run(readable(
            "t/cut.avro",
            Bytes::copy_from_slice(&good[..good.len() - 20]),
        ))
        .unwrap_err()
        .to_string();
        assert!(cut.contains("t/cut.avro") && cut.contains(name), "{cut}");
    }
}

/// Records what it was asked and answers with this build's transcoder.
struct RecordingCodec(RefCell<Vec<String>>);

#[async_trait::async_trait(?Send)]
impl AvroCodec for RecordingCodec {
    async fn to_null_codec(&self, file: &str, bytes: Bytes) -> std::result::Result<Bytes, String> {
        self.0.borrow_mut().push(file.to_string());
        to_null_codec(&bytes).map(Bytes::from)
    }
}

#[test]
fn a_set_codec_decodes_xz_and_bzip2_containers_only() {
    let codec = Rc::new(RecordingCodec(RefCell::new(Vec::new())));
    set_codec(codec.clone());
    for (name, c) in codecs() {
        let bytes = Bytes::from(container(c, 12));
        let out = run(readable(&format!("t/{name}.avro"), bytes.clone())).unwrap();
        assert_eq!(records(&out), records(&bytes), "{name}");
    }
    let null = Bytes::from(container(Codec::Null, 3));
    run(readable("t/null.avro", null)).unwrap();
    assert_eq!(*codec.0.borrow(), ["t/xz.avro", "t/bzip2.avro"]);
    CODEC.with(|c| c.borrow_mut().take());
}
