#!/usr/bin/env python3
"""People in running text, written by a third-party generator: recall of every mention, and false people.

Faker names one person per document in 12 languages; the sentences are this script's own (not the
engine's test generator's, `planted::prose`), so that both the names and the phrasing are held out.
Each document names the person once in full inside a sentence, then mentions them twice more as
writers do: the surname alone, the given name alone, a title and the surname, or the surname inflected
(English 's, the German, Dutch, Swedish and Danish genitive -s, a Turkish suffix after an apostrophe,
Polish and Czech case endings). A name-free counterpart puts a Faker company or city where the person
would stand. The documents go through `docsieve mask --no-mask --json`; a mention counts as masked when
findings cover every byte of its personal part.

usage: prose_recall.py DOCSIEVE_BINARY [--documents N] [--seed S] [--min-first R] [--min-later R]
                       [--max-false R] [--misses N]
Prints recall per language and kind of mention and the share of name-free documents with a person,
and exits 1 when the first mentions, the later mentions (all languages) or the false share miss the
bars given.
"""

import argparse
import random
import sys
import zlib
from collections import defaultdict

from faker import Faker

import masking

LOCALES = {
    "en": "en_US", "de": "de_DE", "fr": "fr_FR", "it": "it_IT", "es": "es_ES", "nl": "nl_NL",
    "pl": "pl_PL", "sv": "sv_SE", "da": "da_DK", "pt": "pt_PT", "tr": "tr_TR", "cs": "cs_CZ",
}

