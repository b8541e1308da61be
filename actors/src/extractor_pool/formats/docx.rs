//! DOCX: paragraphs with heading styles, lists, tables, headers, footers, footnotes, comments, core
//! properties. Our own reader over `zip` + `quick-xml`.

use std::collections::HashMap;

use quick_xml::events::Event;

use super::super::error::ExtractError;
use super::super::limits::Limits;
use super::ooxml::{self, attribute, local, walk, Package};
use crate::model::{Builder, Element, ElementKind, Table};

/// The quoted value that starts at `bytes[at]` (after `=`, optional spaces), as written (still escaped).
fn raw_quoted(bytes: &[u8], at: usize) -> Option<&[u8]> {
    let rest = bytes.get(at..)?;
    let open = rest.iter().position(|b| !b.is_ascii_whitespace())?;
    let quote = rest[open];
    if quote != b'"' && quote != b'\'' {
        return None;
    }
    let value = &rest[open + 1..];
    Some(&value[..memchr::memchr(quote, value)?])
}

/// The quoted value that starts at `bytes[at]` (after `=`, optional spaces), unescaped.
fn quoted(bytes: &[u8], at: usize) -> Option<String> {
    let raw = std::str::from_utf8(raw_quoted(bytes, at)?).ok()?;
    Some(
        quick_xml::escape::unescape(raw)
            .map(std::borrow::Cow::into_owned)
            .unwrap_or_else(|_| raw.to_string()),
    )
}

/// The local name of the tag that starts at `bytes[at]` (`<w:name ...` -> `name`) and where its
/// attributes start.
fn tag_name(bytes: &[u8], at: usize) -> (&[u8], usize) {
    let start = at + 1 + usize::from(bytes.get(at + 1) == Some(&b'/'));
    let end = bytes[start..]
        .iter()
        .position(|b| b.is_ascii_whitespace() || matches!(b, b'/' | b'>'))
        .map_or(bytes.len(), |n| start + n);
    let name = &bytes[start..end];
    let local = name
        .iter()
        .rposition(|&b| b == b':')
        .map_or(name, |colon| &name[colon + 1..]);
    (local, end)
}

/// styleId -> (kind, level) for heading and title styles.
///
/// `styles.xml` is often hundreds of KB (latent styles, run properties) of which only each style's id and
/// its `name` matter, so this scans bytes instead of parsing the XML: every `styleId=` attribute of a
/// `style` tag, then the first `name` tag after it (before the next style) and its `val`.
fn heading_styles(bytes: &[u8]) -> HashMap<String, (ElementKind, u8)> {
    let ids: Vec<usize> = memchr::memmem::find_iter(bytes, b"styleId=").collect();
    let mut styles = HashMap::new();
    for (index, &at) in ids.iter().enumerate() {
        // The attribute must sit in a `style` start tag (and be a whole attribute name).
        let Some(open) = memchr::memrchr(b'<', &bytes[..at]) else {
            continue;
        };
        let (name, _) = tag_name(bytes, open);
        let before = bytes[at - 1];
        if name != b"style"
            || memchr::memchr(b'>', &bytes[open..at]).is_some()
            || !(before.is_ascii_whitespace() || before == b':')
        {
            continue;
        }
        let Some(id) = quoted(bytes, at + b"styleId=".len()) else {
            continue;
        };
        let region_end = ids.get(index + 1).copied().unwrap_or(bytes.len());
        let mut cursor = at;
        let mut style_name = None;
        while let Some(offset) = memchr::memchr(b'<', &bytes[cursor..region_end]) {
            let tag = cursor + offset;
            let (local, attributes) = tag_name(bytes, tag);
            if local == b"name" {
                let close = memchr::memchr(b'>', &bytes[attributes..region_end])
                    .map_or(region_end, |n| attributes + n);
                let inside = &bytes[attributes..close];
                style_name = memchr::memmem::find_iter(inside, b"val=")
                    .find(|&n| {
                        n == 0 || matches!(inside[n - 1], b':' | b' ' | b'\t' | b'\n' | b'\r')
                    })
                    .and_then(|n| quoted(bytes, attributes + n + b"val=".len()));
                break;
            }
            if local == b"style" && bytes.get(tag + 1) == Some(&b'/') {
                break;
            }
            cursor = tag + 1;
        }
        let Some(style_name) = style_name else {
            continue;
        };
        let lower = style_name.to_lowercase();
        if lower == "title" {
            styles.insert(id, (ElementKind::Title, 0));
        } else if let Some(level) = lower
            .strip_prefix("heading ")
            .and_then(|l| l.trim().parse::<u8>().ok())
        {
            styles.insert(id, (ElementKind::Heading, level));
        }
    }
    styles
}

