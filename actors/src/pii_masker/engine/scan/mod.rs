//! The single pass: one walk over the bytes stops only at digits, capitals, '@', ':' and a few openers,
//! builds a candidate from the surrounding token or grouped number, and hands it to the validators
//! that accept its shape. No per-type pass; context is looked up lazily, only for candidates that
//! need it.

use super::context::KeywordIndex;
use super::lexicon::{self, Word};
use super::text::{self, digit_at, letter_at, separator_at, upper_at, CLASS};
use super::types::{PiiType, TypeSet};
use crate::pii_masker::detectors::{eu, generic, luhn, phone, tr, us, vat, Check};

mod address;
mod candidates;
mod capitals;
mod dates;
mod email;
mod evaluate;
mod fields;
mod labels;
mod lengths;
mod lookup;
mod person;
mod phones;
mod shapes;
mod structure;

use candidates::Chain;
use dates::is_date;
use evaluate::{Span, NO_CONTEXT_DIGIT_LENGTHS};
use fields::{quoted_key_before, Fields, FIELD_END, FIELD_ENDS, FIELD_END_AMP};
use labels::{before_label, ends_label_window, lower_case_name_cell};
use shapes::{
    bracketed, capitalised_before, decimal, end_before_crs, extension_at, extension_end,
    id_card_shape, key_shaped_before, letters_start, mask_token_end, network_address_at,
    particles_end, prefix_length_end, run_end, sep_kind, skip_spaces_back, trim_cr, unmatched_open,
    unquoted_name, whole_word_id_at, MASK_TOKEN_MAX, SEP_DASH, SEP_DOT, SEP_PAREN, SEP_SLASH,
    SEP_SPACE,
};

/// A validated candidate, before overlap resolution.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hit {
    pub start: usize,
    pub end: usize,
    pub ty: PiiType,
    pub confidence: f32,
    pub detector: &'static str,
    /// The tie-break when two hits claim the same span (lower wins): the type's priority, except among
    /// the hits of one span that rest on no checksum, which take their priorities in the order of their
    /// nearest keywords (see [`Scanner::rank_by_nearest_keyword`]).
    pub priority: u8,
    /// Set on the hits of a whole grouped number whose shorter spans were not evaluated (they lose to
    /// it): where its token starts, so that the spans can be evaluated after all, should another hit
    /// beat this one in overlap resolution (see `engine::resolved`).
    /// (A `u32`: a table's millions of hits are 48 bytes each rather than 56.)
    pub shortcut: Option<u32>,
}

// A long table holds millions of hits, twice over while they are resolved: keep them small.
const _: () = assert!(std::mem::size_of::<Hit>() <= 48);

const A: f32 = 0.95;

const A_MINUS: f32 = 0.85;

const B_FORM: f32 = 0.8;

const B_CONTEXT: f32 = 0.75;

const C_LABEL: f32 = 0.7;

const D_LABEL: f32 = 0.6;

const D_GAZETTEER: f32 = 0.5;

/// A known given name before a word no gazetteer knows, taken for its surname.
const D_GIVEN: f32 = 0.4;

/// The least confidence of a value validated by a checksum or a distinctive form, rather than by a
/// keyword or a label alone.
pub const VALIDATED: f32 = B_FORM;

/// Privacy fails closed, and this is the one place that says how: a value whose type's checksum holds
/// (mod 97, Luhn, the TCKN and VKN sums, the catalogue's other check digits) is found, whatever else
/// about it is odd. What the catalogue adds to the checksum (an IBAN's length in its country, the
/// Turkish reserve digit, a card issuer's range, a date inside an id, a repetition rule) only lowers
/// its confidence by one step from `confidence`, the type's own; it never leaves the value in clear.
/// Whether a type needs a keyword or a distinctive form before its checksum is trusted (the catalogue's
/// tiers B and C) is the caller's, and stays as the catalogue says.
fn failing_closed(check: Check, confidence: f32) -> Option<f32> {
    match check {
        Check::Valid => Some(confidence),
        Check::ChecksumOnly => Some(if confidence >= A {
            A_MINUS
        } else if confidence >= A_MINUS {
            B_FORM
        } else {
            B_CONTEXT
        }),
        Check::Fails => None,
    }
}

