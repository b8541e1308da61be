//! PowerPoint 97-2003 (`.ppt`, [MS-PPT]): the `PowerPoint Document` stream is a sequence of records;
//! the `Current User` stream points at the last edit, whose chain of edits gives the persist
//! directory (object id -> stream offset). The document's slide list names the slides in order with
//! their placeholders' text (titles and bodies); each slide's own drawing holds the text of its other
//! shapes (text boxes, table cells), its notes page the speaker notes. Slides are pages; master slides
//! (template text) are left out. A file whose structure cannot be followed is read record by record,
//! every slide's and notes' text in stream order. An encrypted file is `encrypted_document`.

use std::collections::HashMap;

use super::super::error::ExtractError;
use super::super::limits::Limits;
use super::compound::{self, u16_at, u32_at, Compound};
use crate::model::{Builder, Element, ElementKind};

const DOCUMENT: u16 = 0x03E8;
const SLIDE: u16 = 0x03EE;
const SLIDE_ATOM: u16 = 0x03EF;
const NOTES: u16 = 0x03F0;
const SLIDE_PERSIST_ATOM: u16 = 0x03F3;
const MAIN_MASTER: u16 = 0x03F8;
const TEXT_HEADER_ATOM: u16 = 0x0F9F;
const TEXT_CHARS_ATOM: u16 = 0x0FA0;
/// Text in bytes, each the low byte of a UTF-16 unit (the writer tells it from UTF-16 text).
pub(crate) const TEXT_BYTES_ATOM: u16 = 0x0FA8;
const SLIDE_LIST_WITH_TEXT: u16 = 0x0FF0;
const USER_EDIT_ATOM: u16 = 0x0FF5;
const PERSIST_DIRECTORY_ATOM: u16 = 0x1772;
// Office drawing records ([MS-ODRAW]) inside a slide's drawing.
const GROUP_CONTAINER: u16 = 0xF003;
const SHAPE_CONTAINER: u16 = 0xF004;
const SHAPE_ATOM: u16 = 0xF00A;
const PROPERTIES: u16 = 0xF00B;
const CHILD_ANCHOR: u16 = 0xF00F;
const TERTIARY_PROPERTIES: u16 = 0xF122;
const TABLE_PROPERTIES: u16 = 0x039F;
/// The shape type (an FSP's instance) of a line: a table's borders.
const LINE_SHAPE: u16 = 20;
/// The most cells a table's grid is laid out with.
const MAX_TABLE_CELLS: usize = 65_536;

/// A record: its type, instance, whether it is a container, and its body's place in the stream.
#[derive(Clone, Copy, Debug)]
struct Record {
    kind: u16,
    instance: u16,
    container: bool,
    body: usize,
    end: usize,
}

fn record_at(stream: &[u8], at: usize) -> Option<Record> {
    let head = u16_at(stream, at)?;
    let kind = u16_at(stream, at + 2)?;
    let length = u32_at(stream, at + 4)? as usize;
    let body = at + 8;
    Some(Record {
        kind,
        instance: head >> 4,
        container: head & 0x0F == 0x0F,
        body,
        end: body.saturating_add(length).min(stream.len()),
    })
}

/// The records directly inside `[from, to)`.
fn children(stream: &[u8], from: usize, to: usize) -> Vec<Record> {
    let mut found = Vec::new();
    let mut at = from;
    while at + 8 <= to {
        let Some(record) = record_at(stream, at) else {
            break;
        };
        found.push(record);
        if record.end <= at {
            break;
        }
        at = record.end;
    }
    found
}

/// The text of a text atom, if `record` is one.
fn atom_text(stream: &[u8], record: &Record) -> Option<String> {
    let body = stream.get(record.body..record.end)?;
    match record.kind {
        TEXT_CHARS_ATOM => {
            let units: Vec<u16> = body
                .chunks_exact(2)
                .map(|p| u16::from_le_bytes([p[0], p[1]]))
                .collect();
            Some(String::from_utf16_lossy(&units))
        }
        // Each byte is the low byte of a UTF-16 code unit whose high byte is zero.
        TEXT_BYTES_ATOM => Some(body.iter().map(|&b| b as char).collect()),
        _ => None,
    }
}

