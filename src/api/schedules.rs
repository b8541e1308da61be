//! /v1/connectors/{connector_id}/schedules: cron syncs of a connector, within the plan's limits
//! (trial: none; a minimum interval between firings; a maximum per connector), a manual trigger, and
//! the record of past syncs. The scheduler actor runs them; see `docsieve_actors::scheduler`.

use actix_web::{delete, get, post, web, HttpResponse};
use docsieve_actors::connector::{run_sync, Trigger};
use docsieve_actors::cron::Schedule;
use docsieve_actors::store::{NewSchedule, ScheduleError, ScheduleRecord, SyncRunRecord};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::accounts;
use crate::api::common::{page_request, rfc3339};
use crate::api::connectors::{found, problem};
use crate::api::{vocab, Envelope, Page};
use crate::auth::Authenticated;
use crate::error::{ApiError, ErrorCode, ErrorKind, ValidationDetail};
use crate::state::AppState;
use crate::validation::{path_id, Pagination, Query};

/// A connector's schedule: a cron expression (UTC) on which its bucket is synced.
#[derive(Serialize, ToSchema)]
pub struct ScheduleView {
    pub id: i64,
    pub connector_id: i64,
    pub name: Option<String>,
    /// Five fields: minute hour day-of-month month day-of-week, UTC.
    pub cron: String,
    /// Overrides the connector's prefix for this schedule's syncs.
    pub prefix: Option<String>,
    pub enabled: bool,
    pub next_run_at: Option<String>,
    pub last_run_at: Option<String>,
    pub created_at: String,
}

/// The body of `POST /v1/connectors/{connector_id}/schedules`.
#[derive(Deserialize, ToSchema)]
#[allow(dead_code)]
pub struct CreateScheduleRequest {
    /// Five fields: minute hour day-of-month month day-of-week, UTC.
    pub cron: String,
    pub prefix: Option<String>,
    pub name: Option<String>,
}

/// One sync of a connector: what it listed, queued, skipped and rejected.
#[derive(Serialize, ToSchema)]
pub struct RunView {
    pub id: i64,
    pub schedule_id: Option<i64>,
    pub connector_id: i64,
    #[schema(value_type = vocab::RunTrigger)]
    pub trigger: String,
    #[schema(value_type = vocab::RunStatus)]
    pub status: String,
    pub prefix: Option<String>,
    pub started_at: String,
    pub finished_at: Option<String>,
    pub listed: i64,
    pub queued: i64,
    pub skipped: i64,
    pub rejected: i64,
    pub job_ids: Vec<String>,
    /// Why it failed (status `failed`).
    pub error: Option<RunError>,
}

/// A sync's failure: a stable `code` and what happened.
#[derive(Serialize, ToSchema)]
pub struct RunError {
    /// A connector's failure code (`bad_credentials`, `bucket_not_found`, ...), or `storage_error`,
    /// `queue_full`, `insufficient_credits` where queuing a fetched object failed.
    #[schema(value_type = docsieve_actors::error_code::RecordCode)]
    pub code: String,
    pub message: Option<String>,
}

/// A sync started by hand, with the jobs it queued.
#[derive(Serialize, ToSchema)]
pub struct TriggeredSync {
    pub sync_id: i64,
    pub job_ids: Vec<String>,
    pub run: RunView,
}

fn schedule_view(schedule: &ScheduleRecord, now: chrono::DateTime<chrono::Utc>) -> ScheduleView {
    let next = Schedule::parse(&schedule.cron)
        .ok()
        .and_then(|cron| cron.next_after(now));
    ScheduleView {
        id: schedule.id,
        connector_id: schedule.connector_id,
        name: schedule.name.clone(),
        cron: schedule.cron.clone(),
        prefix: schedule.prefix.clone(),
        enabled: schedule.enabled,
        next_run_at: next.map(rfc3339),
        last_run_at: schedule.last_run_at.map(rfc3339),
        created_at: rfc3339(schedule.created_at),
    }
}

fn run_view(run: &SyncRunRecord) -> RunView {
    RunView {
        id: run.id,
        schedule_id: run.schedule_id,
        connector_id: run.connector_id,
        trigger: run.trigger.clone(),
        status: run.status.clone(),
        prefix: run.prefix.clone(),
        started_at: rfc3339(run.started_at),
        finished_at: run.finished_at.map(rfc3339),
        listed: run.listed,
        queued: run.queued,
        skipped: run.skipped,
        rejected: run.rejected,
        job_ids: run.job_ids.clone(),
        error: run.error_code.as_ref().map(|code| RunError {
            code: code.clone(),
            message: run.error_message.clone(),
        }),
    }
}

