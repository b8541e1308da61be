//! The listed values that answers carry as strings (a job's status, a dataset's format...), as
//! schemas with their `enum`, so that generated clients get them as types. A value is a plain string
//! in the store; the schema lists what the store writes.

use utoipa::openapi::schema::{ObjectBuilder, Schema, SchemaType, Type};
use utoipa::openapi::RefOr;

macro_rules! vocabularies {
    ($($(#[doc = $doc:literal])* $name:ident = [$($value:literal),+ $(,)?];)*) => {
        $(
            $(#[doc = $doc])*
            #[allow(dead_code)]
            pub struct $name;

            impl $name {
                /// Every value, in the schema's order.
                #[allow(dead_code)]
                pub const VALUES: &'static [&'static str] = &[$($value),+];
            }

            impl utoipa::PartialSchema for $name {
                fn schema() -> RefOr<Schema> {
                    ObjectBuilder::new()
                        .schema_type(SchemaType::new(Type::String))
                        .enum_values(Some($name::VALUES.iter().copied()))
                        .description(Some(concat!($($doc, "\n"),*).trim()))
                        .into()
                }
            }

            impl utoipa::ToSchema for $name {}
        )*
    };
}

vocabularies! {
    /// A job's state: `queued` (waiting, or waiting for its next attempt), `running`, `completed`,
    /// `failed` (after its last attempt).
    JobStatus = ["queued", "running", "completed", "failed"];
    /// What a job does.
    JobType = ["data_process", "dataset_build"];
    /// An asynchronous upload's outcome: `queued` when at least one document was queued,
    /// `rejected` when every one was refused.
    SubmissionStatus = ["queued", "rejected"];
    /// An execution's outcome.
    ExecutionStatus = ["completed", "failed"];
    /// Where a document came from: uploaded, or read from a storage connector.
    DocumentSource = ["upload", "connector"];
    /// A dataset's state: built by a job, `ready` to export, or `failed`.
    DatasetStatus = ["queued", "building", "ready", "failed"];
    /// A dataset export's format.
    ExportFormat = ["jsonl", "csv", "parquet", "markdown", "xml", "xlsx", "arrow"];
    /// A webhook delivery's state.
    DeliveryStatus = ["pending", "sending", "delivered", "failed"];
    /// An event a webhook can subscribe to.
    WebhookEvent = ["job.completed", "job.failed", "dataset.ready", "subject.erased"];
    /// The processing record's form.
    RecordFormat = ["json", "markdown"];
    /// The audit log's file format.
    AuditFormat = ["jsonl", "csv"];
    /// A member's role in a team: owners and admins invite and remove; only an owner removes an owner.
    Role = ["owner", "admin", "member"];
    /// The roles an invitation may grant (ownership is not handed out by mail).
    InviteRole = ["admin", "member"];
    /// A plan: what a tenant may do and the credits each billing period grants.
    Plan = ["trial", "starter", "pro", "enterprise"];
    /// A billing period's state.
    PeriodStatus = ["open", "closed"];
    /// A fine-tune job's state: `queued`, `uploading` (the training file being built and sent),
    /// `validating` (the provider checks it or waits for a slot), `running`, then `succeeded`,
    /// `failed` or `cancelled`.
    FineTuneStatus = ["queued", "uploading", "validating", "running", "succeeded", "failed", "cancelled"];
    /// The service's state: `ok` when every component is ok (or disabled), `degraded` otherwise.
    HealthStatus = ["ok", "degraded"];
    /// One dependency's state (`disabled`: Redis when `redis.url` is empty).
    ComponentStatus = ["ok", "error", "disabled"];
    /// The LLM's state: `disabled` (no `llm.url`), `ok` or `unreachable`.
    LlmState = ["disabled", "ok", "unreachable"];
    /// A storage connector's kind.
    ConnectorType = ["s3", "azure_blob", "gcs"];
    /// How a schedule's run started.
    RunTrigger = ["cron", "manual"];
    /// A schedule run's state.
    RunStatus = ["running", "succeeded", "failed"];
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where a list has a source of its own in the code, the schema's list is that one.
    #[test]
    fn the_lists_are_the_code_s() {
        use docsieve_actors::dataset_exporter::FORMAT_NAMES;
        use docsieve_actors::settings::Plan as Plans;
        use docsieve_actors::store::JobKind;
        let kinds: Vec<&str> = JobKind::ALL.iter().map(|kind| kind.as_str()).collect();
        assert_eq!(JobType::VALUES, kinds);
        let plans: Vec<&str> = Plans::ALL.iter().map(|plan| plan.as_str()).collect();
        assert_eq!(Plan::VALUES, plans);
        // `hf` is another name of `arrow`, accepted but not listed.
        assert_eq!(ExportFormat::VALUES, &FORMAT_NAMES[..7]);
        assert_eq!(WebhookEvent::VALUES, crate::api::webhooks::EVENTS);
        assert_eq!(FineTuneStatus::VALUES, docsieve_actors::store::ALL_STATES);
        assert_eq!(crate::api::jobs::JOB_TYPES, JobType::VALUES);
    }
}
