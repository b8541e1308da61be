//! Engine behaviour: surface forms, boundaries, context, overlaps, masking, the leak re-scan.

use super::*;

mod forms;
mod keys_and_rows;
mod labels_and_addresses;
mod names;
mod no_panics;
mod properties;
mod prose;
mod running_text;
mod shortcuts_and_corpus;
mod tables_and_resolution;
mod world;

fn types_in(text: &str) -> Vec<&'static str> {
    detect(text, &Policy::default())
        .iter()
        .map(|f| f.pii_type.name())
        .collect()
}

/// The type of each finding of `text`, in order.
fn types_with(text: &str, policy: &Policy) -> Vec<&'static str> {
    detect(text, policy)
        .iter()
        .map(|f| f.pii_type.name())
        .collect()
}

/// The findings of a scanner that takes no shortcut: the reference `detect` must agree with.
fn detect_skipping_nothing(text: &str, policy: &Policy) -> Vec<Finding> {
    let every_span = scanner_skipping_nothing(text, policy).run();
    findings_of(text, &resolved(text, policy, &Known::default(), every_span))
}

fn masked(text: &str) -> String {
    mask(text, &Policy::default()).expect("mask").text
}

/// Each text masks to its expected output.
fn masks_as(cases: &[(&str, &str)]) {
    for (text, expected) in cases {
        assert_eq!(masked(text), *expected, "{text}");
    }
}

/// Each text masks to itself.
fn keeps(texts: &[&str]) {
    for text in texts {
        assert_eq!(masked(text), *text, "{text}");
    }
}
