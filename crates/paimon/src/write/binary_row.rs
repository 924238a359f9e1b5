//! Encoding [`Datum`] values into Paimon's serialized `BinaryRow`, and its Murmur3 hash code.
//!
//! The layout is the one [`crate::spec::binary_row`] decodes: header byte + null bits, one
//! 8-byte little-endian slot per field, then a variable part whose values are each padded to a
//! multiple of 8 bytes. Values of at most 7 bytes are inlined in the slot. Non-compact values
//! (DECIMAL p > 18, TIMESTAMP p > 3) always reserve their variable-part space, even when null,
//! exactly as Java's `BinaryRowWriter` does, so hash codes of rows match Java's.

use crate::error::{Error, Result};
use crate::spec::binary_row::{BinaryRow, Datum};
use crate::spec::types::{DataType, TypeKind};

/// Encodes one row; `kind` is the header byte (RowKind: 0 = +I).
pub fn row_bytes(values: &[Datum], types: &[DataType]) -> Result<Vec<u8>> {
    if values.len() != types.len() {
        return Err(Error::Invalid(format!(
            "BinaryRow encoder: {} values for {} types",
            values.len(),
            types.len()
        )));
    }
    let arity = values.len();
    let bitset = BinaryRow::header_width(arity);
    let fixed = bitset + arity * 8;
    let mut buf = vec![0u8; fixed];
    for (i, (v, t)) in values.iter().zip(types).enumerate() {
        write_field(&mut buf, bitset, i, v, t)?;
    }
    Ok(buf)
}

/// The serialized form stored in manifests: 4-byte big-endian arity, then [`row_bytes`].
pub fn serialize(values: &[Datum], types: &[DataType]) -> Result<Vec<u8>> {
    let row = row_bytes(values, types)?;
    let arity = i32::try_from(values.len())
        .map_err(|_| Error::Invalid("BinaryRow arity overflows".into()))?;
    let mut out = Vec::with_capacity(4 + row.len());
    out.extend_from_slice(&arity.to_be_bytes());
    out.extend_from_slice(&row);
    Ok(out)
}

/// The serialized empty row (arity 0), Paimon's `EMPTY_ROW`.
pub fn empty_row() -> Vec<u8> {
    let mut out = vec![0u8; 4];
    out.extend_from_slice(&[0u8; 8]);
    out
}

fn set_null(buf: &mut [u8], i: usize) {
    let bit = i + 8;
    buf[bit / 8] |= 1u8 << (bit % 8);
}

