//! Mail in the tests: a real SMTP sink (aiosmtpd) and the tokens that mails carry.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Decodes quoted-printable soft line breaks so that tokens split across lines are whole again.
fn unfold_quoted_printable(text: &str) -> String {
    text.replace("=\r\n", "")
        .replace("=\n", "")
        .replace("=3D", "=")
}

/// The 64-hex-digit token on a line of its own in a mail body.
pub fn token_in_mail(raw: &str) -> Option<String> {
    unfold_quoted_printable(raw)
        .lines()
        .map(str::trim)
        .find(|line| line.len() == 64 && line.bytes().all(|b| b.is_ascii_hexdigit()))
        .map(str::to_string)
}

/// An SMTP sink (aiosmtpd) writing every message into a Maildir; killed when dropped.
pub struct SmtpSink {
    child: Child,
    pub port: u16,
    pub maildir: tempfile::TempDir,
}

impl SmtpSink {
    /// Starts the sink, or returns None (outside CI) when aiosmtpd is not installed.
    pub fn start() -> Option<SmtpSink> {
        let available = Command::new("python3")
            .args(["-c", "import aiosmtpd"])
            .status()
            .is_ok_and(|status| status.success());
        if !available {
            if std::env::var("CI").is_ok_and(|value| value == "true") {
                panic!(
                    "aiosmtpd is not installed (pip install aiosmtpd); CI must run the SMTP test"
                );
            }
            eprintln!("skipping the SMTP test: aiosmtpd is not installed");
            return None;
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .map(|address| address.port())
            .expect("free port");
        let maildir = tempfile::tempdir().expect("maildir");
        let child = Command::new("python3")
            .args([
                "-m",
                "aiosmtpd",
                "-n",
                "-l",
                &format!("127.0.0.1:{port}"),
                "-c",
                "aiosmtpd.handlers.Mailbox",
            ])
            .arg(maildir.path().join("mail"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start aiosmtpd");
        let started = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "aiosmtpd did not start"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Some(SmtpSink {
            child,
            port,
            maildir,
        })
    }

    /// Messages received so far.
    pub fn messages(&self) -> Vec<String> {
        let folder = self.maildir.path().join("mail/new");
        std::fs::read_dir(folder)
            .map(|entries| {
                entries
                    .filter_map(Result::ok)
                    .filter_map(|entry| std::fs::read_to_string(entry.path()).ok())
                    .collect()
            })
            .unwrap_or_default()
    }
}

impl Drop for SmtpSink {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
