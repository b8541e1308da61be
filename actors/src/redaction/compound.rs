//! What the legacy Office writers share: a compound file opened for editing in place, each stream
//! rewritten at the same length, streams and storages removed, and the result copied compacted into a
//! new file, so that no sector the original had freed (or that a removal freed) is carried over; and
//! the rule for a replacement where every character has a fixed place.

use std::io::{Cursor, Read, Seek, SeekFrom, Write};

use super::{Masker, RedactError, Redacted};

pub(super) struct Editable {
    file: cfb::CompoundFile<Cursor<Vec<u8>>>,
}

fn broken(error: std::io::Error) -> RedactError {
    RedactError::Malformed(format!("compound file: {error}"))
}

impl Editable {
    pub(super) fn open(bytes: &[u8]) -> Result<Editable, RedactError> {
        let file = cfb::CompoundFile::open(Cursor::new(bytes.to_vec())).map_err(broken)?;
        Ok(Editable { file })
    }

    /// The paths of every stream, depth first.
    pub(super) fn streams(&self) -> Vec<String> {
        self.file
            .walk()
            .filter(|entry| entry.is_stream())
            .map(|entry| entry.path().to_string_lossy().into_owned())
            .collect()
    }

    /// The storages and streams right under the root: their names, and whether each is a stream.
    pub(super) fn at_root(&self) -> Vec<(String, bool)> {
        self.file
            .read_root_storage()
            .map(|entry| (entry.name().to_string(), entry.is_stream()))
            .collect()
    }

    pub(super) fn exists(&self, path: &str) -> bool {
        self.file.exists(path)
    }

    pub(super) fn read(&mut self, path: &str) -> Result<Vec<u8>, RedactError> {
        let mut stream = self.file.open_stream(path).map_err(broken)?;
        let mut out = Vec::new();
        stream.read_to_end(&mut out).map_err(broken)?;
        Ok(out)
    }

    /// `bytes` written over the stream at `path`, which they must be as long as.
    pub(super) fn overwrite(&mut self, path: &str, bytes: &[u8]) -> Result<(), RedactError> {
        let mut stream = self.file.open_stream(path).map_err(broken)?;
        if stream.len() != bytes.len() as u64 {
            return Err(RedactError::Malformed(format!(
                "{path}: rewritten at another length"
            )));
        }
        stream.seek(SeekFrom::Start(0)).map_err(broken)?;
        stream.write_all(bytes).map_err(broken)?;
        stream.flush().map_err(broken)
    }

    /// The stream or storage at `path` removed, when there is one.
    pub(super) fn remove(&mut self, path: &str) -> Result<(), RedactError> {
        if self.file.is_stream(path) {
            self.file.remove_stream(path).map_err(broken)?;
        } else if self.file.is_storage(path) {
            self.file.remove_storage_all(path).map_err(broken)?;
        }
        Ok(())
    }

    /// The file, copied compacted.
    pub(super) fn finish(mut self) -> Result<Vec<u8>, RedactError> {
        self.file.flush().map_err(broken)?;
        let copy = self.file.copy_to(Cursor::new(Vec::new())).map_err(broken)?;
        Ok(copy.into_inner().into_inner())
    }

    /// Every occurrence of each of `values` in any stream, as UTF-16 and as 8-bit text, overwritten
    /// with `X` (the same length): a value the text held may also be stored elsewhere (a hyperlink's
    /// object, a form field's default, a property). Answers how many were found.
    pub(super) fn overwrite_everywhere(&mut self, values: &[String]) -> Result<usize, RedactError> {
        let mut patterns: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
        for value in values.iter().filter(|v| v.chars().count() >= 4) {
            let utf16: Vec<u8> = value.encode_utf16().flat_map(u16::to_le_bytes).collect();
            let cover: Vec<u8> = value
                .encode_utf16()
                .flat_map(|_| u16::to_le_bytes(u16::from(b'X')))
                .collect();
            patterns.push((utf16, cover));
            let (eight, _, unmappable) = encoding_rs::WINDOWS_1252.encode(value);
            if !unmappable {
                let cover = vec![b'X'; eight.len()];
                patterns.push((eight.into_owned(), cover));
            }
        }
        let mut found = 0;
        for path in self.streams() {
            let mut bytes = self.read(&path)?;
            let mut changed = false;
            for (pattern, cover) in &patterns {
                let finder = memchr::memmem::Finder::new(pattern);
                let starts: Vec<usize> = finder.find_iter(&bytes).collect();
                let mut free = 0;
                for start in starts {
                    if start < free {
                        continue;
                    }
                    bytes[start..start + pattern.len()].copy_from_slice(cover);
                    free = start + pattern.len();
                    found += 1;
                    changed = true;
                }
            }
            if changed {
                self.overwrite(&path, &bytes)?;
            }
        }
        Ok(found)
    }
}

/// What both legacy writers do last: the document properties (the streams whose names begin with
/// `\u{5}`: summary information, custom properties, a thumbnail) removed, and each value replaced in
/// the text searched for and overwritten in every other stream; the answer's notes say what was found.
pub(super) fn scrub(
    file: &mut Editable,
    replaced: &[String],
    redacted: &mut Redacted,
) -> Result<(), RedactError> {
    for (name, stream) in file.at_root() {
        if stream && name.starts_with('\u{5}') {
            file.remove(&format!("/{name}"))?;
            redacted.notes.push(format!(
                "document properties ({}) removed",
                name.trim_start_matches('\u{5}')
            ));
        }
    }
    let found = file.overwrite_everywhere(replaced)?;
    if found > 0 {
        redacted.notes.push(format!(
            "{found} copies of masked values outside the text (a hyperlink's object, a form \
             field) overwritten with X"
        ));
    }
    Ok(())
}

