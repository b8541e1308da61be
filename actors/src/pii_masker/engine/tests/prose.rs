//! The prose check's generator (`planted::prose`): what it plants is what a reader would call the
//! person's mentions, in each language's forms.

use super::super::planted::prose;
use super::super::Policy;

#[test]
fn surnames_are_inflected_as_each_language_does() {
    let cases = [
        ("en", "Castro", false, "Castro's"),
        ("en", "Jones", true, "Jones'"),
        ("de", "Römer", false, "Römers"),
        ("de", "Voß", true, "Voß'"),
        ("tr", "Yılmaz", false, "Yılmaz'ın"),
        ("tr", "Güler", true, "Güler'in"),
        ("tr", "Koca", false, "Koca'nın"),
        ("tr", "Öztürk", true, "Öztürk'ün"),
        ("pl", "Kowalski", false, "Kowalskiego"),
        ("pl", "Kowalska", true, "Kowalskiej"),
        ("pl", "Dzwonnik", false, "Dzwonnika"),
        ("pl", "Dzwonnik", true, "Dzwonnik"),
        ("cs", "Novák", false, "Nováka"),
        ("cs", "Nováková", true, "Novákové"),
        ("cs", "Černý", false, "Černého"),
        ("fr", "Dupont", false, "Dupont"),
    ];
    for (language, surname, female, expected) in cases {
        assert_eq!(
            prose::inflected(language, surname, female),
            expected,
            "{language} {surname}"
        );
    }
}

#[test]
fn each_document_names_one_person_once_in_full_and_twice_again() {
    let documents = prose::corpus(7, 30);
    assert_eq!(documents.len(), 30 * prose::LANGUAGES.len());
    for document in &documents {
        let kinds: Vec<&str> = document.planted.iter().map(|p| p.layout).collect();
        assert_eq!(kinds.len(), 3, "{}", document.text);
        assert_eq!(kinds[0], "first", "{}", document.text);
        let full = &document.text[document.planted[0].start..document.planted[0].end];
        let (given, surname) = full.split_once(' ').expect("given name and surname");
        for planted in &document.planted[1..] {
            let mention = &document.text[planted.start..planted.end];
            assert!(!mention.is_empty() && mention.chars().next().is_some_and(char::is_uppercase));
            match planted.layout {
                "surname" | "title + surname" => assert_eq!(mention, surname),
                "given name" => assert_eq!(mention, given),
                // The stem: the letters it shares with the surname.
                "inflected" => assert!(
                    surname.starts_with(mention) || mention.starts_with(surname),
                    "{mention} / {surname}"
                ),
                other => panic!("unexpected kind {other}"),
            }
        }
    }
    // Every language has every kind of mention its sentences write.
    let kinds: std::collections::BTreeSet<(&str, &str)> = documents
        .iter()
        .flat_map(|d| d.planted.iter().map(move |p| (d.language, p.layout)))
        .collect();
    for language in prose::LANGUAGES {
        for kind in ["first", "surname", "given name"] {
            assert!(
                kinds.contains(&(language.code, kind)),
                "{} {kind}",
                language.code
            );
        }
    }
}

#[test]
fn name_free_documents_plant_nothing_and_name_things_where_people_stood() {
    for document in prose::name_free(7, 20) {
        assert!(document.planted.is_empty());
        assert!(
            prose::THINGS
                .iter()
                .any(|thing| document.text.contains(thing)),
            "{}",
            document.text
        );
    }
}

/// The prose check's figures (printed with `--nocapture`; `PROSE_SHOW=1` lists the misses), held to
/// the floors this engine reached, so that a change that loses people fails here.
#[test]
fn the_engine_finds_people_in_prose() {
    let documents: usize = std::env::var("PROSE_DOCUMENTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40);
    let with_people = prose::corpus(11, documents);
    let name_free = prose::name_free(11, documents);
    let report = prose::report(&with_people, &name_free, &Policy::default());
    println!("{}", report.table(std::env::var("PROSE_SHOW").is_ok()));
    let first = report.recall(None, "first").unwrap_or(0.0);
    let surname = report.recall(None, "surname").unwrap_or(0.0);
    assert!(first >= 0.96, "first mentions {first:.3}");
    assert!(surname >= 0.96, "surnames alone {surname:.3}");
    assert!(
        report.false_rate(None) <= 0.02,
        "{}",
        report.false_rate(None)
    );
}
