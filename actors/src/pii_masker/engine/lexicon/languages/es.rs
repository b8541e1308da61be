//! Spanish.

use super::Language;

pub static LANGUAGE: Language = Language {
    code: "es",
    common: include_str!("../data/common/es.txt"),
    proper: "",
    titles: &["sr", "sra", "srta", "señor", "señora", "señorita", "doña"],
    articles: &[
        "el", "la", "los", "las", "un", "una", "del", "al", "nuestro", "nuestra", "este", "esta",
    ],
    before: &[
        "según",
        "por",
        "con",
        "de",
        "a",
        "para",
        "firmado por",
        "redactado por",
        "estimado",
        "estimada",
        "querido",
        "querida",
        "don",
        "doña",
    ],
    after: &[
        "dijo",
        "ha dicho",
        "afirmó",
        "escribió",
        "respondió",
        "explicó",
        "confirmó",
        "declaró",
        "llamó",
        "es",
        "era",
        "será",
        "que",
        "ha",
        "no",
    ],
    capitalises_nouns: false,
    names_are_words: false,
};
