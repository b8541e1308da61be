//! HTML written back as HTML: tags and attributes stay byte for byte; the text between block-level tags
//! is masked as one text (a value split by `<b>`, `<span>` or a link is found) and put back into its
//! runs; `alt`, `title`, `href` and the like are masked on their own; comments are removed; scripts
//! and styles are kept and scanned (a value in one refuses the file). Answered in UTF-8, a declared
//! charset rewritten to say so.

use std::ops::Range;

use super::distribute::{apply, distribute};
use super::{Masker, RedactError, Redacted};
use crate::extractor_pool::Limits;

/// Tags that do not end a run of text (phrasing content).
const INLINE: &[&str] = &[
    "a", "abbr", "b", "bdi", "bdo", "cite", "code", "data", "del", "dfn", "em", "font", "i", "ins",
    "kbd", "label", "mark", "nobr", "q", "s", "samp", "small", "span", "strong", "sub", "sup",
    "time", "u", "var", "wbr",
];

/// Elements whose content is not markup: kept as they are, and scanned.
const RAW: &[&str] = &["script", "style", "textarea", "title", "xmp"];

/// Attributes whose values are text a reader sees or a link follows.
const MASKED_ATTRIBUTES: &[&str] = &[
    "alt",
    "title",
    "href",
    "value",
    "content",
    "placeholder",
    "aria-label",
    "label",
    "data-name",
    "data-email",
];

/// A piece of a run of text: where its bytes are, its decoded text, whether it may change.
struct Piece {
    range: Range<usize>,
    text: String,
    writable: bool,
}

