//! PDF: the file parsed once by `lopdf` (metadata, the encryption flag, page images), its text layer read
//! page by page by `pdf-extract` from that parse (each page inside `catch_unwind`: it has a history of
//! panics on odd fonts; a failing page costs itself). Encrypted files that the empty user password
//! does not open are `encrypted_document` (both crates would otherwise return empty text). Right-to-left
//! text is put in logical order (`bidi`) and line-end hyphenation joined; pages without a usable text
//! layer are drawn at 300 dpi (`raster`) and read by OCR, in page order among the text pages.

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

use super::super::error::ExtractError;
use super::super::limits::Limits;
use crate::model::{Builder, Element, ElementKind};

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
    built_in_type1_encodings(&mut document);
    let mut pages = Vec::with_capacity(page_count as usize);
    for number in 1..=page_count {
        limits.check_pages(number as usize - 1, page_count as usize, "read")?;
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
    let usable: Vec<bool> = pages.iter().map(|page| usable_text(page)).collect();
    // Pages without a usable text layer are drawn and read by OCR; text pages stay text.
    let scanned: Vec<u32> = (1..=page_count)
        .filter(|number| !usable[*number as usize - 1])
        .collect();
    // Pages are drawn and recognised a batch at a time, side by side (Tesseract itself stays
    // single-threaded): a drawn A4 page is 8.7 million pixels, so a file of a thousand blank pages
    // never holds more than a batch of them, and the document's clock is checked between batches.
    let mut recognised: Vec<Vec<super::ocr::OcrText>> = vec![Vec::new(); pages.len()];
    limits.check_ocr_pages(scanned.len())?;
    let rasteriser = match scanned.is_empty() {
        true => None,
        false => super::raster::Rasteriser::open(bytes),
    };
    for (done, batch) in scanned.chunks(super::ocr::threads()).enumerate() {
        limits.check_pages(done * super::ocr::threads(), scanned.len(), "recognised")?;
        let (images, image_pages) =
            scanned_page_images(rasteriser.as_ref(), &document, batch, builder);
        for (result, page) in super::ocr::recognise_all(&images)
            .into_iter()
            .zip(image_pages)
        {
            recognised[page as usize - 1].push(result?);
        }
    }
    let ocr_pages: Vec<&super::ocr::OcrText> = recognised.iter().flatten().collect();
    // The same rule as for a text layer: OCR text counts when it would count as a page's text.
    let read_by_ocr = ocr_pages.iter().any(|r| usable_text(&r.text));
    if encrypted && !usable.contains(&true) && !read_by_ocr {
        return Err(ExtractError::EncryptedDocument);
    }
    if !ocr_pages.is_empty() {
        let mean = ocr_pages.iter().map(|r| r.confidence).sum::<f32>() / ocr_pages.len() as f32;
        builder.field("ocr.confidence", f64::from(mean));
        builder.field("ocr.pages", scanned.len() as u64);
    }
    for (index, page) in pages.iter().enumerate() {
        let number = index as u32 + 1;
        if usable[index] {
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
        }
        for result in &recognised[index] {
            super::ocr::push_text(result, number, builder);
        }
        if index + 1 < pages.len() {
            builder.document.elements.push(Element {
                page: Some(number),
                ..Element::new(ElementKind::PageBreak, "")
            });
        }
    }
    Ok(())
}

/// Whether a page's text layer is worth keeping: ten letters or digits at least, and not mostly
/// characters that a font without a usable character map leaves behind (replacement characters,
/// private-use code points, control characters). A page that fails this is drawn and read by OCR.
pub(crate) fn usable_text(page: &str) -> bool {
    let mut readable = 0usize;
    let mut unreadable = 0usize;
    for c in page.chars().filter(|c| !c.is_whitespace()) {
        if c.is_alphanumeric() {
            readable += 1;
        } else if c == '\u{fffd}'
            || c.is_control()
            || ('\u{e000}'..='\u{f8ff}').contains(&c)
            || ('\u{f0000}'..='\u{10ffff}').contains(&c)
        {
            unreadable += 1;
        }
    }
    readable >= 10 && unreadable * 2 < readable + unreadable
}

