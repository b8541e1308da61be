//! A tolerant reader of OLE2 compound files ([MS-CFB]): the container of Word 97-2003, PowerPoint
//! 97-2003, Excel 97-2003 and Outlook `.msg` files, and of password-protected OOXML packages.
//!
//! A compound file is a small file system in fixed-size sectors chained by a file allocation table
//! (FAT); streams under 4 KiB live in 64-byte mini sectors inside the root's stream, chained by a mini
//! FAT; a directory of 128-byte entries names the streams and storages, as a red-black tree per
//! storage. Writers get the tree wrong (names sorted case-sensitively, colours unbalanced) and name
//! streams in any letter case, which the format allows (names compare without case): a strict reader
//! refuses such files. This one trusts nothing and checks only what reading needs: every chain is
//! followed at most once per sector and stays inside the file, a stream is read up to its size or
//! where its chain ends, and a name is looked up without case among a storage's children, then among
//! all entries when the tree is broken.

use super::super::error::ExtractError;
use super::super::limits::Limits;
use super::detect::Format;
use crate::model::{Builder, Document};

const MAGIC: &[u8] = &[0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1];
const END_OF_CHAIN: u32 = 0xFFFF_FFFE;
const FREE: u32 = 0xFFFF_FFFF;
const NO_STREAM: u32 = 0xFFFF_FFFF;
const MINI_SECTOR: usize = 64;

/// What a directory entry is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Storage,
    Stream,
    Root,
}

#[derive(Clone, Debug)]
pub struct Entry {
    pub name: String,
    pub kind: Kind,
    left: u32,
    right: u32,
    child: u32,
    start: u32,
    pub size: u64,
}

#[derive(Clone)]
pub struct Compound<'a> {
    bytes: &'a [u8],
    /// The storage taken as the root: 0, the file's; another for an object embedded in it.
    root: usize,
    sector_size: usize,
    fat: Vec<u32>,
    mini_fat: Vec<u32>,
    mini_stream: Vec<u8>,
    mini_cutoff: u64,
    pub entries: Vec<Entry>,
}

fn broken(what: impl std::fmt::Display) -> ExtractError {
    ExtractError::Malformed(format!("broken OLE2 compound file: {what}"))
}

/// The little-endian u16 at `at`, if the bytes reach that far.
pub(crate) fn u16_at(bytes: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(bytes.get(at..at + 2)?.try_into().ok()?))
}

/// The little-endian u32 at `at`, if the bytes reach that far.
pub(crate) fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
}

/// Whether `a` and `b` name the same entry: compound-file names compare without letter case.
pub fn same_name(a: &str, b: &str) -> bool {
    a == b || a.to_uppercase() == b.to_uppercase()
}