const MAX_GROUPS: usize = 12;

/// The most groups a value is written in (an IBAN of 34 characters in fours).
const MAX_VALUE_GROUPS: usize = 9;

/// The most normalised characters of one chain: 40 per group.
const NORM_MAX: usize = MAX_GROUPS * 40;

#[derive(Clone, Copy, Default, Debug)]
struct Group {
    start: usize,
    end: usize,
    norm_start: usize,
    norm_end: usize,
    digits: usize,
    letters: usize,
    /// Separator kinds between the previous group and this one.
    sep: u8,
}

impl Group {
    fn len(&self) -> usize {
        self.norm_end - self.norm_start
    }
}

pub struct Scanner<'t> {
    text: &'t str,
    b: &'t [u8],
    pub hits: Vec<Hit>,
    /// The keywords of the text and the window around a candidate in which they count.
    near: Near<'t>,
    scratch: Vec<u8>,
    /// The grouped number being judged (filled by `read_chain`).
    chain: Chain,
    /// The types and the least confidence of the findings the policy keeps: a checksummed value of such
    /// a type makes the spans inside it moot.
    keep: (TypeSet, f32),
    /// Set by [`Scanner::skipping_nothing`].
    exhaustive: bool,
    /// The end of the last address found, unless its limit cut it: the scan goes on inside an address
    /// (for the values it holds), but its street words start no address of their own (one would end
    /// where it ends).
    address_reach: usize,
    /// The context that keys and columns give their values.
    fields: Fields,
    /// The last language guessed, for the stretch it was guessed for (see [`Scanner::language_at`]).
    language: (usize, Option<&'static lexicon::Language>),
    /// The words of the text that tell its language, read once.
    tellings: lexicon::Tellings,
}

/// The keywords of the text and the window around a candidate in which they count.
struct Near<'t> {
    keywords: KeywordIndex<'t>,
    /// Where the last look-ups before and after a candidate started in `keywords`.
    cursors: (usize, usize, usize),
    /// Bytes before and after a candidate.
    before: usize,
    after: usize,
}

impl<'t> Scanner<'t> {
    pub fn new(text: &'t str, window_before: usize, window_after: usize) -> Scanner<'t> {
        Scanner {
            text,
            b: text.as_bytes(),
            hits: Vec::new(),
            near: Near {
                keywords: KeywordIndex::new(text.as_bytes()),
                cursors: (0, 0, 0),
                before: window_before,
                after: window_after,
            },
            scratch: Vec::with_capacity(256),
            chain: Chain::default(),
            keep: (TypeSet::all(), 0.0),
            exhaustive: false,
            address_reach: 0,
            fields: Fields::default(),
            language: (usize::MAX, None),
            tellings: lexicon::Tellings::default(),
        }
    }

    /// The hits of the tokens starting at `positions` alone (for the tokens whose shorter spans were
    /// skipped, with a scanner that keeps nothing, so that it skips none).
    pub fn tokens(mut self, positions: &[usize]) -> Vec<Hit> {
        // The columns' context, as the scan had it (the tables' own hits are the scan's already).
        self.tables();
        self.delimited_tables();
        self.sql_rows();
        self.json_rows();
        self.hits.clear();
        for &at in positions {
            if at < self.b.len() {
                self.token(at);
            }
        }
        self.hits
    }

    /// Tells the scanner which findings the policy keeps (by default all of them).
    pub fn keeping(mut self, types: TypeSet, min_confidence: f32) -> Scanner<'t> {
        self.keep = (types, min_confidence);
        self
    }

