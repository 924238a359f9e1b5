//! Bounds-checked little-endian reads (numbers, varints, length-prefixed bytes, null bitmaps).

/// Little-endian reads over a byte slice; every read is bounds-checked.
pub(crate) struct Cursor<'a> {
    pub(crate) data: &'a [u8],
    pub(crate) pos: usize,
}

pub(crate) type Step<T> = std::result::Result<T, String>;

impl<'a> Cursor<'a> {
    pub(crate) fn new(data: &'a [u8]) -> Self {
        Self { data, pos: 0 }
    }

    pub(crate) fn at_end(&self) -> bool {
        self.pos >= self.data.len()
    }

    pub(crate) fn take(&mut self, n: usize) -> Step<&'a [u8]> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|e| *e <= self.data.len())
            .ok_or_else(|| {
                format!(
                    "{n} bytes at {} run past the end ({})",
                    self.pos,
                    self.data.len()
                )
            })?;
        let out = &self.data[self.pos..end];
        self.pos = end;
        Ok(out)
    }

    pub(crate) fn array<const N: usize>(&mut self) -> Step<[u8; N]> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    pub(crate) fn u8(&mut self) -> Step<u8> {
        Ok(self.array::<1>()?[0])
    }
    pub(crate) fn i16(&mut self) -> Step<i16> {
        Ok(i16::from_le_bytes(self.array()?))
    }
    pub(crate) fn i32(&mut self) -> Step<i32> {
        Ok(i32::from_le_bytes(self.array()?))
    }
    pub(crate) fn i64(&mut self) -> Step<i64> {
        Ok(i64::from_le_bytes(self.array()?))
    }

    pub(crate) fn varint_u64(&mut self) -> Step<u64> {
        let mut result = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.u8()?;
            result |= u64::from(b & 0x7F) << shift;
            if b & 0x80 == 0 {
                return Ok(result);
            }
        }
        Err("a varint longer than 64 bits".into())
    }

    /// A non-negative 32-bit varint (Paimon's `readVarInt`: sizes and lengths).
    pub(crate) fn varint(&mut self) -> Step<usize> {
        let v = self.varint_u64()?;
        usize::try_from(v)
            .ok()
            .filter(|v| *v <= i32::MAX as usize)
            .ok_or_else(|| format!("size {v} out of range"))
    }

    pub(crate) fn bytes(&mut self) -> Step<&'a [u8]> {
        let len = self.varint()?;
        self.take(len)
    }

    /// Whether bit `i` of the bitmap starting at `start` is set.
    pub(crate) fn bit(&self, start: usize, i: usize) -> bool {
        self.data[start + i / 8] & (1 << (i % 8)) != 0
    }

    /// Skips a null bitmap of `n` bits and returns where it starts.
    pub(crate) fn bitmap(&mut self, n: usize) -> Step<usize> {
        let start = self.pos;
        self.take(n.div_ceil(8))?;
        Ok(start)
    }
}
