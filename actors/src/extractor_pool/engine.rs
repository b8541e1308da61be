//! `extract(bytes) -> Document`: detects the format from content and runs its reader. Pure and
//! synchronous; the extractor pool runs it on a CPU pool inside `catch_unwind`.

use std::panic::{catch_unwind, AssertUnwindSafe};

use super::error::ExtractError;
use super::formats::compound::Compound;
use super::formats::detect::{self, Format};
use super::formats::encoding::{self, Decoded};
use super::formats::{
    csv, doc, docx, eml, epub, html, msg, ocr, odf, pdf, ppt, pptx, rtf, txt, xlsx, xml,
};
use super::limits::Limits;
use super::quality;
use crate::model::{Builder, Document, Element, ElementKind};

fn is_binary_container(bytes: &[u8]) -> bool {
    bytes.starts_with(b"%PDF-")
        || bytes.starts_with(b"PK\x03\x04")
        || bytes.starts_with(&[0xD0, 0xCF, 0x11, 0xE0])
        || bytes.starts_with(b"\x89PNG")
        || bytes.starts_with(&[0xFF, 0xD8, 0xFF])
        || bytes.starts_with(b"II*\0")
        || bytes.starts_with(b"MM\0*")
        || bytes.starts_with(&[0x1F, 0x8B])
        || detect::is_rtf(bytes)
}

/// The detected format and, for text formats, the decoded text.
pub fn sniff(bytes: &[u8]) -> Result<(Format, Option<Decoded>), ExtractError> {
    sniff_parsed(bytes).map(|(format, decoded, _)| (format, decoded))
}

/// [`sniff`], with the compound file detection opened (legacy Office files, Outlook items).
fn sniff_parsed(
    bytes: &[u8],
) -> Result<(Format, Option<Decoded>, Option<Compound<'_>>), ExtractError> {
    let decoded = (!is_binary_container(bytes)).then(|| encoding::decode(bytes));
    let (format, compound) =
        detect::detect_parsed(bytes, decoded.as_ref().map(|d| d.text.as_str()))?;
    Ok((format, decoded, compound))
}

pub fn extract(bytes: &[u8], limits: &Limits) -> Result<Document, ExtractError> {
    extract_at(bytes, &limits.started_now(), 0)
}

