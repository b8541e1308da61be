//! The world corpus: the phone numbers of the default regions, drawn from libphonenumber's metadata
//! (its example numbers, and random numbers its fixed-line and mobile patterns accept), written in
//! national and international layouts behind the local word for phone or bare; names of the regions'
//! locales behind person labels of 17 languages; and every layout of every generated id, behind its
//! labels or bare; among look-alikes (order and invoice numbers, amounts, dates, tracking codes, SKUs,
//! page and room numbers). `cargo bench --bench corpus` prints its recall per region, per locale and
//! per id layout, and its precision; a unit test holds it to the bar.

use regex_syntax::hir::{Class, Hir, HirKind};

use super::super::synthetic::Rng;
use super::super::PiiType;
use super::corpus::{
    document, frames, look_alike, plant as write_value, Counts, Document, LANGUAGES,
};
use super::{generate, labels, layouts, needs_label, GENERATED};
use crate::pii_masker::detectors::phone::{self, Rules};

/// The regions of the corpus's phones: the default list but Turkey's (whose numbers are `phone_tr`,
/// with the multilingual corpus's own layouts).
pub fn phone_regions() -> impl Iterator<Item = &'static str> {
    phone::DEFAULT_REGIONS
        .iter()
        .copied()
        .filter(|code| *code != "TR")
}

/// The language of a region's documents and its words for phone.
fn language_of(region: &str) -> &'static str {
    match region {
        "DE" | "AT" | "LI" => "de",
        "CH" | "LU" => "fr",
        "FR" => "fr",
        "BE" | "NL" => "nl",
        "ES" => "es",
        "IT" => "it",
        "PL" => "pl",
        "PT" => "pt",
        "SE" => "sv",
        "DK" => "da",
        "NO" => "no",
        "IS" => "is",
        "FI" => "fi",
        "GR" | "CY" => "el",
        "CZ" => "cs",
        "SK" => "sk",
        "HU" => "hu",
        "RO" => "ro",
        "BG" => "bg",
        "HR" => "hr",
        "SI" => "sl",
        "EE" => "et",
        "LV" => "lv",
        "LT" => "lt",
        _ => "en",
    }
}

/// Labels a phone number is written behind, in `language`, and in English.
fn phone_labels(language: &str) -> &'static [&'static str] {
    match language {
        "de" => &["Telefon:", "Tel.:", "Mobil:", "Handy:", "Rufnummer:"],
        "fr" => &["Tél. :", "Téléphone :", "Portable :", "Mobile :"],
        "nl" => &["Telefoon:", "Tel.:", "Mobiel:", "Telefoonnummer:"],
        "es" => &["Teléfono:", "Tel.:", "Móvil:"],
        "it" => &["Telefono:", "Tel.:", "Cellulare:", "Cell.:"],
        "pl" => &["Telefon:", "Tel.:", "Tel. kom.:", "Numer telefonu:"],
        "pt" => &["Telefone:", "Tel.:", "Telemóvel:"],
        "sv" => &["Telefon:", "Tel:", "Mobil:", "Tfn:"],
        "da" => &["Telefon:", "Tlf.:", "Mobil:"],
        "no" => &["Telefon:", "Tlf:", "Mobil:"],
        "is" => &["Sími:", "Farsími:"],
        "fi" => &["Puhelin:", "Puh.:", "Matkapuhelin:"],
        "el" => &["Τηλ.:", "Τηλέφωνο:", "Κινητό:"],
        "cs" => &["Telefon:", "Tel.:", "Mobil:"],
        "sk" => &["Telefón:", "Tel.:", "Mobil:"],
        "hu" => &["Telefon:", "Tel.:", "Telefonszám:", "Mobil:"],
        "ro" => &["Telefon:", "Tel.:", "Mobil:"],
        "bg" => &["Тел.:", "Телефон:"],
        "hr" | "sl" => &["Tel.:", "Telefon:", "Mobitel:"],
        "et" => &["Tel:", "Telefon:"],
        "lv" => &["Tālr.:", "Tel.:", "Telefons:"],
        "lt" => &["Tel.:", "Telefonas:"],
        _ => &[
            "Phone:",
            "Tel.:",
            "Mobile:",
            "Contact:",
            "Cell:",
            "Telephone:",
        ],
    }
}

