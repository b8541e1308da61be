//! A multilingual corpus of business documents with planted personal values, and its score: mask
//! recall (the share of planted values whose every byte is masked), typed recall (masked by findings of
//! the planted type) and precision (the share of findings that touch a planted value; a finding on an
//! order number, an amount, a date or a product code is a false one).

use std::collections::BTreeMap;

use super::super::synthetic::Rng;
use super::super::{detect, PiiType, Policy};
use super::{generate, labels, needs_label, GENERATED};

/// The languages of the corpus.
pub const LANGUAGES: [&str; 8] = ["tr", "en", "de", "es", "pl", "it", "nl", "fr"];

/// One planted value: its bytes in the document and its type.
#[derive(Clone, Debug)]
pub struct Planted {
    pub start: usize,
    pub end: usize,
    pub ty: PiiType,
    pub layout: &'static str,
    /// What the value is counted under besides its type: its type's name, or in the world corpus its
    /// region (phones) or locale (names).
    pub group: &'static str,
}

/// One generated document.
#[derive(Clone, Debug)]
pub struct Document {
    pub language: &'static str,
    pub text: String,
    pub planted: Vec<Planted>,
}

/// Frames of a sentence that carries a value: the text before and after `{label} {value}`.
pub(super) fn frames(language: &str) -> &'static [(&'static str, &'static str)] {
    match language {
        "tr" => &[
            ("Müşteri kaydında ", " bilgisi güncellendi."),
            ("Başvuru formuna göre ", " olarak girilmiş."),
            ("Lütfen kontrol ediniz: ", ", teşekkürler."),
        ],
        "en" => &[
            ("The customer record lists ", " as of today."),
            ("Please confirm ", " before the shipment leaves."),
            ("Updated on request: ", "; no other change."),
        ],
        "de" => &[
            ("Im Kundenkonto ist ", " hinterlegt."),
            ("Bitte prüfen Sie ", " vor dem Versand."),
            ("Geändert auf Wunsch: ", "; sonst keine Änderung."),
        ],
        "es" => &[
            ("En la ficha del cliente figura ", " desde hoy."),
            ("Por favor confirme ", " antes del envío."),
            ("Actualizado a petición: ", "; sin otros cambios."),
        ],
        "pl" => &[
            ("W karcie klienta zapisano ", " w dniu dzisiejszym."),
            ("Prosimy o potwierdzenie: ", " przed wysyłką."),
            ("Zmieniono na prośbę: ", "; bez innych zmian."),
        ],
        "it" => &[
            ("Nella scheda cliente risulta ", " da oggi."),
            ("Si prega di confermare ", " prima della spedizione."),
            ("Aggiornato su richiesta: ", "; nessun'altra modifica."),
        ],
        "nl" => &[
            ("In het klantdossier staat ", " vermeld."),
            ("Graag bevestigen: ", " voor verzending."),
            ("Gewijzigd op verzoek: ", "; verder geen wijziging."),
        ],
        _ => &[
            ("Le dossier client indique ", " depuis ce jour."),
            ("Merci de confirmer ", " avant l'envoi."),
            ("Modifié sur demande : ", " ; aucun autre changement."),
        ],
    }
}

