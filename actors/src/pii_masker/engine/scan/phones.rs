//! Phone numbers of every region, by libphonenumber's metadata (`detectors::phone`): a span of digits
//! written after `+`, `00` or `011` with an assigned country code; a national number behind a phone
//! label or phrase, valid in one of the configured regions whatever its layout (privacy fails closed);
//! and a bare national number only when it is written exactly in one of its region's own layouts.
//! Turkish numbers keep their own rules (`evaluate`); a `+90` or `0090` number is always `phone_tr`.

use super::*;
use crate::pii_masker::detectors::phone;

/// The digits of a span in a fixed buffer, as text for the metadata's patterns.
fn as_str(s: &[u8]) -> &str {
    std::str::from_utf8(s).unwrap_or("")
}

impl<'t> Scanner<'t> {
    /// The phone number a span of digits may be, in any region but Turkey's national numbers (which
    /// `digits_span` judges).
    pub(super) fn world_phone(&mut self, span: &Span<'_>, context: &mut Option<TypeSet>) {
        let Span {
            s,
            len,
            lens,
            count,
            seps,
            start,
            end,
            first,
            last,
            chain_len,
            plus,
            ..
        } = *span;
        // (Eighteen digits: fifteen of a number, its country code and a "(0)".)
        if !(4..=18).contains(&len)
            || seps & !(SEP_SPACE | SEP_DASH | SEP_DOT | SEP_PAREN | SEP_SLASH) != 0
        {
            return;
        }
        // Four or five digits are a phone number only behind a phone label, where a region's metadata
        // says so ("Tél. : 3485" in Luxembourg, "Puh. 90-953" in Finland).
        let short = len < 6;
        // And only the whole of a chain ("01 115"), not a part of a longer number ("12 34").
        if short && !self.all_digits_within(first, last, chain_len) {
            return;
        }
        // A slash joins an area code to its number ("089/1234567", "(06)91/417-7763"), once, early;
        // elsewhere it joins two numbers or a date.
        if seps & SEP_SLASH != 0 && !self.one_early_slash(first, last) {
            return;
        }
        let international = plus && first == 0 && !short;
        if international {
            self.international_phone(span, s, B_FORM);
            return;
        }
        // Written with the international prefix: "00420 773 602 266", "011 44 20 7946 0958".
        if s.starts_with(b"00") && !s.starts_with(b"000") && !short {
            if s.starts_with(b"0090") {
                return;
            }
            let labelled = self.phone_label_near(start, end);
            if count >= 2 || labelled {
                let confidence = if labelled { B_FORM } else { B_CONTEXT };
                self.international_phone(span, &s[2..], confidence);
            }
            return;
        }
        // The US exit code: only when what follows is a valid international number (a national
        // number may start with 011 too: "0111 387250" in Zierikzee).
        if s.starts_with(b"011")
            && phone::international(as_str(&s[3..])).is_some_and(|(_, _, valid)| valid)
            && self.phone_label_near(start, end)
        {
            self.international_phone(span, &s[3..], B_CONTEXT);
            return;
        }
        // Without a label, only the whole grouped number, in groups, not an amount ("612 345 678",
        // "1.234.567"), may be one. Brackets hold an area code at the start ("(0316) 71081 582"), not a
        // part further on ("180 (88046878 parcels)"); two groups are not distinctive enough without
        // them ("Fiyat: 030 123456"). (An amount has no leading zero: "02 123 456" is a Sofia number.)
        // These cheap tests come first: most spans are neither labelled nor so shaped.
        let bracketed = self.b.get(start) == Some(&b'(');
        let thousands =
            s[0] != b'0' && lens[1..].iter().all(|&l| l == 3) && seps & !(SEP_SPACE | SEP_DOT) == 0;
        let bare_shape = !thousands
            && !short
            && len <= 15
            && (count >= 3 || (count == 2 && bracketed))
            && (seps & SEP_PAREN == 0 || bracketed);
        // A column or key that says phone, or a phone keyword in the span's window that stands right
        // before or after the number (looked for last: it is the dearest test).
        let given = self.given_context(start).0 & PHONES != 0;
        let in_window = !given && self.span_context(context, first, chain_len).0 & PHONES != 0;
        // A national number after any phrase ("Rückruf an 030 1234567", "chiamare lo 06 12345678"):
        // written with its trunk 0, in two or three groups (one run of digits is as often an id),
        // the whole of its chain.
        let trunk_national = !short
            && s[0] == b'0'
            && s[1] != b'0'
            && (9..=11).contains(&len)
            && (2..=3).contains(&count)
            && seps & !(SEP_SPACE | SEP_DASH | SEP_SLASH) == 0;
        let trunk_national = trunk_national && self.all_digits_within(first, last, chain_len);
        if !given
            && !in_window
            && !trunk_national
            && (!bare_shape || !self.all_digits_within(first, last, chain_len))
        {
            return;
        }
        if is_date(s, lens) || self.chain_is_date(chain_len) {
            return;
        }
        // A Turkish number ("0532 123 45 67", "532 123 45 67") is `digits_span`'s, as `phone_tr`; but
        // one it leaves, in a layout of its own ("050 84168838"), is still masked behind a label.
        if tr::phone_with_prefix(s) || (len == 10 && tr::phone_nsn(s)) {
            let masked = self
                .hits
                .iter()
                .rev()
                .take(4)
                .any(|hit| hit.start <= start && end <= hit.end);
            if !masked && (given || (in_window && self.phone_label_near(start, end))) {
                self.hit(start, end, PiiType::PhoneTr, B_CONTEXT, "phone_tr");
            }
            return;
        }
        let labelled = given
            || (in_window
                && if short {
                    self.phone_label_before(start)
                } else {
                    self.phone_label_near(start, end)
                });
        if !labelled && !bare_shape {
            // Valid in a configured region, and not a reference, an amount or a quantity.
            if trunk_national
                && !amount_follows(self.b, end)
                && !reference_before(self.b, start)
                && phone::national_regions(as_str(s)).any(|(rules, _)| &rules.id != b"TR")
            {
                self.hit(start, end, PiiType::PhoneIntl, B_CONTEXT, "phone_intl");
            }
            return;
        }
        let digits = as_str(s);
        if labelled {
            // Behind a phone label: valid in one of the regions, whatever its layout; or shaped as
            // phone numbers are written (one run after a trunk 0; an area code after a trunk 0 and the
            // number, "030 123456"; groups of at most four digits), not a date nor an amount.
            // Not an amount in thousands ("Telefon 1.250.000 TL"): a currency or decimals after it.
            if count > 1
                && s[0] != b'0'
                && lens[1..].iter().all(|&l| l == 3)
                && amount_follows(self.b, end)
            {
                return;
            }
            // Valid for the metadata from the chain's first digits: not a span that starts inside
            // another number ("Tel: 0532 123 45 67 0212 345 67 89" holds no "45 67 0212 ...").
            let from_the_start = self.chain.groups[..first].iter().all(|g| g.digits == 0);
            let valid = from_the_start
                && phone::national_regions(digits).any(|(rules, _)| &rules.id != b"TR");
            if short && !valid {
                return;
            }
            let shaped = (7..=13).contains(&len)
                && if count == 1 {
                    s[0] == b'0' && (9..=12).contains(&len)
                } else {
                    seps & SEP_SLASH == 0
                        && (lens.iter().all(|&l| l <= 4)
                            || (count == 2 && s[0] == b'0' && lens[0] <= 5))
                };
            if valid || shaped {
                self.hit(start, end, PiiType::PhoneIntl, B_CONTEXT, "phone_intl");
            }
            return;
        }
        if !self.all_digits_within(first, last, chain_len) {
            return;
        }
        let bare = phone::national_regions(digits).any(|(rules, nsn)| {
            let trunk_written = rules
                .trunk_prefix
                .is_some_and(|trunk| digits.len() > nsn.len() && digits.starts_with(trunk));
            &rules.id != b"TR" && rules.written_as_layout(&nsn, trunk_written, bracketed, lens)
        });
        if bare {
            self.hit(start, end, PiiType::PhoneIntl, B_CONTEXT, "phone_intl");
        }
    }

