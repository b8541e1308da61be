//! Format readers of the extraction engine. Each turns bytes into the document model; none may panic
//! on hostile input (the pool catches panics anyway) or read anything outside the input.

mod bidi;
pub(crate) mod csv;
pub(crate) mod detect;
pub(crate) mod docx;
pub(crate) mod eml;
pub(crate) mod encoding;
pub(crate) mod html;
pub(crate) mod ocr;
mod ooxml;
pub(crate) mod pdf;
pub(crate) mod pptx;
mod raster;
pub(crate) mod txt;
pub(crate) mod xlsx;
pub(crate) mod xml;
