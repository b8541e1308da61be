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
    /// The container's central directory, when it reads.
    archive: Option<zip::ZipArchive<Cursor<&'a [u8]>>>,
    /// The parts found from their local headers when the central directory does not read.
    recovered: Vec<LocalPart>,
    budget: u64,
    max_depth: usize,
    /// Parts read only in part (`part: what is wrong`), for the quality signals.
    damage: Vec<String>,
}

/// A part found by its local header: its name, how it is stored, its checksum and its bytes' place.
struct LocalPart {
    name: String,
    method: u16,
    crc: u32,
    declared: u64,
    data: std::ops::Range<usize>,
}

/// Where a part's stored bytes are and how to read them.
struct Located {
    method: Option<u16>,
    encrypted: bool,
    crc: u32,
    declared: u64,
    data: std::ops::Range<usize>,
}

/// The most parts a container without its central directory is searched for.
const MAX_RECOVERED_PARTS: usize = 10_000;
const STORED: u16 = 0;
const DEFLATED: u16 = 8;

/// The parts of a ZIP container whose central directory is lost (a file cut short, a damaged end),
/// from the local header before each part's bytes.
fn recover_local_parts(bytes: &[u8], max_parts: usize) -> Vec<LocalPart> {
    let finder = memchr::memmem::Finder::new(b"PK\x03\x04");
    let signatures: Vec<usize> = finder.find_iter(bytes).take(max_parts).collect();
    let mut parts: Vec<LocalPart> = Vec::new();
    for (index, &at) in signatures.iter().enumerate() {
        let field = |offset: usize, width: usize| -> Option<u64> {
            let raw = bytes.get(at + offset..at + offset + width)?;
            Some(
                raw.iter()
                    .rev()
                    .fold(0u64, |value, &b| value << 8 | u64::from(b)),
            )
        };
        let (
            Some(flags),
            Some(method),
            Some(crc),
            Some(compressed),
            Some(size),
            Some(name_len),
            Some(extra_len),
        ) = (
            field(6, 2),
            field(8, 2),
            field(14, 4),
            field(18, 4),
            field(22, 4),
            field(26, 2),
            field(28, 2),
        )
        else {
            continue;
        };
        let name_start = at + 30;
        let Some(name) = bytes.get(name_start..name_start + name_len as usize) else {
            continue;
        };
        let start = name_start + name_len as usize + extra_len as usize;
        // Sizes written after the data (flag 3) are zero here: the part runs to the next header.
        let next = signatures.get(index + 1).copied().unwrap_or(bytes.len());
        let end = if flags & 0x08 == 0 && compressed > 0 {
            (start + compressed as usize).min(bytes.len())
        } else {
            memchr::memmem::find(
                &bytes[start.min(bytes.len())..next.max(start).min(bytes.len())],
                b"PK\x01\x02",
            )
            .map_or(next, |found| start + found)
        };
        let name = String::from_utf8_lossy(name).into_owned();
        if start > end || parts.iter().any(|p| p.name == name) {
            continue;
        }
        parts.push(LocalPart {
            name,
            method: method as u16,
            crc: if flags & 0x08 == 0 { crc as u32 } else { 0 },
            declared: size,
            data: start..end,
        });
    }
    parts
}

