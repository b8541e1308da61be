//! XML: generic text and attributes, and UBL-TR e-invoices mapped to fields. DOCTYPEs are ignored:
//! no entity is expanded and nothing external is ever read. The base64 XSLT that UBL-TR carries in
//! `AdditionalDocumentReference/Attachment` is skipped.
//!
//! In generic XML a record's fields keep their names: a leaf element holding one line of text, whose
//! parent holds elements only (no text of its own, as in mixed content), becomes a key-value element
//! `name: value` (`<birthDate>1985-03-12</birthDate>` reads `birthDate: 1985-03-12`), and so does an
//! attribute (`<person name="...">` reads `person.name: ...`). A name that says nothing alone (`name`,
//! `id`, `value`, ...) is qualified with its parent's: `<country><name>` reads `country.name`. The
//! names are what tells a date of birth from an order date, and a person's name from a product's,
//! when the text is masked.

use quick_xml::events::Event;
use serde_json::{json, Value};

use super::super::error::ExtractError;
use super::super::limits::Limits;
use super::ooxml::{attribute, local, text_of};
use crate::model::{Builder, Element, ElementKind, Table};

/// The `encoding` of the XML declaration (`<?xml version="1.0" encoding="ISO-8859-9"?>`), if any.
pub fn declared_encoding(bytes: &[u8]) -> Option<String> {
    let head = &bytes[..bytes.len().min(256)];
    let head = std::str::from_utf8(head)
        .map(str::to_string)
        .unwrap_or_else(|_| String::from_utf8_lossy(head).into_owned());
    let declaration = head.trim_start_matches('\u{feff}').trim_start();
    let declaration = &declaration[..declaration.strip_prefix("<?xml")?.find("?>")? + 5];
    let at = declaration.find("encoding")? + "encoding".len();
    let rest = declaration[at..]
        .trim_start()
        .strip_prefix('=')?
        .trim_start();
    let quote = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let value = rest[1..].split(quote).next()?;
    (!value.is_empty()).then(|| value.to_string())
}

/// UBL paths (suffixes of the element path) -> field names.
const UBL_FIELDS: &[(&str, &str)] = &[
    ("Invoice/ID", "invoice.number"),
    ("Invoice/UUID", "invoice.ettn"),
    ("Invoice/IssueDate", "invoice.issue_date"),
    ("Invoice/IssueTime", "invoice.issue_time"),
    ("Invoice/ProfileID", "invoice.profile"),
    ("Invoice/InvoiceTypeCode", "invoice.type"),
    ("Invoice/DocumentCurrencyCode", "invoice.currency"),
    ("Invoice/Note", "invoice.note"),
    (
        "LegalMonetaryTotal/LineExtensionAmount",
        "totals.line_extension",
    ),
    (
        "LegalMonetaryTotal/TaxExclusiveAmount",
        "totals.tax_exclusive",
    ),
    (
        "LegalMonetaryTotal/TaxInclusiveAmount",
        "totals.tax_inclusive",
    ),
    (
        "LegalMonetaryTotal/AllowanceTotalAmount",
        "totals.allowance",
    ),
    ("LegalMonetaryTotal/PayableAmount", "totals.payable"),
    ("Invoice/TaxTotal/TaxAmount", "totals.tax"),
    ("PayeeFinancialAccount/ID", "payment.iban"),
    ("PaymentMeans/PaymentMeansCode", "payment.means_code"),
    ("PaymentMeans/PaymentDueDate", "payment.due_date"),
];

/// Paths inside a party -> field names (prefixed with `supplier.` or `customer.`).
const PARTY_FIELDS: &[(&str, &str)] = &[
    ("Party/PartyName/Name", "name"),
    ("Party/PostalAddress/StreetName", "address.street"),
    ("Party/PostalAddress/BuildingNumber", "address.building"),
    (
        "Party/PostalAddress/CitySubdivisionName",
        "address.district",
    ),
    ("Party/PostalAddress/CityName", "address.city"),
    ("Party/PostalAddress/PostalZone", "address.postal_code"),
    ("Party/PostalAddress/Country/Name", "address.country"),
    ("Party/PartyTaxScheme/TaxScheme/Name", "tax_office"),
    ("Party/Contact/Telephone", "contact.telephone"),
    ("Party/Contact/Telefax", "contact.fax"),
    ("Party/Contact/ElectronicMail", "contact.email"),
    ("Party/Person/FirstName", "person.first_name"),
    ("Party/Person/FamilyName", "person.family_name"),
    ("Party/WebsiteURI", "website"),
];

