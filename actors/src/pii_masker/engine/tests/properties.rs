//! Properties over generated values (`engine::planted`): every value of every generated type, in every
//! layout the catalogue claims, is masked with its type in a neutral sentence (where its type needs no
//! label) and behind each of its labels (Turkish, English, its own language); with one digit changed so
//! that its checksum fails, it is not masked as that type. And the figures on the generated
//! multilingual corpus.

use proptest::prelude::*;

use super::*;
use crate::pii_masker::engine::planted::{self, corpus};
use crate::pii_masker::engine::synthetic::Rng;

/// Neutral frames: no keyword of any type in them.
const NEUTRAL: [(&str, &str); 4] = [
    ("Kayıt ", " ile güncellendi."),
    ("Reference ", " was stored yesterday."),
    ("Eintrag ", " wurde gespeichert."),
    ("", "\n"),
];

/// Whether the findings of `text` cover `start..end` byte by byte, by findings of `ty` when given.
fn covered(findings: &[Finding], start: usize, end: usize, ty: Option<PiiType>) -> bool {
    (start..end).all(|at| {
        findings
            .iter()
            .any(|f| f.start <= at && at < f.end && ty.is_none_or(|ty| f.pii_type == ty))
    })
}

/// The types found over `start..end`, for a failure's message.
fn found_over(findings: &[Finding], start: usize, end: usize) -> Vec<&'static str> {
    findings
        .iter()
        .filter(|f| f.start < end && start < f.end)
        .map(|f| f.pii_type.name())
        .collect()
}

/// Whether the compact `value` is also a value of the type named `name` (its checksum, or a Turkish
/// phone number's form).
fn also_valid_as(name: &str, value: &str) -> bool {
    let Some(ty) = PiiType::ALL.iter().find(|ty| ty.name() == name) else {
        return false;
    };
    match ty {
        PiiType::PhoneTr => {
            let digits = value.as_bytes();
            crate::pii_masker::detectors::tr::phone_with_prefix(digits)
                || crate::pii_masker::detectors::tr::phone_nsn(digits)
        }
        ty => planted::GENERATED.contains(ty) && planted::checksum_holds(*ty, value),
    }
}

/// Every layout of one generated value of each type, in each frame: masked with its type.
fn every_layout_is_masked_with_its_type(seed: u64) -> Result<(), TestCaseError> {
    let mut rng = Rng::new(seed);
    let policy = Policy::default();
    for ty in planted::GENERATED {
        let Some(value) = planted::compact(ty, &mut rng) else {
            continue;
        };
        for (layout, written) in planted::layouts(ty, &value) {
            let mut texts = Vec::new();
            for label in planted::labels(ty) {
                texts.push((format!("{label} "), ". Teşekkürler.", true));
                texts.push((format!("Müşteri notu: {label} "), ", iyi günler.", true));
            }
            if !planted::needs_label(ty, layout) {
                for (before, after) in NEUTRAL {
                    texts.push((before.to_string(), after, false));
                }
            }
            // A machine-readable zone stands on lines of its own.
            if ty == PiiType::Mrz {
                for text in &mut texts {
                    text.0.push('\n');
                    text.1 = if text.2 { "\nTeşekkürler." } else { "\n" };
                }
            }
            for (before, after, labelled) in texts {
                let text = format!("{before}{written}{after}");
                let findings = detect(&text, &policy);
                let (start, end) = (before.len(), before.len() + written.len());
                let found = found_over(&findings, start, end);
                // Behind its label, the label decides the type; in a neutral sentence, a value whose
                // digits are also a value of a type that comes first (a PESEL that is also a Turkish
                // phone number) is masked as that type, as the priorities say.
                let typed = covered(&findings, start, end, Some(ty))
                    || (!labelled
                        && covered(&findings, start, end, None)
                        && found.iter().all(|name| also_valid_as(name, &value)));
                prop_assert!(
                    typed,
                    "{} ({layout}) in {text:?}: found {found:?}",
                    ty.name()
                );
            }
        }
    }
    Ok(())
}

