#!/usr/bin/env python3
"""Mask recall on text written by a third-party generator, judged by independent validators.

Faker writes phone numbers and names in 30 locales the way people write them at home; Google's
libphonenumber (PyPI `phonenumbers`) keeps only the phone numbers it finds valid for the locale's
region. Each value is planted in a sentence of the locale's language: behind a phone or person label,
or bare (international numbers only), among look-alikes (order numbers, amounts, dates). The
documents go through `docsieve mask --no-mask --json`; a value counts as masked when findings cover
every one of its bytes. Precision is the share of findings that touch a planted value.

usage: world_recall.py DOCSIEVE_BINARY [--documents N] [--seed S] [--min RECALL]
Prints recall per region and per kind, precision, and exits 1 when a figure named by --min falls
below it (labelled phones, bare international phones, labelled names, precision).
"""

import argparse
import random
import sys
import zlib
from collections import defaultdict

import phonenumbers
from faker import Faker

import masking

# locale -> (region, language)
LOCALES = {
    "tr_TR": ("TR", "tr"), "en_US": ("US", "en"), "en_GB": ("GB", "en"), "en_IE": ("IE", "en"),
    "de_DE": ("DE", "de"), "de_AT": ("AT", "de"), "de_CH": ("CH", "de"), "fr_FR": ("FR", "fr"),
    "fr_CH": ("CH", "fr"), "nl_NL": ("NL", "nl"), "nl_BE": ("BE", "nl"), "es_ES": ("ES", "es"),
    "it_IT": ("IT", "it"), "pt_PT": ("PT", "pt"), "pl_PL": ("PL", "pl"), "cs_CZ": ("CZ", "cs"),
    "sk_SK": ("SK", "sk"), "sv_SE": ("SE", "sv"), "da_DK": ("DK", "da"), "no_NO": ("NO", "no"),
    "fi_FI": ("FI", "fi"), "el_GR": ("GR", "el"), "hu_HU": ("HU", "hu"), "ro_RO": ("RO", "ro"),
    "bg_BG": ("BG", "bg"), "hr_HR": ("HR", "hr"), "sl_SI": ("SI", "sl"), "et_EE": ("EE", "et"),
    "lv_LV": ("LV", "lv"), "lt_LT": ("LT", "lt"),
}

PHONE_LABELS = {
    "en": ["Phone: {}", "Mobile: {}", "Tel. {}", "Contact: {}", "Call {} for details.", "Telephone number: {}", "Cell: {}"],
    "tr": ["Telefon: {}", "Cep: {}", "Tel: {}", "GSM: {}", "İletişim: {}", "{} numaralı telefondan arayın."],
    "de": ["Telefon: {}", "Tel.: {}", "Handy: {}", "Mobil: {}", "Rufnummer: {}", "Erreichbar unter {}."],
    "fr": ["Téléphone : {}", "Tél. : {}", "Portable : {}", "Appelez le {} pour plus d'informations."],
    "nl": ["Telefoon: {}", "Tel.: {}", "Mobiel: {}", "Telefoonnummer: {}", "Bel {} voor meer informatie."],
    "es": ["Teléfono: {}", "Tel.: {}", "Móvil: {}", "Llame al {} para más información."],
    "it": ["Telefono: {}", "Tel. {}", "Cellulare: {}", "Chiamare il {} per informazioni."],
    "pt": ["Telefone: {}", "Telemóvel: {}", "Tel.: {}", "Ligue para {} para mais informações."],
    "pl": ["Telefon: {}", "Tel.: {}", "Tel. kom.: {}", "Numer telefonu: {}", "Prosimy dzwonić pod numer {}."],
    "cs": ["Telefon: {}", "Tel.: {}", "Mobil: {}", "Volejte {} pro více informací."],
    "sk": ["Telefón: {}", "Tel.: {}", "Mobil: {}"],
    "sv": ["Telefon: {}", "Tfn: {}", "Mobil: {}", "Ring {} för mer information."],
    "da": ["Telefon: {}", "Tlf.: {}", "Mobil: {}", "Ring på {} for detaljer."],
    "no": ["Telefon: {}", "Tlf: {}", "Mobil: {}", "Ring {} for mer informasjon."],
    "fi": ["Puhelin: {}", "Puh. {}", "Matkapuhelin: {}", "Soita {} lisätietoja varten."],
    "el": ["Τηλέφωνο: {}", "Τηλ.: {}", "Κινητό: {}"],
    "hu": ["Telefon: {}", "Tel.: {}", "Mobil: {}", "Telefonszám: {}"],
    "ro": ["Telefon: {}", "Tel.: {}", "Mobil: {}"],
    "bg": ["Телефон: {}", "Тел.: {}", "Мобилен: {}"],
    "hr": ["Telefon: {}", "Tel.: {}", "Mobitel: {}"],
    "sl": ["Telefon: {}", "Tel.: {}", "Mobitel: {}"],
    "et": ["Telefon: {}", "Tel: {}", "Mobiil: {}"],
    "lv": ["Tālrunis: {}", "Tel.: {}", "Mobilais: {}"],
    "lt": ["Telefonas: {}", "Tel.: {}", "Mobilusis: {}"],
}