/// A person label of a language, with the locale of the names written behind it.
const NAME_LABELS: &[(&str, &str)] = &[
    ("en", "Name:"),
    ("en", "Contact person:"),
    ("en", "Customer name:"),
    ("en", "Client:"),
    ("en", "Patient:"),
    ("en", "Employee:"),
    ("en", "Applicant:"),
    ("en", "Account holder:"),
    ("en", "Owner:"),
    ("en", "Recipient:"),
    ("en", "Sender:"),
    ("en", "Signatory:"),
    ("en", "Tenant:"),
    ("en", "Guarantor:"),
    ("tr", "Ad Soyad:"),
    ("tr", "Adı Soyadı:"),
    ("tr", "Müşteri:"),
    ("tr", "Yetkili:"),
    ("tr", "İlgili kişi:"),
    ("tr", "Alıcı:"),
    ("tr", "Gönderen:"),
    ("de", "Name:"),
    ("de", "Ansprechpartner:"),
    ("de", "Kunde:"),
    ("de", "Kontoinhaber:"),
    ("fr", "Nom :"),
    ("fr", "Client :"),
    ("fr", "Titulaire :"),
    ("es", "Nombre:"),
    ("es", "Titular:"),
    ("es", "Cliente:"),
    ("it", "Nome:"),
    ("it", "Intestatario:"),
    ("nl", "Naam:"),
    ("nl", "Contactpersoon:"),
    ("pl", "Imię i nazwisko:"),
    ("pl", "Klient:"),
    ("pt", "Nome:"),
    ("pt", "Titular:"),
    ("sv", "Namn:"),
    ("sv", "Kontaktperson:"),
    ("da", "Navn:"),
    ("fi", "Nimi:"),
    ("fi", "Yhteyshenkilö:"),
    ("el", "Όνομα:"),
    ("el", "Ονοματεπώνυμο:"),
    ("cs", "Jméno:"),
    ("hu", "Név:"),
    ("ro", "Nume:"),
];

