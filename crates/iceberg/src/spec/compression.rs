//! gzip-compressed table metadata (`*.gz.metadata.json`, `*.metadata.json.gz`): detection and decoding.

use crate::{Error, Result};
use flate2::read::GzDecoder;
use std::borrow::Cow;
use std::io::Read;

/// The two magic bytes every gzip member starts with.
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Whether `name` is a metadata file name that says it is gzip-compressed.
pub fn is_gzip_name(name: &str) -> bool {
    name.ends_with(".gz.metadata.json") || name.ends_with(".metadata.json.gz")
}

/// The JSON text of a metadata file: `bytes` as they are, or decompressed when they are gzip
/// (recognised by content, whatever the name says). `file` names the file in errors.
pub fn metadata_json<'a>(file: &str, bytes: &'a [u8]) -> Result<Cow<'a, [u8]>> {
    if !bytes.starts_with(&GZIP_MAGIC) {
        if is_gzip_name(file) && !bytes.is_empty() && !bytes.starts_with(b"{") {
            return Err(Error::corrupt(
                file,
                "named as gzip-compressed table metadata but is neither gzip nor JSON",
            ));
        }
        return Ok(Cow::Borrowed(bytes));
    }
    let mut out = Vec::with_capacity(bytes.len() * 4);
    GzDecoder::new(bytes).read_to_end(&mut out).map_err(|e| {
        Error::corrupt(file, format!("invalid gzip-compressed table metadata: {e}"))
    })?;
    Ok(Cow::Owned(out))
}

/// `bytes` compressed as one gzip member (for tests and writers of compressed metadata).
pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    use flate2::write::GzEncoder;
    use std::io::Write;
    let mut enc = GzEncoder::new(Vec::new(), flate2::Compression::default());
    // Writing into a Vec cannot fail.
    let _ = enc.write_all(bytes);
    enc.finish().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_and_gzip_round_trip() {
        let json = br#"{"a":1}"#;
        assert_eq!(
            metadata_json("m.metadata.json", json).unwrap().as_ref(),
            json
        );
        let gz = gzip(json);
        assert_eq!(
            metadata_json("00001-x.gz.metadata.json", &gz)
                .unwrap()
                .as_ref(),
            json
        );
        assert!(is_gzip_name("v2.metadata.json.gz"));
        assert!(!is_gzip_name("v2.metadata.json"));
    }

    #[test]
    fn truncated_gzip_is_a_named_error() {
        let gz = gzip(&[b'x'; 4000]);
        let err = metadata_json("t/metadata/00001-x.gz.metadata.json", &gz[..gz.len() / 2])
            .unwrap_err()
            .to_string();
        assert!(err.contains("t/metadata/00001-x.gz.metadata.json"), "{err}");
        assert!(err.contains("gzip"), "{err}");
    }
}