/// The images to recognise for the pages numbered in `scanned`, with the page each belongs to: every
/// page drawn whole at 300 dpi (images in any filter, vector outlines); a page the renderer cannot
/// draw is listed in the quality signals' damaged parts and falls back to the images placed on it
/// that Leptonica reads (DCT as it is, raw and Flate pixels as PNM).
fn scanned_page_images(
    rasteriser: Option<&super::raster::Rasteriser>,
    document: &lopdf::Document,
    scanned: &[u32],
    builder: &mut Builder,
) -> (Vec<Vec<u8>>, Vec<u32>) {
    let (mut images, mut image_pages) = (Vec::new(), Vec::new());
    if scanned.is_empty() {
        return (images, image_pages);
    }
    let drawn = match rasteriser {
        Some(rasteriser) => rasteriser.pages(scanned),
        None => vec![Err("the PDF renderer cannot open the file".to_string()); scanned.len()],
    };
    let page_ids = document.get_pages();
    for (&number, drawn) in scanned.iter().zip(drawn) {
        match drawn {
            Ok(image) => {
                images.push(image);
                image_pages.push(number);
            }
            Err(why) => {
                builder.damaged_parts.push(why);
                for image in page_ids
                    .get(&number)
                    .map(|&id| page_images(document, id))
                    .unwrap_or_default()
                {
                    images.push(image);
                    image_pages.push(number);
                }
            }
        }
    }
    (images, image_pages)
}

/// pdf-extract parses the program of every embedded Type 1 font on every page to learn its built-in
/// encoding (a parser-combinator pass over the whole program: more than half of its time on a TeX
/// paper), and uses it only when the font dictionary names no `Encoding`. Here each program is read
/// once per document, and only its clear-text part (the encoding is there, before `eexec`; the
/// encrypted glyph data after it is most of the program); its built-in encoding is written into each
/// font that names none as an `Encoding` whose `Differences` list it (pdf-extract builds the same table
/// from either), and `FontFile` is dropped from the descriptors so that pdf-extract parses no program.
/// A program that does not parse gets an empty `Differences` (pdf-extract's base table, ASCII and
/// Latin-1): pdf-extract would have panicked on it and lost the page. Fonts placed directly inside a resource
/// dictionary (not as objects of their own) are left as they are.
pub(crate) fn built_in_type1_encodings(document: &mut lopdf::Document) {
    use lopdf::{Dictionary, Object, ObjectId};
    // (font, its descriptor, its program, whether the font names an encoding)
    let mut fonts: Vec<(ObjectId, ObjectId, ObjectId, bool)> = Vec::new();
    for (&id, object) in &document.objects {
        let Ok(font) = object.as_dict() else {
            continue;
        };
        if font.get(b"Subtype").and_then(Object::as_name).ok() != Some(b"Type1".as_slice()) {
            continue;
        }
        let Ok(&Object::Reference(descriptor)) = font.get(b"FontDescriptor") else {
            continue;
        };
        let program = document
            .objects
            .get(&descriptor)
            .and_then(|object| object.as_dict().ok())
            .and_then(|descriptor| descriptor.get(b"FontFile").ok());
        if let Some(&Object::Reference(program)) = program {
            fonts.push((id, descriptor, program, font.has(b"Encoding")));
        }
    }
    let mut encodings: HashMap<ObjectId, Object> = HashMap::new();
    for &(font, _, program, named) in &fonts {
        if named {
            continue;
        }
        let encoding = encodings
            .entry(program)
            .or_insert_with(|| {
                let mut codes = document
                    .objects
                    .get(&program)
                    .and_then(|object| object.as_stream().ok())
                    .and_then(|stream| {
                        let bytes = stream
                            .decompressed_content()
                            .unwrap_or_else(|_| stream.content.clone());
                        let clear = match memchr::memmem::find(&bytes, b"eexec") {
                            Some(at) => &bytes[..at + 5],
                            None => &bytes[..],
                        };
                        catch_unwind(AssertUnwindSafe(|| {
                            type1_encoding_parser::get_encoding_map(clear)
                        }))
                        .ok()?
                        .ok()
                    })
                    .map(|map| map.into_iter().collect::<Vec<(u32, Vec<u8>)>>())
                    .unwrap_or_default();
                codes.sort_unstable();
                let differences = codes
                    .into_iter()
                    .flat_map(|(code, name)| [Object::Integer(i64::from(code)), Object::Name(name)])
                    .collect();
                let mut encoding = Dictionary::new();
                encoding.set("Differences", Object::Array(differences));
                Object::Dictionary(encoding)
            })
            .clone();
        if let Some(Object::Dictionary(font)) = document.objects.get_mut(&font) {
            font.set("Encoding", encoding);
        }
    }
    for &(_, descriptor, _, _) in &fonts {
        if let Some(Object::Dictionary(descriptor)) = document.objects.get_mut(&descriptor) {
            descriptor.remove(b"FontFile");
        }
    }
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
