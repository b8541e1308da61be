//! Commands of the job_router actor.

/// What the job_router accepts.
pub enum JobRouterCommand {
    /// New work may be queued: look for it now instead of at the next poll.
    Wake,
    /// Stop claiming, let running jobs finish for up to `grace`, then give back the leases of the rest.
    Drain { grace: std::time::Duration },
}

/// The router's answer: how many jobs it holds right now.
#[derive(Clone, Copy, Debug, Default)]
pub struct JobRouterReply {
    pub running: usize,
}