/// How much of a stream a walk may still read: records in all, and containers deep (a hostile
/// stream of nested headers would otherwise recurse until the stack ends; PowerPoint nests a few).
struct Budget {
    records: usize,
    depth: usize,
}

const MAX_RECORDS: usize = 1_000_000;
const MAX_DEPTH: usize = 32;

impl Budget {
    fn new() -> Budget {
        Budget {
            records: MAX_RECORDS,
            depth: 0,
        }
    }

    /// One record more, if any is left.
    fn take(&mut self) -> bool {
        self.records = self.records.saturating_sub(1);
        self.records > 0
    }

    /// Runs `walk` one container deeper, unless that is too deep.
    fn deeper(&mut self, walk: impl FnOnce(&mut Budget)) {
        if self.depth < MAX_DEPTH {
            self.depth += 1;
            walk(self);
            self.depth -= 1;
        }
    }
}

/// A record that holds text, for the writer: its type and instance, its body's place in the stream,
/// and the type of the container it is in.
pub(crate) struct TextRecord {
    pub kind: u16,
    pub instance: u16,
    pub body: std::ops::Range<usize>,
    pub parent: u16,
}

/// A string atom: a comment's author, text and initials, a hyperlink's name and target, a slide's name.
pub(crate) const CSTRING: u16 = 0x0FBA;

/// Every record of the stream, as deep and as many as a walk may read, old superseded versions of a
/// record (an incremental save keeps them) included: `visit` sees each with the type of the container
/// it is in, and says whether to go into it.
fn walk_all(stream: &[u8], visit: &mut dyn FnMut(&Record, u16) -> bool) {
    fn walk(
        stream: &[u8],
        (from, to, parent): (usize, usize, u16),
        budget: &mut Budget,
        visit: &mut dyn FnMut(&Record, u16) -> bool,
    ) {
        for record in children(stream, from, to) {
            if !budget.take() {
                return;
            }
            if visit(&record, parent) && record.container {
                let inside = (record.body, record.end, record.kind);
                budget.deeper(|budget| walk(stream, inside, budget, visit));
            }
        }
    }
    walk(stream, (0, stream.len(), 0), &mut Budget::new(), visit);
}

/// Every text atom and string atom of the stream.
pub(crate) fn text_records(stream: &[u8]) -> Vec<TextRecord> {
    let mut out = Vec::new();
    walk_all(stream, &mut |record, parent| {
        if matches!(record.kind, TEXT_CHARS_ATOM | TEXT_BYTES_ATOM | CSTRING) {
            out.push(TextRecord {
                kind: record.kind,
                instance: record.instance,
                body: record.body..record.end,
                parent,
            });
        }
        true
    });
    out
}

/// The bodies of every record of type `kind` (not looked into).
pub(crate) fn records_of(stream: &[u8], kind: u16) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    walk_all(stream, &mut |record, _| {
        let found = record.kind == kind;
        if found {
            out.push(record.body..record.end);
        }
        !found
    });
    out
}

/// What a slide shows: a text with its kind, or a table's rows of cells.
enum Shown {
    Text(ElementKind, String),
    Table(Vec<Vec<String>>),
}

/// Every text atom inside `record` (as deep and as many records as `budget` allows), in stream
/// order, with the kind its text header gives it (a title placeholder's text is a title); a table (a
/// group shape marked as one) as its rows of cells.
fn texts_within(stream: &[u8], record: &Record, budget: &mut Budget, out: &mut Vec<Shown>) {
    let mut kind = ElementKind::Paragraph;
    for child in children(stream, record.body, record.end) {
        if !budget.take() {
            return;
        }
        if child.kind == GROUP_CONTAINER && is_table(stream, &child) {
            budget.deeper(|budget| out.push(Shown::Table(table_rows(stream, &child, budget))));
        } else if child.container {
            budget.deeper(|budget| texts_within(stream, &child, budget, out));
        } else if child.kind == TEXT_HEADER_ATOM {
            kind = title_or_text(u32_at(stream, child.body));
        } else if let Some(text) = atom_text(stream, &child) {
            out.push(Shown::Text(kind, text));
        }
    }
}

