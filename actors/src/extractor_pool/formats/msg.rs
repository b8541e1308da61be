//! Outlook items (`.msg`, [MS-OXMSG]): a compound file whose message properties are streams named
//! `__substg1.0_<id><type>` (strings in UTF-16 or the message's code page, binaries as they are), its
//! recipients and attachments storages of their own, and its fixed-size properties (dates) a
//! properties stream. Read as the e-mail reader reads a message: headers (from, to, cc, subject,
//! date) as `email_header` elements and `email.*` fields, the body (HTML, else plain text, else the
//! compressed RTF inflated and read as RTF), attachments as child documents through the same pipeline
//! as an e-mail's, embedded messages read the same way.

use std::collections::HashMap;

use super::super::error::ExtractError;
use super::super::limits::Limits;
use super::compound::{u16_at, u32_at, Compound, Kind};
use crate::model::{Attachment, Builder, Document, Element, ElementKind};

const MESSAGE_CLASS: u16 = 0x001A;
const SUBJECT: u16 = 0x0037;
const SENDER_NAME: u16 = 0x0C1A;
const SENDER_EMAIL: u16 = 0x0C1F;
const SENDER_SMTP: u16 = 0x5D01;
const DISPLAY_TO: u16 = 0x0E04;
const DISPLAY_CC: u16 = 0x0E03;
const BODY: u16 = 0x1000;
const BODY_HTML: u16 = 0x1013;
const RTF_COMPRESSED: u16 = 0x1009;
const CLIENT_SUBMIT_TIME: u16 = 0x0039;
const DELIVERY_TIME: u16 = 0x0E06;
const MESSAGE_CODEPAGE: u16 = 0x3FFD;
const INTERNET_CODEPAGE: u16 = 0x3FDE;
const DISPLAY_NAME: u16 = 0x3001;
const EMAIL_ADDRESS: u16 = 0x3003;
const SMTP_ADDRESS: u16 = 0x39FE;
const RECIPIENT_TYPE: u16 = 0x0C15;
const ATTACH_DATA: u16 = 0x3701;
const ATTACH_FILENAME: u16 = 0x3704;
const ATTACH_LONG_FILENAME: u16 = 0x3707;
const ATTACH_MIME: u16 = 0x370E;

/// The properties of one storage (the message, a recipient, an attachment): its entries indexed by
/// name once, its fixed-size properties stream read once.
struct Properties<'f, 'a> {
    file: &'f Compound<'a>,
    /// The storage's entries by their upper-cased names.
    names: HashMap<String, usize>,
    /// `__properties_version1.0`, empty when there is none.
    fixed: Vec<u8>,
    code_page: i32,
}

impl<'f, 'a> Properties<'f, 'a> {
    fn of(file: &'f Compound<'a>, storage: usize, code_page: i32) -> Self {
        let names: HashMap<String, usize> = file
            .children(storage)
            .into_iter()
            .map(|i| (file.entries[i].name.to_uppercase(), i))
            .collect();
        let fixed = names
            .get("__PROPERTIES_VERSION1.0")
            .map(|&i| file.read(i))
            .unwrap_or_default();
        Properties {
            file,
            names,
            fixed,
            code_page,
        }
    }

    fn stream_of(&self, id: u16, kind: u16) -> Option<usize> {
        self.names
            .get(&format!("__SUBSTG1.0_{id:04X}{kind:04X}"))
            .copied()
    }

    fn string(&self, id: u16) -> Option<String> {
        if let Some(index) = self.stream_of(id, 0x001F) {
            let bytes = self.file.read(index);
            let units: Vec<u16> = bytes
                .chunks_exact(2)
                .map(|p| u16::from_le_bytes([p[0], p[1]]))
                .take_while(|&u| u != 0)
                .collect();
            return Some(String::from_utf16_lossy(&units));
        }
        let index = self.stream_of(id, 0x001E)?;
        let bytes = self.file.read(index);
        let bytes = bytes.split(|&b| b == 0).next().unwrap_or_default();
        let encoding = if self.code_page == 65001 {
            encoding_rs::UTF_8
        } else {
            super::rtf::code_page(self.code_page)
        };
        Some(encoding.decode(bytes).0.into_owned())
    }

    fn binary(&self, id: u16) -> Option<Vec<u8>> {
        self.stream_of(id, 0x0102)
            .map(|index| self.file.read(index))
    }

