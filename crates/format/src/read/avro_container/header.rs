//! The framing of an Avro object container file (the Avro specification, "Object Container
//! Files"): its header (magic, metadata map, sync marker) and its data blocks.

/// The four bytes every object container file starts with.
pub(super) const MAGIC: &[u8; 4] = b"Obj\x01";

/// A container's header.
pub(super) struct Header<'a> {
    /// The metadata map's entries, in file order (`avro.schema`, `avro.codec`, user keys).
    pub metadata: Vec<(&'a [u8], &'a [u8])>,
    /// The 16-byte marker that follows every block.
    pub sync: &'a [u8],
    /// Where the first data block starts.
    pub end: usize,
}

impl<'a> Header<'a> {
    /// The header of `bytes`, or why it is not an object container header.
    pub fn parse(bytes: &'a [u8]) -> Result<Self, String> {
        if !bytes.starts_with(MAGIC) {
            return Err("not an Avro object container file (no 'Obj\\x01' magic)".into());
        }
        let mut input = Cursor {
            bytes,
            at: MAGIC.len(),
        };
        let mut metadata = Vec::new();
        loop {
            let count = input.long()?;
            if count == 0 {
                break;
            }
            if count < 0 {
                // A negative count is followed by the block's size in bytes.
                input.long()?;
            }
            for _ in 0..count.unsigned_abs() {
                let key = input.bytes()?;
                let value = input.bytes()?;
                metadata.push((key, value));
            }
        }
        let sync = input.take(16)?;
        Ok(Header {
            metadata,
            sync,
            end: input.at,
        })
    }

    /// The value of metadata key `key`, if present.
    pub fn get(&self, key: &str) -> Option<&'a [u8]> {
        self.metadata
            .iter()
            .find(|(k, _)| *k == key.as_bytes())
            .map(|(_, v)| *v)
    }
}

/// Reads Avro's binary encoding from a byte slice.
pub(super) struct Cursor<'a> {
    pub bytes: &'a [u8],
    pub at: usize,
}

impl<'a> Cursor<'a> {
    /// Whether every byte has been read.
    pub fn at_end(&self) -> bool {
        self.at >= self.bytes.len()
    }

    /// The next `n` bytes.
    pub fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self
            .at
            .checked_add(n)
            .filter(|end| *end <= self.bytes.len())
            .ok_or_else(|| {
                format!(
                    "truncated at byte {} (wanted {n} more, {} left)",
                    self.at,
                    self.bytes.len() - self.at.min(self.bytes.len())
                )
            })?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    /// A `long`: a zig-zag varint of at most 10 bytes.
    pub fn long(&mut self) -> Result<i64, String> {
        let mut value: u64 = 0;
        for shift in (0..70).step_by(7) {
            let byte = *self
                .bytes
                .get(self.at)
                .ok_or_else(|| format!("truncated long at byte {}", self.at))?;
            self.at += 1;
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok((value >> 1) as i64 ^ -((value & 1) as i64));
            }
        }
        Err(format!(
            "a long longer than 10 bytes before byte {}",
            self.at
        ))
    }

    /// A `bytes` or `string` value: a length, then that many bytes.
    pub fn bytes(&mut self) -> Result<&'a [u8], String> {
        let at = self.at;
        let len = self.long()?;
        let len =
            usize::try_from(len).map_err(|_| format!("negative length {len} at byte {at}"))?;
        self.take(len)
    }
}

/// Appends `value` as an Avro `long`.
#[cfg(any(feature = "avro-xz-bzip2", not(target_arch = "wasm32")))]
pub(super) fn put_long(out: &mut Vec<u8>, value: i64) {
    let mut zigzag = ((value << 1) ^ (value >> 63)) as u64;
    loop {
        let byte = (zigzag & 0x7f) as u8;
        zigzag >>= 7;
        if zigzag == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// Appends `value` as an Avro `bytes` value.
#[cfg(any(feature = "avro-xz-bzip2", not(target_arch = "wasm32")))]
pub(super) fn put_bytes(out: &mut Vec<u8>, value: &[u8]) {
    put_long(out, value.len() as i64);
    out.extend_from_slice(value);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn longs_round_trip_through_the_zig_zag_varint() {
        for value in [0, 1, -1, 63, -64, 64, 300, -300, i64::MAX, i64::MIN] {
            let mut out = Vec::new();
            put_long(&mut out, value);
            let mut cursor = Cursor { bytes: &out, at: 0 };
            assert_eq!(cursor.long(), Ok(value));
            assert!(cursor.at_end());
        }
        // Avro's examples: 1 → 02, -2 → 03, 64 → 80 01.
        let mut out = Vec::new();
        put_long(&mut out, 64);
        assert_eq!(out, [0x80, 0x01]);
    }

    #[test]
    fn a_truncated_or_overlong_header_is_an_error_not_a_panic() {
        assert!(Header::parse(b"Obj").is_err());
        assert!(Header::parse(b"Obj\x01\x02\x08key").is_err());
        assert!(Header::parse(b"Obj\x01\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff").is_err());
        // A negative length of a key.
        assert!(Header::parse(b"Obj\x01\x02\x01").is_err());
        // A huge count with nothing behind it.
        assert!(Header::parse(b"Obj\x01\xfe\xff\xff\xff\x0f").is_err());
    }
}
