//! Decoders a host plugs into the readers: the explorer's worker decodes ORC files, VARIANT
//! values and xz/bzip2 Avro blocks off the page (the first load carries none of these decoders).

use std::rc::Rc;

pub use lakescope_paimon::read::array_transfer;
pub use lakescope_paimon::read::avro_container::AvroCodec;
pub use lakescope_paimon::read::orc::{OrcCodec, OrcRequest};
pub use lakescope_paimon::read::variant::VariantCodec;

/// Reads ORC files with `orc`, VARIANT values with `variant` and Avro files compressed with xz or
/// bzip2 with `avro` from now on (without them, or the `orc`/`variant`/`avro-xz-bzip2` features,
/// such files and values are refused by name).
pub fn install(orc: Rc<dyn OrcCodec>, variant: Rc<dyn VariantCodec>, avro: Rc<dyn AvroCodec>) {
    lakescope_paimon::read::orc::set_codec(orc);
    lakescope_paimon::read::variant::set_codec(variant);
    lakescope_paimon::read::avro_container::set_codec(avro);
}