    /// A fixed-size property from the properties stream (`header` bytes before its entries): its
    /// eight value bytes.
    fn fixed(&self, id: u16, header: usize) -> Option<u64> {
        self.fixed
            .get(header..)?
            .chunks_exact(16)
            .find(|entry| u16_at(entry, 2) == Some(id))
            .and_then(|entry| Some(u64::from_le_bytes(entry[8..16].try_into().ok()?)))
    }
}

/// Whether a message class is that of a message whose content is sealed: S/MIME encrypted or
/// opaque-signed (`IPM.Note.SMIME`, its body a PKCS #7 blob), Outlook's own secure messages
/// (`IPM.Note.Secure`), rights-managed ones (`IPM.Note.rpmsg...`, `...Microsoft.Rpmsg`). A
/// clear-signed message (`IPM.Note.SMIME.MultipartSigned`, `IPM.Note.Secure.Sign`) is readable: its
/// MIME content is an attachment, read as e-mail.
fn is_sealed(class: &str) -> bool {
    let class = class.trim().to_ascii_lowercase();
    let parts: Vec<&str> = class.split('.').collect();
    let has = |part: &str| parts.contains(&part);
    if has("multipartsigned") || (has("secure") && has("sign")) {
        return false;
    }
    has("smime") || has("secure") || parts.iter().any(|p| p.starts_with("rpmsg"))
}

/// The storages inside `storage` whose names start with `prefix` (recipients, attachments).
fn storages(file: &Compound<'_>, storage: usize, prefix: &str) -> Vec<usize> {
    file.children(storage)
        .into_iter()
        .filter(|&i| {
            let entry = &file.entries[i];
            entry.kind == Kind::Storage && entry.name.to_ascii_lowercase().starts_with(prefix)
        })
        .collect()
}

/// A person as a header shows them: `Name <address>`, or whichever of the two there is.
fn person((name, address): &Person) -> Option<String> {
    let address = address.as_ref().filter(|a| a.contains('@'));
    match (name, address) {
        (Some(name), Some(address)) if name != address => Some(format!("{name} <{address}>")),
        (name, address) => address.or(name.as_ref()).cloned(),
    }
}

/// A FILETIME (100 ns since 1601) as a date.
fn filetime(value: u64) -> Option<chrono::DateTime<chrono::Utc>> {
    let seconds = (value / 10_000_000).checked_sub(11_644_473_600)?;
    chrono::DateTime::from_timestamp(seconds as i64, 0)
}

/// Compressed RTF ([MS-OXRTFCP]): LZ77 over a 4 KiB dictionary primed with common RTF, or stored.
pub fn decompress_rtf(bytes: &[u8], max: usize) -> Option<Vec<u8>> {
    const PRIMER: &[u8] = b"{\\rtf1\\ansi\\mac\\deff0\\deftab720{\\fonttbl;}{\\f0\\fnil \\froman \\fswiss \\fmodern \\fscript \\fdecor MS Sans SerifSymbolArialTimes New RomanCourier{\\colortbl\\red0\\green0\\blue0\r\n\\par \\pard\\plain\\f0\\fs20\\b\\i\\u\\tab\\tx";
    let raw_size = u32_at(bytes, 4)? as usize;
    let kind = bytes.get(8..12)?;
    let data = bytes.get(16..)?;
    if kind == b"MELA" {
        return Some(data[..raw_size.min(data.len()).min(max)].to_vec());
    }
    if kind != b"LZFu" {
        return None;
    }
    let mut dictionary = [0u8; 4096];
    dictionary[..PRIMER.len()].copy_from_slice(PRIMER);
    let mut write = PRIMER.len();
    let mut out = Vec::with_capacity(raw_size.min(max).min(16 << 20));
    let mut at = 0;
    'outer: while at < data.len() {
        let control = data[at];
        at += 1;
        for bit in 0..8 {
            if out.len() >= max {
                break 'outer;
            }
            if control & (1 << bit) == 0 {
                let Some(&byte) = data.get(at) else {
                    break 'outer;
                };
                at += 1;
                out.push(byte);
                dictionary[write % 4096] = byte;
                write += 1;
            } else {
                let (Some(&high), Some(&low)) = (data.get(at), data.get(at + 1)) else {
                    break 'outer;
                };
                at += 2;
                let reference = u16::from_be_bytes([high, low]);
                let offset = (reference >> 4) as usize;
                let length = (reference & 0x0F) as usize + 2;
                if offset == write % 4096 {
                    break 'outer;
                }
                for i in 0..length {
                    let byte = dictionary[(offset + i) % 4096];
                    out.push(byte);
                    dictionary[write % 4096] = byte;
                    write += 1;
                }
            }
        }
    }
    out.truncate(raw_size.min(max));
    Some(out)
}

