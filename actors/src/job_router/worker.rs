//! Runs the claimed jobs of one slot (a small-lane batch, or one job): for each, original blob →
//! extractor pool → masker → result blob; then all their outcomes (executions, job states, webhook
//! outbox, usage counters, credits and audit entries) go to the completer, which commits them in one
//! group transaction.
//!
//! Errors are sorted into two kinds: the document's own (it cannot be read, masking was refused), which
//! fail the job at once with the engine's code, and the service's (storage, database, an overloaded
//! pool), which give the job back to the queue until its attempts are used up.

use std::time::Instant;

use bytes::Bytes;
use serde_json::json;

use crate::blob::BlobError;
use crate::error_code::RecordCode;
use crate::extractor_pool::ExtractError;
use crate::pii_masker::MaskedDocument;
use crate::pipeline::{self, ProcessError};
use crate::store::DocumentRow;
use crate::store::{
    ClaimedJob, JobEnd, JobOutcome, JobPayload, NewExecution, OutboxEvent, ProcessPayload,
    RequestedBy, StoreError, Usage, Written, EXTRACTION_CRASHED, EXTRACTION_TIMED_OUT,
};

use super::records::{audit_record, finished_metrics};
use super::Dispatcher;

/// The engine versions recorded in every execution's `result_meta`.
pub const ENGINE_VERSION: &str = env!("CARGO_PKG_VERSION");

/// How a job ended.
#[derive(Debug)]
pub enum Finish {
    Completed {
        execution_id: i64,
    },
    /// A dataset build finished: the dataset is ready.
    Built {
        row_count: i64,
    },
    /// The document's own problem: fail now.
    Failed {
        code: String,
        message: String,
    },
    /// A problem of the service: try again (or fail with `exhausted_retries` on the last attempt).
    Retry {
        code: String,
        message: String,
    },
    /// Another worker holds the job now; write nothing.
    LeaseLost,
}

fn retry(code: &str, message: impl ToString) -> Finish {
    Finish::Retry {
        code: code.to_string(),
        message: message.to_string(),
    }
}

fn failed(code: &str, message: impl ToString) -> Finish {
    Finish::Failed {
        code: code.to_string(),
        message: message.to_string(),
    }
}

impl From<StoreError> for Finish {
    fn from(error: StoreError) -> Finish {
        retry(RecordCode::DatabaseError.as_str(), error)
    }
}

/// The event payload of a job, per the interface: `event`, `job_id`, `status`, `quality_grade`,
/// `pii_findings_count`, `timestamp`, plus `error` on failure and the ids it produced.
pub fn job_event(
    job: &ClaimedJob,
    finish: &Finish,
    meta: Option<&serde_json::Value>,
    now: chrono::DateTime<chrono::Utc>,
) -> Option<OutboxEvent> {
    match finish {
        Finish::Completed { execution_id } => {
            let meta = meta.cloned().unwrap_or_default();
            Some(OutboxEvent {
                event: "job.completed",
                payload: json!({
                    "event": "job.completed",
                    "job_id": job.id,
                    "job_type": job.job_type,
                    "status": "completed",
                    "quality_grade": meta["quality"]["grade"],
                    "pii_findings_count": meta["pii_findings_count"].as_u64().unwrap_or(0),
                    "document_id": job.document_id,
                    "execution_id": execution_id,
                    "timestamp": crate::clock::rfc3339(now),
                }),
            })
        }
        Finish::Failed { code, message } | Finish::Retry { code, message } => Some(failed_event(
            &job.id,
            &job.job_type,
            job.document_id,
            code,
            message,
            now,
        )),
        Finish::Built { .. } | Finish::LeaseLost => None,
    }
}

