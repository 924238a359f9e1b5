//! One Arrow array as bytes for another wasm instance (the app's decoder worker): its buffers as
//! they are, after a JSON description of its layout, so the page links no Arrow IPC writer.
//!
//! Layout: the description's length (u64, little-endian), the description ([`Node`] as JSON:
//! the array's type, length, offset, validity and the byte length of each buffer, then its
//! children's), then every buffer's bytes in the description's order (a node's validity, its
//! buffers, then its children). [`from_bytes`] rebuilds the array and validates it fully.

use arrow_array::{make_array, Array, ArrayRef};
use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer};
use arrow_data::{ArrayData, ArrayDataBuilder};
use arrow_schema::{ArrowError, DataType};
use serde::{Deserialize, Serialize};

/// Why a transferred array cannot be written or read back.
#[derive(Debug, thiserror::Error)]
pub enum TransferError {
    /// The layout description could not be written or read.
    #[error("describing the array as JSON: {0}")]
    Description(#[from] serde_json::Error),
    /// Fewer bytes than described.
    #[error("the transferred array ends after {available} bytes, {needed} more were described")]
    Truncated {
        /// The bytes the next part needs.
        needed: usize,
        /// The bytes left.
        available: usize,
    },
    /// More bytes than described.
    #[error("{0} bytes follow the transferred array's last buffer")]
    TrailingBytes(usize),
    /// A validity bitmap longer than its bytes.
    #[error("validity of {len} bits from bit {offset} does not fit its {bytes} bytes")]
    Validity {
        /// Its first bit.
        offset: usize,
        /// Its bits.
        len: usize,
        /// Its bytes.
        bytes: usize,
    },
    /// The buffers do not make a valid array of the described type.
    #[error("rebuilding the transferred array: {0}")]
    Invalid(#[from] ArrowError),
}

/// The layout of one array (or child array); its bytes follow the description.
#[derive(Serialize, Deserialize)]
struct Node {
    data_type: DataType,
    len: usize,
    offset: usize,
    validity: Option<Validity>,
    buffers: Vec<usize>,
    children: Vec<Node>,
}

/// A validity bitmap: `len` bits from bit `offset` of its `bytes` bytes.
#[derive(Serialize, Deserialize)]
struct Validity {
    offset: usize,
    len: usize,
    bytes: usize,
}

/// `array` as bytes that [`from_bytes`] reads back.
pub fn to_bytes(array: &dyn Array) -> Result<Vec<u8>, TransferError> {
    let mut body = Vec::new();
    let description = serde_json::to_vec(&describe(&array.to_data(), &mut body))?;
    let mut out = Vec::with_capacity(8 + description.len() + body.len());
    out.extend_from_slice(&(description.len() as u64).to_le_bytes());
    out.extend_from_slice(&description);
    out.extend_from_slice(&body);
    Ok(out)
}

/// The array that [`to_bytes`] wrote.
pub fn from_bytes(bytes: &[u8]) -> Result<ArrayRef, TransferError> {
    let mut rest = bytes;
    let mut length = [0; 8];
    length.copy_from_slice(take(&mut rest, 8)?);
    let described = usize::try_from(u64::from_le_bytes(length)).unwrap_or(usize::MAX);
    let node: Node = serde_json::from_slice(take(&mut rest, described)?)?;
    let data = rebuild(node, &mut rest)?;
    if !rest.is_empty() {
        return Err(TransferError::TrailingBytes(rest.len()));
    }
    Ok(make_array(data))
}

/// The description of `data`, whose bytes are appended to `body`.
fn describe(data: &ArrayData, body: &mut Vec<u8>) -> Node {
    let validity = data.nulls().map(|nulls| {
        let bytes = nulls.buffer().as_slice();
        body.extend_from_slice(bytes);
        Validity {
            offset: nulls.offset(),
            len: nulls.len(),
            bytes: bytes.len(),
        }
    });
    let buffers = data
        .buffers()
        .iter()
        .map(|buffer| {
            body.extend_from_slice(buffer.as_slice());
            buffer.len()
        })
        .collect();
    let children = data
        .child_data()
        .iter()
        .map(|child| describe(child, body))
        .collect();
    Node {
        data_type: data.data_type().clone(),
        len: data.len(),
        offset: data.offset(),
        validity,
        buffers,
        children,
    }
}

/// The array `node` describes, its bytes taken from the front of `rest`.
fn rebuild(node: Node, rest: &mut &[u8]) -> Result<ArrayData, TransferError> {
    let nulls = match node.validity {
        Some(v) => {
            let bits = take(rest, v.bytes)?;
            let fits = v
                .offset
                .checked_add(v.len)
                .map(|end| end.div_ceil(8) <= v.bytes);
            if fits != Some(true) {
                return Err(TransferError::Validity {
                    offset: v.offset,
                    len: v.len,
                    bytes: v.bytes,
                });
            }
            let bits = BooleanBuffer::new(Buffer::from_slice_ref(bits), v.offset, v.len);
            Some(NullBuffer::new(bits))
        }
        None => None,
    };
    let buffers = node
        .buffers
        .iter()
        .map(|&len| take(rest, len).map(Buffer::from_slice_ref))
        .collect::<Result<Vec<_>, _>>()?;
    let children = node
        .children
        .into_iter()
        .map(|child| rebuild(child, rest))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(ArrayDataBuilder::new(node.data_type)
        .len(node.len)
        .offset(node.offset)
        .nulls(nulls)
        .buffers(buffers)
        .child_data(children)
        .build()?)
}

/// The first `needed` bytes of `rest`, which then starts after them.
fn take<'a>(rest: &mut &'a [u8], needed: usize) -> Result<&'a [u8], TransferError> {
    if needed > rest.len() {
        return Err(TransferError::Truncated {
            needed,
            available: rest.len(),
        });
    }
    let (front, back) = rest.split_at(needed);
    *rest = back;
    Ok(front)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::builder::{BinaryBuilder, Int64Builder, ListBuilder, StringBuilder};
    use arrow_array::{BinaryArray, StructArray};
    use arrow_schema::{Field, Fields};
    use std::collections::HashMap;
    use std::sync::Arc;