impl<'a> Compound<'a> {
    pub fn open(bytes: &'a [u8]) -> Result<Compound<'a>, ExtractError> {
        if !bytes.starts_with(MAGIC) || bytes.len() < 512 {
            return Err(broken("no compound-file header"));
        }
        let shift = u16_at(bytes, 0x1E).unwrap_or(9);
        let sector_size = match shift {
            9 => 512,
            12 => 4096,
            other => return Err(broken(format_args!("sector shift {other}"))),
        };
        let sectors = bytes.len().saturating_sub(sector_size) / sector_size + 1;
        let mut compound = Compound {
            bytes,
            sector_size,
            fat: Vec::new(),
            mini_fat: Vec::new(),
            mini_stream: Vec::new(),
            mini_cutoff: u64::from(u32_at(bytes, 0x38).unwrap_or(4096)),
            entries: Vec::new(),
            root: 0,
        };
        // The FAT's sectors: 109 in the header, the rest in a chain of DIFAT sectors.
        let mut fat_sectors: Vec<u32> = (0..109)
            .filter_map(|i| u32_at(bytes, 0x4C + 4 * i))
            .filter(|&s| s != FREE && s != END_OF_CHAIN)
            .collect();
        let mut difat = u32_at(bytes, 0x44).unwrap_or(END_OF_CHAIN);
        let mut seen = 0;
        while difat != END_OF_CHAIN && difat != FREE && seen < sectors {
            let Some(sector) = compound.sector(difat) else {
                break;
            };
            let per = sector_size / 4 - 1;
            fat_sectors.extend(
                (0..per)
                    .filter_map(|i| u32_at(sector, 4 * i))
                    .filter(|&s| s != FREE && s != END_OF_CHAIN),
            );
            difat = u32_at(sector, 4 * per).unwrap_or(END_OF_CHAIN);
            seen += 1;
        }
        for sector in fat_sectors.iter().take(sectors) {
            if let Some(sector) = compound.sector(*sector) {
                compound
                    .fat
                    .extend((0..sector_size / 4).filter_map(|i| u32_at(sector, 4 * i)));
            }
        }
        if compound.fat.is_empty() {
            return Err(broken("no allocation table"));
        }
        let directory = compound.chain_bytes(u32_at(bytes, 0x30).unwrap_or(END_OF_CHAIN), None);
        if directory.len() < 128 {
            return Err(broken("no directory"));
        }
        compound.entries = directory.chunks_exact(128).map(entry).collect();
        if compound.entries.first().map(|e| e.kind) != Some(Kind::Root) {
            return Err(broken("the directory has no root entry"));
        }
        let mini_fat = compound.chain_bytes(u32_at(bytes, 0x3C).unwrap_or(END_OF_CHAIN), None);
        compound.mini_fat = (0..mini_fat.len() / 4)
            .filter_map(|i| u32_at(&mini_fat, 4 * i))
            .collect();
        let root = compound.entries[0].clone();
        compound.mini_stream = compound.chain_bytes(root.start, Some(root.size));
        Ok(compound)
    }

    fn sector(&self, index: u32) -> Option<&'a [u8]> {
        let start = (index as usize)
            .checked_add(1)?
            .checked_mul(self.sector_size)?;
        self.bytes.get(start..start.checked_add(self.sector_size)?)
    }

    /// The bytes of the regular chain from `start`, cut at `size` when given; a chain that loops or
    /// leaves the file ends there.
    fn chain_bytes(&self, start: u32, size: Option<u64>) -> Vec<u8> {
        let limit = size.map_or(self.bytes.len(), |s| {
            s.min(self.bytes.len() as u64) as usize
        });
        let mut out = Vec::new();
        let mut next = start;
        let mut steps = 0;
        while next != END_OF_CHAIN && next != FREE && steps <= self.fat.len() && out.len() < limit {
            let Some(sector) = self.sector(next) else {
                break;
            };
            out.extend_from_slice(sector);
            next = self.fat.get(next as usize).copied().unwrap_or(END_OF_CHAIN);
            steps += 1;
        }
        out.truncate(limit);
        out
    }

    fn mini_chain_bytes(&self, start: u32, size: u64) -> Vec<u8> {
        let limit = size.min(self.mini_stream.len() as u64) as usize;
        let mut out = Vec::with_capacity(limit);
        let mut next = start;
        let mut steps = 0;
        while next != END_OF_CHAIN
            && next != FREE
            && steps <= self.mini_fat.len()
            && out.len() < limit
        {
            let at = next as usize * MINI_SECTOR;
            let Some(sector) = self.mini_stream.get(at..at + MINI_SECTOR) else {
                break;
            };
            out.extend_from_slice(sector);
            next = self
                .mini_fat
                .get(next as usize)
                .copied()
                .unwrap_or(END_OF_CHAIN);
            steps += 1;
        }
        out.truncate(limit);
        out
    }

    /// The bytes of the stream at entry `index` (as many as its chains hold, up to its size).
    pub fn read(&self, index: usize) -> Vec<u8> {
        let Some(entry) = self.entries.get(index) else {
            return Vec::new();
        };
        if entry.kind != Kind::Stream || entry.start == NO_STREAM && entry.size == 0 {
            return Vec::new();
        }
        if entry.size < self.mini_cutoff {
            self.mini_chain_bytes(entry.start, entry.size)
        } else {
            self.chain_bytes(entry.start, Some(entry.size))
        }
    }

