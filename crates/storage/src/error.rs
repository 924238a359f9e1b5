//! Storage errors: each names the object and says what went wrong.

/// Result alias for storage operations.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why a storage operation failed (`Clone`: readers sharing one request share its failure).
#[derive(Debug, Clone, thiserror::Error)]
pub enum Error {
    /// The object does not exist.
    #[error("object not found: {path}")]
    NotFound { path: String },
    /// The store refused access.
    #[error("access denied to {path}: {hint}")]
    PermissionDenied { path: String, hint: String },
    /// A range reached past the end of the object.
    #[error("{path}: asked for bytes {start}..{end} but the object has {size} bytes")]
    OutOfRange {
        path: String,
        start: u64,
        end: u64,
        size: u64,
    },
    /// The store returned fewer bytes than asked for.
    #[error("{path}: expected {expected} bytes but received {received}")]
    ShortRead {
        path: String,
        expected: u64,
        received: u64,
    },
    /// This store cannot do the operation (e.g. writing to a static web host).
    #[error("{store} does not support {operation}")]
    Unsupported { store: String, operation: String },
    /// The listing index of a static host is malformed.
    #[error("invalid listing index {path}: {reason}")]
    BadIndex { path: String, reason: String },
    /// Any other IO failure.
    #[error("{operation} {path}: {message}")]
    Io {
        operation: &'static str,
        path: String,
        message: String,
    },
}

impl Error {
    /// Whether the error means the object does not exist.
    pub fn is_not_found(&self) -> bool {
        matches!(self, Error::NotFound { .. })
    }
}
