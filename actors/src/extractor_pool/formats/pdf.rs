//! PDF: the file parsed once by `lopdf` (metadata, the encryption flag, page images), its text layer read
//! page by page by `pdf-extract` from that parse (each page inside `catch_unwind`: it has a history of
//! panics on odd fonts; a failing page costs itself). Encrypted files that the empty user password
//! does not open are `encrypted_document` (both crates would otherwise return empty text). Right-to-left
//! text is put in logical order (`bidi`) and line-end hyphenation joined; pages without a text layer
//! have their images recognised by OCR.

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
    let mut document = parsed.map_err(|error| {
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
    // The text of each page from the document parsed above (pdf-extract's own entry points parse the
    // file again: a quarter of the time). A page whose reading fails or panics costs that page only
    // and is listed in the quality signals.
    if encrypted && document.decrypt("").is_err() {
        return Err(ExtractError::EncryptedDocument);
    }
    let mut pages = Vec::with_capacity(page_count as usize);
    for number in 1..=page_count {
        let mut text = String::new();
        let read = catch_unwind(AssertUnwindSafe(|| {
            let mut output = pdf_extract::PlainTextOutput::new(&mut text);
            pdf_extract::output_doc_page(&document, &mut output, number)
        }));
        match read {
            Ok(Ok(())) => {}
            Ok(Err(error)) => {
                builder
                    .damaged_parts
                    .push(format!("page {number}: {error}"));
                text.clear();
            }
            Err(_) => {
                builder
                    .damaged_parts
                    .push(format!("page {number}: the PDF text reader failed on it"));
                text.clear();
            }
        }
        pages.push(text);
    }
    let mut text_pages = 0;
    for (index, page) in pages.iter().enumerate() {
        let number = index as u32 + 1;
        if page.trim().chars().count() >= 10 {
            text_pages += 1;
        }
        let page = super::bidi::logical_order(page);
        let page = joined_hyphenation(&page);
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
    if text_pages == 0 && encrypted {
        return Err(ExtractError::EncryptedDocument);
    }
    // Pages with (almost) no text layer: OCR of the images drawn on them.
    let mut images = Vec::new();
    let mut image_pages = Vec::new();
    for (index, (_, page_id)) in document.get_pages().into_iter().enumerate() {
        let has_text = pages
            .get(index)
            .is_some_and(|p| p.trim().chars().count() >= 10);
        if has_text {
            continue;
        }
        for image in page_images(&document, page_id) {
            images.push(image);
            image_pages.push(index as u32 + 1);
        }
    }
    // Pages are recognised side by side; Tesseract itself stays single-threaded.
    let mut confidences = Vec::new();
    for (result, page) in super::ocr::recognise_all(&images)
        .into_iter()
        .zip(image_pages)
    {
        let result = result?;
        confidences.push(result.confidence);
        super::ocr::push_text(&result, page, builder);
    }
    if !confidences.is_empty() {
        let mean = confidences.iter().sum::<f32>() / confidences.len() as f32;
        builder.field("ocr.confidence", f64::from(mean));
        builder.field("ocr.pages", confidences.len() as u64);
    }
    Ok(())
}

/// A word hyphenated at the end of a line joined again (`compar-` + `ing` → `comparing`), as
/// `pdftotext` reads it: a letter, a hyphen ending the line, a lower-case letter starting the next.
fn joined_hyphenation(page: &str) -> std::borrow::Cow<'_, str> {
    if !page.contains("-\n") {
        return page.into();
    }
    let lines: Vec<&str> = page.split('\n').collect();
    let mut out = String::with_capacity(page.len());
    // Whether the previous line's hyphen was dropped and this line continues its word.
    let mut joined = false;
    for (index, line) in lines.iter().enumerate() {
        let line = if joined {
            line.trim_start()
        } else {
            if index > 0 {
                out.push('\n');
            }
            line
        };
        let next_lower = lines
            .get(index + 1)
            .and_then(|next| next.trim_start().chars().next())
            .is_some_and(char::is_lowercase);
        let hyphenated = line
            .strip_suffix('-')
            .and_then(|rest| rest.chars().last())
            .is_some_and(char::is_alphabetic);
        joined = hyphenated && next_lower;
        out.push_str(if joined {
            &line[..line.len() - 1]
        } else {
            line
        });
    }
    out.into()
}

/// The images drawn on a page, encoded so that Leptonica can read them: JPEG streams as they are,
/// uncompressed/Flate grey, RGB and indexed images as PNM.
fn page_images(document: &lopdf::Document, page_id: lopdf::ObjectId) -> Vec<Vec<u8>> {
    let Ok(images) = document.get_page_images(page_id) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for image in images {
        let filters = image.filters.clone().unwrap_or_default();
        if filters.iter().any(|f| f == "DCTDecode") {
            out.push(image.content.to_vec());
            continue;
        }
        let Ok(object) = document.get_object(image.id) else {
            continue;
        };
        let Ok(stream) = object.as_stream() else {
            continue;
        };
        let pixels = stream
            .decompressed_content()
            .unwrap_or_else(|_| stream.content.clone());
        let (width, height) = (image.width.max(0) as u32, image.height.max(0) as u32);
        if width == 0 || height == 0 || image.bits_per_component.unwrap_or(8) != 8 {
            continue;
        }
        let area = (width as usize) * (height as usize);
        let color_space = stream.dict.get(b"ColorSpace").ok().cloned();
        let color_space = match color_space {
            Some(lopdf::Object::Reference(id)) => document.get_object(id).ok().cloned(),
            other => other,
        };
        match color_space {
            Some(lopdf::Object::Name(name)) if name == b"DeviceGray" && pixels.len() >= area => {
                out.push(super::ocr::pnm(width, height, 1, &pixels[..area]));
            }
            Some(lopdf::Object::Name(name)) if name == b"DeviceRGB" && pixels.len() >= area * 3 => {
                out.push(super::ocr::pnm(width, height, 3, &pixels[..area * 3]));
            }
            Some(lopdf::Object::Array(parts))
                if parts.first().and_then(|p| p.as_name().ok()) == Some(b"Indexed".as_slice()) =>
            {
                let base_components = match parts.get(1) {
                    Some(lopdf::Object::Name(name)) if name == b"DeviceGray" => 1,
                    _ => 3,
                };
                let lookup = match parts.get(3) {
                    Some(lopdf::Object::String(bytes, _)) => bytes.clone(),
                    Some(lopdf::Object::Reference(id)) => document
                        .get_object(*id)
                        .ok()
                        .and_then(|o| o.as_stream().ok())
                        .map(|s| {
                            s.decompressed_content()
                                .unwrap_or_else(|_| s.content.clone())
                        })
                        .unwrap_or_default(),
                    _ => Vec::new(),
                };
                if pixels.len() < area {
                    continue;
                }
                let mut rgb = Vec::with_capacity(area * 3);
                for &index in &pixels[..area] {
                    let at = usize::from(index) * base_components;
                    if base_components == 1 {
                        let grey = lookup.get(at).copied().unwrap_or(255);
                        rgb.extend_from_slice(&[grey, grey, grey]);
                    } else {
                        rgb.extend_from_slice(lookup.get(at..at + 3).unwrap_or(&[255, 255, 255]));
                    }
                }
                out.push(super::ocr::pnm(width, height, 3, &rgb));
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_word_hyphenated_at_a_line_end_is_joined() {
        let join = |text: &str| super::joined_hyphenation(text).into_owned();
        assert_eq!(
            join("an objective compar-\ning all pairs"),
            "an objective comparing all pairs"
        );
        assert_eq!(
            join("dual-\n  encoder and multi-\nline-\nbreak"),
            "dualencoder and multilinebreak"
        );
        // Not a hyphenation: a dash before a capital, a number, a lone dash, the last line.
        for kept in ["Ankara -\nIzmir", "2024-\n2025", "-\nnext", "ends with-"] {
            assert_eq!(join(kept), kept);
        }
    }
}
