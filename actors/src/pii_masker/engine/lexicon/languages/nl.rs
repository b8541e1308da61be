//! Dutch.

use super::Language;

pub static LANGUAGE: Language = Language {
    code: "nl",
    common: include_str!("../data/common/nl.txt"),
    proper: "",
    titles: &["dhr", "mevr", "mw", "meneer", "mevrouw", "heer"],
    articles: &[
        "de", "het", "een", "onze", "ons", "deze", "dit", "die", "dat",
    ],
    before: &[
        "volgens",
        "door",
        "met",
        "van",
        "aan",
        "voor",
        "bij",
        "ondertekend door",
        "geschreven door",
        "beste",
        "geachte",
        "dhr",
        "mevr",
        "mevrouw",
        "meneer",
    ],
    after: &[
        "zei",
        "zegt",
        "schreef",
        "schrijft",
        "antwoordde",
        "verklaarde",
        "legde",
        "bevestigde",
        "belde",
        "heeft",
        "had",
        "is",
        "was",
        "wil",
        "die",
    ],
    capitalises_nouns: false,
    names_are_words: false,
};