impl<'a> Package<'a> {
    pub fn open(bytes: &'a [u8], limits: &Limits) -> Result<Package<'a>, ExtractError> {
        let mut package = Package {
            bytes,
            archive: None,
            recovered: Vec::new(),
            budget: limits.max_decompressed_bytes,
            max_depth: limits.max_xml_depth,
            damage: Vec::new(),
        };
        match zip::ZipArchive::new(Cursor::new(bytes)) {
            Ok(archive) => package.archive = Some(archive),
            Err(error) => {
                package.recovered = recover_local_parts(bytes, MAX_RECOVERED_PARTS);
                if package.recovered.is_empty() {
                    return Err(ExtractError::Malformed(format!(
                        "broken ZIP container: {error}"
                    )));
                }
                package.damage.push(format!(
                    "ZIP central directory: {error} (parts read from their local headers)"
                ));
            }
        }
        Ok(package)
    }

    pub fn names(&self) -> Vec<String> {
        match &self.archive {
            Some(archive) => archive.file_names().map(str::to_string).collect(),
            None => self.recovered.iter().map(|p| p.name.clone()).collect(),
        }
    }

    /// The parts read only in part so far (`part: what is wrong`), handed over once.
    pub fn take_damage(&mut self) -> Vec<String> {
        std::mem::take(&mut self.damage)
    }

    fn locate(&mut self, name: &str) -> Result<Option<Located>, ExtractError> {
        if let Some(archive) = self.archive.as_mut() {
            let file = match archive.by_name(name) {
                Ok(file) => file,
                Err(zip::result::ZipError::FileNotFound) => return Ok(None),
                Err(error) => return Err(ExtractError::Malformed(format!("{name}: {error}"))),
            };
            let method = match file.compression() {
                zip::CompressionMethod::Stored => Some(STORED),
                zip::CompressionMethod::Deflated => Some(DEFLATED),
                _ => None,
            };
            let start = usize::try_from(file.data_start()).unwrap_or(usize::MAX);
            let end = start
                .saturating_add(usize::try_from(file.compressed_size()).unwrap_or(usize::MAX))
                .min(self.bytes.len());
            return Ok(Some(Located {
                method,
                encrypted: file.encrypted(),
                crc: file.crc32(),
                declared: file.size(),
                data: start.min(end)..end,
            }));
        }
        Ok(self
            .recovered
            .iter()
            .find(|p| p.name == name)
            .map(|p| Located {
                method: matches!(p.method, STORED | DEFLATED).then_some(p.method),
                encrypted: false,
                crc: p.crc,
                declared: p.declared,
                data: p.data.clone(),
            }))
    }

    /// A part's bytes, or None when the package has no such part. Every read counts against the
    /// decompressed-size budget, whatever the entry claims its size is. A part whose stream breaks, or
    /// whose bytes do not match its CRC-32, is given as far as it inflated and recorded as damaged
    /// ([`Package::take_damage`]); one of which nothing inflated is `malformed_document`. The bytes are
    /// not validated as UTF-8 here: markup is only compared with ASCII names, and each text and
    /// attribute value is decoded where it is read ([`push_text`], [`text_of`], [`attribute`]), a
    /// broken one lossily.
    pub fn read(&mut self, name: &str) -> Result<Option<Vec<u8>>, ExtractError> {
        let Some(found) = self.locate(name)? else {
            return Ok(None);
        };
        let (Some(method), false) = (found.method, found.encrypted) else {
            // Another compression method, or an encrypted part: the zip reader's own way.
            return self.read_while(name, |_| true);
        };
        let data = &self.bytes[found.data.clone()];
        let (out, mut damage) = inflate(data, method, found.declared, self.budget)?;
        if damage.is_none() && found.crc != 0 && crc32fast::hash(&out) != found.crc {
            damage = Some("its bytes do not match its CRC-32".to_string());
        }
        if let Some(damage) = damage {
            if out.is_empty() {
                return Err(ExtractError::Malformed(format!("{name}: {damage}")));
            }
            self.damage
                .push(format!("{name}: {damage} (read up to the damage)"));
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
        let Some(archive) = self.archive.as_mut() else {
            return self.read(name);
        };
        let mut file = match archive.by_name(name) {
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

/// A stored or deflated part's bytes, inflated straight from the container's bytes into a buffer
/// sized once from the declared size (without the zero-filling of `Read::read_to_end`), and what
/// broke when the stream broke (the bytes inflated before the damage are kept). Beyond `budget`
/// bytes it is a zip bomb.
fn inflate(
    data: &[u8],
    method: u16,
    declared: u64,
    budget: u64,
) -> Result<(Vec<u8>, Option<String>), ExtractError> {
    const CHUNK: u64 = 64 * 1024;
    if method == STORED {
        if data.len() as u64 > budget {
            return Err(zip_bomb());
        }
        return Ok((data.to_vec(), None));
    }
    let mut out = Vec::with_capacity(declared.min(budget).min(MAX_RESERVED) as usize);
    let mut inflater = flate2::Decompress::new(false);
    loop {
        if out.len() == out.capacity() {
            let room = budget.saturating_sub(out.len() as u64);
            if room == 0 {
                return Err(zip_bomb());
            }
            out.reserve_exact(room.min(CHUNK) as usize);
        }
        let (read, written) = (inflater.total_in(), out.len());
        let input = data.get(read as usize..).unwrap_or_default();
        match inflater.decompress_vec(input, &mut out, flate2::FlushDecompress::Finish) {
            Ok(flate2::Status::StreamEnd) => break,
            Ok(_) if inflater.total_in() != read || out.len() != written => {}
            Ok(_) => {
                let damage = format!("its stream ends early, after {} bytes", out.len());
                return Ok((out, Some(damage)));
            }
            Err(error) => {
                return Ok((
                    out,
                    Some(format!(
                        "its stream breaks after {} bytes: {error}",
                        written
                    )),
                ))
            }
        }
    }
    // An allocator that gave more room than asked.
    if out.len() as u64 > budget {
        return Err(zip_bomb());
    }
    Ok((out, None))
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

/// Walks `xml`, calling `visit` for every event. Tolerant: an end tag that does not match its start
/// is taken as it is, and the walk goes on past a stretch of broken markup as long as the parser moves
/// forward (at most 1,000 times), so that the text after a damaged element is still read; the first
/// damage is then returned as `malformed_document` (the caller keeps what was visited and records the
/// damage). Too deep a nesting fails at once.
pub fn walk(
    xml: &[u8],
    max_depth: usize,
    mut visit: impl FnMut(&Event<'_>),
) -> Result<(), ExtractError> {
    let mut reader = Reader::from_reader(xml);
    reader.config_mut().check_end_names = false;
    let mut depth = 0usize;
    let mut first_damage: Option<String> = None;
    let mut damages = 0;
    loop {
        let before = reader.buffer_position();
        let event = match reader.read_event() {
            Ok(event) => event,
            Err(error) => {
                first_damage.get_or_insert_with(|| format!("XML: {error}"));
                damages += 1;
                if reader.buffer_position() <= before || damages > 1000 {
                    break;
                }
                continue;
            }
        };
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
    match first_damage {
        Some(damage) => Err(ExtractError::Malformed(damage)),
        None => Ok(()),
    }
}

/// The text of every element of `xml` that holds text directly and whose full name `wanted` takes:
/// (local name, text), the text trimmed, empty ones left out. For flat property parts.
pub fn leaf_values(
    xml: &[u8],
    max_depth: usize,
    wanted: impl Fn(&[u8]) -> bool,
) -> Result<Vec<(Vec<u8>, String)>, ExtractError> {
    let mut current: Option<Vec<u8>> = None;
    let mut values = Vec::new();
    walk(xml, max_depth, |event| match event {
        Event::Start(e) => current = wanted(e.name().as_ref()).then(|| local(e).to_vec()),
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
    Ok(values)
}

/// docProps/core.xml: title, author, dates, into metadata and fields.
pub fn core_properties(
    package: &mut Package<'_>,
    builder: &mut Builder,
) -> Result<(), ExtractError> {
    let Some(xml) = package.read("docProps/core.xml")? else {
        return Ok(());
    };
    for (name, value) in leaf_values(&xml, package.max_depth(), |_| true)? {
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
                let read = direct.read(&name).expect("no error");
                let streamed = streaming.read_while(&name, |_| true).expect("no error");
                assert!(read.is_some(), "{file}: {name} is read");
                assert_eq!(read, streamed, "{file}: {name}");
                assert_eq!(direct.budget, streaming.budget, "{file}: {name}");
            }
            assert!(direct.take_damage().is_empty(), "{file}");
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
            package.read("word/document.xml").expect("read"),
            Some(xml.to_vec())
        );
        assert_eq!(package.read("word/missing.xml").expect("read"), None);
    }

    fn long_body() -> String {
        "<w:document><w:body>".to_string()
            + &(0..200)
                .map(|i| format!("<w:p><w:r><w:t>Paragraf {i} kişisel veri yok.</w:t></w:r></w:p>"))
                .collect::<String>()
            + "</w:body></w:document>"
    }

    /// A part whose bytes are damaged is read as far as they inflate, and recorded as damaged.
    #[test]
    fn a_damaged_part_is_read_up_to_its_damage_and_recorded() {
        let xml = long_body();
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
            bytes[start + 200] ^= 0x5A;
            let mut package = Package::open(&bytes, &Limits::default()).expect("open");
            let read = package
                .read("word/document.xml")
                .expect("read")
                .expect("part");
            assert!(read.len() >= 150, "{method:?}: {} bytes", read.len());
            assert!(read.starts_with(b"<w:document><w:body>"), "{method:?}");
            let damage = package.take_damage();
            assert_eq!(damage.len(), 1, "{method:?}: {damage:?}");
            assert!(damage[0].starts_with("word/document.xml: "), "{damage:?}");
        }
    }

    /// A container cut short loses its central directory: its parts are found from their local
    /// headers, the last one read up to the cut.
    #[test]
    fn a_container_cut_short_is_read_from_its_local_headers() {
        let xml = long_body();
        let bytes = zip_of(
            &[
                ("[Content_Types].xml", b"<Types/>".as_slice()),
                ("word/document.xml", xml.as_bytes()),
            ],
            zip::CompressionMethod::Deflated,
        );
        let cut = &bytes[..bytes.len() * 7 / 10];
        assert!(zip::ZipArchive::new(Cursor::new(cut)).is_err());
        let mut package = Package::open(cut, &Limits::default()).expect("recovered");
        assert!(package.names().contains(&"word/document.xml".to_string()));
        let read = package
            .read("word/document.xml")
            .expect("read")
            .expect("part");
        assert!(
            read.len() > xml.len() / 3,
            "{} of {}",
            read.len(),
            xml.len()
        );
        assert!(xml.as_bytes().starts_with(&read));
        let damage = package.take_damage();
        assert!(
            damage
                .iter()
                .any(|d| d.starts_with("ZIP central directory")),
            "{damage:?}"
        );
        assert!(
            damage.iter().any(|d| d.starts_with("word/document.xml")),
            "{damage:?}"
        );
        assert!(Package::open(b"PK\x05\x06 nothing", &Limits::default()).is_err());
    }

    /// An end tag that does not match its start costs nothing; markup cut short keeps what came
    /// before and is reported.
    #[test]
    fn the_walk_goes_on_past_broken_markup() {
        let texts_of = |xml: &[u8]| {
            let mut texts = Vec::new();
            let walked = walk(xml, 64, |event| {
                if let Event::Text(t) = event {
                    texts.push(text_of(t));
                }
            });
            (texts, walked)
        };
        let (texts, walked) = texts_of(b"<a><p>bir</q><p>iki</p><p>dort</p></a>");
        assert_eq!(texts, ["bir", "iki", "dort"]);
        assert!(walked.is_ok(), "{walked:?}");
        let (texts, walked) = texts_of(b"<a><p>bir</p><p>iki</p><p att=\"");
        assert_eq!(texts, ["bir", "iki"]);
        assert!(
            matches!(walked, Err(ExtractError::Malformed(_))),
            "{walked:?}"
        );
        let mut deep = String::new();
        for _ in 0..100 {
            deep.push_str("<a>");
        }
        assert!(matches!(
            walk(deep.as_bytes(), 64, |_| {}),
            Err(ExtractError::LimitExceeded(_))
        ));
    }
}