/// Given names and surnames of a locale: diacritics, particles and hyphenated surnames included.
fn names(locale: &str) -> (&'static [&'static str], &'static [&'static str]) {
    match locale {
        "tr" => (
            &[
                "Ayşe", "Mehmet", "Gülşen", "Çağrı", "İbrahim", "Özge", "Şükrü", "Ümit",
            ],
            &[
                "Yılmaz", "Kaya", "Demir", "Çelik", "Öztürk", "Aydın", "Şahin", "Doğan",
            ],
        ),
        "de" => (
            &[
                "Jürgen",
                "Anneliese",
                "Klaus-Dieter",
                "Sören",
                "Bärbel",
                "Henrik",
                "Marlene",
            ],
            &[
                "Müller",
                "Schäfer",
                "von Bülow",
                "Weiß",
                "Groß-Schulte",
                "Köhler",
                "Zimmermann",
            ],
        ),
        "fr" => (
            &[
                "Élodie",
                "François",
                "Jean-Luc",
                "Maëlle",
                "Hélène",
                "Benoît",
                "Anaïs",
            ],
            &[
                "Lefèvre",
                "de la Fontaine",
                "Dubois",
                "Girard-Moreau",
                "Bélanger",
                "Rousseau",
            ],
        ),
        "es" => (
            &[
                "José", "María", "Iñigo", "Begoña", "Álvaro", "Nuria", "Jesús",
            ],
            &[
                "García",
                "Núñez",
                "de la Cruz",
                "Fernández-Ortega",
                "Ibáñez",
                "Peña",
            ],
        ),
        "it" => (
            &[
                "Giuseppe",
                "Francesca",
                "Niccolò",
                "Lucia",
                "Gianluca",
                "Ilaria",
            ],
            &[
                "Rossi",
                "Esposito",
                "Di Stefano",
                "Bianchi",
                "De Luca",
                "Colombo",
            ],
        ),
        "nl" => (
            &["Jeroen", "Sanne", "Maarten", "Femke", "Joost", "Anouk"],
            &[
                "de Vries",
                "van der Berg",
                "Jansen",
                "van den Broek",
                "Bakker",
                "Visser",
            ],
        ),
        "pl" => (
            &[
                "Małgorzata",
                "Wojciech",
                "Łukasz",
                "Agnieszka",
                "Grzegorz",
                "Zofia",
            ],
            &[
                "Kowalski",
                "Wiśniewska",
                "Wójcik",
                "Zieliński",
                "Szymańska",
                "Dąbrowski",
            ],
        ),
        "pt" => (
            &["João", "Inês", "Gonçalo", "Conceição", "Tomás", "Mariana"],
            &[
                "Gonçalves",
                "Araújo",
                "da Silva",
                "Magalhães",
                "Simões",
                "Ferreira",
            ],
        ),
        "sv" => (
            &["Åsa", "Björn", "Ingrid", "Göran", "Linnéa", "Sven-Erik"],
            &[
                "Andersson",
                "Lindström",
                "Öberg",
                "Sjögren",
                "Åkesson",
                "Nyström",
            ],
        ),
        "da" | "no" => (
            &["Søren", "Mette", "Bjørn", "Kirsten", "Ørjan", "Frederikke"],
            &[
                "Jørgensen",
                "Kristiansen",
                "Møller",
                "Hansen",
                "Sørensen",
                "Bakke",
            ],
        ),
        "fi" => (
            &["Päivi", "Jukka", "Sirpa", "Mikko", "Tuulikki", "Väinö"],
            &[
                "Korhonen",
                "Mäkinen",
                "Nieminen",
                "Hämäläinen",
                "Järvinen",
                "Leinonen",
            ],
        ),
        "el" => (
            &[
                "Γιώργος",
                "Μαρία",
                "Δημήτρης",
                "Ελένη",
                "Κωνσταντίνος",
                "Αικατερίνη",
            ],
            &[
                "Παπαδόπουλος",
                "Οικονόμου",
                "Γεωργίου",
                "Νικολάου",
                "Καραγιάννη",
                "Βλάχος",
            ],
        ),
        "cs" => (
            &["Jiří", "Kateřina", "Tomáš", "Lucie", "Ondřej", "Zdeňka"],
            &[
                "Novák",
                "Dvořáková",
                "Černý",
                "Procházka",
                "Kučerová",
                "Veselý",
            ],
        ),
        "hu" => (
            &["László", "Erzsébet", "Gábor", "Zsófia", "Ádám", "Katalin"],
            &["Nagy", "Kovács", "Tóth", "Szabó", "Horváth", "Varga"],
        ),
        "ro" => (
            &["Ștefan", "Ioana", "Mihai", "Alexandra", "Răzvan", "Elena"],
            &[
                "Popescu",
                "Ionescu",
                "Țurcanu",
                "Dumitrescu",
                "Stănescu",
                "Constantin",
            ],
        ),
        _ => (
            &[
                "Oliver",
                "Charlotte",
                "Siobhan",
                "William",
                "Amelia",
                "Declan",
            ],
            &[
                "Smith",
                "O'Brien",
                "Taylor-Jones",
                "MacDonald",
                "Whitfield",
                "Thompson",
            ],
        ),
    }
}

/// A random string its pattern matches (an unbounded repetition taken up to three more times).
fn sample(hir: &Hir, rng: &mut Rng, out: &mut String) {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => {}
        HirKind::Literal(literal) => out.push_str(&String::from_utf8_lossy(&literal.0)),
        HirKind::Class(Class::Unicode(class)) => {
            let ranges = class.ranges();
            if !ranges.is_empty() {
                let range = ranges[rng.below(ranges.len() as u64) as usize];
                let span = u64::from(range.end()) - u64::from(range.start()) + 1;
                let code = u32::from(range.start()) + rng.below(span) as u32;
                out.extend(char::from_u32(code));
            }
        }
        HirKind::Class(Class::Bytes(class)) => {
            let ranges = class.ranges();
            if !ranges.is_empty() {
                let range = ranges[rng.below(ranges.len() as u64) as usize];
                let span = u64::from(range.end() - range.start()) + 1;
                out.push(char::from(range.start() + rng.below(span) as u8));
            }
        }
        HirKind::Repetition(repetition) => {
            let max = repetition.max.unwrap_or(repetition.min + 3);
            let times = repetition.min + rng.below(u64::from(max - repetition.min) + 1) as u32;
            for _ in 0..times {
                sample(&repetition.sub, rng, out);
            }
        }
        HirKind::Capture(capture) => sample(&capture.sub, rng, out),
        HirKind::Concat(parts) => parts.iter().for_each(|part| sample(part, rng, out)),
        HirKind::Alternation(choices) => {
            sample(&choices[rng.below(choices.len() as u64) as usize], rng, out)
        }
    }
}