    /// The entries directly inside the storage at `index` (the root is 0), in the tree's order.
    pub fn children(&self, index: usize) -> Vec<usize> {
        let Some(storage) = self.entries.get(index) else {
            return Vec::new();
        };
        let mut found = Vec::new();
        let mut visited = vec![false; self.entries.len()];
        let mut stack = vec![storage.child];
        while let Some(at) = stack.pop() {
            let at = at as usize;
            if at >= self.entries.len() || visited[at] {
                continue;
            }
            visited[at] = true;
            let entry = &self.entries[at];
            found.push(at);
            stack.push(entry.right);
            stack.push(entry.left);
        }
        found
    }

    /// The child of storage `parent` named `name` (any letter case); when the storage's tree does not
    /// hold it and `parent` is the file's root, any stream or storage of that name.
    pub fn find_in(&self, parent: usize, name: &str) -> Option<usize> {
        self.children(parent)
            .into_iter()
            .find(|&i| same_name(&self.entries[i].name, name))
            .or_else(|| {
                (parent == 0 && self.root == 0)
                    .then(|| {
                        self.entries
                            .iter()
                            .position(|e| e.kind != Kind::Root && same_name(&e.name, name))
                    })
                    .flatten()
            })
    }

    /// The stream `name` at the root, read whole; None when there is none.
    pub fn stream(&self, name: &str) -> Option<Vec<u8>> {
        self.find_in(self.root, name)
            .filter(|&i| self.entries[i].kind == Kind::Stream)
            .map(|i| self.read(i))
    }

    /// The names at the root.
    pub fn root_names(&self) -> Vec<String> {
        self.children(self.root)
            .into_iter()
            .map(|i| self.entries[i].name.clone())
            .collect()
    }

    /// Whether any entry (at any depth: a broken tree hides some) is named `name`; inside an
    /// embedded object, one of its root's.
    pub fn has(&self, name: &str) -> bool {
        if self.root != 0 {
            return self.find_in(self.root, name).is_some();
        }
        self.entries
            .iter()
            .any(|e| e.kind != Kind::Root && same_name(&e.name, name))
    }

    /// The storage taken as the root.
    pub fn root(&self) -> usize {
        self.root
    }

    /// The file as seen from its storage `storage`: an object embedded in it (a Word document in an
    /// Outlook item), read by the same readers as a file of its own.
    pub fn rooted_at(&self, storage: usize) -> Compound<'a> {
        Compound {
            root: storage,
            ..self.clone()
        }
    }
}

/// The label and the file an OLE package (`\u{1}Ole10Native`: an embedded file) carries: after its
/// size and type, its label, its source path, two numbers, its temporary path, then the file's length
/// and bytes.
pub fn ole10_native(native: &[u8]) -> Option<(String, &[u8])> {
    let mut at = 6;
    let label_end = at + native.get(at..)?.iter().position(|&b| b == 0)?;
    // In the writer's ANSI code page, unknown here: windows-1252's letters are the likeliest.
    let label = encoding_rs::WINDOWS_1252
        .decode(&native[at..label_end])
        .0
        .into_owned();
    at = label_end + 1;
    at += native.get(at..)?.iter().position(|&b| b == 0)? + 1;
    at += 8;
    at += native.get(at..)?.iter().position(|&b| b == 0)? + 1;
    let size = u32_at(native, at)? as usize;
    Some((label, native.get(at + 4..(at + 4).checked_add(size)?)?))
}

/// An OLE object read: its label (an embedded file's name) when it has one, its size, its document.
pub struct Embedded {
    pub label: Option<String>,
    pub bytes: u64,
    pub document: Document,
}

