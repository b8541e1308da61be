//! The one vocabulary of codes a client reads, in two tables:
//!
//! - [`ErrorCode`]: every stable error code the HTTP API answers with, its statuses and what it
//!   means. Codes appear as `code` in `{"detail", "code"}` bodies, and as the `type` of a 422's detail
//!   where a document could not be read (`empty_document`, `masking_refused`, ...).
//! - [`RecordCode`]: every code that work records carry instead (a job's `last_error.code`, a sync
//!   run's `error.code` and its objects' `code`, a fine-tune job's `error.code`, an upload's rejected
//!   files, a connection test, an `auto_export` outcome), with the records it appears in. A record may
//!   also carry an error code of the first table (a job that could not read its document carries the
//!   extraction code a preview would have answered with).
//!
//! A code is a variant here or it does not exist: the actors return these variants, the OpenAPI
//! document's `ErrorCode` and `RecordCode` schemas and the two tables of docs/errors.md are made from
//! them (the page's are checked against them by a test).

use utoipa::openapi::schema::{ObjectBuilder, Schema, SchemaType, Type};
use utoipa::openapi::RefOr;

macro_rules! code_table {
    (
        $(#[$doc:meta])*
        $name:ident, $column:ident: $item:ty;
        $($variant:ident = $code:literal, [$($cell:literal),+], $meaning:literal;)*
    ) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name {
            $($variant,)*
        }

        impl $name {
            /// Every code, in the table's order.
            pub const ALL: &'static [$name] = &[$($name::$variant,)*];

            /// The code as clients see it.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $code,)*
                }
            }

            /// The table's second column: the statuses an error code comes with, the records a
            /// record code appears in.
            pub const fn $column(self) -> &'static [$item] {
                match self {
                    $($name::$variant => &[$($cell),+],)*
                }
            }

            /// What it means, in one line.
            pub const fn meaning(self) -> &'static str {
                match self {
                    $($name::$variant => $meaning,)*
                }
            }

            /// The code named `name`, if there is one.
            pub fn named(name: &str) -> Option<$name> {
                $name::ALL.iter().copied().find(|code| code.as_str() == name)
            }

            /// The table's rows: code, second column (joined), meaning.
            fn rows() -> Vec<(&'static str, String, &'static str)> {
                $name::ALL
                    .iter()
                    .map(|code| {
                        let cells: Vec<String> =
                            code.$column().iter().map(|cell| cell.to_string()).collect();
                        (code.as_str(), cells.join(", "), code.meaning())
                    })
                    .collect()
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl utoipa::ToSchema for $name {}
    };
}

