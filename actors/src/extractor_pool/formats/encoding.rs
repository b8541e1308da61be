//! One decoder for every text format (plain text, CSV, e-mail and each of its parts, HTML, XML), from
//! content first:
//! 1. a byte-order mark: UTF-8, UTF-16 LE/BE, UTF-32 LE/BE;
//! 2. without one, UTF-32 or UTF-16 recognised by the pattern of zero bytes (a code unit's high bytes
//!    are zero for Latin text: every fourth byte and most of their neighbours for UTF-32, every second
//!    byte for UTF-16), confirmed by decoding without an error;
//! 3. UTF-8, when the bytes hold valid multi-byte sequences (a document saved as UTF-8 keeps an old
//!    declaration more often than 8-bit text happens to be valid UTF-8);
//! 4. the charset the document declares (an HTML `<meta charset>`, an XML prolog's `encoding`, a MIME
//!    part's `charset`), when it decodes the bytes without an error;
//! 5. plain ASCII as UTF-8; otherwise `chardetng`, with the Turkish hint deciding between Latin code
//!    pages (ambiguous 8-bit text is usually windows-1254 in our documents).

use encoding_rs::{Encoding, UTF_16BE, UTF_16LE, UTF_8};

/// Decoded text and the encoding it was read as.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoded {
    pub text: String,
    pub encoding: &'static str,
    /// Bytes that could not be decoded and were replaced by U+FFFD.
    pub had_errors: bool,
    /// The encoding was a statistical guess (step 5, not ASCII): a declared charset may do better.
    pub guessed: bool,
}