/// An OLE object embedded in a compound file (a Word document's `ObjectPool`, an Outlook item's
/// attachment by OLE, as Outlook keeps what is placed in an RTF body), `depth` attachments deep: an
/// embedded file (an OLE package's `Ole10Native` data, or the `CONTENTS` or `Package` stream a PDF
/// or an OOXML document is kept in) through the pipeline by `extract_child`; a Word or PowerPoint
/// 97-2003 document stored as the object's own streams read by their readers; an Outlook item's
/// storage as one. None for an object that holds no document (an equation, a drawing).
pub fn embedded_object(
    file: &Compound<'_>,
    storage: usize,
    limits: &Limits,
    depth: u32,
    extract_child: &mut dyn FnMut(&[u8]) -> Result<Document, ExtractError>,
) -> Result<Option<Embedded>, ExtractError> {
    if depth > limits.max_attachment_depth {
        return Err(ExtractError::LimitExceeded(
            "objects embedded too deep".to_string(),
        ));
    }
    let object = file.rooted_at(storage);
    if let Some(native) = object.stream("\u{1}Ole10Native") {
        let (label, data) = ole10_native(&native).ok_or_else(|| {
            ExtractError::Malformed("an embedded file's package without its data".to_string())
        })?;
        return Ok(Some(Embedded {
            label: Some(label).filter(|l| !l.trim().is_empty()),
            bytes: data.len() as u64,
            document: extract_child(data)?,
        }));
    }
    if let Some(contents) = object
        .stream("CONTENTS")
        .or_else(|| object.stream("Package"))
    {
        return Ok(Some(Embedded {
            label: None,
            bytes: contents.len() as u64,
            document: extract_child(&contents)?,
        }));
    }
    let format = match super::detect::compound_format(&object) {
        Err(ExtractError::UnsupportedFormat(_)) => return Ok(None),
        other => other?,
    };
    let mut child = Builder::default();
    child.document.metadata.format = format.name().to_string();
    child.document.metadata.mime = format.mime().to_string();
    match format {
        Format::Doc => super::doc::extract(object, limits, &mut child, depth, extract_child)?,
        Format::Ppt => super::ppt::extract(object, limits, &mut child)?,
        Format::Msg => super::msg::read_object(&object, limits, depth, &mut child, extract_child)?,
        other => {
            return Err(ExtractError::UnsupportedFormat(format!(
                "an embedded {} object",
                other.name()
            )))
        }
    }
    Ok(Some(Embedded {
        label: None,
        bytes: 0,
        document: child.finish(),
    }))
}

/// The string properties (id, value) of the first section of the property set stream `name`.
fn property_strings(file: &Compound<'_>, name: &str) -> Vec<(u32, String)> {
    let Some(set) = file.stream(name) else {
        return Vec::new();
    };
    let Some(section) = u32_at(&set, 44).map(|s| s as usize) else {
        return Vec::new();
    };
    let count = u32_at(&set, section + 4).unwrap_or(0).min(256) as usize;
    let mut code_page = 1252;
    let mut values: Vec<(u32, String)> = Vec::new();
    for i in 0..count {
        let (Some(id), Some(offset)) = (
            u32_at(&set, section + 8 + 8 * i),
            u32_at(&set, section + 12 + 8 * i),
        ) else {
            break;
        };
        let at = section.saturating_add(offset as usize);
        match u32_at(&set, at).map(|t| t & 0xFFFF) {
            // VT_I2: the code page of the 8-bit strings.
            Some(0x02) if id == 1 => {
                code_page = i32::from(u16_at(&set, at + 4).unwrap_or(1252) as i16)
            }
            Some(0x1E) => {
                let length = u32_at(&set, at + 4).unwrap_or(0) as usize;
                if let Some(raw) = set.get(at + 8..(at + 8).saturating_add(length).min(set.len())) {
                    let raw = raw.split(|&b| b == 0).next().unwrap_or_default();
                    let encoding = if code_page == 65001 || code_page == -535 {
                        encoding_rs::UTF_8
                    } else {
                        super::rtf::code_page(code_page)
                    };
                    values.push((id, encoding.decode(raw).0.into_owned()));
                }
            }
            Some(0x1F) => {
                let length = u32_at(&set, at + 4).unwrap_or(0) as usize;
                if let Some(raw) =
                    set.get(at + 8..(at + 8).saturating_add(2 * length).min(set.len()))
                {
                    let units: Vec<u16> = raw
                        .chunks_exact(2)
                        .map(|p| u16::from_le_bytes([p[0], p[1]]))
                        .take_while(|&u| u != 0)
                        .collect();
                    values.push((id, String::from_utf16_lossy(&units)));
                }
            }
            _ => {}
        }
    }
    values.retain_mut(|(_, value)| {
        *value = value.trim().to_string();
        !value.is_empty()
    });
    values
}

