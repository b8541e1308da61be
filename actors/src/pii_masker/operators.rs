//! The masking operators of a privacy policy: what a found value becomes in the output, per type.
//!
//! - `placeholder`: the spec's `[MASKED_<TYPE>]` (the default);
//! - `numbered`: `[MASKED_<TYPE>_<n>]`, the same value the same number within one [`Operators`]
//!   (one document: a new `Operators` per document); across datasets, `[MASKED_<TYPE>_#<12 hex>]`,
//!   a keyed hash that a dataset build turns into numbers;
//! - `surrogate`: a realistic fake value of the type that keeps the written layout and passes the
//!   type's check (see `surrogate/`), the same for the same value under the tenant's key; a type
//!   without a surrogate generator yet gets the `hash` token;
//! - `hash`: `[<TYPE>_<12 hex digits>]`, a keyed hash of the value (HMAC-SHA256 under the tenant's key),
//!   the same for the same value in every document of the tenant;
//! - `redact`: the value removed.
//!
//! "The same value" is the value's normal form: a checksummed identifier's compact form, any other
//! value's letters and digits in lower case (so `AYŞE YILMAZ` and `Ayşe Yılmaz` are one person).

use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

use super::engine::checksum::{compact_written, has_checksum};
use super::engine::{PiiType, Replacer};
use super::surrogate::{national_number, surrogate_drawn, SurrogateKey};

/// What a found value of one type becomes in the masked output.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Operator {
    /// `[MASKED_<TYPE>]`.
    #[default]
    Placeholder,
    /// `[MASKED_<TYPE>_<n>]`: the same value the same number within a document.
    Numbered,
    /// A fake value of the type in the same layout, valid by the type's checksum, the same for the same
    /// value in every document of the tenant (types without a generator: the `hash` token).
    Surrogate,
    /// `[<TYPE>_<12 hex digits>]`: a keyed hash, the same for the same value in every document.
    Hash,
    /// Removed.
    Redact,
}

impl Operator {
    pub const ALL: [Operator; 5] = [
        Operator::Placeholder,
        Operator::Numbered,
        Operator::Surrogate,
        Operator::Hash,
        Operator::Redact,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Operator::Placeholder => "placeholder",
            Operator::Numbered => "numbered",
            Operator::Surrogate => "surrogate",
            Operator::Hash => "hash",
            Operator::Redact => "redact",
        }
    }

    pub fn from_name(name: &str) -> Option<Operator> {
        Operator::ALL.into_iter().find(|op| op.name() == name)
    }

    /// Whether the operator derives its output from the tenant's key.
    pub fn keyed(self) -> bool {
        matches!(self, Operator::Surrogate | Operator::Hash)
    }

    /// Whether the operator writes values of `ty` (checksum-valid surrogates, which a scan of the
    /// output finds by design) rather than tokens.
    pub fn writes_values(self, ty: PiiType) -> bool {
        self == Operator::Surrogate && super::surrogate::has_surrogate(ty)
    }
}

/// A pseudonym a keyed operator wrote, and the value (as written) it stands for: what the
/// re-identification vault keeps.
#[derive(Clone, Debug)]
pub struct Pseudonym {
    pub pii_type: PiiType,
    pub value: String,
    pub written: String,
}

/// The pseudonyms one masking wrote, when re-identification is on.
pub type Journal = Arc<Mutex<Vec<Pseudonym>>>;

/// The operators of one masking: one per type, the key of the keyed ones, and the numbers handed out
/// so far. A [`Replacer`] for [`super::Policy::replacer`].
pub struct Operators {
    by_type: Vec<Operator>,
    /// None when no operator is keyed: a keyed one then writes the placeholder.
    key: Option<SurrogateKey>,
    numbers: Mutex<Numbers>,
    /// Where the keyed operators' pseudonyms go, when re-identification is on.
    journal: Option<Journal>,
    /// `numbered` across a dataset: the token names the value by a keyed hash
    /// (`[MASKED_<TYPE>_#<12 hex>]`), numbered when a dataset is built from the output.
    across_datasets: bool,
}

#[derive(Default)]
struct Numbers {
    by_value: rustc_hash::FxHashMap<(PiiType, String), u32>,
    last: rustc_hash::FxHashMap<PiiType, u32>,
}