/// A display name and an address, either of which may be missing.
pub(crate) type Person = (Option<String>, Option<String>);

/// The body of an item: HTML (the richest: headings, tables; a plain body beside it is often derived
/// from it, with its structure lost), else plain text, else the compressed RTF inflated.
pub(crate) enum Body {
    Html(String),
    Text(String),
    Rtf(Vec<u8>),
}

/// What an attachment holds: its bytes, an embedded message (the storage holding it), or an embedded
/// OLE object (the same).
pub(crate) enum Content {
    Data(Vec<u8>),
    Message(usize),
    Object(usize),
}

/// One attachment of an item.
pub(crate) struct Attached {
    pub filename: String,
    pub mime: String,
    pub content: Content,
}

/// An Outlook item as both its reader and its writer (which answers it as e-mail) see it.
pub(crate) struct Item<'f, 'a> {
    message: Properties<'f, 'a>,
    storage: usize,
    pub from: Option<Person>,
    /// The recipients from their storages (with addresses), else the display line.
    pub to: Result<Vec<Person>, Option<String>>,
    pub cc: Result<Vec<Person>, Option<String>>,
    pub subject: Option<String>,
    pub date: Option<chrono::DateTime<chrono::Utc>>,
}

/// The item in `storage` (`header`: the length of its properties stream's header: 32 at the root, 24
/// in an embedded message); `encrypted_document` when its content is sealed.
pub(crate) fn item<'f, 'a>(
    file: &'f Compound<'a>,
    storage: usize,
    header: usize,
) -> Result<Item<'f, 'a>, ExtractError> {
    let mut message = Properties::of(file, storage, 1252);
    if let Some(page) = message
        .fixed(INTERNET_CODEPAGE, header)
        .or_else(|| message.fixed(MESSAGE_CODEPAGE, header))
    {
        message.code_page = page as u32 as i32;
    }
    if message
        .string(MESSAGE_CLASS)
        .is_some_and(|class| is_sealed(&class))
    {
        return Err(ExtractError::EncryptedDocument);
    }
    let from = Some((
        message.string(SENDER_NAME),
        message
            .string(SENDER_SMTP)
            .or_else(|| message.string(SENDER_EMAIL))
            .filter(|a| a.contains('@')),
    ))
    .filter(|(name, address)| name.is_some() || address.is_some());
    let (mut to, mut cc) = (Vec::new(), Vec::new());
    for index in storages(file, storage, "__recip_version1.0_") {
        let recipient = Properties::of(file, index, message.code_page);
        let shown = (
            recipient.string(DISPLAY_NAME).filter(|n| !n.is_empty()),
            recipient
                .string(SMTP_ADDRESS)
                .or_else(|| recipient.string(EMAIL_ADDRESS))
                .filter(|a| a.contains('@')),
        );
        if shown.0.is_none() && shown.1.is_none() {
            continue;
        }
        match recipient.fixed(RECIPIENT_TYPE, 8) {
            Some(2) => cc.push(shown),
            Some(3) => {}
            _ => to.push(shown),
        }
    }
    let listed = |people: Vec<Person>, line: u16| match people.is_empty() {
        false => Ok(people),
        true => Err(message.string(line).filter(|l| !l.trim().is_empty())),
    };
    let (to, cc) = (listed(to, DISPLAY_TO), listed(cc, DISPLAY_CC));
    let date = message
        .fixed(CLIENT_SUBMIT_TIME, header)
        .or_else(|| message.fixed(DELIVERY_TIME, header))
        .and_then(filetime);
    let subject = message.string(SUBJECT);
    Ok(Item {
        message,
        storage,
        from,
        to,
        cc,
        subject,
        date,
    })
}

