//! Outgoing mail: SMTP through lettre when `mail.smtp_url` is set, otherwise one RFC 5322 `.eml` file per
//! message in `<data_dir>/outbox/` (how a local user reads their verification mail).
//!
//! Delivery runs off the request path on a bounded queue; a failed SMTP send is retried with a
//! doubling delay and, when it is finally given up, logged as an error (never silently dropped).
//! Mails carry live one-time tokens, so they are not copied into the database; a user whose mail was
//! lost asks for a new one (resend-verification, forgot-password). Logs never contain the recipient
//! or the body.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use lettre::message::header::ContentType;
use lettre::message::Mailbox;
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use tokio::sync::{mpsc, Semaphore};

use crate::config::MailSettings;

pub const MAIL_TOTAL: &str = "docsieve_mail_total";

/// One message to send.
#[derive(Clone, Debug)]
pub struct Mail {
    pub to: String,
    pub subject: String,
    pub text: String,
    /// `verify_email`, `reset_password`, `invitation`: for logs and metrics.
    pub kind: &'static str,
}

#[derive(Debug, thiserror::Error)]
pub enum MailError {
    #[error("the mail queue is full")]
    QueueFull,
    #[error("the mail worker has stopped")]
    Stopped,
}

#[derive(Clone)]
enum Transport {
    Smtp(AsyncSmtpTransport<Tokio1Executor>),
    Outbox(PathBuf),
}

#[derive(Clone)]
pub struct Mailer {
    queue: mpsc::Sender<Mail>,
}

struct Worker {
    transport: Transport,
    from: Mailbox,
    max_attempts: u32,
    backoff: Duration,
}

impl Mailer {
    /// Starts the delivery worker on the current runtime.
    pub fn start(settings: &MailSettings, data_dir: &Path) -> anyhow::Result<Mailer> {
        let transport = if settings.smtp_url.is_empty() {
            let outbox = data_dir.join("outbox");
            std::fs::create_dir_all(&outbox)?;
            Transport::Outbox(outbox)
        } else {
            Transport::Smtp(
                AsyncSmtpTransport::<Tokio1Executor>::from_url(&settings.smtp_url)?
                    .timeout(Some(Duration::from_secs(30)))
                    .build(),
            )
        };
        let worker = Arc::new(Worker {
            transport,
            from: settings.from.parse()?,
            max_attempts: settings.max_attempts,
            backoff: Duration::from_millis(settings.retry_backoff_ms),
        });
        let (queue, mut receiver) = mpsc::channel::<Mail>(settings.queue_capacity);
        // At most 8 deliveries at once, so a slow SMTP server cannot pile up connections.
        let slots = Arc::new(Semaphore::new(8));
        tokio::spawn(async move {
            while let Some(mail) = receiver.recv().await {
                let Ok(slot) = slots.clone().acquire_owned().await else {
                    break;
                };
                let worker = worker.clone();
                tokio::spawn(async move {
                    worker.deliver(mail).await;
                    drop(slot);
                });
            }
        });
        Ok(Mailer { queue })
    }

    /// Queues a mail; fails only when the queue is full or the worker is gone.
    pub fn send(&self, mail: Mail) -> Result<(), MailError> {
        let kind = mail.kind;
        self.queue.try_send(mail).map_err(|error| {
            metrics::counter!(MAIL_TOTAL, "kind" => kind, "outcome" => "refused").increment(1);
            tracing::error!(kind, "mail could not be queued: {error}");
            match error {
                mpsc::error::TrySendError::Full(_) => MailError::QueueFull,
                mpsc::error::TrySendError::Closed(_) => MailError::Stopped,
            }
        })
    }
}

/// The mail's text as 7-bit when it can be (ASCII without NUL, lines within RFC 5322's limit of 998
/// characters; lettre's own choice keeps 7-bit for lines of 76 at most): quoted-printable would cut
/// the link's line with a soft break and write its `=` as `=3D`, so that a reader who shows the raw
/// mail, or copies the link out of it, gets a broken link. Otherwise lettre's choice.
fn body(text: &str) -> lettre::message::Body {
    use lettre::message::header::ContentTransferEncoding;
    let plain = text.is_ascii()
        && !text.contains('\0')
        && !text.contains('\r')
        && text.lines().all(|line| line.len() <= 998);
    if plain {
        let crlf = text.replace('\n', "\r\n");
        lettre::message::Body::dangerous_pre_encoded(
            crlf.into_bytes(),
            ContentTransferEncoding::SevenBit,
        )
    } else {
        lettre::message::Body::new(text.to_string())
    }
}

impl Worker {
    fn build(&self, mail: &Mail) -> Result<Message, String> {
        let to: Mailbox = mail
            .to
            .parse()
            .map_err(|_| "invalid recipient".to_string())?;
        Message::builder()
            .from(self.from.clone())
            .to(to)
            .message_id(None)
            .subject(mail.subject.clone())
            .header(ContentType::TEXT_PLAIN)
            .body(body(&mail.text))
            .map_err(|error| error.to_string())
    }

    async fn deliver(&self, mail: Mail) {
        let message = match self.build(&mail) {
            Ok(message) => message,
            Err(error) => {
                metrics::counter!(MAIL_TOTAL, "kind" => mail.kind, "outcome" => "failed")
                    .increment(1);
                tracing::error!(kind = mail.kind, %error, "mail could not be built; dropped");
                return;
            }
        };
        match &self.transport {
            Transport::Outbox(folder) => match write_eml(folder, mail.kind, &message.formatted()) {
                Ok(()) => metrics::counter!(MAIL_TOTAL, "kind" => mail.kind, "outcome" => "sent")
                    .increment(1),
                Err(error) => {
                    metrics::counter!(MAIL_TOTAL, "kind" => mail.kind, "outcome" => "failed")
                        .increment(1);
                    tracing::error!(kind = mail.kind, %error, "mail could not be written to the outbox");
                }
            },
            Transport::Smtp(transport) => {
                let mut delay = self.backoff;
                for attempt in 1..=self.max_attempts {
                    match transport.send(message.clone()).await {
                        Ok(_) => {
                            metrics::counter!(MAIL_TOTAL, "kind" => mail.kind, "outcome" => "sent")
                                .increment(1);
                            return;
                        }
                        Err(error) if attempt < self.max_attempts => {
                            tracing::warn!(kind = mail.kind, attempt, %error, "SMTP send failed; retrying");
                            tokio::time::sleep(delay).await;
                            delay = delay.saturating_mul(2);
                        }
                        Err(error) => {
                            metrics::counter!(MAIL_TOTAL, "kind" => mail.kind, "outcome" => "failed")
                                .increment(1);
                            tracing::error!(
                                kind = mail.kind,
                                attempts = attempt,
                                %error,
                                "SMTP send failed; mail given up"
                            );
                        }
                    }
                }
            }
        }
    }
}

/// Writes atomically (temporary name, then rename) so readers never see half a message.
fn write_eml(folder: &Path, kind: &str, bytes: &[u8]) -> std::io::Result<()> {
    let name = format!(
        "{}-{kind}-{}.eml",
        chrono::Utc::now().format("%Y%m%dT%H%M%S%.6f"),
        crate::auth::tokens::random_hex(4)
    );
    let temporary = folder.join(format!(".{name}.tmp"));
    std::fs::write(&temporary, bytes)?;
    std::fs::rename(&temporary, folder.join(name))
}
