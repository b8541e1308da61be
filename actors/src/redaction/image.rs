//! PNG, JPEG and TIFF (every page of one) written back with a filled box over each found value: the image is read by Tesseract
//! word by word (its boxes), the words' text masked as the page's text, and every word that holds part
//! of a value is painted over in the pixels. The image is encoded again in its own format, which
//! leaves its metadata (EXIF, XMP, text chunks) behind.

use std::io::Cursor;

use image::{DynamicImage, ImageFormat, Rgba};

use super::{Masker, RedactError, Redacted};
use crate::extractor_pool::{tiff_pixel_pages, Limits};

/// One word Tesseract read: its text, its box, and its line.
pub(super) struct Word {
    text: String,
    left: u32,
    top: u32,
    width: u32,
    height: u32,
    line: (u32, u32, u32, u32),
}

fn malformed(error: impl std::fmt::Display) -> RedactError {
    RedactError::Malformed(format!("image: {error}"))
}

/// The words of `bytes` (an encoded image) with their boxes, from Tesseract's TSV.
pub(super) fn words(bytes: &[u8]) -> Result<Vec<Word>, RedactError> {
    let engine = tesseract::Tesseract::new(None, Some(crate::extractor_pool::OCR_LANGUAGES))
        .map_err(|error| RedactError::Malformed(format!("OCR engine: {error}")))?;
    let mut engine = engine.set_image_from_mem(bytes).map_err(malformed)?;
    let tsv = engine.get_tsv_text(0).map_err(malformed)?;
    let mut found = Vec::new();
    for row in tsv.lines() {
        let cells: Vec<&str> = row.split('\t').collect();
        if cells.len() < 12 || cells[0] != "5" {
            continue;
        }
        let number = |i: usize| cells[i].trim().parse::<u32>().unwrap_or(0);
        let text = cells[11].trim();
        if text.is_empty() {
            continue;
        }
        found.push(Word {
            text: text.to_string(),
            left: number(6),
            top: number(7),
            width: number(8),
            height: number(9),
            line: (number(1), number(2), number(3), number(4)),
        });
    }
    Ok(found)
}

/// The words as a text (a space between words, a line break between lines), with the word each byte
/// comes from.
fn text_of(words: &[Word]) -> (String, Vec<Option<usize>>) {
    let mut text = String::new();
    let mut owner = Vec::new();
    for (index, word) in words.iter().enumerate() {
        if index > 0 {
            let separator = if words[index - 1].line == word.line {
                " "
            } else {
                "\n"
            };
            text.push_str(separator);
            owner.push(None);
        }
        text.push_str(&word.text);
        owner.extend(std::iter::repeat_n(Some(index), word.text.len()));
    }
    (text, owner)
}

/// A word's box, with a margin: left, top, right, bottom.
fn word_box(word: &Word) -> [u32; 4] {
    let pad = (word.height / 6).max(2);
    [
        word.left.saturating_sub(pad),
        word.top.saturating_sub(pad),
        word.left.saturating_add(word.width).saturating_add(pad),
        word.top.saturating_add(word.height).saturating_add(pad),
    ]
}

/// `[left, top, right, bottom]` filled with `ink`, clipped to the image.
pub(super) fn fill<P: image::Pixel>(
    image: &mut image::ImageBuffer<P, Vec<P::Subpixel>>,
    [x0, y0, x1, y1]: [u32; 4],
    ink: P,
) {
    let (x1, y1) = (x1.min(image.width()), y1.min(image.height()));
    for y in y0..y1 {
        for x in x0..x1 {
            image.put_pixel(x, y, ink);
        }
    }
}

/// The words' text masked: the text as it is left, and the boxes of the words that hold part of a
/// value.
pub(super) fn masked_words(
    words: &[Word],
    masker: &mut dyn Masker,
) -> Result<(String, Vec<[u32; 4]>), RedactError> {
    let (text, owner) = text_of(words);
    let replaces = if text.trim().is_empty() {
        Vec::new()
    } else {
        masker.replacements(&text)?
    };
    let boxes = super::covered(&replaces, &owner)
        .iter()
        .map(|&index| word_box(&words[index]))
        .collect();
    Ok((super::apply(&text, &replaces), boxes))
}