/// `job.failed`: the shared fields plus `error {code, message}`.
pub fn failed_event(
    job_id: &str,
    job_type: &str,
    document_id: Option<i64>,
    code: &str,
    message: &str,
    now: chrono::DateTime<chrono::Utc>,
) -> OutboxEvent {
    OutboxEvent {
        event: "job.failed",
        payload: json!({
            "event": "job.failed",
            "job_id": job_id,
            "job_type": job_type,
            "status": "failed",
            "quality_grade": null,
            "pii_findings_count": 0,
            "document_id": document_id,
            "error": {"code": code, "message": message},
            "timestamp": crate::clock::rfc3339(now),
        }),
    }
}

/// A document job's work, done and not yet written.
struct Prepared {
    execution: NewExecution,
    meta: serde_json::Value,
    /// The processed copy of a connector object, deleted once the completion is committed (the
    /// connector holds the object; reprocessing it is `reprocess_not_local`).
    connector_copy: Option<String>,
}

/// One job of a batch on its way to the completer.
struct Pending<'a> {
    job: &'a ClaimedJob,
    started: Instant,
    meta: Option<serde_json::Value>,
    connector_copy: Option<String>,
    /// How it ended, as written (the completer may still find the lease lost).
    finish: Finish,
}

impl Dispatcher {
    /// Processes the jobs of one claim (a small-lane batch, or one job) one after the other, then
    /// writes all their outcomes through the completer, which commits them in one group with
    /// whatever else finished meanwhile. Never panics the caller: every failure is a [`Finish`].
    pub(super) async fn run_batch(&self, jobs: &[ClaimedJob]) -> Vec<Finish> {
        let mut pending = Vec::with_capacity(jobs.len());
        let mut outcomes = Vec::with_capacity(jobs.len());
        // A batch's document rows in one read (a batch is one tenant's); a job whose row is not
        // among them reads its own.
        let mut documents = match jobs {
            [first, _, ..] => {
                let ids: Vec<i64> = jobs.iter().filter_map(|job| job.document_id).collect();
                self.services
                    .store
                    .documents_for_jobs(first.tenant_id, &ids)
                    .await
                    .unwrap_or_default()
            }
            _ => Default::default(),
        };
        for job in jobs {
            let document = job.document_id.and_then(|id| documents.remove(&id));
            let span = tracing::error_span!(
                "job",
                job_id = %job.id,
                job_type = %job.job_type,
                tenant_id = job.tenant_id,
                document_id = job.document_id,
                dataset_id = job.dataset_id.as_deref(),
                attempt = job.attempts
            );
            let (entry, outcome) =
                tracing::Instrument::instrument(self.prepare(job, document), span).await;
            pending.push(entry);
            outcomes.extend(outcome);
        }
        let committed = self.services.store.finish_jobs(outcomes).await;
        let mut written = committed.written.into_iter();
        for entry in pending.iter_mut().filter(|entry| entry.writes()) {
            let fate = written.next().unwrap_or(Ok(Written::LeaseLost));
            entry.finish = match (
                fate,
                std::mem::replace(&mut entry.finish, Finish::LeaseLost),
            ) {
                (Ok(Written::Completed { execution_id }), _) => Finish::Completed { execution_id },
                (Ok(Written::Failed | Written::Requeued), finish) => finish,
                (Ok(Written::LeaseLost), _) => Finish::LeaseLost,
                (Err(error), _) => {
                    // The lease will expire and the job will be claimed again: nothing is lost.
                    tracing::error!(job_id = %entry.job.id, %error, "cannot record the job's outcome");
                    Finish::LeaseLost
                }
            };
            self.after_write(entry).await;
        }
        if committed.outbox_rows > 0 {
            self.wake_webhook_senders().await;
        }
        pending
            .into_iter()
            .map(|entry| {
                finished_metrics(entry.job, &entry.finish, entry.started);
                entry.finish
            })
            .collect()
    }