/// A national significant number of the region: its example of `kind` or, three times in four, a
/// random number the kind's pattern accepts at one of its lengths (valid by the metadata).
pub fn national_number(rules: &Rules, kind: &str, rng: &mut Rng) -> Option<String> {
    let example = rules
        .examples()
        .into_iter()
        .find(|(of, _)| *of == kind)
        .map(|(_, example)| example);
    if rng.below(4) == 0 {
        return example;
    }
    let (source, lengths) = rules.pattern_of(kind)?;
    let hir = regex_syntax::ParserBuilder::new()
        .unicode(false)
        .utf8(false)
        .build()
        .parse(source)
        .ok()?;
    for _ in 0..64 {
        let mut nsn = String::new();
        sample(&hir, rng, &mut nsn);
        let fits = lengths.is_empty() || lengths.contains(&(nsn.len() as u16));
        if fits && rules.valid_nsn(&nsn) {
            return Some(nsn);
        }
    }
    example
}

/// A phone number of the region written one way: (layout, text). National layouts carry the trunk
/// prefix where the region writes one; international ones the country code after `+` or `00`, with
/// `(0)` where the trunk prefix is 0.
fn written_phone(rules: &Rules, nsn: &str, rng: &mut Rng) -> (&'static str, String) {
    let (trunk, groups) = rules.national_groups(nsn).unwrap_or(("", vec![nsn]));
    let code = rules.country_code;
    let separator = rng.pick(&[" ", " ", "-", "."]);
    let spaced = groups.join(" ");
    match rng.below(10) {
        0 => ("national", format!("{trunk}{}", groups.join(separator))),
        // An area code before a slash ("089/1234567", "0620/123 4567").
        9 if groups.len() >= 2 => (
            "national slashed",
            format!(
                "{trunk}{}/{}",
                groups[0],
                groups[1..].join(separator.trim())
            ),
        ),
        1 => ("national", format!("{trunk}{spaced}")),
        2 => ("national compact", format!("{trunk}{nsn}")),
        3 if groups.len() >= 2 => (
            "national bracketed",
            format!("({trunk}{}) {}", groups[0], groups[1..].join(" ")),
        ),
        4 => ("international", format!("+{code}{nsn}")),
        5 => ("international", format!("00{code} {spaced}")),
        6 if rules.trunk() == Some("0") && trunk == "0" => {
            ("international", format!("+{code} (0){spaced}"))
        }
        7 => ("international", format!("+{code}-{}", groups.join("-"))),
        _ => ("international", format!("+{code} {spaced}")),
    }
}

/// Sentences without personal data but with numbers that look like some: the multilingual corpus's
/// orders, amounts, dates and product codes, and tracking codes, SKUs, pages and rooms.
fn look_alikes(language: &str, rng: &mut Rng) -> String {
    match rng.below(5) {
        0 => format!(
            "Tracking: {}{} {} {}, parcel {} of {}.",
            rng.pick(&["JJD", "CP", "RR", "LX"]),
            rng.digits(4),
            rng.digits(4),
            rng.digits(4),
            1 + rng.below(4),
            4 + rng.below(4)
        ),
        1 => format!(
            "SKU {}-{}-{}, batch {}, {} pcs.",
            rng.pick(&["AX", "BT", "QZ"]),
            rng.digits(4),
            rng.digits(3),
            rng.digits(6),
            1 + rng.below(900)
        ),
        2 => format!(
            "Room {} (floor {}), page {} of {}, version {}.{}.{}.",
            100 + rng.below(900),
            1 + rng.below(9),
            1 + rng.below(30),
            30 + rng.below(70),
            rng.below(10),
            rng.below(20),
            rng.below(100)
        ),
        _ => look_alike(language, rng),
    }
}

