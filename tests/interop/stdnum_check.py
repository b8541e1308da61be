# Validates surrogate identifiers with python-stdnum, an implementation independent of docsieve's.
# Reads "<kind> <compact value>" lines (kind: tckn, vkn, iban, card) on standard input; prints "ok"
# when every value validates, and fails with stdnum's exception at the first that does not. Used by
# the surrogate unit test (actors/src/pii_masker/surrogate.rs) and the HTTP test (tests/api/privacy.rs).
import sys

from stdnum import iban, luhn
from stdnum.tr import tckimlik, vkn

check = {"tckn": tckimlik.validate, "vkn": vkn.validate, "iban": iban.validate, "card": luhn.validate}
for line in sys.stdin:
    kind, value = line.split()
    check[kind](value)
print("ok")