    /// Does one job's work, and the outcome to write for it (none when it was written already: a
    /// dataset build, or a lease found lost).
    async fn prepare<'a>(
        &self,
        job: &'a ClaimedJob,
        document: Option<DocumentRow>,
    ) -> (Pending<'a>, Option<JobOutcome>) {
        let started = Instant::now();
        let started_at = self.services.clock.now();
        // The payload is read once: its work, and who asked for it (for the audit entry).
        let work = job.work();
        let requested_by = work
            .as_ref()
            .map(|work| work.requested_by().clone())
            .unwrap_or_default();
        let mut pending = Pending {
            job,
            started,
            meta: None,
            connector_copy: None,
            finish: Finish::LeaseLost,
        };
        let end = match work {
            Ok(JobPayload::DataProcess(work)) => {
                match self
                    .process_document(job, document, &work, (started_at, started))
                    .await
                {
                    Ok(prepared) => {
                        pending.meta = Some(prepared.meta);
                        pending.connector_copy = prepared.connector_copy;
                        JobEnd::Completed(prepared.execution)
                    }
                    Err(finish) => match self.ending(job, finish) {
                        Ok(end) => end,
                        Err(finish) => {
                            pending.finish = finish;
                            return (pending, None);
                        }
                    },
                }
            }
            Ok(JobPayload::DatasetBuild(_)) => {
                let finish = self.build_dataset(job).await;
                match self.ending(job, finish) {
                    Ok(end) => end,
                    Err(finish) => {
                        if let Finish::Built { .. } = finish {
                            self.audit_build(job, &requested_by, &finish).await;
                        }
                        pending.finish = finish;
                        return (pending, None);
                    }
                }
            }
            Err(reason) => JobEnd::Failed {
                code: RecordCode::UnsupportedJobType.as_str().to_string(),
                message: reason,
            },
        };
        let now = self.services.clock.now();
        pending.finish = match &end {
            // The completer fills in the execution id.
            JobEnd::Completed(_) => Finish::Completed { execution_id: 0 },
            JobEnd::Failed { code, message } => failed(code, message),
            JobEnd::Requeued { code, message } => retry(code, message),
        };
        if let JobEnd::Failed { code, .. } = &end {
            tracing::warn!(code, "job failed");
        }
        if let JobEnd::Requeued { code, .. } = &end {
            tracing::warn!(job_id = %job.id, code, "job will be retried");
        }
        let events = job_event(job, &pending.finish, pending.meta.as_ref(), now)
            .into_iter()
            .collect();
        let audit = audit_record(job, &requested_by, &pending.finish, pending.meta.as_ref());
        let outcome = JobOutcome {
            job: job.clone(),
            worker: self.worker_id.clone(),
            end,
            events,
            audit,
            now,
        };
        (pending, Some(outcome))
    }

    /// The outcome to write for a job that did not complete: a retry on the last attempt becomes
    /// `exhausted_retries`. Err: nothing to write (a build that wrote its own outcome, a lost lease).
    fn ending(&self, job: &ClaimedJob, finish: Finish) -> Result<JobEnd, Finish> {
        match finish {
            Finish::Retry { code, message } if job.attempts >= job.max_attempts => {
                Ok(JobEnd::Failed {
                    code: RecordCode::ExhaustedRetries.as_str().to_string(),
                    message: format!(
                        "gave up after {} attempts; last error ({code}): {message}",
                        job.attempts
                    ),
                })
            }
            Finish::Retry { code, message } => Ok(JobEnd::Requeued { code, message }),
            Finish::Failed { code, message } => Ok(JobEnd::Failed { code, message }),
            other => Err(other),
        }
    }

    /// What follows a committed outcome: a dataset's state, a connector object's processed copy.
    async fn after_write(&self, entry: &Pending<'_>) {
        let job = entry.job;
        if let Some(dataset_id) = &job.dataset_id {
            let now = self.services.clock.now();
            let (status, error, finished) = match &entry.finish {
                Finish::Failed { message, .. } => ("failed", Some(message.as_str()), Some(now)),
                Finish::Retry { .. } => ("queued", None, None),
                _ => return,
            };
            if let Err(error) = self
                .services
                .store
                .set_dataset_status(dataset_id, status, error, finished)
                .await
            {
                tracing::error!(job_id = %job.id, %error, "cannot record the dataset's state");
            }
        }
        if let (Finish::Completed { .. }, Some(key)) = (&entry.finish, &entry.connector_copy) {
            if let Err(error) = self.services.blobs.delete(key).await {
                tracing::warn!(%error, document_id = job.document_id, "cannot delete the processed copy of a connector object");
            }
        }
    }

    /// Outbox rows are committed: every process's webhook sender looks now, not at its next poll.
    async fn wake_webhook_senders(&self) {
        if let Err(error) = self.services.cache.wake(crate::cache::WEBHOOKS_WAKE).await {
            tracing::debug!(%error, "cannot wake the webhook senders; they poll anyway");
        }
    }

    /// A dataset build completes in its own transaction (with `dataset.ready`); its audit entry
    /// follows it.
    async fn audit_build(&self, job: &ClaimedJob, requested_by: &RequestedBy, finish: &Finish) {
        self.wake_webhook_senders().await;
        let Some(record) = audit_record(job, requested_by, finish, None) else {
            return;
        };
        if let Err(error) = self
            .services
            .store
            .record_audit(record, self.services.clock.now())
            .await
        {
            tracing::error!(job_id = %job.id, %error, "cannot write the audit entry");
        }
    }

    /// A `dataset_build` job: the exporter writes the rows; the dataset becomes ready with its
    /// `dataset.ready` event in the transaction that completes the job.
    async fn build_dataset(&self, job: &ClaimedJob) -> Finish {
        let Some(dataset_id) = job.dataset_id.clone() else {
            return failed(
                RecordCode::DatasetMissing.as_str(),
                "the job names no dataset",
            );
        };
        let dataset = match self
            .services
            .store
            .dataset(job.tenant_id, &dataset_id)
            .await
        {
            Ok(Some(dataset)) => dataset,
            Ok(None) => {
                return failed(
                    RecordCode::DatasetMissing.as_str(),
                    "the dataset was deleted",
                )
            }
            Err(error) => return error.into(),
        };
        let built = match self
            .exporter
            .call(crate::dataset_exporter::Build {
                tenant_id: job.tenant_id,
                dataset_id: dataset_id.clone(),
            })
            .await
        {
            Ok(Ok(built)) => built,
            Ok(Err(message)) => return failed(RecordCode::BuildFailed.as_str(), message),
            Err(error) => return retry(RecordCode::ExporterUnavailable.as_str(), error),
        };
        let now = self.services.clock.now();
        let event = OutboxEvent {
            event: "dataset.ready",
            payload: json!({
                "event": "dataset.ready",
                "dataset_id": dataset_id,
                "name": dataset.name,
                "row_count": built.row_count,
                "job_id": job.id,
                "timestamp": crate::clock::rfc3339(now),
            }),
        };
        match self
            .services
            .store
            .complete_dataset_job(
                job,
                &self.worker_id,
                built.row_count,
                &built.schema,
                vec![event],
                now,
            )
            .await
        {
            Ok(true) => Finish::Built {
                row_count: built.row_count,
            },
            Ok(false) => Finish::LeaseLost,
            Err(error) => error.into(),
        }
    }

    /// The processing itself, up to the stored result; its execution is written by the completer.
    async fn process_document(
        &self,
        job: &ClaimedJob,
        document: Option<DocumentRow>,
        work: &ProcessPayload,
        (started_at, started): (chrono::DateTime<chrono::Utc>, Instant),
    ) -> Result<Prepared, Finish> {
        let services = &self.services;
        let Some(document_id) = job.document_id else {
            return Err(failed(
                RecordCode::DocumentMissing.as_str(),
                "the job names no document",
            ));
        };
        let document = match document {
            Some(document) => Some(document),
            None => {
                services
                    .store
                    .document_for_job(job.tenant_id, document_id)
                    .await?
            }
        };
        let Some(document) = document else {
            return Err(failed(
                RecordCode::DocumentMissing.as_str(),
                "the document was deleted",
            ));
        };
        let bytes: Bytes = match services.blobs.get(&document.blob_key).await {
            Ok(bytes) => bytes,
            Err(BlobError::NotFound(_)) => {
                return Err(failed(
                    RecordCode::DocumentMissing.as_str(),
                    "the stored original of the document is gone",
                ))
            }
            Err(error) => return Err(retry(RecordCode::StorageError.as_str(), error)),
        };
        // After a crash the document is read alone, in a worker started for it; a second crash fails
        // the job (a poison document), a first one gives it back to the queue for that retry.
        let alone = job.after_a_crash();
        let masked = work.masked;
        // The tenant's privacy policy as it is now (the execution records its version). A key that
        // does not open fails the job: keyed masking is never done with another key.
        let policy = services
            .privacy
            .policy(job.tenant_id)
            .await
            .map_err(|error| {
                let code = error.code();
                if error.passing() {
                    retry(code, error)
                } else {
                    failed(code, error)
                }
            })?;
        let (engine, journal) = policy.recorded();
        let name_engine = engine.clone();
        let result = pipeline::process(
            &self.extractor,
            &self.masker,
            bytes,
            services.limits.clone(),
            crate::extractor_pool::Lane::Job {
                tenant: job.tenant_id,
                alone,
            },
            engine,
            masked,
        )
        .await
        .map_err(|error| match error {
            ProcessError::ExtractorUnavailable(_) | ProcessError::MaskerUnavailable(_) => {
                retry(error.code(), error)
            }
            ProcessError::Extract(ExtractError::Crashed(reason)) if alone => failed(
                EXTRACTION_CRASHED,
                format!("{reason}, again, reading the document alone after an earlier crash"),
            ),
            ProcessError::Extract(ExtractError::Crashed(reason)) => {
                retry(EXTRACTION_CRASHED, reason)
            }
            // A reader that did not stop by itself at the time limit was killed: once more in a
            // worker of its own (a crowded machine may have slowed the first), then the failure.
            ProcessError::Extract(ExtractError::TimedOut(reason)) if !alone => {
                retry(EXTRACTION_TIMED_OUT, reason)
            }
            other => failed(other.code(), other),
        })?;
        // A masked run's file name is masked by the same engine and policy as its text (its
        // pseudonyms, if any, go to the vault with the text's): the name the masked outputs show.
        let tenant_key = services
            .blobs
            .tenant_key(job.tenant_id)
            .await
            .map_err(|error| retry(RecordCode::StorageError.as_str(), error))?;
        let filename = crate::store::Sealed::from_stored(document.sealed_filename.clone())
            .open(
                tenant_key.as_deref(),
                crate::store::SealedField::DocumentName,
            )
            .map_err(|error| failed(RecordCode::StorageError.as_str(), error))?;
        let masked_name =
            masked.then(|| crate::pii_masker::mask_file_name(&filename, &name_engine));
        // Re-identification on: the pseudonyms written go to the vault before the result is kept.
        if let Some(journal) = journal {
            services
                .privacy
                .remember(job.tenant_id, &policy, &journal)
                .await
                .map_err(|error| retry(error.code(), error))?;
        }
        let subjects = super::subjects::entries(&services.blobs, job.tenant_id, &result)
            .await
            .map_err(|error| retry(RecordCode::StorageError.as_str(), error))?;
        let pii_count: u64 = result.summary.values().sum();
        let output = &result.document;
        // What came from the document itself (its name, its extracted fields) is sealed under the
        // tenant's key in its own column; the rest is counts and engine facts.
        let mut sealed_meta = json!({"filename": filename, "fields": output.fields});
        if let Some(name) = masked_name {
            sealed_meta["masked_filename"] = json!(name);
        }
        let sealed_meta = crate::store::Sealed::seal(
            tenant_key.as_deref(),
            crate::store::SealedField::ExecutionMeta,
            &sealed_meta.to_string(),
        )
        .map_err(|error| retry(RecordCode::StorageError.as_str(), error))?;
        let meta = json!({
            "masked": masked,
            "format": output.metadata.format,
            "mime": output.metadata.mime,
            "pages": output.metadata.pages,
            "bytes": document.size_bytes,
            "pii_type_summary": result.summary,
            "pii_count": pii_count,
            "pii_findings_count": result.findings.len(),
            "detected_language": output.language.code,
            "language": output.language,
            "quality": output.quality,
            "policy_version": policy.version,
            "engine": {
                "docsieve": ENGINE_VERSION,
                "extractor": format!("docsieve-extract/{ENGINE_VERSION}"),
                "pii": format!("docsieve-pii/{ENGINE_VERSION}"),
            },
            "attempt": job.attempts,
            "worker": self.worker_id,
        });
        let pages = i64::from(output.metadata.pages.unwrap_or(1));
        // The result of a large document takes a while to turn into JSON (half a second for 400 KB
        // of text with ten thousand findings in a debug build): on the blocking pool, so that this
        // arbiter keeps renewing the leases of the other jobs it runs meanwhile. It goes to a scratch
        // file, then to the store in parts: never whole in memory next to the result.
        let scratch = crate::blob::Scratch::in_folder(&std::env::temp_dir(), "result.json")
            .map_err(|error| retry("serialization", error))?;
        let path = scratch.0.clone();
        let size = output.text.len();
        tokio::task::spawn_blocking(move || write_result(&result, &path))
            .await
            .map_err(|error| retry("serialization", error))?
            .map_err(|error| retry("serialization", error))?;
        // The result is written and dropped: a large one's memory goes back before the next job.
        crate::runtime::release_memory_after(size);
        let result_key = crate::blob::Keys::job_result(job.tenant_id, &job.id);
        services
            .blobs
            .upload_from(&result_key, &scratch.0)
            .await
            .map_err(|error| retry(RecordCode::StorageError.as_str(), error))?;
        drop(scratch);
        let execution = NewExecution {
            document_id,
            masked,
            started_at,
            duration_ms: started.elapsed().as_millis().min(i64::MAX as u128) as i64,
            result_blob_key: result_key,
            result_meta: meta.clone(),
            sealed_meta: Some(sealed_meta),
            credits: pages.max(1),
            usage: Usage {
                documents: 1,
                pages,
                bytes: document.size_bytes,
            },
            subjects,
        };
        Ok(Prepared {
            execution,
            meta,
            connector_copy: (document.source == "connector").then(|| document.blob_key.clone()),
        })
    }
}