# language -> first-mention sentences, later-mention sentences, fillers, (title for a man, for a woman)
# {name}: given name and surname; {surname}, {given}, {titled}, {inflected}: later mentions; {thing}: a
# company or a city (the name-free counterpart puts it where {name} stands).
PROSE = {
    "en": (
        ["The minutes were taken by {name} on Tuesday.", "At the hearing, {name} described the delay in detail.",
         "We forwarded the complaint to {name} last week.", "Our auditor met {name} at the Leeds office."],
        ["Afterwards {surname} asked for a copy of the invoice.", "{given} confirmed the figures by phone.",
         "{titled} declined to sign the amendment.", "The board accepted {inflected} proposal."],
        ["The shipment from {thing} arrived late.", "Quarterly Results And Outlook", "Payment terms changed in May."],
        ("Mr", "Ms"),
    ),
    "de": (
        ["Das Protokoll führte am Dienstag {name}.", "In der Anhörung schilderte {name} die Verzögerung.",
         "Wir haben die Beschwerde an {name} weitergeleitet.", "Unser Prüfer traf {name} in der Filiale."],
        ["Danach bat {surname} um eine Kopie der Rechnung.", "{given} bestätigte die Zahlen telefonisch.",
         "{titled} lehnte die Unterschrift ab.", "Der Vorstand nahm {inflected} Vorschlag an."],
        ["Die Lieferung von {thing} kam verspätet an.", "Quartalsbericht Und Ausblick", "Die Zahlungsbedingungen änderten sich im Mai."],
        ("Herr", "Frau"),
    ),
    "fr": (
        ["Le procès-verbal a été rédigé par {name} mardi.", "Lors de l'audience, {name} a décrit le retard.",
         "Nous avons transmis la réclamation à {name} la semaine dernière.", "Notre auditeur a rencontré {name} à l'agence."],
        ["Ensuite, {surname} a demandé une copie de la facture.", "{given} a confirmé les chiffres par téléphone.",
         "{titled} a refusé de signer l'avenant."],
        ["La livraison de {thing} est arrivée en retard.", "Résultats Trimestriels Et Perspectives", "Les conditions de paiement ont changé en mai."],
        ("M.", "Mme"),
    ),
    "it": (
        ["Il verbale è stato redatto da {name} martedì.", "Durante l'udienza {name} ha descritto il ritardo.",
         "Abbiamo inoltrato il reclamo a {name} la settimana scorsa.", "Il nostro revisore ha incontrato {name} in filiale."],
        ["In seguito {surname} ha chiesto una copia della fattura.", "{given} ha confermato i dati per telefono.",
         "{titled} ha rifiutato di firmare la modifica."],
        ["La consegna di {thing} è arrivata in ritardo.", "Risultati Trimestrali E Prospettive", "Le condizioni di pagamento sono cambiate a maggio."],
        ("il signor", "la signora"),
    ),
    "es": (
        ["El acta fue redactada por {name} el martes.", "En la audiencia, {name} describió el retraso.",
         "Remitimos la reclamación a {name} la semana pasada.", "Nuestro auditor se reunió con {name} en la sucursal."],
        ["Después, {surname} pidió una copia de la factura.", "{given} confirmó las cifras por teléfono.",
         "{titled} se negó a firmar la modificación."],
        ["El envío de {thing} llegó tarde.", "Resultados Trimestrales Y Perspectivas", "Las condiciones de pago cambiaron en mayo."],
        ("el Sr.", "la Sra."),
    ),
    "nl": (
        ["Het verslag werd dinsdag opgesteld door {name}.", "Tijdens de hoorzitting beschreef {name} de vertraging.",
         "We hebben de klacht vorige week doorgestuurd naar {name}.", "Onze accountant sprak {name} op het kantoor."],
        ["Daarna vroeg {surname} om een kopie van de factuur.", "{given} bevestigde de cijfers telefonisch.",
         "{titled} weigerde de wijziging te tekenen.", "Het bestuur nam {inflected} voorstel aan."],
        ["De zending van {thing} kwam te laat aan.", "Kwartaalcijfers En Vooruitzichten", "De betalingsvoorwaarden veranderden in mei."],
        ("de heer", "mevrouw"),
    ),
    "pl": (
        ["Protokół sporządził we wtorek {name}.", "Podczas przesłuchania {name} opisał opóźnienie.",
         "W zeszłym tygodniu skargę przekazaliśmy, a odpowiedział {name}.", "Nasz audytor spotkał się z klientem, którym był {name}."],
        ["Następnie {surname} poprosił o kopię faktury.", "{given} potwierdził dane telefonicznie.",
         "{titled} odmówił podpisania aneksu.", "Zarząd przyjął propozycję {inflected}."],
        ["Dostawa od {thing} dotarła z opóźnieniem.", "Wyniki Kwartalne I Prognozy", "Warunki płatności zmieniły się w maju."],
        ("Pan", "Pani"),
    ),
    "sv": (
        ["Protokollet fördes i tisdags av {name}.", "Vid förhöret beskrev {name} förseningen.",
         "Vi skickade klagomålet till {name} förra veckan.", "Vår revisor träffade {name} på kontoret."],
        ["Därefter bad {surname} om en kopia av fakturan.", "{given} bekräftade siffrorna per telefon.",
         "Styrelsen godkände {inflected} förslag."],
        ["Leveransen från {thing} kom sent.", "Kvartalsrapport Och Utsikter", "Betalningsvillkoren ändrades i maj."],
        ("herr", "fru"),
    ),
    "da": (
        ["Referatet blev skrevet af {name} i tirsdags.", "Under høringen beskrev {name} forsinkelsen.",
         "Vi sendte klagen videre til {name} i sidste uge.", "Vores revisor mødte {name} på kontoret."],
        ["Bagefter bad {surname} om en kopi af fakturaen.", "{given} bekræftede tallene telefonisk.",
         "Bestyrelsen godkendte {inflected} forslag."],
        ["Leverancen fra {thing} kom for sent.", "Kvartalsrapport Og Udsigter", "Betalingsbetingelserne ændrede sig i maj."],
        ("hr.", "fru"),
    ),
    "pt": (
        ["A ata foi redigida por {name} na terça-feira.", "Na audiência, {name} descreveu o atraso.",
         "Encaminhámos a reclamação para {name} na semana passada.", "O nosso auditor reuniu-se com {name} na agência."],
        ["Depois, {surname} pediu uma cópia da fatura.", "{given} confirmou os números por telefone.",
         "{titled} recusou-se a assinar a alteração."],
        ["A entrega de {thing} chegou atrasada.", "Resultados Trimestrais E Perspetivas", "As condições de pagamento mudaram em maio."],
        ("o Sr.", "a Sra."),
    ),
    "tr": (
        ["Toplantı tutanağını salı günü {name} yazdı.", "Duruşmada {name} gecikmeyi ayrıntılı anlattı.",
         "Şikâyeti geçen hafta {name} adına ilettik.", "Denetçimiz şubede {name} ile buluştu."],
        ["Ardından {surname} faturanın bir kopyasını istedi.", "{given} rakamları telefonla doğruladı.",
         "{titled} ek protokolü imzalamayı reddetti.", "Yönetim kurulu {inflected} önerisini kabul etti."],
        ["{thing} sevkiyatı geç ulaştı.", "Üç Aylık Sonuçlar Ve Beklentiler", "Ödeme koşulları mayıs ayında değişti."],
        ("Bay", "Bayan"),
    ),
    "cs": (
        ["Zápis v úterý sepsal {name}.", "Při slyšení {name} popsal zpoždění.",
         "Stížnost jsme minulý týden předali, odpověděl {name}.", "Náš auditor se na pobočce setkal s tím, kdo podepsal: {name}."],
        ["Poté {surname} požádal o kopii faktury.", "{given} potvrdil čísla telefonicky.",
         "{titled} odmítl dodatek podepsat.", "Představenstvo přijalo návrh {inflected}."],
        ["Zásilka od {thing} přišla pozdě.", "Čtvrtletní Výsledky A Výhled", "Platební podmínky se v květnu změnily."],
        ("pan", "paní"),
    ),
}

