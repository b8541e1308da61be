//! E-mail (EML, one message of an mbox) written back as a MIME message of the same tree: every header
//! that is not MIME structure is masked (decoded from its encoded words, masked with its name as the
//! reader reads it, `from: ...`, and written back as UTF-8 encoded words when it changed); each text
//! part is masked and each HTML part goes through the HTML writer (answered in UTF-8, base64); each
//! attachment is written back masked by the writer of its own format, recursively (a nested message
//! through this one), and an attachment without a writer, or one its writer cannot rewrite safely, is
//! removed and the answer says so. Names of attached files are masked. Preambles and epilogues of
//! multipart bodies (text no mail client shows) are dropped.

use std::borrow::Cow;
use std::cell::Cell;

use base64::Engine as _;
use mail_parser::{ContentType, Message, MessageParser, MimeHeaders, PartType};

use super::{Masker, RedactError, Redacted};
use crate::extractor_pool::{decode_text, mail_part_text, mbox_messages, sniff, Limits};

thread_local! {
    /// Messages being written inside one another on this thread.
    static DEPTH: Cell<u32> = const { Cell::new(0) };
}

/// One level of nesting, given back when dropped.
struct Depth;

impl Depth {
    fn enter(limit: u32) -> Result<Depth, RedactError> {
        let depth = DEPTH.with(|d| {
            d.set(d.get() + 1);
            d.get()
        });
        let entered = Depth;
        if depth > limit.saturating_add(1) {
            return Err(RedactError::Limit(format!(
                "messages nested deeper than {limit}"
            )));
        }
        Ok(entered)
    }
}

impl Drop for Depth {
    fn drop(&mut self) {
        DEPTH.with(|d| d.set(d.get().saturating_sub(1)));
    }
}

fn malformed(error: impl std::fmt::Display) -> RedactError {
    RedactError::Malformed(format!("mail: {error}"))
}

/// The fields of a header block: each field's name and its raw bytes (folded lines included, without
/// the last line break), up to the blank line.
fn fields(head: &[u8]) -> Vec<(String, &[u8])> {
    let mut out: Vec<(String, std::ops::Range<usize>)> = Vec::new();
    let mut at = 0;
    for line in head.split_inclusive(|&b| b == b'\n') {
        let bare = line.strip_suffix(b"\n").unwrap_or(line);
        let bare = bare.strip_suffix(b"\r").unwrap_or(bare);
        if bare.is_empty() {
            break;
        }
        let end = at + bare.len();
        match (bare[0], out.last_mut()) {
            (b' ' | b'\t', Some((_, range))) => range.end = end,
            _ => {
                let name = bare
                    .iter()
                    .position(|&b| b == b':')
                    .map(|colon| String::from_utf8_lossy(&bare[..colon]).trim().to_string())
                    .unwrap_or_default();
                out.push((name, at..end));
            }
        }
        at += line.len();
    }
    out.into_iter()
        .map(|(name, range)| (name, &head[range]))
        .collect()
}

/// A field's value: unfolded, decoded (its encoded words too).
fn value_of(field: &[u8]) -> String {
    let raw = field
        .iter()
        .position(|&b| b == b':')
        .map_or(field, |colon| &field[colon + 1..]);
    let text = match std::str::from_utf8(raw) {
        Ok(text) => text.to_string(),
        Err(_) => decode_text(raw).text,
    };
    let unfolded: String = text
        .split(['\r', '\n'])
        .filter(|line| !line.is_empty())
        .collect();
    decoded_words(unfolded.trim())
}

