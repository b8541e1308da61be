//! Text and CSV written back as text: the decoded text masked whole (a CSV's header gives its columns
//! context, as in its extraction), answered in UTF-8. A CSV keeps its rows and columns: a replacement
//! that would change them (one holding the delimiter, a quote or a line break) refuses the file.

use super::distribute::apply;
use super::{Masker, RedactError, Redacted};
use crate::extractor_pool::Limits;

/// The decoded text and its masked form, with a note when it was not UTF-8.
fn masked_text(
    bytes: &[u8],
    masker: &mut dyn Masker,
) -> Result<(String, String, Redacted), RedactError> {
    let decoded = crate::extractor_pool::decode_text(bytes);
    let mut redacted = Redacted::default();
    if decoded.encoding != "UTF-8" && decoded.encoding != "ASCII" {
        redacted.notes.push(format!(
            "the text was {}; it is answered in UTF-8",
            decoded.encoding
        ));
    }
    let replaces = masker.replacements(&decoded.text)?;
    let text = apply(&decoded.text, &replaces);
    Ok((decoded.text, text, redacted))
}

pub fn txt(bytes: &[u8], _: &Limits, masker: &mut dyn Masker) -> Result<Redacted, RedactError> {
    let (_, text, mut redacted) = masked_text(bytes, masker)?;
    redacted.left = text.clone();
    redacted.bytes = text.into_bytes();
    Ok(redacted)
}

/// Rows and the cells of each, as the reader's CSV parser splits them.
fn shape(text: &str, delimiter: u8) -> Vec<usize> {
    csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes())
        .records()
        .map(|record| record.map_or(0, |r| r.len()))
        .collect()
}

pub fn csv(bytes: &[u8], _: &Limits, masker: &mut dyn Masker) -> Result<Redacted, RedactError> {
    let (original, text, mut redacted) = masked_text(bytes, masker)?;
    let delimiter = crate::extractor_pool::csv_delimiter(&original).unwrap_or(b',');
    if shape(&original, delimiter) != shape(&text, delimiter) {
        return Err(RedactError::Refused(
            "a replacement would change the CSV's rows or columns".to_string(),
        ));
    }
    redacted.left = text.clone();
    redacted.bytes = text.into_bytes();
    Ok(redacted)
}
