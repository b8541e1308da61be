use super::*;

/// A word folded on the stack is the word folded into a vector, for every letter the fold knows
/// and the bytes around them.
#[test]
fn a_word_folded_on_the_stack_matches_the_vector_fold() {
    let words = [
        "İSTANBUL",
        "Şahin",
        "ÇAĞLAR",
        "Öztürk",
        "Müller",
        "Straße",
        "Éloïse",
        "i\u{307}lk",
        "a\u{a0}b",
        "a\u{202f}b",
        "Ωmega",
        "Kadıköy",
        "ABC",
        "",
        "ÀÁÂÄ",
        "日本",
    ];
    for word in words {
        let mut vector = Vec::new();
        fold_into(word.as_bytes(), &mut vector);
        let mut stack = [0u8; 40];
        let n = fold_word(word.as_bytes(), &mut stack);
        assert_eq!(&stack[..n], vector.as_slice(), "{word}");
    }
    for byte in 0..=255u8 {
        let word = [b'A', byte, 0xB0, b'z'];
        let mut vector = Vec::new();
        fold_into(&word, &mut vector);
        let mut stack = [0u8; 40];
        let n = fold_word(&word, &mut stack);
        assert_eq!(&stack[..n], vector.as_slice(), "{byte}");
    }
    // `fold_short` on both sides of the stack's 40 bytes, a character across the edge included.
    for length in 36..=44 {
        for filler in ["a", "İ", "ş", "\u{202f}"] {
            let mut word = "Ç".repeat(length / 2);
            while word.len() < length {
                word.push_str(filler);
            }
            let mut vector = Vec::new();
            fold_into(word.as_bytes(), &mut vector);
            let (mut stack, mut spill) = ([0u8; 40], Vec::new());
            assert_eq!(
                fold_short(word.as_bytes(), &mut stack, &mut spill),
                vector.as_slice(),
                "{word}"
            );
        }
    }
}

/// Every byte value, at every offset of a chunk, against the one-byte-at-a-time definition; and the
/// skipping a caller asks for.
#[test]
fn word_starts_a_block_at_a_time_agree_with_the_byte_loop() {
    let reference = |b: &[u8], from: usize, to: usize, skip: usize| {
        let mut starts = Vec::new();
        let mut wanted = from;
        for at in from..to.min(b.len()) {
            let before = at > 0 && is_word_byte(b[at - 1]);
            if is_word_byte(b[at]) && !before && at >= wanted {
                starts.push(at);
                wanted = at + skip;
            }
        }
        starts
    };
    let mut texts: Vec<Vec<u8>> = (0..=255u8)
        .map(|byte| {
            let mut text = b"ab cd-12 x".to_vec();
            text.insert(usize::from(byte) % 9, byte);
            text.extend([byte, b' ', byte, byte, b'.', b'Z']);
            text
        })
        .collect();
    texts.push("Şirket: Ayşe Yılmaz, T.C. 10000000146; e-posta a_b@c.com\n\n[MASKED_IBAN]".into());
    // Texts longer than a block: every byte value in every position of one, and business text.
    let every_byte: Vec<u8> = (0..=255u8).chain((0..=255u8).rev()).collect();
    texts.push([every_byte.as_slice(), b" x", &every_byte[3..]].concat());
    texts.push(super::super::synthetic::text(700, true, 9).into_bytes());
    for text in &texts {
        for from in (0..text.len().min(11)).chain((11..text.len()).step_by(29)) {
            for to in [text.len(), text.len().saturating_sub(3), from + 9] {
                for skip in [1, 2, 7] {
                    let mut starts = Vec::new();
                    let mut wanted = from;
                    for at in word_starts(text, from, to) {
                        if at >= wanted {
                            starts.push(at);
                            wanted = at + skip;
                        }
                    }
                    assert_eq!(
                        starts,
                        reference(text, from, to, skip),
                        "{text:?} {from}..{to}"
                    );
                }
                // Without the words that start with a digit: the same starts, those left out.
                let but_digits: Vec<usize> = word_starts_but_digits(text, from, to).collect();
                let mut expected = reference(text, from, to, 1);
                expected.retain(|&at| !text[at].is_ascii_digit());
                assert_eq!(but_digits, expected, "{text:?} {from}..{to}");
            }
        }
    }
}

