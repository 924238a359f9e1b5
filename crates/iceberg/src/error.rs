//! Errors of the Iceberg layer (reads and writes): each names the file (or table) and the cause.

/// Result alias for the Iceberg layer.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why reading an Iceberg table failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The storage layer failed.
    #[error(transparent)]
    Storage(#[from] lakescope_storage::Error),
    /// A metadata, manifest or data file is malformed (truncated, corrupt, not what it claims).
    #[error("{file}: {reason}")]
    Corrupt { file: String, reason: String },
    /// Decoding a data file failed (the shared Parquet/ORC/Avro readers).
    #[error(transparent)]
    Data(#[from] lakescope_paimon::Error),
    /// The table, snapshot, ref or schema asked for does not exist.
    #[error("{what} not found{}", .context.as_deref().map(|c| format!(" ({c})")).unwrap_or_default())]
    NotFound {
        what: String,
        context: Option<String>,
    },
    /// The table uses a feature this reader does not support yet.
    #[error("{file}: unsupported: {feature}")]
    Unsupported { file: String, feature: String },
    /// A commit lost to a concurrent writer (after retrying), or what it creates already exists.
    #[error("{table}: {reason}")]
    Conflict { table: String, reason: String },
    /// The caller asked for something invalid.
    #[error("{0}")]
    Invalid(String),
    /// A commit a catalog service may or may not have applied (a 5xx, a timeout, a lost or
    /// garbled answer: the REST spec's `CommitStateUnknownException`); its files are kept.
    #[error("{table}: the commit may or may not have been applied ({cause}): load the table before writing again")]
    CommitStateUnknown { table: String, cause: String },
    /// A catalog service (REST) could not be reached or refused a request.
    #[error("{endpoint}{}: {message}", .status.map(|s| format!(" answered {s}")).unwrap_or_default())]
    Catalog {
        endpoint: String,
        status: Option<u16>,
        message: String,
    },
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

    /// A not-found error.
    pub fn not_found(what: impl Into<String>, context: Option<String>) -> Self {
        Error::NotFound {
            what: what.into(),
            context,
        }
    }
}