fn not_found(schedule_id: i64) -> ApiError {
    ApiError::not_found(
        ErrorCode::ScheduleNotFound,
        format!("schedule {schedule_id} does not exist on this connector"),
    )
}

/// An optional string field: trimmed, None when absent or empty, a problem when too long or not text.
fn optional_text(
    body: &Value,
    field: &str,
    max: usize,
    details: &mut Vec<ValidationDetail>,
) -> Option<String> {
    match body.get(field) {
        None | Some(Value::Null) => None,
        Some(Value::String(text)) if text.chars().count() <= max => {
            Some(text.trim().to_string()).filter(|t| !t.is_empty())
        }
        Some(Value::String(_)) => {
            details.push(problem(
                field,
                format!("{field} is at most {max} characters"),
                "string_too_long",
            ));
            None
        }
        Some(_) => {
            details.push(problem(
                field,
                format!("{field} must be a string"),
                "string_type",
            ));
            None
        }
    }
}

/// Creates a schedule: `{cron, prefix?, name?}`.
#[utoipa::path(post, path = "/v1/connectors/{connector_id}/schedules", operation_id = "create_schedule", tag = "connectors",
    params(("connector_id" = i64, Path, description = "Connector id")),
    request_body(content = CreateScheduleRequest, content_type = "application/json", description = "`{cron, prefix?, name?}`: cron is 5 fields (minute hour day-of-month month day-of-week), UTC; prefix overrides the connector's for this schedule's syncs"),
    responses(
        (status = 201, description = "The schedule, with `next_run_at`", body = Envelope<ScheduleView>),
        (status = 401, body = crate::error::ErrorBody),
        (status = 403, description = "`plan_required`: the plan in force has no schedules (trial)", body = crate::error::ErrorBody),
        (status = 404, description = "`connector_not_found`", body = crate::error::ErrorBody),
        (status = 409, description = "`schedule_limit_reached` (with `limit`)", body = crate::error::ErrorBody),
        (status = 422, description = "An invalid cron (the field named), unknown fields, or `schedule_too_frequent` (with `interval_minutes` and `min_interval_minutes`)", body = crate::error::ValidationErrorBody)
    ),
    security(("api_key" = []), ("bearer" = [])))]
#[post("/v1/connectors/{connector_id}/schedules")]
pub async fn create(
    state: web::Data<AppState>,
    auth: Authenticated,
    connector_id: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let connector_id = path_id(&connector_id, "connector_id")?;
    let body: Value = crate::validation::json_body(&body)?;
    let mut details = Vec::new();
    if let Some(object) = body.as_object() {
        for key in object.keys() {
            if !["cron", "prefix", "name"].contains(&key.as_str()) {
                details.push(problem(
                    key,
                    "not a field of a schedule (fields: cron, prefix, name)",
                    "extra_forbidden",
                ));
            }
        }
    }
    let cron = match body.get("cron") {
        Some(Value::String(text)) => match Schedule::parse(text) {
            Ok(schedule) => Some((
                text.split_whitespace().collect::<Vec<_>>().join(" "),
                schedule,
            )),
            Err(error) => {
                details.push(problem("cron", error.to_string(), "value_error.cron"));
                None
            }
        },
        None | Some(Value::Null) => {
            details.push(problem("cron", "field required", "missing"));
            None
        }
        Some(_) => {
            details.push(problem("cron", "cron must be a string", "string_type"));
            None
        }
    };
    let prefix = optional_text(&body, "prefix", 1024, &mut details);
    let name = optional_text(&body, "name", 200, &mut details);
    let Some((cron, parsed)) = cron.filter(|_| details.is_empty()) else {
        return Err(ApiError::validation(details));
    };
    found(&state, &auth, connector_id).await?;
    let plan = state.store.plan_in_force(auth.tenant_id).await?;
    let limits = state.settings.plans.get(plan);
    let Some(min_minutes) = limits.min_schedule_interval_minutes else {
        return Err(ApiError::new(
            ErrorKind::Forbidden,
            ErrorCode::PlanRequired,
            format!("the {plan} plan has no schedules; starter and above do"),
        )
        .with("plan", plan.as_str()));
    };
    let now = state.clock.now();
    if let Some(interval) = parsed.shortest_interval(now) {
        if interval < chrono::Duration::minutes(i64::from(min_minutes)) {
            let code = ErrorCode::ScheduleTooFrequent;
            let too_often = problem(
                "cron",
                format!(
                    "this cron fires every {} minutes at its most frequent; the {plan} plan allows one run every {min_minutes} minutes at most",
                    interval.num_minutes()
                ),
                code.as_str(),
            );
            return Err(ApiError::validation(vec![too_often])
                .coded(code)
                .with("interval_minutes", interval.num_minutes())
                .with("min_interval_minutes", min_minutes));
        }
    }
    let schedule = state
        .store
        .create_schedule(
            auth.tenant_id,
            &NewSchedule {
                connector_id,
                name,
                cron,
                prefix,
            },
            u64::from(limits.max_schedules_per_connector),
            now,
        )
        .await
        .map_err(|error| match error {
            ScheduleError::LimitReached { count, limit } => ApiError::new(
                ErrorKind::Conflict,
                ErrorCode::ScheduleLimitReached,
                format!("connector {connector_id} has {count} schedules; the {plan} plan allows {limit} per connector"),
            )
            .with("limit", limit),
            ScheduleError::ConnectorGone => super::connectors::not_found(connector_id),
            ScheduleError::Store(error) => error.into(),
        })?;
    accounts::audit(
        &state,
        auth.audit(
            "schedule_create",
            Some(("schedule", schedule.id.to_string())),
            json!({"connector_id": connector_id, "cron": schedule.cron}),
        ),
    )
    .await;
    Ok(HttpResponse::Created().json(Envelope {
        data: schedule_view(&schedule, now),
    }))
}