/// `=?charset?B?...?=` and `=?charset?Q?...?=` decoded; the space between two encoded words dropped.
fn decoded_words(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    let mut after_word = false;
    while let Some(at) = rest.find("=?") {
        let (before, from) = rest.split_at(at);
        let word = from[2..].splitn(3, '?').collect::<Vec<_>>();
        let decoded = (word.len() == 3)
            .then(|| word[2].find("?=").map(|end| (&word[2][..end], end)))
            .flatten()
            .and_then(|(text, end)| {
                let charset = encoding_rs::Encoding::for_label(word[0].as_bytes())?;
                let bytes = match word[1] {
                    "B" | "b" => base64::engine::general_purpose::STANDARD_NO_PAD
                        .decode(text.trim_end_matches('='))
                        .ok()?,
                    "Q" | "q" => q_decoded(text),
                    _ => return None,
                };
                let length = 2 + word[0].len() + 1 + word[1].len() + 1 + end + 2;
                Some((charset.decode(&bytes).0.into_owned(), length))
            });
        match decoded {
            Some((text, length)) => {
                if !(after_word && before.trim().is_empty()) {
                    out.push_str(before);
                }
                out.push_str(&text);
                rest = &from[length..];
                after_word = true;
            }
            None => {
                out.push_str(before);
                out.push_str("=?");
                rest = &from[2..];
                after_word = false;
            }
        }
    }
    out.push_str(rest);
    out
}

fn q_decoded(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'_' => out.push(b' '),
            b'=' if i + 2 < bytes.len() => {
                match u8::from_str_radix(text.get(i + 1..i + 3).unwrap_or(""), 16) {
                    Ok(byte) => {
                        out.push(byte);
                        i += 2;
                    }
                    Err(_) => out.push(b'='),
                }
            }
            other => out.push(other),
        }
        i += 1;
    }
    out
}

/// A header value as written: as it is when ASCII, else the words from the first to the last that are
/// not ASCII as UTF-8 encoded words.
pub(super) fn encoded(value: &str) -> String {
    if value.is_ascii() {
        return value.to_string();
    }
    let words: Vec<(usize, &str)> = value
        .split(' ')
        .scan(0, |at, word| {
            let start = *at;
            *at += word.len() + 1;
            Some((start, word))
        })
        .collect();
    let first = words.iter().find(|(_, w)| !w.is_ascii()).map_or(0, |w| w.0);
    let last = words
        .iter()
        .rev()
        .find(|(_, w)| !w.is_ascii())
        .map_or(value.len(), |(at, w)| at + w.len());
    let mut out = value[..first].to_string();
    let span = &value[first..last];
    let mut chunk_start = 0;
    let mut pieces = Vec::new();
    for (at, c) in span.char_indices() {
        if at + c.len_utf8() - chunk_start > 45 {
            pieces.push(&span[chunk_start..at]);
            chunk_start = at;
        }
    }
    pieces.push(&span[chunk_start..]);
    let engine = base64::engine::general_purpose::STANDARD;
    out.push_str(
        &pieces
            .iter()
            .map(|piece| format!("=?UTF-8?B?{}?=", engine.encode(piece)))
            .collect::<Vec<_>>()
            .join(" "),
    );
    out.push_str(&value[last..]);
    out
}

/// `bytes` in base64, in lines of 76.
pub(super) fn base64_lines(bytes: &[u8]) -> Vec<u8> {
    let encoded = base64::engine::general_purpose::STANDARD.encode(bytes);
    let mut out = Vec::with_capacity(encoded.len() + encoded.len() / 38);
    for line in encoded.as_bytes().chunks(76) {
        out.extend_from_slice(line);
        out.extend_from_slice(b"\r\n");
    }
    out
}

/// Headers never masked: MIME structure and the date.
const STRUCTURE: &[&str] = &[
    "content-type",
    "content-disposition",
    "content-transfer-encoding",
    "mime-version",
    "content-id",
    "content-language",
    "date",
];

struct Writer<'a, 'm> {
    message: &'a Message<'m>,
    limits: &'a Limits,
    masker: &'a mut dyn Masker,
    redacted: Redacted,
}

/// How a leaf part's body is written: as it was, or in base64 (a text part's in UTF-8).
enum Body {
    Raw,
    Base64 { utf8: bool },
}

impl Writer<'_, '_> {
    fn masked(&mut self, key: &str, value: &str) -> Result<(String, bool), RedactError> {
        let (written, changed) = super::masked_with_key(Some(key), value, self.masker)?;
        self.redacted.left.push_str(&written);
        self.redacted.left.push('\n');
        Ok((written, changed))
    }

