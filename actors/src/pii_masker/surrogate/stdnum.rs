//! Test support: python-stdnum, an implementation independent of ours, judging surrogate identifiers
//! (through `tests/interop/stdnum_check.py`). For the unit tests and, through the `test-support`
//! feature, the HTTP tests.

/// Whether python3 with python-stdnum is here. Where it is not, a test that needs it is skipped, except
/// in CI (`CI=true`), which must run it: there this panics.
pub fn present() -> bool {
    let present = std::process::Command::new("python3")
        .args(["-c", "import stdnum"])
        .output()
        .is_ok_and(|output| output.status.success());
    if !present {
        assert!(
            !std::env::var("CI").is_ok_and(|value| value == "true"),
            "python3 with python-stdnum is not installed; CI must run this test"
        );
        eprintln!("skipping: python3 with python-stdnum is not installed");
    }
    present
}

/// python-stdnum's verdict on `values` (the script's kind, compact value): None when it accepts them
/// all, else the values and its exception.
pub fn refuses(values: &[(&str, String)]) -> Option<String> {
    let script = include_str!("../../../../tests/interop/stdnum_check.py");
    let mut child = std::process::Command::new("python3")
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("python3");
    let lines: String = values
        .iter()
        .map(|(kind, value)| format!("{kind} {value}\n"))
        .collect();
    use std::io::Write;
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(lines.as_bytes())
        .expect("write");
    let output = child.wait_with_output().expect("python3 ran");
    (!(output.status.success() && output.stdout.starts_with(b"ok")))
        .then(|| format!("{lines}{}", String::from_utf8_lossy(&output.stderr)))
}
