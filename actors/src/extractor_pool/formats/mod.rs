//! Format readers of the extraction engine. Each turns bytes into the document model; none may panic
//! on hostile input (the pool catches panics anyway) or read anything outside the input.

mod bidi;
pub(crate) mod compound;
pub(crate) mod csv;
pub(crate) mod detect;
pub(crate) mod doc;
pub(crate) mod doc_text;
pub(crate) mod docx;
pub(crate) mod eml;
pub(crate) mod encoding;
pub(crate) mod epub;
pub(crate) mod html;
pub(crate) mod msg;
pub(crate) mod ocr;
pub(crate) mod odf;
mod ooxml;
pub(crate) mod pdf;
pub(crate) mod ppt;
pub(crate) mod pptx;
pub(crate) mod raster;
pub(crate) mod rtf;
pub(crate) mod txt;
pub(crate) mod xlsx;
pub(crate) mod xml;
