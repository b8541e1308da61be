//! DOCX: paragraphs with heading styles, lists, tables, headers, footers, footnotes, comments, core
//! properties. Our own reader over `zip` + `quick-xml`.

use std::collections::HashMap;

use quick_xml::events::Event;

use super::super::error::ExtractError;
use super::super::limits::Limits;
use super::super::model::{Builder, Element, ElementKind, Table};
use super::ooxml::{self, attribute, local, text_of, walk, Package};

/// styleId -> (kind, level) for heading and title styles.
fn heading_styles(xml: &str, max_depth: usize) -> HashMap<String, (ElementKind, u8)> {
    let mut styles = HashMap::new();
    let mut current: Option<String> = None;
    let _ = walk(xml, max_depth, |event| match event {
        Event::Start(e) | Event::Empty(e) => match local(e).as_slice() {
            b"style" => current = attribute(e, b"styleId"),
            b"name" => {
                if let (Some(id), Some(name)) = (&current, attribute(e, b"val")) {
                    let name = name.to_lowercase();
                    if name == "title" {
                        styles.insert(id.clone(), (ElementKind::Title, 0));
                    } else if let Some(level) = name
                        .strip_prefix("heading ")
                        .and_then(|l| l.trim().parse::<u8>().ok())
                    {
                        styles.insert(id.clone(), (ElementKind::Heading, level));
                    }
                }
            }
            _ => {}
        },
        _ => {}
    });
    styles
}

struct TableState {
    rows: Vec<Vec<String>>,
    row: Vec<String>,
    cell: String,
}

/// Body-like parts (document, header, footer, footnotes, comments).
fn read_part(
    xml: &str,
    max_depth: usize,
    styles: &HashMap<String, (ElementKind, u8)>,
    default: ElementKind,
    builder: &mut Builder,
) -> Result<(), ExtractError> {
    let mut paragraph = String::new();
    let mut in_text = false;
    let mut style: Option<(ElementKind, u8)> = None;
    let mut list_level: Option<u8> = None;
    let mut tables: Vec<TableState> = Vec::new();
    let mut finished: Vec<(Element, Option<Table>)> = Vec::new();
    walk(xml, max_depth, |event| match event {
        Event::Start(e) | Event::Empty(e) => {
            let name = local(e);
            match name.as_slice() {
                b"p" => {
                    paragraph.clear();
                    style = None;
                    list_level = None;
                }
                b"pStyle" => {
                    style = attribute(e, b"val").and_then(|id| {
                        styles.get(&id).copied().or_else(|| {
                            let lower = id.to_lowercase();
                            if lower == "title" {
                                Some((ElementKind::Title, 0))
                            } else {
                                lower
                                    .strip_prefix("heading")
                                    .and_then(|l| l.parse().ok())
                                    .map(|l| (ElementKind::Heading, l))
                            }
                        })
                    })
                }
                b"numPr" => list_level = Some(list_level.unwrap_or(0)),
                b"ilvl" => list_level = attribute(e, b"val").and_then(|v| v.parse().ok()),
                b"t" => in_text = matches!(event, Event::Start(_)),
                b"tab" if !in_text => paragraph.push('\t'),
                b"br" | b"cr" => paragraph.push('\n'),
                b"tbl" if matches!(event, Event::Start(_)) => tables.push(TableState {
                    rows: Vec::new(),
                    row: Vec::new(),
                    cell: String::new(),
                }),
                b"tr" if matches!(event, Event::Start(_)) => {
                    if let Some(table) = tables.last_mut() {
                        table.row.clear();
                    }
                }
                b"tc" if matches!(event, Event::Start(_)) => {
                    if let Some(table) = tables.last_mut() {
                        table.cell.clear();
                    }
                }
                _ => {}
            }
        }
        Event::Text(t) if in_text => paragraph.push_str(&text_of(t)),
        Event::End(e) => match e.local_name().as_ref() {
            b"t" => in_text = false,
            b"p" => {
                let text = paragraph.trim().to_string();
                if let Some(table) = tables.last_mut() {
                    if !text.is_empty() {
                        if !table.cell.is_empty() {
                            table.cell.push('\n');
                        }
                        table.cell.push_str(&text);
                    }
                } else if !text.is_empty() {
                    let (kind, level) = match (style, list_level) {
                        (Some((kind, level)), _) => (kind, (level > 0).then_some(level)),
                        (None, Some(level)) => (ElementKind::ListItem, Some(level + 1)),
                        (None, None) => (default, None),
                    };
                    finished.push((
                        Element {
                            level,
                            ..Element::new(kind, text)
                        },
                        None,
                    ));
                }
                paragraph.clear();
            }
            b"tc" => {
                if let Some(table) = tables.last_mut() {
                    let cell = std::mem::take(&mut table.cell);
                    table.row.push(cell);
                }
            }
            b"tr" => {
                if let Some(table) = tables.last_mut() {
                    let row = std::mem::take(&mut table.row);
                    if row.iter().any(|c| !c.trim().is_empty()) {
                        table.rows.push(row);
                    }
                }
            }
            b"tbl" => {
                if let Some(done) = tables.pop() {
                    if let Some(outer) = tables.last_mut() {
                        // A nested table becomes text of the enclosing cell.
                        let text = done
                            .rows
                            .iter()
                            .map(|r| r.join("\t"))
                            .collect::<Vec<_>>()
                            .join("\n");
                        outer.cell.push_str(&text);
                    } else {
                        let table = Table {
                            name: None,
                            header: None,
                            rows: done.rows,
                            page: None,
                        };
                        finished
                            .push((Element::new(ElementKind::Table, String::new()), Some(table)));
                    }
                }
            }
            _ => {}
        },
        _ => {}
    })?;
    for (element, table) in finished {
        match table {
            Some(mut table) => {
                if table.rows.len() > 1 {
                    table.header = Some(table.rows.remove(0));
                }
                builder.push_table(table, None);
            }
            None => builder.push(element),
        }
    }
    Ok(())
}

pub fn extract(bytes: &[u8], limits: &Limits, builder: &mut Builder) -> Result<(), ExtractError> {
    let mut package = Package::open(bytes, limits)?;
    let depth = package.max_depth();
    let styles = package
        .read("word/styles.xml")?
        .map(|xml| heading_styles(&xml, depth))
        .unwrap_or_default();
    let names = package.names();
    for part in ooxml::numbered_parts(&names, "word/header") {
        if let Some(xml) = package.read(&part)? {
            read_part(&xml, depth, &styles, ElementKind::Header, builder)?;
        }
    }
    let body = package
        .read("word/document.xml")?
        .ok_or_else(|| ExtractError::Malformed("DOCX without word/document.xml".to_string()))?;
    read_part(&body, depth, &styles, ElementKind::Paragraph, builder)?;
    for part in [
        "word/footnotes.xml",
        "word/endnotes.xml",
        "word/comments.xml",
    ] {
        if let Some(xml) = package.read(part)? {
            read_part(&xml, depth, &styles, ElementKind::Paragraph, builder)?;
        }
    }
    for part in ooxml::numbered_parts(&names, "word/footer") {
        if let Some(xml) = package.read(&part)? {
            read_part(&xml, depth, &styles, ElementKind::Footer, builder)?;
        }
    }
    ooxml::core_properties(&mut package, builder)?;
    Ok(())
}
