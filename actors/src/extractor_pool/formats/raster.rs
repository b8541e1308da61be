//! PDF pages drawn to pixels for OCR, by `hayro` (a pure-Rust PDF rasteriser, Apache-2.0 OR MIT; no
//! poppler or MuPDF linked). Whatever the page holds is drawn: images in every filter hayro decodes
//! (DCT, JPX, Flate and the other generic filters, CCITT, JBIG2), vector paths and text whose font
//! carries no usable character mapping. Pages come out as 8-bit grey PNM at [`DPI`], the resolution
//! Tesseract is tuned for, shrunk when a page would exceed [`MAX_SIDE`] or [`MAX_PIXELS`] (a hostile
//! media box cannot make the worker allocate gigabytes).

use std::panic::{catch_unwind, AssertUnwindSafe};

use hayro::hayro_interpret::InterpreterSettings;
use hayro::hayro_syntax::Pdf;
use hayro::vello_cpu::color::palette::css::WHITE;
pub use hayro::RenderCache;
use hayro::{render, PixmapSettings, RenderSettings};

/// The resolution pages are drawn at for OCR.
pub const DPI: f32 = 300.0;
/// The longest side of a drawn page, in pixels (an A0 sheet at 300 dpi is 14,043).
pub const MAX_SIDE: f32 = 10_000.0;
/// The most pixels one drawn page may have (an A3 page at 300 dpi has 17.4 million).
pub const MAX_PIXELS: f32 = 40_000_000.0;

/// The scale from PDF points to pixels for a page of `width` x `height` points: [`DPI`], or less when
/// the page is too large to draw at it. None for a page without area.
pub fn scale_for(width: f32, height: f32) -> Option<f32> {
    if !(width.is_finite() && height.is_finite()) || width < 1.0 || height < 1.0 {
        return None;
    }
    let scale = (DPI / 72.0)
        .min(MAX_SIDE / width)
        .min(MAX_SIDE / height)
        .min((MAX_PIXELS / (width * height)).sqrt());
    Some(scale)
}

/// A PDF opened for drawing (with the empty user password when it is encrypted).
pub struct Rasteriser {
    pdf: Pdf,
}

impl Rasteriser {
    /// None when hayro cannot open the file (then the caller falls back to the page images).
    pub fn open(bytes: &[u8]) -> Option<Rasteriser> {
        catch_unwind(AssertUnwindSafe(|| Pdf::new(bytes.to_vec()).ok()))
            .ok()
            .flatten()
            .map(|pdf| Rasteriser { pdf })
    }

    /// Pages numbered from 1 drawn as grey PNM images, in the order asked; a page that cannot be drawn
    /// (missing, without area, or failing inside the renderer) is an `Err` naming why.
    pub fn pages(&self, numbers: &[u32]) -> Vec<Result<Vec<u8>, String>> {
        let cache = RenderCache::new();
        numbers
            .iter()
            .map(|&number| {
                let page = self.grey_page(number, &cache)?;
                Ok(super::ocr::pnm(page.width, page.height, 1, &page.pixels))
            })
            .collect()
    }

    /// Page `number` (from 1) drawn in 8-bit grey, as it is shown (its crop box, turned by its
    /// rotation).
    pub fn grey_page<'a>(
        &'a self,
        number: u32,
        cache: &RenderCache<'a>,
    ) -> Result<GreyPage, String> {
        let pages = self.pdf.pages();
        let page = number
            .checked_sub(1)
            .and_then(|index| pages.get(index as usize))
            .ok_or_else(|| format!("page {number} is not in the file"))?;
        let (width, height) = page.render_dimensions();
        let scale = scale_for(width, height).ok_or_else(|| format!("page {number} has no area"))?;
        let pixmap = catch_unwind(AssertUnwindSafe(|| {
            render(
                page,
                cache,
                &InterpreterSettings::default(),
                &RenderSettings::default(),
                &PixmapSettings {
                    x_scale: scale,
                    y_scale: scale,
                    bg_color: WHITE,
                },
            )
        }))
        .map_err(|_| format!("page {number}: the PDF renderer failed on it"))?;
        Ok(GreyPage {
            width: u32::from(pixmap.width()),
            height: u32::from(pixmap.height()),
            scale,
            pixels: grey(pixmap.data_as_u8_slice()),
        })
    }
}

/// A page drawn in grey: its size in pixels, pixels per point, and its pixels row by row.
pub struct GreyPage {
    pub width: u32,
    pub height: u32,
    pub scale: f32,
    pub pixels: Vec<u8>,
}

/// Premultiplied RGBA over white (every pixel opaque) to 8-bit luma (ITU-R BT.601 weights).
fn grey(rgba: &[u8]) -> Vec<u8> {
    rgba.chunks_exact(4)
        .map(|p| {
            let luma = 299 * u32::from(p[0]) + 587 * u32::from(p[1]) + 114 * u32::from(p[2]);
            (luma / 1000) as u8
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_drawn_at_300_dpi_unless_too_large() {
        // A4 at 300 dpi: 2480 x 3508 pixels.
        let scale = scale_for(595.0, 842.0).expect("a4");
        assert!((scale - 300.0 / 72.0).abs() < 1e-6);
        // A 200-inch square page is shrunk to the pixel budget, a 14,400-point strip to the side bound.
        let huge = scale_for(14_400.0, 14_400.0).expect("huge");
        assert!(14_400.0 * 14_400.0 * huge * huge <= MAX_PIXELS * 1.0001);
        let strip = scale_for(14_400.0, 10.0).expect("strip");
        assert!(14_400.0 * strip <= MAX_SIDE + 0.5);
        for empty in [(0.0, 842.0), (595.0, f32::NAN), (f32::INFINITY, 1.0)] {
            assert_eq!(scale_for(empty.0, empty.1), None);
        }
    }

    #[test]
    fn luma_of_premultiplied_opaque_pixels() {
        assert_eq!(
            grey(&[255, 255, 255, 255, 0, 0, 0, 255, 255, 0, 0, 255]),
            vec![255, 0, 76]
        );
    }
}
