//! PDF pages that cannot be redacted in their text, drawn to an image with the values burned in: a
//! scanned page (its text is the OCR of its pixels), and a text page whose content cannot be rewritten
//! safely (a composite font whose codes are not two bytes, a value drawn by a form XObject, a content
//! stream that does not show the glyphs its text has). The page is drawn at 300 dpi in grey by the
//! extraction's own rasteriser, read word by word by Tesseract, every word that holds part of a value
//! is filled black (and, on a text page, every glyph of a value, from the places its text layer gave),
//! and the page becomes that one image: nothing of its text layer, fonts or images is left.

use lopdf::content::{Content, Operation};
use lopdf::{Dictionary, Document, Object, ObjectId, Stream};

use super::image::{fill, masked_words, words};
use super::{Masker, RedactError, Redacted};
use crate::extractor_pool::{pnm, GreyPage, Limits, Rasteriser, RenderCache};

/// A page to draw, and why.
pub(super) struct Draw {
    pub number: u32,
    pub page: ObjectId,
    /// Why the page is not redacted in its text (for the notes); None for a scanned page.
    pub reason: Option<String>,
    /// The boxes of the values its text layer showed, in user space (`x0 y0 x1 y1`).
    pub boxes: Vec<[f64; 4]>,
}

fn malformed(error: impl std::fmt::Display) -> RedactError {
    RedactError::Malformed(format!("PDF: {error}"))
}

/// `key` of the page or of the page tree node it inherits from.
fn inherited(doc: &Document, page: ObjectId, key: &[u8]) -> Option<Object> {
    let mut node = doc.get_dictionary(page).ok()?;
    for _ in 0..32 {
        if let Ok(value) = node.get(key) {
            return match value {
                Object::Reference(id) => doc.get_object(*id).ok().cloned(),
                other => Some(other.clone()),
            };
        }
        node = doc
            .get_dictionary(node.get(b"Parent").ok()?.as_reference().ok()?)
            .ok()?;
    }
    None
}

fn numbers(object: Option<Object>) -> Option<[f64; 4]> {
    let array = object?.as_array().ok()?.clone();
    let values: Vec<f64> = array
        .iter()
        .filter_map(|o| o.as_float().ok().map(f64::from))
        .collect();
    let [a, b, c, d] = values[..] else {
        return None;
    };
    Some([a.min(c), b.min(d), a.max(c), b.max(d)])
}

/// A box in user space as pixels of the drawn page: the crop box's top left is the origin, turned
/// as the page's rotation turns it. None when the drawing's size is not the crop box's (then only the
/// OCR's word boxes are filled).
fn to_pixels(
    doc: &Document,
    page: ObjectId,
    drawn: &GreyPage,
    [x0, y0, x1, y1]: [f64; 4],
) -> Option<[u32; 4]> {
    let [cx0, cy0, cx1, cy1] = numbers(inherited(doc, page, b"CropBox"))
        .or_else(|| numbers(inherited(doc, page, b"MediaBox")))?;
    let (width, height) = (cx1 - cx0, cy1 - cy0);
    let rotation = inherited(doc, page, b"Rotate")
        .and_then(|r| r.as_i64().ok())
        .unwrap_or(0)
        .rem_euclid(360);
    let scale = f64::from(drawn.scale);
    let (shown_width, shown_height) = match rotation {
        90 | 270 => (height, width),
        _ => (width, height),
    };
    let close = |pixels: u32, points: f64| (f64::from(pixels) - points * scale).abs() <= 2.0;
    if !close(drawn.width, shown_width) || !close(drawn.height, shown_height) {
        return None;
    }
    // Top-left based, before the rotation: u to the right, v down.
    let corner = |x: f64, y: f64| {
        let (u, v) = (x - cx0, cy1 - y);
        match rotation {
            90 => (height - v, u),
            180 => (width - u, height - v),
            270 => (v, width - u),
            _ => (u, v),
        }
    };
    let (a, b) = (corner(x0 - 1.0, y0 - 1.0), corner(x1 + 1.0, y1 + 1.0));
    let pixel = |value: f64| (value * scale).max(0.0) as u32;
    Some([
        pixel(a.0.min(b.0)),
        pixel(a.1.min(b.1)),
        pixel(a.0.max(b.0)).saturating_add(1),
        pixel(a.1.max(b.1)).saturating_add(1),
    ])
}