/// The connector's schedules, newest first.
#[utoipa::path(get, path = "/v1/connectors/{connector_id}/schedules", operation_id = "list_schedules", tag = "connectors",
    params(
        ("connector_id" = i64, Path, description = "Connector id"),
        ("page" = Option<i64>, Query, description = "Page, from 1 (default 1)"),
        ("page_size" = Option<i64>, Query, description = "1 to 100 (default 20)")
    ),
    responses(
        (status = 200, description = "One page of schedules, newest first", body = Envelope<Page<ScheduleView>>),
        (status = 401, body = crate::error::ErrorBody),
        (status = 404, description = "`connector_not_found`", body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ValidationErrorBody)
    ),
    security(("api_key" = []), ("bearer" = [])))]
#[get("/v1/connectors/{connector_id}/schedules")]
pub async fn list(
    state: web::Data<AppState>,
    auth: Authenticated,
    connector_id: web::Path<String>,
    query: Query,
) -> Result<HttpResponse, ApiError> {
    let connector_id = path_id(&connector_id, "connector_id")?;
    let pagination = Pagination::only(&query)?;
    found(&state, &auth, connector_id).await?;
    let (schedules, total) = state
        .store
        .schedules_page(auth.tenant_id, connector_id, page_request(pagination))
        .await?;
    let now = state.clock.now();
    Ok(crate::api::page_response(
        schedules.iter().map(|s| schedule_view(s, now)).collect(),
        pagination,
        total,
    ))
}

/// The connector and schedule named by the path, or their 404.
async fn schedule_of(
    state: &AppState,
    auth: &Authenticated,
    path: &(String, String),
) -> Result<ScheduleRecord, ApiError> {
    let connector_id = path_id(&path.0, "connector_id")?;
    let schedule_id = path_id(&path.1, "schedule_id")?;
    found(state, auth, connector_id).await?;
    state
        .store
        .schedule(auth.tenant_id, connector_id, schedule_id)
        .await?
        .ok_or_else(|| not_found(schedule_id))
}

/// One schedule.
#[utoipa::path(get, path = "/v1/connectors/{connector_id}/schedules/{schedule_id}", operation_id = "get_schedule", tag = "connectors",
    params(
        ("connector_id" = i64, Path, description = "Connector id"),
        ("schedule_id" = i64, Path, description = "Schedule id")
    ),
    responses(
        (status = 200, description = "The schedule", body = Envelope<ScheduleView>),
        (status = 401, body = crate::error::ErrorBody),
        (status = 404, description = "`connector_not_found` or `schedule_not_found`", body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ValidationErrorBody)
    ),
    security(("api_key" = []), ("bearer" = [])))]
#[get("/v1/connectors/{connector_id}/schedules/{schedule_id}")]
pub async fn detail(
    state: web::Data<AppState>,
    auth: Authenticated,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let schedule = schedule_of(&state, &auth, &path).await?;
    Ok(HttpResponse::Ok().json(Envelope {
        data: schedule_view(&schedule, state.clock.now()),
    }))
}

