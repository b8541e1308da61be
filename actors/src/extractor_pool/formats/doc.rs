//! Word 97-2003 (`.doc`, [MS-DOC]): the text from the piece table, whatever the file's save history
//! (a fast-saved file's pieces are out of order in the stream; the table puts them back), 8-bit
//! (windows-1252) and UTF-16 pieces alike. The character positions hold the main text, then the
//! footnotes, headers and footers, comments, endnotes and text boxes; each is read as paragraphs (the
//! headers and footers split into their stories by the header table, each one once). Paragraph
//! properties (from the formatted disk pages) say which paragraph ends a table row, so that a table
//! comes out as rows of cells, and which style a paragraph has, so that headings keep their level.
//! Fields show their result, not their instruction. Document properties come from the summary
//! information stream. An encrypted or obfuscated file is `encrypted_document`.

use super::super::error::ExtractError;
use super::super::limits::Limits;
use super::compound::{self, u16_at, u32_at, Compound, Kind};
use super::doc_text::{opened, Opened, Text, PAIR_PLCF_BTE_CHPX, PAIR_PLCF_BTE_PAPX};
use super::doc_text::{PAIR_PLCF_HDD, PAIR_STSHF};
use crate::model::{Attachment, Builder, Document, Element, ElementKind};

/// What a paragraph's properties say: its style, whether it is in a table or ends a table row,
/// its list (a list item when it has one) and level, its outline level.
#[derive(Clone, Copy, Default)]
struct Paragraph {
    istd: u16,
    in_table: bool,
    row_end: bool,
    list: u16,
    list_level: u8,
    /// 0-8 for an outline level of its own (a heading whatever its style); 9 or none for body text.
    outline: Option<u8>,
}

/// The last of the sorted `count` positions `position(i)` that is at most `fc`, when `fc` is also
/// before the next one: the run (or page) holding `fc`.
fn run_holding(count: usize, fc: u32, position: impl Fn(usize) -> Option<u32>) -> Option<usize> {
    let (mut low, mut high) = (0, count);
    while low < high {
        let middle = (low + high) / 2;
        if position(middle)? <= fc {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    let run = low.checked_sub(1)?;
    (fc < position(run + 1)?).then_some(run)
}

/// Formatted disk pages (FKPs) found through a bin table (PlcBtePapx or PlcBteChpx): the page and the
/// run holding a file position.
struct Bins<'s> {
    document: &'s [u8],
    /// (first fc, last fc, page number) of each formatted disk page.
    pages: Vec<(u32, u32, u32)>,
}

impl<'s> Bins<'s> {
    fn new(document: &'s [u8], table: &[u8], plc: Option<(usize, usize)>) -> Bins<'s> {
        let mut pages = Vec::new();
        if let Some((start, length)) = plc {
            let plc = table
                .get(start..start.saturating_add(length).min(table.len()))
                .unwrap_or_default();
            if plc.len() >= 12 {
                let n = (plc.len() - 4) / 8;
                for i in 0..n {
                    if let (Some(a), Some(b), Some(pn)) = (
                        u32_at(plc, 4 * i),
                        u32_at(plc, 4 * (i + 1)),
                        u32_at(plc, 4 * (n + 1) + 4 * i),
                    ) {
                        pages.push((a, b, pn & 0x3F_FFFF));
                    }
                }
            }
        }
        Bins { document, pages }
    }

    /// The 512-byte page holding `fc`, its run count and the run holding `fc`. The pages and the
    /// runs of a page are sorted by file position (a file whose are not finds no properties, as a
    /// file without them).
    fn run(&self, fc: u32) -> Option<(&'s [u8], usize, usize)> {
        let page = run_holding(self.pages.len(), fc, |i| {
            self.pages
                .get(i)
                .map(|p| p.0)
                .or_else(|| self.pages.last().map(|p| p.1))
        })?;
        let start = self.pages.get(page)?.2 as usize * 512;
        let page = self.document.get(start..start + 512)?;
        let runs = page[511] as usize;
        let run = run_holding(runs, fc, |j| u32_at(page, 4 * j))?;
        Some((page, runs, run))
    }
}

/// Each sprm of a grpprl with the place of its operand.
fn sprms(grpprl: &[u8]) -> impl Iterator<Item = (u16, usize)> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        let sprm = u16_at(grpprl, at)?;
        let operand_at = at + 2;
        let operand = match sprm >> 13 {
            0 | 1 => 1,
            2 | 4 | 5 => 2,
            3 => 4,
            7 => 3,
            _ => {
                // Variable: sprmTDefTable and sprmPChgTabs have sizes of their own kinds.
                if sprm == 0xD608 {
                    u16_at(grpprl, operand_at).unwrap_or(0) as usize + 1
                } else {
                    grpprl.get(operand_at).copied().unwrap_or(0) as usize + 1
                }
            }
        };
        at = operand_at + operand;
        Some((sprm, operand_at))
    })
}