/// `documents` documents, each of one region: phones of that region behind its labels or bare,
/// names of its locale behind person labels, ids in every layout, and look-alikes.
pub fn corpus(seed: u64, documents: usize) -> Vec<Document> {
    let mut rng = Rng::new(seed);
    let regions: Vec<&'static str> = phone_regions().collect();
    let ids: Vec<PiiType> = GENERATED
        .iter()
        .copied()
        .filter(|ty| !matches!(ty, PiiType::PhoneTr | PiiType::PhoneIntl))
        .collect();
    (0..documents)
        .map(|_| {
            let region = regions[rng.below(regions.len() as u64) as usize];
            let language = language_of(region);
            // The frames and look-alikes are written in the multilingual corpus's languages.
            let prose = if LANGUAGES.contains(&language) {
                language
            } else {
                "en"
            };
            let rules = phone::region_id(region).and_then(phone::rules);
            document(language, &mut rng, |text, planted, rng| {
                let frame = frames(prose)[rng.below(3) as usize];
                let kind = rng.below(8);
                let plant = match (kind, rules) {
                    (0..=2, Some(rules)) => {
                        let number_kind = rng.pick(&["fixed_line", "mobile"]);
                        national_number(rules, number_kind, rng).map(|nsn| {
                            let (layout, written) = written_phone(rules, &nsn, rng);
                            let labelled = kind < 2 || !layout.starts_with("international");
                            let label = labelled.then(|| {
                                let labels = if rng.below(3) == 0 {
                                    phone_labels("en")
                                } else {
                                    phone_labels(language)
                                };
                                labels[rng.below(labels.len() as u64) as usize]
                            });
                            let layout = match (labelled, layout) {
                                (false, _) => "bare international",
                                (true, "international") => "labelled international",
                                (true, _) => "labelled national",
                            };
                            (label, written, PiiType::PhoneIntl, layout, region)
                        })
                    }
                    (3..=4, _) => {
                        let (locale, label) =
                            NAME_LABELS[rng.below(NAME_LABELS.len() as u64) as usize];
                        let locale = if rng.below(2) == 0 { locale } else { language };
                        let (given, surnames) = names(locale);
                        let mut name = rng.pick(given).to_owned();
                        if rng.below(4) == 0 {
                            name.push(' ');
                            name.push_str(rng.pick(given));
                        }
                        name.push(' ');
                        name.push_str(rng.pick(surnames));
                        Some((
                            Some(label),
                            name,
                            PiiType::PersonName,
                            "behind a label",
                            locale,
                        ))
                    }
                    (5..=6, _) => {
                        let ty = ids[rng.below(ids.len() as u64) as usize];
                        generate(ty, rng).map(|value| {
                            let label = (needs_label(ty, value.layout) || rng.below(2) == 0)
                                .then(|| labels(ty)[rng.below(3) as usize]);
                            (label, value.written, ty, value.layout, ty.name())
                        })
                    }
                    _ => None,
                };
                match plant {
                    Some((label, written, ty, layout, group)) => {
                        let what = (ty, layout, group);
                        planted.push(write_value(text, frame, label, &written, what));
                    }
                    None => text.push_str(&look_alikes(prose, rng)),
                }
                true
            })
        })
        .collect()
}

/// Every layout the multilingual generator writes each id in: (type, layout) pairs, for a report
/// that names the layouts the corpus never drew.
pub fn id_layouts() -> Vec<(&'static str, &'static str)> {
    let mut rng = Rng::new(1);
    let mut all = Vec::new();
    for ty in GENERATED {
        if matches!(ty, PiiType::PhoneTr | PiiType::PhoneIntl) {
            continue;
        }
        if let Some(value) = super::compact(ty, &mut rng) {
            all.extend(
                layouts(ty, &value)
                    .into_iter()
                    .map(|(layout, _)| (ty.name(), layout)),
            );
        }
    }
    all
}

/// What the world corpus's score is reported by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Line {
    /// A region's phones behind a label (national and international layouts).
    PhoneLabelled,
    /// A region's phones written bare with their country code.
    PhoneBare,
    /// Names of a locale behind a person label.
    Name,
    /// An id in one of its layouts (the group is its type).
    Id,
}

/// The score's counts by line: (line, region/locale/type, layout), in that order.
pub fn report(score: &super::corpus::Score) -> Vec<(Line, &'static str, &'static str, Counts)> {
    let mut lines: std::collections::BTreeMap<(Line, &'static str, &'static str), Counts> =
        Default::default();
    for (&(group, layout), counts) in &score.by_group {
        let key = match layout {
            "labelled national" | "labelled international" => (Line::PhoneLabelled, group, ""),
            "bare international" => (Line::PhoneBare, group, ""),
            "behind a label" => (Line::Name, group, ""),
            _ => (Line::Id, group, layout),
        };
        let line = lines.entry(key).or_default();
        line.planted += counts.planted;
        line.masked += counts.masked;
        line.typed += counts.typed;
    }
    lines
        .into_iter()
        .map(|((line, group, layout), counts)| (line, group, layout, counts))
        .collect()
}
