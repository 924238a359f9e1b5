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
    /// What was being done when `source` failed (a table opened or read for a viewer).
    #[error("{context}: {source}")]
    Context {
        /// What was being done, naming the table.
        context: String,
        /// Why it failed.
        source: Box<Error>,
    },
    /// A failure several callers awaited together (one table open or read shared by the views
    /// that asked for it meanwhile): each of them gets it.
    #[error(transparent)]
    Shared(std::sync::Arc<Error>),
}

impl Error {
    /// Whether the table, database or file asked for does not exist (a catalog's `404` among
    /// them), rather than failing to be read.
    pub fn is_not_found(&self) -> bool {
        match self {
            Self::Context { source, .. } => source.is_not_found(),
            Self::Shared(cause) => cause.is_not_found(),
            other => matches!(
                other,
                Self::Paimon(lakescope_paimon::Error::NotFound { .. })
                    | Self::Iceberg(lakescope_iceberg::Error::NotFound { .. })
            ),
        }
    }

    /// The HTTP status of a catalog service's failed request, through any context or sharing
    /// (`None`: not a catalog request's failure; `Some(None)`: no answer came).
    pub fn catalog_status(&self) -> Option<Option<u16>> {
        match self {
            Self::Paimon(lakescope_paimon::Error::Catalog { status, .. })
            | Self::Iceberg(lakescope_iceberg::Error::Catalog { status, .. }) => Some(*status),
            Self::Context { source, .. } => source.catalog_status(),
            Self::Shared(cause) => cause.catalog_status(),
            _ => None,
        }
    }

    /// `context: self`, naming what was being done.
    pub fn context(self, context: impl Into<String>) -> Self {
        Self::Context {
            context: context.into(),
            source: Box::new(self),
        }
    }
}
