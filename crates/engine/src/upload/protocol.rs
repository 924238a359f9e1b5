//! The messages between the page and the SQL worker for an upload (JSON; the file itself is
//! posted beside the request as a browser `File`).

use super::{FileKind, Progress};
use lakescope_storage::uri::StoreOptions;
use serde::{Deserialize, Serialize};

/// Insert the posted file into a table of the warehouse.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct UploadRequest {
    /// The request.
    pub id: u64,
    /// The warehouse URI and how to open it.
    pub uri: String,
    /// Connection options of the warehouse.
    pub options: Box<StoreOptions>,
    /// The table's database.
    pub database: String,
    /// The table's name.
    pub table: String,
    /// The file's name.
    pub file: String,
    /// Its format.
    pub kind: FileKind,
    /// Rows per chunk.
    pub chunk_rows: usize,
}

/// What the worker reports about an upload.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum UploadEvent {
    /// Bytes read and rows written so far.
    UploadProgress {
        /// The request.
        id: u64,
        /// Where it is.
        progress: Progress,
    },
    /// Committed.
    UploadDone {
        /// The request.
        id: u64,
        /// The new snapshot.
        snapshot: i64,
        /// Rows written.
        rows: u64,
        /// Milliseconds from the first read to the commit.
        millis: f64,
    },
    /// Nothing was committed.
    UploadFailed {
        /// The request.
        id: u64,
        /// Why, naming the file (and column).
        message: String,
    },
}

impl UploadEvent {
    /// The request it answers.
    pub fn id(&self) -> u64 {
        match self {
            Self::UploadProgress { id, .. }
            | Self::UploadDone { id, .. }
            | Self::UploadFailed { id, .. } => *id,
        }
    }
}