impl Operators {
    /// `operator(ty)` for each type, keyed by `key` (the tenant's pseudonym key).
    pub fn new(operator: impl Fn(PiiType) -> Operator, key: Option<SurrogateKey>) -> Operators {
        Operators {
            by_type: PiiType::ALL.iter().map(|&ty| operator(ty)).collect(),
            key,
            numbers: Mutex::new(Numbers::default()),
            journal: None,
            across_datasets: false,
        }
    }

    /// The same operators, `numbered` writing the tokens a dataset build numbers across its rows
    /// (with a key; without one, numbers stay per document).
    pub fn numbered_across_datasets(mut self) -> Operators {
        self.across_datasets = self.key.is_some();
        self
    }

    /// The same operators, writing down in `journal` every pseudonym a keyed one makes.
    pub fn with_journal(mut self, journal: Journal) -> Operators {
        self.journal = Some(journal);
        self
    }

    pub fn operator(&self, ty: PiiType) -> Operator {
        self.by_type
            .get(ty as usize)
            .copied()
            .unwrap_or(Operator::Placeholder)
    }

    /// Whether every type keeps its placeholder (no replacer is needed).
    pub fn all_placeholders(&self) -> bool {
        self.by_type.iter().all(|&op| op == Operator::Placeholder)
    }

    fn number(&self, ty: PiiType, normal: String) -> u32 {
        let mut numbers = self
            .numbers
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let Numbers { by_value, last } = &mut *numbers;
        *by_value.entry((ty, normal)).or_insert_with(|| {
            let next = last.entry(ty).or_insert(0);
            *next += 1;
            *next
        })
    }

    /// Twelve hex digits of the keyed hash of a value, one of them a letter (a run of digits could be
    /// read as a number: the scanner takes a token only with a letter in it).
    fn keyed_hex(&self, ty: PiiType, normal: &str, round: u32) -> Option<String> {
        let mac = self
            .key
            .as_ref()?
            .mac(&[b"hash", ty.name().as_bytes(), normal.as_bytes()], round);
        let mut digits = hex::encode(&mac[..6]).into_bytes();
        if !digits.iter().any(u8::is_ascii_lowercase) {
            digits[0] = b'a' + digits[0] % 6;
        }
        String::from_utf8(digits).ok()
    }

    fn token(&self, ty: PiiType, normal: &str, round: u32) -> Option<String> {
        let hex = self.keyed_hex(ty, normal, round)?;
        Some(format!("[{}_{hex}]", ty.name().to_ascii_uppercase()))
    }
}

/// The form two writings of one value share.
pub fn normal_form(ty: PiiType, value: &str) -> String {
    if has_checksum(ty) || ty == PiiType::PhoneTr {
        let compact = compact_written(ty, value);
        return national_number(ty, &compact).to_string();
    }
    fold(value)
}

/// A text's letters and digits in lower case (the Turkish dotted and dotless i as `i`): how a
/// pseudonym is looked up whatever its case and separators.
pub fn fold(value: &str) -> String {
    value
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(|c| match c {
            'ı' | 'İ' | 'I' => vec!['i'],
            other => other.to_lowercase().collect(),
        })
        .collect()
}

impl Replacer for Operators {
    fn replace(&self, ty: PiiType, value: &str, round: u32) -> Option<String> {
        let operator = self.operator(ty);
        let written = self.written(operator, ty, value, round);
        if let (Some(journal), Some(written)) = (&self.journal, &written) {
            if operator.keyed() {
                journal
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .push(Pseudonym {
                        pii_type: ty,
                        value: value.to_string(),
                        written: written.clone(),
                    });
            }
        }
        written
    }

    fn writes_values(&self, ty: PiiType) -> bool {
        self.operator(ty).writes_values(ty)
    }
}

impl Operators {
    /// What `operator` writes for `value`.
    fn written(&self, operator: Operator, ty: PiiType, value: &str, round: u32) -> Option<String> {
        match operator {
            Operator::Placeholder => None,
            Operator::Redact => Some(String::new()),
            Operator::Numbered if self.across_datasets => {
                let hex = self.keyed_hex(ty, &normal_form(ty, value), round)?;
                Some(format!(
                    "[MASKED_{}_#{hex}]",
                    ty.name().to_ascii_uppercase()
                ))
            }
            Operator::Numbered => Some(format!(
                "[MASKED_{}_{}]",
                ty.name().to_ascii_uppercase(),
                self.number(ty, normal_form(ty, value))
            )),
            Operator::Hash => self.token(ty, &normal_form(ty, value), round),
            Operator::Surrogate => self
                .key
                .as_ref()
                .and_then(|key| surrogate_drawn(key, ty, value, round))
                .or_else(|| self.token(ty, &normal_form(ty, value), round)),
        }
    }
}