NAME_LABELS = {
    "en": ["Contact person: {}", "Customer name: {}", "Name: {}", "Client: {}", "Patient: {}", "Employee: {}",
           "Applicant: {}", "Account holder: {}", "Recipient: {}", "Sender: {}", "Signatory: {}", "Tenant: {}",
           "Guarantor: {}", "Owner: {}"],
    "tr": ["Ad Soyad: {}", "Adı Soyadı: {}", "Müşteri: {}", "Yetkili: {}", "İlgili kişi: {}", "Alıcı: {}", "Gönderen: {}"],
    "de": ["Name: {}", "Ansprechpartner: {}", "Kunde: {}", "Kontoinhaber: {}", "Empfänger: {}"],
    "fr": ["Nom : {}", "Client : {}", "Titulaire : {}", "Destinataire : {}", "Contact : {}"],
    "nl": ["Naam: {}", "Klant: {}", "Contactpersoon: {}", "Rekeninghouder: {}"],
    "es": ["Nombre: {}", "Titular: {}", "Cliente: {}", "Persona de contacto: {}"],
    "it": ["Nome: {}", "Cliente: {}", "Intestatario: {}", "Referente: {}"],
    "pt": ["Nome: {}", "Cliente: {}", "Titular: {}"],
    "pl": ["Imię i nazwisko: {}", "Klient: {}", "Osoba kontaktowa: {}"],
    "cs": ["Jméno: {}", "Zákazník: {}", "Kontaktní osoba: {}"],
    "sk": ["Meno: {}", "Zákazník: {}"],
    "sv": ["Namn: {}", "Kund: {}", "Kontaktperson: {}"],
    "da": ["Navn: {}", "Kunde: {}", "Kontaktperson: {}"],
    "no": ["Navn: {}", "Kunde: {}", "Kontaktperson: {}"],
    "fi": ["Nimi: {}", "Asiakas: {}", "Yhteyshenkilö: {}"],
    "el": ["Όνομα: {}", "Πελάτης: {}", "Ονοματεπώνυμο: {}"],
    "hu": ["Név: {}", "Ügyfél: {}", "Kapcsolattartó: {}"],
    "ro": ["Nume: {}", "Client: {}", "Persoană de contact: {}"],
    "bg": ["Име: {}", "Клиент: {}"],
    "hr": ["Ime i prezime: {}", "Kupac: {}"],
    "sl": ["Ime in priimek: {}", "Stranka: {}"],
    "et": ["Nimi: {}", "Klient: {}"],
    "lv": ["Vārds: {}", "Klients: {}"],
    "lt": ["Vardas: {}", "Klientas: {}"],
}

LOOK_ALIKES = [
    "Order no. {} was shipped on {}.", "Invoice {} dated {}, total {} EUR.", "Tracking code {} ({} parcels).",
    "SKU {}, quantity {}, page {}.", "Room {} on floor {}, booking {}.",
]

SCRIPTS_WITHOUT_LATIN_NAMES = {"el", "bg"}


def look_alike(rng):
    template = rng.choice(LOOK_ALIKES)
    values = []
    for _ in range(template.count("{}")):
        kind = rng.randrange(5)
        if kind == 0:
            values.append(str(rng.randrange(10_000, 99_999_999)))
        elif kind == 1:
            values.append(f"{rng.randrange(1, 28):02d}.{rng.randrange(1, 12):02d}.{rng.randrange(1990, 2026)}")
        elif kind == 2:
            values.append(f"{rng.randrange(1, 99_999):,}.{rng.randrange(100):02d}")
        elif kind == 3:
            values.append(f"{rng.choice(['INV', 'PO', 'SO', 'TRK'])}-{rng.randrange(2020, 2026)}-{rng.randrange(1, 99999):05d}")
        else:
            values.append(str(rng.randrange(1, 999)))
    return template.format(*values)


def valid_phone(value, region):
    try:
        number = phonenumbers.parse(value, region)
    except phonenumbers.NumberParseException:
        return None
    return number if phonenumbers.is_valid_number(number) else None