/// The page replaced by `drawn` as its only content: a grey image filling a media box of the drawn
/// size, without rotation.
fn replace_page(doc: &mut Document, page: ObjectId, drawn: GreyPage) -> Result<(), RedactError> {
    let scale = f64::from(drawn.scale);
    let (width, height) = (
        f64::from(drawn.width) / scale,
        f64::from(drawn.height) / scale,
    );
    let mut image = Dictionary::new();
    image.set("Type", Object::Name(b"XObject".to_vec()));
    image.set("Subtype", Object::Name(b"Image".to_vec()));
    image.set("Width", i64::from(drawn.width));
    image.set("Height", i64::from(drawn.height));
    image.set("ColorSpace", Object::Name(b"DeviceGray".to_vec()));
    image.set("BitsPerComponent", 8);
    let mut stream = Stream::new(image, drawn.pixels);
    stream.compress().map_err(malformed)?;
    let image = doc.add_object(Object::Stream(stream));
    let content = Content {
        operations: vec![
            Operation::new("q", vec![]),
            Operation::new(
                "cm",
                vec![
                    Object::Real(width as f32),
                    0.into(),
                    0.into(),
                    Object::Real(height as f32),
                    0.into(),
                    0.into(),
                ],
            ),
            Operation::new("Do", vec![Object::Name(b"Page".to_vec())]),
            Operation::new("Q", vec![]),
        ],
    };
    let content = Stream::new(Dictionary::new(), content.encode().map_err(malformed)?);
    let content = doc.add_object(Object::Stream(content));
    let mut xobjects = Dictionary::new();
    xobjects.set("Page", Object::Reference(image));
    let mut resources = Dictionary::new();
    resources.set("XObject", Object::Dictionary(xobjects));
    let dict = doc.get_dictionary_mut(page).map_err(malformed)?;
    for key in [
        b"CropBox".as_slice(),
        b"BleedBox",
        b"TrimBox",
        b"ArtBox",
        b"Group",
        b"UserUnit",
    ] {
        dict.remove(key);
    }
    dict.set(
        "MediaBox",
        vec![
            0.into(),
            0.into(),
            Object::Real(width as f32),
            Object::Real(height as f32),
        ],
    );
    dict.set("Rotate", 0);
    dict.set("Resources", Object::Dictionary(resources));
    dict.set("Contents", Object::Reference(content));
    Ok(())
}

/// Each page of `draws` drawn, its values burned in, and put in place of the page when it had one;
/// the number of pages replaced. The text each OCR read, masked, goes to `redacted.left`.
pub(super) fn draw_pages(
    doc: &mut Document,
    bytes: &[u8],
    draws: Vec<Draw>,
    limits: &Limits,
    masker: &mut dyn Masker,
    redacted: &mut Redacted,
) -> Result<usize, RedactError> {
    if draws.is_empty() {
        return Ok(0);
    }
    limits
        .check_ocr_pages(draws.len())
        .map_err(|e| RedactError::Limit(e.to_string()))?;
    let rasteriser = Rasteriser::open(bytes).ok_or_else(|| {
        RedactError::Unsupported(format!(
            "page {} cannot be redacted in its text and the PDF renderer cannot open the file",
            draws[0].number
        ))
    })?;
    let cache = RenderCache::new();
    let mut replaced = 0;
    for draw in draws {
        let drawn = rasteriser.grey_page(draw.number, &cache).map_err(|why| {
            RedactError::Unsupported(format!(
                "page {} cannot be redacted in its text and cannot be drawn: {why}",
                draw.number
            ))
        })?;
        let read = words(&pnm(drawn.width, drawn.height, 1, &drawn.pixels))?;
        let (left, mut boxes) = masked_words(&read, masker)?;
        redacted.left.push_str(&left);
        redacted.left.push('\n');
        boxes.extend(
            draw.boxes
                .iter()
                .filter_map(|&area| to_pixels(doc, draw.page, &drawn, area)),
        );
        if boxes.is_empty() {
            continue;
        }
        let mut image = image::GrayImage::from_raw(drawn.width, drawn.height, drawn.pixels)
            .ok_or_else(|| malformed("a drawn page of the wrong size"))?;
        for area in boxes {
            fill(&mut image, area, image::Luma([0]));
        }
        let drawn = GreyPage {
            pixels: image.into_raw(),
            ..drawn
        };
        replace_page(doc, draw.page, drawn)?;
        redacted.notes.push(match draw.reason {
            Some(why) => format!(
                "page {}: drawn as an image with the values burned in ({why})",
                draw.number
            ),
            None => format!(
                "page {}: a scan, its values burned into the page's image",
                draw.number
            ),
        });
        replaced += 1;
    }
    Ok(replaced)
}
