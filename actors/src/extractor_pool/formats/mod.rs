//! Format readers of the extraction engine. Each turns bytes into the document model; none may panic
//! on hostile input (the pool catches panics anyway) or read anything outside the input.

mod bidi;
pub mod csv;
pub mod detect;
pub mod docx;
pub mod eml;
pub mod encoding;
pub mod html;
pub mod ocr;
mod ooxml;
pub mod pdf;
pub mod pptx;
mod raster;
pub mod txt;
pub mod xlsx;
pub mod xml;
