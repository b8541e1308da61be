//! PPTX: slide text in reading order (titles, bullets, grouped shapes, tables) and speaker notes.

use quick_xml::events::Event;

use super::super::error::ExtractError;
use super::super::limits::Limits;
use super::ooxml::{self, attribute, local, walk, Package};
use crate::model::{Builder, Element, ElementKind, Table};

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
    let walked = walk(xml, max_depth, |event| match event {
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
                            rows: t.rows.into(),
                            page: Some(page),
                        }),
                    ));
                }
            }
            _ => {}
        },
        _ => {}
    });
    // What was read before a damaged stretch of XML is kept (the caller records the damage).
    for (element, table) in out {
        match table {
            Some(table) => builder.push_table(table, Some(page)),
            None => builder.push(element),
        }
    }
    walked
}

/// The slides in the presentation's order: `ppt/presentation.xml`'s slide list through its
/// relationships (a slide moved keeps its file name), then any slide part the list does not name (a
/// damaged list, a tool that forgot one) by its number; by number alone when the list cannot be read.
fn slide_order(package: &mut Package<'_>) -> Vec<String> {
    let names = package.names();
    let mut targets: std::collections::HashMap<String, String> = std::collections::HashMap::new();
    if let Ok(Some(xml)) = package.read("ppt/_rels/presentation.xml.rels") {
        let _ = walk(&xml, package.max_depth(), |event| {
            if let Event::Empty(e) | Event::Start(e) = event {
                if local(e) == b"Relationship"
                    && attribute(e, b"Type").is_some_and(|t| t.ends_with("/slide"))
                {
                    if let (Some(id), Some(target)) = (attribute(e, b"Id"), attribute(e, b"Target"))
                    {
                        let target = target.trim_start_matches('/');
                        let part = target
                            .strip_prefix("ppt/")
                            .map_or_else(|| format!("ppt/{target}"), |t| format!("ppt/{t}"));
                        targets.insert(id, part);
                    }
                }
            }
        });
    }
    let mut ordered: Vec<String> = Vec::new();
    if let Ok(Some(xml)) = package.read("ppt/presentation.xml") {
        let _ = walk(&xml, package.max_depth(), |event| {
            if let Event::Empty(e) | Event::Start(e) = event {
                if local(e) == b"sldId" {
                    // `id` (a number) and `r:id` (the relationship) share a local name.
                    let part = e
                        .attributes()
                        .flatten()
                        .filter(|a| a.key.local_name().as_ref() == b"id")
                        .find_map(|a| {
                            targets
                                .get(String::from_utf8_lossy(&a.value).as_ref())
                                .cloned()
                        });
                    if let Some(part) = part.filter(|p| names.contains(p) && !ordered.contains(p)) {
                        ordered.push(part);
                    }
                }
            }
        });
    }
    for part in ooxml::numbered_parts(&names, "ppt/slides/slide") {
        if !ordered.contains(&part) {
            ordered.push(part);
        }
    }
    ordered
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
    let slides = slide_order(&mut package);
    if slides.len() > limits.max_pages as usize {
        return Err(ExtractError::LimitExceeded(format!(
            "more than {} slides",
            limits.max_pages
        )));
    }
    // A damaged slide (a broken stream, broken XML) is recorded and the others read; a slide is
    // kept up to its damage.
    for (index, slide) in slides.iter().enumerate() {
        let page = index as u32 + 1;
        let read = package.read(slide);
        if let Some(Some(xml)) = ooxml::tolerate(builder, slide, read)? {
            let read = read_slide(&xml, depth, page, false, builder);
            ooxml::tolerate(builder, slide, read)?;
        }
        let notes = notes_part(&mut package, slide);
        if let Some(Some(notes)) = ooxml::tolerate(builder, slide, notes)? {
            let read = package.read(&notes);
            if let Some(Some(xml)) = ooxml::tolerate(builder, &notes, read)? {
                let read = read_slide(&xml, depth, page, true, builder);
                ooxml::tolerate(builder, &notes, read)?;
            }
        }
    }
    builder.document.metadata.pages = Some(slides.len() as u32);
    let read = ooxml::core_properties(&mut package, builder);
    ooxml::tolerate(builder, "docProps/core.xml", read)?;
    builder.damaged_parts.extend(package.take_damage());
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};

    use crate::extractor_pool::extract_document as extract;
    use crate::extractor_pool::ExtractError;
    use crate::extractor_pool::Limits;

    fn corpus(name: &str) -> Vec<u8> {
        std::fs::read(
            std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../../shared/corpus")
                .join(name),
        )
        .expect("corpus file")
    }

    /// The package with `damage` applied to every part it names (a part it maps to `None` is left
    /// out of the copy).
    fn damaged(bytes: &[u8], damage: impl Fn(&str, Vec<u8>) -> Option<Vec<u8>>) -> Vec<u8> {
        let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).expect("zip");
        let mut out = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        for index in 0..archive.len() {
            let mut file = archive.by_index(index).expect("entry");
            let name = file.name().to_string();
            let mut content = Vec::new();
            file.read_to_end(&mut content).expect("read");
            if let Some(content) = damage(&name, content) {
                out.start_file(name, zip::write::SimpleFileOptions::default())
                    .expect("start");
                out.write_all(&content).expect("write");
            }
        }
        out.finish().expect("finish").into_inner()
    }

    fn cut_in_half(content: Vec<u8>) -> Vec<u8> {
        let mut content = content;
        content.truncate(content.len() / 2);
        content.extend_from_slice(b"<<<broken");
        content
    }

    /// Slides come in the presentation's order, whatever their parts are called.
    #[test]
    fn slides_follow_the_presentations_list() {
        let original = corpus("tr/tr_sunum.pptx");
        let whole = extract(&original, &Limits::default()).expect("reads");
        let reordered = damaged(&original, |name, content| {
            if name != "ppt/presentation.xml" {
                return Some(content);
            }
            // The slide list reversed: <p:sldId .../> elements in the opposite order.
            let xml = String::from_utf8(content).expect("utf-8");
            let start = xml.find("<p:sldIdLst>").expect("list") + "<p:sldIdLst>".len();
            let end = xml.find("</p:sldIdLst>").expect("end");
            let mut ids: Vec<&str> = xml[start..end].split_inclusive("/>").collect();
            ids.reverse();
            Some(format!("{}{}{}", &xml[..start], ids.concat(), &xml[end..]).into_bytes())
        });
        let document = extract(&reordered, &Limits::default()).expect("reads");
        let pages = whole.metadata.pages.expect("pages");
        assert!(pages > 1);
        let of_page = |d: &crate::model::Document, page: u32| {
            d.elements
                .iter()
                .filter(|e| e.page == Some(page))
                .map(|e| e.text.clone())
                .collect::<Vec<_>>()
        };
        for page in 1..=pages {
            assert_eq!(
                of_page(&document, page),
                of_page(&whole, pages + 1 - page),
                "slide {page}"
            );
        }
    }

    /// A slide with broken XML costs that slide (up to its damage), not the presentation; the
    /// damage shows in the quality signals. A document with nothing readable left is damaged.
    #[test]
    fn a_damaged_part_costs_itself_and_is_reported() {
        let original = corpus("tr/tr_sunum.pptx");
        let whole = extract(&original, &Limits::default()).expect("reads");
        let broken = damaged(&original, |name, content| {
            Some(if name == "ppt/slides/slide2.xml" {
                cut_in_half(content)
            } else {
                content
            })
        });
        let document = extract(&broken, &Limits::default()).expect("the other slides are read");
        let damaged_parts = &document.quality.signals.damaged_parts;
        assert_eq!(damaged_parts.len(), 1, "{damaged_parts:?}");
        assert!(damaged_parts[0].starts_with("ppt/slides/slide2.xml: "));
        assert!(document.quality.score < whole.quality.score);
        let words = |text: &str| text.split_whitespace().count();
        assert!(
            words(&document.text) * 10 >= words(&whole.text) * 7,
            "most words are kept"
        );
        for page in [1, 3, 4] {
            let of_page = |d: &crate::model::Document| {
                d.elements
                    .iter()
                    .filter(|e| e.page == Some(page))
                    .map(|e| e.text.clone())
                    .collect::<Vec<_>>()
            };
            assert_eq!(of_page(&document), of_page(&whole), "slide {page}");
        }

        // A Word file whose footer is broken keeps its body; one whose every part is broken is damaged.
        let letter = corpus("tr/tr_ik_yazisi.docx");
        let whole = extract(&letter, &Limits::default()).expect("reads");
        let broken = damaged(&letter, |name, content| {
            Some(if name.starts_with("word/footer") {
                cut_in_half(content)
            } else {
                content
            })
        });
        let document = extract(&broken, &Limits::default()).expect("the body is read");
        assert!(!document.quality.signals.damaged_parts.is_empty());
        let body_line = whole
            .text
            .lines()
            .find(|l| l.len() > 40)
            .expect("a body line");
        assert!(document.text.contains(body_line));
        let ruined = damaged(&letter, |name, content| {
            Some(if name.starts_with("word/") && name.ends_with(".xml") {
                b"<w:document><<<".to_vec()
            } else {
                content
            })
        });
        assert!(matches!(
            extract(&ruined, &Limits::default()),
            Err(ExtractError::Malformed(_))
        ));
    }
}