code_table! {
    /// A stable error code (see the module documentation).
    ErrorCode, statuses: u16;
    InvalidToken = "invalid_token", [400, 401], "a token (access, e-mail verification, password reset, invitation) that is not valid";
    TokenExpired = "token_expired", [400, 401], "an expired token: refresh an access token, ask for a new e-mailed one";
    TokenUsed = "token_used", [400], "an e-mailed token that was already used";
    InvitationExpired = "invitation_expired", [400], "the invitation has expired";
    InvitationUsed = "invitation_used", [400], "the invitation was already accepted";
    ReprocessNotLocal = "reprocess_not_local", [400], "the document came from a storage connector and is not stored here";
    NotAuthenticated = "not_authenticated", [401], "no API key and no bearer token";
    InvalidApiKey = "invalid_api_key", [401], "the API key is unknown or revoked";
    InvalidCredentials = "invalid_credentials", [401], "wrong e-mail or password";
    InvalidRefreshToken = "invalid_refresh_token", [401], "the refresh token is unknown";
    RefreshTokenReused = "refresh_token_reused", [401], "a refresh token was used twice: every session of the user is revoked";
    RefreshTokenExpired = "refresh_token_expired", [401], "the refresh token has expired: log in again";
    NoBrowserSession = "no_browser_session", [401], "a browser-session call without the session cookie: sign in";
    InternalTokenMissing = "internal_token_missing", [401], "a /system route without its internal token";
    InsufficientCredits = "insufficient_credits", [402], "the open billing period has too few credits left (the body says how many: balance, required)";
    EmailNotVerified = "email_not_verified", [403], "the e-mail address is not confirmed yet";
    BrowserHeaderMissing = "browser_header_missing", [403], "a browser-session call without `X-Docsieve-Browser: 1` (the guard against cross-site requests)";
    InsufficientScope = "insufficient_scope", [403], "the API key's scope does not cover this route (read_only < processing < admin)";
    Forbidden = "forbidden", [403], "the caller's role does not allow this";
    AccountNotActive = "account_not_active", [403], "the account is suspended or closed";
    InvitationEmailMismatch = "invitation_email_mismatch", [403], "the invitation is for another e-mail address";
    InternalTokenInvalid = "internal_token_invalid", [403], "the internal token is wrong";
    InternalTokenNotConfigured = "internal_token_not_configured", [403], "the /system routes are off: no internal token is configured";
    PlanRequired = "plan_required", [403], "the plan in force does not include this (fine-tuning needs pro or enterprise, schedules starter or above)";
    RouteNotFound = "route_not_found", [404], "no such route";
    UserNotFound = "user_not_found", [404], "no such user";
    TenantNotFound = "tenant_not_found", [404], "no such tenant";
    MemberNotFound = "member_not_found", [404], "no such member of the team";
    ApiKeyNotFound = "api_key_not_found", [404], "no such API key";
    ActorNotFound = "actor_not_found", [404], "no actor of that name";
    DocumentNotFound = "document_not_found", [404], "no such document in this tenant";
    ExecutionNotFound = "execution_not_found", [404], "no such execution in this tenant";
    JobNotFound = "job_not_found", [404], "no such job in this tenant";
    DatasetNotFound = "dataset_not_found", [404], "no such dataset in this tenant";
    WebhookNotFound = "webhook_not_found", [404], "no such webhook in this tenant";
    DeliveryNotFound = "delivery_not_found", [404], "no such delivery of the webhook";
    ConnectorNotFound = "connector_not_found", [404], "no such connector in this tenant";
    FineTuneJobNotFound = "fine_tune_job_not_found", [404], "no such fine-tune job in this tenant";
    ScheduleNotFound = "schedule_not_found", [404], "no such schedule on this connector";
    BlobNotFound = "blob_not_found", [404], "a stored file is missing";
    ReceiptNotFound = "receipt_not_found", [404], "no closure receipt with this id and token";
    MethodNotAllowed = "method_not_allowed", [405], "the route does not take this method (see Allow)";
    EmailTaken = "email_taken", [409], "an account with this e-mail address exists";
    LastOwner = "last_owner", [409], "the team's last owner cannot be removed";
    DatasetNotReady = "dataset_not_ready", [409], "the dataset is still building or failed";
    ExportFailed = "export_failed", [409], "the dataset could not be written in that format";
    PeriodAlreadyOpen = "period_already_open", [409], "the tenant has an open billing period: close it first";
    NoOpenPeriod = "no_open_period", [409], "the tenant has no open billing period";
    ExecutionNotMasked = "execution_not_masked", [409], "the execution's result is not masked and its original is gone: only masked text may go to the LLM";
    ExecutionNotCompleted = "execution_not_completed", [409], "the execution did not complete: it has no personal-data summary to audit";
    ConcurrentChange = "concurrent_change", [409], "something the request refers to was deleted while it ran: read it again";
    ReidentificationDisabled = "reidentification_disabled", [409], "the tenant's re-identification is off: there is no vault to resolve pseudonyms from";
    NoClosurePending = "no_closure_pending", [409], "the tenant's closure was not requested, or it is done: nothing to restore";
    ScheduleLimitReached = "schedule_limit_reached", [409], "the connector has as many schedules as the plan allows (the body says the limit)";
    OriginalExpired = "original_expired", [410], "the document's original was destroyed when its retention ended: upload it again";
    PayloadTooLarge = "payload_too_large", [413], "the request body is over server.max_request_bytes";
    LimitExceeded = "limit_exceeded", [413], "the document is past an extraction.limits bound";
    ResultTooLarge = "result_too_large", [413], "a preview's answer is past extraction.preview_max_bytes: use the async path";
    UnsupportedMediaType = "unsupported_media_type", [415], "the request's content type is not one this route takes";
    UnsupportedFormat = "unsupported_format", [415], "the file is not a format docsieve reads";
    RedactionUnsupported = "redaction_unsupported", [415], "the file cannot be given back in its own format, masked: a format without a writer, or a part that cannot be read (an encrypted part, an embedded object); the message says which";
    LegacyFormat = "legacy_format", [415], "a format older than docsieve reads (Word 6.0/95; the message names it): save it as .docx";
    ValidationError = "validation_error", [422], "the request is invalid (the body lists every problem)";
    EmptyDocument = "empty_document", [422], "the file is empty";
    EncryptedDocument = "encrypted_document", [422], "the document is password-protected or encrypted";
    MalformedDocument = "malformed_document", [422], "the document is damaged or not what it claims to be";
    NoText = "no_text", [422], "the document has no extractable text";
    FormatNotAvailable = "format_not_available", [422], "this build cannot read that format";
    ExtractorFailed = "extractor_failed", [422], "the reader failed on this document";
    ExtractionCrashed = "extraction_crashed", [422], "the document killed its extraction worker process";
    MaskingRefused = "masking_refused", [422], "masking would leave personal data in the output: refused";
    ScheduleTooFrequent = "schedule_too_frequent", [422], "the cron fires more often than the plan's minimum interval (the body says both)";
    QueueFull = "queue_full", [429], "too many of the tenant's jobs wait (see Retry-After)";
    TooManyFailedLogins = "too_many_failed_logins", [429], "too many failed logins from this address (see Retry-After)";
    ResendTooSoon = "resend_too_soon", [429], "a mail went to this address recently (see Retry-After)";
    InternalError = "internal_error", [500], "an internal error: quote the id in the message";
    PseudonymKeyUnavailable = "pseudonym_key_unavailable", [500], "the tenant's pseudonym key (or its stored policy) cannot be opened by this server, whose secret changed: keyed masking is refused, never done with another key";
    LlmBadResponse = "llm_bad_response", [502], "the LLM answered, but not with JSON of the asked shape; nothing was changed";
    DatabaseBusy = "database_busy", [503], "the database's write lock stayed taken past the busy timeout (see Retry-After)";
    Overloaded = "overloaded", [503], "an actor's mailbox is full (see Retry-After)";
    Timeout = "timeout", [503], "an actor did not answer in time (see Retry-After)";
    ActorUnavailable = "actor_unavailable", [503], "an actor is restarting (see Retry-After)";
    ExportMissing = "export_missing", [503], "an export file is being written again (see Retry-After)";
    LlmUnavailable = "llm_unavailable", [503], "no LLM is configured (llm.url), or it is unreachable, timing out or failing; nothing was changed";
    FineTuneUnavailable = "fine_tune_unavailable", [503], "fine-tuning is off: no fine_tune.provider_url is configured";
}

