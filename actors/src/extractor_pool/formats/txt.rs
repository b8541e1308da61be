//! Plain text: decoding to UTF-8. BOM first (UTF-8, UTF-16), then strict UTF-8, then `chardetng`
//! with the Turkish hint (ambiguous 8-bit text is usually windows-1254 in our documents).

use encoding_rs::{Encoding, UTF_16BE, UTF_16LE, UTF_8};

/// Decoded text and the encoding it was read as.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoded {
    pub text: String,
    pub encoding: &'static str,
    /// Bytes that could not be decoded and were replaced by U+FFFD.
    pub had_errors: bool,
}

fn with(encoding: &'static Encoding, bytes: &[u8]) -> Decoded {
    let (text, used, had_errors) = encoding.decode(bytes);
    Decoded {
        text: text.into_owned(),
        encoding: used.name(),
        had_errors,
    }
}

pub fn decode(bytes: &[u8]) -> Decoded {
    if let Some((encoding, _)) = Encoding::for_bom(bytes) {
        return with(encoding, bytes);
    }
    if let Ok(text) = std::str::from_utf8(bytes) {
        return Decoded {
            text: text.to_string(),
            encoding: UTF_8.name(),
            had_errors: false,
        };
    }
    // UTF-16 without a BOM: many zero bytes in alternating positions.
    let sample = &bytes[..bytes.len().min(4096)];
    let zeros_even = sample.iter().step_by(2).filter(|&&b| b == 0).count();
    let zeros_odd = sample
        .iter()
        .skip(1)
        .step_by(2)
        .filter(|&&b| b == 0)
        .count();
    if sample.len() >= 8 && zeros_odd * 3 > sample.len() / 2 {
        return with(UTF_16LE, bytes);
    }
    if sample.len() >= 8 && zeros_even * 3 > sample.len() / 2 {
        return with(UTF_16BE, bytes);
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
    with(encoding, bytes)
}

/// Plain text: one paragraph element per block separated by blank lines.
pub fn extract(text: &str, builder: &mut super::super::model::Builder) {
    use super::super::model::{Element, ElementKind};
    for block in text.split("\n\n").flat_map(|b| b.split("\r\n\r\n")) {
        builder.push(Element::new(ElementKind::Paragraph, block));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_boms_utf8_and_turkish_code_page() {
        assert_eq!(decode("şık".as_bytes()).text, "şık");
        let utf16: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain("İz".encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        assert_eq!(decode(&utf16).text, "İz");
        let (cp1254, _, _) = encoding_rs::WINDOWS_1254
            .encode("Adı Soyadı: Şükrü Çağlayan, doğum yeri İstanbul, ğüşıöç");
        let decoded = decode(&cp1254);
        assert_eq!(
            decoded.text,
            "Adı Soyadı: Şükrü Çağlayan, doğum yeri İstanbul, ğüşıöç"
        );
        assert_eq!(decoded.encoding, "windows-1254");
    }
}