/// A text whose every character has a fixed place in a stream: each character as the scan reads it
/// (marks as line breaks or spaces), and where it is stored: its first byte, in how many units (none
/// for a mark, never written over), and whether they are UTF-16 units or bytes.
#[derive(Default)]
pub(super) struct Fixed {
    pub shown: Vec<char>,
    pub places: Vec<(usize, u8, bool)>,
}

impl Fixed {
    /// A character stored at `at`, in UTF-16 (`wide`) or in one byte; `mark` when it is not text.
    pub(super) fn push(&mut self, c: char, at: usize, wide: bool, shown_as: Option<char>) {
        let units = match (shown_as, wide) {
            (Some(_), _) => 0,
            (None, true) => c.len_utf16() as u8,
            (None, false) => 1,
        };
        self.shown.push(shown_as.unwrap_or(c));
        self.places.push((at, units, wide));
    }
}

/// `fixed` masked paragraph by paragraph, each value overwritten in `stream` where it is stored, at
/// the same length ([`in_place`]; a byte holds what `eight` encodes). The values replaced are added to
/// `replaced`; the text written to `redacted.left`, and what was written instead of a replacement to
/// `redacted.written`.
pub(super) fn mask_fixed(
    fixed: &Fixed,
    stream: &mut [u8],
    eight: fn(char) -> Option<u8>,
    masker: &mut dyn Masker,
    replaced: &mut Vec<String>,
    redacted: &mut Redacted,
) -> Result<(), RedactError> {
    let mut at = 0;
    while at < fixed.shown.len() {
        let end = fixed.shown[at..]
            .iter()
            .position(|&c| c == '\n')
            .map_or(fixed.shown.len(), |p| at + p);
        let paragraph: String = fixed.shown[at..end].iter().collect();
        let mut written: Vec<char> = fixed.shown[at..end].to_vec();
        let starts: Vec<usize> = paragraph.char_indices().map(|(i, _)| i).collect();
        let index_of = |byte: usize| starts.partition_point(|&s| s < byte);
        let replaces = match paragraph.trim().is_empty() {
            true => Vec::new(),
            false => masker.replacements(&paragraph)?,
        };
        for replace in replaces {
            replaced.push(paragraph[replace.start..replace.end].to_string());
            // Each unit to write: its character's index in the paragraph, its place, whether wide.
            let units: Vec<(usize, usize, bool)> = (index_of(replace.start)..index_of(replace.end))
                .flat_map(|i| {
                    let (place, count, wide) = fixed.places[at + i];
                    let width = if wide { 2 } else { 1 };
                    (0..count as usize).map(move |k| (i, place + k * width, wide))
                })
                .collect();
            let out = in_place(&replace.with, units.len(), |n, c| match units[n].2 {
                true => c.len_utf16() == 1,
                false => eight(c).is_some(),
            });
            redacted
                .written
                .push(out.iter().collect::<String>().trim_end().to_string());
            for (&(i, place, wide), c) in units.iter().zip(out) {
                match wide {
                    true => {
                        let mut unit = [0u16; 2];
                        c.encode_utf16(&mut unit);
                        if let Some(slot) = stream.get_mut(place..place + 2) {
                            slot.copy_from_slice(&unit[0].to_le_bytes());
                        }
                    }
                    false => {
                        if let (Some(slot), Some(byte)) = (stream.get_mut(place), eight(c)) {
                            *slot = byte;
                        }
                    }
                }
                written[i] = c;
            }
        }
        redacted.left.extend(written);
        redacted.left.push('\n');
        at = end + 1;
    }
    Ok(())
}

/// What is written over a value whose characters have fixed places (`count` of them): the policy's
/// replacement `with`, padded with spaces, when it fits and `storable` takes each of its characters
/// at its place; else an `X` in every place.
pub(super) fn in_place(
    with: &str,
    count: usize,
    storable: impl Fn(usize, char) -> bool,
) -> Vec<char> {
    let wanted: Vec<char> = with.chars().collect();
    if wanted.len() <= count && wanted.iter().enumerate().all(|(i, &c)| storable(i, c)) {
        let mut out = wanted;
        out.resize(count, ' ');
        return out;
    }
    vec!['X'; count]
}

/// Whether `c` is stored in one windows-1252 byte.
pub(super) fn in_windows_1252(c: char) -> Option<u8> {
    let mut buffer = [0u8; 4];
    let (bytes, _, unmappable) = encoding_rs::WINDOWS_1252.encode(c.encode_utf8(&mut buffer));
    match (unmappable, &bytes[..]) {
        (false, [byte]) => Some(*byte),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replacement_takes_the_values_places_or_x_fills_them() {
        assert_eq!(
            in_place("[A]", 5, |_, _| true)
                .into_iter()
                .collect::<String>(),
            "[A]  "
        );
        assert_eq!(
            in_place("[MASKED]", 5, |_, _| true)
                .into_iter()
                .collect::<String>(),
            "XXXXX"
        );
        assert_eq!(
            in_place("Ağa", 5, |_, c| in_windows_1252(c).is_some())
                .into_iter()
                .collect::<String>(),
            "XXXXX"
        );
        assert_eq!(in_windows_1252('é'), Some(0xE9));
        assert_eq!(in_windows_1252('ğ'), None);
    }
}
