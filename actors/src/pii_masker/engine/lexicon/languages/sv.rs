//! Swedish.

use super::Language;

pub static LANGUAGE: Language = Language {
    code: "sv",
    common: include_str!("../data/common/sv.txt"),
    proper: "",
    titles: &["herr", "fru", "fröken"],
    articles: &[
        "den", "det", "de", "en", "ett", "vår", "vårt", "denna", "detta",
    ],
    before: &[
        "enligt",
        "av",
        "med",
        "från",
        "till",
        "för",
        "hos",
        "undertecknad av",
        "skriven av",
        "hej",
        "kära",
        "bästa",
    ],
    after: &[
        "sa",
        "sade",
        "säger",
        "skrev",
        "skriver",
        "svarade",
        "förklarade",
        "bekräftade",
        "ringde",
        "har",
        "hade",
        "är",
        "var",
        "ska",
        "som",
    ],
    capitalises_nouns: false,
    names_are_words: false,
};