    /// A number after its country calling code (`digits`: the code and the rest): `phone_tr` for
    /// Turkey's 90, whatever the rest (a `+90` must never be left behind), `phone_intl` otherwise when
    /// the code is assigned, at `confidence` when the rest is valid in one of its regions and one step
    /// lower when not.
    fn international_phone(&mut self, span: &Span<'_>, digits: &[u8], confidence: f32) {
        let (start, end) = (span.start, span.end);
        if digits.starts_with(b"90") {
            // Valid Turkish numbers are `digits_span`'s; this is the rest of them.
            if (10..=13).contains(&digits.len()) && !tr::phone_nsn(&digits[2..]) {
                self.hit(start, end, PiiType::PhoneTr, B_CONTEXT, "phone_tr");
            }
            return;
        }
        // "+49 (0)30 1234567": the trunk 0 in brackets after the code is not dialled.
        let code_digits = span.lens[0] - (span.len - digits.len()).min(span.lens[0]);
        let mut buffer = [0u8; 24];
        let text = if span.count >= 3
            && span.lens[1] == 1
            && (1..=3).contains(&code_digits)
            && digits.get(code_digits) == Some(&b'0')
            && digits.len() <= buffer.len()
        {
            buffer[..code_digits].copy_from_slice(&digits[..code_digits]);
            buffer[code_digits..digits.len() - 1].copy_from_slice(&digits[code_digits + 1..]);
            as_str(&buffer[..digits.len() - 1])
        } else {
            as_str(digits)
        };
        let Some((_, code_length, valid)) = phone::international(text) else {
            return;
        };
        let rest = text.len() - code_length;
        if valid {
            self.hit(start, end, PiiType::PhoneIntl, confidence, "phone_intl");
        } else if (6..=14).contains(&rest) && confidence >= B_FORM {
            // An assigned code and a number of a phone's length, after '+' or behind a label: masked
            // all the same (a number out of the allocated ranges is still someone's).
            self.hit(start, end, PiiType::PhoneIntl, B_CONTEXT, "phone_intl");
        }
    }

