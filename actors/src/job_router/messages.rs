//! Requests of the job_router actor; both answer a [`JobRouterReply`].

/// New work may be queued: look for it now instead of at the next poll.
pub struct Wake;

/// Stop claiming, let running jobs finish for up to `grace`, then give back the leases of the rest.
pub struct Drain {
    pub grace: std::time::Duration,
}

/// The router's answer: how many jobs it holds right now.
#[derive(Clone, Copy, Debug, Default)]
pub struct JobRouterReply {
    pub running: usize,
}