/// The document properties of the `\u{5}SummaryInformation` property set (title, subject, author,
/// keywords, comments, last author, application) and of `\u{5}DocumentSummaryInformation`
/// (category, manager, company), into the metadata and `summary.*` fields.
pub fn summary_information(file: &Compound<'_>, builder: &mut crate::model::Builder) {
    for (id, value) in property_strings(file, "\u{5}SummaryInformation") {
        let name = match id {
            2 => "title",
            3 => "subject",
            4 => "author",
            5 => "keywords",
            6 => "comments",
            8 => "last_author",
            18 => "application",
            _ => continue,
        };
        match id {
            2 => builder.document.metadata.title = Some(value.clone()),
            4 => builder.document.metadata.author = Some(value.clone()),
            18 => builder.document.metadata.producer = Some(value.clone()),
            _ => {}
        }
        builder.field(&format!("summary.{name}"), value);
    }
    for (id, value) in property_strings(file, "\u{5}DocumentSummaryInformation") {
        let name = match id {
            2 => "category",
            14 => "manager",
            15 => "company",
            _ => continue,
        };
        builder.field(&format!("summary.{name}"), value);
    }
}

fn entry(raw: &[u8]) -> Entry {
    let length = (u16_at(raw, 0x40).unwrap_or(0) as usize).min(64);
    let units: Vec<u16> = (0..length / 2)
        .filter_map(|i| u16_at(raw, 2 * i))
        .take_while(|&u| u != 0)
        .collect();
    // An unused or unknown entry reads as a storage without children: never as a stream.
    let (kind, known) = match raw[0x42] {
        1 => (Kind::Storage, true),
        2 => (Kind::Stream, true),
        5 => (Kind::Root, true),
        _ => (Kind::Storage, false),
    };
    Entry {
        name: String::from_utf16_lossy(&units),
        kind,
        left: u32_at(raw, 0x44).unwrap_or(NO_STREAM),
        right: u32_at(raw, 0x48).unwrap_or(NO_STREAM),
        child: if known {
            u32_at(raw, 0x4C).unwrap_or(NO_STREAM)
        } else {
            NO_STREAM
        },
        start: u32_at(raw, 0x74).unwrap_or(END_OF_CHAIN),
        size: u64::from(u32_at(raw, 0x78).unwrap_or(0)),
    }
}

