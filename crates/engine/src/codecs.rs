//! Decoders a host plugs into the readers: the explorer's worker decodes ORC files and VARIANT
//! values off the page (the first load carries neither decoder).

use std::rc::Rc;

pub use lakescope_paimon::read::orc::{OrcCodec, OrcRequest};
pub use lakescope_paimon::read::variant::VariantCodec;

/// Reads ORC files with `orc` and VARIANT values with `variant` from now on (without them, or
/// the `orc`/`variant` features, such files and values are refused by name).
pub fn install(orc: Rc<dyn OrcCodec>, variant: Rc<dyn VariantCodec>) {
    lakescope_paimon::read::orc::set_codec(orc);
    lakescope_paimon::read::variant::set_codec(variant);
}
