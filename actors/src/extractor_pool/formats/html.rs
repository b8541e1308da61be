//! HTML through html5ever (scraper): headings, paragraphs, lists, tables, links; scripts and styles
//! dropped. The declared charset is honoured when the bytes are not UTF-8.
//!
//! Nesting is bounded before the tree is walked: html5ever is fed in slices and stops being fed once
//! the newest node lies deeper than `limits.max_xml_depth` (its work on a deep stack of open elements
//! grows with the square of the depth: 200,000 nested `<div>` took more than 30 s), and the finished
//! tree's depth is measured without recursion before the recursive walk below runs on it. The tree
//! itself is an arena (a vector of nodes), so dropping a deep one does not recurse.

use ego_tree::iter::Edge;
use ego_tree::NodeRef;
use html5ever::tendril::{StrTendril, TendrilSink};
use scraper::{Html, HtmlTreeSink, Node};

use super::super::error::ExtractError;
use super::super::limits::Limits;
use crate::model::{Builder, Element, ElementKind, Table};

const SKIPPED: &[&str] = &[
    "script", "style", "noscript", "template", "head", "svg", "iframe", "object",
];
const BLOCKS: &[&str] = &[
    "p",
    "pre",
    "blockquote",
    "dt",
    "dd",
    "address",
    "figcaption",
    "caption",
    "summary",
    "legend",
];

/// The charset named in a `<meta>` tag within the first bytes, if any.
pub fn declared_charset(bytes: &[u8]) -> Option<String> {
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(4096)]).to_ascii_lowercase();
    let at = head.find("charset=")? + "charset=".len();
    let value: String = head[at..]
        .trim_start_matches(['"', '\''])
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .collect();
    (!value.is_empty()).then_some(value)
}

/// Text of a subtree, without scripts and styles, whitespace collapsed.
fn text_of(node: NodeRef<'_, Node>, out: &mut String) {
    for child in node.children() {
        match child.value() {
            Node::Text(text) => out.push_str(text),
            Node::Element(element) => {
                let name = element.name();
                if SKIPPED.contains(&name) {
                    continue;
                }
                if name == "br" {
                    out.push('\n');
                } else if name == "input" {
                    if let Some(value) = element.attr("value") {
                        out.push(' ');
                        out.push_str(value);
                        out.push(' ');
                    }
                } else {
                    let block = BLOCKS.contains(&name)
                        || matches!(
                            name,
                            "div" | "li" | "tr" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6"
                        );
                    if block {
                        out.push(' ');
                    }
                    text_of(child, out);
                    if block || matches!(name, "td" | "th") {
                        out.push(' ');
                    }
                }
            }
            _ => {}
        }
    }
}

fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn table(node: NodeRef<'_, Node>) -> Table {
    let mut rows = Vec::new();
    let mut header = None;
    for row in node
        .descendants()
        .filter(|n| matches!(n.value(), Node::Element(e) if e.name() == "tr"))
    {
        let mut cells = Vec::new();
        let mut all_th = true;
        for cell in row.children() {
            if let Node::Element(e) = cell.value() {
                if matches!(e.name(), "td" | "th") {
                    all_th &= e.name() == "th";
                    let mut text = String::new();
                    text_of(cell, &mut text);
                    cells.push(collapse(&text));
                }
            }
        }
        if cells.iter().all(String::is_empty) {
            continue;
        }
        if all_th && header.is_none() && rows.is_empty() {
            header = Some(cells);
        } else {
            rows.push(cells);
        }
    }
    Table {
        name: None,
        header,
        rows: rows.into(),
        page: None,
    }
}

