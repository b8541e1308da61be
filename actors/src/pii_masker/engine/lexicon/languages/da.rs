//! Danish.

use super::Language;

pub static LANGUAGE: Language = Language {
    code: "da",
    common: include_str!("../data/common/da.txt"),
    proper: "",
    titles: &["hr", "fru", "frk"],
    articles: &["den", "det", "de", "en", "et", "vores", "denne", "dette"],
    before: &[
        "ifølge",
        "af",
        "med",
        "fra",
        "til",
        "for",
        "hos",
        "underskrevet af",
        "skrevet af",
        "kære",
        "hej",
    ],
    after: &[
        "sagde",
        "siger",
        "skrev",
        "skriver",
        "svarede",
        "forklarede",
        "bekræftede",
        "ringede",
        "har",
        "havde",
        "er",
        "var",
        "vil",
        "som",
    ],
    capitalises_nouns: false,
    names_are_words: false,
};