def international(number, rng):
    """An international layout of a valid number: +CC, 00CC, with the formatter's or other grouping."""
    text = phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.INTERNATIONAL)
    choice = rng.randrange(4)
    if choice == 1:
        text = "00" + text[1:]
    elif choice == 2:
        text = phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)
    elif choice == 3:
        # Other separators between the groups (the extension, if any, written as before).
        number, sep, extension = text.partition(" ext. ")
        number = number.replace(" ", "-", 1) if rng.random() < 0.5 else number.replace(" ", ".")
        text = number + sep + extension
    return text


def plant(parts, planted, text, kind, region, value_start_in_text, value):
    start = len("".join(parts).encode())
    before, after = text.split("{}", 1)
    parts.append(before)
    begin = len("".join(parts).encode())
    parts.append(value)
    planted.append((begin, begin + len(value.encode()), kind, region, value))
    parts.append(after)
    return start


def documents(count, seed):
    rng = random.Random(seed)
    fakers = {}
    for locale in LOCALES:
        fake = Faker(locale)
        fake.seed_instance(seed + zlib.crc32(locale.encode()) % 1000)
        fakers[locale] = fake
    docs = []
    for index in range(count):
        locale = list(LOCALES)[index % len(LOCALES)]
        region, language = LOCALES[locale]
        fake = fakers[locale]
        parts, planted = [], []
        for _ in range(6):
            roll = rng.random()
            if roll < 0.4:
                for _ in range(20):
                    value = fake.phone_number()
                    number = valid_phone(value, region)
                    if number is not None:
                        break
                else:
                    continue
                label = rng.choice(PHONE_LABELS.get(language, PHONE_LABELS["en"]) + PHONE_LABELS["en"][:2])
                plant(parts, planted, label, "phone_labelled", region, 0, value)
            elif roll < 0.6:
                for _ in range(20):
                    number = valid_phone(fake.phone_number(), region)
                    if number is not None:
                        break
                else:
                    continue
                value = international(number, rng)
                sentence = rng.choice(["We spoke on {} yesterday.", "{} (office)", "See {} and the notes below."])
                plant(parts, planted, sentence, "phone_international_bare", region, 0, value)
            elif roll < 0.85:
                if language in SCRIPTS_WITHOUT_LATIN_NAMES and rng.random() < 0.5:
                    pass
                name = f"{fake.first_name()} {fake.last_name()}"
                label = rng.choice(NAME_LABELS.get(language, NAME_LABELS["en"]) + NAME_LABELS["en"][:3])
                plant(parts, planted, label, "name_labelled", region, 0, name)
            else:
                parts.append(look_alike(rng))
            parts.append("\n")
        docs.append(("".join(parts), planted))
    return docs


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--documents", type=int, default=600)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--min", type=float, default=None)
    parser.add_argument("--misses", type=int, default=0, help="print up to N missed values")
    args = parser.parse_args()
    docs = documents(args.documents, args.seed)
    findings = masking.findings(args.binary, [text for text, _ in docs])
    totals = defaultdict(lambda: [0, 0])
    per_region = defaultdict(lambda: [0, 0])
    misses = []
    true_findings = false_findings = 0
    for (text, planted), found in zip(docs, findings):
        raw = text.encode()
        for (start, end, kind, region, value) in planted:
            covered = set()
            for finding in found:
                covered.update(range(max(start, finding["start"]), min(end, finding["end"])))
            masked = all(raw[k:k + 1].isspace() or k in covered for k in range(start, end))
            totals[kind][1] += 1
            per_region[(kind, region)][1] += 1
            if masked:
                totals[kind][0] += 1
                per_region[(kind, region)][0] += 1
            else:
                line_start = raw.rfind(b"\n", 0, start) + 1
                line_end = raw.find(b"\n", end)
                misses.append((kind, region, value, raw[line_start:line_end].decode()))
        for finding in found:
            if any(finding["start"] < end and start < finding["end"] for (start, end, *_rest) in planted):
                true_findings += 1
            else:
                false_findings += 1
                misses.append(("false_finding", finding["type"], raw[finding["start"]:finding["end"]].decode(errors="replace"), ""))
    print(f"{'kind':<28}{'region':<8}{'masked':>8}{'of':>6}{'recall':>9}")
    for (kind, region), (hit, total) in sorted(per_region.items()):
        print(f"{kind:<28}{region:<8}{hit:>8}{total:>6}{hit / total:>9.3f}")
    failed = False
    for kind, (hit, total) in sorted(totals.items()):
        recall = hit / total
        print(f"{kind}: {hit}/{total} = {recall:.4f}")
        if args.min is not None and recall < args.min:
            failed = True
    precision = true_findings / max(1, true_findings + false_findings)
    print(f"precision: {true_findings}/{true_findings + false_findings} = {precision:.4f}")
    for miss in misses[: args.misses]:
        print("MISS", *miss, sep=" | ")
    if args.min is not None and precision < args.min:
        failed = True
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