    /// Four or five digits in one run right after a phone label and its colon ("Tél. : 3485"): a
    /// phone number where one of the regions' metadata says so (Luxembourg, Austria). Out of line:
    /// the token's fast path only calls it after a colon.
    #[inline(never)]
    pub(super) fn short_phone(&mut self, start: usize, end: usize) {
        let digits = as_str(&self.b[start..end]);
        if (self.given_context(start).0 & PHONES != 0 || self.phone_label_before(start))
            && phone::national_regions(digits).any(|(rules, _)| &rules.id != b"TR")
        {
            self.hit(start, end, PiiType::PhoneIntl, B_CONTEXT, "phone_intl");
        }
    }

    /// Whether a phone label or phrase stands right before the number ("Tel.: ", "Mobile: ", "Call")
    /// or right after it ("... numaralı telefondan arayın").
    fn phone_label_near(&mut self, start: usize, end: usize) -> bool {
        if self.phone_label_before(start) {
            return true;
        }
        // After: a phrase in the same sentence ("... numaralı telefondan arayın"), not the label of
        // the next line or field.
        let b = self.b;
        let limit = (end + PHONE_PHRASE_GAP).min(b.len());
        let to = b[end..limit]
            .iter()
            .position(|&c| matches!(c, b'\n' | b':' | b';'))
            .map_or(limit, |p| end + p);
        to > end
            && self
                .near
                .keywords
                .types_in_moving(&mut self.near.cursors.2, end, to)
                .0
                & PHONES
                != 0
    }

    /// Whether a phone label stands right before `start`, on the same line, close enough
    /// ("Erreichbar unter ", "Telefoonnummer: ").
    fn phone_label_before(&mut self, start: usize) -> bool {
        let b = self.b;
        let mut from = start.saturating_sub(PHONE_LABEL_REACH);
        if let Some(newline) = b[from..start].iter().rposition(|&c| c == b'\n') {
            from += newline + 1;
        }
        from < start
            && self
                .near
                .keywords
                .types_in_moving(&mut self.near.cursors.2, from, start)
                .0
                & PHONES
                != 0
    }

    /// Whether a dotted quad behind a phone label is a valid national number of one of the regions
    /// (Danish and French numbers are written in pairs with dots).
    pub(super) fn dotted_phone(&mut self, span: &Span<'_>) -> bool {
        span.lens.iter().all(|&l| l == 2)
            && self.phone_label_near(span.start, span.end)
            && phone::national_regions(as_str(span.s)).next().is_some()
    }

    /// Whether the groups `first..=last` hold every digit of the chain of `chain_len` groups (a word of
    /// capitals the chain took in around them, "(415) 555-0132 SF", holds none).
    pub(super) fn all_digits_within(&self, first: usize, last: usize, chain_len: usize) -> bool {
        let groups = &self.chain.groups[..chain_len];
        groups[..first].iter().all(|g| g.digits == 0)
            && groups[last + 1..].iter().all(|g| g.digits == 0)
    }

    /// Whether the whole chain is a date ("12.02.2019"): none of its spans is a phone number.
    fn chain_is_date(&self, chain_len: usize) -> bool {
        if chain_len != 3 {
            return false;
        }
        let groups = &self.chain.groups[..3];
        let lens = [groups[0].len(), groups[1].len(), groups[2].len()];
        let digits = &self.chain.norm[groups[0].norm_start..groups[2].norm_end];
        groups.iter().all(|g| g.letters == 0) && is_date(digits, &lens)
    }