    /// A shredded-variant-like group: metadata and value binaries, a typed list, nulls at
    /// several levels, field metadata, sliced so that offsets and validity offsets are non-zero.
    fn group() -> ArrayRef {
        let metadata: BinaryArray = [
            Some(&b"\x01\x00"[..]),
            None,
            Some(b"\x01\x01\x00\x01a"),
            Some(b""),
        ]
        .into_iter()
        .collect();
        let mut value = BinaryBuilder::new();
        value.append_value(b"\x0c\x01");
        value.append_null();
        value.append_value(b"");
        value.append_value(b"\x00");
        let value = value.finish();
        let mut typed = ListBuilder::new(Int64Builder::new());
        typed.append_value([Some(1), None, Some(3)]);
        typed.append_null();
        typed.append_value([]);
        typed.append_value([Some(-7)]);
        let mut names = StringBuilder::new();
        for n in [Some("a"), Some("é"), None, Some("")] {
            names.append_option(n);
        }
        let tagged = Field::new("metadata", metadata.data_type().clone(), true).with_metadata(
            HashMap::from([("PARQUET:field_id".to_string(), "3".to_string())]),
        );
        let typed = typed.finish();
        let names = names.finish();
        let fields = Fields::from(vec![
            tagged,
            Field::new("value", value.data_type().clone(), true),
            Field::new("typed_value", typed.data_type().clone(), true),
            Field::new("name", names.data_type().clone(), true),
        ]);
        let group = StructArray::try_new(
            fields,
            vec![
                Arc::new(metadata),
                Arc::new(value),
                Arc::new(typed),
                Arc::new(names),
            ],
            Some(NullBuffer::from(vec![true, true, false, true])),
        )
        .unwrap();
        Arc::new(group)
    }

    #[test]
    fn round_trips_a_group_whole_and_sliced() {
        let whole = group();
        for array in [
            whole.clone(),
            whole.slice(1, 3),
            whole.slice(3, 1),
            whole.slice(2, 0),
        ] {
            let back = from_bytes(&to_bytes(array.as_ref()).unwrap()).unwrap();
            assert_eq!(back.data_type(), array.data_type());
            assert_eq!(back.to_data(), array.to_data());
        }
    }

    #[test]
    fn refuses_cut_extended_or_inconsistent_bytes() {
        let bytes = to_bytes(group().as_ref()).unwrap();
        for cut in [0, 7, 8, 20, bytes.len() - 1] {
            assert!(
                matches!(
                    from_bytes(&bytes[..cut]),
                    Err(TransferError::Truncated { .. }) | Err(TransferError::Description(_))
                ),
                "cut at {cut}"
            );
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(matches!(
            from_bytes(&longer),
            Err(TransferError::TrailingBytes(1))
        ));
        // a string child whose offsets point past its values: refused by validation, no panic
        let strings: ArrayRef = Arc::new(arrow_array::StringArray::from(vec!["ab", "c"]));
        let mut bytes = to_bytes(strings.as_ref()).unwrap();
        let last = bytes.len() - 3 - 4;
        bytes[last] = 200;
        assert!(matches!(from_bytes(&bytes), Err(TransferError::Invalid(_))));
    }
}
