//! XML: generic text and attributes, and UBL-TR e-invoices mapped to fields. DOCTYPEs are ignored:
//! no entity is expanded and nothing external is ever read. The base64 XSLT that UBL-TR carries in
//! `AdditionalDocumentReference/Attachment` is skipped.

use quick_xml::events::Event;
use serde_json::{json, Value};

use super::super::error::ExtractError;
use super::super::limits::Limits;
use super::super::model::{Builder, Element, ElementKind, Table};
use super::ooxml::{attribute, local, text_of};

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
    let mut texts: Vec<String> = Vec::new();
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
                // Attribute values are text too (generic XML keeps them).
                if !is_invoice {
                    for a in e.attributes().flatten() {
                        let key = String::from_utf8_lossy(a.key.local_name().as_ref()).into_owned();
                        if key != "xmlns"
                            && !a.key.as_ref().starts_with(b"xmlns")
                            && !key.ends_with("schemaLocation")
                        {
                            if let Ok(value) = a.unescape_value() {
                                if !value.trim().is_empty() {
                                    texts.push(value.trim().to_string());
                                }
                            }
                        }
                    }
                }
                if matches!(event, Event::Start(_)) {
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
                texts.push(value.clone());
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
        for text in std::mem::take(&mut texts) {
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
                rows,
                page: None,
            },
            None,
        );
    } else {
        for text in texts {
            builder.push(Element::new(ElementKind::Paragraph, text));
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
    let mut mapped = false;
    for (suffix, key) in UBL_FIELDS {
        // "Invoice/..." fields sit directly under the root; the others anywhere.
        let top_level = suffix.starts_with("Invoice/") && path.len() == suffix.split('/').count();
        if ends_with(path, suffix) && (top_level || !suffix.starts_with("Invoice/")) {
            builder.field(key, value);
            mapped = true;
        }
    }
    let party = if path.iter().any(|p| p == "AccountingSupplierParty") {
        Some("supplier")
    } else if path.iter().any(|p| p == "AccountingCustomerParty") {
        Some("customer")
    } else {
        None
    };
    if let Some(party) = party {
        if ends_with(path, "PartyIdentification/ID") {
            let scheme = scheme.unwrap_or("ID").to_ascii_lowercase();
            builder.field(&format!("{party}.{scheme}"), value);
            mapped = true;
        }
        for (suffix, key) in PARTY_FIELDS {
            if ends_with(path, suffix) {
                builder.field(&format!("{party}.{key}"), value);
                mapped = true;
            }
        }
    }
    mapped
}
