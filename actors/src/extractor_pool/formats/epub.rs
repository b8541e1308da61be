//! EPUB: a ZIP package ([`Package`]) whose `META-INF/container.xml` names the package document (OPF);
//! the OPF's spine gives the reading order of its XHTML documents, each read by the HTML reader
//! (headings, paragraphs, lists, tables), and its metadata the title, creator and date. A book whose
//! content documents are encrypted (DRM, named in `META-INF/encryption.xml`) is `encrypted_document`;
//! obfuscated fonts alone are not.

use std::collections::HashMap;

use quick_xml::events::Event;

use super::super::error::ExtractError;
use super::super::limits::Limits;
use super::encoding;
use super::html;
use super::ooxml::{self, attribute, local, walk, Package};
use crate::model::{Builder, Element, ElementKind};

/// `%XX` sequences decoded (hrefs in an OPF are URLs).
fn percent_decoded(href: &str) -> String {
    let bytes = href.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            if let Some(value) = href
                .get(i + 1..i + 3)
                .and_then(|hex| u8::from_str_radix(hex, 16).ok())
            {
                out.push(value);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `href` (relative to the folder of `base`, a part name) as a part name: `..` and `.` resolved,
/// a fragment dropped.
pub fn resolve(base: &str, href: &str) -> String {
    let href = href.split('#').next().unwrap_or_default();
    let mut path: Vec<&str> = if href.starts_with('/') {
        Vec::new()
    } else {
        base.rsplit_once('/')
            .map_or_else(Vec::new, |(dir, _)| dir.split('/').collect())
    };
    for segment in href.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                path.pop();
            }
            other => path.push(other),
        }
    }
    percent_decoded(&path.join("/"))
}

/// The package document's name, from `META-INF/container.xml`.
fn package_document(package: &mut Package<'_>) -> Result<Option<String>, ExtractError> {
    let Some(xml) = package.read("META-INF/container.xml")? else {
        return Ok(None);
    };
    let mut found = None;
    walk(&xml, package.max_depth(), |event| {
        if let Event::Start(e) | Event::Empty(e) = event {
            if local(e) == b"rootfile" && found.is_none() {
                found = attribute(e, b"full-path");
            }
        }
    })?;
    Ok(found)
}

/// Whether `META-INF/encryption.xml` names an encrypted content document (not only fonts).
fn drm_protected(package: &mut Package<'_>) -> Result<bool, ExtractError> {
    let Some(xml) = package.read("META-INF/encryption.xml")? else {
        return Ok(false);
    };
    let mut protected = false;
    let _ = walk(&xml, package.max_depth(), |event| {
        if let Event::Start(e) | Event::Empty(e) = event {
            if local(e) == b"CipherReference" {
                let uri = attribute(e, b"URI")
                    .unwrap_or_default()
                    .to_ascii_lowercase();
                let font = [".ttf", ".otf", ".woff", ".woff2"]
                    .iter()
                    .any(|x| uri.ends_with(x));
                protected |= !font;
            }
        }
    });
    Ok(protected)
}

/// The book's metadata: (`dc:*` name, value).
type Metadata = Vec<(String, String)>;

/// The spine's documents in reading order, and the book's metadata.
fn spine(
    opf: &[u8],
    opf_name: &str,
    max_depth: usize,
) -> Result<(Vec<String>, Metadata), ExtractError> {
    let mut manifest: HashMap<String, (String, String)> = HashMap::new();
    let mut order: Vec<String> = Vec::new();
    let walked = walk(opf, max_depth, |event| {
        if let Event::Start(e) | Event::Empty(e) = event {
            match local(e) {
                b"item" => {
                    if let (Some(id), Some(href)) = (attribute(e, b"id"), attribute(e, b"href")) {
                        let kind = attribute(e, b"media-type").unwrap_or_default();
                        manifest.insert(id, (resolve(opf_name, &href), kind));
                    }
                }
                b"itemref" => {
                    let linear = attribute(e, b"linear").is_none_or(|l| l != "no");
                    if let (Some(id), true) = (attribute(e, b"idref"), linear) {
                        order.push(id);
                    }
                }
                _ => {}
            }
        }
    });
    if order.is_empty() {
        walked?;
    }
    let metadata = ooxml::leaf_values(opf, max_depth, |name| name.starts_with(b"dc:"))
        .unwrap_or_default()
        .into_iter()
        .map(|(name, value)| (String::from_utf8_lossy(&name).into_owned(), value))
        .collect();
    let documents = order
        .iter()
        .filter_map(|id| manifest.get(id))
        .filter(|(_, kind)| kind.contains("html") || kind.is_empty())
        .map(|(name, _)| name.clone())
        .collect();
    Ok((documents, metadata))
}

