//! Turkish.

use super::Language;

pub static LANGUAGE: Language = Language {
    code: "tr",
    common: include_str!("../data/common/tr.txt"),
    proper: include_str!("../data/proper/tr.txt"),
    titles: &["sayın", "bay", "bayan"],
    articles: &["bu", "şu", "o", "bir"],
    before: &[
        "sayın", "ile", "göre", "bay", "bayan", "sevgili", "değerli", "merhaba",
    ],
    after: &[
        "tarafından",
        "ile",
        "bey",
        "hanım",
        "dedi",
        "yazdı",
        "aradı",
        "imzaladı",
        "açıkladı",
        "belirtti",
        "söyledi",
        "adlı",
        "isimli",
    ],
    capitalises_nouns: false,
    names_are_words: true,
};
