//! E-mail (RFC 822 / MIME): headers, text and HTML bodies, attachments extracted as child documents.
//! Whole-file UTF-16 and UTF-32 messages are transcoded before parsing; a text part that declares no
//! charset and is not UTF-8 is decoded by `encoding::decode` (its legacy 8-bit charset detected as a
//! file's would be). PGP/S-MIME encrypted messages are reported as `encrypted_document`.

use std::borrow::Cow;

use mail_parser::{Message, MessageParser, MessagePart, MimeHeaders, PartType};

use super::super::error::ExtractError;
use crate::model::{Attachment, Builder, Element, ElementKind};

fn address_list(address: Option<&mail_parser::Address<'_>>) -> Option<String> {
    let address = address?;
    let parts: Vec<String> = address
        .iter()
        .map(|addr| match (addr.name(), addr.address()) {
            (Some(name), Some(mail)) => format!("{name} <{mail}>"),
            (None, Some(mail)) => mail.to_string(),
            (Some(name), None) => name.to_string(),
            (None, None) => String::new(),
        })
        .filter(|s| !s.is_empty())
        .collect();
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// The bytes to parse: a message in UTF-16 or UTF-32, or in an 8-bit charset that no part declares,
/// transcoded whole (headers included); one that declares charsets as it is, each part decoded by its
/// own (decoding it whole would decode those parts twice) and its undeclared parts by the file
/// decoder ([`part_text`]).
pub fn message_bytes<'b>(bytes: &'b [u8], decoded: &'b super::encoding::Decoded) -> &'b [u8] {
    static CHARSET: std::sync::LazyLock<Option<aho_corasick::AhoCorasick>> =
        std::sync::LazyLock::new(|| {
            aho_corasick::AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .build(["charset="])
                .ok()
        });
    let wide = decoded.encoding.starts_with("UTF-16") || decoded.encoding.starts_with("UTF-32");
    let undeclared_8_bit = || {
        decoded.encoding != "UTF-8"
            && !CHARSET
                .as_ref()
                .is_some_and(|charset| charset.is_match(bytes))
    };
    if wide || undeclared_8_bit() {
        decoded.text.as_bytes()
    } else {
        bytes
    }
}

/// A body part's text: as decoded by the charset it declares; when it declares none and its bytes are
/// not UTF-8 (the parser read them with U+FFFD in place of every 8-bit byte), its transfer-decoded
/// bytes through the file decoder.
pub fn part_text<'m>(message: &'m Message<'m>, part: &'m MessagePart<'m>) -> Option<Cow<'m, str>> {
    let text = match &part.body {
        PartType::Text(text) | PartType::Html(text) => text,
        _ => return None,
    };
    let declared = part
        .content_type()
        .and_then(|ct| ct.attribute("charset"))
        .is_some();
    if declared || !text.contains('\u{FFFD}') {
        return Some(Cow::Borrowed(text.as_ref()));
    }
    let raw = message
        .raw_message
        .get(part.offset_body as usize..part.offset_end as usize)?;
    let bytes = match part.encoding {
        mail_parser::Encoding::QuotedPrintable => {
            mail_parser::decoders::quoted_printable::quoted_printable_decode(raw)?
        }
        mail_parser::Encoding::Base64 => mail_parser::decoders::base64::base64_decode(raw)?,
        mail_parser::Encoding::None => raw.to_vec(),
    };
    Some(Cow::Owned(super::encoding::decode(&bytes).text))
}

/// The messages of an mbox (messages each opened by a `From ` separator line after a blank line, the
/// mboxrd way: a body line `>From ` stands for `From `), or the one message when the text is no mbox.
pub fn mbox_messages(bytes: &[u8]) -> Vec<Cow<'_, [u8]>> {
    let text = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if !text.starts_with(b"From ") {
        return vec![Cow::Borrowed(bytes)];
    }
    // Each message's span of the text, and whether a line of it is quoted.
    let mut spans: Vec<(usize, usize, bool)> = Vec::new();
    let mut previous_blank = true;
    let mut at = 0;
    for line in text.split_inclusive(|&b| b == b'\n') {
        let bare = line.strip_suffix(b"\n").unwrap_or(line);
        let bare = bare.strip_suffix(b"\r").unwrap_or(bare);
        at += line.len();
        if previous_blank && bare.starts_with(b"From ") {
            spans.push((at, at, false));
        } else if let Some((_, end, quoted)) = spans.last_mut() {
            *end = at;
            *quoted |= quoted_from(line).is_some();
        }
        previous_blank = bare.is_empty();
    }
    spans
        .into_iter()
        .map(|(start, end, quoted)| {
            let message = &text[start..end];
            if !quoted {
                return Cow::Borrowed(message);
            }
            // mboxrd: one '>' less before a quoted "From " line.
            let mut owned = Vec::with_capacity(message.len());
            for line in message.split_inclusive(|&b| b == b'\n') {
                owned.extend_from_slice(quoted_from(line).unwrap_or(line));
            }
            Cow::Owned(owned)
        })
        .filter(|message| !message.iter().all(u8::is_ascii_whitespace))
        .collect()
}

