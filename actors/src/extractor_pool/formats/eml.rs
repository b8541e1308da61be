//! E-mail (RFC 822 / MIME): headers, text and HTML bodies, attachments extracted as child documents.
//! Whole-file UTF-16 messages are transcoded before parsing. PGP/S-MIME encrypted messages are reported
//! as `encrypted_document`.

use mail_parser::{MessageParser, MimeHeaders};

use super::super::error::ExtractError;
use super::super::model::{Attachment, Builder, Element, ElementKind};

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

/// Display names of the sender and recipients: people, for the masker.
pub fn display_names(bytes: &[u8]) -> Vec<String> {
    let Some(message) = MessageParser::default().parse(bytes) else {
        return Vec::new();
    };
    [message.from(), message.to(), message.cc()]
        .into_iter()
        .flatten()
        .flat_map(|address| {
            address
                .iter()
                .filter_map(|addr| addr.name().map(str::to_string))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// `extract_child` reads an attachment (recursion bounded by the caller).
pub fn extract(
    bytes: &[u8],
    limits: &super::super::limits::Limits,
    builder: &mut Builder,
    mut extract_child: impl FnMut(&[u8]) -> Result<super::super::model::Document, ExtractError>,
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
    for (key, value) in headers {
        if let Some(value) = value {
            builder.field(&format!("email.{key}"), value.clone());
            builder.push(Element::new(
                ElementKind::EmailHeader,
                format!("{key}: {value}"),
            ));
        }
    }
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
    if let Some(text) = message.body_text(0) {
        for block in text.split("\n\n") {
            builder.push(Element::new(ElementKind::Paragraph, block));
        }
        has_body = true;
    } else if let Some(html) = message.body_html(0) {
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