/// The paragraph properties, found by the file position of a paragraph's last character.
struct Papx<'s>(Bins<'s>);

impl Papx<'_> {
    fn at(&self, fc: u32) -> Paragraph {
        let Some((page, runs, run)) = self.0.run(fc) else {
            return Paragraph::default();
        };
        let offset = page.get(4 * (runs + 1) + 13 * run).copied().unwrap_or(0) as usize * 2;
        if offset == 0 {
            return Paragraph::default();
        }
        let (grpprl_at, size) = match page.get(offset).copied().unwrap_or(0) {
            0 => (
                offset + 2,
                page.get(offset + 1).copied().unwrap_or(0) as usize * 2,
            ),
            cb => (offset + 1, cb as usize * 2 - 1),
        };
        let Some(grpprl) = page.get(grpprl_at..(grpprl_at + size).min(512)) else {
            return Paragraph::default();
        };
        let mut paragraph = Paragraph {
            istd: u16_at(grpprl, 0).unwrap_or(0),
            ..Paragraph::default()
        };
        for (sprm, at) in sprms(grpprl.get(2..).unwrap_or_default()) {
            let at = at + 2;
            let byte = grpprl.get(at).copied().unwrap_or(0);
            match sprm {
                // sprmPFTtp, sprmPFInnerTtp: the mark ends a row.
                0x2417 | 0x244C if byte != 0 => paragraph.row_end = true,
                // sprmPFInTable, sprmPItap: the paragraph is in a table's cell.
                0x2416 => paragraph.in_table = byte != 0,
                0x6649 => paragraph.in_table = u32_at(grpprl, at).unwrap_or(0) != 0,
                // sprmPIlfo, sprmPIlvl: the list and the level of a list item.
                0x460B => paragraph.list = u16_at(grpprl, at).unwrap_or(0),
                0x260A => paragraph.list_level = byte.min(8),
                // sprmPOutLvl.
                0x2640 => paragraph.outline = (byte < 9).then_some(byte),
                _ => {}
            }
        }
        paragraph
    }
}

/// The character properties: whether a character is a special one (sprmCFSpec: a picture, a
/// footnote mark, a drawn object, an embedded object's anchor; sprmCSymbol: a symbol font's glyph,
/// a Wingdings tick or smiley), not text.
struct Chpx<'s>(Bins<'s>);

impl Chpx<'_> {
    fn special(&self, fc: u32) -> bool {
        let Some((page, runs, run)) = self.0.run(fc) else {
            return false;
        };
        let offset = page.get(4 * (runs + 1) + run).copied().unwrap_or(0) as usize * 2;
        if offset == 0 {
            return false;
        }
        let size = page.get(offset).copied().unwrap_or(0) as usize;
        let Some(grpprl) = page.get(offset + 1..(offset + 1 + size).min(512)) else {
            return false;
        };
        // sprmCFSpec set, or sprmCSymbol (the character shows a symbol font's glyph instead).
        sprms(grpprl).any(|(sprm, at)| {
            sprm == 0x6A09 || sprm == 0x0855 && grpprl.get(at).is_some_and(|&v| v != 0)
        })
    }
}

/// The style sheet's heading levels: istd -> level (0: title), from the built-in style ids.
fn heading_styles(table: &[u8], stsh: Option<(usize, usize)>) -> Vec<Option<u8>> {
    let Some((start, length)) = stsh else {
        return Vec::new();
    };
    let Some(stsh) = table.get(start..start.saturating_add(length).min(table.len())) else {
        return Vec::new();
    };
    let header = u16_at(stsh, 0).unwrap_or(0) as usize;
    let count = u16_at(stsh, 2).unwrap_or(0) as usize;
    let mut at = 2 + header;
    let mut levels = Vec::with_capacity(count.min(4096));
    for _ in 0..count.min(4096) {
        let Some(size) = u16_at(stsh, at) else {
            break;
        };
        let level = if size == 0 {
            None
        } else {
            match u16_at(stsh, at + 2).map(|w| w & 0x0FFF) {
                Some(sti @ 1..=9) => Some(sti as u8),
                Some(62) => Some(0),
                _ => None,
            }
        };
        levels.push(level);
        at += 2 + size as usize;
    }
    levels
}

