//! Greek.

use super::Language;

pub static LANGUAGE: Language = Language {
    code: "el",
    common: include_str!("../data/common/el.txt"),
    proper: "",
    titles: &[],
    articles: &[
        "ο", "η", "το", "οι", "τα", "τον", "την", "του", "της", "ένας", "μια", "ένα",
    ],
    before: &["σύμφωνα", "από", "με", "για", "κύριος", "κυρία", "κ"],
    after: &[
        "είπε",
        "έγραψε",
        "απάντησε",
        "εξήγησε",
        "επιβεβαίωσε",
        "είναι",
        "ήταν",
        "που",
    ],
    capitalises_nouns: false,
    names_are_words: false,
};
