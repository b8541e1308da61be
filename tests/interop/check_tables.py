"""The PII engine's country tables against the sources they were generated from.

actors/src/pii_masker/detectors/data/iban_lengths.txt must list exactly the countries and lengths of the
SWIFT IBAN registry as python-stdnum carries it (stdnum/iban.dat), and iso3166_alpha2.txt exactly the
ISO 3166-1 alpha-2 codes of pycountry, and detectors/vat.rs's VAT_PREFIXES exactly python-stdnum's EU VAT
member states (Greece as VIES writes it, EL). Exits non-zero, naming the difference, when either has drifted.
"""

import os
import re
import sys

import pycountry
import stdnum

DATA = os.path.join(os.path.dirname(__file__), "..", "..", "actors", "src", "pii_masker", "detectors", "data")


def read(name):
    with open(os.path.join(DATA, name), encoding="utf-8") as f:
        return [line.split() for line in f if line.strip() and not line.startswith("#")]


def main():
    failures = []
    registry = {}
    with open(os.path.join(os.path.dirname(stdnum.__file__), "iban.dat"), encoding="utf-8") as f:
        for line in f:
            m = re.match(r'^([A-Z]{2}) .*bban="([^"]+)"', line)
            if m:
                registry[m.group(1)] = 4 + sum(int(n) for n in re.findall(r"(\d+)!?[nac]", m.group(2)))
    ours = {code: int(length) for code, length in read("iban_lengths.txt")}
    if ours != registry:
        failures.append(
            "iban_lengths.txt differs from stdnum's registry: "
            f"missing {sorted(set(registry) - set(ours))}, extra {sorted(set(ours) - set(registry))}, "
            f"other lengths {sorted(c for c in ours if c in registry and ours[c] != registry[c])}"
        )
    iso = {country.alpha_2 for country in pycountry.countries}
    codes = {row[0] for row in read("iso3166_alpha2.txt")}
    if codes != iso:
        failures.append(f"iso3166_alpha2.txt differs from pycountry: missing {sorted(iso - codes)}, extra {sorted(codes - iso)}")
    with open(os.path.join(DATA, "..", "vat.rs"), encoding="utf-8") as f:
        source = f.read()
    opening = source.index("= [", source.index("const VAT_PREFIXES"))
    listed = source[opening:source.index("];", opening)]
    prefixes = set(re.findall(r'b"([A-Z]{2})"', listed))
    from stdnum.eu import vat

    members = {("EL" if code == "gr" else code.upper()) for code in vat.MEMBER_STATES}
    if prefixes != members:
        failures.append(f"VAT_PREFIXES differ from stdnum.eu.vat: missing {sorted(members - prefixes)}, extra {sorted(prefixes - members)}")
    for failure in failures:
        print(failure)
    print(
        f"country tables: {len(ours)} IBAN countries (stdnum {stdnum.__version__}), {len(codes)} ISO 3166-1 codes, "
        f"{len(prefixes)} VAT prefixes: " + ("differ" if failures else "match their sources")
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