/// The compound file detection opened for a legacy Office file or an Outlook item.
fn opened(compound: Option<Compound<'_>>) -> Result<Compound<'_>, ExtractError> {
    compound.ok_or_else(|| ExtractError::Malformed("no compound file".to_string()))
}

/// The text again with the charset the document declares, when the first reading was a guess.
fn with_declared(bytes: &[u8], declared: Option<String>, decoded: Decoded) -> Decoded {
    match declared {
        Some(label) if decoded.guessed => encoding::decode_declared(bytes, Some(&label)),
        _ => decoded,
    }
}

/// `result_too_large` when the text is beyond what the caller takes (checked on the decoded input of a
/// plain text or CSV file before it is read, and on every document's text once it is).
fn check_text_size(bytes: usize, limits: &Limits) -> Result<(), ExtractError> {
    match limits.max_text_bytes {
        Some(max) if bytes as u64 > max => Err(ExtractError::ResultTooLarge(format!(
            "{bytes} bytes of text, more than the {max} this request takes"
        ))),
        _ => Ok(()),
    }
}

fn extract_at(bytes: &[u8], limits: &Limits, depth: u32) -> Result<Document, ExtractError> {
    if bytes.len() as u64 > limits.max_bytes {
        return Err(ExtractError::LimitExceeded(format!(
            "larger than {} bytes",
            limits.max_bytes
        )));
    }
    let (format, decoded, compound) = sniff_parsed(bytes)?;
    if let (Format::Txt | Format::Csv, Some(decoded)) = (format, &decoded) {
        check_text_size(decoded.text.len(), limits)?;
    }
    let decoding_errors = decoded.as_ref().is_some_and(|d| d.had_errors);
    let mut builder = Builder::default();
    builder.document.metadata.format = format.name().to_string();
    builder.document.metadata.mime = format.mime().to_string();
    builder.document.metadata.bytes = bytes.len() as u64;
    // An attachment or embedded file, read one level deeper (bounded by the limits).
    let mut child = |child: &[u8]| {
        if depth + 1 > limits.max_attachment_depth {
            return Err(ExtractError::LimitExceeded(
                "attachments nested too deep".to_string(),
            ));
        }
        extract_at(child, limits, depth + 1)
    };
    // Every reader runs inside catch_unwind: a parser bug fails this document, never the caller.
    let read = catch_unwind(AssertUnwindSafe(|| -> Result<(), ExtractError> {
        match format {
            Format::Txt | Format::Csv => {
                let decoded = decoded.ok_or(ExtractError::NoText)?;
                builder.document.metadata.encoding = Some(decoded.encoding.to_string());
                if format == Format::Csv {
                    csv::extract(&decoded.text, limits, &mut builder)?;
                } else {
                    txt::extract(&decoded.text, &mut builder);
                }
            }
            Format::Html => {
                let decoded = decoded.ok_or(ExtractError::NoText)?;
                let decoded = with_declared(bytes, html::declared_charset(bytes), decoded);
                builder.document.metadata.encoding = Some(decoded.encoding.to_string());
                html::extract(&decoded.text, limits, &mut builder)?;
            }
            Format::Xml => {
                let decoded = decoded.ok_or(ExtractError::NoText)?;
                let decoded = with_declared(bytes, xml::declared_encoding(bytes), decoded);
                builder.document.metadata.encoding = Some(decoded.encoding.to_string());
                xml::extract(&decoded.text, limits, &mut builder)?;
            }
            Format::Eml => {
                let decoded = decoded.ok_or(ExtractError::NoText)?;
                builder.document.metadata.encoding = Some(decoded.encoding.to_string());
                let whole = eml::message_bytes(bytes, &decoded);
                let messages = eml::mbox_messages(whole);
                if messages.len() > 1 {
                    builder.field("email.messages", messages.len());
                }
                // One message, or an mbox's messages one after the other (each its headers and
                // body; the fields are the first message's).
                for (index, message) in messages.iter().enumerate() {
                    let first = std::mem::take(&mut builder.document.fields);
                    if index > 0 {
                        builder.push(Element::new(ElementKind::PageBreak, String::new()));
                    }
                    eml::extract(message, limits, &mut builder, &mut child)?;
                    if index > 0 {
                        builder.document.fields = first;
                    } else {
                        let read = std::mem::replace(&mut builder.document.fields, first);
                        builder.document.fields.extend(read);
                    }
                }
            }
            Format::Pdf => pdf::extract(bytes, limits, &mut builder)?,
            Format::Png | Format::Jpeg | Format::Tiff => {
                ocr::extract_image(bytes, limits, &mut builder)?
            }
            Format::Docx => docx::extract(bytes, limits, &mut builder)?,
            Format::Pptx => pptx::extract(bytes, limits, &mut builder)?,
            Format::Odt | Format::Odp => odf::extract(bytes, limits, &mut builder)?,
            Format::Epub => epub::extract(bytes, limits, &mut builder)?,
            Format::Rtf => rtf::extract(bytes, limits, &mut builder)?,
            Format::Doc => {
                doc::extract(opened(compound)?, limits, &mut builder, depth, &mut child)?
            }
            Format::Ppt => ppt::extract(opened(compound)?, limits, &mut builder)?,
            Format::Msg => {
                msg::extract(opened(compound)?, limits, &mut builder, depth, &mut child)?
            }
            Format::Xlsx | Format::Xls => xlsx::extract(bytes, limits, &mut builder)?,
            Format::Ods => {
                odf::refuse_encrypted(bytes, limits)?;
                xlsx::extract(bytes, limits, &mut builder)?
            }
        }
        Ok(())
    }));
    match read {
        Ok(result) => result?,
        Err(payload) => {
            let message = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "panic".to_string());
            return Err(ExtractError::EngineFailure(format!(
                "{} reader: {message}",
                format.name()
            )));
        }
    }
    let damaged_parts = std::mem::take(&mut builder.damaged_parts);
    let mut document = builder.finish();
    check_text_size(document.text.len(), limits)?;
    let attachment_text = document.attachments.iter().any(|a| a.document.is_some());
    if document.text.trim().is_empty() && !attachment_text {
        // Nothing readable where parts were damaged: the file is damaged, not empty.
        return Err(if damaged_parts.is_empty() {
            ExtractError::NoText
        } else {
            ExtractError::Malformed(damaged_parts.join("; "))
        });
    }
    let ocr_confidence = document
        .fields
        .get("ocr.confidence")
        .and_then(|v| v.as_f64());
    document.language = quality::language(&document.text);
    document.quality = quality::assess(&document, decoding_errors, ocr_confidence, damaged_parts);
    Ok(document)
}