impl Pending<'_> {
    /// Whether an outcome was sent to the completer for this job.
    fn writes(&self) -> bool {
        matches!(
            self.finish,
            Finish::Completed { .. } | Finish::Failed { .. } | Finish::Retry { .. }
        )
    }
}

/// The stored result of a document job: `{document, pii: {findings, pii_type_summary, pii_count}}`,
/// serialised straight from the result (no JSON tree of it in between: that tree took several times
/// the document's size) into `path`, through a buffer.
fn write_result(result: &MaskedDocument, path: &std::path::Path) -> std::io::Result<()> {
    #[derive(serde::Serialize)]
    struct Pii<'a> {
        findings: &'a [crate::pii_masker::Finding],
        pii_type_summary: &'a std::collections::BTreeMap<String, u64>,
        pii_count: u64,
    }
    #[derive(serde::Serialize)]
    struct Body<'a> {
        document: &'a crate::model::Document,
        pii: Pii<'a>,
    }
    let body = Body {
        document: &result.document,
        pii: Pii {
            findings: &result.findings,
            pii_type_summary: &result.summary,
            pii_count: result.summary.values().sum(),
        },
    };
    let mut out = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?);
    serde_json::to_writer(&mut out, &body)?;
    use std::io::Write;
    out.flush()
}