/// A table of docs/errors.md: `| code | {second} | meaning |` rows.
fn markdown(second: &str, rows: Vec<(&'static str, String, &'static str)>) -> String {
    let mut table = format!("| code | {second} | meaning |\n|---|---|---|\n");
    for (code, cells, meaning) in rows {
        table.push_str(&format!("| `{code}` | {cells} | {meaning} |\n"));
    }
    table
}

/// A code's schema: a string, not a closed enum (codes are added in later versions, and a client
/// generated from an enum would fail to read an answer carrying one it does not know), described
/// by `intro` and the list of today's codes.
fn open_set(
    intro: &str,
    rows: Vec<(&'static str, String, &'static str)>,
    example: &'static str,
) -> RefOr<Schema> {
    let lines: Vec<String> = rows
        .into_iter()
        .map(|(code, cells, meaning)| format!("- `{code}` ({cells}): {meaning}"))
        .collect();
    ObjectBuilder::new()
        .schema_type(SchemaType::new(Type::String))
        .description(Some(format!("{intro}\n{}", lines.join("\n"))))
        .examples([example])
        .into()
}

/// docs/errors.md's error table, as the test compares it.
pub fn markdown_table() -> String {
    markdown("status", ErrorCode::rows())
}

impl utoipa::PartialSchema for ErrorCode {
    fn schema() -> RefOr<Schema> {
        open_set(
            "A stable error code. A code never changes its meaning, but new codes are added in \
             later versions: treat a code you do not know by the answer's HTTP status. The codes \
             today, with the statuses they come with:",
            ErrorCode::rows(),
            ErrorCode::NotAuthenticated.as_str(),
        )
    }
}