/// Whether the bytes name `name` as a directory entry would (UTF-16LE), in any letter case: what a
/// container too damaged to open still shows of the streams it held.
pub fn names_somewhere(bytes: &[u8], name: &str) -> bool {
    let units: Vec<u16> = name.encode_utf16().collect();
    let width = units.len() * 2;
    if bytes.len() < width || units.is_empty() {
        return false;
    }
    let fold = |u: u16| -> u16 {
        if (u16::from(b'a')..=u16::from(b'z')).contains(&u) {
            u - 32
        } else {
            u
        }
    };
    bytes.windows(width).any(|window| {
        units
            .iter()
            .enumerate()
            .all(|(i, &u)| fold(u16::from_le_bytes([window[2 * i], window[2 * i + 1]])) == fold(u))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extractor_pool::formats::detect::compound_file;

    /// A property set stream of one section holding `strings` (id, value) as VT_LPSTR in UTF-8
    /// (code page 65001, property 1), as [MS-OLEPS] lays it out.
    fn property_set(strings: &[(u32, &str)]) -> Vec<u8> {
        let mut properties: Vec<(u32, Vec<u8>)> = vec![(1, {
            let mut value = 0x02u32.to_le_bytes().to_vec();
            value.extend(65001u16.to_le_bytes());
            value.extend([0, 0]);
            value
        })];
        for (id, text) in strings {
            let mut value = 0x1Eu32.to_le_bytes().to_vec();
            let mut bytes = text.as_bytes().to_vec();
            bytes.push(0);
            value.extend((bytes.len() as u32).to_le_bytes());
            bytes.resize(bytes.len().div_ceil(4) * 4, 0);
            value.extend(bytes);
            properties.push((*id, value));
        }
        let mut section = Vec::new();
        let mut offset = 8 + 8 * properties.len();
        let mut values: Vec<u8> = Vec::new();
        for (id, value) in &properties {
            section.extend(id.to_le_bytes());
            section.extend((offset as u32).to_le_bytes());
            offset += value.len();
            values.extend(value);
        }
        section.extend(values);
        let mut set = vec![0xFE, 0xFF, 0, 0, 0, 0, 0, 0];
        set.extend([0u8; 16]);
        set.extend(1u32.to_le_bytes());
        set.extend([0x02u8; 16]);
        set.extend(48u32.to_le_bytes());
        set.extend(((section.len() + 8) as u32).to_le_bytes());
        set.extend((properties.len() as u32).to_le_bytes());
        set.extend(section);
        set
    }

    #[test]
    fn document_properties_come_from_both_property_sets() {
        let summary = property_set(&[(2, "Bordro"), (4, "Gülşen Çakıroğlu"), (99, "x")]);
        let document = property_set(&[(15, "Örnek Gıda A.Ş."), (14, "Deniz Yıldırım")]);
        let file = compound_file(&[
            ("\u{5}SummaryInformation", &summary),
            ("\u{5}DocumentSummaryInformation", &document),
        ])
        .unwrap();
        let mut builder = crate::model::Builder::default();
        summary_information(&Compound::open(&file).unwrap(), &mut builder);
        let document = builder.finish();
        assert_eq!(document.metadata.title.as_deref(), Some("Bordro"));
        assert_eq!(
            document.metadata.author.as_deref(),
            Some("Gülşen Çakıroğlu")
        );
        let field = |name: &str| document.fields.get(name).and_then(|v| v.as_str());
        assert_eq!(field("summary.company"), Some("Örnek Gıda A.Ş."));
        assert_eq!(field("summary.manager"), Some("Deniz Yıldırım"));
        assert_eq!(document.fields.len(), 4, "{:?}", document.fields);
    }

    #[test]
    fn streams_are_found_in_any_letter_case_and_read_whole() {
        let big: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
        let file = compound_file(&[("WordDocument", &big), ("1Table", b"table bytes")]).unwrap();
        let compound = Compound::open(&file).unwrap();
        assert_eq!(compound.stream("worddocument").unwrap(), big);
        assert_eq!(compound.stream("1TABLE").unwrap(), b"table bytes");
        assert!(compound.stream("0Table").is_none());
        assert!(compound.has("WORDDOCUMENT"));
        let mut names = compound.root_names();
        names.sort();
        assert_eq!(names, ["1Table", "WordDocument"]);
    }

    #[test]
    fn a_name_written_in_another_case_is_still_found_after_the_tree_breaks() {
        let file = compound_file(&[("EncryptionInfo", b"x"), ("EncryptedPackage", b"y")]).unwrap();
        // Lower-case the names in the directory (same length: the tree's order no longer holds).
        let mut bytes = file.clone();
        for name in ["EncryptionInfo", "EncryptedPackage"] {
            let from: Vec<u8> = name.encode_utf16().flat_map(u16::to_le_bytes).collect();
            let to: Vec<u8> = name
                .to_lowercase()
                .encode_utf16()
                .flat_map(u16::to_le_bytes)
                .collect();
            let at = bytes
                .windows(from.len())
                .position(|w| w == from.as_slice())
                .unwrap();
            bytes[at..at + to.len()].copy_from_slice(&to);
        }
        let compound = Compound::open(&bytes).unwrap();
        assert!(compound.has("EncryptionInfo") && compound.has("EncryptedPackage"));
        assert!(names_somewhere(&bytes, "ENCRYPTIONINFO"));
        assert!(!names_somewhere(&bytes, "WordDocument"));
    }

    #[test]
    fn hostile_headers_fail_or_read_nothing_without_panic() {
        let file = compound_file(&[("A", &[1u8; 5000])]).unwrap();
        for at in (0..file.len().min(2048)).step_by(7) {
            for value in [0u8, 0xFF, 0x7F] {
                let mut bytes = file.clone();
                bytes[at] = value;
                if let Ok(compound) = Compound::open(&bytes) {
                    for index in 0..compound.entries.len() {
                        let _ = compound.read(index);
                        let _ = compound.children(index);
                    }
                }
            }
        }
        // Cut short: whatever opens reads no further than the file.
        if let Ok(compound) = Compound::open(&file[..1600]) {
            assert!(compound.read(1).len() <= 1600);
        }
    }
}
