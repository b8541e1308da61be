//! Words of addresses: street words in any case, the parts of an address behind its label, and the
//! field labels that end one.

use super::*;

/// Whether a folded word is a German or Dutch street name written as one word, by its ending:
/// "Hauptstraße", "Bahnhofstr", "Lindenallee", "Damstraat", "Keizersgracht" (at least three letters
/// before the ending).
pub fn street_compound(folded: &[u8]) -> bool {
    let endings: &[&[u8]] = match folded.last() {
        // "strase": "straße" folded (ß folds to one s).
        Some(b'e') => &[b"strasse", b"strase", b"gasse", b"allee", b"kade"],
        Some(b'r') => &[b"str", b"ufer"],
        Some(b'g') => &[b"weg"],
        Some(b't') => &[b"straat", b"gracht"],
        Some(b'n') => &[b"laan", b"plein"],
        Some(b'm') => &[b"damm"],
        _ => return false,
    };
    endings
        .iter()
        .any(|ending| folded.len() >= ending.len() + 3 && folded.ends_with(ending))
}

/// Street words written in lower case after the house number ("12 rue de la Paix", "10 via Roma").
const LOWER_CASE_STREETS: &[&[u8]] = &[
    b"rue",
    b"avenue",
    b"boulevard",
    b"bd",
    b"chemin",
    b"impasse",
    b"place",
    b"quai",
    b"cours",
    b"route",
    b"via",
    b"viale",
    b"piazza",
    b"corso",
    b"calle",
    b"avenida",
    b"paseo",
    b"rua",
];

/// Whether `word` is one of [`LOWER_CASE_STREETS`].
pub fn lower_case_street(word: &[u8]) -> bool {
    LOWER_CASE_STREETS.contains(&word)
}

/// The first bytes of [`LOWER_CASE_STREETS`], derived from it: most words after a number are turned
/// away by their first byte.
pub static LOWER_CASE_STREET_INITIAL: [bool; 256] = {
    let mut table = [false; 256];
    let mut i = 0;
    while i < LOWER_CASE_STREETS.len() {
        table[LOWER_CASE_STREETS[i][0] as usize] = true;
        i += 1;
    }
    table
};

/// Lower-case words allowed inside an address after the street word ("No: 5 Kat: 2 Daire: 4").
pub const ADDRESS_WORDS: &[&[u8]] = &[
    b"no", b"kat", b"daire", b"d", b"k", b"apt", b"blok", b"ic", b"kapi", b"posta", b"kodu", b"pk",
    b"floor", b"suite", b"unit", b"apt.", b"nr", b"numara",
];

/// Whether a folded word, before a colon inside an address, labels a part of that address ("No:",
/// "D:3", "Kat:", "Posta Kodu:", "Mahalle:", "City:") rather than another field: one of the
/// [`ADDRESS_WORDS`], a street word, or one of the address's other fields.
pub fn address_part_word(folded: &[u8]) -> bool {
    const FIELDS: &[&[u8]] = &[
        b"il",
        b"ilce",
        b"sehir",
        b"semt",
        b"koy",
        b"bina",
        b"city",
        b"town",
        b"zip",
        b"code",
        b"postcode",
        b"postal",
        b"post",
        b"state",
        b"country",
        b"ulke",
        b"plz",
        b"ort",
        b"building",
        b"house",
        b"flat",
        b"dis",
        b"apartman",
        b"apartmani",
        b"bl",
    ];
    let word = folded.strip_suffix(b".").unwrap_or(folded);
    ADDRESS_WORDS.contains(&word)
        || FIELDS.contains(&word)
        || lookup(word) == Some(Word::Street)
        || street_compound(word)
}

/// Folded words that label a business document's own fields and never a part of an address: one of
/// them right before a colon ("Kadıköy Sipariş:", "Kadıköy Tarih:"), or before a "No:" ("Kadıköy
/// Fatura No:"), ends an address behind its label there.
pub const FIELD_LABEL_WORDS: &[&[u8]] = &[
    b"siparis",
    b"fatura",
    b"tarih",
    b"tarihi",
    b"tutar",
    b"tutari",
    b"toplam",
    b"vade",
    b"konu",
    b"aciklama",
    b"not",
    b"dosya",
    b"musteri",
    b"sozlesme",
    b"police",
    b"order",
    b"invoice",
    b"date",
    b"total",
    b"amount",
    b"subject",
    b"description",
    b"note",
    b"customer",
    b"contract",
    b"reference",
    b"referans",
];

/// Whether a folded word is one of the [`FIELD_LABEL_WORDS`].
pub fn field_label_word(folded: &[u8]) -> bool {
    FIELD_LABEL_WORDS.contains(&folded)
}

/// Whether a folded word is a number's abbreviation or word ("No", "Nr.", "Numarası"), which labels
/// an address's house number and other fields' numbers alike.
pub fn number_word(folded: &[u8]) -> bool {
    let word = folded.strip_suffix(b".").unwrap_or(folded);
    matches!(word, b"no" | b"nr" | b"numara" | b"numarasi")
}

/// Particles inside a street's name ("rue de la Paix", "via della Spiga"): part of the address only
/// when a name follows them.
pub const ADDRESS_PARTICLES: &[&[u8]] = &[
    b"de", b"la", b"des", b"du", b"le", b"les", b"del", b"di", b"della", b"do", b"dos",
];