/// Whether a group shape is a table: its own shape (the group's first) has the `tableProperties`
/// property ([MS-PPT] 2.13.x; pid 0x39F) in one of its property tables.
fn is_table(stream: &[u8], group: &Record) -> bool {
    let Some(own) = children(stream, group.body, group.end)
        .into_iter()
        .find(|r| r.kind == SHAPE_CONTAINER)
    else {
        return false;
    };
    children(stream, own.body, own.end)
        .into_iter()
        .filter(|r| matches!(r.kind, PROPERTIES | TERTIARY_PROPERTIES))
        .any(|table| {
            (0..table.instance as usize)
                .filter_map(|i| u16_at(stream, table.body + 6 * i))
                .any(|pid| pid & 0x3FFF == TABLE_PROPERTIES)
        })
}

/// A table's cells: its shapes with text (border lines left out), placed in rows by their top edge
/// and in columns by their left edge (a merged cell takes the first of its columns).
fn table_rows(stream: &[u8], group: &Record, budget: &mut Budget) -> Vec<Vec<String>> {
    let mut cells: Vec<(i32, i32, String)> = Vec::new();
    for shape in children(stream, group.body, group.end)
        .into_iter()
        .filter(|r| r.kind == SHAPE_CONTAINER)
        .skip(1)
    {
        let parts = children(stream, shape.body, shape.end);
        let line = parts
            .iter()
            .any(|r| r.kind == SHAPE_ATOM && r.instance == LINE_SHAPE);
        let anchor = parts.iter().find(|r| r.kind == CHILD_ANCHOR).and_then(|a| {
            Some((
                u32_at(stream, a.body + 4)? as i32,
                u32_at(stream, a.body)? as i32,
            ))
        });
        let (Some((top, left)), false) = (anchor, line) else {
            continue;
        };
        let mut texts = Vec::new();
        texts_within(stream, &shape, budget, &mut texts);
        let text = texts
            .into_iter()
            .filter_map(|shown| match shown {
                Shown::Text(_, text) => {
                    Some(text.replace(['\r', '\u{b}'], "\n").trim().to_string())
                }
                Shown::Table(_) => None,
            })
            .collect::<Vec<_>>()
            .join("\n");
        cells.push((top, left, text));
    }
    let mut lefts: Vec<i32> = cells.iter().map(|c| c.1).collect();
    lefts.sort_unstable();
    lefts.dedup();
    let mut tops: Vec<i32> = cells.iter().map(|c| c.0).collect();
    tops.sort_unstable();
    tops.dedup();
    // A grid of rows by columns; cells placed too irregularly for one (a hostile file's thousands of
    // distinct edges) are kept as rows of the cells sharing a top edge, left to right.
    let mut rows = if tops.len().saturating_mul(lefts.len()) <= MAX_TABLE_CELLS {
        let mut grid = vec![vec![String::new(); lefts.len()]; tops.len()];
        for (top, left, text) in cells {
            if let (Ok(row), Ok(column)) = (tops.binary_search(&top), lefts.binary_search(&left)) {
                grid[row][column] = text;
            }
        }
        grid
    } else {
        cells.sort_by_key(|&(top, left, _)| (top, left));
        let mut rows: Vec<Vec<String>> = Vec::new();
        let mut last_top = None;
        for (top, _, text) in cells {
            if last_top != Some(top) {
                rows.push(Vec::new());
                last_top = Some(top);
            }
            if let Some(row) = rows.last_mut() {
                row.push(text);
            }
        }
        rows
    };
    rows.retain(|row| row.iter().any(|cell| !cell.is_empty()));
    rows
}

/// The kind of a text header's type: 0 (title) and 6 (centred title) are titles.
fn title_or_text(text_type: Option<u32>) -> ElementKind {
    match text_type {
        Some(0 | 6) => ElementKind::Title,
        _ => ElementKind::Paragraph,
    }
}

