//! Storage errors: each names the object and says what went wrong.

/// Result alias for storage operations.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why a storage operation failed (`Clone`: readers sharing one request share its failure).
#[derive(Debug, Clone, thiserror::Error)]
pub enum Error {
    /// The object does not exist.
    #[error("object not found: {path}")]
    NotFound {
        /// The object's key.
        path: String,
    },
    /// The store refused access.
    #[error("access denied to {path}: {hint}")]
    PermissionDenied {
        /// The object's key.
        path: String,
        /// What to check (credentials, CORS, bucket policy).
        hint: String,
    },
    /// A range reached past the end of the object.
    #[error("{path}: asked for bytes {start}..{end} but the object has {size} bytes")]
    OutOfRange {
        /// The object's key.
        path: String,
        /// First byte asked for.
        start: u64,
        /// One past the last byte asked for.
        end: u64,
        /// The object's size in bytes.
        size: u64,
    },
    /// The store returned fewer bytes than asked for.
    #[error("{path}: expected {expected} bytes but received {received}")]
    ShortRead {
        /// The object's key.
        path: String,
        /// Bytes asked for.
        expected: u64,
        /// Bytes the store returned.
        received: u64,
    },
    /// This store cannot do the operation (e.g. writing to a static web host).
    #[error("{store} does not support {operation}")]
    Unsupported {
        /// The kind of store (e.g. `HTTP store`).
        store: String,
        /// What was asked of it (e.g. `put`).
        operation: String,
    },
    /// The listing index of a static host is malformed.
    #[error("invalid listing index {path}: {reason}")]
    BadIndex {
        /// The index file's key.
        path: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Any other IO failure.
    #[error("{operation} {path}: {message}")]
    Io {
        /// The operation that failed (`get`, `put`, `list`, …).
        operation: &'static str,
        /// The object's key.
        path: String,
        /// The underlying error's message.
        message: String,
    },
}

impl Error {
    /// Checks that `range` lies within an object of `size` bytes ([`Error::OutOfRange`] if not).
    pub fn check_range(path: &str, range: &std::ops::Range<u64>, size: u64) -> Result<(), Error> {
        if range.start > range.end || range.end > size {
            return Err(Error::OutOfRange {
                path: path.to_string(),
                start: range.start,
                end: range.end,
                size,
            });
        }
        Ok(())
    }

    /// Whether the error means the object does not exist.
    pub fn is_not_found(&self) -> bool {
        matches!(self, Error::NotFound { .. })
    }
}