/// Turns a story's characters into elements: paragraphs, table rows, page breaks; fields' results.
struct Story<'b, 's> {
    builder: &'b mut Builder,
    papx: &'s Papx<'s>,
    chpx: &'s Chpx<'s>,
    headings: &'s [Option<u8>],
    kind: ElementKind,
    paragraph: String,
    row: Vec<String>,
    rows: Vec<Vec<String>>,
    /// Open fields: true once past the separator (their result shows).
    fields: Vec<bool>,
    pushed: Vec<String>,
    /// The file position of the last character read.
    last_fc: u32,
}

impl Story<'_, '_> {
    fn character(&mut self, c: char, fc: u32) {
        self.last_fc = fc;
        match c {
            '\u{13}' => self.fields.push(false),
            '\u{14}' => {
                if let Some(top) = self.fields.last_mut() {
                    *top = true;
                }
            }
            '\u{15}' => {
                self.fields.pop();
            }
            _ if self.fields.iter().any(|shown| !shown) => {}
            // A paragraph inside a cell: the cell goes on on a new line (its mark ends it).
            '\r' if self.kind == ElementKind::Paragraph && self.papx.at(fc).in_table => {
                self.paragraph.push('\n')
            }
            '\r' => self.end_paragraph(fc),
            '\u{7}' => {
                let properties = self.papx.at(fc);
                let cell = std::mem::take(&mut self.paragraph).trim().to_string();
                if properties.row_end {
                    let row = std::mem::take(&mut self.row);
                    if row.iter().any(|c| !c.is_empty()) {
                        self.rows.push(row);
                    }
                } else {
                    self.row.push(cell);
                }
            }
            '\u{b}' => self.paragraph.push('\n'),
            '\u{c}' => {
                self.end_paragraph(fc);
                if self.kind == ElementKind::Paragraph {
                    self.builder
                        .push(Element::new(ElementKind::PageBreak, String::new()));
                }
            }
            '\u{1e}' => self.paragraph.push('-'),
            // The printable codes a special character is stored as: a symbol ('('), an annotation's
            // range marks ('<', '>'); as text, they are themselves.
            '(' | '<' | '>' if self.chpx.special(fc) => {}
            '\t' => self.paragraph.push('\t'),
            c if (c as u32) < 0x20 => {}
            c => self.paragraph.push(c),
        }
    }

    fn end_paragraph(&mut self, fc: u32) {
        self.finish_table();
        let text = std::mem::take(&mut self.paragraph);
        let text = text.trim();
        if text.is_empty() {
            return;
        }
        let mut kind = self.kind;
        let mut level = None;
        if kind == ElementKind::Paragraph {
            let properties = self.papx.at(fc);
            let style = self
                .headings
                .get(properties.istd as usize)
                .copied()
                .flatten();
            match (style, properties.outline) {
                (Some(0), _) => kind = ElementKind::Title,
                (Some(l), _) => {
                    kind = ElementKind::Heading;
                    level = Some(l);
                }
                (None, Some(outline)) => {
                    kind = ElementKind::Heading;
                    level = Some(outline + 1);
                }
                (None, _) if properties.list != 0 => {
                    kind = ElementKind::ListItem;
                    level = Some(properties.list_level + 1);
                }
                (None, _) => {}
            }
        } else if self.pushed.iter().any(|p| p == text) {
            // A header or footer repeated by every section is kept once.
            return;
        }
        self.pushed.push(text.to_string());
        self.builder.push(Element {
            level,
            ..Element::new(kind, text)
        });
    }

    fn finish_table(&mut self) {
        if !self.row.is_empty() {
            let row = std::mem::take(&mut self.row);
            self.rows.push(row);
        }
        let rows = std::mem::take(&mut self.rows);
        self.builder.push_rows(rows, 2, None);
    }
}

