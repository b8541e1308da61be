//! Format readers of the extraction engine. Each turns bytes into text (and, with the extraction
//! work, into the document model); none may panic on hostile input.

pub mod txt;
