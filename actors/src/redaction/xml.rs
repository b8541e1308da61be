//! XML (UBL-TR e-invoices and any other) written back with the same elements and attributes: each text
//! node and attribute value is masked with the key the reader reads it with (`Telephone: +90 ...`,
//! `PartyIdentification.ID: ...`, `person.name: ...`), so that the names of the elements give the
//! context they give when the document is read. Only the bytes of changed texts and attribute values
//! are replaced; the declaration, the DOCTYPE (never expanded), comments and every tag are the
//! original's. A file embedded in base64 (`EmbeddedDocumentBinaryObject`: the XSLT an e-invoice
//! carries) is written back the same way when it is XML, and removed when it is not. Certificates of an
//! XML signature are removed (they name the signer, and the signature no longer holds once the
//! document is masked).

use base64::Engine as _;
use quick_xml::events::{BytesStart, Event};

use super::xml_text::{spliced, Splices};
use super::{masked_with_key, Masker, RedactError, Redacted};
use crate::extractor_pool::{
    decode_declared_text, invoice_field, xml_declared_encoding, xml_key_of, Limits,
};

/// Elements whose text is removed: signers' certificates, and revocation data that names them.
const CLEARED: &[&[u8]] = &[
    b"X509Certificate",
    b"EncapsulatedX509Certificate",
    b"X509CRL",
    b"EncapsulatedCRLValue",
    b"EncapsulatedOCSPValue",
];

/// Elements that hold a file in base64.
const EMBEDDED: &[&[u8]] = &[b"EmbeddedDocumentBinaryObject"];

fn malformed(error: impl std::fmt::Display) -> RedactError {
    RedactError::Malformed(format!("XML: {error}"))
}

struct Writer<'a> {
    text: &'a str,
    limits: &'a Limits,
    masker: &'a mut dyn Masker,
    splices: Splices,
    redacted: Redacted,
    path: Vec<String>,
    /// Whether the document is an e-invoice, and the `schemeID` of the element last opened.
    invoice: bool,
    scheme: Option<String>,
}

impl Writer<'_> {
    /// The key the reader reads the text of the element open at the end of the path with: an
    /// e-invoice's field (none inside its lines and tax subtotals, which are read as a table), or
    /// the element's name (with its parent's when it says nothing alone).
    fn key(&self, attribute: Option<&str>) -> Option<String> {
        if !self.invoice {
            return Some(xml_key_of(&self.path, attribute));
        }
        let in_rows = self
            .path
            .iter()
            .any(|p| p == "InvoiceLine" || p == "TaxSubtotal");
        match (attribute, in_rows) {
            (None, false) => invoice_field(&self.path, self.scheme.as_deref()),
            _ => None,
        }
    }

    /// Where `inner` (a slice of the text) starts.
    fn offset(&self, inner: &[u8]) -> Result<usize, RedactError> {
        let start = (inner.as_ptr() as usize)
            .checked_sub(self.text.as_ptr() as usize)
            .filter(|start| start + inner.len() <= self.text.len());
        start.ok_or_else(|| malformed("a value could not be placed"))
    }

    /// The texts `written` left, and their bytes at `range` replaced when they changed.
    fn put(&mut self, range: std::ops::Range<usize>, written: String, changed: bool) {
        self.redacted.left.push_str(&written);
        self.redacted.left.push('\n');
        if changed {
            let escaped = quick_xml::escape::escape(written.as_str()).into_owned();
            self.splices.push((range, escaped.into_bytes()));
        }
    }

    fn attributes(&mut self, element: &BytesStart<'_>) -> Result<(), RedactError> {
        self.path
            .push(String::from_utf8_lossy(element.local_name().into_inner()).into_owned());
        for attribute in element.attributes() {
            let attribute = attribute.map_err(malformed)?;
            let key = String::from_utf8_lossy(attribute.key.local_name().as_ref()).into_owned();
            if attribute.key.as_ref().starts_with(b"xmlns") || key.ends_with("schemaLocation") {
                continue;
            }
            let at = self.offset(&attribute.value)?;
            let value = super::unescape(&String::from_utf8_lossy(&attribute.value));
            let (written, changed) =
                masked_with_key(self.key(Some(&key)).as_deref(), &value, self.masker)?;
            self.put(at..at + attribute.value.len(), written, changed);
        }
        self.path.pop();
        Ok(())
    }

    fn text(&mut self, range: std::ops::Range<usize>, raw: &str) -> Result<(), RedactError> {
        let local = self.path.last().map(String::as_bytes).unwrap_or_default();
        if CLEARED.contains(&local) {
            if !raw.trim().is_empty() {
                self.splices.push((range, Vec::new()));
                self.redacted
                    .notes
                    .push("a certificate of the XML signature removed".to_string());
            }
            return Ok(());
        }
        if EMBEDDED.contains(&local) {
            return self.embedded(range, raw);
        }
        let value = super::unescape(raw);
        let (written, changed) = masked_with_key(self.key(None).as_deref(), &value, self.masker)?;
        self.put(range, written, changed);
        Ok(())
    }

    /// A file in base64: written back when it is XML, removed otherwise.
    fn embedded(&mut self, range: std::ops::Range<usize>, raw: &str) -> Result<(), RedactError> {
        let compact: String = raw.chars().filter(|c| !c.is_ascii_whitespace()).collect();
        if compact.is_empty() {
            return Ok(());
        }
        let engine = base64::engine::general_purpose::STANDARD;
        let inner = engine.decode(compact.as_bytes()).ok().filter(|bytes| {
            let head = String::from_utf8_lossy(&bytes[..bytes.len().min(64)]).into_owned();
            head.trim_start_matches('\u{feff}')
                .trim_start()
                .starts_with('<')
        });
        match inner {
            Some(inner) if self.path.len() < self.limits.max_xml_depth => {
                let written = xml(&inner, self.limits, self.masker)?;
                let bytes = self.redacted.absorb(written, "an embedded XML file");
                self.splices
                    .push((range, engine.encode(&bytes).into_bytes()));
            }
            _ => {
                self.splices.push((range, Vec::new()));
                self.redacted.notes.push(
                    "an embedded file that is not XML removed: files inside XML are not read"
                        .to_string(),
                );
            }
        }
        Ok(())
    }
}

