//! A person's name in text, one rule a file. Each rule is a walk of the [`Scanner`] that starts at a
//! capitalised word ([`capitals`](super::capitals) dispatches to them by what the gazetteers say the
//! word is) or at a phrase found in the whole text ("tarafından"), and records a `PersonName` hit
//! named after the rule (`person_name_<rule>`):
//!
//! | rule | file | what it sees |
//! |---|---|---|
//! | `agent` | [`agent`] | two or three capitalised words before "tarafından" |
//! | `gazetteer`, `given`, `title_after` | [`gazetteer`] | a known given name and what follows it |
//! | `surname`, `surname_first` | [`surname`] | a distinctive or an "O'" surname and the word beside it |
//! | `honorific` | [`honorific`] | the capitalised words after a title, in any case |
//! | `after_noun` | [`noun`] | "our client X", "a customer named X", "signed by X" |
//! | `marked` | [`marked`] | "X adlı müşteri" |
//! | `greeting` | [`greeted`] | "Hi X," |
//! | `signoff` | [`closing`] | the name under a letter's closing line |
//! | `prose` | [`prose`] | a run of capitalised words in a sentence that reads as a name |
//!
//! A name behind a colon label (`Ad Soyad:`, `Name:`) is found with the other labelled values
//! ([`labels`](super::labels)), and a name in a table's name column by [`structure`](super::structure).
//! The walks the rules share are in [`words`].

use super::*;

mod agent;
mod closing;
mod gazetteer;
mod greeted;
mod honorific;
mod marked;
mod noun;
mod prose;
mod surname;
mod words;