    /// Whether the span's groups hold one slash, between its first groups (an area code of at most five
    /// digits before it).
    fn one_early_slash(&self, first: usize, last: usize) -> bool {
        let groups = &self.chain.groups[first..=last];
        let mut slashes = (1..groups.len()).filter(|&k| groups[k].sep & SEP_SLASH != 0);
        match (slashes.next(), slashes.next()) {
            // Five digits of area code, or six with the trunk 0 ("015310/469805").
            (Some(k), None) => groups[..k].iter().map(|g| g.digits).sum::<usize>() <= 6,
            _ => false,
        }
    }
}

/// Bytes after a number in which a phone phrase may stand ("... numaralı telefondan arayın").
const PHONE_PHRASE_GAP: usize = 24;

/// Bytes before a national number in which its phone label or phrase may start, on its line
/// ("Erreichbar unter ", "Numer telefonu komórkowego: ").
const PHONE_LABEL_REACH: usize = 28;

/// Whether what follows a number at `end` makes it an amount: decimals (",50", ".00") or a currency
/// ("TL", "EUR", "€", "$", "Kč", "zł", "kr", "Ft", "lei", "лв").
/// Whether the words right before `start` (on its line, some 24 bytes) say that a number is a
/// reference, a quantity or an amount: "order", "Nr.", "Rechnung", "fatura", "#", a currency.
fn reference_before(b: &[u8], start: usize) -> bool {
    const WORDS: &[&[u8]] = &[
        b"no",
        b"nr",
        b"nro",
        b"num",
        b"number",
        b"numero",
        b"order",
        b"invoice",
        b"ref",
        b"reference",
        b"id",
        b"account",
        b"customer",
        b"case",
        b"ticket",
        b"item",
        b"code",
        b"bestellung",
        b"rechnung",
        b"auftrag",
        b"kunden",
        b"kundennummer",
        b"vorgang",
        b"commande",
        b"facture",
        b"ordine",
        b"fattura",
        b"pedido",
        b"factura",
        b"bestelling",
        b"factuur",
        b"zamowienie",
        b"faktura",
        b"order",
        b"fatura",
        b"siparis",
        b"musteri",
        b"dosya",
        b"tutar",
        b"toplam",
        b"fiyat",
        b"price",
        b"amount",
        b"total",
        b"preis",
        b"betrag",
        b"prix",
        b"montant",
        b"prezzo",
        b"importo",
        b"precio",
        b"importe",
        b"prijs",
        b"bedrag",
        b"cena",
        b"kwota",
        b"pris",
        b"belopp",
        b"preco",
        b"valor",
        b"castka",
        b"eur",
        b"usd",
        b"tl",
        b"try",
        b"gbp",
        b"chf",
        b"pln",
        b"czk",
        b"sek",
        b"dkk",
        b"nok",
        b"kg",
        b"km",
        b"m",
        b"pcs",
        b"adet",
        b"stk",
    ];
    let from = start.saturating_sub(24);
    let line = b[from..start]
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(from, |p| from + p + 1);
    let before = &b[line..start];
    if before
        .iter()
        .rev()
        .find(|c| !c.is_ascii_whitespace())
        .is_some_and(|&c| matches!(c, b'#' | b'$' | b'\xAC' | b'\xA3' | b'\xBA'))
    {
        return true;
    }
    let mut folded = Vec::with_capacity(before.len());
    text::fold_into(before, &mut folded);
    folded
        .split(|c| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .rev()
        .take(2)
        .any(|w| WORDS.contains(&w))
}

fn amount_follows(b: &[u8], end: usize) -> bool {
    if matches!(b.get(end), Some(b',' | b'.')) && b.get(end + 1).is_some_and(u8::is_ascii_digit) {
        return true;
    }
    let mut at = end;
    while b.get(at) == Some(&b' ') {
        at += 1;
    }
    const CURRENCIES: &[&str] = &[
        "TL", "TRY", "EUR", "USD", "GBP", "CHF", "PLN", "CZK", "SEK", "NOK", "DKK", "HUF", "RON",
        "BGN", "€", "$", "£", "₺", "Kč", "zł", "kr", "Ft", "lei", "лв",
    ];
    let rest = &b[at.min(b.len())..];
    CURRENCIES.iter().any(|currency| {
        let currency = currency.as_bytes();
        rest.starts_with(currency)
            && !rest
                .get(currency.len())
                .is_some_and(u8::is_ascii_alphanumeric)
    })
}