#[test]
fn turkish_folding_unifies_dotted_and_dotless_i() {
    assert_eq!(
        fold("İSTANBUL Kimliği IBAN'ı ılık"),
        b"istanbul kimligi iban'i ilik".to_vec()
    );
    assert_eq!(fold(&"İ".to_lowercase()), b"i".to_vec());
    assert_eq!(fold("ŞÇĞÜÖ şçğüö"), b"scguo scguo".to_vec());
}

/// Folding a run of ASCII at once changes nothing: every pair of bytes, between ASCII letters and
/// punctuation, folds as the concatenation of its parts folded one by one (no fold joins a byte to
/// an ASCII neighbour), and into what was already in the buffer.
#[test]
fn folding_runs_of_ascii_at_once_agrees_with_folding_piece_by_piece() {
    let piecewise = |parts: &[&[u8]]| {
        let mut out = b"kept ".to_vec();
        for part in parts {
            fold_into(part, &mut out);
        }
        out
    };
    for c in 0x80..=0xFFu8 {
        for d in 0..=0xFFu8 {
            let pair = [c, d];
            // A non-ASCII lead byte and what follows it fold together; the ASCII around them alone.
            let whole: Vec<u8> =
                [b"Ab-Z" as &[u8], &pair, b"Qz.9", &[0xE2, 0x80, 0xAF], b"X"].concat();
            let mut out = b"kept ".to_vec();
            fold_into(&whole, &mut out);
            assert_eq!(
                out,
                piecewise(&[b"Ab-Z", &pair, b"Qz.9", &[0xE2, 0x80, 0xAF], b"X"]),
                "{c:#x} {d:#x}"
            );
        }
    }
    assert_eq!(piecewise(&[b"AbC-Z\t09@["]), b"kept abc-z\t09@[".to_vec());
}

#[test]
fn digits_and_separators() {
    assert_eq!(digit_at("５".as_bytes(), 0), Some((b'5', 3)));
    assert_eq!(separator_at("\u{a0}".as_bytes(), 0), 2);
    assert_eq!(separator_at("\u{2013}".as_bytes(), 0), 3);
    assert_eq!(separator_at("\u{2212}".as_bytes(), 0), 3);
    assert_eq!(separator_at(b"x", 0), 0);
}

/// `separator_at` takes exactly the documented separators: each character of U+0000..U+FFFF
/// followed by a digit, and each truncated prefix of a multi-byte one.
#[test]
fn separators_are_exactly_the_documented_characters() {
    let expected = |c: char| match c {
        ' ' | '.' | '-' | '/' | '(' | ')' => c.len_utf8(),
        '\u{a0}' | '\u{2009}' | '\u{202f}' | '\u{2010}'..='\u{2015}' | '\u{2212}' => c.len_utf8(),
        _ => 0,
    };
    for c in (0..=0xFFFFu32).filter_map(char::from_u32) {
        let mut bytes = c.to_string().into_bytes();
        bytes.push(b'7');
        assert_eq!(separator_at(&bytes, 0), expected(c), "{c:?}");
        for cut in 1..c.len_utf8() {
            assert_eq!(separator_at(&bytes[..cut], 0), 0, "{c:?} cut at {cut}");
        }
    }
}

/// Keys in every case a data file writes them in come apart into the words of a label.
#[test]
fn key_words_part_every_case() {
    let mut out = Vec::new();
    for (key, words, parted) in [
        (
            "customer.person.first_name",
            "customer person first name",
            true,
        ),
        ("firstName", "first name", true),
        ("date-of-birth", "date of birth", true),
        ("DOGUM_TARIHI", "dogum tarihi", true),
        ("TCKimlikNo", "tc kimlik no", true),
        ("doğumTarihi", "dogum tarihi", true),
        ("AdıSoyadı", "adi soyadi", true),
        ("address2Line", "address 2 line", true),
        ("IBAN", "iban", false),
        ("Soyadı", "soyadi", false),
        ("__name__", "name", true),
    ] {
        assert_eq!(key_words(key.as_bytes(), &mut out), parted, "{key}");
        assert_eq!(String::from_utf8_lossy(&out), words, "{key}");
    }
}