impl Item<'_, '_> {
    /// The body, when there is one.
    pub(crate) fn body(&self, limits: &Limits) -> Option<Body> {
        let message = &self.message;
        if let Some(html) = message
            .binary(BODY_HTML)
            .map(|bytes| {
                let declared = super::html::declared_charset(&bytes);
                super::encoding::decode_declared(&bytes, declared.as_deref()).text
            })
            .or_else(|| message.string(BODY_HTML))
            .filter(|html| !html.trim().is_empty())
        {
            return Some(Body::Html(html));
        }
        if let Some(text) = message.string(BODY).filter(|t| !t.trim().is_empty()) {
            return Some(Body::Text(text));
        }
        message
            .binary(RTF_COMPRESSED)
            .and_then(|bytes| decompress_rtf(&bytes, limits.max_decompressed_bytes as usize))
            .map(Body::Rtf)
    }

    /// The attachments, in their storages' order.
    pub(crate) fn attachments(&self) -> Vec<Attached> {
        let file = self.message.file;
        storages(file, self.storage, "__attach_version1.0_")
            .into_iter()
            .map(|index| {
                let attachment = Properties::of(file, index, self.message.code_page);
                let filename = attachment
                    .string(ATTACH_LONG_FILENAME)
                    .or_else(|| attachment.string(ATTACH_FILENAME))
                    .or_else(|| attachment.string(DISPLAY_NAME))
                    .unwrap_or_else(|| "attachment".to_string());
                let mime = attachment
                    .string(ATTACH_MIME)
                    .unwrap_or_else(|| "application/octet-stream".to_string());
                let embedded = attachment
                    .stream_of(ATTACH_DATA, 0x000D)
                    .filter(|&i| file.entries[i].kind == Kind::Storage);
                let content = match embedded {
                    Some(inner) if storages_hold_properties(file, inner) => Content::Message(inner),
                    Some(inner) => Content::Object(inner),
                    None => Content::Data(attachment.binary(ATTACH_DATA).unwrap_or_default()),
                };
                Attached {
                    filename,
                    mime,
                    content,
                }
            })
            .collect()
    }
}

/// A list of people as a header line shows it, each person as `shown` writes them.
pub(crate) fn people_line(
    people: &Result<Vec<Person>, Option<String>>,
    shown: fn(&Person) -> Option<String>,
) -> Option<String> {
    match people {
        Ok(people) => Some(
            people
                .iter()
                .filter_map(shown)
                .collect::<Vec<_>>()
                .join(", "),
        ),
        Err(line) => line.clone(),
    }
    .filter(|line| !line.trim().is_empty())
}

/// The error code of an attachment that did not read.
fn code_of(error: ExtractError) -> Option<String> {
    Some(error.code().to_string())
}

/// Reads the message in `storage` into `builder`; `extract_child` reads an attachment's bytes.
fn read_message(
    file: &Compound<'_>,
    storage: usize,
    header: usize,
    limits: &Limits,
    depth: u32,
    builder: &mut Builder,
    extract_child: &mut dyn FnMut(&[u8]) -> Result<Document, ExtractError>,
) -> Result<(), ExtractError> {
    let item = item(file, storage, header)?;
    let headers = [
        ("from", item.from.as_ref().and_then(person)),
        ("to", people_line(&item.to, person)),
        ("cc", people_line(&item.cc, person)),
        ("subject", item.subject.clone()),
        ("date", item.date.map(|d| d.to_rfc3339())),
    ];
    super::eml::push_headers(builder, headers);
    match item.body(limits) {
        Some(Body::Html(html)) => super::html::extract(&html, limits, builder)?,
        Some(Body::Text(text)) => {
            for block in text.replace("\r\n", "\n").split("\n\n") {
                builder.push(Element::new(ElementKind::Paragraph, block));
            }
        }
        Some(Body::Rtf(rtf)) => super::rtf::extract(&rtf, limits, builder)?,
        None => {}
    }
    // Attachments: their bytes through the pipeline; an embedded message read as one, an embedded
    // OLE object by what it holds.
    for Attached {
        filename,
        mime,
        content,
    } in item.attachments()
    {
        let too_deep = depth + 1 > limits.max_attachment_depth;
        let (bytes, document, error) = match content {
            Content::Message(_) | Content::Object(_) if too_deep => {
                (0, None, code_of(ExtractError::LimitExceeded(String::new())))
            }
            Content::Message(inner) => {
                let mut child = Builder::default();
                child.document.metadata.format = "msg".to_string();
                child.document.metadata.mime = "application/vnd.ms-outlook".to_string();
                match read_message(
                    file,
                    inner,
                    24,
                    limits,
                    depth + 1,
                    &mut child,
                    extract_child,
                ) {
                    Ok(()) => (0, Some(Box::new(child.finish())), None),
                    Err(error) => (0, None, code_of(error)),
                }
            }
            Content::Object(inner) => {
                match super::compound::embedded_object(
                    file,
                    inner,
                    limits,
                    depth + 1,
                    extract_child,
                ) {
                    Ok(Some(object)) => (object.bytes, Some(Box::new(object.document)), None),
                    Ok(None) => (
                        0,
                        None,
                        code_of(ExtractError::UnsupportedFormat(String::new())),
                    ),
                    Err(error) => (0, None, code_of(error)),
                }
            }
            Content::Data(data) => {
                let size = data.len() as u64;
                match extract_child(&data) {
                    Ok(document) => (size, Some(Box::new(document)), None),
                    Err(error) => (size, None, code_of(error)),
                }
            }
        };
        builder.document.attachments.push(Attachment {
            filename,
            mime,
            bytes,
            document,
            error,
        });
    }
    Ok(())
}

