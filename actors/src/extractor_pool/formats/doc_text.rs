//! Where a Word 97-2003 document keeps its text ([MS-DOC]): the file information block, the piece
//! table, each character with the place it is stored at. The reader (`doc.rs`) reads the stories from
//! here; the writer (`redaction/doc.rs`) overwrites values in place from here.

use super::super::error::ExtractError;
use super::compound::{u16_at, u32_at, Compound};

pub(super) fn malformed(what: impl std::fmt::Display) -> ExtractError {
    ExtractError::Malformed(format!("Word 97-2003 document: {what}"))
}

/// One piece of the text: character positions `[start, end)` stored from `fc` on, 8-bit or UTF-16.
#[derive(Clone, Copy, Debug)]
pub(super) struct Piece {
    start: u32,
    end: u32,
    fc: u32,
    compressed: bool,
}

/// The file information block's parts this reader uses.
pub(super) struct Fib {
    pub flags: u16,
    /// ccpText, ccpFtn, ccpHdd, ccpMcr, ccpAtn, ccpEdn, ccpTxbx, ccpHdrTxbx.
    pub lengths: [u32; 8],
    /// (fc, lcb) pairs of FibRgFcLcb.
    pub pairs: Vec<(u32, u32)>,
}

impl Fib {
    fn read(stream: &[u8]) -> Result<Fib, ExtractError> {
        if u16_at(stream, 0) != Some(0xA5EC) {
            return Err(malformed("no Word file information block"));
        }
        // Word 6.0 and 95 (nFib below 193) wrote another layout.
        if u16_at(stream, 2).is_some_and(|n| n < 0x00C1) {
            return Err(ExtractError::LegacyFormat(
                "Word 6.0/95 document (.doc): save it as .docx".to_string(),
            ));
        }
        let flags = u16_at(stream, 0x0A).unwrap_or(0);
        let csw = u16_at(stream, 32).ok_or_else(|| malformed("short header"))? as usize;
        let lw_at = 34 + csw * 2;
        let cslw = u16_at(stream, lw_at).ok_or_else(|| malformed("short header"))? as usize;
        let mut lengths = [0u32; 8];
        for (i, length) in lengths.iter_mut().enumerate() {
            *length = u32_at(stream, lw_at + 2 + 4 * (3 + i)).unwrap_or(0);
        }
        let pairs_at = lw_at + 2 + cslw * 4;
        let count = u16_at(stream, pairs_at).unwrap_or(0) as usize;
        let pairs = (0..count)
            .map_while(|i| {
                let at = pairs_at + 2 + 8 * i;
                Some((u32_at(stream, at)?, u32_at(stream, at + 4)?))
            })
            .collect();
        Ok(Fib {
            flags,
            lengths,
            pairs,
        })
    }

    pub fn pair(&self, index: usize) -> Option<(usize, usize)> {
        self.pairs
            .get(index)
            .filter(|(_, lcb)| *lcb > 0)
            .map(|&(fc, lcb)| (fc as usize, lcb as usize))
    }
}

pub(super) const PAIR_STSHF: usize = 1;
pub(super) const PAIR_PLCF_HDD: usize = 11;
pub(super) const PAIR_PLCF_BTE_CHPX: usize = 12;
pub(super) const PAIR_PLCF_BTE_PAPX: usize = 13;
pub(super) const PAIR_CLX: usize = 33;

/// The piece table (the CLX's Pcdt), skipping the property modifiers before it.
fn pieces(table: &[u8], clx: (usize, usize)) -> Result<Vec<Piece>, ExtractError> {
    let (start, length) = clx;
    let clx = table
        .get(start..start.saturating_add(length).min(table.len()))
        .ok_or_else(|| malformed("the piece table is outside the table stream"))?;
    let mut at = 0;
    while clx.get(at) == Some(&0x01) {
        let size = u16_at(clx, at + 1).unwrap_or(0) as usize;
        at += 3 + size;
    }
    if clx.get(at) != Some(&0x02) {
        return Err(malformed("no piece table"));
    }
    let size = u32_at(clx, at + 1).unwrap_or(0) as usize;
    let plc = clx
        .get(at + 5..(at + 5).saturating_add(size).min(clx.len()))
        .unwrap_or_default();
    if plc.len() < 16 {
        return Err(malformed("an empty piece table"));
    }
    let n = (plc.len() - 4) / 12;
    let mut pieces = Vec::with_capacity(n);
    for i in 0..n {
        let (Some(start), Some(end)) = (u32_at(plc, 4 * i), u32_at(plc, 4 * (i + 1))) else {
            break;
        };
        let descriptor = 4 * (n + 1) + 8 * i;
        let Some(raw) = u32_at(plc, descriptor + 2) else {
            break;
        };
        let compressed = raw & 0x4000_0000 != 0;
        let fc = raw & 0x3FFF_FFFF;
        if end > start {
            pieces.push(Piece {
                start,
                end,
                fc: if compressed { fc / 2 } else { fc },
                compressed,
            });
        }
    }
    Ok(pieces)
}

