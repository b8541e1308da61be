//! PDF redacted for real: for each page, the glyphs of each found value are taken out of the page's
//! content stream (a `Tj` or `TJ` becomes a `TJ` whose number moves on by the glyph's width, so the
//! rest of the line keeps its place) and a filled box is drawn where they stood; nothing of the value
//! is left to extract, copy or search. The document information, XMP metadata, annotations, form
//! fields, bookmarks, embedded files, scripts and the structure tree (its alternate texts) are removed.
//!
//! The glyphs and their places come from pdf-extract (the extraction's own reader); the content stream
//! is walked beside it in the same order, and the two must count the same glyphs. A page where they do
//! not, where a value is drawn by a form XObject, or whose composite font's codes are not two bytes,
//! and a scanned page (no usable text layer, read by OCR as the reader does), is drawn to an image
//! with its values burned in instead (`pdf_burn`). An encrypted file is refused.

use lopdf::content::{Content, Operation};
use lopdf::{Dictionary, Document, Object, ObjectId};

use super::pdf_burn::{draw_pages, Draw};
use super::{Masker, RedactError, Redacted, Replace};
use crate::extractor_pool::{usable_text, Limits};

/// One glyph as pdf-extract placed it.
struct Glyph {
    /// The text rendering matrix (`a b c d e f`): text space to user space, font size excluded.
    trm: [f64; 6],
    /// Its width in text space units (a thousandth of the font size).
    width: f64,
    /// Character and word spacing applied after it.
    spacing: f64,
    size: f64,
    text: String,
}

#[derive(Default)]
struct Glyphs(Vec<Glyph>);

impl pdf_extract::OutputDev for Glyphs {
    fn begin_page(
        &mut self,
        _: u32,
        _: &pdf_extract::MediaBox,
        _: Option<(f64, f64, f64, f64)>,
    ) -> Result<(), pdf_extract::OutputError> {
        Ok(())
    }
    fn end_page(&mut self) -> Result<(), pdf_extract::OutputError> {
        Ok(())
    }
    fn output_character(
        &mut self,
        trm: &pdf_extract::Transform,
        width: f64,
        spacing: f64,
        font_size: f64,
        char: &str,
    ) -> Result<(), pdf_extract::OutputError> {
        self.0.push(Glyph {
            trm: [trm.m11, trm.m12, trm.m21, trm.m22, trm.m31, trm.m32],
            width,
            spacing,
            size: font_size,
            text: char.to_string(),
        });
        Ok(())
    }
    fn begin_word(&mut self) -> Result<(), pdf_extract::OutputError> {
        Ok(())
    }
    fn end_word(&mut self) -> Result<(), pdf_extract::OutputError> {
        Ok(())
    }
    fn end_line(&mut self) -> Result<(), pdf_extract::OutputError> {
        Ok(())
    }
}

fn malformed(error: impl std::fmt::Display) -> RedactError {
    RedactError::Malformed(format!("PDF: {error}"))
}

fn unsupported(why: String) -> RedactError {
    RedactError::Unsupported(why)
}

/// Where a glyph shown by the page's own content is: the operation and the code within it.
#[derive(Clone, Copy)]
struct Place {
    op: usize,
    /// The string within a `TJ` array (0 for `Tj`).
    string: usize,
    /// The code's first byte within that string, and its length.
    at: usize,
    len: usize,
}

/// The page's content stream walked as pdf-extract walks it: each glyph's place (None for one shown
/// by a form XObject, which is not rewritten).
struct Walk<'a> {
    doc: &'a Document,
    places: Vec<Option<Place>>,
}

impl<'a> Walk<'a> {
    /// How many bytes each code of `font` takes.
    fn code_length(&self, font: Option<&Dictionary>) -> Result<usize, RedactError> {
        let Some(font) = font else { return Ok(1) };
        if font.get(b"Subtype").and_then(Object::as_name).ok() != Some(b"Type0".as_slice()) {
            return Ok(1);
        }
        match font.get(b"Encoding").and_then(Object::as_name) {
            Ok(b"Identity-H" | b"Identity-V") => Ok(2),
            _ => Err(unsupported(
                "a composite font whose codes are not two bytes".to_string(),
            )),
        }
    }