pub fn extract(bytes: &[u8], limits: &Limits, builder: &mut Builder) -> Result<(), ExtractError> {
    let mut package = Package::open(bytes, limits)?;
    if drm_protected(&mut package)? {
        return Err(ExtractError::EncryptedDocument);
    }
    let read = package_document(&mut package);
    let opf_name = ooxml::tolerate(builder, "META-INF/container.xml", read)?
        .flatten()
        .or_else(|| package.names().into_iter().find(|n| n.ends_with(".opf")))
        .ok_or_else(|| ExtractError::Malformed("EPUB without a package document".to_string()))?;
    let opf = package
        .read(&opf_name)?
        .ok_or_else(|| ExtractError::Malformed(format!("EPUB without {opf_name}")))?;
    let (documents, metadata) = spine(&opf, &opf_name, limits.max_xml_depth)?;
    if documents.len() > limits.max_pages as usize {
        return Err(ExtractError::LimitExceeded(format!(
            "more than {} documents in the book",
            limits.max_pages
        )));
    }
    for (name, value) in metadata {
        match name.as_str() {
            "title" if builder.document.metadata.title.is_none() => {
                builder.document.metadata.title = Some(value.clone())
            }
            "creator" if builder.document.metadata.author.is_none() => {
                builder.document.metadata.author = Some(value.clone())
            }
            "date" if builder.document.metadata.created.is_none() => {
                builder.document.metadata.created = Some(value.clone())
            }
            _ => {}
        }
        builder.field(&format!("epub.{name}"), value);
    }
    let title = builder.document.metadata.title.clone();
    for (index, name) in documents.iter().enumerate() {
        let read = package.read(name);
        let Some(Some(xhtml)) = ooxml::tolerate(builder, name, read)? else {
            continue;
        };
        if index > 0 {
            builder.push(Element::new(ElementKind::PageBreak, String::new()));
        }
        let decoded = encoding::decode_declared(&xhtml, html::declared_charset(&xhtml).as_deref());
        let read = html::extract(&decoded.text, limits, builder);
        ooxml::tolerate(builder, name, read)?;
    }
    // Each chapter's <title> is not the book's.
    if title.is_some() {
        builder.document.metadata.title = title;
    }
    builder.document.metadata.pages = Some(documents.len() as u32);
    builder.damaged_parts.extend(package.take_damage());
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    fn book(encryption: Option<&str>) -> Vec<u8> {
        let mut out = std::io::Cursor::new(Vec::new());
        let mut zip = zip::ZipWriter::new(&mut out);
        let stored = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored);
        let mut parts = vec![
            ("mimetype", "application/epub+zip".to_string()),
            (
                "META-INF/container.xml",
                r#"<container><rootfiles><rootfile full-path="OEBPS/book.opf"/></rootfiles></container>"#.to_string(),
            ),
            (
                "OEBPS/book.opf",
                r#"<package><metadata><dc:title>Kitap</dc:title><dc:creator>Ayşe</dc:creator></metadata>
                <manifest><item id="b" href="Text/b.xhtml" media-type="application/xhtml+xml"/>
                <item id="a" href="Text/a.xhtml" media-type="application/xhtml+xml"/></manifest>
                <spine><itemref idref="a"/><itemref idref="b"/></spine></package>"#
                    .to_string(),
            ),
            ("OEBPS/Text/a.xhtml", "<html><body><h1>Birinci</h1><p>Önce bu.</p></body></html>".to_string()),
            ("OEBPS/Text/b.xhtml", "<html><body><h1>İkinci</h1><p>Sonra bu.</p></body></html>".to_string()),
        ];
        if let Some(reference) = encryption {
            parts.push((
                "META-INF/encryption.xml",
                format!("<encryption><EncryptedData><CipherData><CipherReference URI=\"{reference}\"/></CipherData></EncryptedData></encryption>"),
            ));
        }
        for (name, content) in parts {
            zip.start_file(name, stored).expect("part");
            zip.write_all(content.as_bytes()).expect("write");
        }
        zip.finish().expect("zip");
        out.into_inner()
    }

    #[test]
    fn the_spine_orders_the_book_and_drm_is_refused() {
        let read = |bytes: Vec<u8>| {
            let mut builder = Builder::default();
            extract(&bytes, &Limits::default(), &mut builder).map(|()| builder.finish())
        };
        let document = read(book(None)).expect("reads");
        let first = document.text.find("Önce bu.").expect("first");
        let second = document.text.find("Sonra bu.").expect("second");
        assert!(first < second, "{}", document.text);
        assert_eq!(document.metadata.title.as_deref(), Some("Kitap"));
        assert_eq!(document.metadata.author.as_deref(), Some("Ayşe"));
        assert!(document
            .elements
            .iter()
            .any(|e| e.kind == ElementKind::Heading && e.text == "İkinci"));
        // Obfuscated fonts are not DRM; an encrypted chapter is.
        assert!(read(book(Some("OEBPS/Fonts/f.otf"))).is_ok());
        assert_eq!(
            read(book(Some("OEBPS/Text/a.xhtml"))).err(),
            Some(ExtractError::EncryptedDocument)
        );
    }

    #[test]
    fn hrefs_resolve_against_the_package_document() {
        assert_eq!(
            resolve("OEBPS/content.opf", "Text/ch1.xhtml"),
            "OEBPS/Text/ch1.xhtml"
        );
        assert_eq!(
            resolve("OEBPS/content.opf", "../ch%202.xhtml#p3"),
            "ch 2.xhtml"
        );
        assert_eq!(resolve("content.opf", "./a/./b.xhtml"), "a/b.xhtml");
        assert_eq!(resolve("a/b/c.opf", "/x.xhtml"), "x.xhtml");
        assert_eq!(resolve("a/c.opf", "../../../x.xhtml"), "x.xhtml");
        assert_eq!(percent_decoded("%C5%9Fehir%2"), "şehir%2");
    }
}
