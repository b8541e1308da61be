//! Queuing work from a request: the one place that inserts jobs (through [`Store::enqueue`], which
//! checks the tenant's queue limit in the same transaction), counts them and wakes the routers.
//!
//! [`Store::enqueue`]: docsieve_actors::store::Store::enqueue

use docsieve_actors::store::{EnqueueError, NewJob, Queued, RequestedBy};

use crate::auth::Authenticated;
use crate::error::{ApiError, ErrorCode};
use crate::state::AppState;

/// Whether the tenant's queue limit (`jobs.max_queued_per_tenant`) applies to these jobs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// Uploads and reprocessing: refused with 429 `queue_full` past the limit.
    Applies,
    /// Work the tenant cannot pile up (one build per dataset created).
    Exempt,
}

/// Who is queuing, as the job's payload records it.
pub fn requested_by(auth: &Authenticated) -> RequestedBy {
    let (actor_type, id) = auth.actor();
    RequestedBy::new(actor_type, id)
}

/// Queues `jobs` for the tenant, all or none, then counts them and wakes every process's job router.
pub async fn enqueue(
    state: &AppState,
    tenant_id: i64,
    jobs: Vec<NewJob>,
    limit: Limit,
) -> Result<Vec<Queued>, ApiError> {
    let limit = match limit {
        Limit::Applies => Some(state.settings.jobs.max_queued_per_tenant),
        Limit::Exempt => None,
    };
    state
        .store
        .queue_jobs(&state.cache, tenant_id, jobs, limit, state.clock.now())
        .await
        .map_err(enqueue_error)
}

/// The answer to work that could not be queued.
pub fn enqueue_error(error: EnqueueError) -> ApiError {
    match error {
        EnqueueError::QueueFull { queued, limit } => ApiError::too_many_requests(
            ErrorCode::QueueFull,
            format!(
                "this account has {queued} queued jobs; at most {limit} may wait at once. Retry when some have finished."
            ),
            30,
        ),
        EnqueueError::InsufficientCredits(short) => super::billing::insufficient_credits(&short),
        EnqueueError::Store(error) => error.into(),
    }
}

/// Wakes every process's `channel` subscribers; a failure only delays the work until their next poll.
pub async fn wake(state: &AppState, channel: &str) {
    if let Err(error) = state.cache.wake(channel).await {
        tracing::warn!(%error, channel, "cannot send a wake-up; the next poll finds the work");
    }
}
