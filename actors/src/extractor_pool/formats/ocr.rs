//! OCR through Tesseract (Debian `libtesseract-dev`, `tesseract-ocr-tur`, `tesseract-ocr-eng`) with
//! `tur+eng`: `tur` alone misreads `@`, `eng` alone loses Turkish letters. `OMP_THREAD_LIMIT=1` is set
//! by the binary at start (5-7x faster on two cores, same output), and each extraction worker gets at
//! most its share of the cores (`isolation::ocr_threads`): parallelism comes from the pool running
//! pages side by side, not from inside Tesseract.

use super::super::error::ExtractError;
use super::super::limits::Limits;
use crate::model::{Builder, Element, ElementKind};

pub const LANGUAGES: &str = "tur+eng";

/// Recognised text and Tesseract's mean confidence (0.0 to 1.0).
#[derive(Clone, Debug, PartialEq)]
pub struct OcrText {
    pub text: String,
    pub confidence: f32,
}

/// OCR of one encoded image (PNG, JPEG, TIFF first page, PNM...).
pub fn recognise(image: &[u8]) -> Result<OcrText, ExtractError> {
    let engine = tesseract::Tesseract::new(None, Some(LANGUAGES))
        .map_err(|error| ExtractError::EngineFailure(format!("OCR engine: {error}")))?;
    let mut engine = engine
        .set_image_from_mem(image)
        .map_err(|error| ExtractError::Malformed(format!("image: {error}")))?;
    let text = engine
        .get_text()
        .map_err(|error| ExtractError::EngineFailure(format!("OCR: {error}")))?;
    let confidence = engine.mean_text_conf().clamp(0, 100) as f32 / 100.0;
    Ok(OcrText { text, confidence })
}

/// Pages recognised side by side: one per core.
pub fn threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .max(1)
}

/// OCR of several page images side by side ([`threads`] at a time), results in page order.
pub fn recognise_all(images: &[Vec<u8>]) -> Vec<Result<OcrText, ExtractError>> {
    let mut results = Vec::with_capacity(images.len());
    for batch in images.chunks(threads()) {
        let batch_results: Vec<Result<OcrText, ExtractError>> = std::thread::scope(|scope| {
            let handles: Vec<_> = batch
                .iter()
                .map(|image| scope.spawn(move || recognise(image)))
                .collect();
            handles
                .into_iter()
                .map(|handle| {
                    handle.join().unwrap_or_else(|_| {
                        Err(ExtractError::EngineFailure(
                            "OCR failed on a page".to_string(),
                        ))
                    })
                })
                .collect()
        });
        results.extend(batch_results);
    }
    results
}

/// The pages of a TIFF as PNM images (8-bit grey, RGB or RGBA), or None when the TIFF is of another
/// kind (then Leptonica reads its first page).
fn tiff_pages(bytes: &[u8], limits: &Limits) -> Result<Option<Vec<Vec<u8>>>, ExtractError> {
    // Decoded only as far as a bound allows, plus one page to tell that it is past it.
    let most = limits.max_pages.min(limits.max_ocr_pages) as usize;
    let Some(pages) = tiff_page_images(bytes, most + 1) else {
        return Ok(None);
    };
    if pages.len() > limits.max_pages as usize {
        return Err(ExtractError::LimitExceeded(format!(
            "more than {} pages",
            limits.max_pages
        )));
    }
    limits.check_ocr_pages(pages.len())?;
    Ok(Some(pages))
}

/// One page of a TIFF in 8-bit grey (`channels` 1) or RGB (3) pixels, row by row.
pub struct TiffPage {
    pub width: u32,
    pub height: u32,
    pub channels: u8,
    pub pixels: Vec<u8>,
}

impl TiffPage {
    /// The page as a PNM image, which Leptonica reads.
    pub fn pnm(&self) -> Vec<u8> {
        pnm(self.width, self.height, self.channels, &self.pixels)
    }
}

