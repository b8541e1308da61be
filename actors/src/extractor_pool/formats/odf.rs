//! OpenDocument text and presentations (`.odt`, `.odp`; spreadsheets are read by calamine): the
//! package is a ZIP like OOXML's ([`Package`]: tolerant of damaged parts), `content.xml` holds the
//! body, `styles.xml` the pages' headers and footers, `meta.xml` the properties. Into the document
//! model as their OOXML cousins: headings with their outline level, paragraphs, list items with their
//! nesting, tables as rows of cells (a header row when the table marks one), slides as pages with
//! their titles and speaker notes, footnotes and comments as paragraphs of their own. Deleted text
//! kept for change tracking is left out.

use quick_xml::events::{BytesStart, Event};

use super::super::error::ExtractError;
use super::super::limits::Limits;
use super::ooxml::{self, attribute, local, walk, Package};
use crate::model::{Builder, Element, ElementKind, Table};

/// A table being read: its rows, the current row and cell, and how many header rows it marks.
#[derive(Default)]
struct TableState {
    name: Option<String>,
    rows: Vec<Vec<String>>,
    row: Vec<String>,
    cell: String,
    repeat: usize,
    header_rows: usize,
    in_header: bool,
}

/// The most times a repeated column is written out (a spreadsheet-like table repeats an empty
/// column a thousand times to its edge).
const MAX_REPEAT: usize = 64;

/// Text that is not the document's: deleted text kept for change tracking, a note's citation mark,
/// a comment's author and date (`full`: the element's name with its prefix).
fn skipped(full: &[u8]) -> bool {
    let local = full.rsplit(|&b| b == b':').next().unwrap_or(full);
    matches!(local, b"tracked-changes" | b"note-citation" | b"deletion")
        || matches!(full, b"dc:creator" | b"dc:date")
}

struct Reader<'b> {
    builder: &'b mut Builder,
    /// The open paragraphs (a note's or a comment's paragraphs sit inside another's).
    paragraphs: Vec<(ElementKind, Option<u8>, String)>,
    lists: u8,
    tables: Vec<TableState>,
    page: Option<u32>,
    pages: u32,
    title_frame: bool,
    in_notes: bool,
    /// Inside deleted text, a note's citation mark or other text that is not the document's.
    skipping: usize,
    kind: ElementKind,
    max_pages: u32,
    too_many_pages: bool,
}