/// Element and attribute names that say nothing without their parent's.
const GENERIC_NAMES: &[&str] = &[
    "name", "id", "value", "type", "code", "number", "no", "text", "label", "key", "date",
];

/// The key a leaf element (the last of `path`) or an attribute `name` of that element is read with.
pub(crate) fn key_of(path: &[String], attribute: Option<&str>) -> String {
    let (name, parent) = match attribute {
        Some(name) => (name, path.last()),
        None => (
            path.last().map_or("", String::as_str),
            path.len().checked_sub(2).map(|p| &path[p]),
        ),
    };
    match parent {
        Some(parent) if GENERIC_NAMES.contains(&name.to_ascii_lowercase().as_str()) => {
            format!("{parent}.{name}")
        }
        _ => name.to_string(),
    }
}

/// An open element of generic XML: whether it holds elements or text of its own, its one text (an
/// index into the texts) while it has only one, and its leaf children's texts and keys, given them
/// when it ends without text of its own.
#[derive(Default)]
struct Open {
    children: bool,
    texts: usize,
    text: Option<usize>,
    leaves: Vec<(usize, String)>,
}

fn ends_with(path: &[String], suffix: &str) -> bool {
    let parts: Vec<&str> = suffix.split('/').collect();
    path.len() >= parts.len()
        && path[path.len() - parts.len()..]
            .iter()
            .zip(&parts)
            .all(|(a, b)| a == b)
}