impl std::fmt::Debug for Operators {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Operators")
            .field("by_type", &self.by_type)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pii_masker::engine::{self, Policy};
    use crate::pii_masker::surrogate::has_surrogate;

    fn policy(operator: Operator, secret: &[u8]) -> Policy {
        Policy {
            replacer: Some(std::sync::Arc::new(Operators::new(
                |_| operator,
                Some(SurrogateKey::new(secret)),
            ))),
            ..Policy::default()
        }
    }

    const LETTER: &str = "Sayın Ayşe Yılmaz,\nTC kimlik no 10000000146 olan müşterimiz \
        ayse.yilmaz@firma.com.tr adresinden yazdı. IBAN: TR33 0006 1005 1978 6457 8413 26.\n\
        Talebi Mehmet Demir onayladı. Ayşe Yılmaz'ın telefonu 0532 123 45 67.\n\
        Tekrar: 10000000146 ve AYSE.YILMAZ@FIRMA.COM.TR";

    #[test]
    fn numbered_gives_one_number_per_value_and_another_to_another_value() {
        let masked = engine::mask(LETTER, &policy(Operator::Numbered, b"k")).expect("masked");
        let text = &masked.text;
        assert!(
            text.contains("[MASKED_NATIONAL_ID_TR_1]")
                && !text.contains("[MASKED_NATIONAL_ID_TR_2]"),
            "{text}"
        );
        assert_eq!(
            text.matches("[MASKED_NATIONAL_ID_TR_1]").count(),
            2,
            "{text}"
        );
        assert_eq!(text.matches("[MASKED_EMAIL_1]").count(), 2, "{text}");
        assert!(text.contains("[MASKED_PERSON_NAME_2]"), "{text}");
        assert!(
            !text.contains("10000000146") && !text.contains("Yılmaz"),
            "{text}"
        );
    }

    #[test]
    fn surrogates_replace_values_in_place_and_the_rescan_passes_them() {
        let masked = engine::mask(LETTER, &policy(Operator::Surrogate, b"k")).expect("masked");
        let text = &masked.text;
        for value in [
            "10000000146",
            "TR33 0006 1005 1978 6457 8413 26",
            "0532 123 45 67",
        ] {
            assert!(!text.contains(value), "{value} left in {text}");
        }
        assert!(!text.to_lowercase().contains("firma.com.tr"), "{text}");
        let written = masked.written.as_ref().expect("replacements");
        for (finding, written) in masked.findings.iter().zip(written) {
            let written = written.as_deref().expect("a replacement");
            assert!(text.contains(written), "{written}");
            if has_surrogate(finding.pii_type) {
                assert!(!written.starts_with('['), "{written}");
                if finding.pii_type == PiiType::Email {
                    // Its domain is one of the reserved ones, whatever the original's.
                    assert!(written.contains("@example."), "{written}");
                    continue;
                }
                let original = &LETTER[finding.start..finding.end];
                assert_eq!(
                    written.chars().filter(|c| !c.is_alphanumeric()).count(),
                    original.chars().filter(|c| !c.is_alphanumeric()).count(),
                    "{original} -> {written}"
                );
            }
        }
        // The same value, the same surrogate, in this text and in another.
        let tckn = surrogate_drawn(
            &SurrogateKey::new(b"k"),
            PiiType::NationalIdTr,
            "10000000146",
            0,
        )
        .expect("a surrogate");
        assert_eq!(text.matches(&tckn).count(), 2, "{text}");
        let other = engine::mask("Kimlik: 10000000146", &policy(Operator::Surrogate, b"k"))
            .expect("masked");
        assert!(other.text.contains(&tckn), "{}", other.text);
    }

