//! Errors of the Paimon layer: each names the file (or table) and the cause.

/// Result alias for the Paimon layer.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why reading or writing a Paimon table failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The storage layer failed.
    #[error(transparent)]
    Storage(#[from] lakescope_storage::Error),
    /// A metadata or data file is malformed (truncated, corrupt, or not what its name says).
    #[error("{file}: {reason}")]
    Corrupt {
        /// The file's path.
        file: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The table, snapshot, tag, schema or column asked for does not exist.
    #[error("{what} not found{}", .context.as_deref().map(|c| format!(" ({c})")).unwrap_or_default())]
    NotFound {
        /// What was asked for (e.g. `snapshot 7`).
        what: String,
        /// Where it was looked for, if that helps.
        context: Option<String>,
    },
    /// The table uses a feature this reader does not support yet.
    #[error("{file}: unsupported: {feature}")]
    Unsupported {
        /// The table or file that uses the feature.
        file: String,
        /// The feature, named as Paimon names it.
        feature: String,
    },
    /// The caller asked for something invalid (bad option value, bad predicate, ...).
    #[error("{0}")]
    Invalid(String),
    /// A snapshot commit a catalog service may or may not have applied (a 5xx, a timeout, a lost
    /// or unreadable answer); its files are kept.
    #[error("{table}: the commit may or may not have been applied ({cause}): list the table's snapshots before writing again (its files are kept)")]
    CommitStateUnknown {
        /// The table committed to.
        table: String,
        /// Why the outcome is unknown.
        cause: String,
    },
    /// A catalog service (Paimon REST) could not be reached, refused a request or answered
    /// something that is not its protocol.
    #[error("{endpoint}{}: {message}", .status.map(|s| format!(" answered {s}")).unwrap_or_default())]
    Catalog {
        /// The endpoint asked (method and path).
        endpoint: String,
        /// The HTTP status, if an answer came.
        status: Option<u16>,
        /// What went wrong, with the service's own message where it sent one.
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

    /// The error of a missing table: no schema file in the folder `path`.
    pub fn table_not_found(path: &str) -> Self {
        Error::NotFound {
            what: format!("Paimon table {path}"),
            context: Some(format!(
                "no schema file under {}",
                lakescope_storage::join(path, "schema")
            )),
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

/// The shared format layer's errors keep their variant (and so their message) in the Paimon
/// layer: a corrupt data file is [`Error::Corrupt`] whichever crate decoded it.
impl From<lakescope_format::Error> for Error {
    fn from(e: lakescope_format::Error) -> Self {
        match e {
            lakescope_format::Error::Storage(e) => Error::Storage(e),
            lakescope_format::Error::Corrupt { file, reason } => Error::Corrupt { file, reason },
            lakescope_format::Error::Unsupported { file, feature } => {
                Error::Unsupported { file, feature }
            }
            lakescope_format::Error::Invalid(message) => Error::Invalid(message),
        }
    }
}