/// A value with one digit changed so that its checksum fails, behind its English label, is not masked
/// as its type as a validated value: an IBAN keeps its country's shape, and a mistyped IBAN is still
/// an IBAN (#60), found below the validated confidence; every other type is not found as itself.
fn a_changed_digit_is_not_the_type(seed: u64) -> Result<(), TestCaseError> {
    let mut rng = Rng::new(seed);
    let policy = Policy::default();
    for ty in planted::GENERATED {
        let Some(value) = planted::compact(ty, &mut rng) else {
            continue;
        };
        let Some(changed) = planted::with_one_digit_changed(&value, &mut rng) else {
            continue;
        };
        if planted::checksum_holds(ty, &changed) {
            continue;
        }
        let label = planted::labels(ty)[1];
        let text = format!("{label} {changed} noted.");
        let findings = detect(&text, &policy);
        let start = label.len() + 1;
        let mistyped_iban = matches!(ty, PiiType::Iban | PiiType::IbanTr);
        prop_assert!(
            !findings.iter().any(|f| f.pii_type == ty
                && f.start <= start
                && start + changed.len() <= f.end
                && !(mistyped_iban && f.confidence < super::super::scan::VALIDATED)),
            "{} with a changed digit {changed:?} was still found as its type",
            ty.name()
        );
    }
    Ok(())
}

/// 48 cases from a fixed seed, so that CI runs the same values each time (the generators were run
/// over thousands of random seeds when written); `PROPTEST_RNG_SEED` and `PROPTEST_CASES` explore
/// further.
fn config() -> ProptestConfig {
    let default = ProptestConfig::default();
    ProptestConfig {
        cases: if std::env::var_os("PROPTEST_CASES").is_some() {
            default.cases
        } else {
            48
        },
        rng_seed: match default.rng_seed {
            proptest::test_runner::RngSeed::Random => proptest::test_runner::RngSeed::Fixed(2026),
            seed => seed,
        },
        ..default
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn generated_values_are_masked_with_their_type_in_every_layout(seed in any::<u64>()) {
        every_layout_is_masked_with_its_type(seed)?;
    }

    #[test]
    fn one_changed_digit_is_not_masked_as_the_type(seed in any::<u64>()) {
        a_changed_digit_is_not_the_type(seed)?;
    }
}

/// Every generated value passes its type's own validator (the generators compute their check digits;
/// this holds them to the engine's validators, which the vectors hold to python-stdnum).
#[test]
fn generated_values_pass_their_validators() {
    let mut rng = Rng::new(7);
    for _ in 0..300 {
        for ty in planted::GENERATED {
            let value = planted::compact(ty, &mut rng).expect("generated");
            assert!(planted::checksum_holds(ty, &value), "{} {value}", ty.name());
        }
    }
}

/// The figures of the generated multilingual corpus: mask recall at least 0.999, typed recall at least
/// 0.98, precision at least 0.99 (`cargo bench --bench corpus` prints them, with what was missed).
#[test]
fn the_generated_multilingual_corpus_reaches_its_figures() {
    let documents = corpus::corpus(2026, 400);
    let score = corpus::score(&documents, &Policy::default());
    let report = format!(
        "mask recall {:.4}, typed recall {:.4}, precision {:.4}; missed {:?}; mistyped {:?}; false {:?}",
        score.mask_recall(),
        score.typed_recall(),
        score.precision(),
        &score.missed[..score.missed.len().min(20)],
        &score.mistyped[..score.mistyped.len().min(20)],
        &score.false_ones[..score.false_ones.len().min(20)],
    );
    assert!(score.all.planted > 1000, "{report}");
    assert!(score.mask_recall() >= 0.999, "{report}");
    assert!(score.typed_recall() >= 0.98, "{report}");
    assert!(score.precision() >= 0.99, "{report}");
}
