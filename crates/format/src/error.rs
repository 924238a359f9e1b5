//! Errors of the shared format layer: each names the file and the cause.

/// Result alias for the shared format layer.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why decoding a data file, a row or a schema failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The storage layer failed.
    #[cfg(feature = "read")]
    #[error(transparent)]
    Storage(#[from] lakescope_storage::Error),
    /// A data or metadata file is malformed (truncated, corrupt, or not what its name says).
    #[error("{file}: {reason}")]
    Corrupt {
        /// The file's path.
        file: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The file uses a feature this reader does not support yet.
    #[error("{file}: unsupported: {feature}")]
    Unsupported {
        /// The table or file that uses the feature.
        file: String,
        /// The feature, named as the format names it.
        feature: String,
    },
    /// The caller asked for something invalid (bad option value, bad type string, ...).
    #[error("{0}")]
    Invalid(String),
}

impl Error {
    /// A corrupt-file error.
    pub fn corrupt(file: impl Into<String>, reason: impl std::fmt::Display) -> Self {
        Error::Corrupt {
            file: file.into(),
            reason: reason.to_string(),
        }
    }

    /// An unsupported-feature error.
    pub fn unsupported(file: impl Into<String>, feature: impl std::fmt::Display) -> Self {
        Error::Unsupported {
            file: file.into(),
            feature: feature.to_string(),
        }
    }
}
