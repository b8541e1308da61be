//! Shared by DOCX and PPTX: reading parts of an OOXML package within the limits, XML events with a
//! depth guard, and the core properties.

use std::borrow::Cow;
use std::io::{Cursor, Read};

use quick_xml::events::{BytesStart, BytesText, Event};
use quick_xml::Reader;

use super::super::error::ExtractError;
use super::super::limits::Limits;
use crate::model::Builder;

/// The most a part's declared size reserves up front; a lying header costs at most this.
const MAX_RESERVED: u64 = 16 * 1024 * 1024;

pub struct Package<'a> {
    bytes: &'a [u8],
    archive: zip::ZipArchive<Cursor<&'a [u8]>>,
    budget: u64,
    max_depth: usize,
}

impl<'a> Package<'a> {
    pub fn open(bytes: &'a [u8], limits: &Limits) -> Result<Package<'a>, ExtractError> {
        let archive = zip::ZipArchive::new(Cursor::new(bytes))
            .map_err(|error| ExtractError::Malformed(format!("broken ZIP container: {error}")))?;
        Ok(Package {
            bytes,
            archive,
            budget: limits.max_decompressed_bytes,
            max_depth: limits.max_xml_depth,
        })
    }

    pub fn names(&self) -> Vec<String> {
        self.archive.file_names().map(str::to_string).collect()
    }

    /// A part's bytes, or None when the package has no such part. Every read counts against the
    /// decompressed-size budget, whatever the entry claims its size is. The bytes are not validated
    /// as UTF-8 here: markup is only compared with ASCII names, and each text and attribute value is
    /// decoded where it is read ([`push_text`], [`text_of`], [`attribute`]), a broken one lossily.
    pub fn read(&mut self, name: &str) -> Result<Option<Vec<u8>>, ExtractError> {
        match self.read_direct(name)? {
            Some(bytes) => Ok(Some(bytes)),
            None => self.read_while(name, |_| true),
        }
    }

    /// [`Package::read`] for a stored or deflated part: inflated straight from the container's bytes
    /// into a buffer sized once from the declared size, without the zero-filling of `Read::read_to_end`
    /// (it zeroes what it reads into for a reader that cannot read into uninitialised memory, as the zip
    /// reader cannot), and checked against the entry's CRC-32 as the zip reader checks it. None when
    /// this path does not apply or fails (an encrypted or otherwise compressed part, a bad offset, a
    /// broken stream): the streaming reader then reads the part and reports what is wrong with it.
    fn read_direct(&mut self, name: &str) -> Result<Option<Vec<u8>>, ExtractError> {
        const CHUNK: u64 = 64 * 1024;
        let (method, start, compressed, declared, crc) = match self.archive.by_name(name) {
            Ok(file) if !file.encrypted() => (
                file.compression(),
                file.data_start(),
                file.compressed_size(),
                file.size(),
                file.crc32(),
            ),
            _ => return Ok(None),
        };
        let Some(data) = usize::try_from(start)
            .ok()
            .zip(usize::try_from(compressed).ok())
            .and_then(|(start, length)| self.bytes.get(start..start.checked_add(length)?))
        else {
            return Ok(None);
        };
        let out = match method {
            zip::CompressionMethod::Stored => data.to_vec(),
            zip::CompressionMethod::Deflated => {
                let mut out =
                    Vec::with_capacity(declared.min(self.budget).min(MAX_RESERVED) as usize);
                let mut inflater = flate2::Decompress::new(false);
                loop {
                    if out.len() == out.capacity() {
                        let room = self.budget.saturating_sub(out.len() as u64);
                        if room == 0 {
                            return Err(zip_bomb());
                        }
                        out.reserve_exact(room.min(CHUNK) as usize);
                    }
                    let (read, written) = (inflater.total_in(), out.len());
                    let input = data.get(read as usize..).unwrap_or_default();
                    match inflater.decompress_vec(input, &mut out, flate2::FlushDecompress::Finish)
                    {
                        Ok(flate2::Status::StreamEnd) => break,
                        Ok(_) if inflater.total_in() != read || out.len() != written => {}
                        // No progress (a truncated stream) or a broken one.
                        _ => return Ok(None),
                    }
                }
                out
            }
            _ => return Ok(None),
        };
        // A stored part larger than what is left, or an allocator that gave more room than asked.
        if out.len() as u64 > self.budget {
            return Err(zip_bomb());
        }
        if crc32fast::hash(&out) != crc {
            return Ok(None);
        }
        self.budget -= out.len() as u64;
        Ok(Some(out))
    }

    /// The start of a part, read in chunks for as long as `more` (shown everything read so far) asks
    /// for more; None when the package has no such part. For parts of which only a prefix usually
    /// matters (a DOCX's styles: the few a document uses come first among hundreds). Counts against
    /// the same budget as [`Package::read`].
    pub fn read_while(
        &mut self,
        name: &str,
        mut more: impl FnMut(&[u8]) -> bool,
    ) -> Result<Option<Vec<u8>>, ExtractError> {
        const CHUNK: usize = 16 * 1024;
        let mut file = match self.archive.by_name(name) {
            Ok(file) => file,
            Err(zip::result::ZipError::FileNotFound) => return Ok(None),
            Err(error) => return Err(ExtractError::Malformed(format!("{name}: {error}"))),
        };
        // The declared size, when believable, sizes the buffer once (read in growing steps, a part
        // of half a megabyte was copied a dozen times).
        let declared = file.size().min(self.budget).min(MAX_RESERVED);
        let mut bytes = Vec::with_capacity(declared as usize);
        loop {
            let read = (&mut file)
                .take(CHUNK as u64)
                .read_to_end(&mut bytes)
                .map_err(|error| ExtractError::Malformed(format!("{name}: {error}")))?;
            if bytes.len() as u64 > self.budget {
                return Err(zip_bomb());
            }
            if read == 0 || !more(&bytes) {
                break;
            }
        }
        self.budget -= bytes.len() as u64;
        Ok(Some(bytes))
    }

    pub fn max_depth(&self) -> usize {
        self.max_depth
    }
}

fn zip_bomb() -> ExtractError {
    ExtractError::LimitExceeded("decompressed size of the container (zip bomb?)".to_string())
}

/// The local name of an element (`w:p` -> `p`).
pub fn local<'e>(element: &'e BytesStart<'_>) -> &'e [u8] {
    element.local_name().into_inner()
}

/// The value of attribute `name` (local name), unescaped.
pub fn attribute(element: &BytesStart<'_>, name: &[u8]) -> Option<String> {
    element
        .attributes()
        .flatten()
        .find(|a| a.key.local_name().as_ref() == name)
        .map(|a| {
            a.unescape_value()
                .map(Cow::into_owned)
                .unwrap_or_else(|_| lossy(&a.value))
        })
}

/// Raw XML text that is not valid UTF-8 (or holds an unknown entity): decoded with replacement
/// characters, then unescaped where it can be.
fn lossy(raw: &[u8]) -> String {
    let text = String::from_utf8_lossy(raw);
    match quick_xml::escape::unescape(&text) {
        Ok(unescaped) => unescaped.into_owned(),
        Err(_) => text.into_owned(),
    }
}

pub fn text_of(text: &BytesText<'_>) -> String {
    text.unescape()
        .map(Cow::into_owned)
        .unwrap_or_else(|_| lossy(text))
}

/// `text` unescaped onto the end of `out` (no copy of its own when it holds no entity).
pub fn push_text(text: &BytesText<'_>, out: &mut String) {
    match text.unescape() {
        Ok(unescaped) => out.push_str(&unescaped),
        Err(_) => out.push_str(&lossy(text)),
    }
}

/// A part's result that spares the rest of the package: a damaged part (`malformed_document`: a
/// broken stream, broken XML) is recorded in the builder's damaged parts and given as `None`; any
/// other failure (a limit) fails the document.
pub fn tolerate<T>(
    builder: &mut Builder,
    part: &str,
    result: Result<T, ExtractError>,
) -> Result<Option<T>, ExtractError> {
    match result {
        Ok(value) => Ok(Some(value)),
        Err(ExtractError::Malformed(message)) => {
            builder.damaged_parts.push(format!("{part}: {message}"));
            Ok(None)
        }
        Err(other) => Err(other),
    }
}

/// Walks `xml`, calling `visit` for every event, failing on malformed XML or excessive depth.
pub fn walk(
    xml: &[u8],
    max_depth: usize,
    mut visit: impl FnMut(&Event<'_>),
) -> Result<(), ExtractError> {
    let mut reader = Reader::from_reader(xml);
    let mut depth = 0usize;
    loop {
        let event = reader
            .read_event()
            .map_err(|error| ExtractError::Malformed(format!("XML: {error}")))?;
        match &event {
            Event::Start(_) => {
                depth += 1;
                if depth > max_depth {
                    return Err(ExtractError::LimitExceeded(format!(
                        "XML nesting deeper than {max_depth}"
                    )));
                }
            }
            Event::End(_) => depth = depth.saturating_sub(1),
            Event::Eof => break,
            // DOCTYPEs are ignored: entities are never expanded and nothing external is ever read.
            Event::DocType(_) => continue,
            _ => {}
        }
        visit(&event);
    }
    Ok(())
}

/// docProps/core.xml: title, author, dates, into metadata and fields.
pub fn core_properties(
    package: &mut Package<'_>,
    builder: &mut Builder,
) -> Result<(), ExtractError> {
    let Some(xml) = package.read("docProps/core.xml")? else {
        return Ok(());
    };
    let mut current: Option<Vec<u8>> = None;
    let mut values: Vec<(Vec<u8>, String)> = Vec::new();
    walk(&xml, package.max_depth(), |event| match event {
        Event::Start(e) => current = Some(local(e).to_vec()),
        Event::Text(t) => {
            if let Some(name) = &current {
                let value = text_of(t).trim().to_string();
                if !value.is_empty() {
                    values.push((name.clone(), value));
                }
            }
        }
        Event::End(_) => current = None,
        _ => {}
    })?;
    for (name, value) in values {
        match name.as_slice() {
            b"title" => builder.document.metadata.title = Some(value.clone()),
            b"creator" => builder.document.metadata.author = Some(value.clone()),
            b"created" => builder.document.metadata.created = Some(value.clone()),
            _ => {}
        }
        builder.field(&format!("core.{}", String::from_utf8_lossy(&name)), value);
    }
    Ok(())
}

/// Part names matching `prefix<N>.xml`, ordered by N.
pub fn numbered_parts(names: &[String], prefix: &str) -> Vec<String> {
    let mut parts: Vec<(u32, String)> = names
        .iter()
        .filter_map(|name| {
            let number = name
                .strip_prefix(prefix)?
                .strip_suffix(".xml")?
                .parse()
                .ok()?;
            Some((number, name.clone()))
        })
        .collect();
    parts.sort();
    parts.into_iter().map(|(_, name)| name).collect()
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    fn corpus(path: &str) -> Vec<u8> {
        std::fs::read(
            std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../../shared/corpus")
                .join(path),
        )
        .expect("corpus file")
    }

    fn zip_of(parts: &[(&str, &[u8])], method: zip::CompressionMethod) -> Vec<u8> {
        let mut buffer = Cursor::new(Vec::new());
        let mut archive = zip::ZipWriter::new(&mut buffer);
        let options = zip::write::SimpleFileOptions::default().compression_method(method);
        for (name, bytes) in parts {
            archive.start_file(*name, options).expect("entry");
            archive.write_all(bytes).expect("write");
        }
        archive.finish().expect("finish");
        buffer.into_inner()
    }

    /// The direct read (inflated from the container's bytes) gives every part of real packages
    /// exactly as the zip crate's streaming reader does, and counts the same bytes against the budget.
    #[test]
    fn direct_and_streaming_reads_agree_on_every_part() {
        for file in [
            "docx/docx-hdrftr.docx",
            "docx/docx-tables.docx",
            "docx/docx_lists.docx",
            "pptx/fake-power-point-table.pptx",
            "pptx/powerpoint_sample.pptx",
            "pptx/testPPT_groups.pptx",
            "tr/tr_ik_yazisi.docx",
        ] {
            let bytes = corpus(file);
            let limits = Limits::default();
            let (mut direct, mut streaming) = (
                Package::open(&bytes, &limits).expect("open"),
                Package::open(&bytes, &limits).expect("open"),
            );
            for name in direct.names() {
                let read = direct.read_direct(&name).expect("no error");
                let streamed = streaming.read_while(&name, |_| true).expect("no error");
                assert!(read.is_some(), "{file}: {name} is read directly");
                assert_eq!(read, streamed, "{file}: {name}");
                assert_eq!(direct.budget, streaming.budget, "{file}: {name}");
            }
        }
    }

    #[test]
    fn stored_parts_are_read_directly() {
        let xml =
            b"<w:document><w:body><w:p><w:r><w:t>Merhaba</w:t></w:r></w:p></w:body></w:document>";
        let bytes = zip_of(
            &[("word/document.xml", xml)],
            zip::CompressionMethod::Stored,
        );
        let mut package = Package::open(&bytes, &Limits::default()).expect("open");
        assert_eq!(
            package.read_direct("word/document.xml").expect("read"),
            Some(xml.to_vec())
        );
        assert_eq!(package.read("word/missing.xml").expect("read"), None);
    }

    /// A part whose bytes do not match its CRC-32 is not taken from the direct read: the streaming
    /// reader reads it again and reports it.
    #[test]
    fn a_damaged_part_is_reported_as_malformed() {
        let xml = "<w:document><w:body>".to_string()
            + &"<w:p><w:r><w:t>Kişisel veri yok.</w:t></w:r></w:p>".repeat(50)
            + "</w:body></w:document>";
        for method in [
            zip::CompressionMethod::Stored,
            zip::CompressionMethod::Deflated,
        ] {
            let mut bytes = zip_of(&[("word/document.xml", xml.as_bytes())], method);
            let start = {
                let mut archive = zip::ZipArchive::new(Cursor::new(&bytes[..])).expect("zip");
                let file = archive.by_name("word/document.xml").expect("part");
                file.data_start() as usize
            };
            bytes[start + 5] ^= 0x20;
            let mut package = Package::open(&bytes, &Limits::default()).expect("open");
            assert_eq!(
                package.read_direct("word/document.xml").expect("read"),
                None
            );
            match package.read("word/document.xml") {
                Err(ExtractError::Malformed(message)) => {
                    assert!(message.starts_with("word/document.xml"), "{message}")
                }
                other => panic!("{method:?}: {other:?}"),
            }
        }
    }
}
