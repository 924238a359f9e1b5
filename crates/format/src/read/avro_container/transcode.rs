//! Rewrites an Avro object container whose blocks are compressed with `xz` or `bzip2` into the
//! same container with codec `null`: header, schema, metadata, sync marker and per-block row
//! counts kept, each block's payload decompressed (pure Rust: lzma-rs, bzip2 with libbz2-rs-sys,
//! so the same code runs natively and in the explorer's decoder worker).

use super::header::{put_bytes, put_long, Cursor, Header, MAGIC};
use super::CODEC_KEY;
use std::io::Read;

/// The codecs this module decompresses (Avro's names).
pub(super) const CODECS: [&str; 2] = ["xz", "bzip2"];

/// `bytes`, an object container with codec `xz` or `bzip2`, as the same container with codec
/// `null`; `Err` is the cause (the caller names the file).
pub fn to_null_codec(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let header = Header::parse(bytes)?;
    let codec = header.get(CODEC_KEY).unwrap_or(b"null");
    let decompress: fn(&[u8]) -> Result<Vec<u8>, String> = match codec {
        b"xz" => xz,
        b"bzip2" => bzip2,
        other => {
            return Err(format!(
                "codec '{}' is not one this transcoder decodes ({})",
                String::from_utf8_lossy(other),
                CODECS.join(", ")
            ))
        }
    };
    let mut out = Vec::with_capacity(bytes.len() * 4);
    out.extend_from_slice(MAGIC);
    put_long(&mut out, header.metadata.len() as i64);
    for (key, value) in &header.metadata {
        put_bytes(&mut out, key);
        put_bytes(
            &mut out,
            if *key == CODEC_KEY.as_bytes() {
                b"null"
            } else {
                value
            },
        );
    }
    put_long(&mut out, 0);
    out.extend_from_slice(header.sync);
    let mut input = Cursor {
        bytes,
        at: header.end,
    };
    let mut block = 0;
    while !input.at_end() {
        let in_block = |e: String| format!("block {block}: {e}");
        let rows = input.long().map_err(in_block)?;
        let payload = input.bytes().map_err(in_block)?;
        let sync = input.take(16).map_err(in_block)?;
        if sync != header.sync {
            return Err(in_block("its sync marker differs from the header's".into()));
        }
        let plain = decompress(payload).map_err(in_block)?;
        put_long(&mut out, rows);
        put_bytes(&mut out, &plain);
        out.extend_from_slice(sync);
        block += 1;
    }
    Ok(out)
}

/// One block's xz stream (Avro's `xz` codec: the block is a whole `.xz` stream).
fn xz(payload: &[u8]) -> Result<Vec<u8>, String> {
    let mut plain = Vec::new();
    lzma_rs::xz_decompress(&mut &payload[..], &mut plain)
        .map_err(|e| format!("invalid xz data: {e}"))?;
    Ok(plain)
}

/// One block's bzip2 stream (Avro's `bzip2` codec: the block is a whole `.bz2` stream; streams
/// written one after another are read as one, as Python's `bz2` does).
fn bzip2(payload: &[u8]) -> Result<Vec<u8>, String> {
    let mut plain = Vec::new();
    bzip2::read::MultiBzDecoder::new(payload)
        .read_to_end(&mut plain)
        .map_err(|e| format!("invalid bzip2 data: {e}"))?;
    Ok(plain)
}
