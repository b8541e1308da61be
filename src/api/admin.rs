//! The /system/admin storage and tenant routes: the storage cleanup and a tenant's data export. All
//! require X-Internal-Token.
//!
//! Inputs are validated here for every route.

use actix_web::{get, post, web, HttpResponse};
use utoipa_actix_web::service_config::ServiceConfig;

use crate::auth::internal::InternalCaller;
use crate::error::ApiError;
use crate::state::AppState;
use crate::validation::{path_id, Query, Violations};

/// Deletes dataset export files past their plan's retention time, and the originals of uploads that
/// never committed (no document refers to them) written more than `orphans_older_than_seconds` ago
/// (default `jobs.orphan_grace_seconds`); answers what it deleted. The datasets stay, and the next
/// export request writes the file again.
#[utoipa::path(
    post,
    path = "/system/admin/storage/cleanup", operation_id = "clean_up_storage",
    tag = "admin",
    params(("orphans_older_than_seconds" = Option<i64>, Query, description = "Age from which an unreferenced upload original is swept (0..=86400; default jobs.orphan_grace_seconds)")),
    responses(
        (status = 200, body = super::ReportEnvelope, description = "`{deleted, bytes, orphans: {deleted, bytes}}`: export files removed and their total size, and orphaned upload originals removed"),
        (status = 422, body = crate::error::ValidationErrorBody),
        (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody)
    ),
    security(("internal_token" = []))
)]
#[post("/system/admin/storage/cleanup")]
pub async fn storage_cleanup(
    _caller: InternalCaller,
    state: web::Data<AppState>,
    query: Query,
) -> Result<HttpResponse, ApiError> {
    let mut violations = Violations::default();
    let grace = query.int(
        "orphans_older_than_seconds",
        state.settings.jobs.orphan_grace_seconds as i64,
        0,
        86_400,
        &mut violations,
    );
    violations.finish()?;
    let before = state.clock.now() - chrono::Duration::seconds(grace);
    let orphans = docsieve_actors::blob::sweep_orphan_uploads(&state.store, &state.blobs, before)
        .await
        .map_err(|error| ApiError::internal(&std::io::Error::other(error)))?;
    let report = docsieve_actors::dataset_exporter::cleanup_expired_exports(
        &state.store,
        &state.blobs,
        state.clock.now(),
    )
    .await?;
    tracing::info!(
        deleted = report.deleted,
        bytes = report.bytes,
        "export cleanup"
    );
    Ok(HttpResponse::Ok().json(super::ReportEnvelope {
        data: serde_json::json!({
            "deleted": report.deleted,
            "bytes": report.bytes,
            "orphans": orphans,
        }),
    }))
}

/// Everything a tenant holds, as one ZIP (data-subject access): see `docsieve_actors::tenant_export` for the files.
#[utoipa::path(
    get,
    path = "/system/admin/tenants/{tenant_id}/data-export", operation_id = "export_tenant_data",
    tag = "admin",
    params(("tenant_id" = i64, Path, description = "Tenant id")),
    responses(
        (status = 200, description = "application/zip: manifest.json (every file with sha256 and bytes), account.json, api_keys.json, documents/<id>/original.<ext> and metadata.json, executions/<id>.json, datasets/<id>.jsonl and .json, webhooks.json, deliveries.jsonl, connectors.json, billing.json, audit.jsonl; no secrets or their digests", content(
            (String = "application/zip"),
            (String = "application/octet-stream")
        )),
        (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody),
        (status = 404, description = "`tenant_not_found`", body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ValidationErrorBody)
    ),
    security(("internal_token" = []))
)]
#[get("/system/admin/tenants/{tenant_id}/data-export")]
pub async fn tenant_data_export(
    _caller: InternalCaller,
    request: actix_web::HttpRequest,
    state: web::Data<AppState>,
    tenant_id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let tenant_id = path_id(&tenant_id, "tenant_id")?;
    if state.store.tenant_by_id(tenant_id).await?.is_none() {
        return Err(ApiError::not_found(
            crate::error::ErrorCode::TenantNotFound,
            format!("tenant {tenant_id} does not exist"),
        ));
    }
    let sources = docsieve_actors::tenant_export::Sources {
        store: &state.store,
        blobs: &state.blobs,
        clock: &state.clock,
        scratch_dir: &state.settings.storage.data_dir.join("tmp"),
    };
    let (scratch, size) = docsieve_actors::tenant_export::export_tenant(&sources, tenant_id)
        .await
        .map_err(|message| ApiError::internal(&std::io::Error::other(message)))?;
    crate::accounts::audit(
        &state,
        super::billing::system_audit(
            tenant_id,
            "tenant_data_export",
            serde_json::json!({"bytes": size}),
        ),
    )
    .await;
    let file = tokio::fs::File::open(&scratch.0)
        .await
        .map_err(|error| ApiError::internal(&error))?;
    // The scratch file goes with the stream, deleted once it is sent (or the client leaves).
    let body = futures_util::stream::unfold((file, scratch), |(mut file, scratch)| async move {
        use tokio::io::AsyncReadExt;
        let mut buffer = vec![0u8; 64 * 1024];
        match file.read(&mut buffer).await {
            Ok(0) => None,
            Ok(n) => {
                buffer.truncate(n);
                Some((
                    Ok::<_, std::io::Error>(bytes::Bytes::from(buffer)),
                    (file, scratch),
                ))
            }
            Err(error) => Some((Err(error), (file, scratch))),
        }
    });
    Ok(HttpResponse::Ok()
        .content_type(super::common::download_type(&request, "application/zip"))
        .insert_header((
            actix_web::http::header::CONTENT_DISPOSITION,
            format!("attachment; filename=\"tenant-{tenant_id}-export.zip\""),
        ))
        .insert_header((actix_web::http::header::CONTENT_LENGTH, size.to_string()))
        .streaming(body))
}

/// This resource's routes.
pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(storage_cleanup).service(tenant_data_export);
}
