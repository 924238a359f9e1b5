//! Avro object containers compressed with `xz` or `bzip2`, made readable before any Avro reader
//! parses them: rewritten with codec `null` ([`transcode`]) in this build, or by the [`AvroCodec`]
//! the application sets (the explorer's lazily loaded decoder worker, so its first load carries
//! no xz or bzip2 decoder). Every other container passes through untouched. [`datums`] reads a
//! container's records one at a time as bytes, for readers that skip the records they do not keep.

pub mod datums;
mod header;
#[cfg(any(feature = "avro-xz-bzip2", not(target_arch = "wasm32")))]
pub mod transcode;

use crate::{Error, Result};
use bytes::Bytes;
use std::borrow::Cow;
use std::cell::RefCell;
use std::rc::Rc;

/// The metadata key naming a container's codec.
const CODEC_KEY: &str = "avro.codec";

/// Rewrites containers with codec `xz` or `bzip2` into codec `null`, for a build without the
/// decoders: `Err` carries the cause (the caller adds the file name).
#[async_trait::async_trait(?Send)]
pub trait AvroCodec {
    /// `bytes`, the whole container `file`, with every block decompressed and codec `null`.
    async fn to_null_codec(&self, file: &str, bytes: Bytes) -> std::result::Result<Bytes, String>;
}

thread_local! {
    static CODEC: RefCell<Option<Rc<dyn AvroCodec>>> = const { RefCell::new(None) };
}

/// Sets the xz/bzip2 Avro decoder of this thread (it replaces the built-in one, too); per thread
/// for the same reason as [`super::orc::set_codec`].
pub fn set_codec(codec: Rc<dyn AvroCodec>) {
    CODEC.with(|c| *c.borrow_mut() = Some(codec));
}

/// The codec of container `bytes` if it is `xz` or `bzip2` (anything else, or no container at
/// all, is left to the Avro reader and its own errors).
fn compressed_codec(bytes: &[u8]) -> Option<&'static str> {
    let header = header::Header::parse(bytes).ok()?;
    match header.get(CODEC_KEY)? {
        b"xz" => Some("xz"),
        b"bzip2" => Some("bzip2"),
        _ => None,
    }
}

/// Container `bytes` (the file `file`) readable by apache-avro: an `xz` or `bzip2` one rewritten
/// with codec `null` by the [`AvroCodec`] set, else by this build; any other passed through.
pub async fn readable(file: &str, bytes: Bytes) -> Result<Bytes> {
    let Some(codec_name) = compressed_codec(&bytes) else {
        return Ok(bytes);
    };
    if let Some(codec) = CODEC.with(|c| c.borrow().clone()) {
        return codec
            .to_null_codec(file, bytes)
            .await
            .map_err(|e| corrupt(file, codec_name, e));
    }
    in_this_build(file, codec_name, &bytes).map(Bytes::from)
}

/// [`readable`] for the synchronous readers (Iceberg's manifest rewrite and schema probes): only
/// this build's decoders, never the [`AvroCodec`].
pub fn readable_now<'a>(file: &str, bytes: &'a [u8]) -> Result<Cow<'a, [u8]>> {
    match compressed_codec(bytes) {
        None => Ok(Cow::Borrowed(bytes)),
        Some(codec_name) => in_this_build(file, codec_name, bytes).map(Cow::Owned),
    }
}

fn corrupt(file: &str, codec: &str, cause: impl std::fmt::Display) -> Error {
    Error::corrupt(
        file,
        format!("invalid Avro file (compression codec '{codec}'): {cause}"),
    )
}

#[cfg(any(feature = "avro-xz-bzip2", not(target_arch = "wasm32")))]
fn in_this_build(file: &str, codec: &str, bytes: &[u8]) -> Result<Vec<u8>> {
    transcode::to_null_codec(bytes).map_err(|e| corrupt(file, codec, e))
}

#[cfg(not(any(feature = "avro-xz-bzip2", not(target_arch = "wasm32"))))]
fn in_this_build(file: &str, codec: &str, _bytes: &[u8]) -> Result<Vec<u8>> {
    Err(Error::unsupported(
        file,
        format!("Avro compression codec '{codec}': this build has no {codec} decoder (lakescope-format feature `avro-xz-bzip2`, or read::avro_container::set_codec)"),
    ))
}

#[cfg(test)]
mod datums_tests;
#[cfg(test)]
mod tests;