# A company counts as a thing only with a legal form in its name: Faker's companies are often bare
# surnames ("Kramer", "Santos"), which name a person as much as a firm.
LEGAL_FORMS = {
    "inc", "group", "llc", "plc", "ltd", "ltd.", "ag", "gmbh", "kgaa", "e.v.", "sa", "s.a.", "s.r.l.", "spa",
    "s.l.", "s.coop.", "nv", "bv", "b.v.", "sp.", "sp.j.", "s.c.", "ab", "hb", "a/s", "aps", "lda.", "s/a",
    "a.ş.", "san.", "s.r.o.", "v.o.s.", "o.s.",
}
# Faker's English, French and Turkish cities are made up ("Port Eleanor", "RaynaudVille", "West
# Altınkayatown"): real places instead.
PLACES = {
    "fr": ["Lyon", "Toulouse", "Nantes", "Rennes", "Lille", "Bordeaux", "Grenoble", "Dijon", "Angers", "Reims"],
    "tr": ["İzmir", "Bursa", "Antalya", "Eskişehir", "Kayseri", "Trabzon", "Gaziantep", "Konya", "Samsun", "Mersin"],
}


def thing(fake, language, rng):
    """A company with a legal form, or a place: what stands where a person would."""
    if rng.random() < 0.5:
        for _ in range(20):
            company = fake.company()
            if any(word.lower().strip(",") in LEGAL_FORMS for word in company.split()):
                return company
    if language in PLACES:
        return rng.choice(PLACES[language])
    return fake.state() if language == "en" else fake.city()


BACK_VOWELS = set("aıouAIOU")
FRONT_VOWELS = set("eiöüEİÖÜ")


def inflect(language, surname, female):
    """The surname in a case the template's sentence asks for."""
    if language == "en":
        return surname + "'s"
    if language in ("de", "nl", "sv", "da"):
        return surname if surname.endswith(("s", "x", "z")) else surname + "s"
    if language == "tr":
        vowels = [c for c in surname if c in BACK_VOWELS or c in FRONT_VOWELS]
        last = vowels[-1] if vowels else "a"
        suffix = {"a": "ın", "ı": "ın", "o": "un", "u": "un", "e": "in", "i": "in", "ö": "ün", "ü": "ün"}[last.lower()]
        if surname[-1].lower() in "aeıioöuü":
            suffix = "n" + suffix
        return f"{surname}'{suffix}"
    if language == "pl":
        if surname.endswith(("ski", "cki", "dzki")):
            return surname[:-1] + "iego"
        if surname.endswith(("ska", "cka", "dzka")):
            return surname[:-1] + "iej"
        if surname.endswith("a"):
            return surname[:-1] + "y"
        return surname + "a"
    if language == "cs":
        if surname.endswith("ová"):
            return surname[:-1] + "é"
        if surname.endswith("ý"):
            return surname[:-1] + "ého"
        if surname[-1] in "aeiouyáéíóúů":
            return surname
        return surname + "a"
    return surname


def personal_end(surname, inflected):
    """Bytes of the inflected surname that are personal: up to an apostrophe, else the shared prefix."""
    if "'" in inflected:
        return len(inflected[: inflected.index("'")].encode())
    shared = 0
    for a, b in zip(surname, inflected):
        if a != b:
            break
        shared += 1
    return len(inflected[: max(shared, 3)].encode())


def fill(template, values, parts, planted, language, kinds):
    """Appends `template` with its keys filled, recording each personal part."""
    # A sentence starts with a capital, also when a title written in lower case opens it ("de heer").
    text = template[0].upper() + template[1:] if template.startswith("{") is False else template
    first_key = template.startswith("{")
    while True:
        at = text.find("{")
        if at < 0:
            break
        close = text.index("}", at)
        parts.append(text[:at])
        key = text[at + 1 : close]
        value, personal = values[key]
        if first_key and at == 0:
            value = value[0].upper() + value[1:]
        begin = len("".join(parts).encode())
        parts.append(value)
        if key in kinds:
            start = begin + personal[0]
            planted.append((start, begin + personal[1], language, kinds[key], value))
        text = text[close + 1 :]
    parts.append(text)


def join(sentences, values, parts, planted, language, kinds, rng):
    """The sentences one after the other, a paragraph's break now and then; a heading (no full stop)
    on a line of its own."""
    for index, sentence in enumerate(sentences):
        heading = not sentence.endswith(".")
        if index:
            after_heading = not sentences[index - 1].endswith(".")
            parts.append("\n" if heading or after_heading or rng.random() < 0.2 else " ")
        fill(sentence, values, parts, planted, language, kinds)


