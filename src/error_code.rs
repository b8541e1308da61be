//! Every stable error code the HTTP API answers with: its statuses and what it means. A code is a
//! variant here or it does not exist; the OpenAPI document (`ErrorCode` schema) and the error table of
//! docs/errors.md are made from this table (the page's is checked against it by a test).
//!
//! Codes appear as `code` in `{"detail", "code"}` bodies, and as the `type` of a 422's detail where a
//! document could not be read (`empty_document`, `masking_refused`, ...).

use docsieve_actors::extractor_pool::ExtractError;
use utoipa::openapi::schema::{ObjectBuilder, Schema, SchemaType, Type};
use utoipa::openapi::RefOr;

macro_rules! error_codes {
    ($($variant:ident = $code:literal, [$($status:literal),+], $meaning:literal;)*) => {
        /// A stable error code (see the module documentation).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum ErrorCode {
            $($variant,)*
        }

        impl ErrorCode {
            /// Every code, in the table's order.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant,)*];

            /// The code as clients see it.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $code,)*
                }
            }

            /// The statuses it comes with.
            pub const fn statuses(self) -> &'static [u16] {
                match self {
                    $(ErrorCode::$variant => &[$($status),+],)*
                }
            }

            /// What it means, in one line.
            pub const fn meaning(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $meaning,)*
                }
            }
        }
    };
}

error_codes! {
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
    InternalTokenMissing = "internal_token_missing", [401], "a /system route without its internal token";
    InsufficientCredits = "insufficient_credits", [402], "the open billing period has too few credits left (the body says how many: balance, required)";
    EmailNotVerified = "email_not_verified", [403], "the e-mail address is not confirmed yet";
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
    ScheduleLimitReached = "schedule_limit_reached", [409], "the connector has as many schedules as the plan allows (the body says the limit)";
    PayloadTooLarge = "payload_too_large", [413], "the request body is over server.max_request_bytes";
    LimitExceeded = "limit_exceeded", [413], "the document is past an extraction.limits bound";
    ResultTooLarge = "result_too_large", [413], "a preview's answer is past extraction.preview_max_bytes: use the async path";
    UnsupportedMediaType = "unsupported_media_type", [415], "the request's content type is not one this route takes";
    UnsupportedFormat = "unsupported_format", [415], "the file is not a format docsieve reads";
    LegacyFormat = "legacy_format", [415], "an Office 97-2003 Word or PowerPoint file (the message names it): save it as .docx or .pptx";
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
    LlmBadResponse = "llm_bad_response", [502], "the LLM answered, but not with JSON of the asked shape; nothing was changed";
    DatabaseBusy = "database_busy", [503], "the database's write lock stayed taken past the busy timeout (see Retry-After)";
    Overloaded = "overloaded", [503], "an actor's mailbox is full (see Retry-After)";
    Timeout = "timeout", [503], "an actor did not answer in time (see Retry-After)";
    ActorUnavailable = "actor_unavailable", [503], "an actor is restarting (see Retry-After)";
    ExportMissing = "export_missing", [503], "an export file is being written again (see Retry-After)";
    LlmUnavailable = "llm_unavailable", [503], "no LLM is configured (llm.url), or it is unreachable, timing out or failing; nothing was changed";
    FineTuneUnavailable = "fine_tune_unavailable", [503], "fine-tuning is off: no fine_tune.provider_url is configured";
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for ErrorCode {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl ErrorCode {
    /// The code named `name`, if there is one.
    pub fn named(name: &str) -> Option<ErrorCode> {
        ErrorCode::ALL
            .iter()
            .copied()
            .find(|code| code.as_str() == name)
    }
}

/// The engine names each extraction error's code; this is that code in the table (a test checks that
/// every one is there).
impl From<&ExtractError> for ErrorCode {
    fn from(error: &ExtractError) -> ErrorCode {
        ErrorCode::named(error.code()).unwrap_or(ErrorCode::ExtractorFailed)
    }
}

/// The README's error table, as the test compares it: `| code | status | meaning |` rows.
pub fn markdown_table() -> String {
    let mut table = String::from("| code | status | meaning |\n|---|---|---|\n");
    for code in ErrorCode::ALL {
        let statuses: Vec<String> = code.statuses().iter().map(u16::to_string).collect();
        table.push_str(&format!(
            "| `{}` | {} | {} |\n",
            code.as_str(),
            statuses.join(", "),
            code.meaning()
        ));
    }
    table
}

impl utoipa::PartialSchema for ErrorCode {
    fn schema() -> RefOr<Schema> {
        let lines: Vec<String> = ErrorCode::ALL
            .iter()
            .map(|code| {
                let statuses: Vec<String> = code.statuses().iter().map(u16::to_string).collect();
                format!(
                    "- `{}` ({}): {}",
                    code.as_str(),
                    statuses.join(", "),
                    code.meaning()
                )
            })
            .collect();
        // A string, not a closed enum: codes are added in later versions, and a client generated
        // from an enum would fail to read an answer carrying one it does not know.
        ObjectBuilder::new()
            .schema_type(SchemaType::new(Type::String))
            .description(Some(format!(
                "A stable error code. A code never changes its meaning, but new codes are added in \
                 later versions: treat a code you do not know by the answer's HTTP status. The codes \
                 today, with the statuses they come with:\n{}",
                lines.join("\n")
            )))
            .examples([ErrorCode::NotAuthenticated.as_str()])
            .into()
    }
}

impl utoipa::ToSchema for ErrorCode {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_snake_case_with_error_statuses() {
        let mut seen = std::collections::HashSet::new();
        for code in ErrorCode::ALL {
            let name = code.as_str();
            assert!(seen.insert(name), "{name} twice");
            assert!(
                name.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'),
                "{name} is not snake_case"
            );
            assert!(code.statuses().iter().all(|s| (400..600).contains(s)));
            assert!(!code.meaning().is_empty());
        }
    }

    #[test]
    fn the_documented_table_is_the_enum() {
        let page = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/errors.md"))
            .expect("docs/errors.md");
        let table = markdown_table();
        assert!(
            page.contains(&table),
            "docs/errors.md's error table differs from src/error_code.rs; it should read:\n{table}"
        );
    }

    #[test]
    fn every_extraction_error_has_the_code_the_engine_names() {
        let errors = [
            ExtractError::Empty,
            ExtractError::UnsupportedFormat(String::new()),
            ExtractError::EncryptedDocument,
            ExtractError::Malformed(String::new()),
            ExtractError::NoText,
            ExtractError::FormatNotAvailable(String::new()),
            ExtractError::LegacyFormat(String::new()),
            ExtractError::LimitExceeded(String::new()),
            ExtractError::TimedOut(String::new()),
            ExtractError::EngineFailure(String::new()),
            ExtractError::Crashed(String::new()),
            ExtractError::ResultTooLarge(String::new()),
        ];
        for error in &errors {
            assert!(
                ErrorCode::named(error.code()).is_some(),
                "{} is not in the table",
                error.code()
            );
        }
    }
}