struct TableState {
    rows: Vec<Vec<String>>,
    row: Vec<String>,
    cell: String,
}

/// Body-like parts (document, header, footer, footnotes, comments).
fn read_part(
    xml: &[u8],
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
    let walked = walk(xml, max_depth, |event| match event {
        Event::Start(e) | Event::Empty(e) => match local(e) {
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
        },
        Event::Text(t) if in_text => ooxml::push_text(t, &mut paragraph),
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
                            rows: done.rows.into(),
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
    });
    // What was read before a damaged stretch of XML is kept (the caller records the damage).
    for (element, table) in finished {
        match table {
            Some(mut table) => {
                if table.rows.len() > 1 {
                    table.header = table.rows.remove_first();
                }
                builder.push_table(table, None);
            }
            None => builder.push(element),
        }
    }
    walked
}

/// The raw (still escaped) ids of the paragraph styles a part uses (`<w:pStyle w:val="..."/>`).
fn used_styles(bytes: &[u8], into: &mut Vec<Vec<u8>>) {
    for at in memchr::memmem::find_iter(bytes, b"pStyle") {
        let end = memchr::memchr(b'>', &bytes[at..]).map_or(bytes.len(), |n| at + n);
        let tag = &bytes[at..end];
        let Some(id) = memchr::memmem::find(tag, b"val=").and_then(|val| raw_quoted(tag, val + 4))
        else {
            continue;
        };
        if !into.iter().any(|known| known == id) {
            into.push(id.to_vec());
        }
    }
}

/// Watches `styles.xml` being read and tells when every style of `wanted` has been read whole: a
/// package's styles are hundreds (350 KB in a Word template) and a document uses a few of the first.
struct StyleWatch {
    /// (`styleId="id"`, where it was found).
    wanted: Vec<(Vec<u8>, Option<usize>)>,
    searched: usize,
}

impl StyleWatch {
    fn new(ids: &[Vec<u8>]) -> StyleWatch {
        let mut wanted = Vec::new();
        for id in ids {
            for quote in [b'"', b'\''] {
                let mut pattern = b"styleId=".to_vec();
                pattern.push(quote);
                pattern.extend_from_slice(id);
                pattern.push(quote);
                wanted.push((pattern, None));
            }
        }
        StyleWatch {
            wanted,
            searched: 0,
        }
    }

    /// Whether more of the part is needed, `bytes` being all read so far.
    fn more(&mut self, bytes: &[u8]) -> bool {
        let mut missing = 0;
        for pair in self.wanted.chunks_mut(2) {
            let mut complete = false;
            for (pattern, found) in pair.iter_mut() {
                if found.is_none() {
                    let from = self.searched.saturating_sub(pattern.len());
                    *found = memchr::memmem::find(&bytes[from..], pattern).map(|n| from + n);
                }
                // Read whole once its end tag (or the next style's) has arrived.
                complete |= found.is_some_and(|at| {
                    memchr::memmem::find(&bytes[at..], b"style>").is_some()
                        || memchr::memmem::find(&bytes[at + pattern.len()..], b"styleId=").is_some()
                });
            }
            if !complete {
                missing += 1;
            }
        }
        self.searched = bytes.len();
        missing > 0
    }
}