/// The persist directory (object id -> stream offset) of the last edit and those before it.
fn persist_directory(
    stream: &[u8],
    current_user: &[u8],
) -> Option<(HashMap<u32, usize>, u32, bool)> {
    let mut edit = u32_at(current_user, 16)? as usize;
    let mut directory: HashMap<u32, usize> = HashMap::new();
    let mut document = None;
    let mut encrypted = false;
    let mut seen = 0;
    while seen < 1024 {
        seen += 1;
        let record = record_at(stream, edit)?;
        if record.kind != USER_EDIT_ATOM {
            break;
        }
        if document.is_none() {
            document = u32_at(stream, record.body + 16);
            // encryptSessionPersistIdRef is there only in an encrypted file's edit.
            encrypted = record.end - record.body >= 32;
        }
        let previous = u32_at(stream, record.body + 8)? as usize;
        let persist = u32_at(stream, record.body + 12)? as usize;
        if let Some(atom) = record_at(stream, persist).filter(|r| r.kind == PERSIST_DIRECTORY_ATOM)
        {
            let mut at = atom.body;
            while at + 4 <= atom.end {
                let entry = u32_at(stream, at)?;
                let (first, count) = (entry & 0xF_FFFF, (entry >> 20) as usize);
                at += 4;
                for i in 0..count {
                    let Some(offset) = u32_at(stream, at + 4 * i) else {
                        break;
                    };
                    // A later edit's entry wins over an earlier one's.
                    directory.entry(first + i as u32).or_insert(offset as usize);
                }
                at += 4 * count;
            }
        }
        if previous == 0 || previous == edit {
            break;
        }
        edit = previous;
    }
    Some((directory, document?, encrypted))
}

/// One slide as the slide list gives it: its persist id, the placeholders' texts with their kinds.
struct Listed {
    persist: u32,
    slide_id: u32,
    texts: Vec<(ElementKind, String)>,
}

fn slide_list(stream: &[u8], document: &Record, instance: u16) -> Vec<Listed> {
    let mut slides: Vec<Listed> = Vec::new();
    for list in children(stream, document.body, document.end)
        .into_iter()
        .filter(|r| r.kind == SLIDE_LIST_WITH_TEXT && r.instance == instance)
    {
        let mut kind = ElementKind::Paragraph;
        for record in children(stream, list.body, list.end) {
            match record.kind {
                SLIDE_PERSIST_ATOM => slides.push(Listed {
                    persist: u32_at(stream, record.body).unwrap_or(u32::MAX),
                    slide_id: u32_at(stream, record.body + 12).unwrap_or(u32::MAX),
                    texts: Vec::new(),
                }),
                TEXT_HEADER_ATOM => kind = title_or_text(u32_at(stream, record.body)),
                _ => {
                    if let (Some(text), Some(slide)) =
                        (atom_text(stream, &record), slides.last_mut())
                    {
                        slide.texts.push((kind, text));
                    }
                }
            }
        }
    }
    slides
}

fn push_text(builder: &mut Builder, kind: ElementKind, text: &str, page: Option<u32>) {
    for paragraph in text.split(['\r', '\n']) {
        let paragraph = paragraph.replace('\u{b}', "\n");
        let paragraph = paragraph.trim();
        // "*" stands for a field (the slide number, the date) in a placeholder.
        if paragraph.is_empty() || paragraph == "*" {
            continue;
        }
        builder.push(Element {
            page,
            ..Element::new(kind, paragraph)
        });
    }
}

/// A shape's text (as a paragraph on a notes page; not when the slide list already gave it) or a
/// table.
fn show(builder: &mut Builder, shown: Shown, page: Option<u32>, notes: bool, given: &[String]) {
    match shown {
        Shown::Text(_, text) if given.iter().any(|g| *g == text.trim()) => {}
        Shown::Text(kind, text) => {
            let kind = if notes { ElementKind::Paragraph } else { kind };
            push_text(builder, kind, &text, page);
        }
        Shown::Table(rows) => builder.push_rows(rows, 2, page),
    }
}