    /// A `Content-Type` or `Content-Disposition` field written again when a file name in it changed
    /// or `charset` must be UTF-8.
    fn content_field(
        &mut self,
        name: &str,
        parsed: Option<&ContentType<'_>>,
        raw: &[u8],
        utf8: bool,
        out: &mut Vec<u8>,
    ) -> Result<(), RedactError> {
        let Some(parsed) = parsed else {
            out.extend_from_slice(raw);
            out.extend_from_slice(b"\r\n");
            return Ok(());
        };
        let mut changed = utf8 && name.eq_ignore_ascii_case("content-type");
        let mut attributes: Vec<(String, String)> = Vec::new();
        for attribute in parsed.attributes().unwrap_or_default() {
            let key = attribute.name.to_ascii_lowercase();
            let mut value = attribute.value.to_string();
            if key == "name" || key == "filename" {
                let (written, masked) = self.masked("filename", &value)?;
                changed |= masked;
                value = written;
            }
            if key == "charset" && utf8 {
                continue;
            }
            attributes.push((attribute.name.to_string(), value));
        }
        if !changed {
            out.extend_from_slice(raw);
            out.extend_from_slice(b"\r\n");
            return Ok(());
        }
        let mut field = format!("{name}: {}", parsed.ctype());
        if let Some(subtype) = parsed.subtype() {
            field.push('/');
            field.push_str(subtype);
        }
        if utf8 && name.eq_ignore_ascii_case("content-type") {
            field.push_str("; charset=\"utf-8\"");
        }
        for (key, value) in attributes {
            let value = encoded(&value).replace(['"', '\\'], "_");
            field.push_str(&format!(";\r\n\t{key}=\"{value}\""));
        }
        out.extend_from_slice(field.as_bytes());
        out.extend_from_slice(b"\r\n");
        Ok(())
    }

    /// The part's header block written, masked.
    fn headers(&mut self, id: usize, body: &Body, out: &mut Vec<u8>) -> Result<(), RedactError> {
        let message = self.message;
        let part = &message.parts[id];
        let head = message
            .raw_message
            .get(part.offset_header as usize..part.offset_body as usize)
            .unwrap_or_default();
        let utf8 = matches!(body, Body::Base64 { utf8: true });
        let fields = fields(head);
        for (name, field) in &fields {
            let lower = name.to_ascii_lowercase();
            match lower.as_str() {
                "content-type" => {
                    self.content_field(name, part.content_type(), field, utf8, out)?
                }
                "content-disposition" => {
                    self.content_field(name, part.content_disposition(), field, false, out)?
                }
                "content-transfer-encoding" if matches!(body, Body::Base64 { .. }) => {
                    out.extend_from_slice(b"Content-Transfer-Encoding: base64\r\n");
                }
                _ if STRUCTURE.contains(&lower.as_str()) => {
                    out.extend_from_slice(field);
                    out.extend_from_slice(b"\r\n");
                }
                _ => {
                    let value = value_of(field);
                    let (written, changed) = self.masked(&lower, &value)?;
                    if changed {
                        out.extend_from_slice(
                            format!("{name}: {}\r\n", encoded(&written)).as_bytes(),
                        );
                    } else {
                        out.extend_from_slice(field);
                        out.extend_from_slice(b"\r\n");
                    }
                }
            }
        }
        if matches!(body, Body::Base64 { .. })
            && !fields
                .iter()
                .any(|(n, _)| n.eq_ignore_ascii_case("content-transfer-encoding"))
        {
            out.extend_from_slice(b"Content-Transfer-Encoding: base64\r\n");
        }
        out.extend_from_slice(b"\r\n");
        Ok(())
    }