pub fn extract(bytes: &[u8], limits: &Limits, builder: &mut Builder) -> Result<(), ExtractError> {
    let mut package = Package::open(bytes, limits)?;
    let depth = package.max_depth();
    let names = package.names();
    // Every body-like part first, in the order of the output, so that only the styles they use are
    // looked for. A damaged part (a broken stream, broken XML) is recorded and skipped, or kept up to the damage;
    // the main part must be there.
    let mut parts: Vec<(String, Vec<u8>, ElementKind)> = Vec::new();
    let headers = ooxml::numbered_parts(&names, "word/header");
    let footers = ooxml::numbered_parts(&names, "word/footer");
    let body = "word/document.xml".to_string();
    let others = [
        "word/footnotes.xml",
        "word/endnotes.xml",
        "word/comments.xml",
    ];
    let listed = headers
        .into_iter()
        .map(|name| (name, ElementKind::Header))
        .chain([(body.clone(), ElementKind::Paragraph)])
        .chain(others.map(|name| (name.to_string(), ElementKind::Paragraph)))
        .chain(footers.into_iter().map(|name| (name, ElementKind::Footer)));
    for (name, kind) in listed {
        let read = package.read(&name);
        if let Some(Some(xml)) = ooxml::tolerate(builder, &name, read)? {
            parts.push((name, xml, kind));
        }
    }
    if !parts.iter().any(|(name, _, _)| *name == body) {
        return Err(ExtractError::Malformed(
            "DOCX without a readable word/document.xml".to_string(),
        ));
    }
    let mut used = Vec::new();
    for (_, xml, _) in &parts {
        used_styles(xml, &mut used);
    }
    let styles = if used.is_empty() {
        HashMap::new()
    } else {
        let mut watch = StyleWatch::new(&used);
        let read = package.read_while("word/styles.xml", |read| watch.more(read));
        ooxml::tolerate(builder, "word/styles.xml", read)?
            .flatten()
            .map(|xml| heading_styles(&xml))
            .unwrap_or_default()
    };
    for (name, xml, kind) in &parts {
        let read = read_part(xml, depth, &styles, *kind, builder);
        ooxml::tolerate(builder, name, read)?;
    }
    let read = ooxml::core_properties(&mut package, builder);
    ooxml::tolerate(builder, "docProps/core.xml", read)?;
    builder.damaged_parts.extend(package.take_damage());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heading_styles_come_from_style_names_whatever_the_ids_and_prefixes() {
        let xml = r#"<?xml version="1.0"?>
<w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">
  <w:latentStyles><w:lsdException w:name="heading 1" w:uiPriority="9"/></w:latentStyles>
  <w:style w:type="paragraph" w:styleId="Balk1"><w:name w:val="heading 1"/><w:rPr/></w:style>
  <w:style w:type="paragraph" w:styleId='Balk2'><w:basedOn w:val="Normal"/><w:name w:val='Heading 2'/></w:style>
  <w:style w:type="paragraph" w:styleId="KonuBal"><w:name w:val="Title"/></w:style>
  <w:style w:type="paragraph" w:styleId="Normal"><w:name w:val="Normal"/></w:style>
  <w:style w:type="paragraph" w:styleId="Empty"/>
  <w:style w:type="paragraph" w:styleId="A&amp;B"><w:name w:val="heading 3"/></w:style>
  <style type="paragraph" styleId="Plain"><name val="heading 4"/></style>
  <w:style w:type="character" w:customStyle="1" w:styleId="NoName"></w:style>
  <w:style w:type="paragraph" w:styleId="After"><w:name w:val="heading 5"/></w:style>
</w:styles>"#;
        let styles = heading_styles(xml.as_bytes());
        assert_eq!(styles.get("Balk1"), Some(&(ElementKind::Heading, 1)));
        assert_eq!(styles.get("Balk2"), Some(&(ElementKind::Heading, 2)));
        assert_eq!(styles.get("KonuBal"), Some(&(ElementKind::Title, 0)));
        assert_eq!(styles.get("A&B"), Some(&(ElementKind::Heading, 3)));
        assert_eq!(styles.get("Plain"), Some(&(ElementKind::Heading, 4)));
        assert_eq!(styles.get("After"), Some(&(ElementKind::Heading, 5)));
        assert!(!styles.contains_key("Normal") && !styles.contains_key("Empty"));
        assert!(!styles.contains_key("NoName"));
        assert_eq!(styles.len(), 6);
    }

    #[test]
    fn heading_styles_survive_truncated_and_odd_input() {
        for xml in [
            "",
            "styleId=",
            "<w:style w:styleId=\"x",
            "<w:style w:styleId=\"x\"><w:name w:val=",
            "<w:style w:styleId=\"x\"><w:name w:val=\"heading 1",
            "<<<>>>styleId=\"a\"<",
            "<w:style w:styleId=\"x\"><w:name w:val=\"heading 300\"/>",
        ] {
            assert!(heading_styles(xml.as_bytes()).is_empty(), "{xml}");
        }
    }

    /// A DOCX whose styles.xml holds `filler` unused styles before (or after) the heading style `Balk1`.
    fn docx_with_styles(filler: usize, heading_first: bool) -> Vec<u8> {
        use std::io::Write;
        let mut styles = String::from("<?xml version=\"1.0\"?><w:styles xmlns:w=\"w\">");
        let heading =
            "<w:style w:type=\"paragraph\" w:styleId=\"Balk1\"><w:name w:val=\"heading 1\"/></w:style>";
        if heading_first {
            styles.push_str(heading);
        }
        for n in 0..filler {
            styles.push_str(&format!(
                "<w:style w:type=\"paragraph\" w:styleId=\"Filler{n}\"><w:name w:val=\"Filler {n}\"/><w:rPr><w:sz w:val=\"22\"/></w:rPr></w:style>"
            ));
        }
        if !heading_first {
            styles.push_str(heading);
        }
        styles.push_str("</w:styles>");
        let document = "<w:document xmlns:w=\"w\"><w:body><w:p><w:pPr><w:pStyle w:val=\"Balk1\"/></w:pPr><w:r><w:t>Giriş</w:t></w:r></w:p><w:p><w:r><w:t>Metin</w:t></w:r></w:p></w:body></w:document>";
        let mut buffer = std::io::Cursor::new(Vec::new());
        let mut archive = zip::ZipWriter::new(&mut buffer);
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        for (name, content) in [
            ("word/document.xml", document.to_string()),
            ("word/styles.xml", styles),
        ] {
            archive.start_file(name, options).expect("entry");
            archive.write_all(content.as_bytes()).expect("write");
        }
        archive.finish().expect("finish");
        buffer.into_inner()
    }

    /// Parts are not validated as a whole: a text node that is not UTF-8 is decoded on its own with
    /// replacement characters (its entities still unescaped), and the rest reads as usual.
    #[test]
    fn a_text_that_is_not_utf8_is_read_lossily_and_alone() {
        use crate::extractor_pool::extract_document as extract;
        use std::io::Write;
        let document = b"<w:document xmlns:w=\"w\"><w:body><w:p><w:r><w:t>Bozuk \xFF &amp; metin</w:t></w:r></w:p><w:p><w:r><w:t>Sa\xC4\x9Flam &amp; metin</w:t></w:r></w:p></w:body></w:document>".to_vec();
        let mut buffer = std::io::Cursor::new(Vec::new());
        let mut archive = zip::ZipWriter::new(&mut buffer);
        archive
            .start_file(
                "word/document.xml",
                zip::write::SimpleFileOptions::default(),
            )
            .expect("entry");
        archive.write_all(&document).expect("write");
        archive.finish().expect("finish");
        let document = extract(&buffer.into_inner(), &Limits::default()).expect("extracts");
        let texts: Vec<&str> = document.elements.iter().map(|e| e.text.as_str()).collect();
        assert_eq!(texts, ["Bozuk \u{FFFD} & metin", "Sağlam & metin"]);
    }

    #[test]
    fn a_used_heading_style_is_found_wherever_it_sits_in_styles_xml() {
        use crate::extractor_pool::extract_document as extract;
        for heading_first in [true, false] {
            let bytes = docx_with_styles(3000, heading_first);
            let document = extract(&bytes, &Limits::default()).expect("extracts");
            let heading = &document.elements[0];
            assert_eq!(heading.text, "Giriş");
            assert_eq!(heading.kind, ElementKind::Heading, "first: {heading_first}");
            assert_eq!(heading.level, Some(1));
            assert_eq!(document.elements[1].kind, ElementKind::Paragraph);
        }
    }

    #[test]
    fn styles_xml_is_read_only_until_the_used_styles_are_whole() {
        let mut used = Vec::new();
        used_styles(
            "<w:pPr><w:pStyle w:val=\"Balk1\"/></w:pPr><w:pStyle w:val='A&amp;B'/><w:pStyle w:val=\"Balk1\"/>".as_bytes(),
            &mut used,
        );
        assert_eq!(used, vec![b"Balk1".to_vec(), b"A&amp;B".to_vec()]);
        let styles = "<w:styles><w:style w:styleId=\"Balk1\"><w:name w:val=\"heading 1\"/></w:style><w:style w:styleId='A&amp;B'><w:name w:val=\"heading 2\"/></w:style><w:style w:styleId=\"Later\"><w:name w:val=\"x\"/></w:style>";
        let bytes = styles.as_bytes();
        let second_end = styles.find("<w:style w:styleId=\"Later").unwrap();
        let mut watch = StyleWatch::new(&used);
        // Growing prefixes, as chunks arrive: more is needed until the second style has closed.
        let mut stopped_at = None;
        for end in 1..=bytes.len() {
            if !watch.more(&bytes[..end]) {
                stopped_at = Some(end);
                break;
            }
        }
        let stopped_at = stopped_at.expect("stops before the end");
        assert!(stopped_at <= second_end, "{stopped_at} > {second_end}");
        assert!(styles[..stopped_at].ends_with("style>"));
        let map = heading_styles(&bytes[..stopped_at]);
        assert_eq!(map.get("A&B"), Some(&(ElementKind::Heading, 2)));
        assert_eq!(map.get("Balk1"), Some(&(ElementKind::Heading, 1)));
        // A style that is not there: the whole part is read.
        let mut watch = StyleWatch::new(&[b"Missing".to_vec()]);
        assert!(watch.more(bytes));
    }
}