impl Reader<'_> {
    fn text(&mut self) -> Option<&mut String> {
        if self.skipping > 0 {
            return None;
        }
        self.paragraphs.last_mut().map(|(_, _, text)| text)
    }

    fn start(&mut self, element: &BytesStart<'_>, empty: bool) {
        let name = local(element);
        if skipped(element.name().as_ref()) {
            if !empty {
                self.skipping += 1;
            }
            return;
        }
        match name {
            b"p" | b"h" if !empty => {
                let (kind, level) = if name == b"h" {
                    let level = attribute(element, b"outline-level")
                        .and_then(|l| l.parse::<u8>().ok())
                        .unwrap_or(1);
                    (ElementKind::Heading, Some(level))
                } else if self.lists > 0 {
                    (ElementKind::ListItem, Some(self.lists))
                } else if self.title_frame && !self.in_notes {
                    (ElementKind::Title, None)
                } else {
                    (self.kind, None)
                };
                self.paragraphs.push((kind, level, String::new()));
            }
            b"s" => {
                let count = attribute(element, b"c")
                    .and_then(|c| c.parse::<usize>().ok())
                    .unwrap_or(1)
                    .min(64);
                if let Some(text) = self.text() {
                    text.extend(std::iter::repeat_n(' ', count));
                }
            }
            b"tab" => {
                if let Some(text) = self.text() {
                    text.push('\t');
                }
            }
            b"line-break" => {
                if let Some(text) = self.text() {
                    text.push('\n');
                }
            }
            b"list" if !empty => self.lists = self.lists.saturating_add(1),
            b"table" if !empty => self.tables.push(TableState {
                name: attribute(element, b"name"),
                ..TableState::default()
            }),
            b"table-header-rows" if !empty => {
                if let Some(table) = self.tables.last_mut() {
                    table.in_header = true;
                }
            }
            b"table-cell" | b"covered-table-cell" => {
                let repeat = attribute(element, b"number-columns-repeated")
                    .and_then(|r| r.parse::<usize>().ok())
                    .unwrap_or(1)
                    .clamp(1, MAX_REPEAT);
                if let Some(table) = self.tables.last_mut() {
                    table.cell.clear();
                    table.repeat = repeat;
                    if empty {
                        let cells = std::iter::repeat_n(String::new(), repeat);
                        table.row.extend(cells);
                    }
                }
            }
            b"page" if !empty => {
                self.pages += 1;
                if self.pages > self.max_pages {
                    self.too_many_pages = true;
                }
                self.page = Some(self.pages);
            }
            b"frame" if !empty => {
                self.title_frame = attribute(element, b"class")
                    .is_some_and(|class| matches!(class.as_str(), "title" | "subtitle"));
            }
            b"notes" if !empty => self.in_notes = true,
            _ => {}
        }
    }

    /// `full`: the element's name with its prefix.
    fn end(&mut self, full: &[u8]) {
        if skipped(full) {
            self.skipping = self.skipping.saturating_sub(1);
            return;
        }
        let name = full.rsplit(|&b| b == b':').next().unwrap_or(full);
        match name {
            b"p" | b"h" => {
                let Some((kind, level, text)) = self.paragraphs.pop() else {
                    return;
                };
                let text = text.trim().to_string();
                if text.is_empty() {
                    return;
                }
                if let Some(table) = self.tables.last_mut() {
                    if !table.cell.is_empty() {
                        table.cell.push('\n');
                    }
                    table.cell.push_str(&text);
                    return;
                }
                self.builder.push(Element {
                    page: self.page,
                    level,
                    ..Element::new(kind, text)
                });
            }
            b"list" => self.lists = self.lists.saturating_sub(1),
            b"table-cell" | b"covered-table-cell" => {
                if let Some(table) = self.tables.last_mut() {
                    let cell = std::mem::take(&mut table.cell);
                    let repeat = if cell.is_empty() {
                        table.repeat
                    } else {
                        table.repeat.min(MAX_REPEAT)
                    };
                    table.row.extend(std::iter::repeat_n(cell, repeat));
                }
            }
            b"table-row" => {
                if let Some(table) = self.tables.last_mut() {
                    let mut row = std::mem::take(&mut table.row);
                    while row.last().is_some_and(String::is_empty) {
                        row.pop();
                    }
                    if !row.is_empty() {
                        if table.in_header {
                            table.header_rows += 1;
                        }
                        table.rows.push(row);
                    }
                }
            }
            b"table-header-rows" => {
                if let Some(table) = self.tables.last_mut() {
                    table.in_header = false;
                }
            }
            b"table" => {
                if let Some(table) = self.tables.pop() {
                    self.finish_table(table);
                }
            }
            b"frame" => self.title_frame = false,
            b"notes" => self.in_notes = false,
            _ => {}
        }
    }

    fn finish_table(&mut self, table: TableState) {
        if table.rows.is_empty() {
            return;
        }
        let marked = table.header_rows == 1 && table.rows.len() > 1;
        let mut rows = crate::model::Rows::from(table.rows);
        let header = if marked {
            rows.remove_first()
        } else {
            Table::take_header(&mut rows, 2)
        };
        let done = Table {
            name: table.name,
            header,
            rows,
            page: self.page,
        };
        // A table inside a table's cell: its text joins the outer cell.
        if let Some(outer) = self.tables.last_mut() {
            if !outer.cell.is_empty() {
                outer.cell.push('\n');
            }
            outer.cell.push_str(&done.to_text());
            return;
        }
        self.builder.push_table(done, self.page);
    }
}