fn redact_image(
    bytes: &[u8],
    limits: &Limits,
    masker: &mut dyn Masker,
    format: ImageFormat,
) -> Result<Redacted, RedactError> {
    let reader = image::ImageReader::with_format(Cursor::new(bytes), format);
    let picture = reader.decode().map_err(malformed)?;
    let pixels = u64::from(picture.width()) * u64::from(picture.height());
    if pixels.saturating_mul(4) > limits.max_decompressed_bytes {
        return Err(RedactError::Limit(format!(
            "an image of {} x {} pixels",
            picture.width(),
            picture.height()
        )));
    }
    let (left, boxes) = masked_words(&words(bytes)?, masker)?;
    let mut pixels = picture.into_rgba8();
    for &area in &boxes {
        fill(&mut pixels, area, Rgba([0, 0, 0, 255]));
    }
    let painted = DynamicImage::ImageRgba8(pixels);
    let mut out = Cursor::new(Vec::with_capacity(bytes.len()));
    let encoded = match format {
        // JPEG has no alpha.
        ImageFormat::Jpeg => DynamicImage::ImageRgb8(painted.into_rgb8()),
        _ => painted,
    };
    encoded.write_to(&mut out, format).map_err(malformed)?;
    let mut redacted = Redacted {
        bytes: out.into_inner(),
        left,
        ..Redacted::default()
    };
    redacted.notes.push(format!(
        "{} word(s) painted over; the image was encoded again, without its metadata (EXIF, XMP)",
        boxes.len()
    ));
    Ok(redacted)
}

pub fn png(
    bytes: &[u8],
    limits: &Limits,
    masker: &mut dyn Masker,
) -> Result<Redacted, RedactError> {
    redact_image(bytes, limits, masker, ImageFormat::Png)
}

/// A TIFF: of one page, through the path above (whatever kind of image the decoder reads); of
/// several, each page read by OCR and painted over, and all written again into one TIFF of as many
/// pages (8-bit grey or RGB, LZW). Several pages of another kind (bilevel, 16-bit, a palette) are
/// refused.
pub fn tiff(
    bytes: &[u8],
    limits: &Limits,
    masker: &mut dyn Masker,
) -> Result<Redacted, RedactError> {
    use ::tiff::encoder::{colortype, compression::Lzw, TiffEncoder};
    let decoder = ::tiff::decoder::Decoder::new(Cursor::new(bytes)).map_err(malformed)?;
    if !decoder.more_images() {
        return redact_image(bytes, limits, masker, ImageFormat::Tiff);
    }
    let most = limits.max_pages.min(limits.max_ocr_pages) as usize;
    let pages = tiff_pixel_pages(bytes, most + 1).ok_or_else(|| {
        RedactError::Unsupported(
            "a TIFF of several pages that are not 8-bit grey or colour (bilevel, 16-bit, a \
             palette) cannot be given back in its own format yet"
                .to_string(),
        )
    })?;
    if pages.len() > most {
        return Err(RedactError::Limit(format!("more than {most} pages")));
    }
    let mut redacted = Redacted::default();
    let mut out = Cursor::new(Vec::with_capacity(bytes.len()));
    // The encoder borrows `out` until its last use below.
    let mut encoder = TiffEncoder::new(&mut out).map_err(malformed)?;
    let mut painted = 0;
    let count = pages.len();
    for page in pages {
        let (left, boxes) = masked_words(&words(&page.pnm())?, masker)?;
        redacted.left.push_str(&left);
        redacted.left.push('\n');
        painted += boxes.len();
        let (width, height) = (page.width, page.height);
        let broken = || malformed("a page's pixels do not fill it");
        let written = match page.channels {
            1 => {
                let mut grey =
                    image::GrayImage::from_raw(width, height, page.pixels).ok_or_else(broken)?;
                for &area in &boxes {
                    fill(&mut grey, area, image::Luma([0]));
                }
                encoder.write_image_with_compression::<colortype::Gray8, _>(
                    width,
                    height,
                    Lzw,
                    grey.as_raw(),
                )
            }
            _ => {
                let mut colour =
                    image::RgbImage::from_raw(width, height, page.pixels).ok_or_else(broken)?;
                for &area in &boxes {
                    fill(&mut colour, area, image::Rgb([0, 0, 0]));
                }
                encoder.write_image_with_compression::<colortype::RGB8, _>(
                    width,
                    height,
                    Lzw,
                    colour.as_raw(),
                )
            }
        };
        written.map_err(malformed)?;
    }
    redacted.bytes = out.into_inner();
    redacted.notes.push(format!(
        "{painted} word(s) painted over on {count} pages; the TIFF was encoded again (8-bit, LZW), \
         without its metadata"
    ));
    Ok(redacted)
}

pub fn jpeg(
    bytes: &[u8],
    limits: &Limits,
    masker: &mut dyn Masker,
) -> Result<Redacted, RedactError> {
    redact_image(bytes, limits, masker, ImageFormat::Jpeg)
}