    #[test]
    fn hash_tokens_follow_the_key_and_redact_removes() {
        let a = engine::mask(LETTER, &policy(Operator::Hash, b"a")).expect("masked");
        let b = engine::mask(LETTER, &policy(Operator::Hash, b"b")).expect("masked");
        assert!(a.text.contains("[EMAIL_"), "{}", a.text);
        assert_ne!(a.text, b.text);
        let again = engine::mask(LETTER, &policy(Operator::Hash, b"a")).expect("masked");
        assert_eq!(a.text, again.text);
        let redacted = engine::mask(LETTER, &policy(Operator::Redact, b"a")).expect("masked");
        assert!(!redacted.text.contains("[MASKED"), "{}", redacted.text);
        assert!(!redacted.text.contains("10000000146"), "{}", redacted.text);
        assert!(redacted.text.len() < LETTER.len());
    }

    /// A surrogate that happens to be a real value elsewhere in the text is drawn again, and that real
    /// value is masked in its own place all the same.
    #[test]
    fn a_surrogate_that_collides_with_a_real_value_is_redrawn_and_the_real_value_still_masked() {
        let key = SurrogateKey::new(b"collide");
        let first = "10000000146";
        let collision =
            surrogate_drawn(&key, PiiType::NationalIdTr, first, 0).expect("a surrogate");
        let text = format!("TC kimlik no {first}. Diğer TC kimlik no {collision}.");
        let masked = engine::mask(&text, &policy(Operator::Surrogate, b"collide")).expect("masked");
        assert!(!masked.text.contains(first), "{}", masked.text);
        assert!(!masked.text.contains(&collision), "{}", masked.text);
        assert_eq!(masked.findings.len(), 2);
    }

    /// Values that the re-scan finds outside the engine's own replacements still refuse or get
    /// masked: a surrogate is exempt only at the place the engine wrote it.
    #[test]
    fn the_rescan_exempts_only_the_places_it_wrote() {
        // A value glued to a surrogate's edge: the straddling hit demotes that surrogate to its
        // placeholder, and nothing of the value is left.
        let text = "IBAN TR33 0006 1005 1978 6457 8413 26 e-posta ayse@firma.com.tr";
        let masked = engine::mask(text, &policy(Operator::Surrogate, b"k")).expect("masked");
        assert!(
            !masked.text.contains("ayse@firma.com.tr"),
            "{}",
            masked.text
        );
        assert!(!masked.text.contains("TR33 0006"), "{}", masked.text);
    }

    /// Over generated business text full of personal data: with every operator, a masking is as
    /// deterministic as its key, a replacement is never one of the text's own values, and another key
    /// gives other keyed replacements.
    #[test]
    fn replacements_are_deterministic_per_key_and_never_a_value_of_the_input() {
        use crate::pii_masker::engine::synthetic;
        let fold = |value: &str| normal_form(PiiType::PersonName, value);
        for seed in 0..4 {
            let text = synthetic::text(40_000, true, 650 + seed);
            for operator in Operator::ALL {
                let masked = engine::mask(&text, &policy(operator, b"one")).expect("masked");
                let again = engine::mask(&text, &policy(operator, b"one")).expect("masked");
                assert_eq!(masked.text, again.text, "{operator:?}");
                let originals: std::collections::HashSet<String> = masked
                    .findings
                    .iter()
                    .map(|f| fold(&text[f.start..f.end]))
                    .collect();
                let written = masked.written.clone().unwrap_or_default();
                for written in written.iter().flatten().filter(|w| !w.is_empty()) {
                    assert!(
                        !originals.contains(&fold(written)),
                        "{operator:?}: {written}"
                    );
                }
                // Tokens are mask tokens: a detector reads nothing in them (what a later scan of the
                // output, the fine-tune file's, relies on); a surrogate is a value by design.
                if operator != Operator::Surrogate {
                    let found = engine::detect(&masked.text, &Policy::default());
                    assert!(found.is_empty(), "{operator:?}: {found:?}");
                }
                if operator.keyed() {
                    let other = engine::mask(&text, &policy(operator, b"two")).expect("masked");
                    assert_ne!(masked.text, other.text, "{operator:?}");
                }
            }
        }
    }

    #[test]
    fn normal_forms_join_writings_of_one_value() {
        assert_eq!(
            normal_form(PiiType::PersonName, "AYŞE YILMAZ"),
            normal_form(PiiType::PersonName, "Ayşe Yılmaz")
        );
        assert_eq!(
            normal_form(PiiType::IbanTr, "tr33 0006 1005 1978 6457 8413 26"),
            normal_form(PiiType::IbanTr, "TR330006100519786457841326")
        );
        assert_eq!(Operator::from_name("hash"), Some(Operator::Hash));
        assert_eq!(Operator::from_name("other"), None);
    }
}