/// A line `>From `, `>>From `...: itself with one '>' less.
fn quoted_from(line: &[u8]) -> Option<&[u8]> {
    match line.iter().position(|&b| b != b'>') {
        Some(at) if at > 0 && line[at..].starts_with(b"From ") => Some(&line[1..]),
        _ => None,
    }
}

/// A message's headers, each as an `email_header` element (`key: value`) and an `email.<key>` field.
pub fn push_headers<const N: usize>(builder: &mut Builder, headers: [(&str, Option<String>); N]) {
    for (key, value) in headers {
        if let Some(value) = value {
            builder.field(&format!("email.{key}"), value.clone());
            builder.push(Element::new(
                ElementKind::EmailHeader,
                format!("{key}: {value}"),
            ));
        }
    }
}

/// `extract_child` reads an attachment (recursion bounded by the caller).
pub fn extract(
    bytes: &[u8],
    limits: &super::super::limits::Limits,
    builder: &mut Builder,
    mut extract_child: impl FnMut(&[u8]) -> Result<crate::model::Document, ExtractError>,
) -> Result<(), ExtractError> {
    let message = MessageParser::default()
        .parse(bytes)
        .ok_or_else(|| ExtractError::Malformed("not a MIME message".to_string()))?;
    let headers = [
        ("from", address_list(message.from())),
        ("to", address_list(message.to())),
        ("cc", address_list(message.cc())),
        ("subject", message.subject().map(str::to_string)),
        ("date", message.date().map(|d| d.to_rfc3339())),
        ("message_id", message.message_id().map(str::to_string)),
    ];
    push_headers(builder, headers);
    let encrypted = message.parts.iter().any(|part| {
        part.content_type().is_some_and(|ct| {
            let full =
                format!("{}/{}", ct.ctype(), ct.subtype().unwrap_or_default()).to_ascii_lowercase();
            full == "multipart/encrypted"
                || full == "application/pgp-encrypted"
                || full == "application/pkcs7-mime"
        })
    });
    if encrypted {
        return Err(ExtractError::EncryptedDocument);
    }
    let mut has_body = false;
    let text_part = message.text_part(0);
    let html_part = message.html_part(0);
    if let Some(text) = text_part
        .filter(|part| matches!(part.body, PartType::Text(_)))
        .and_then(|part| part_text(&message, part))
        .or_else(|| message.body_text(0))
    {
        for block in text.split("\n\n") {
            builder.push(Element::new(ElementKind::Paragraph, block));
        }
        has_body = true;
    } else if let Some(html) = html_part
        .and_then(|part| part_text(&message, part))
        .or_else(|| message.body_html(0))
    {
        super::html::extract(&html, limits, builder)?;
        has_body = true;
    }
    for part in message.attachments() {
        let filename = part.attachment_name().unwrap_or("attachment").to_string();
        let mime = part
            .content_type()
            .map(|ct| format!("{}/{}", ct.ctype(), ct.subtype().unwrap_or_default()))
            .unwrap_or_else(|| "application/octet-stream".to_string());
        let contents = part.contents();
        let (document, error) = match extract_child(contents) {
            Ok(document) => (Some(Box::new(document)), None),
            Err(error) => (None, Some(error.code().to_string())),
        };
        builder.document.attachments.push(Attachment {
            filename,
            mime,
            bytes: contents.len() as u64,
            document,
            error,
        });
    }
    if !has_body
        && builder
            .document
            .attachments
            .iter()
            .all(|a| a.document.is_none())
    {
        builder.push(Element::new(ElementKind::Paragraph, String::new()));
    }
    Ok(())
}
