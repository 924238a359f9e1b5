//! Errors of the engine façade.

/// Result alias for engine operations.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why an engine operation failed; the message names the table or file and the cause.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading the table format failed.
    #[error(transparent)]
    Paimon(#[from] lakescope_paimon::Error),
    /// Reading an Iceberg table failed.
    #[error(transparent)]
    Iceberg(#[from] lakescope_iceberg::Error),
    /// Storage failed.
    #[error(transparent)]
    Storage(#[from] lakescope_storage::Error),
    /// Arrow failed to build or convert a batch.
    #[error("{context}: {source}")]
    Arrow {
        /// What was being built or converted.
        context: String,
        /// Arrow's error.
        source: arrow_schema::ArrowError,
    },
    /// The request is invalid (unknown column, unknown system table, ...).
    #[error("{0}")]
    Invalid(String),
}

impl Error {
    /// Whether the table, database or file asked for does not exist (a catalog's `404` among
    /// them), rather than failing to be read.
    pub fn is_not_found(&self) -> bool {
        matches!(
            self,
            Self::Paimon(lakescope_paimon::Error::NotFound { .. })
                | Self::Iceberg(lakescope_iceberg::Error::NotFound { .. })
        )
    }
}