/// A sentence without personal data, full of numbers that look like some: order and invoice numbers,
/// amounts, dates, product codes, quantities.
pub(super) fn look_alike(language: &str, rng: &mut Rng) -> String {
    let length = 8 + rng.below(5) as usize;
    let order = rng.digits(length);
    let amount = format!(
        "{}.{},{:02}",
        1 + rng.below(99),
        rng.digits(3),
        rng.below(100)
    );
    let date = if rng.below(2) == 0 {
        format!(
            "{:02}.{:02}.20{:02}",
            1 + rng.below(28),
            1 + rng.below(12),
            15 + rng.below(11)
        )
    } else {
        format!(
            "20{:02}-{:02}-{:02}",
            15 + rng.below(11),
            1 + rng.below(12),
            1 + rng.below(28)
        )
    };
    let code = format!(
        "{}{}-{}-{}",
        rng.pick(&["AB", "KX", "PR", "ZT", "MB"]),
        rng.digits(2),
        rng.digits(4),
        rng.pick(&["A", "B", "XL", "S2"])
    );
    let quantity = 1 + rng.below(500);
    let invoice = format!(
        "{}{}{}",
        rng.pick(&["FTR", "INV", "RE", "FAC"]),
        2020 + rng.below(6),
        rng.digits(6)
    );
    const TEMPLATES: [(&str, [&str; 2]); 8] = [
        ("tr", ["Sipariş {order} için {amount} TL tutarındaki fatura {date} tarihinde kesildi; ürün kodu {code}.", "Fatura No: {invoice}, {quantity} adet, vade {days} gün, toplam {amount} TL."]),
        ("en", ["Order {order} totalling EUR {amount} was invoiced on {date}; product code {code}.", "Invoice {invoice}: {quantity} units, payment within {days} days, total {amount}."]),
        ("de", ["Bestellung {order} über {amount} EUR wurde am {date} berechnet; Artikelnummer {code}.", "Rechnung {invoice}: {quantity} Stück, Zahlungsziel {days} Tage, Summe {amount} EUR."]),
        ("es", ["El pedido {order} por {amount} EUR se facturó el {date}; código de producto {code}.", "Factura {invoice}: {quantity} unidades, pago a {days} días, total {amount} EUR."]),
        ("pl", ["Zamówienie {order} na kwotę {amount} PLN zafakturowano {date}; kod produktu {code}.", "Faktura {invoice}: {quantity} sztuk, termin płatności {days} dni, razem {amount} PLN."]),
        ("it", ["L'ordine {order} di {amount} EUR è stato fatturato il {date}; codice prodotto {code}.", "Fattura {invoice}: {quantity} pezzi, pagamento a {days} giorni, totale {amount} EUR."]),
        ("nl", ["Bestelling {order} van {amount} EUR is op {date} gefactureerd; productcode {code}.", "Factuur {invoice}: {quantity} stuks, betaling binnen {days} dagen, totaal {amount} EUR."]),
        ("fr", ["La commande {order} de {amount} EUR a été facturée le {date} ; code produit {code}.", "Facture {invoice} : {quantity} pièces, paiement à {days} jours, total {amount} EUR."]),
    ];
    let templates = TEMPLATES
        .iter()
        .find(|(code, _)| *code == language)
        .map_or(TEMPLATES[1].1, |(_, templates)| *templates);
    let days = (30 + rng.below(60)).to_string();
    templates[rng.below(2) as usize]
        .replace("{order}", &order)
        .replace("{amount}", &amount)
        .replace("{date}", &date)
        .replace("{code}", &code)
        .replace("{invoice}", &invoice)
        .replace("{quantity}", &quantity.to_string())
        .replace("{days}", &days)
}

/// `documents` documents, each in one language: sentences with a planted value (behind one of its
/// type's labels, or none where its type needs none) among sentences of look-alike numbers.
pub fn corpus(seed: u64, documents: usize) -> Vec<Document> {
    let mut rng = Rng::new(seed);
    (0..documents)
        .map(|_| {
            let language = LANGUAGES[rng.below(LANGUAGES.len() as u64) as usize];
            document(language, &mut rng, |text, planted, rng| {
                if rng.below(3) == 0 {
                    text.push_str(&look_alike(language, rng));
                    return true;
                }
                let ty = GENERATED[rng.below(GENERATED.len() as u64) as usize];
                let Some(value) = generate(ty, rng) else {
                    return false;
                };
                let frame = frames(language)[rng.below(3) as usize];
                let label = (needs_label(ty, value.layout) || rng.below(10) < 7)
                    .then(|| labels(ty)[rng.below(3) as usize]);
                let what = (ty, value.layout, ty.name());
                planted.push(plant(text, frame, label, &value.written, what));
                true
            })
        })
        .collect()
}

/// A document in `language` of four to nine sentences, each written by `sentence` (which records
/// the values it plants and says whether it wrote anything) and followed by a space or a line break.
pub(super) fn document(
    language: &'static str,
    rng: &mut Rng,
    mut sentence: impl FnMut(&mut String, &mut Vec<Planted>, &mut Rng) -> bool,
) -> Document {
    let mut text = String::new();
    let mut planted = Vec::new();
    for _ in 0..4 + rng.below(6) {
        if sentence(&mut text, &mut planted, rng) {
            text.push(if rng.below(3) == 0 { '\n' } else { ' ' });
        }
    }
    Document {
        language,
        text,
        planted,
    }
}

