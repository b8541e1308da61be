//! Outlook items (`.msg`) answered as e-mail (`.eml`): the item is read as its reader reads it (sender,
//! recipients, subject, date, body, attachments, embedded messages), written as the MIME message it
//! stands for, and that message goes through the e-mail writer, which masks its headers, its body and
//! each attachment in its own format. Nothing else of the item is carried over: its transport
//! headers, its other properties and its compound-file structure are left behind, and the answer says
//! so. An HTML body stays HTML and a plain one plain; an RTF-only body is answered as its text. An
//! embedded OLE object is removed (named in the notes), as the e-mail writer removes an attachment it
//! cannot rewrite.

use super::eml::{base64_lines, encoded};
use super::{Masker, RedactError, Redacted};
use crate::extractor_pool::{outlook, outlook::Body, outlook::Content, outlook::Person};
use crate::extractor_pool::{read_rtf, Compound, ExtractError, Limits};
use crate::model::Builder;

fn refusal(error: ExtractError) -> RedactError {
    match error {
        ExtractError::EncryptedDocument => RedactError::Unsupported(
            "the Outlook item is encrypted or rights-managed; it cannot be rewritten".to_string(),
        ),
        ExtractError::LimitExceeded(why) => RedactError::Limit(why),
        other => RedactError::Malformed(format!("Outlook item: {other}")),
    }
}

/// A display name as a header writes it: quoted when it holds a character with a meaning there.
fn display_name(name: &str) -> String {
    let plain = name
        .chars()
        .all(|c| c.is_alphanumeric() || " !#$%&'*+-/=?^_`{|}~.".contains(c));
    match plain {
        true => name.to_string(),
        false => format!("\"{}\"", name.replace(['"', '\\'], "'")),
    }
}

/// A person as a header field writes them.
fn mailbox((name, address): &Person) -> Option<String> {
    let name = name.as_deref().map(str::trim).filter(|n| !n.is_empty());
    match (name, address) {
        (Some(name), Some(address)) if name != address => {
            Some(format!("{} <{address}>", display_name(name)))
        }
        (_, Some(address)) => Some(address.clone()),
        (Some(name), None) => Some(display_name(name)),
        (None, None) => None,
    }
}

/// A header field, its value as the e-mail writer writes one (UTF-8 encoded words where it is not
/// ASCII; it decodes them before it masks); line breaks inside it become spaces.
fn field(out: &mut Vec<u8>, name: &str, value: &str) {
    let value = encoded(&value.replace(['\r', '\n'], " "));
    out.extend_from_slice(format!("{name}: {value}\r\n").as_bytes());
}

/// `bytes` in base64 lines, after a part's header block.
fn base64_body(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend_from_slice(b"Content-Transfer-Encoding: base64\r\n\r\n");
    out.extend_from_slice(&base64_lines(bytes));
}

/// The item in `storage` as a MIME message; `notes` take what was left behind.
fn mime(
    file: &Compound<'_>,
    storage: usize,
    header: usize,
    limits: &Limits,
    depth: u32,
    notes: &mut Vec<String>,
) -> Result<Vec<u8>, RedactError> {
    if depth > limits.max_attachment_depth {
        return Err(RedactError::Limit(format!(
            "messages nested deeper than {}",
            limits.max_attachment_depth
        )));
    }
    let item = outlook::item(file, storage, header).map_err(refusal)?;
    let mut out = Vec::new();
    if let Some(from) = item.from.as_ref().and_then(mailbox) {
        field(&mut out, "From", &from);
    }
    if let Some(to) = outlook::people_line(&item.to, mailbox) {
        field(&mut out, "To", &to);
    }
    if let Some(cc) = outlook::people_line(&item.cc, mailbox) {
        field(&mut out, "Cc", &cc);
    }
    if let Some(subject) = &item.subject {
        field(&mut out, "Subject", subject);
    }
    if let Some(date) = item.date {
        field(&mut out, "Date", &date.to_rfc2822());
    }
    out.extend_from_slice(b"MIME-Version: 1.0\r\n");
    let mut body = Vec::new();
    let (subtype, text) = match item.body(limits) {
        Some(Body::Html(html)) => ("html", html),
        Some(Body::Text(text)) => ("plain", text),
        Some(Body::Rtf(rtf)) => {
            let mut builder = Builder::default();
            read_rtf(&rtf, limits, &mut builder).map_err(refusal)?;
            notes.push("the RTF body is answered as plain text".to_string());
            ("plain", builder.finish().full_text().into_owned())
        }
        None => ("plain", String::new()),
    };
    body.extend_from_slice(
        format!("Content-Type: text/{subtype}; charset=\"utf-8\"\r\n").as_bytes(),
    );
    base64_body(&mut body, text.as_bytes());
    let attachments = item.attachments();
    if attachments.is_empty() {
        out.extend_from_slice(&body);
        return Ok(out);
    }
    let boundary = format!("docsieve-{depth}-{storage}-{}", out.len());
    out.extend_from_slice(
        format!("Content-Type: multipart/mixed; boundary=\"{boundary}\"\r\n\r\n").as_bytes(),
    );
    out.extend_from_slice(format!("--{boundary}\r\n").as_bytes());
    out.extend_from_slice(&body);
    for attached in attachments {
        let mut part = Vec::new();
        match attached.content {
            Content::Data(data) => {
                let mime = match attached.mime.contains('/') && attached.mime.is_ascii() {
                    true => attached.mime.replace(['\r', '\n', ';', '"'], ""),
                    false => "application/octet-stream".to_string(),
                };
                part.extend_from_slice(format!("Content-Type: {mime}\r\n").as_bytes());
                let name = encoded(&attached.filename.replace(['"', '\\', '\r', '\n'], "_"));
                part.extend_from_slice(
                    format!("Content-Disposition: attachment; filename=\"{name}\"\r\n").as_bytes(),
                );
                base64_body(&mut part, &data);
            }
            Content::Message(inner) => {
                let message = mime(file, inner, 24, limits, depth + 1, notes)?;
                part.extend_from_slice(b"Content-Type: message/rfc822\r\n\r\n");
                part.extend_from_slice(&message);
            }
            Content::Object(_) => {
                // Not named: its name may name a person, and nothing here masks it.
                notes.push(
                    "an embedded OLE object removed: objects inside Outlook items are not \
                     rewritten"
                        .to_string(),
                );
                continue;
            }
        }
        out.extend_from_slice(format!("\r\n--{boundary}\r\n").as_bytes());
        out.extend_from_slice(&part);
    }
    out.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    Ok(out)
}

pub fn msg(
    bytes: &[u8],
    limits: &Limits,
    masker: &mut dyn Masker,
) -> Result<Redacted, RedactError> {
    let file = Compound::open(bytes).map_err(refusal)?;
    let mut notes = vec![
        "answered as e-mail (.eml): the item's transport headers and other Outlook properties \
         are not carried over"
            .to_string(),
    ];
    let message = mime(&file, 0, 32, limits, 0, &mut notes)?;
    let mut redacted = super::eml::eml(&message, limits, masker)?;
    notes.append(&mut redacted.notes);
    redacted.notes = notes;
    Ok(redacted)
}