/// `depth`: how many attachments deep the document is; `extract_child` reads an embedded file.
pub fn extract(
    file: Compound<'_>,
    limits: &Limits,
    builder: &mut Builder,
    depth: u32,
    extract_child: &mut dyn FnMut(&[u8]) -> Result<Document, ExtractError>,
) -> Result<(), ExtractError> {
    let Opened {
        document,
        fib,
        table,
        pieces,
        ..
    } = opened(&file)?;
    let text = Text {
        document: &document,
        pieces: &pieces,
    };
    let papx = Papx(Bins::new(&document, &table, fib.pair(PAIR_PLCF_BTE_PAPX)));
    let chpx = Chpx(Bins::new(&document, &table, fib.pair(PAIR_PLCF_BTE_CHPX)));
    let headings = heading_styles(&table, fib.pair(PAIR_STSHF));
    let [main, footnotes, headers, macros, comments, endnotes, boxes, header_boxes] = fib.lengths;
    if u64::from(main) > limits.max_bytes {
        return Err(ExtractError::LimitExceeded(format!(
            "more than {} characters",
            limits.max_bytes
        )));
    }
    let mut story = Story {
        builder: &mut *builder,
        papx: &papx,
        chpx: &chpx,
        headings: &headings,
        kind: ElementKind::Paragraph,
        paragraph: String::new(),
        row: Vec::new(),
        rows: Vec::new(),
        fields: Vec::new(),
        pushed: Vec::new(),
        last_fc: 0,
    };
    let read = |story: &mut Story<'_, '_>, from: u32, to: u32, kind: ElementKind| {
        story.kind = kind;
        story.fields.clear();
        text.characters(from, to, |c, fc, _| story.character(c, fc));
        story.end_paragraph(story.last_fc);
        story.finish_table();
    };
    // Headers and footers first, as the DOCX reader gives them; the header story is cut into its
    // stories by the header table (6 separators, then per section even/odd/first headers and footers).
    let header_start = main + footnotes;
    if headers > 0 {
        let plc = fib
            .pair(PAIR_PLCF_HDD)
            .and_then(|(start, length)| {
                table.get(start..start.saturating_add(length).min(table.len()))
            })
            .unwrap_or_default();
        let cps: Vec<u32> = (0..plc.len() / 4)
            .filter_map(|i| u32_at(plc, 4 * i))
            .collect();
        if cps.len() > 7 {
            for (index, window) in cps.windows(2).enumerate().skip(6) {
                let kind = match (index - 6) % 6 {
                    0 | 1 | 4 => ElementKind::Header,
                    _ => ElementKind::Footer,
                };
                if window[1] > window[0] {
                    read(
                        &mut story,
                        header_start + window[0],
                        header_start + window[1].min(headers),
                        kind,
                    );
                }
            }
        } else {
            read(
                &mut story,
                header_start,
                header_start + headers,
                ElementKind::Header,
            );
        }
    }
    story.pushed.clear();
    read(&mut story, 0, main, ElementKind::Paragraph);
    let mut at = main;
    for (length, read_it) in [
        (footnotes, true),
        (headers, false),
        (macros, false),
        (comments, true),
        (endnotes, true),
        (boxes, true),
        (header_boxes, true),
    ] {
        if read_it && length > 0 {
            read(&mut story, at, at + length, ElementKind::Paragraph);
        }
        at += length;
    }
    compound::summary_information(&file, builder);
    embedded_objects(&file, limits, depth, builder, extract_child);
    Ok(())
}

/// The most embedded objects a document's attachments are read from (each is read as a document).
const MAX_EMBEDDED_OBJECTS: usize = 256;

/// The objects embedded in the document (its `ObjectPool`: files, Word and PowerPoint documents,
/// workbooks), each an attachment with its document or its error code; objects that hold no
/// document (equations, drawings) are left out.
fn embedded_objects(
    file: &Compound<'_>,
    limits: &Limits,
    depth: u32,
    builder: &mut Builder,
    extract_child: &mut dyn FnMut(&[u8]) -> Result<Document, ExtractError>,
) {
    let Some(pool) = file.find_in(file.root(), "ObjectPool") else {
        return;
    };
    let objects = file
        .children(pool)
        .into_iter()
        .filter(|&i| file.entries[i].kind == Kind::Storage);
    for object in objects.take(MAX_EMBEDDED_OBJECTS) {
        let name = file.entries[object].name.clone();
        let (filename, bytes, document, error) =
            match compound::embedded_object(file, object, limits, depth + 1, extract_child) {
                Ok(None) => continue,
                Ok(Some(found)) => (
                    found.label.unwrap_or(name),
                    found.bytes,
                    Some(Box::new(found.document)),
                    None,
                ),
                Err(error) => (name, 0, None, Some(error.code().to_string())),
            };
        let mime = document
            .as_ref()
            .map(|d| d.metadata.mime.clone())
            .unwrap_or_else(|| "application/octet-stream".to_string());
        builder.document.attachments.push(Attachment {
            filename,
            mime,
            bytes,
            document,
            error,
        });
    }
}