fn walk(node: NodeRef<'_, Node>, builder: &mut Builder, inline: &mut String) {
    for child in node.children() {
        match child.value() {
            Node::Text(text) => inline.push_str(text),
            Node::Element(element) => {
                let name = element.name();
                if SKIPPED.contains(&name) {
                    continue;
                }
                let heading = name
                    .strip_prefix('h')
                    .and_then(|l| l.parse::<u8>().ok())
                    .filter(|l| (1..=6).contains(l));
                if heading.is_some()
                    || BLOCKS.contains(&name)
                    || name == "li"
                    || name == "table"
                    || name == "title"
                {
                    flush(builder, inline);
                }
                if let Some(level) = heading {
                    let mut text = String::new();
                    text_of(child, &mut text);
                    builder.push(Element {
                        level: Some(level),
                        ..Element::new(ElementKind::Heading, collapse(&text))
                    });
                } else if name == "table" {
                    builder.push_table(table(child), None);
                } else if name == "li" {
                    // The item's own text; nested lists become items of their own.
                    let mut own = String::new();
                    for grandchild in child.children() {
                        match grandchild.value() {
                            Node::Element(e) if matches!(e.name(), "ul" | "ol") => {}
                            Node::Text(text) => own.push_str(text),
                            Node::Element(e) if !SKIPPED.contains(&e.name()) => {
                                text_of(grandchild, &mut own)
                            }
                            _ => {}
                        }
                    }
                    builder.push(Element::new(ElementKind::ListItem, collapse(&own)));
                    for grandchild in child.children() {
                        if matches!(grandchild.value(), Node::Element(e) if matches!(e.name(), "ul" | "ol"))
                        {
                            walk(grandchild, builder, inline);
                        }
                    }
                } else if BLOCKS.contains(&name) {
                    let mut text = String::new();
                    text_of(child, &mut text);
                    builder.push(Element::new(ElementKind::Paragraph, collapse(&text)));
                } else if name == "br" {
                    inline.push('\n');
                } else if name == "input" {
                    if let Some(value) = element.attr("value") {
                        inline.push(' ');
                        inline.push_str(value);
                    }
                } else {
                    let block = matches!(
                        name,
                        "div"
                            | "section"
                            | "article"
                            | "main"
                            | "header"
                            | "footer"
                            | "nav"
                            | "aside"
                            | "form"
                            | "body"
                            | "ul"
                            | "ol"
                            | "dl"
                            | "fieldset"
                    );
                    if block {
                        flush(builder, inline);
                    }
                    walk(child, builder, inline);
                    if block {
                        flush(builder, inline);
                    }
                }
            }
            _ => {}
        }
    }
}

fn flush(builder: &mut Builder, inline: &mut String) {
    let text = collapse(inline);
    if !text.is_empty() {
        builder.push(Element::new(ElementKind::Paragraph, text));
    }
    inline.clear();
}

/// How much HTML html5ever reads between two looks at the depth of the tree: at most ~1,600 levels
/// of `<div>` fit in it, so the parser never works on a stack much deeper than the limit.
const SLICE: usize = 8 * 1024;

fn too_deep(limit: usize) -> ExtractError {
    ExtractError::LimitExceeded(format!("HTML nested deeper than {limit} levels"))
}

/// Depth of the deepest node, walking the tree's open and close edges (no recursion).
fn depth(document: &Html) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    for edge in document.tree.root().traverse() {
        match edge {
            Edge::Open(_) => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            Edge::Close(_) => depth -= 1,
        }
    }
    deepest
}

/// Parses `text`, refusing it as soon as the tree grows deeper than `limit`.
fn parse(text: &str, limit: usize) -> Result<Html, ExtractError> {
    let mut parser = html5ever::driver::parse_document(
        HtmlTreeSink::new(Html::new_document()),
        Default::default(),
    );
    let mut rest = text;
    while !rest.is_empty() {
        let mut cut = rest.len().min(SLICE);
        while !rest.is_char_boundary(cut) {
            cut += 1;
        }
        parser.process(StrTendril::from_slice(&rest[..cut]));
        rest = &rest[cut..];
        let html = parser.tokenizer.sink.sink.0.borrow();
        let newest = html
            .tree
            .nodes()
            .next_back()
            .map_or(0, |n| n.ancestors().count());
        if newest > limit {
            return Err(too_deep(limit));
        }
    }
    let document = parser.finish();
    if depth(&document) > limit + 1 {
        return Err(too_deep(limit));
    }
    Ok(document)
}

pub fn extract(text: &str, limits: &Limits, builder: &mut Builder) -> Result<(), ExtractError> {
    let document = parse(text, limits.max_xml_depth)?;
    if let Ok(selector) = scraper::Selector::parse("title") {
        if let Some(title) = document.select(&selector).next() {
            let title = collapse(&title.text().collect::<String>());
            if !title.is_empty() {
                builder.document.metadata.title = Some(title.clone());
                builder.push(Element::new(ElementKind::Title, title));
            }
        }
    }
    let mut inline = String::new();
    walk(document.tree.root(), builder, &mut inline);
    flush(builder, &mut inline);
    Ok(())
}