/// At most `most` pages of a TIFF in grey or RGB pixels (RGBA's alpha dropped); None when a page is
/// of another kind (bilevel, 16-bit, a palette).
pub fn tiff_pixel_pages(bytes: &[u8], most: usize) -> Option<Vec<TiffPage>> {
    use tiff::decoder::{Decoder, DecodingResult};
    use tiff::ColorType;
    let mut decoder = Decoder::new(std::io::Cursor::new(bytes)).ok()?;
    let mut pages = Vec::new();
    loop {
        let (width, height) = decoder.dimensions().ok()?;
        let color = decoder.colortype().ok()?;
        let DecodingResult::U8(mut pixels) = decoder.read_image().ok()? else {
            return None;
        };
        let area = width as usize * height as usize;
        let channels = match color {
            ColorType::Gray(8) if pixels.len() >= area => 1,
            ColorType::RGB(8) if pixels.len() >= area * 3 => 3,
            ColorType::RGBA(8) if pixels.len() >= area * 4 => {
                pixels = pixels
                    .chunks_exact(4)
                    .flat_map(|p| [p[0], p[1], p[2]])
                    .collect();
                3
            }
            _ => return None,
        };
        pixels.truncate(area * channels as usize);
        pages.push(TiffPage {
            width,
            height,
            channels,
            pixels,
        });
        if pages.len() >= most || !decoder.more_images() || decoder.next_image().is_err() {
            break;
        }
    }
    Some(pages)
}

/// At most `most` pages of a TIFF as PNM images; None when a page is of another kind.
fn tiff_page_images(bytes: &[u8], most: usize) -> Option<Vec<Vec<u8>>> {
    Some(
        tiff_pixel_pages(bytes, most)?
            .iter()
            .map(TiffPage::pnm)
            .collect(),
    )
}

/// An image file: its OCR text as `image_text` elements, every page of a multi-page TIFF included.
pub fn extract_image(
    bytes: &[u8],
    limits: &Limits,
    builder: &mut Builder,
) -> Result<(), ExtractError> {
    let pages = if bytes.starts_with(b"II*\0") || bytes.starts_with(b"MM\0*") {
        tiff_pages(bytes, limits)?.filter(|pages| !pages.is_empty())
    } else {
        None
    };
    let results = match pages {
        Some(pages) => {
            // A batch at a time, the document's clock checked between batches: many cheap pages
            // fail in seconds with a message naming them, not at the time limit.
            let mut results = Vec::with_capacity(pages.len());
            for batch in pages.chunks(threads()) {
                limits.check_pages(results.len(), pages.len(), "recognised")?;
                results.extend(recognise_all(batch));
            }
            results
        }
        None => vec![recognise(bytes)],
    };
    let mut confidences = Vec::new();
    for (index, result) in results.into_iter().enumerate() {
        let result = result?;
        confidences.push(result.confidence);
        push_text(&result, index as u32 + 1, builder);
    }
    builder.document.metadata.pages = Some(confidences.len() as u32);
    let mean = confidences.iter().sum::<f32>() / confidences.len().max(1) as f32;
    builder.field("ocr.confidence", f64::from(mean));
    Ok(())
}

pub fn push_text(result: &OcrText, page: u32, builder: &mut Builder) {
    for block in result.text.split("\n\n") {
        let block = block.trim();
        if !block.is_empty() {
            builder.push(Element {
                page: Some(page),
                ..Element::new(ElementKind::ImageText, block)
            });
        }
    }
}

/// A PNM (P5 grey or P6 RGB) image in memory, which Leptonica reads directly.
pub fn pnm(width: u32, height: u32, channels: u8, pixels: &[u8]) -> Vec<u8> {
    let magic = if channels == 1 { "P5" } else { "P6" };
    let mut out = format!("{magic}\n{width} {height}\n255\n").into_bytes();
    out.extend_from_slice(pixels);
    out
}
