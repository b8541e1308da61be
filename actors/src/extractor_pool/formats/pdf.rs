//! PDF: the text layer page by page through `pdf-extract` (inside `catch_unwind`: it has a history of
//! panics on odd fonts), metadata and the encryption flag through `lopdf`. Encrypted files that the
//! empty user password does not open are `encrypted_document` (both crates would otherwise return
//! empty text). Pages without a text layer need OCR, which is not part of this version yet.

use std::panic::{catch_unwind, AssertUnwindSafe};

use super::super::error::ExtractError;
use super::super::limits::Limits;
use super::super::model::{Builder, Element, ElementKind};

/// A PDF text string: UTF-16BE with a BOM, or PDFDocEncoding (close enough to Latin-1 for metadata).
fn pdf_string(bytes: &[u8]) -> String {
    if bytes.starts_with(&[0xFE, 0xFF]) {
        let units: Vec<u16> = bytes[2..]
            .chunks_exact(2)
            .map(|c| u16::from_be_bytes([c[0], c[1]]))
            .collect();
        return String::from_utf16_lossy(&units);
    }
    bytes.iter().map(|&b| char::from(b)).collect()
}

fn info_field(document: &lopdf::Document, key: &[u8]) -> Option<String> {
    let info = document.trailer.get(b"Info").ok()?;
    let dictionary = match info {
        lopdf::Object::Reference(id) => document.get_object(*id).ok()?.as_dict().ok()?,
        lopdf::Object::Dictionary(dictionary) => dictionary,
        _ => return None,
    };
    match dictionary.get(key).ok()? {
        lopdf::Object::String(bytes, _) => {
            Some(pdf_string(bytes).trim().to_string()).filter(|s| !s.is_empty())
        }
        _ => None,
    }
}

pub fn extract(bytes: &[u8], limits: &Limits, builder: &mut Builder) -> Result<(), ExtractError> {
    let parsed = catch_unwind(AssertUnwindSafe(|| lopdf::Document::load_mem(bytes)))
        .map_err(|_| ExtractError::Malformed("the PDF structure could not be read".to_string()))?;
    let document = parsed.map_err(|error| {
        let message = error.to_string();
        if message.to_lowercase().contains("decrypt") || message.to_lowercase().contains("password")
        {
            ExtractError::EncryptedDocument
        } else {
            ExtractError::Malformed(format!("PDF: {message}"))
        }
    })?;
    let encrypted = document.is_encrypted();
    let page_count = document.get_pages().len() as u32;
    if page_count > limits.max_pages {
        return Err(ExtractError::LimitExceeded(format!(
            "more than {} pages",
            limits.max_pages
        )));
    }
    builder.document.metadata.pages = Some(page_count);
    builder.document.metadata.title = info_field(&document, b"Title");
    builder.document.metadata.author = info_field(&document, b"Author");
    builder.document.metadata.producer = info_field(&document, b"Producer");
    builder.document.metadata.created = info_field(&document, b"CreationDate");
    let metadata = builder.document.metadata.clone();
    for (key, value) in [
        ("pdf.title", metadata.title),
        ("pdf.author", metadata.author),
        ("pdf.producer", metadata.producer),
    ] {
        if let Some(value) = value {
            builder.field(key, value);
        }
    }
    let pages = catch_unwind(AssertUnwindSafe(|| {
        pdf_extract::extract_text_from_mem_by_pages(bytes)
    }));
    let pages = match pages {
        Ok(Ok(pages)) => pages,
        Ok(Err(error)) => {
            if encrypted {
                return Err(ExtractError::EncryptedDocument);
            }
            return Err(ExtractError::Malformed(format!("PDF text: {error}")));
        }
        Err(_) => {
            if encrypted {
                return Err(ExtractError::EncryptedDocument);
            }
            return Err(ExtractError::EngineFailure(
                "the PDF text extractor failed on this file".to_string(),
            ));
        }
    };
    let mut text_pages = 0;
    for (index, page) in pages.iter().enumerate() {
        let number = index as u32 + 1;
        if page.trim().chars().count() >= 10 {
            text_pages += 1;
        }
        for block in page.split("\n\n") {
            let block = block.trim();
            if !block.is_empty() {
                builder.push(Element {
                    page: Some(number),
                    ..Element::new(ElementKind::Paragraph, block)
                });
            }
        }
        if index + 1 < pages.len() {
            builder.document.elements.push(Element {
                page: Some(number),
                ..Element::new(ElementKind::PageBreak, "")
            });
        }
    }
    if text_pages == 0 {
        if encrypted {
            return Err(ExtractError::EncryptedDocument);
        }
        return Err(ExtractError::FormatNotAvailable("OCR of scanned PDF pages"));
    }
    Ok(())
}