fn put_slot(buf: &mut [u8], bitset: usize, i: usize, v: u64) {
    let at = bitset + i * 8;
    buf[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

/// Appends `bytes` to the variable part padded to 8 bytes (and at least `reserve` bytes);
/// returns the offset.
fn append_var(buf: &mut Vec<u8>, bytes: &[u8], reserve: usize) -> u64 {
    let offset = buf.len();
    let size = bytes.len().max(reserve);
    let rounded = size.div_ceil(8) * 8;
    buf.resize(offset + rounded, 0);
    buf[offset..offset + bytes.len()].copy_from_slice(bytes);
    offset as u64
}

fn var_len(buf: &mut Vec<u8>, bitset: usize, i: usize, bytes: &[u8]) {
    if bytes.len() <= 7 {
        let mut slot = [0u8; 8];
        slot[..bytes.len()].copy_from_slice(bytes);
        slot[7] = 0x80 | bytes.len() as u8;
        put_slot(buf, bitset, i, u64::from_le_bytes(slot));
    } else {
        let offset = append_var(buf, bytes, 0);
        put_slot(buf, bitset, i, offset << 32 | bytes.len() as u64);
    }
}

fn mismatch(i: usize, v: &Datum, t: &DataType) -> Error {
    Error::Invalid(format!(
        "BinaryRow encoder: field {i} value {v:?} does not fit type {t}"
    ))
}

/// Minimal big-endian two's complement bytes (Java `BigInteger.toByteArray`).
pub fn to_java_big_integer_bytes(v: i128) -> Vec<u8> {
    let full = v.to_be_bytes();
    let mut start = 0;
    while start < 15 {
        let (b, next) = (full[start], full[start + 1]);
        let redundant = (b == 0 && next & 0x80 == 0) || (b == 0xff && next & 0x80 != 0);
        if !redundant {
            break;
        }
        start += 1;
    }
    full[start..].to_vec()
}

fn write_field(buf: &mut Vec<u8>, bitset: usize, i: usize, v: &Datum, t: &DataType) -> Result<()> {
    // Non-compact types reserve space even for NULL.
    match (&t.kind, v) {
        (TypeKind::Decimal { precision, .. }, Datum::Null) if *precision > 18 => {
            set_null(buf, i);
            let offset = append_var(buf, &[], 16);
            put_slot(buf, bitset, i, offset << 32);
            return Ok(());
        }
        (TypeKind::Timestamp(p) | TypeKind::LocalZonedTimestamp(p), Datum::Null) if *p > 3 => {
            set_null(buf, i);
            let offset = append_var(buf, &[], 8);
            put_slot(buf, bitset, i, offset << 32);
            return Ok(());
        }
        (_, Datum::Null) => {
            set_null(buf, i);
            return Ok(());
        }
        _ => {}
    }
    match (&t.kind, v) {
        (TypeKind::Boolean, Datum::Boolean(b)) => put_slot(buf, bitset, i, u64::from(*b)),
        (TypeKind::TinyInt, Datum::TinyInt(x)) => put_slot(buf, bitset, i, u64::from(*x as u8)),
        (TypeKind::SmallInt, Datum::SmallInt(x)) => put_slot(buf, bitset, i, u64::from(*x as u16)),
        (TypeKind::Int, Datum::Int(x))
        | (TypeKind::Date, Datum::Date(x))
        | (TypeKind::Time(_), Datum::Time(x)) => put_slot(buf, bitset, i, u64::from(*x as u32)),
        (TypeKind::BigInt, Datum::BigInt(x)) => put_slot(buf, bitset, i, *x as u64),
        (TypeKind::Float, Datum::Float(x)) => put_slot(buf, bitset, i, u64::from(x.to_bits())),
        (TypeKind::Double, Datum::Double(x)) => put_slot(buf, bitset, i, x.to_bits()),
        (TypeKind::Decimal { precision, .. }, Datum::Decimal { unscaled, .. }) => {
            if *precision <= 18 {
                let x = i64::try_from(*unscaled).map_err(|_| mismatch(i, v, t))?;
                put_slot(buf, bitset, i, x as u64);
            } else {
                let bytes = to_java_big_integer_bytes(*unscaled);
                let offset = append_var(buf, &bytes, 16);
                put_slot(buf, bitset, i, offset << 32 | bytes.len() as u64);
            }
        }
        (TypeKind::Char(_) | TypeKind::VarChar(_), Datum::String(s)) => {
            var_len(buf, bitset, i, s.as_bytes())
        }
        (TypeKind::Binary(_) | TypeKind::VarBinary(_), Datum::Binary(b)) => {
            var_len(buf, bitset, i, b)
        }
        (
            TypeKind::Timestamp(p),
            Datum::Timestamp {
                millis,
                nanos_of_milli,
            },
        )
        | (
            TypeKind::LocalZonedTimestamp(p),
            Datum::LocalZonedTimestamp {
                millis,
                nanos_of_milli,
            },
        ) => {
            if *p <= 3 {
                put_slot(buf, bitset, i, *millis as u64);
            } else {
                let offset = append_var(buf, &millis.to_le_bytes(), 8);
                put_slot(
                    buf,
                    bitset,
                    i,
                    offset << 32 | u64::from(*nanos_of_milli as u32),
                );
            }
        }
        _ => return Err(mismatch(i, v, t)),
    }
    Ok(())
}

/// Paimon's `MurmurHashUtils.hashBytesByWords` with seed 42 over whole 4-byte words
/// (little-endian), as `BinaryRow.hashCode()` computes it. `bytes.len()` must be a multiple of 4
/// (row bytes always are: they are 8-byte aligned).
pub fn murmur_hash_words(bytes: &[u8]) -> i32 {
    const C1: u32 = 0xcc9e_2d51;
    const C2: u32 = 0x1b87_3593;
    let mut h1: u32 = 42;
    for word in bytes.chunks_exact(4) {
        let mut k1 = u32::from_le_bytes([word[0], word[1], word[2], word[3]]);
        k1 = k1.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2);
        h1 ^= k1;
        h1 = h1.rotate_left(13).wrapping_mul(5).wrapping_add(0xe654_6b64);
    }
    h1 ^= bytes.len() as u32;
    h1 ^= h1 >> 16;
    h1 = h1.wrapping_mul(0x85eb_ca6b);
    h1 ^= h1 >> 13;
    h1 = h1.wrapping_mul(0xc2b2_ae35);
    h1 ^= h1 >> 16;
    h1 as i32
}

/// `BinaryRow.hashCode()` of a row of these values (RowKind +I).
pub fn hash_code(values: &[Datum], types: &[DataType]) -> Result<i32> {
    Ok(murmur_hash_words(&row_bytes(values, types)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::types::MAX_LENGTH;

    fn t(kind: TypeKind) -> DataType {
        DataType::nullable(kind)
    }

    #[test]
    fn matches_pypaimon_partition_bytes() {
        // `_PARTITION` of corpus.pk_dedup: ('2024-03-01',)
        let want = b"\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\n\x00\x00\x00\x10\x00\x00\x002024-03-01\x00\x00\x00\x00\x00\x00";
        let got = serialize(
            &[Datum::String("2024-03-01".into())],
            &[t(TypeKind::VarChar(MAX_LENGTH))],
        )
        .unwrap();
        assert_eq!(got, want.to_vec());
        assert_eq!(empty_row(), serialize(&[], &[]).unwrap());
    }

    #[test]
    fn round_trips_through_the_decoder() {
        let types = vec![
            t(TypeKind::Boolean),
            t(TypeKind::TinyInt),
            t(TypeKind::SmallInt),
            t(TypeKind::Int),
            t(TypeKind::BigInt),
            t(TypeKind::Float),
            t(TypeKind::Double),
            t(TypeKind::Decimal {
                precision: 10,
                scale: 2,
            }),
            t(TypeKind::Decimal {
                precision: 30,
                scale: 2,
            }),
            t(TypeKind::VarChar(MAX_LENGTH)),
            t(TypeKind::VarChar(MAX_LENGTH)),
            t(TypeKind::VarBinary(MAX_LENGTH)),
            t(TypeKind::Date),
            t(TypeKind::Timestamp(3)),
            t(TypeKind::Timestamp(6)),
            t(TypeKind::Int),
            t(TypeKind::Decimal {
                precision: 30,
                scale: 2,
            }),
        ];
        let values = vec![
            Datum::Boolean(true),
            Datum::TinyInt(-3),
            Datum::SmallInt(-300),
            Datum::Int(-7),
            Datum::BigInt(1 << 40),
            Datum::Float(1.5),
            Datum::Double(-2.25),
            Datum::Decimal {
                unscaled: -12345,
                precision: 10,
                scale: 2,
            },
            Datum::Decimal {
                unscaled: -(1i128 << 80),
                precision: 30,
                scale: 2,
            },
            Datum::String("short".into()),
            Datum::String("a longer string value".into()),
            Datum::Binary(vec![1, 2, 3, 4, 5, 6, 7, 8, 9]),
            Datum::Date(19000),
            Datum::Timestamp {
                millis: 1_700_000_000_123,
                nanos_of_milli: 0,
            },
            Datum::Timestamp {
                millis: -1_700_000_000_123,
                nanos_of_milli: 456_000,
            },
            Datum::Null,
            Datum::Null,
        ];
        let bytes = serialize(&values, &types).unwrap();
        assert_eq!(BinaryRow::decode(&bytes, &types).unwrap(), values);
        assert_eq!((bytes.len() - 4) % 8, 0);
    }

    #[test]
    fn java_big_integer_bytes() {
        assert_eq!(to_java_big_integer_bytes(0), vec![0]);
        assert_eq!(to_java_big_integer_bytes(127), vec![127]);
        assert_eq!(to_java_big_integer_bytes(128), vec![0, 128]);
        assert_eq!(to_java_big_integer_bytes(-1), vec![0xff]);
        assert_eq!(to_java_big_integer_bytes(-129), vec![0xff, 0x7f]);
    }

    #[test]
    fn murmur_matches_reference_vectors() {
        // Murmur3_x86_32 with seed 42 of little-endian words (reference: Guava murmur3_32(42)).
        assert_eq!(murmur_hash_words(&[]), {
            // fmix(42 ^ 0)
            let mut h: u32 = 42;
            h ^= h >> 16;
            h = h.wrapping_mul(0x85eb_ca6b);
            h ^= h >> 13;
            h = h.wrapping_mul(0xc2b2_ae35);
            h ^= h >> 16;
            h as i32
        });
    }
}