    /// A scanner that takes no shortcut: it keeps no type (so it evaluates every span of a validated
    /// number) and looks up every colon's label in full. The reference the shortcuts are tested
    /// against, and the second round for the numbers whose skipped spans turned out to matter.
    pub fn skipping_nothing(mut self) -> Scanner<'t> {
        self.keep = (TypeSet::default(), 0.0);
        self.exhaustive = true;
        self
    }

    /// A hit on the whole of a span of a grouped number.
    fn hit_span(&mut self, span: &Span<'_>, ty: PiiType, confidence: f32, detector: &'static str) {
        self.hit(span.start, span.end, ty, confidence, detector);
    }

    fn hit(
        &mut self,
        start: usize,
        end: usize,
        ty: PiiType,
        confidence: f32,
        detector: &'static str,
    ) {
        if confidence == C_LABEL && !self.own_label(ty, start) {
            return;
        }
        // A run of `X` is what a writer that must keep a text's length leaves where it masked a
        // value (the legacy Office writers): the engine's own writing, under a name's label or
        // column as anywhere, not anyone's data.
        let span = self.b.get(start..end).unwrap_or_default();
        if span.len() >= 2 && span.iter().all(|&c| matches!(c, b'X' | b' ')) {
            return;
        }
        let mut end = end;
        if matches!(ty, PiiType::PhoneTr | PiiType::PhoneIntl) {
            end = extension_end(self.b, end);
        }
        self.hits.push(Hit {
            start,
            end,
            ty,
            confidence,
            detector,
            priority: ty.priority(),
            shortcut: None,
        });
    }

    /// Runs the pass over the whole text. Inlined into its callers: out of line (it is called by
    /// `url_encoded_value` too), its loop cost the benchmark 0.1 %.
    #[inline(always)]
    pub fn run(mut self) -> Vec<Hit> {
        self.tables();
        self.delimited_tables();
        self.sql_rows();
        self.json_rows();
        self.agents();
        let b = self.b;
        let n = b.len();
        let mut i = 0;
        while i < n {
            // The hot loop: skip bytes that cannot start anything.
            while i < n && CLASS[b[i] as usize] == 0 {
                i += 1;
            }
            if i >= n {
                break;
            }
            let class = CLASS[b[i] as usize];
            let next = match class {
                text::DIGIT => self.token(i),
                text::UPPER => self.word(i),
                text::AT => self.email(i),
                text::COLON => self.colon(i),
                text::LEAD => {
                    if digit_at(b, i).is_some() {
                        self.token(i)
                    } else if text::latin_upper_at(b, i) > 0 {
                        self.word(i)
                    } else {
                        i + 1
                    }
                }
                _ => match b[i] {
                    b'[' => mask_token_end(b, i)
                        .or_else(|| self.obfuscated_email(i))
                        .unwrap_or(i + 1),
                    b'+' | b'(' if digit_at(b, i + 1).is_some() && !text::word_before(b, i) => {
                        self.token(i)
                    }
                    // "+(371) 90606560": the country code in brackets after the plus.
                    b'+' if b.get(i + 1) == Some(&b'(')
                        && digit_at(b, i + 2).is_some()
                        && !text::word_before(b, i) =>
                    {
                        self.token(i)
                    }
                    b'(' if b.get(i + 1) == Some(&b'+') => i + 1,
                    b'(' => self.obfuscated_email(i).unwrap_or(i + 1),
                    b'=' => self.equals(i),
                    _ => i + 1,
                },
            };
            i = next.max(i + 1);
        }
        self.hits
    }
}

/// The types whose findings no keyword changes (a checksum or a distinctive form finds them, and no
/// validator asks for their context): `national_id_tr`, `iban_tr`, `iban`, `email`.
const CONTEXT_FREE: u64 = PiiType::NationalIdTr.bit()
    | PiiType::IbanTr.bit()
    | PiiType::Iban.bit()
    | PiiType::Email.bit();

/// `phone_tr` and `phone_intl`.
const PHONES: u64 = PiiType::PhoneTr.bit() | PiiType::PhoneIntl.bit();