/// Every slide's and notes page's text in stream order, masters left out: for a file whose edit
/// chain or persist directory cannot be followed.
fn read_in_stream_order(stream: &[u8], builder: &mut Builder) -> u32 {
    let mut budget = Budget::new();
    let mut page = 0;
    fn visit(
        stream: &[u8],
        from: usize,
        to: usize,
        budget: &mut Budget,
        page: &mut u32,
        builder: &mut Builder,
    ) {
        for record in children(stream, from, to) {
            if !budget.take() {
                return;
            }
            match record.kind {
                MAIN_MASTER => {}
                SLIDE | NOTES => {
                    if record.kind == SLIDE {
                        *page += 1;
                    }
                    let mut texts = Vec::new();
                    texts_within(stream, &record, budget, &mut texts);
                    let page = Some(*page).filter(|p| *p > 0);
                    for shown in texts {
                        show(builder, shown, page, record.kind == NOTES, &[]);
                    }
                }
                _ if record.container => budget
                    .deeper(|budget| visit(stream, record.body, record.end, budget, page, builder)),
                _ => {
                    if let Some(text) = atom_text(stream, &record) {
                        push_text(builder, ElementKind::Paragraph, &text, None);
                    }
                }
            }
        }
    }
    visit(stream, 0, stream.len(), &mut budget, &mut page, builder);
    page
}