/// Reads the text of the character positions `range`, character by character with its file position.
pub(super) struct Text<'s> {
    pub document: &'s [u8],
    pub pieces: &'s [Piece],
}

impl Text<'_> {
    /// Each character of `[from, to)` with the file position it is stored at, and whether its piece
    /// is 8-bit.
    pub fn characters(&self, from: u32, to: u32, mut each: impl FnMut(char, u32, bool)) {
        for piece in self.pieces {
            let (start, end) = (piece.start.max(from), piece.end.min(to));
            if start >= end {
                continue;
            }
            let offset = start - piece.start;
            if piece.compressed {
                let at = (piece.fc + offset) as usize;
                let Some(bytes) = self
                    .document
                    .get(at..(at + (end - start) as usize).min(self.document.len()))
                else {
                    continue;
                };
                for (i, &b) in bytes.iter().enumerate() {
                    each(windows_1252(b), piece.fc + offset + i as u32, true);
                }
            } else {
                let at = (piece.fc + 2 * offset) as usize;
                let length = 2 * (end - start) as usize;
                let Some(bytes) = self
                    .document
                    .get(at..(at + length).min(self.document.len()))
                else {
                    continue;
                };
                let units = bytes
                    .chunks_exact(2)
                    .map(|p| u16::from_le_bytes([p[0], p[1]]));
                let mut position = piece.fc + 2 * offset;
                for c in char::decode_utf16(units) {
                    let c = c.unwrap_or('\u{FFFD}');
                    each(c, position, false);
                    position += 2 * c.len_utf16() as u32;
                }
            }
        }
    }
}

/// An 8-bit piece's byte: windows-1252 (the compressed pieces' code page by the specification).
pub(super) fn windows_1252(byte: u8) -> char {
    if byte < 0x80 {
        return byte as char;
    }
    let bytes = [byte];
    let (text, _, _) = encoding_rs::WINDOWS_1252.decode(&bytes);
    text.chars().next().unwrap_or('\u{FFFD}')
}

/// A Word document's streams opened: its WordDocument stream, file information block, table stream
/// (and its name) and piece table; `encrypted_document` when it is encrypted or obfuscated.
pub(super) struct Opened {
    pub document: Vec<u8>,
    pub fib: Fib,
    pub table_name: &'static str,
    pub table: Vec<u8>,
    pub pieces: Vec<Piece>,
}

pub(super) fn opened(file: &Compound<'_>) -> Result<Opened, ExtractError> {
    let document = file
        .stream("WordDocument")
        .ok_or_else(|| malformed("no WordDocument stream"))?;
    let fib = Fib::read(&document)?;
    // fEncrypted (bit 8) and fObfuscated (bit 15).
    if fib.flags & 0x0100 != 0 || fib.flags & 0x8000 != 0 {
        return Err(ExtractError::EncryptedDocument);
    }
    let table_name = if fib.flags & 0x0200 != 0 {
        "1Table"
    } else {
        "0Table"
    };
    let table = file
        .stream(table_name)
        .ok_or_else(|| malformed(format_args!("no {table_name} stream")))?;
    let clx = fib
        .pair(PAIR_CLX)
        .ok_or_else(|| malformed("no piece table"))?;
    let pieces = pieces(&table, clx)?;
    Ok(Opened {
        document,
        fib,
        table_name,
        table,
        pieces,
    })
}

/// A Word document's text where it is stored, for its writer.
pub(crate) struct Stored {
    /// The file information block's flags (`fComplex`, 0x0004: fast-saved).
    pub flags: u16,
    /// `0Table` or `1Table`.
    pub table_name: &'static str,
    /// The file information block's (fc, lcb) pairs, into the table stream.
    pub pairs: Vec<(u32, u32)>,
    /// Every character of every story (main text, footnotes, headers, comments, endnotes, text
    /// boxes; field instructions too), in order: the character, where it is stored in the
    /// WordDocument stream, and whether in one byte (windows-1252) rather than UTF-16.
    pub characters: Vec<(char, u32, bool)>,
}

pub(crate) fn stored(file: &Compound<'_>) -> Result<Stored, ExtractError> {
    let opened = opened(file)?;
    let text = Text {
        document: &opened.document,
        pieces: &opened.pieces,
    };
    let mut characters = Vec::new();
    text.characters(0, u32::MAX, |c, fc, compressed| {
        characters.push((c, fc, compressed))
    });
    Ok(Stored {
        flags: opened.fib.flags,
        table_name: opened.table_name,
        pairs: opened.fib.pairs,
        characters,
    })
}
