//! The request of the extractor_pool actor.

use tokio::sync::oneshot;

use super::error::ExtractError;
use super::limits::Limits;
use super::shares::Claim;
use crate::model::Document;

/// Whom a read is for, and in which lane it waits ([`super::shares`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lane {
    /// A synchronous read of `tenant`'s (a preview, an audit): a caller waits on the answer.
    Preview { tenant: i64 },
    /// An async job of `tenant`'s. `alone`: in a worker process started for this document and ended
    /// after it (a job retried after its worker died or overran its time), never one that read others.
    Job { tenant: i64, alone: bool },
}

impl Lane {
    pub fn claim(self) -> Claim {
        match self {
            Lane::Preview { tenant } => Claim {
                tenant,
                preview: true,
            },
            Lane::Job { tenant, .. } => Claim {
                tenant,
                preview: false,
            },
        }
    }

    pub fn alone(self) -> bool {
        matches!(self, Lane::Job { alone: true, .. })
    }
}

/// Extract the document model from `bytes`, within `limits` (time included), in `lane`.
pub struct Extract {
    pub bytes: bytes::Bytes,
    pub limits: Limits,
    pub lane: Lane,
    /// Closes when the caller stops waiting (its call timed out, its client went away): the read is
    /// then given up, its worker process killed and its slot freed. None: read to the end.
    pub caller: Option<oneshot::Receiver<()>>,
}

/// What [`Extract`] answers.
pub type Extracted = Result<Document, ExtractError>;

/// Resolves once the caller of an [`Extract`] has gone; never when there is none to watch.
pub async fn caller_gone(caller: &mut Option<oneshot::Receiver<()>>) {
    match caller {
        Some(receiver) => {
            let _ = receiver.await;
        }
        None => std::future::pending().await,
    }
}