pub fn extract(
    file: Compound<'_>,
    limits: &Limits,
    builder: &mut Builder,
) -> Result<(), ExtractError> {
    if file.has("EncryptedSummary") {
        return Err(ExtractError::EncryptedDocument);
    }
    let stream = file.stream("PowerPoint Document").ok_or_else(|| {
        ExtractError::Malformed(
            "PowerPoint 97-2003 presentation without its document stream".to_string(),
        )
    })?;
    let current_user = file.stream("Current User").unwrap_or_default();
    let structure =
        persist_directory(&stream, &current_user).and_then(|(directory, document, encrypted)| {
            let record =
                record_at(&stream, *directory.get(&document)?).filter(|r| r.kind == DOCUMENT)?;
            Some((directory, record, encrypted))
        });
    let Some((directory, document, encrypted)) = structure else {
        let pages = read_in_stream_order(&stream, builder);
        if pages > limits.max_pages {
            return Err(ExtractError::LimitExceeded(format!(
                "more than {} slides",
                limits.max_pages
            )));
        }
        builder.document.metadata.pages = Some(pages);
        compound::summary_information(&file, builder);
        return Ok(());
    };
    if encrypted {
        return Err(ExtractError::EncryptedDocument);
    }
    let slides = slide_list(&stream, &document, 0);
    if slides.len() > limits.max_pages as usize {
        return Err(ExtractError::LimitExceeded(format!(
            "more than {} slides",
            limits.max_pages
        )));
    }
    let notes: HashMap<u32, u32> = slide_list(&stream, &document, 2)
        .into_iter()
        .map(|n| (n.slide_id, n.persist))
        .collect();
    let mut budget = Budget::new();
    for (index, slide) in slides.iter().enumerate() {
        let page = Some(index as u32 + 1);
        let mut shown: Vec<String> = Vec::new();
        for (kind, text) in &slide.texts {
            push_text(builder, *kind, text, page);
            shown.push(text.trim().to_string());
        }
        let Some(record) = directory
            .get(&slide.persist)
            .and_then(|&at| record_at(&stream, at))
            .filter(|r| r.kind == SLIDE)
        else {
            continue;
        };
        // The slide's other shapes; placeholder text already given by the list is not repeated.
        let mut texts = Vec::new();
        texts_within(&stream, &record, &mut budget, &mut texts);
        for text in texts {
            show(builder, text, page, false, &shown);
        }
        let notes_id = children(&stream, record.body, record.end)
            .into_iter()
            .find(|r| r.kind == SLIDE_ATOM)
            .and_then(|atom| u32_at(&stream, atom.body + 16));
        let notes_record = notes_id
            .and_then(|id| notes.get(&id))
            .and_then(|persist| directory.get(persist))
            .and_then(|&at| record_at(&stream, at))
            .filter(|r| r.kind == NOTES);
        if let Some(notes_record) = notes_record {
            let mut texts = Vec::new();
            texts_within(&stream, &notes_record, &mut budget, &mut texts);
            for text in texts {
                show(builder, text, page, true, &[]);
            }
        }
    }
    builder.document.metadata.pages = Some(slides.len() as u32);
    compound::summary_information(&file, builder);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record: its header (version 0xF for a container, instance, type, length) and body.
    fn record(container: bool, instance: u16, kind: u16, body: &[u8]) -> Vec<u8> {
        let head = (instance << 4) | if container { 0x0F } else { 0 };
        let mut bytes = head.to_le_bytes().to_vec();
        bytes.extend(kind.to_le_bytes());
        bytes.extend((body.len() as u32).to_le_bytes());
        bytes.extend(body);
        bytes
    }

    fn text(text: &str) -> Vec<u8> {
        let units: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
        record(false, 0, TEXT_CHARS_ATOM, &units)
    }

    /// A table cell: a shape with a child anchor (left, top, right, bottom) and a text.
    fn cell(left: i32, top: i32, shown: &str) -> Vec<u8> {
        let mut anchor = Vec::new();
        for edge in [left, top, left + 10, top + 10] {
            anchor.extend(edge.to_le_bytes());
        }
        let mut body = record(false, 1, SHAPE_ATOM, &[0; 8]);
        body.extend(record(false, 0, CHILD_ANCHOR, &anchor));
        body.extend(record(true, 0, 0xF00D, &text(shown)));
        record(true, 0, SHAPE_CONTAINER, &body)
    }

    fn table(cells: &[Vec<u8>]) -> Vec<u8> {
        // The group's own shape, marked as a table by its tableProperties.
        let mut properties = (TABLE_PROPERTIES).to_le_bytes().to_vec();
        properties.extend(1u32.to_le_bytes());
        let own = record(
            true,
            0,
            SHAPE_CONTAINER,
            &record(false, 1, TERTIARY_PROPERTIES, &properties),
        );
        let mut body = own;
        for cell in cells {
            body.extend(cell);
        }
        record(true, 0, GROUP_CONTAINER, &body)
    }

    fn rows_of(stream: &[u8]) -> Vec<Vec<String>> {
        let mut shown = Vec::new();
        let whole = Record {
            kind: SLIDE,
            instance: 0,
            container: true,
            body: 0,
            end: stream.len(),
        };
        texts_within(stream, &whole, &mut Budget::new(), &mut shown);
        match shown.pop() {
            Some(Shown::Table(rows)) => rows,
            _ => panic!("no table"),
        }
    }

    #[test]
    fn a_table_is_laid_out_by_its_cells_edges() {
        let stream = table(&[
            cell(200, 0, "T.C. Kimlik No"),
            cell(0, 0, "Ad Soyad"),
            cell(0, 50, "Gülşen Çakıroğlu"),
            cell(200, 50, "31827364532"),
            cell(400, 50, "merged on the left"),
        ]);
        assert_eq!(
            rows_of(&stream),
            [
                ["Ad Soyad", "T.C. Kimlik No", ""],
                ["Gülşen Çakıroğlu", "31827364532", "merged on the left"]
            ]
        );
    }

    #[test]
    fn cells_too_irregular_for_a_grid_are_kept_as_rows() {
        // 300 cells, each on an edge of its own: a 300 x 300 grid would be 90,000 cells.
        let cells: Vec<Vec<u8>> = (0..300).map(|i| cell(i * 7, i * 3, "x")).collect();
        let rows = rows_of(&table(&cells));
        assert_eq!(rows.len(), 300);
        assert!(rows.iter().all(|row| row == &["x"]));
    }

    #[test]
    fn containers_nested_past_the_depth_limit_are_not_followed() {
        // 100,000 containers, each the only child of the one before, a text at the bottom.
        let (deep, bottom) = (100_000usize, text("deep"));
        let mut stream = Vec::with_capacity(deep * 8 + bottom.len());
        for level in 0..deep {
            let inside = (deep - level - 1) * 8 + bottom.len();
            stream.extend(record(true, 0, 0x0FF0, &[])[..4].iter());
            stream.extend((inside as u32).to_le_bytes());
        }
        stream.extend(bottom);
        let mut builder = Builder::default();
        read_in_stream_order(&stream, &mut builder);
        assert!(builder.finish().text.is_empty());
        let mut shallow = text("shallow");
        for _ in 0..10 {
            shallow = record(true, 0, 0x0FF0, &shallow);
        }
        let mut builder = Builder::default();
        read_in_stream_order(&shallow, &mut builder);
        assert_eq!(builder.finish().text.trim(), "shallow");
    }
}
