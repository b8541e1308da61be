//! OCR through Tesseract (Debian `libtesseract-dev`, `tesseract-ocr-tur`, `tesseract-ocr-eng`) with
//! `tur+eng`: `tur` alone misreads `@`, `eng` alone loses Turkish letters. `OMP_THREAD_LIMIT=1` is set
//! by the binary at start (5-7x faster on two cores, same output): parallelism comes from the pool
//! running pages side by side, not from inside Tesseract.

use super::super::error::ExtractError;
use super::super::model::{Builder, Element, ElementKind};

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

/// An image file: its OCR text as `image_text` elements.
pub fn extract_image(bytes: &[u8], builder: &mut Builder) -> Result<(), ExtractError> {
    let result = recognise(bytes)?;
    push_text(&result, 1, builder);
    builder.document.metadata.pages = Some(1);
    builder.field("ocr.confidence", f64::from(result.confidence));
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
