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
    Corrupt {
        /// The path of the malformed file (as written in metadata or relative to the table).
        file: String,
        /// What is wrong with it, e.g. the JSON or Avro decoding error.
        reason: String,
    },
    /// Decoding a data file failed (the shared Parquet/ORC/Avro readers).
    #[error(transparent)]
    Data(#[from] lakescope_format::Error),
    /// The table, snapshot, ref or schema asked for does not exist.
    #[error("{what} not found{}", .context.as_deref().map(|c| format!(" ({c})")).unwrap_or_default())]
    NotFound {
        /// What was looked up, e.g. `snapshot 42`, `branch 'audit'` or a table name.
        what: String,
        /// Where it was looked up (the table's metadata file) or the REST catalog's `404` answer,
        /// when that helps; `None` otherwise.
        context: Option<String>,
    },
    /// The table uses a feature this reader does not support yet.
    #[error("{file}: unsupported: {feature}")]
    Unsupported {
        /// The file (or table) that uses the feature.
        file: String,
        /// The feature, named as the spec names it, e.g. `format-version 4`.
        feature: String,
    },
    /// A commit lost to a concurrent writer (after retrying), or what it creates already exists.
    #[error("{table}: {reason}")]
    Conflict {
        /// The table the commit or create was for (for a REST catalog's `409 Conflict`: the
        /// request, e.g. `POST http://host/v1/namespaces/db/tables/t`).
        table: String,
        /// What conflicted: the requirement that failed or the thing that already exists.
        reason: String,
    },
    /// The caller asked for something invalid.
    #[error("{0}")]
    Invalid(String),
    /// A commit a catalog service may or may not have applied (a 5xx, a timeout, a lost or
    /// garbled answer: the REST spec's `CommitStateUnknownException`); its files are kept.
    #[error("{table}: the commit may or may not have been applied ({cause}): load the table before writing again")]
    CommitStateUnknown {
        /// The table the commit was for (`db.t` in a REST catalog, the table's folder in the
        /// Hadoop layout).
        table: String,
        /// What went wrong: the REST request and the HTTP status or transport error it met, why
        /// an accepted commit's answer could not be read, or the failed put of the new
        /// `vN.metadata.json`.
        cause: String,
    },
    /// A catalog service (REST) could not be reached or refused a request.
    #[error("{endpoint}{}: {message}", .status.map(|s| format!(" answered {s}")).unwrap_or_default())]
    Catalog {
        /// The catalog request, method and URL (e.g. `GET http://host/v1/namespaces`), or the
        /// OAuth2 token endpoint when fetching a token failed.
        endpoint: String,
        /// The HTTP status the service answered, or `None` when no answer came (connection,
        /// DNS or TLS failure).
        status: Option<u16>,
        /// The service's error message (the REST `ErrorModel`'s `message`) or the transport error.
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