/// One part (`content.xml`, or the pages' headers and footers in `styles.xml`).
fn read_part(
    xml: &[u8],
    limits: &Limits,
    kind: ElementKind,
    builder: &mut Builder,
) -> Result<u32, ExtractError> {
    let mut reader = Reader {
        builder,
        paragraphs: Vec::new(),
        lists: 0,
        tables: Vec::new(),
        page: None,
        pages: 0,
        title_frame: false,
        in_notes: false,
        skipping: 0,
        kind,
        max_pages: limits.max_pages,
        too_many_pages: false,
    };
    // styles.xml: only what the master pages' headers and footers say.
    let styles = kind != ElementKind::Paragraph;
    let mut in_master = 0usize;
    let walked = walk(xml, limits.max_xml_depth, |event| match event {
        Event::Start(e) | Event::Empty(e) => {
            let empty = matches!(event, Event::Empty(_));
            if styles {
                match local(e) {
                    b"header" | b"header-first" | b"header-left" if !empty => {
                        in_master += 1;
                        reader.kind = ElementKind::Header;
                    }
                    b"footer" | b"footer-first" | b"footer-left" if !empty => {
                        in_master += 1;
                        reader.kind = ElementKind::Footer;
                    }
                    _ => {}
                }
                if in_master == 0 {
                    return;
                }
            }
            reader.start(e, empty);
        }
        Event::Text(t) => {
            if let Some(text) = reader.text() {
                ooxml::push_text(t, text);
            }
        }
        Event::End(e) => {
            let name = e.local_name();
            if styles {
                if matches!(
                    name.as_ref(),
                    b"header"
                        | b"header-first"
                        | b"header-left"
                        | b"footer"
                        | b"footer-first"
                        | b"footer-left"
                ) {
                    in_master = in_master.saturating_sub(1);
                    return;
                }
                if in_master == 0 {
                    return;
                }
            }
            reader.end(e.name().as_ref());
        }
        _ => {}
    });
    // What the damage cut short is kept: open paragraphs and tables are closed as they stand.
    while !reader.paragraphs.is_empty() {
        reader.end(b"text:p");
    }
    while let Some(table) = reader.tables.pop() {
        reader.finish_table(table);
    }
    if reader.too_many_pages {
        return Err(ExtractError::LimitExceeded(format!(
            "more than {} slides",
            limits.max_pages
        )));
    }
    walked.map(|()| reader.pages)
}

/// meta.xml: title, creator, dates, into metadata and fields.
fn properties(package: &mut Package<'_>, builder: &mut Builder) -> Result<(), ExtractError> {
    let Some(xml) = package.read("meta.xml")? else {
        return Ok(());
    };
    for (name, value) in ooxml::leaf_values(&xml, package.max_depth(), |_| true)? {
        match name.as_slice() {
            b"title" => builder.document.metadata.title = Some(value.clone()),
            b"initial-creator" | b"creator" if builder.document.metadata.author.is_none() => {
                builder.document.metadata.author = Some(value.clone())
            }
            b"creation-date" => builder.document.metadata.created = Some(value.clone()),
            b"generator" => builder.document.metadata.producer = Some(value.clone()),
            _ => {}
        }
        builder.field(&format!("meta.{}", String::from_utf8_lossy(&name)), value);
    }
    Ok(())
}

/// Whether the manifest lists encryption data for a part: a package saved with a password (its XML
/// parts are encrypted).
fn encrypted(package: &mut Package<'_>) -> Result<bool, ExtractError> {
    let Some(xml) = package.read("META-INF/manifest.xml")? else {
        return Ok(false);
    };
    let mut found = false;
    let _ = walk(&xml, package.max_depth(), |event| {
        if let Event::Start(e) | Event::Empty(e) = event {
            found |= local(e) == b"encryption-data";
        }
    });
    Ok(found)
}

/// `encrypted_document` for an OpenDocument package saved with a password (a spreadsheet's too,
/// before its sheets are read).
pub fn refuse_encrypted(bytes: &[u8], limits: &Limits) -> Result<(), ExtractError> {
    let mut package = Package::open(bytes, limits)?;
    if encrypted(&mut package)? {
        return Err(ExtractError::EncryptedDocument);
    }
    Ok(())
}

pub fn extract(bytes: &[u8], limits: &Limits, builder: &mut Builder) -> Result<(), ExtractError> {
    let mut package = Package::open(bytes, limits)?;
    if encrypted(&mut package)? {
        return Err(ExtractError::EncryptedDocument);
    }
    let read = package.read("styles.xml");
    let styles = ooxml::tolerate(builder, "styles.xml", read)?.flatten();
    // Headers and footers once, before the body (as a DOCX's are read).
    if let Some(xml) = &styles {
        let read = read_part(xml, limits, ElementKind::Header, builder);
        ooxml::tolerate(builder, "styles.xml", read)?;
    }
    let read = package.read("content.xml");
    let Some(content) = ooxml::tolerate(builder, "content.xml", read)?.flatten() else {
        return Err(ExtractError::Malformed(
            "OpenDocument package without a readable content.xml".to_string(),
        ));
    };
    let read = read_part(&content, limits, ElementKind::Paragraph, builder);
    if let Some(pages) = ooxml::tolerate(builder, "content.xml", read)? {
        if pages > 0 {
            builder.document.metadata.pages = Some(pages);
        }
    }
    let read = properties(&mut package, builder);
    ooxml::tolerate(builder, "meta.xml", read)?;
    builder.damaged_parts.extend(package.take_damage());
    Ok(())
}