/// Whether a storage holds an Outlook item's properties (an embedded message), not an OLE object.
fn storages_hold_properties(file: &Compound<'_>, storage: usize) -> bool {
    file.children(storage).into_iter().any(|i| {
        let name = file.entries[i].name.to_ascii_lowercase();
        name.starts_with("__substg1.0_") || name == "__properties_version1.0"
    })
}

/// An Outlook item embedded as an OLE object (`file` rooted at it), `depth` attachments deep.
pub fn read_object(
    file: &Compound<'_>,
    limits: &Limits,
    depth: u32,
    builder: &mut Builder,
    extract_child: &mut dyn FnMut(&[u8]) -> Result<Document, ExtractError>,
) -> Result<(), ExtractError> {
    read_message(file, file.root(), 24, limits, depth, builder, extract_child)
}

/// `depth`: how many attachments deep the item is; `extract_child` reads an attachment (recursion
/// bounded by the caller).
pub fn extract(
    file: Compound<'_>,
    limits: &Limits,
    builder: &mut Builder,
    depth: u32,
    extract_child: &mut dyn FnMut(&[u8]) -> Result<Document, ExtractError>,
) -> Result<(), ExtractError> {
    read_message(&file, 0, 32, limits, depth, builder, extract_child)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compressed_rtf_inflates_as_the_specification_shows() {
        // [MS-OXRTFCP] 3.1.1: the example "{\rtf1\ansi\ansicpg1252\pard hello world}\r\n".
        let compressed: [u8; 49] = [
            0x2d, 0x00, 0x00, 0x00, 0x2b, 0x00, 0x00, 0x00, 0x4c, 0x5a, 0x46, 0x75, 0xf1, 0xc5,
            0xc7, 0xa7, 0x03, 0x00, 0x0a, 0x00, 0x72, 0x63, 0x70, 0x67, 0x31, 0x32, 0x35, 0x42,
            0x32, 0x0a, 0xf3, 0x20, 0x68, 0x65, 0x6c, 0x09, 0x00, 0x20, 0x62, 0x77, 0x05, 0xb0,
            0x6c, 0x64, 0x7d, 0x0a, 0x80, 0x0f, 0xa0,
        ];
        let out = decompress_rtf(&compressed, 1 << 20).expect("inflates");
        assert_eq!(
            String::from_utf8_lossy(&out),
            "{\\rtf1\\ansi\\ansicpg1252\\pard hello world}\r\n"
        );
        assert!(decompress_rtf(b"short", 100).is_none());
    }

    #[test]
    fn sealed_message_classes_are_told_from_readable_ones() {
        for sealed in [
            "IPM.Note.SMIME",
            "ipm.note.smime",
            "IPM.Note.Secure",
            "IPM.Note.rpmsg.Microsoft.Voicemail.UM.CA",
            "IPM.Note.Microsoft.Rpmsg",
        ] {
            assert!(is_sealed(sealed), "{sealed}");
        }
        for readable in [
            "IPM.Note",
            "IPM.Note.SMIME.MultipartSigned",
            "IPM.Note.Secure.Sign",
            "IPM.Schedule.Meeting.Request",
            "IPM.Note.Smimeless",
        ] {
            assert!(!is_sealed(readable), "{readable}");
        }
    }

    #[test]
    fn filetimes_read_as_dates() {
        assert_eq!(
            filetime(132_539_328_000_000_000)
                .map(|d| d.to_rfc3339())
                .as_deref(),
            Some("2021-01-01T00:00:00+00:00")
        );
        assert_eq!(filetime(5), None);
    }
}