code_table! {
    /// A code of a work record (see the module documentation).
    RecordCode, records: &'static str;
    ExhaustedRetries = "exhausted_retries", ["job"], "the job failed on every attempt it was allowed (jobs.max_attempts); the message holds the last attempt's error";
    LeaseExpired = "lease_expired", ["job"], "the process running the job died or hung (its lease expired): the job was queued again";
    ProcessDied = "process_died", ["job"], "the process died while running the job in a batch with others: the job was queued again, to run as before";
    ExtractionTimedOut = "extraction_timed_out", ["job"], "the extraction worker was killed at the document's time limit: the job is tried once more alone, then fails with limit_exceeded";
    DatabaseError = "database_error", ["job"], "the database failed while the job ran: it is tried again";
    StorageError = "storage_error", ["job", "sync object", "fine-tune job", "auto_export"], "the stored files or the database could not be read or written: tried again where the record allows";
    DocumentMissing = "document_missing", ["job"], "the job's document (or its stored original) was deleted before it ran";
    DatasetMissing = "dataset_missing", ["job"], "the dataset being built was deleted before its build ran";
    BuildFailed = "build_failed", ["job"], "the dataset could not be built (the message says why)";
    ExporterUnavailable = "exporter_unavailable", ["job"], "the dataset exporter did not answer: the build is tried again";
    ExtractorUnavailable = "extractor_unavailable", ["job"], "the extractor pool did not answer: the job is tried again";
    MaskerUnavailable = "masker_unavailable", ["job"], "the PII masker did not answer: the job is tried again";
    MaskingFailed = "masking_failed", ["job"], "the masking engine failed on the document";
    UnsupportedJobType = "unsupported_job_type", ["job"], "a job of a kind this version does not run";
    FileTooLarge = "file_too_large", ["upload", "sync object"], "the file is larger than jobs.max_file_bytes";
    TooManyFiles = "too_many_files", ["upload"], "more files (or keys) in one request than jobs.max_files_per_request";
    DuplicateKey = "duplicate_key", ["upload"], "an object key listed twice in one request from a connector";
    BadCredentials = "bad_credentials", ["connection test", "sync run", "auto_export"], "the provider refused the connector's credentials, or they cannot be opened: create the connector again";
    BucketNotFound = "bucket_not_found", ["connection test", "sync run", "auto_export"], "the bucket or container does not exist";
    PermissionDenied = "permission_denied", ["connection test", "sync run", "sync object", "auto_export"], "the credentials do not allow the operation";
    ObjectNotFound = "object_not_found", ["sync object"], "the object went away between the listing and its read";
    Unreachable = "unreachable", ["connection test", "sync run", "auto_export"], "the provider could not be reached";
    ProviderTimeout = "timeout", ["connection test", "sync run", "auto_export"], "the provider did not answer within connectors.request_timeout_ms";
    ProviderError = "provider_error", ["connection test", "sync run", "auto_export"], "the provider failed in another way (the message quotes it)";
    TargetRefused = "target_refused", ["connection test", "sync run", "auto_export"], "the egress guard refused where the connector would send its requests (a field against its provider's rules, a private address, a redirect)";
    ProviderRejected = "provider_rejected", ["fine-tune job"], "the fine-tune provider refused a request (4xx; the message quotes it)";
    ProviderUnavailable = "provider_unavailable", ["fine-tune job"], "the fine-tune provider could not be reached in fine_tune.max_attempts tries";
    ProviderJobFailed = "provider_job_failed", ["fine-tune job"], "the provider's training job failed (the message is the provider's)";
    DatasetUnavailable = "dataset_unavailable", ["fine-tune job"], "the dataset or its rows file is gone, or not ready";
    TrainingFileFailed = "training_file_failed", ["fine-tune job"], "the training file could not be written (a bad row or template, or the disk)";
    DatasetNotMasked = "dataset_not_masked", ["fine-tune job"], "a row of the dataset comes from an unmasked execution: nothing is sent";
    TrainingDataRefused = "training_data_refused", ["fine-tune job"], "the training file's re-scan found personal data: nothing is sent";
    EmptyTrainingFile = "empty_training_file", ["fine-tune job"], "no row of the dataset gives a training example";
}

/// docs/errors.md's table of record codes, as the test compares it.
pub fn record_table() -> String {
    markdown("records", RecordCode::rows())
}

impl utoipa::PartialSchema for RecordCode {
    fn schema() -> RefOr<Schema> {
        open_set(
            "A stable code of a work record (a job's `last_error`, a sync run and its objects, a \
             fine-tune job, an upload's rejected files, a connection test, an `auto_export` \
             outcome). A record may also carry an `ErrorCode` (a job that could not read its \
             document carries the extraction code). Like error codes, an open set: later versions \
             add codes. The codes today, with the records they appear in:",
            RecordCode::rows(),
            RecordCode::ExhaustedRetries.as_str(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every code of a table once, in snake_case, with its second column and its meaning.
    fn unique_snake_case(rows: Vec<(&'static str, String, &'static str)>) {
        let mut seen = std::collections::HashSet::new();
        for (name, cells, meaning) in rows {
            assert!(seen.insert(name), "{name} twice");
            assert!(
                name.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'),
                "{name} is not snake_case"
            );
            assert!(!cells.is_empty() && !meaning.is_empty(), "{name}");
        }
    }

    #[test]
    fn codes_are_unique_snake_case_with_error_statuses() {
        unique_snake_case(ErrorCode::rows());
        for code in ErrorCode::ALL {
            assert!(code.statuses().iter().all(|s| (400..600).contains(s)));
        }
    }

    #[test]
    fn record_codes_are_unique_snake_case_and_say_where_they_appear() {
        unique_snake_case(RecordCode::rows());
    }

    #[test]
    fn the_documented_table_is_the_enum() {
        let page =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/errors.md"))
                .expect("docs/errors.md");
        for (name, table) in [("codes", markdown_table()), ("records", record_table())] {
            let begin = format!("<!-- {name}:begin -->\n");
            let end = format!("<!-- {name}:end -->");
            let between = page
                .split_once(&begin)
                .and_then(|(_, rest)| rest.split_once(&end))
                .map(|(between, _)| between);
            assert_eq!(
                between,
                Some(table.as_str()),
                "docs/errors.md's {name} table differs from actors/src/error_code.rs; between \
                 {begin:?} and {end:?} it should read:\n{table}"
            );
        }
    }
}
