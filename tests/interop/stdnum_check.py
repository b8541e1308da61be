# Validates surrogate identifiers with python-stdnum, an implementation independent of docsieve's.
# Reads "<kind> <compact value>" lines (kind: a key of `check` below) on standard input; prints "ok"
# when every value validates, and fails with stdnum's exception at the first that does not. Used by
# the surrogate unit test (actors/src/pii_masker/surrogate/mod.rs) and the HTTP test (tests/api/privacy.rs).
import sys

from stdnum import iban, imei, luhn
from stdnum.de import idnr
from stdnum.es import dni, nie
from stdnum.gb import nhs
from stdnum.nl import bsn
from stdnum.tr import tckimlik, vkn
from stdnum.us import rtn

check = {
    "tckn": tckimlik.validate,
    "vkn": vkn.validate,
    "iban": iban.validate,
    "card": luhn.validate,
    "imei": imei.validate,
    # stdnum has no NPI module: an NPI is valid when Luhn holds over "80840" and its ten digits.
    "npi": lambda value: luhn.validate("80840" + value),
    "rtn": rtn.validate,
    "idnr": idnr.validate,
    "nhs": nhs.validate,
    "bsn": bsn.validate,
    "dni": dni.validate,
    "nie": nie.validate,
}
for line in sys.stdin:
    kind, value = line.split()
    check[kind](value)
print("ok")
