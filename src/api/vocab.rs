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
    WebhookEvent = ["job.completed", "job.failed", "dataset.ready"];
    /// The processing record's form.
    RecordFormat = ["json", "markdown"];
    /// The audit log's file format.
    AuditFormat = ["jsonl", "csv"];
    /// A storage connector's kind.
    ConnectorType = ["s3", "azure_blob", "gcs"];
    /// How a schedule's run started.
    RunTrigger = ["cron", "manual"];
    /// A schedule run's state.
    RunStatus = ["running", "succeeded", "failed"];
}