/// `&name;` and `&#...;` decoded; anything else is kept as written.
pub fn unescape(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let end = rest[1..]
            .find(|c: char| !c.is_ascii_alphanumeric() && c != '#')
            .map(|e| e + 1)
            .filter(|&e| rest[e..].starts_with(';'));
        let decoded = end.and_then(|end| {
            let name = &rest[1..end];
            let character = match name.strip_prefix('#') {
                Some(number) => match number.strip_prefix(['x', 'X']) {
                    Some(hex) => u32::from_str_radix(hex, 16).ok(),
                    None => number.parse().ok(),
                }
                .and_then(char::from_u32)
                .map(String::from),
                None => html5ever::data::NAMED_ENTITIES
                    .get(&format!("{name};"))
                    .map(|&(first, second)| {
                        [first, second]
                            .into_iter()
                            .filter(|&c| c != 0)
                            .filter_map(char::from_u32)
                            .collect()
                    }),
            }?;
            Some((character, end + 1))
        });
        match decoded {
            Some((text, length)) => {
                out.push_str(&text);
                rest = &rest[length..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

fn escape(text: &str) -> String {
    quick_xml::escape::escape(text).into_owned()
}

struct Writer<'a> {
    text: &'a str,
    masker: &'a mut dyn Masker,
    splices: Vec<(Range<usize>, String)>,
    pieces: Vec<Piece>,
    left: String,
}

impl Writer<'_> {
    /// The run of text so far masked and put back into its pieces.
    fn close(&mut self) -> Result<(), RedactError> {
        let pieces = std::mem::take(&mut self.pieces);
        let texts: Vec<&str> = pieces.iter().map(|p| p.text.as_str()).collect();
        let whole = texts.concat();
        if whole.trim().is_empty() {
            return Ok(());
        }
        let replaces = self.masker.replacements(&whole)?;
        self.left.push_str(&apply(&whole, &replaces));
        self.left.push('\n');
        if replaces.is_empty() {
            return Ok(());
        }
        let writable: Vec<bool> = pieces.iter().map(|p| p.writable).collect();
        for (piece, new) in pieces.iter().zip(distribute(&texts, &writable, &replaces)) {
            if piece.writable && piece.text != new {
                self.splices.push((piece.range.clone(), escape(&new)));
            }
        }
        Ok(())
    }

    /// A tag's attributes (between its name and its end): the masked ones masked on their own.
    fn attributes(&mut self, from: usize, to: usize) -> Result<(), RedactError> {
        let bytes = self.text.as_bytes();
        let mut at = from;
        while at < to {
            while at < to && (bytes[at].is_ascii_whitespace() || bytes[at] == b'/') {
                at += 1;
            }
            let name_start = at;
            while at < to && !bytes[at].is_ascii_whitespace() && !matches!(bytes[at], b'=' | b'/') {
                at += 1;
            }
            let name = self.text[name_start..at].to_ascii_lowercase();
            while at < to && bytes[at].is_ascii_whitespace() {
                at += 1;
            }
            if at >= to || bytes[at] != b'=' {
                if at == name_start {
                    at += 1;
                }
                continue;
            }
            at += 1;
            while at < to && bytes[at].is_ascii_whitespace() {
                at += 1;
            }
            let value = match bytes.get(at) {
                Some(&quote @ (b'"' | b'\'')) => {
                    let end = self
                        .text
                        .get(at + 1..to)
                        .and_then(|value| value.find(quote as char))
                        .map_or(to, |e| at + 1 + e)
                        .max(at + 1);
                    let range = at + 1..end;
                    at = (end + 1).min(to);
                    range
                }
                _ => {
                    let start = at;
                    while at < to && !bytes[at].is_ascii_whitespace() {
                        at += 1;
                    }
                    start..at
                }
            };
            if !MASKED_ATTRIBUTES.contains(&name.as_str()) {
                continue;
            }
            let raw = &self.text[value.clone()];
            let decoded = unescape(raw);
            if decoded.trim().is_empty() {
                continue;
            }
            let replaces = self.masker.replacements(&decoded)?;
            let written = apply(&decoded, &replaces);
            self.left.push_str(&written);
            self.left.push('\n');
            if !replaces.is_empty() {
                self.splices.push((value, escape(&written)));
            }
        }
        Ok(())
    }
}

/// Where the tag starting at `at` (on its `<`) ends, after its `>`, quotes respected.
fn tag_end(text: &str, at: usize) -> usize {
    let mut quote: Option<u8> = None;
    for (offset, &byte) in text.as_bytes()[at..].iter().enumerate() {
        match (quote, byte) {
            (Some(q), b) if b == q => quote = None,
            (None, b'"' | b'\'') => quote = Some(byte),
            (None, b'>') => return at + offset + 1,
            _ => {}
        }
    }
    text.len()
}

/// The lowercase name of the tag at `at` (after `<` or `</`), and where it ends.
fn tag_name(text: &str, at: usize) -> (String, usize) {
    let end = text[at..]
        .find(|c: char| c.is_ascii_whitespace() || c == '>' || c == '/')
        .map_or(text.len(), |e| at + e);
    (text[at..end].to_ascii_lowercase(), end)
}

pub fn html(bytes: &[u8], _: &Limits, masker: &mut dyn Masker) -> Result<Redacted, RedactError> {
    let declared = crate::extractor_pool::declared_html_charset(bytes);
    let decoded = crate::extractor_pool::decode_declared_text(bytes, declared.as_deref());
    let text = decoded.text.as_str();
    let mut writer = Writer {
        text,
        masker,
        splices: Vec::new(),
        pieces: Vec::new(),
        left: String::new(),
    };
    let mut comments = 0usize;
    let mut at = 0;
    while at < text.len() {
        let rest = &text[at..];
        let Some(lt) = rest.find('<') else {
            writer.pieces.push(Piece {
                range: at..text.len(),
                text: unescape(rest),
                writable: true,
            });
            break;
        };
        if lt > 0 {
            writer.pieces.push(Piece {
                range: at..at + lt,
                text: unescape(&rest[..lt]),
                writable: true,
            });
        }
        at += lt;
        let rest = &text[at..];
        if let Some(comment) = rest.strip_prefix("<!--") {
            let end = comment.find("-->").map_or(text.len(), |e| at + 4 + e + 3);
            writer.splices.push((at..end, String::new()));
            comments += 1;
            at = end;
            continue;
        }
        let closing = rest.starts_with("</");
        let name_at = at + if closing { 2 } else { 1 };
        if !text[name_at..].starts_with(|c: char| c.is_ascii_alphabetic()) {
            // A declaration, a processing instruction, or a lone '<' in the text.
            if rest.starts_with("<!") || rest.starts_with("<?") {
                at = tag_end(text, at);
            } else {
                writer.pieces.push(Piece {
                    range: at..at + 1,
                    text: "<".to_string(),
                    writable: false,
                });
                at += 1;
            }
            continue;
        }
        let (name, name_end) = tag_name(text, name_at);
        let end = tag_end(text, at);
        if name == "br" {
            writer.pieces.push(Piece {
                range: at..end,
                text: "\n".to_string(),
                writable: false,
            });
            at = end;
            continue;
        }
        if !INLINE.contains(&name.as_str()) {
            writer.close()?;
        }
        if !closing {
            // The attributes run to the tag's '>' (or to the end of a page cut short).
            let to = if text[..end].ends_with('>') {
                end - 1
            } else {
                end
            };
            writer.attributes(name_end.min(to), to)?;
        }
        at = end;
        if !closing && RAW.contains(&name.as_str()) {
            // Its content runs to its end tag; kept as it is, and scanned.
            let close = format!("</{name}");
            let content_end = text[at..]
                .to_ascii_lowercase()
                .find(&close)
                .map_or(text.len(), |e| at + e);
            let content = unescape(&text[at..content_end]);
            if matches!(name.as_str(), "title" | "textarea") {
                // Text a reader sees: masked like any other.
                writer.pieces.push(Piece {
                    range: at..content_end,
                    text: content,
                    writable: true,
                });
                writer.close()?;
            } else {
                writer.left.push_str(&content);
                writer.left.push('\n');
            }
            at = content_end;
        }
    }
    writer.close()?;
    let mut redacted = Redacted::default();
    if comments > 0 {
        redacted
            .notes
            .push(format!("{comments} HTML comment(s) removed"));
    }
    if decoded.encoding != "UTF-8" && decoded.encoding != "ASCII" {
        redacted.notes.push(format!(
            "the page was {}; it is answered in UTF-8",
            decoded.encoding
        ));
        if let Some(range) = charset_value(text) {
            writer.splices.push((range, "utf-8".to_string()));
        }
    }
    let splices = writer
        .splices
        .into_iter()
        .map(|(range, with)| (range, with.into_bytes()))
        .collect();
    let out = super::xml_text::spliced(text.as_bytes(), splices, "the page")?
        .unwrap_or_else(|| text.as_bytes().to_vec());
    redacted.left = writer.left;
    redacted.bytes = out;
    Ok(redacted)
}

/// Where the value of the first `charset=` in the page's head is.
fn charset_value(text: &str) -> Option<Range<usize>> {
    let mut cut = text.len().min(4096);
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let head = &text[..cut];
    let lower = head.to_ascii_lowercase();
    let at = lower.find("charset=")? + "charset=".len();
    let start = at + lower[at..].find(|c: char| c != '"' && c != '\'')?;
    let end = start
        + lower[start..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
            .unwrap_or(lower.len() - start);
    (end > start).then_some(start..end)
}