KINDS = {"name": "first", "surname": "surname", "given": "given name", "titled": "title + surname", "inflected": "inflected"}


def documents(per_language, seed):
    rng = random.Random(seed)
    with_people, name_free = [], []
    for language, locale in LOCALES.items():
        fake = Faker(locale)
        fake.seed_instance(seed + zlib.crc32(locale.encode()) % 1000)
        first, later, fillers, titles = PROSE[language]
        for _ in range(per_language):
            female = rng.random() < 0.5
            given = fake.first_name_female() if female else fake.first_name_male()
            surname = fake.last_name_female() if female else fake.last_name_male()
            # One surname a person: Faker writes double ones for some locales ("García Pérez").
            title = titles[1] if female else titles[0]
            inflected = inflect(language, surname, female)
            item = thing(fake, language, rng)
            full = f"{given} {surname}"
            titled = f"{title} {surname}"
            values = {
                "name": (full, (0, len(full.encode()))),
                "surname": (surname, (0, len(surname.encode()))),
                "given": (given, (0, len(given.encode()))),
                "titled": (titled, (len(title.encode()) + 1, len(titled.encode()))),
                "inflected": (inflected, (0, personal_end(surname, inflected))),
                "thing": (item, (0, 0)),
            }
            parts, planted = [], []
            sentences = [rng.choice(first)] + rng.sample(later, 2)
            if rng.random() < 0.7:
                sentences.insert(rng.randrange(1, len(sentences) + 1), rng.choice(fillers))
            join(sentences, values, parts, planted, language, KINDS, rng)
            with_people.append(("".join(parts), planted))
            # The counterpart: the same first sentence with a company or a city, and fillers.
            parts = []
            values = {"name": (item, (0, 0)), "thing": (item, (0, 0))}
            join([rng.choice(first)] + rng.sample(fillers, 2), values, parts, [], language, {}, rng)
            name_free.append(("".join(parts), language))
    return with_people, name_free


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--documents", type=int, default=100, help="documents per language")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--min-first", type=float, default=None)
    parser.add_argument("--min-later", type=float, default=None)
    parser.add_argument("--max-false", type=float, default=None)
    parser.add_argument("--misses", type=int, default=0, help="print up to N missed mentions")
    args = parser.parse_args()
    with_people, name_free = documents(args.documents, args.seed)
    found = masking.findings(args.binary, [text for text, _ in with_people] + [text for text, _ in name_free])
    counts = defaultdict(lambda: [0, 0])
    misses = []
    for (text, planted), findings in zip(with_people, found):
        raw = text.encode()
        names = [f for f in findings if f["type"] == "person_name"]
        for start, end, language, kind, value in planted:
            covered = set()
            for finding in names:
                covered.update(range(max(start, finding["start"]), min(end, finding["end"])))
            masked = all(raw[k : k + 1].isspace() or k in covered for k in range(start, end))
            for key in ((language, kind), ("all", kind), ("all", "later" if kind != "first" else "first")):
                counts[key][1] += 1
                counts[key][0] += int(masked)
            if not masked:
                misses.append((language, kind, value, text.replace("\n", " ")))
    false_people = defaultdict(lambda: [0, 0])
    for (text, language), findings in zip(name_free, found[len(with_people) :]):
        people = [text.encode()[f["start"] : f["end"]].decode(errors="replace") for f in findings if f["type"] == "person_name"]
        for key in (language, "all"):
            false_people[key][1] += 1
            false_people[key][0] += int(bool(people))
        if people:
            misses.append((language, "false person", ", ".join(people), text))
    kinds = list(KINDS.values())
    print(f"{'language':<10}" + "".join(f"{kind:>17}" for kind in kinds) + f"{'false people':>14}")
    for language in [*LOCALES, "all"]:
        row = f"{language:<10}"
        for kind in kinds:
            hit, total = counts.get((language, kind), (0, 0))
            row += f"{(f'{hit / total:.3f} ({total})' if total else '-'):>17}"
        hit, total = false_people[language]
        row += f"{hit / max(1, total):>14.3f}"
        print(row)
    first = counts[("all", "first")]
    later = counts[("all", "later")]
    false_share = false_people["all"][0] / max(1, false_people["all"][1])
    print(f"first mentions: {first[0]}/{first[1]} = {first[0] / first[1]:.4f}")
    print(f"later mentions: {later[0]}/{later[1]} = {later[0] / later[1]:.4f}")
    print(f"name-free documents with a person: {false_people['all'][0]}/{false_people['all'][1]} = {false_share:.4f}")
    for miss in misses[: args.misses]:
        print("MISS", *miss, sep=" | ")
    failed = (
        (args.min_first is not None and first[0] / first[1] < args.min_first)
        or (args.min_later is not None and later[0] / later[1] < args.min_later)
        or (args.max_false is not None and false_share > args.max_false)
    )
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