pub fn extract(text: &str, limits: &Limits, builder: &mut Builder) -> Result<(), ExtractError> {
    let mut reader = quick_xml::Reader::from_str(text);
    let mut path: Vec<String> = Vec::new();
    let mut scheme: Option<String> = None;
    let mut skip_depth: Option<usize> = None;
    // Generic XML's texts in document order, each with its key once it has one.
    let mut texts: Vec<(Option<String>, String)> = Vec::new();
    let mut opens: Vec<Open> = Vec::new();
    let mut is_invoice = false;
    let mut lines: Vec<Vec<String>> = Vec::new();
    let mut line: Option<[String; 5]> = None;
    let mut tax: Vec<Value> = Vec::new();
    let mut tax_entry: Option<serde_json::Map<String, Value>> = None;
    loop {
        let event = reader
            .read_event()
            .map_err(|error| ExtractError::Malformed(format!("XML: {error}")))?;
        match &event {
            Event::Start(e) | Event::Empty(e) => {
                let name = String::from_utf8_lossy(local(e)).into_owned();
                if path.is_empty() && name == "Invoice" {
                    is_invoice = true;
                }
                scheme = attribute(e, b"schemeID");
                if let Some(parent) = opens.last_mut() {
                    parent.children = true;
                }
                // Attribute values are text too (generic XML keeps them, with their names).
                if !is_invoice {
                    path.push(name.clone());
                    for a in e.attributes().flatten() {
                        let key = String::from_utf8_lossy(a.key.local_name().as_ref()).into_owned();
                        if key != "xmlns"
                            && !a.key.as_ref().starts_with(b"xmlns")
                            && !key.ends_with("schemaLocation")
                        {
                            if let Ok(value) = a.unescape_value() {
                                let value = value.trim();
                                if !value.is_empty() {
                                    let key =
                                        (!value.contains('\n')).then(|| key_of(&path, Some(&key)));
                                    texts.push((key, value.to_string()));
                                }
                            }
                        }
                    }
                    path.pop();
                }
                if matches!(event, Event::Start(_)) {
                    opens.push(Open::default());
                    path.push(name.clone());
                    if path.len() > limits.max_xml_depth {
                        return Err(ExtractError::LimitExceeded(format!(
                            "XML nesting deeper than {}",
                            limits.max_xml_depth
                        )));
                    }
                    if skip_depth.is_none()
                        && (name == "EmbeddedDocumentBinaryObject"
                            || (name == "Attachment" && is_invoice))
                    {
                        skip_depth = Some(path.len());
                    }
                    if is_invoice && name == "InvoiceLine" {
                        line = Some(Default::default());
                    }
                    if is_invoice && name == "TaxSubtotal" {
                        tax_entry = Some(serde_json::Map::new());
                    }
                }
            }
            Event::End(_) => {
                // A leaf of one line of text is a field of its parent's; the parent's fields get
                // their keys when it ends without text of its own (not mixed content).
                if let Some(open) = opens.pop() {
                    if !is_invoice && open.texts == 0 {
                        for (index, key) in open.leaves {
                            texts[index].0 = Some(key);
                        }
                    }
                    if let (false, Some(index), Some(parent)) =
                        (open.children, open.text, opens.last_mut())
                    {
                        if open.texts == 1 && !texts[index].1.contains('\n') {
                            parent.leaves.push((index, key_of(&path, None)));
                        }
                    }
                }
                if let Some(name) = path.last() {
                    if is_invoice && name == "InvoiceLine" {
                        if let Some(done) = line.take() {
                            lines.push(done.to_vec());
                        }
                    }
                    if is_invoice && name == "TaxSubtotal" {
                        if let Some(done) = tax_entry.take() {
                            tax.push(Value::Object(done));
                        }
                    }
                }
                if skip_depth == Some(path.len()) {
                    skip_depth = None;
                }
                path.pop();
            }
            Event::Text(_) | Event::CData(_) if skip_depth.is_none() => {
                let value = match &event {
                    Event::Text(t) => text_of(t),
                    Event::CData(c) => String::from_utf8_lossy(c).into_owned(),
                    _ => String::new(),
                };
                let value = value.trim().to_string();
                if value.is_empty() {
                    continue;
                }
                if let Some(open) = opens.last_mut() {
                    open.texts += 1;
                    open.text = Some(texts.len());
                }
                texts.push((None, value.clone()));
                if is_invoice {
                    map_invoice(
                        &path,
                        scheme.as_deref(),
                        &value,
                        builder,
                        line.as_mut(),
                        tax_entry.as_mut(),
                    );
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if !path.is_empty() {
        return Err(ExtractError::Malformed(format!(
            "XML ends inside <{}>",
            path.join("/")
        )));
    }
    if is_invoice {
        builder.field("invoice.profile_family", "UBL-TR");
        if !tax.is_empty() {
            builder.field("tax_subtotals", Value::Array(tax));
        }
        let rows = lines.clone();
        builder.field("lines", json!(lines));
        for (key, value) in builder.document.fields.clone() {
            if let Some(text) = value.as_str() {
                builder.push(Element::new(
                    ElementKind::KeyValue,
                    format!("{key}: {text}"),
                ));
            }
        }
        // Whatever the mapping does not know still belongs to the text (and to masking).
        for (_, text) in std::mem::take(&mut texts) {
            builder.push(Element::new(ElementKind::Paragraph, text));
        }
        builder.push_table(
            Table {
                name: Some("lines".to_string()),
                header: Some(
                    ["id", "name", "quantity", "unit_price", "amount"]
                        .map(String::from)
                        .to_vec(),
                ),
                rows: rows.into(),
                page: None,
            },
            None,
        );
    } else {
        for (key, text) in texts {
            builder.push(match key {
                Some(key) => Element::new(ElementKind::KeyValue, format!("{key}: {text}")),
                None => Element::new(ElementKind::Paragraph, text),
            });
        }
    }
    Ok(())
}

fn map_invoice(
    path: &[String],
    scheme: Option<&str>,
    value: &str,
    builder: &mut Builder,
    line: Option<&mut [String; 5]>,
    tax_entry: Option<&mut serde_json::Map<String, Value>>,
) -> bool {
    if let Some(line) = line {
        let slot = if ends_with(path, "InvoiceLine/ID") {
            Some(0)
        } else if ends_with(path, "Item/Name") {
            Some(1)
        } else if ends_with(path, "InvoiceLine/InvoicedQuantity") {
            Some(2)
        } else if ends_with(path, "Price/PriceAmount") {
            Some(3)
        } else if ends_with(path, "InvoiceLine/LineExtensionAmount") {
            Some(4)
        } else {
            None
        };
        if let Some(slot) = slot {
            line[slot] = value.to_string();
        }
        return slot.is_some();
    }
    if let Some(entry) = tax_entry {
        let mut mapped = false;
        for (suffix, key) in [
            ("TaxableAmount", "taxable"),
            ("TaxSubtotal/TaxAmount", "tax"),
            ("Percent", "percent"),
            ("TaxScheme/Name", "scheme"),
            ("TaxExemptionReasonCode", "exemption_code"),
        ] {
            if ends_with(path, suffix) {
                entry.insert(key.to_string(), Value::String(value.to_string()));
                mapped = true;
            }
        }
        return mapped;
    }
    match invoice_field(path, scheme) {
        Some(key) => {
            builder.field(&key, value);
            true
        }
        None => false,
    }
}

/// The field an e-invoice's text at `path` (outside its lines and tax subtotals) is read as, if any:
/// `invoice.number`, `supplier.address.street`, `customer.tckn` (a party's id by its `schemeID`).
pub(crate) fn invoice_field(path: &[String], scheme: Option<&str>) -> Option<String> {
    for (suffix, key) in UBL_FIELDS {
        // "Invoice/..." fields sit directly under the root; the others anywhere.
        let top_level = suffix.starts_with("Invoice/") && path.len() == suffix.split('/').count();
        if ends_with(path, suffix) && (top_level || !suffix.starts_with("Invoice/")) {
            return Some(key.to_string());
        }
    }
    let party = if path.iter().any(|p| p == "AccountingSupplierParty") {
        "supplier"
    } else if path.iter().any(|p| p == "AccountingCustomerParty") {
        "customer"
    } else {
        return None;
    };
    if ends_with(path, "PartyIdentification/ID") {
        let scheme = scheme.unwrap_or("ID").to_ascii_lowercase();
        return Some(format!("{party}.{scheme}"));
    }
    PARTY_FIELDS
        .iter()
        .find(|(suffix, _)| ends_with(path, suffix))
        .map(|(_, key)| format!("{party}.{key}"))
}

#[cfg(test)]
mod tests {
    use crate::extractor_pool::extract_document as extract;
    use crate::extractor_pool::Limits;
    use crate::model::ElementKind;

    fn elements(xml: &str) -> Vec<(ElementKind, String)> {
        let document = extract(xml.as_bytes(), &Limits::default()).expect("extracts");
        document
            .elements
            .into_iter()
            .map(|e| (e.kind, e.text))
            .collect()
    }

    #[test]
    fn a_records_fields_keep_their_names() {
        let found = elements(
            "<?xml version=\"1.0\"?>\n<customers>\n  <customer id=\"7\">\n    <firstName>Mehmet</firstName>\n    \
             <birthDate>1985-03-12</birthDate>\n    <name>Mehmet Yıldız</name>\n    <note><![CDATA[VIP]]></note>\n  \
             </customer>\n  <product><name>Widget &amp; Co</name></product>\n</customers>\n",
        );
        let kv = |text: &str| (ElementKind::KeyValue, text.to_string());
        assert_eq!(
            found,
            [
                kv("customer.id: 7"),
                kv("firstName: Mehmet"),
                kv("birthDate: 1985-03-12"),
                kv("customer.name: Mehmet Yıldız"),
                kv("note: VIP"),
                kv("product.name: Widget & Co"),
            ]
        );
    }

    #[test]
    fn mixed_content_and_lone_text_stay_paragraphs() {
        let paragraph = |text: &str| (ElementKind::Paragraph, text.to_string());
        // Text around elements (a document, not a record): every piece is prose.
        assert_eq!(
            elements("<mektup><govde>Sayın <vurgu>Ayşe</vurgu> Hanım</govde></mektup>"),
            [paragraph("Sayın"), paragraph("Ayşe"), paragraph("Hanım")]
        );
        // A root holding only text, and a leaf of several lines.
        assert_eq!(elements("<note>Merhaba</note>"), [paragraph("Merhaba")]);
        assert_eq!(
            elements("<r><body>satır bir\nsatır iki</body></r>"),
            [paragraph("satır bir satır iki")]
        );
    }
}