    /// Part `id` written; false when it was removed.
    fn part(&mut self, id: usize, out: &mut Vec<u8>) -> Result<bool, RedactError> {
        let message = self.message;
        let part = &message.parts[id];
        let name = part
            .attachment_name()
            .unwrap_or("an attachment")
            .to_string();
        match &part.body {
            PartType::Multipart(children) => {
                let boundary = part
                    .content_type()
                    .and_then(|ct| ct.attribute("boundary"))
                    .ok_or_else(|| malformed("a multipart part without a boundary"))?
                    .to_string();
                self.headers(id, &Body::Raw, out)?;
                for &child in children {
                    let mut written = Vec::new();
                    if self.part(child as usize, &mut written)? {
                        out.extend_from_slice(format!("--{boundary}\r\n").as_bytes());
                        out.extend_from_slice(&written);
                        out.extend_from_slice(b"\r\n");
                    }
                }
                out.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
            }
            PartType::Text(_) => {
                let text = mail_part_text(message, part).unwrap_or(Cow::Borrowed(""));
                let replaces = match text.trim().is_empty() {
                    true => Vec::new(),
                    false => self.masker.replacements(&text)?,
                };
                let written = super::apply(&text, &replaces);
                self.redacted.left.push_str(&written);
                self.redacted.left.push('\n');
                self.headers(id, &Body::Base64 { utf8: true }, out)?;
                out.extend_from_slice(&base64_lines(written.as_bytes()));
            }
            PartType::Html(_) => {
                let html = mail_part_text(message, part).unwrap_or(Cow::Borrowed(""));
                let written = super::html::html(html.as_bytes(), self.limits, self.masker)?;
                let bytes = self.redacted.absorb(written, "the HTML body");
                self.headers(id, &Body::Base64 { utf8: true }, out)?;
                out.extend_from_slice(&base64_lines(&bytes));
            }
            PartType::Message(_) => {
                let inner = eml(part.contents(), self.limits, self.masker)?;
                let bytes = self.redacted.absorb(inner, "a message inside");
                self.headers(id, &Body::Raw, out)?;
                out.extend_from_slice(&bytes);
            }
            PartType::Binary(bytes) | PartType::InlineBinary(bytes) => {
                let format = sniff(bytes).ok().map(|(format, _)| format);
                let written = match format {
                    Some(format) => super::redact(bytes, format, self.limits, self.masker),
                    None => Err(RedactError::Unsupported("an unknown format".to_string())),
                };
                match written {
                    Ok(written) => {
                        let bytes = self.redacted.absorb(written, &format!("attachment {name}"));
                        self.headers(id, &Body::Base64 { utf8: false }, out)?;
                        out.extend_from_slice(&base64_lines(&bytes));
                    }
                    Err(RedactError::Limit(why)) => return Err(RedactError::Limit(why)),
                    Err(why) => {
                        // The name as the answer may tell it: masked.
                        let (shown, _) = self.masked("filename", &name)?;
                        self.redacted
                            .notes
                            .push(format!("attachment {shown} removed: {why}"));
                        return Ok(false);
                    }
                }
            }
        }
        Ok(true)
    }
}

pub fn eml(
    bytes: &[u8],
    limits: &Limits,
    masker: &mut dyn Masker,
) -> Result<Redacted, RedactError> {
    let _depth = Depth::enter(limits.max_attachment_depth)?;
    let messages = mbox_messages(bytes);
    if messages.is_empty() {
        return Err(malformed("no message in the file"));
    }
    let [message] = &messages[..] else {
        return Err(RedactError::Unsupported(format!(
            "an mbox of {} messages cannot be given back in its own format yet: send each message \
             on its own",
            messages.len()
        )));
    };
    let parsed = MessageParser::default()
        .parse(message.as_ref())
        .ok_or_else(|| malformed("not a MIME message"))?;
    let mut writer = Writer {
        message: &parsed,
        limits,
        masker,
        redacted: Redacted::default(),
    };
    let mut out = Vec::with_capacity(bytes.len());
    writer.part(0, &mut out)?;
    let mut redacted = writer.redacted;
    if message.len() < bytes.len() {
        redacted
            .notes
            .push("the mbox separator line (From ...) removed".to_string());
    }
    redacted.bytes = out;
    Ok(redacted)
}