/// Deletes a schedule and the record of its syncs (what they queued stays).
#[utoipa::path(delete, path = "/v1/connectors/{connector_id}/schedules/{schedule_id}", operation_id = "delete_schedule", tag = "connectors",
    params(
        ("connector_id" = i64, Path, description = "Connector id"),
        ("schedule_id" = i64, Path, description = "Schedule id")
    ),
    responses(
        (status = 204, description = "Deleted"),
        (status = 401, body = crate::error::ErrorBody),
        (status = 404, description = "`connector_not_found` or `schedule_not_found`", body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ValidationErrorBody)
    ),
    security(("api_key" = []), ("bearer" = [])))]
#[delete("/v1/connectors/{connector_id}/schedules/{schedule_id}")]
pub async fn remove(
    state: web::Data<AppState>,
    auth: Authenticated,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let schedule = schedule_of(&state, &auth, &path).await?;
    let deleted = state
        .store
        .delete_schedule(auth.tenant_id, schedule.connector_id, schedule.id)
        .await?;
    super::common::deleted(
        &state,
        &auth,
        ("schedule_delete", "schedule", schedule.id),
        deleted,
        not_found,
    )
    .await
}

/// Runs the schedule's sync now and answers when it has queued what it found.
#[utoipa::path(post, path = "/v1/connectors/{connector_id}/schedules/{schedule_id}/trigger", operation_id = "trigger_schedule", tag = "connectors",
    params(
        ("connector_id" = i64, Path, description = "Connector id"),
        ("schedule_id" = i64, Path, description = "Schedule id")
    ),
    responses(
        (status = 202, body = Envelope<TriggeredSync>, description = "`{sync_id, job_ids, run}`: the sync's record (listed, queued, skipped, rejected, error) and the jobs it queued"),
        (status = 401, body = crate::error::ErrorBody),
        (status = 404, description = "`connector_not_found` or `schedule_not_found`", body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ValidationErrorBody)
    ),
    security(("api_key" = []), ("bearer" = [])))]
#[post("/v1/connectors/{connector_id}/schedules/{schedule_id}/trigger")]
pub async fn trigger(
    state: web::Data<AppState>,
    auth: Authenticated,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let schedule = schedule_of(&state, &auth, &path).await?;
    let connector = found(&state, &auth, schedule.connector_id).await?;
    let run = run_sync(
        &state.connectors,
        &connector,
        Some(&schedule),
        Trigger::Manual,
        crate::api::queue::requested_by(&auth),
    )
    .await?;
    accounts::audit(
        &state,
        auth.audit(
            "schedule_trigger",
            Some(("schedule", schedule.id.to_string())),
            json!({"sync_id": run.id, "queued": run.queued}),
        ),
    )
    .await;
    Ok(HttpResponse::Accepted().json(Envelope {
        data: TriggeredSync {
            sync_id: run.id,
            job_ids: run.job_ids.clone(),
            run: run_view(&run),
        },
    }))
}

/// The schedule's past syncs, newest first.
#[utoipa::path(get, path = "/v1/connectors/{connector_id}/schedules/{schedule_id}/runs", operation_id = "list_schedule_runs", tag = "connectors",
    params(
        ("connector_id" = i64, Path, description = "Connector id"),
        ("schedule_id" = i64, Path, description = "Schedule id"),
        ("page" = Option<i64>, Query, description = "Page, from 1 (default 1)"),
        ("page_size" = Option<i64>, Query, description = "1 to 100 (default 20)")
    ),
    responses(
        (status = 200, body = Envelope<Page<RunView>>, description = "One page of runs; a run has trigger (cron|manual), status (running|succeeded|failed), started_at, finished_at, listed, queued, skipped, rejected, job_ids, error {code, message}"),
        (status = 401, body = crate::error::ErrorBody),
        (status = 404, description = "`connector_not_found` or `schedule_not_found`", body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ValidationErrorBody)
    ),
    security(("api_key" = []), ("bearer" = [])))]
#[get("/v1/connectors/{connector_id}/schedules/{schedule_id}/runs")]
pub async fn runs(
    state: web::Data<AppState>,
    auth: Authenticated,
    path: web::Path<(String, String)>,
    query: Query,
) -> Result<HttpResponse, ApiError> {
    let pagination = Pagination::only(&query)?;
    let schedule = schedule_of(&state, &auth, &path).await?;
    let (runs, total) = state
        .store
        .sync_runs_page(auth.tenant_id, schedule.id, page_request(pagination))
        .await?;
    Ok(crate::api::page_response(
        runs.iter().map(run_view).collect(),
        pagination,
        total,
    ))
}

/// This resource's routes.
pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(create)
        .service(list)
        .service(detail)
        .service(remove)
        .service(trigger)
        .service(runs);
}