/// Writes a sentence with a value: `frame.0`, the label if any, the value (a machine-readable zone on
/// lines of its own, as passports print it) and `frame.1`; returns where the value stands, as planted
/// with `what` (its type, layout and group).
pub(super) fn plant(
    text: &mut String,
    frame: (&str, &str),
    label: Option<&str>,
    written: &str,
    what: (PiiType, &'static str, &'static str),
) -> Planted {
    let (ty, layout, group) = what;
    text.push_str(frame.0);
    if let Some(label) = label {
        text.push_str(label);
        text.push(' ');
    }
    let own_lines = ty == PiiType::Mrz;
    if own_lines {
        text.push('\n');
    }
    let planted = Planted {
        start: text.len(),
        end: text.len() + written.len(),
        ty,
        layout,
        group,
    };
    text.push_str(written);
    if own_lines {
        text.push('\n');
    }
    text.push_str(frame.1);
    planted
}

/// Counts of one type, or of all.
#[derive(Clone, Copy, Debug, Default)]
pub struct Counts {
    pub planted: usize,
    pub masked: usize,
    pub typed: usize,
}

/// The score of the engine on a corpus.
#[derive(Clone, Debug, Default)]
pub struct Score {
    pub all: Counts,
    pub by_type: BTreeMap<&'static str, Counts>,
    /// By group and layout (see [`Planted::group`]).
    pub by_group: BTreeMap<(&'static str, &'static str), Counts>,
    pub findings: usize,
    /// Findings that touch no planted value.
    pub false_findings: usize,
    /// The planted values left partly or wholly in clear: (type, layout, the value as written).
    pub missed: Vec<(PiiType, &'static str, String)>,
    /// The planted values masked as another type: (type, found type, layout, the value).
    pub mistyped: Vec<(PiiType, String, &'static str, String)>,
    /// The text of the false findings, with their type.
    pub false_ones: Vec<(String, String)>,
}

impl Score {
    pub fn mask_recall(&self) -> f64 {
        self.all.masked as f64 / self.all.planted.max(1) as f64
    }

    pub fn typed_recall(&self) -> f64 {
        self.all.typed as f64 / self.all.planted.max(1) as f64
    }

    pub fn precision(&self) -> f64 {
        (self.findings - self.false_findings) as f64 / self.findings.max(1) as f64
    }
}

/// Scores `detect` with `policy` on `documents`.
pub fn score(documents: &[Document], policy: &Policy) -> Score {
    let mut score = Score::default();
    for document in documents {
        let findings = detect(&document.text, policy);
        score.findings += findings.len();
        for finding in &findings {
            let touches = document
                .planted
                .iter()
                .any(|p| finding.start < p.end && p.start < finding.end);
            if !touches {
                score.false_findings += 1;
                score.false_ones.push((
                    document.text[finding.start..finding.end].to_string(),
                    finding.pii_type.name().to_string(),
                ));
            }
        }
        for planted in &document.planted {
            let covered = |of_type: bool| {
                (planted.start..planted.end).all(|at| {
                    findings.iter().any(|f| {
                        f.start <= at && at < f.end && (!of_type || f.pii_type == planted.ty)
                    })
                })
            };
            let (masked, typed) = (covered(false), covered(true));
            let value = document.text[planted.start..planted.end].to_string();
            let counts = score.by_type.entry(planted.ty.name()).or_default();
            let grouped = score
                .by_group
                .entry((planted.group, planted.layout))
                .or_default();
            for c in [&mut score.all, counts, grouped] {
                c.planted += 1;
                c.masked += usize::from(masked);
                c.typed += usize::from(typed);
            }
            if !masked {
                score.missed.push((planted.ty, planted.layout, value));
            } else if !typed {
                let found = findings
                    .iter()
                    .filter(|f| f.start < planted.end && planted.start < f.end)
                    .map(|f| f.pii_type.name())
                    .collect::<Vec<_>>()
                    .join("+");
                score
                    .mistyped
                    .push((planted.ty, found, planted.layout, value));
            }
        }
    }
    score
}