    fn resolve(&self, object: &'a Object) -> Option<&'a Object> {
        match object {
            Object::Reference(id) => self.doc.get_object(*id).ok(),
            other => Some(other),
        }
    }

    /// `resources[kind][name]`, resolved.
    fn resource(&self, resources: &'a Dictionary, kind: &[u8], name: &[u8]) -> Option<&'a Object> {
        let group = self.resolve(resources.get(kind).ok()?)?.as_dict().ok()?;
        self.resolve(group.get(name).ok()?)
    }

    fn walk(
        &mut self,
        content: &Content,
        resources: &'a Dictionary,
        own: bool,
        depth: usize,
    ) -> Result<(), RedactError> {
        if depth > 8 {
            return Err(unsupported("form XObjects nested too deep".to_string()));
        }
        let mut font: Option<&Dictionary> = None;
        let mut saved: Vec<Option<&Dictionary>> = Vec::new();
        for (index, operation) in content.operations.iter().enumerate() {
            let operands = &operation.operands;
            match operation.operator.as_str() {
                "q" => saved.push(font),
                "Q" => font = saved.pop().unwrap_or(font),
                "Tf" => {
                    font = operands
                        .first()
                        .and_then(|name| name.as_name().ok())
                        .and_then(|name| self.resource(resources, b"Font", name))
                        .and_then(|font| font.as_dict().ok());
                }
                "Tj" | "TJ" => {
                    let length = self.code_length(font)?;
                    let strings: Vec<&[u8]> = match operation.operator.as_str() {
                        "Tj" => operands
                            .iter()
                            .filter_map(|o| o.as_str().ok())
                            .take(1)
                            .collect(),
                        _ => operands
                            .first()
                            .and_then(|a| a.as_array().ok())
                            .map(|items| items.iter().filter_map(|o| o.as_str().ok()).collect())
                            .unwrap_or_default(),
                    };
                    for (string, bytes) in strings.iter().enumerate() {
                        let mut at = 0;
                        while at < bytes.len() {
                            let len = length.min(bytes.len() - at);
                            self.places.push(own.then_some(Place {
                                op: index,
                                string,
                                at,
                                len,
                            }));
                            at += length;
                        }
                    }
                }
                "'" | "\"" => {
                    return Err(malformed("text shown by ' or \" was not rewritten first"));
                }
                "Do" => {
                    let Some(stream) = operands
                        .first()
                        .and_then(|name| name.as_name().ok())
                        .and_then(|name| self.resource(resources, b"XObject", name))
                        .and_then(|object| object.as_stream().ok())
                    else {
                        continue;
                    };
                    let inner = stream
                        .dict
                        .get(b"Resources")
                        .ok()
                        .and_then(|r| self.resolve(r))
                        .and_then(|r| r.as_dict().ok())
                        .unwrap_or(resources);
                    let bytes = stream
                        .decompressed_content()
                        .unwrap_or_else(|_| stream.content.clone());
                    // pdf-extract reads any XObject's stream as content; an image's does not decode.
                    if let Ok(content) = Content::decode(&bytes) {
                        self.walk(&content, inner, false, depth + 1)?;
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }
}

/// `'` and `"` (move to the next line, then show) as `T*` and `Tj` (with `Tw` and `Tc` for `"`), which
/// pdf-extract reads and the rewrite below knows.
fn normalised(content: Content) -> Content {
    let mut operations = Vec::with_capacity(content.operations.len());
    for operation in content.operations {
        let mut operands = operation.operands;
        match operation.operator.as_str() {
            "'" => {
                operations.push(Operation::new("T*", vec![]));
                operations.push(Operation::new("Tj", operands));
            }
            "\"" if operands.len() == 3 => {
                let string = operands.pop().expect("three operands");
                let char_spacing = operands.pop().expect("two operands");
                let word_spacing = operands.pop().expect("one operand");
                operations.push(Operation::new("Tw", vec![word_spacing]));
                operations.push(Operation::new("Tc", vec![char_spacing]));
                operations.push(Operation::new("T*", vec![]));
                operations.push(Operation::new("Tj", vec![string]));
            }
            _ => operations.push(Operation {
                operator: operation.operator,
                operands,
            }),
        }
    }
    Content { operations }
}

/// The page's text from its glyphs, with a space where a gap is and a line break where the line
/// changes; with the glyph each byte of the text comes from.
fn page_text(glyphs: &[Glyph]) -> (String, Vec<Option<usize>>) {
    let mut text = String::new();
    let mut owner: Vec<Option<usize>> = Vec::new();
    let mut push = |text: &mut String, piece: &str, glyph: Option<usize>| {
        text.push_str(piece);
        owner.extend(std::iter::repeat_n(glyph, piece.len()));
    };
    for (index, glyph) in glyphs.iter().enumerate() {
        if let Some(previous) = index.checked_sub(1).map(|i| &glyphs[i]) {
            let height = (glyph.size * glyph.trm[3].abs()).max(1.0);
            let end = previous.trm[4] + previous.width * previous.size * previous.trm[0];
            if (glyph.trm[5] - previous.trm[5]).abs() > height * 0.5 {
                push(&mut text, "\n", None);
            } else if glyph.trm[4] - end > height * 0.15 && !previous.text.ends_with(' ') {
                push(&mut text, " ", None);
            }
        }
        push(&mut text, &glyph.text, Some(index));
    }
    (text, owner)
}

/// A glyph's box in user space: its width, from a fifth of the size below the baseline to the size
/// above it.
fn glyph_box(glyph: &Glyph) -> [f64; 4] {
    let [a, b, c, d, e, f] = glyph.trm;
    let width = (glyph.width * glyph.size).max(glyph.size * 0.3);
    let corners = [
        (0.0, -0.22 * glyph.size),
        (width, -0.22 * glyph.size),
        (0.0, 0.92 * glyph.size),
        (width, 0.92 * glyph.size),
    ];
    let mut bounds = [f64::MAX, f64::MAX, f64::MIN, f64::MIN];
    for (x, y) in corners {
        let (u, v) = (x * a + y * c + e, x * b + y * d + f);
        bounds = [
            bounds[0].min(u),
            bounds[1].min(v),
            bounds[2].max(u),
            bounds[3].max(v),
        ];
    }
    bounds
}

/// The operations with the glyphs at `removed` taken out: each becomes a `TJ` number that moves the
/// text on by the glyph's advance.
fn rewrite(operations: &mut [Operation], removed: &[(Place, &Glyph)]) -> Result<(), RedactError> {
    let mut by_op: std::collections::BTreeMap<usize, Vec<(Place, &Glyph)>> = Default::default();
    for &(place, glyph) in removed {
        by_op.entry(place.op).or_default().push((place, glyph));
    }
    for (op, mut glyphs) in by_op {
        glyphs.sort_by_key(|(place, _)| (place.string, place.at));
        let operation = &mut operations[op];
        let items: Vec<Object> = match operation.operator.as_str() {
            "Tj" => operation.operands.iter().take(1).cloned().collect(),
            "TJ" => operation
                .operands
                .first()
                .and_then(|a| a.as_array().ok())
                .cloned()
                .unwrap_or_default(),
            other => return Err(malformed(format!("a glyph placed on {other}"))),
        };
        let mut out: Vec<Object> = Vec::with_capacity(items.len() + 2 * glyphs.len());
        let mut string_index = 0;
        let push_number = |out: &mut Vec<Object>, value: f64| match out.last_mut() {
            Some(Object::Real(previous)) => *previous += value as f32,
            _ => out.push(Object::Real(value as f32)),
        };
        for item in items {
            let Object::String(bytes, format) = item else {
                out.push(item);
                continue;
            };
            let mut cursor = 0;
            for (place, glyph) in glyphs.iter().filter(|(p, _)| p.string == string_index) {
                if place.at > cursor {
                    out.push(Object::String(bytes[cursor..place.at].to_vec(), format));
                }
                // The advance the glyph had, as a TJ number (thousandths of the font size, negative
                // to move forward).
                let size = if glyph.size.abs() > f64::EPSILON {
                    glyph.size
                } else {
                    1.0
                };
                push_number(
                    &mut out,
                    -(glyph.width * 1000.0 + glyph.spacing * 1000.0 / size),
                );
                cursor = place.at + place.len;
            }
            if cursor < bytes.len() {
                out.push(Object::String(bytes[cursor..].to_vec(), format));
            }
            string_index += 1;
        }
        *operation = Operation::new("TJ", vec![Object::Array(out)]);
    }
    Ok(())
}

/// Marked-content properties that carry text of their own (`ActualText`, `Alt`, `E`) emptied.
fn strip_marked_text(operations: &mut [Operation]) {
    for operation in operations
        .iter_mut()
        .filter(|o| matches!(o.operator.as_str(), "BDC" | "DP"))
    {
        for operand in operation.operands.iter_mut() {
            if let Object::Dictionary(properties) = operand {
                for key in [b"ActualText".as_slice(), b"Alt", b"E"] {
                    properties.remove(key);
                }
            }
        }
    }
}

/// What outside the pages can hold personal data: removed.
fn remove_around_pages(doc: &mut Document, pages: &[ObjectId]) {
    doc.trailer.remove(b"Info");
    if let Ok(catalog) = doc.catalog_mut() {
        for key in [
            b"Metadata".as_slice(),
            b"Outlines",
            b"AcroForm",
            b"Names",
            b"OpenAction",
            b"AA",
            b"StructTreeRoot",
            b"SpiderInfo",
            b"Threads",
        ] {
            catalog.remove(key);
        }
    }
    for page in pages {
        if let Ok(dict) = doc.get_dictionary_mut(*page) {
            for key in [
                b"Annots".as_slice(),
                b"Metadata",
                b"Thumb",
                b"PieceInfo",
                b"AA",
                b"B",
            ] {
                dict.remove(key);
            }
        }
    }
}

/// The boxes of the values in `replaces`, in user space: one per value and line.
fn value_boxes(replaces: &[Replace], owner: &[Option<usize>], glyphs: &[Glyph]) -> Vec<[f64; 4]> {
    let mut boxes = Vec::new();
    for replace in replaces {
        let mut bounds = [f64::MAX, f64::MAX, f64::MIN, f64::MIN];
        let mut line_of: Option<f64> = None;
        for &glyph in owner[replace.start..replace.end].iter().flatten() {
            let glyph = &glyphs[glyph];
            // A value over two lines: a box per line.
            if line_of.is_some_and(|y| (y - glyph.trm[5]).abs() > glyph.size * 0.5) {
                boxes.push(bounds);
                bounds = [f64::MAX, f64::MAX, f64::MIN, f64::MIN];
            }
            line_of = Some(glyph.trm[5]);
            let b = glyph_box(glyph);
            bounds = [
                bounds[0].min(b[0]),
                bounds[1].min(b[1]),
                bounds[2].max(b[2]),
                bounds[3].max(b[3]),
            ];
        }
        boxes.push(bounds);
    }
    boxes.retain(|&[x0, y0, x1, y1]| x0 <= x1 && y0 <= y1);
    boxes
}

/// The page's content with the glyphs of `replaces` taken out and a box drawn over each value;
/// `Unsupported` when its content cannot be rewritten safely.
fn rewritten_page(
    doc: &Document,
    page: ObjectId,
    glyphs: &[Glyph],
    owner: &[Option<usize>],
    replaces: &[Replace],
) -> Result<Vec<u8>, RedactError> {
    let removed_glyphs = super::covered(replaces, owner);
    // The same glyphs, walked in the content stream.
    let content =
        Content::decode(&doc.get_page_content(page).map_err(malformed)?).map_err(malformed)?;
    let (resources, inherited) = doc.get_page_resources(page).map_err(malformed)?;
    let mut merged = resources.cloned().unwrap_or_default();
    for id in inherited {
        if let Ok(parent) = doc.get_dictionary(id) {
            for (key, value) in parent.iter() {
                if !merged.has(key) {
                    merged.set(key.clone(), value.clone());
                }
            }
        }
    }
    let mut walk = Walk {
        doc,
        places: Vec::new(),
    };
    walk.walk(&content, &merged, true, 0)?;
    let places = walk.places;
    if places.len() != glyphs.len() {
        return Err(unsupported(format!(
            "its content shows {} glyphs where its text has {}",
            places.len(),
            glyphs.len()
        )));
    }
    let mut removed: Vec<(Place, &Glyph)> = Vec::with_capacity(removed_glyphs.len());
    for &index in &removed_glyphs {
        match places[index] {
            Some(place) => removed.push((place, &glyphs[index])),
            None => {
                return Err(unsupported(
                    "a value is drawn by a form XObject".to_string(),
                ))
            }
        }
    }
    let mut operations = content.operations;
    rewrite(&mut operations, &removed)?;
    strip_marked_text(&mut operations);
    // The page's own drawing in q ... Q, then a filled box over each value.
    let mut all = vec![Operation::new("q", vec![])];
    all.extend(operations);
    all.push(Operation::new("Q", vec![]));
    all.push(Operation::new("q", vec![]));
    all.push(Operation::new("g", vec![Object::Real(0.0)]));
    for bounds in value_boxes(replaces, owner, glyphs) {
        push_box(&mut all, bounds);
    }
    all.push(Operation::new("Q", vec![]));
    Content { operations: all }.encode().map_err(malformed)
}

pub fn pdf(
    bytes: &[u8],
    limits: &Limits,
    masker: &mut dyn Masker,
) -> Result<Redacted, RedactError> {
    let mut doc = Document::load_mem(bytes).map_err(malformed)?;
    if doc.is_encrypted() {
        return Err(unsupported(
            "the PDF is encrypted: it cannot be rewritten safely".to_string(),
        ));
    }
    let pages: Vec<(u32, ObjectId)> = doc.get_pages().into_iter().collect();
    if pages.len() as u64 > u64::from(limits.max_pages) {
        return Err(RedactError::Limit(format!(
            "more than {} pages",
            limits.max_pages
        )));
    }
    // `'` and `"` rewritten first, so that pdf-extract reads their text.
    for &(_, page) in &pages {
        let content = doc.get_page_content(page).map_err(malformed)?;
        let decoded = Content::decode(&content).map_err(malformed)?;
        if decoded
            .operations
            .iter()
            .any(|o| matches!(o.operator.as_str(), "'" | "\""))
        {
            let encoded = normalised(decoded).encode().map_err(malformed)?;
            doc.change_page_content(page, encoded).map_err(malformed)?;
        }
    }
    crate::extractor_pool::built_in_type1_encodings(&mut doc);
    let mut redacted = Redacted::default();
    let (mut rewritten_pages, mut images_kept) = (0usize, 0usize);
    let mut draws: Vec<Draw> = Vec::new();
    for &(number, page) in &pages {
        let mut glyphs = Glyphs::default();
        let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pdf_extract::output_doc_page(&doc, &mut glyphs, number)
        }));
        match read {
            Ok(Ok(())) => {}
            _ => {
                return Err(malformed(format!("page {number} could not be read")));
            }
        }
        let glyphs = glyphs.0;
        let (text, owner) = page_text(&glyphs);
        let replaces = match text.trim().is_empty() {
            true => Vec::new(),
            false => masker.replacements(&text)?,
        };
        redacted.left.push_str(&super::apply(&text, &replaces));
        redacted.left.push('\n');
        let boxes = || value_boxes(&replaces, &owner, &glyphs);
        // As the reader does: a page without a usable text layer is read by OCR (and drawn with its
        // values burned in when it holds any).
        if !usable_text(&text) {
            draws.push(Draw {
                number,
                page,
                reason: None,
                boxes: boxes(),
            });
            continue;
        }
        images_kept += doc.get_page_images(page).map_or(0, |images| images.len());
        if replaces.is_empty() {
            continue;
        }
        match rewritten_page(&doc, page, &glyphs, &owner, &replaces) {
            Ok(encoded) => {
                doc.change_page_content(page, encoded).map_err(malformed)?;
                rewritten_pages += 1;
            }
            Err(RedactError::Unsupported(why)) => draws.push(Draw {
                number,
                page,
                reason: Some(why),
                boxes: boxes(),
            }),
            Err(other) => return Err(other),
        }
    }
    let drawn = draw_pages(&mut doc, bytes, draws, limits, masker, &mut redacted)?;
    let page_ids: Vec<ObjectId> = pages.iter().map(|&(_, id)| id).collect();
    remove_around_pages(&mut doc, &page_ids);
    doc.prune_objects();
    doc.compress();
    let mut out = Vec::with_capacity(bytes.len());
    doc.save_to(&mut out).map_err(malformed)?;
    redacted.bytes = out;
    if images_kept > 0 {
        redacted.notes.push(format!(
            "{images_kept} image(s) on text pages kept as they are: images on pages with text are \
             not read"
        ));
    }
    redacted.notes.push(format!(
        "{rewritten_pages} page(s) redacted in their text, {drawn} drawn as images with the values \
         burned in; document information, metadata, annotations, form fields, bookmarks, embedded \
         files and the structure tree removed"
    ));
    Ok(redacted)
}

fn push_box(operations: &mut Vec<Operation>, [x0, y0, x1, y1]: [f64; 4]) {
    operations.push(Operation::new(
        "re",
        vec![
            Object::Real(x0 as f32),
            Object::Real(y0 as f32),
            Object::Real((x1 - x0) as f32),
            Object::Real((y1 - y0) as f32),
        ],
    ));
    operations.push(Operation::new("f", vec![]));
}