pub fn xml(
    bytes: &[u8],
    limits: &Limits,
    masker: &mut dyn Masker,
) -> Result<Redacted, RedactError> {
    let declared = xml_declared_encoding(bytes);
    let decoded = decode_declared_text(bytes, declared.as_deref());
    let text = decoded.text.as_str();
    let mut writer = Writer {
        text,
        limits,
        masker,
        splices: Vec::new(),
        redacted: Redacted::default(),
        path: Vec::new(),
        invoice: false,
        scheme: None,
    };
    let mut reader = quick_xml::Reader::from_str(text);
    loop {
        let start = reader.buffer_position() as usize;
        let event = reader.read_event().map_err(malformed)?;
        let end = reader.buffer_position() as usize;
        match event {
            Event::Start(element) => {
                writer.invoice |=
                    writer.path.is_empty() && element.local_name().as_ref() == b"Invoice";
                writer.scheme = scheme_of(&element);
                writer.attributes(&element)?;
                writer
                    .path
                    .push(String::from_utf8_lossy(element.local_name().into_inner()).into_owned());
                if writer.path.len() > limits.max_xml_depth {
                    return Err(RedactError::Limit(format!(
                        "XML nesting deeper than {}",
                        limits.max_xml_depth
                    )));
                }
            }
            Event::Empty(element) => {
                writer.scheme = scheme_of(&element);
                writer.attributes(&element)?;
            }
            Event::End(_) => {
                writer.path.pop();
            }
            Event::Text(_) => writer.text(start..end, &text[start..end])?,
            Event::CData(data) => {
                // Written back as escaped text: the same characters to any XML reader.
                let content = String::from_utf8_lossy(&data).into_owned();
                let key = writer.key(None);
                let (written, changed) = masked_with_key(key.as_deref(), &content, writer.masker)?;
                writer.put(start..end, written, changed);
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if !writer.path.is_empty() {
        return Err(malformed(format!(
            "it ends inside <{}>",
            writer.path.join("/")
        )));
    }
    let mut splices = writer.splices;
    let mut redacted = writer.redacted;
    if decoded.encoding != "UTF-8" && decoded.encoding != "ASCII" {
        redacted.notes.push(format!(
            "the file was {}; it is answered in UTF-8",
            decoded.encoding
        ));
        if let Some(range) = encoding_value(text) {
            splices.push((range, b"UTF-8".to_vec()));
        }
    }
    redacted.bytes = spliced(text.as_bytes(), splices, "XML")?.unwrap_or_else(|| text.into());
    redacted.notes.dedup();
    Ok(redacted)
}

/// Where the value of the declaration's `encoding` is.
fn encoding_value(text: &str) -> Option<std::ops::Range<usize>> {
    let head = &text[..text.find("?>")?];
    let at = head.find("encoding")? + "encoding".len();
    let open = at + head[at..].find(['"', '\''])? + 1;
    let close = open + head[open..].find(['"', '\''])?;
    Some(open..close)
}

fn scheme_of(element: &BytesStart<'_>) -> Option<String> {
    element
        .attributes()
        .flatten()
        .find(|a| a.key.local_name().as_ref() == b"schemeID")
        .map(|a| String::from_utf8_lossy(&a.value).into_owned())
}