fn with(encoding: &'static Encoding, bytes: &[u8]) -> Decoded {
    let (text, used, had_errors) = encoding.decode(bytes);
    Decoded {
        text: text.into_owned(),
        encoding: used.name(),
        had_errors,
        guessed: false,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Utf32 {
    Le,
    Be,
}

/// UTF-32 in either byte order; a code point out of range, a surrogate or a cut last unit is U+FFFD.
fn utf32(bytes: &[u8], order: Utf32) -> Decoded {
    let mut text = String::with_capacity(bytes.len() / 4);
    let mut had_errors = bytes.len() % 4 != 0;
    for unit in bytes.chunks_exact(4) {
        let array = [unit[0], unit[1], unit[2], unit[3]];
        let value = match order {
            Utf32::Le => u32::from_le_bytes(array),
            Utf32::Be => u32::from_be_bytes(array),
        };
        match char::from_u32(value) {
            Some(c) => text.push(c),
            None => {
                had_errors = true;
                text.push('\u{FFFD}');
            }
        }
    }
    if bytes.len() % 4 != 0 {
        text.push('\u{FFFD}');
    }
    Decoded {
        text,
        encoding: match order {
            Utf32::Le => "UTF-32LE",
            Utf32::Be => "UTF-32BE",
        },
        had_errors,
        guessed: false,
    }
}

/// The text after a byte-order mark, decoded as the mark says.
fn by_bom(bytes: &[u8]) -> Option<Decoded> {
    // UTF-32 LE's mark starts as UTF-16 LE's: it is looked for first.
    if let Some(rest) = bytes.strip_prefix(&[0xFF, 0xFE, 0, 0]) {
        return Some(utf32(rest, Utf32::Le));
    }
    if let Some(rest) = bytes.strip_prefix(&[0, 0, 0xFE, 0xFF]) {
        return Some(utf32(rest, Utf32::Be));
    }
    let (encoding, length) = Encoding::for_bom(bytes)?;
    Some(with(encoding, &bytes[length..]))
}

/// Zeros in each of the four positions of the sample's 4-byte groups.
fn zeros_by_position(sample: &[u8]) -> [usize; 4] {
    let mut zeros = [0; 4];
    for (at, byte) in sample.iter().enumerate() {
        zeros[at % 4] += usize::from(*byte == 0);
    }
    zeros
}

/// UTF-32 or UTF-16 without a mark, by where the zero bytes are; confirmed by decoding cleanly.
fn by_zero_pattern(bytes: &[u8]) -> Option<Decoded> {
    let sample = &bytes[..bytes.len().min(4096)];
    if sample.len() < 8 {
        return None;
    }
    let zeros = zeros_by_position(sample);
    let groups = sample.len() / 4;
    // UTF-32: the top byte of every unit is zero, the next one almost always (below U+10000).
    let utf32_order = if zeros[3] >= groups && zeros[2] * 10 >= groups * 9 && zeros[0] < groups {
        Some(Utf32::Le)
    } else if zeros[0] >= groups && zeros[1] * 10 >= groups * 9 && zeros[3] < groups {
        Some(Utf32::Be)
    } else {
        None
    };
    if let Some(order) = utf32_order {
        let decoded = utf32(bytes, order);
        return (!decoded.had_errors).then_some(decoded);
    }
    // UTF-16: one parity of bytes often zero (the high bytes of Latin text), the other almost never.
    let (even, odd) = (zeros[0] + zeros[2], zeros[1] + zeros[3]);
    let half = sample.len() / 2;
    let encoding = if odd * 3 > half && even * 20 < half {
        UTF_16LE
    } else if even * 3 > half && odd * 20 < half {
        UTF_16BE
    } else {
        return None;
    };
    let decoded = with(encoding, bytes);
    (!decoded.had_errors).then_some(decoded)
}

/// `bytes` decoded as `label` says, when that names an 8-bit or multi-byte encoding (not UTF-16 or
/// UTF-32, which steps 1 and 2 recognise from the bytes) and decodes them without an error.
fn by_declaration(bytes: &[u8], label: &str) -> Option<Decoded> {
    let encoding = Encoding::for_label(label.trim().as_bytes())?;
    if encoding == UTF_16LE || encoding == UTF_16BE || encoding == encoding_rs::REPLACEMENT {
        return None;
    }
    let decoded = with(encoding, bytes);
    (!decoded.had_errors).then_some(decoded)
}

/// Decodes `bytes` from their content alone.
pub fn decode(bytes: &[u8]) -> Decoded {
    decode_declared(bytes, None)
}

/// Decodes `bytes`, with the charset the document declares, if any, in its place (step 4).
pub fn decode_declared(bytes: &[u8], declared: Option<&str>) -> Decoded {
    if let Some(decoded) = by_bom(bytes).or_else(|| by_zero_pattern(bytes)) {
        return decoded;
    }
    let utf8 = std::str::from_utf8(bytes).ok().map(|text| Decoded {
        text: text.to_string(),
        encoding: UTF_8.name(),
        had_errors: false,
        guessed: false,
    });
    // Valid multi-byte UTF-8 first, then the declaration, then ASCII (valid UTF-8 too).
    let utf8 = match utf8 {
        Some(decoded) if !decoded.text.is_ascii() => return decoded,
        ascii_or_not_utf8 => ascii_or_not_utf8,
    };
    if let Some(decoded) = declared.and_then(|label| by_declaration(bytes, label)) {
        return decoded;
    }
    if let Some(decoded) = utf8 {
        return decoded;
    }
    let mut detector = chardetng::EncodingDetector::new();
    detector.feed(bytes, true);
    // The Turkish hint decides between Latin code pages (windows-1254 for Turkish exports); it must
    // not pull Arabic, Cyrillic or CJK text into a Latin code page.
    let unbiased = detector.guess(None, true);
    let latin = [
        "windows-1252",
        "windows-1254",
        "ISO-8859-2",
        "ISO-8859-15",
        "windows-1250",
        "ISO-8859-9",
    ];
    let encoding = if latin.contains(&unbiased.name()) {
        detector.guess(Some(b"tr"), true)
    } else {
        unbiased
    };
    Decoded {
        guessed: true,
        ..with(encoding, bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLES: [&str; 4] = [
        "Adı Soyadı: Şükrü Çağlayan, doğum yeri İstanbul, ğüşıöç.\nFatura no 2024-118.",
        "Invoice 42 for Mrs. Smith, due 2026-12-01; thank you.",
        "Ελληνικά και русский текст, 中文字符 and emoji 🙂 beyond the BMP.",
        "x",
    ];

    fn utf32_bytes(text: &str, order: Utf32) -> Vec<u8> {
        text.chars()
            .flat_map(|c| match order {
                Utf32::Le => (c as u32).to_le_bytes(),
                Utf32::Be => (c as u32).to_be_bytes(),
            })
            .collect()
    }

    fn utf16_bytes(text: &str, little: bool) -> Vec<u8> {
        text.encode_utf16()
            .flat_map(|unit| {
                if little {
                    unit.to_le_bytes()
                } else {
                    unit.to_be_bytes()
                }
            })
            .collect()
    }

    /// Every Unicode form, with its mark, reads back as written.
    #[test]
    fn every_byte_order_mark_is_honoured() {
        for text in SAMPLES {
            let forms: [(&[u8], Vec<u8>, &str); 5] = [
                (&[0xEF, 0xBB, 0xBF], text.as_bytes().to_vec(), "UTF-8"),
                (&[0xFF, 0xFE], utf16_bytes(text, true), "UTF-16LE"),
                (&[0xFE, 0xFF], utf16_bytes(text, false), "UTF-16BE"),
                (
                    &[0xFF, 0xFE, 0, 0],
                    utf32_bytes(text, Utf32::Le),
                    "UTF-32LE",
                ),
                (
                    &[0, 0, 0xFE, 0xFF],
                    utf32_bytes(text, Utf32::Be),
                    "UTF-32BE",
                ),
            ];
            for (bom, body, name) in forms {
                let bytes = [bom, &body].concat();
                let decoded = decode(&bytes);
                assert_eq!((decoded.text.as_str(), decoded.encoding), (text, name));
                assert!(!decoded.had_errors);
            }
        }
    }

    /// Without a mark, UTF-16 and UTF-32 of Latin text are recognised by their zero bytes.
    #[test]
    fn utf16_and_utf32_without_a_mark_are_recognised() {
        for text in &SAMPLES[..2] {
            for (bytes, name) in [
                (utf16_bytes(text, true), "UTF-16LE"),
                (utf16_bytes(text, false), "UTF-16BE"),
                (utf32_bytes(text, Utf32::Le), "UTF-32LE"),
                (utf32_bytes(text, Utf32::Be), "UTF-32BE"),
            ] {
                let decoded = decode(&bytes);
                assert_eq!((decoded.text.as_str(), decoded.encoding), (*text, name));
            }
        }
    }

    #[test]
    fn a_declared_charset_beats_a_guess_but_not_valid_utf8() {
        let text = "Müşteri: Ayşe Yılmaz, İzmir";
        let (latin5, _, _) = encoding_rs::WINDOWS_1254.encode(text);
        assert_eq!(decode(&latin5).text, text, "the Turkish hint");
        assert!(decode(&latin5).guessed);
        let (greek, _, _) = encoding_rs::ISO_8859_7.encode("Ονομα: Νίκος");
        let declared = decode_declared(&greek, Some("iso-8859-7"));
        assert_eq!(
            (declared.text.as_str(), declared.encoding),
            ("Ονομα: Νίκος", "ISO-8859-7")
        );
        assert_eq!(decode_declared(text.as_bytes(), Some("latin1")).text, text);
        assert_eq!(decode_declared(b"plain", Some("utf-16")).encoding, "UTF-8");
    }

    #[test]
    fn binary_data_is_not_taken_for_utf16() {
        let binary: Vec<u8> = (0..4096u32).map(|i| (i * 7919 % 251) as u8).collect();
        assert!(by_zero_pattern(&binary).is_none());
        let mut sparse = vec![0u8; 64];
        sparse[5] = 1;
        assert!(by_zero_pattern(&sparse).is_none(), "all zeros is not text");
    }

    /// Through the engine: every text format reads its text from the same decoder.
    mod through_the_engine {
        use super::*;
        use crate::extractor_pool::extract_document as extract;
        use crate::extractor_pool::Limits;

        const TURKISH: &str = "Sayın Müşteri Ayşe Yılmaz, İzmir şubesi ödeme günü çarşamba";

        fn text_of(bytes: &[u8]) -> String {
            extract(bytes, &Limits::default())
                .expect("extracts")
                .full_text()
                .into_owned()
        }

        #[test]
        fn utf32_files_and_messages_are_read() {
            for order in [Utf32::Le, Utf32::Be] {
                let plain = utf32_bytes(TURKISH, order);
                assert!(text_of(&plain).contains(TURKISH), "{order:?}");
                let message = format!(
                    "From: a@example.com\nTo: b@example.com\nSubject: Ödeme\n\n{TURKISH}\n"
                );
                let bom: &[u8] = match order {
                    Utf32::Le => &[0xFF, 0xFE, 0, 0],
                    Utf32::Be => &[0, 0, 0xFE, 0xFF],
                };
                let bytes = [bom, &utf32_bytes(&message, order)].concat();
                let text = text_of(&bytes);
                assert!(text.contains(TURKISH) && text.contains("Ödeme"), "{text}");
            }
        }

        #[test]
        fn declared_charsets_of_xml_and_html_are_used_when_the_bytes_are_8_bit() {
            let greek = "Ονοματεπώνυμο Νίκος Παπαδόπουλος, οδός Ερμού";
            let xml = format!(
                "<?xml version=\"1.0\" encoding=\"ISO-8859-7\"?>\n<person><name>{greek}</name></person>\n"
            );
            let (bytes, _, _) = encoding_rs::ISO_8859_7.encode(&xml);
            assert!(text_of(&bytes).contains(greek), "{}", text_of(&bytes));
            let html = format!(
                "<html><head><meta charset=\"iso-8859-7\"></head><body><p>{greek}</p></body></html>"
            );
            let (bytes, _, _) = encoding_rs::ISO_8859_7.encode(&html);
            assert!(text_of(&bytes).contains(greek));
        }

        #[test]
        fn an_undeclared_8_bit_part_is_detected_like_a_file() {
            let (latin5, _, _) = encoding_rs::WINDOWS_1254.encode(TURKISH);
            let quoted: String = latin5
                .iter()
                .map(|b| {
                    if b.is_ascii_alphanumeric() || *b == b' ' || *b == b',' {
                        (*b as char).to_string()
                    } else {
                        format!("={b:02X}")
                    }
                })
                .collect();
            // The HTML alternative declares UTF-8; the plain part declares nothing.
            let message = format!(
                "From: a@example.com\nTo: b@example.com\nSubject: test\nMIME-Version: 1.0\n\
                 Content-Type: multipart/alternative; boundary=\"b\"\n\n--b\n\
                 Content-Type: text/plain\nContent-Transfer-Encoding: quoted-printable\n\n{quoted}\n\
                 --b\nContent-Type: text/html; charset=utf-8\n\n<p>{TURKISH}</p>\n--b--\n"
            );
            let text = text_of(message.as_bytes());
            assert!(text.contains(TURKISH), "{text}");
        }
    }
}
