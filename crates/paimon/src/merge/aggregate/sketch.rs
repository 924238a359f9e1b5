//! Union aggregators over serialized bitmaps and sketches held in BYTES fields:
//! `rbm32` (RoaringBitmap), `hll_sketch` and `theta_sketch` (Apache DataSketches).
//!
//! Every function takes the two non-null serialized values and returns the serialized union in
//! the format Paimon writes, so the result can be read back by Paimon (Java) itself:
//!
//! * `rbm32`: the portable RoaringBitmap format (RoaringFormatSpec), run-optimized before
//!   serialization like Paimon's `RoaringBitmap32.serialize`.
//! * `hll_sketch`: the union takes `lg_max_k` from the second (input) sketch, as Paimon's
//!   `HllSketchUtil.union` heapifies a `Union` from it, and the result is an HLL_4 sketch in the
//!   compact DataSketches image.
//! * `theta_sketch`: a default union (lg k 12, default seed) of both compact images, returned as
//!   an ordered compact sketch in the (uncompressed) DataSketches image.
//!
//! `rbm64` is not supported: Paimon serializes `Roaring64Bitmap` with the Java library's own
//! ART-based layout (a tag byte, the serialized adaptive radix tree, then the containers), which
//! is not the portable 64-bit Roaring format of the `roaring` crate.

use datasketches::hll::{HllSketch, HllType, HllUnion};
use datasketches::theta::{CompactThetaSketch, ThetaUnionBuilder};
use roaring::RoaringBitmap;

use crate::{Error, Result};

fn corrupt(func: &str, field: &str, what: impl std::fmt::Display) -> Error {
    Error::Invalid(format!(
        "aggregate function '{func}' of field '{field}': cannot read the serialized value: {what}"
    ))
}

/// `rbm32`: the union of two serialized 32-bit RoaringBitmaps.
pub(crate) fn rbm32_union(field: &str, acc: &[u8], input: &[u8]) -> Result<Vec<u8>> {
    let read =
        |b: &[u8]| RoaringBitmap::deserialize_from(b).map_err(|e| corrupt("rbm32", field, e));
    let mut a = read(acc)?;
    a |= read(input)?;
    a.optimize();
    let mut out = Vec::with_capacity(a.serialized_size());
    a.serialize_into(&mut out)
        .map_err(|e| Error::Invalid(format!("rbm32 of field '{field}': {e}")))?;
    Ok(out)
}

/// `hll_sketch`: the union of two serialized HLL sketches, as an HLL_4 sketch.
pub(crate) fn hll_union(field: &str, acc: &[u8], input: &[u8]) -> Result<Vec<u8>> {
    let read = |b: &[u8]| HllSketch::deserialize(b).map_err(|e| corrupt("hll_sketch", field, e));
    let a = read(acc)?;
    let b = read(input)?;
    let mut union = HllUnion::new(b.lg_config_k()).map_err(|e| corrupt("hll_sketch", field, e))?;
    union.update(&b);
    union.update(&a);
    Ok(union.to_sketch(HllType::Hll4).serialize())
}

/// `theta_sketch`: the union of two serialized compact Theta sketches.
pub(crate) fn theta_union(field: &str, acc: &[u8], input: &[u8]) -> Result<Vec<u8>> {
    let read = |b: &[u8]| {
        CompactThetaSketch::deserialize(b).map_err(|e| corrupt("theta_sketch", field, e))
    };
    let a = read(acc)?;
    let b = read(input)?;
    let mut union = ThetaUnionBuilder::default()
        .build()
        .map_err(|e| corrupt("theta_sketch", field, e))?;
    union
        .update(&a)
        .map_err(|e| corrupt("theta_sketch", field, e))?;
    union
        .update(&b)
        .map_err(|e| corrupt("theta_sketch", field, e))?;
    Ok(union.to_sketch(true).serialize())
}
