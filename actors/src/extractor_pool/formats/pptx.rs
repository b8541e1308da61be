//! PPTX: slide text in reading order (titles, bullets, grouped shapes, tables) and speaker notes.

use quick_xml::events::Event;

use super::super::error::ExtractError;
use super::super::limits::Limits;
use super::super::model::{Builder, Element, ElementKind, Table};
use super::ooxml::{self, attribute, local, walk, Package};

struct Cell {
    rows: Vec<Vec<String>>,
    row: Vec<String>,
    cell: String,
}

/// One slide or notes part.
fn read_slide(
    xml: &[u8],
    max_depth: usize,
    page: u32,
    notes: bool,
    builder: &mut Builder,
) -> Result<(), ExtractError> {
    let mut paragraph = String::new();
    let mut in_text = false;
    let mut title_shape = false;
    let mut skip_shape = false;
    let mut table: Option<Cell> = None;
    let mut out: Vec<(Element, Option<Table>)> = Vec::new();
    walk(xml, max_depth, |event| match event {
        Event::Start(e) | Event::Empty(e) => match local(e) {
            b"sp" => {
                title_shape = false;
                skip_shape = false;
            }
            b"ph" => {
                let kind = attribute(e, b"type").unwrap_or_default();
                title_shape = matches!(kind.as_str(), "title" | "ctrTitle");
                // Slide numbers, dates and footers repeat on every slide.
                skip_shape = matches!(kind.as_str(), "sldNum" | "dt" | "ftr" | "sldImg");
            }
            b"p" => paragraph.clear(),
            b"t" => in_text = matches!(event, Event::Start(_)),
            b"br" => paragraph.push('\n'),
            b"tbl" => {
                table = Some(Cell {
                    rows: Vec::new(),
                    row: Vec::new(),
                    cell: String::new(),
                })
            }
            _ => {}
        },
        Event::Text(t) if in_text => ooxml::push_text(t, &mut paragraph),
        Event::End(e) => match e.local_name().as_ref() {
            b"t" => in_text = false,
            b"p" => {
                let text = paragraph.trim().to_string();
                if text.is_empty() || skip_shape {
                    return;
                }
                if let Some(t) = table.as_mut() {
                    if !t.cell.is_empty() {
                        t.cell.push('\n');
                    }
                    t.cell.push_str(&text);
                } else {
                    let kind = if notes {
                        ElementKind::Paragraph
                    } else if title_shape {
                        ElementKind::Title
                    } else {
                        ElementKind::Paragraph
                    };
                    out.push((
                        Element {
                            page: Some(page),
                            ..Element::new(kind, text)
                        },
                        None,
                    ));
                }
            }
            b"tc" => {
                if let Some(t) = table.as_mut() {
                    let cell = std::mem::take(&mut t.cell);
                    t.row.push(cell);
                }
            }
            b"tr" => {
                if let Some(t) = table.as_mut() {
                    let row = std::mem::take(&mut t.row);
                    t.rows.push(row);
                }
            }
            b"tbl" => {
                if let Some(mut t) = table.take() {
                    let header = (t.rows.len() > 1).then(|| t.rows.remove(0));
                    out.push((
                        Element::new(ElementKind::Table, String::new()),
                        Some(Table {
                            name: None,
                            header,
                            rows: t.rows,
                            page: Some(page),
                        }),
                    ));
                }
            }
            _ => {}
        },
        _ => {}
    })?;
    for (element, table) in out {
        match table {
            Some(table) => builder.push_table(table, Some(page)),
            None => builder.push(element),
        }
    }
    Ok(())
}

/// The notes part of a slide, from the slide's relationships.
fn notes_part(package: &mut Package<'_>, slide: &str) -> Result<Option<String>, ExtractError> {
    let file = slide.rsplit('/').next().unwrap_or(slide);
    let rels = format!("ppt/slides/_rels/{file}.rels");
    let Some(xml) = package.read(&rels)? else {
        return Ok(None);
    };
    let mut target = None;
    walk(&xml, package.max_depth(), |event| {
        if let Event::Empty(e) | Event::Start(e) = event {
            if local(e) == b"Relationship"
                && attribute(e, b"Type").is_some_and(|t| t.ends_with("/notesSlide"))
            {
                target = attribute(e, b"Target");
            }
        }
    })?;
    Ok(target.map(|t| format!("ppt/{}", t.trim_start_matches("../"))))
}

pub fn extract(bytes: &[u8], limits: &Limits, builder: &mut Builder) -> Result<(), ExtractError> {
    let mut package = Package::open(bytes, limits)?;
    let depth = package.max_depth();
    let slides = ooxml::numbered_parts(&package.names(), "ppt/slides/slide");
    if slides.len() > limits.max_pages as usize {
        return Err(ExtractError::LimitExceeded(format!(
            "more than {} slides",
            limits.max_pages
        )));
    }
    for (index, slide) in slides.iter().enumerate() {
        let page = index as u32 + 1;
        if let Some(xml) = package.read(slide)? {
            read_slide(&xml, depth, page, false, builder)?;
        }
        if let Some(notes) = notes_part(&mut package, slide)? {
            if let Some(xml) = package.read(&notes)? {
                read_slide(&xml, depth, page, true, builder)?;
            }
        }
    }
    builder.document.metadata.pages = Some(slides.len() as u32);
    ooxml::core_properties(&mut package, builder)?;
    Ok(())
}
