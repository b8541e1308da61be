//! Judging one span of a grouped number: the validators that accept its shape, digits only or with
//! letters.

use super::*;

impl<'t> Scanner<'t> {
    pub(super) fn evaluate(
        &mut self,
        chain_len: usize,
        first: usize,
        last: usize,
        start: usize,
        (plus, phone_only): (bool, bool),
        context: &mut Option<TypeSet>,
    ) {
        let end = self.chain.groups[last].end;
        const SPAN_MAX: usize = 48;
        let mut buffer = [0u8; SPAN_MAX];
        let from = self.chain.groups[first].norm_start;
        let len = (self.chain.groups[last].norm_end - from).min(SPAN_MAX);
        // A copy of fixed length, which compiles to a few moves instead of a call to `memcpy`
        // (400,000 calls on the benchmark); what lies past the span is never read.
        if from + SPAN_MAX <= NORM_MAX {
            buffer.copy_from_slice(&self.chain.norm[from..from + SPAN_MAX]);
        } else {
            buffer[..len].copy_from_slice(&self.chain.norm[from..from + len]);
        }
        let s = &buffer[..len];
        let count = last - first + 1;
        // The span's letters, separators and group lengths in one walk over its groups.
        let (mut letters, mut seps) = (0usize, 0u8);
        let mut lens_buffer = [0usize; MAX_GROUPS];
        for (index, group) in self.chain.groups[first..=last].iter().enumerate() {
            letters += group.letters;
            if index > 0 {
                seps |= group.sep;
            }
            lens_buffer[index] = group.len();
        }
        let lens = &lens_buffer[..count];
        let slashed = seps & SEP_SLASH != 0;
        let span = Span {
            s,
            last,
            len,
            lens,
            count,
            seps,
            start,
            end,
            first,
            chain_len,
            plus,
            slashed,
            letters,
        };
        if phone_only {
            // Without a keyword near it and of no other type's length: as a phone number only.
            self.world_phone(&span, context);
        } else if letters == 0 {
            self.digits_span(&span, context);
        } else {
            self.lettered_span(&span, context);
        }
    }

    /// A span of digits only (separators aside).
    #[inline(always)]
    fn digits_span(&mut self, span: &Span<'_>, context: &mut Option<TypeSet>) {
        if self.dotted_quad(span, context) {
            return;
        }
        self.of_its_length(span, context);
        self.long_numbers(span, context);
        self.world_phone(span, context);
        self.behind_labels_only(span, context);
    }

    /// A dotted quad: an IPv4 address (or a version number), or behind a phone label a number written
    /// in pairs; whether it was one.
    #[inline(always)]
    fn dotted_quad(&mut self, span: &Span<'_>, context: &mut Option<TypeSet>) -> bool {
        // A dotted quad is an IPv4 address (or a version number), never an id whose checks its digits
        // may pass ("149.115.45.228" is also a PESEL).
        if span.count == 4
            && !span.plus
            && span.seps == SEP_DOT
            && span.lens.iter().all(|&l| l <= 3)
            && generic::ipv4(&self.b[self.chain.groups[span.first].start..span.end])
        {
            let before = &self.b[span.start.saturating_sub(8)..span.start];
            let mut folded = Vec::new();
            text::fold_into(before, &mut folded);
            if !(folded.ends_with(b"v")
                || folded.ends_with(b"version ")
                || folded.ends_with(b"oid ")
                || folded.ends_with(b"v.")
                || product_version(self.b, span.start))
            {
                // Behind a phone label, a number written in pairs with dots ("Tel.: 32.12.34.56") is
                // the phone number it is valid as.
                if self.dotted_phone(span) {
                    self.world_phone(span, context);
                    return true;
                }
                let end = prefix_length_end(self.b, span.end, 32);
                self.hit(span.start, end, PiiType::Ipv4, A_MINUS, "ipv4");
            }
            return true;
        }
        false
    }

    /// Card numbers, IMEIs, French social security numbers, VINs and workplace numbers.
    #[inline(always)]
    fn long_numbers(&mut self, span: &Span<'_>, context: &mut Option<TypeSet>) {
        let grouped = |max: usize| span.grouped(max);
        if (12..=19).contains(&span.len) && grouped(6) && !span.slashed {
            // The issuer's prefix first: most numbers of a card's length (an EAN, an order number)
            // have none, and the usual lengths need nothing more than the checksum.
            let issuer = generic::card_issuer(span.s);
            if issuer && matches!(span.len, 15 | 16 | 19) {
                if luhn(span.s) {
                    self.hit_span(span, PiiType::CreditCard, A, "credit_card");
                }
            } else if (matches!(span.lens, [4, 4, 4, 4] | [4, 6, 5] | [4, 6, 4])
                || ((issuer || span.count == 1)
                    && self.span_says(span, context, PiiType::CreditCard)))
                && luhn(span.s)
            {
                // A rarer length behind a card word; or an issuer our table lacks (a 15-digit 2131
                // or 1800, a 14-digit 30x), a card still when written as cards are (4-4-4-4, 4-6-5,
                // 4-6-4) or in one run behind a card word: not any run of groups that a card word
                // stands near ("000-12-3456 444", "06.95.24.40.69.93").
                let (check, confidence) = if issuer {
                    (Check::Valid, B_CONTEXT)
                } else {
                    (Check::ChecksumOnly, A)
                };
                if let Some(confidence) = failing_closed(check, confidence) {
                    self.hit_span(span, PiiType::CreditCard, confidence, "credit_card");
                }
            }
        }
        // The IMEI's own groupings: TAC, serial and check digit ("35-209900-176148-1", "35209900
        // 176148 1").
        if span.len == 15
            && !span.slashed
            && matches!(span.lens, [2, 6, 6, 1] | [8, 6, 1])
            && generic::imei(span.s)
            && self.span_says(span, context, PiiType::Imei)
        {
            self.hit_span(span, PiiType::Imei, B_CONTEXT, "imei");
        }
        if span.len == 15 && grouped(4) && !span.slashed {
            if eu::social_security_fr(span.s) {
                self.hit_span(span, PiiType::SocialSecurityFr, A, "social_security_fr");
            }
            if generic::imei(span.s) && self.span_says(span, context, PiiType::Imei) {
                self.hit_span(span, PiiType::Imei, B_CONTEXT, "imei");
            }
        }
        if span.len == 17
            && generic::vin(span.s) == Some(true)
            && self.span_says(span, context, PiiType::Vin)
        {
            self.hit_span(span, PiiType::Vin, A_MINUS, "vin");
        }
        if span.len == 26 && grouped(7) && tr::isyeri_sicil(span.s) {
            self.hit_span(span, PiiType::IsyeriSicilNo, B_FORM, "isyeri_sicil_no");
        }
        if span.len == 24 && self.span_says(span, context, PiiType::IsyeriSicilNo) {
            self.hit_span(span, PiiType::IsyeriSicilNo, C_LABEL, "isyeri_sicil_no");
        }
    }

    /// The types found by their label alone (pension, Bağ-Kur and licence numbers; a date of birth).
    #[inline(always)]
    fn behind_labels_only(&mut self, span: &Span<'_>, context: &mut Option<TypeSet>) {
        if (6..=13).contains(&span.len) {
            let c = self.span_context(context, span.first, span.chain_len);
            for ty in [
                PiiType::EmeklilikNo,
                PiiType::BagkurNo,
                PiiType::DriverLicenseTr,
                PiiType::DriverLicenseUs,
            ] {
                if c.contains(ty) {
                    self.hit_span(span, ty, C_LABEL, ty.name());
                }
            }
        }
        if span.count == 3
            && matches!(span.seps, SEP_DOT | SEP_SLASH | SEP_DASH)
            && is_date(span.s, span.lens)
            && self.span_says(span, context, PiiType::DateOfBirth)
        {
            self.hit_span(span, PiiType::DateOfBirth, C_LABEL, "date_of_birth");
        }
    }

    /// A span with letters among its digits.
    #[inline(always)]
    fn lettered_span(&mut self, span: &Span<'_>, context: &mut Option<TypeSet>) {
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
            letters,
            ..
        } = *span;
        // Tokens with letters.
        if len >= 15
            && s[0].is_ascii_uppercase()
            && s[1].is_ascii_uppercase()
            && s[2].is_ascii_digit()
            && s[3].is_ascii_digit()
        {
            // mod 97 alone: a length its country does not use, or a Turkish reserve digit other than
            // 0, lowers the confidence; for a country of the registry written as IBANs are (one run,
            // or in fours), not any run of groups that begins with two letters ("AB 1234 FR14...").
            let check = generic::iban_check(s);
            let iban_form = generic::iban_length(&s[..2]).is_some()
                && (count == 1 || lens.iter().all(|&l| l <= 4));
            if let Some(confidence) =
                failing_closed(check, A).filter(|_| check == Check::Valid || iban_form)
            {
                let ty = if s.starts_with(b"TR") {
                    PiiType::IbanTr
                } else {
                    PiiType::Iban
                };
                self.hit(start, end, ty, confidence, ty.name());
                return;
            }
            // Shaped as an IBAN of its country (its registry length exactly, in one run or in
            // fours) whose mod 97 fails: a mistyped IBAN is still an IBAN, masked whole at lower
            // confidence, so that no part of it is taken for another type (a card number's digits).
            if check == Check::Fails
                && generic::iban_length(&s[..2]) == Some(len)
                && (count == 1
                    || (lens[..count - 1].iter().all(|&l| l == 4) && lens[count - 1] <= 4))
                && s[4..]
                    .iter()
                    .all(|c| c.is_ascii_digit() || c.is_ascii_uppercase())
            {
                let ty = if s.starts_with(b"TR") {
                    PiiType::IbanTr
                } else {
                    PiiType::Iban
                };
                self.hit(start, end, ty, B_CONTEXT, ty.name());
                return;
            }
        }
        match len {
            9 => {
                // A NINO written plain or in its own groups ("AB 12 34 56 C", "AB123456 C"), not a
                // product code of the same characters in groups of its own ("AB48-7989-A").
                let nino_form = count == 1
                    || (matches!(lens, [2, 2, 2, 2, 1] | [2, 6, 1] | [8, 1] | [2, 7])
                        && seps & !(SEP_SPACE | SEP_DASH) == 0);
                if nino_form && eu::national_insurance_uk(s) {
                    self.hit(
                        start,
                        end,
                        PiiType::NationalInsuranceUk,
                        A_MINUS,
                        "national_insurance_uk",
                    );
                }
                if eu::national_id_es(s) {
                    self.hit(start, end, PiiType::NationalIdEs, A, "national_id_es");
                }
                if eu::foreigner_id_es(s) {
                    self.hit(start, end, PiiType::ForeignerIdEs, A, "foreigner_id_es");
                }
                if tr::passport(s) {
                    self.hit(start, end, PiiType::PassportTr, B_FORM, "passport_tr");
                } else if s[0].is_ascii_uppercase()
                    && s[1..].iter().all(u8::is_ascii_digit)
                    && self
                        .span_context(context, first, chain_len)
                        .contains(PiiType::PassportUs)
                {
                    self.hit(start, end, PiiType::PassportUs, C_LABEL, "passport_us");
                }
                if id_card_shape(s)
                    && self
                        .span_context(context, first, chain_len)
                        .contains(PiiType::IdCardSerialTr)
                {
                    self.hit(
                        start,
                        end,
                        PiiType::IdCardSerialTr,
                        C_LABEL,
                        "id_card_serial_tr",
                    );
                }
            }
            11 if us::mbi_us(s) => self.hit(start, end, PiiType::MbiUs, A_MINUS, "mbi_us"),
            15 if eu::social_security_fr(s) => self.hit(
                start,
                end,
                PiiType::SocialSecurityFr,
                A,
                "social_security_fr",
            ),
            16 if eu::fiscal_code_it(s) => {
                self.hit(start, end, PiiType::FiscalCodeIt, A, "fiscal_code_it")
            }
            // VINs are written as one unbroken token.
            17 if count == 1 => match generic::vin(s) {
                Some(true) => self.hit(start, end, PiiType::Vin, A_MINUS, "vin"),
                Some(false)
                    if self
                        .span_context(context, first, chain_len)
                        .contains(PiiType::Vin) =>
                {
                    self.hit(start, end, PiiType::Vin, B_CONTEXT, "vin")
                }
                _ => {}
            },
            _ => {}
        }
        if (8..=11).contains(&len)
            && count == 1
            && generic::bic(s)
            && self
                .span_context(context, first, chain_len)
                .contains(PiiType::BicSwift)
        {
            self.hit(start, end, PiiType::BicSwift, B_CONTEXT, "bic_swift");
        }
        if count == 3
            && lens[0] == 2
            && self.chain.groups[first].letters == 0
            && self.chain.groups[first + 1].digits == 0
            && self.chain.groups[first + 2].letters == 0
        {
            let g = &self.chain.groups[first..=last];
            let norm = &self.chain.norm;
            // Written in lower case ("34 abc 123"), a plate's form is no longer distinctive ("12 kg
            // 500"): it needs a plate keyword.
            let lower = self.b[g[1].start].is_ascii_lowercase();
            let plate = tr::plate(
                &norm[g[0].norm_start..g[0].norm_end],
                &norm[g[1].norm_start..g[1].norm_end],
                &norm[g[2].norm_start..g[2].norm_end],
            );
            if plate
                && (!lower
                    || self
                        .span_context(context, first, chain_len)
                        .contains(PiiType::LicensePlateTr))
            {
                self.hit(
                    start,
                    end,
                    PiiType::LicensePlateTr,
                    if lower { B_CONTEXT } else { B_FORM },
                    "license_plate_tr",
                );
            }
        }
        if count == 1
            && (5..=8).contains(&len)
            && s[0].is_ascii_digit()
            && s[1].is_ascii_digit()
            && self
                .span_context(context, first, chain_len)
                .contains(PiiType::LicensePlateTr)
        {
            let letters_at = 2;
            let digits_at = s[letters_at..]
                .iter()
                .position(u8::is_ascii_digit)
                .map(|p| p + letters_at);
            if let Some(d) = digits_at {
                if tr::plate(&s[..2], &s[2..d], &s[d..]) {
                    self.hit(
                        start,
                        end,
                        PiiType::LicensePlateTr,
                        B_CONTEXT,
                        "license_plate_tr",
                    );
                }
            }
        }
        if len >= 7 && vat::vat_prefix(&s[..2]) && vat::vat_eu(s) {
            self.hit(start, end, PiiType::VatEu, A, "vat_eu");
        }
        if (6..=13).contains(&len) && letters < len && count <= 2 {
            let c = self.span_context(context, first, chain_len);
            let labelled = [
                PiiType::IdCardSerialTr,
                PiiType::DriverLicenseTr,
                PiiType::DriverLicenseUs,
                PiiType::EmeklilikNo,
                PiiType::BagkurNo,
            ];
            // A label is not part of its value: "NPI 1234567893" is not a 13-character licence number.
            if labelled.iter().any(|&ty| c.contains(ty))
                && !(self.chain.groups[first].digits == 0 && self.near.keywords.keyword_at(start))
            {
                for ty in labelled {
                    if c.contains(ty) {
                        self.hit(start, end, ty, C_LABEL, ty.name());
                    }
                }
            }
        }
    }
}

/// Lengths at which a span of digits may be a value with no keyword around it (see `evaluate`): 444
/// numbers (7), dashed US numbers (9), phone forms and Swedish ids (10, 12, 14), checksummed 11-digit
/// ids, card numbers (15, 16, 19), French social security numbers (15), workplace numbers (26).
pub(super) const NO_CONTEXT_DIGIT_LENGTHS: u64 =
    1 << 7 | 1 << 9 | 1 << 10 | 1 << 11 | 1 << 12 | 1 << 14 | 1 << 15 | 1 << 16 | 1 << 19 | 1 << 26;

/// One span of a grouped number, as `evaluate` hands it to the validators of its kind.
#[derive(Clone, Copy)]
pub(super) struct Span<'s> {
    /// The span's characters, normalised (digits as ASCII, letters in upper case).
    pub(super) s: &'s [u8],
    pub(super) len: usize,
    /// The lengths of its groups.
    pub(super) lens: &'s [usize],
    pub(super) count: usize,
    /// The separator kinds between its groups.
    pub(super) seps: u8,
    pub(super) start: usize,
    pub(super) end: usize,
    /// Its first and last groups, and the length of the chain it is cut from.
    pub(super) first: usize,
    pub(super) last: usize,
    pub(super) chain_len: usize,
    /// Whether a '+' stands before it.
    pub(super) plus: bool,
    pub(super) slashed: bool,
    pub(super) letters: usize,
}

impl Span<'_> {
    /// Written plain, or in groups no longer than `max` characters (e.g. 3-3-3-2, 4-4-4-4): a
    /// juxtaposition of unrelated numbers ("EAN 8690379742866 11") does not count.
    pub(super) fn grouped(&self, max: usize) -> bool {
        self.count == 1 || (self.count >= 3 && self.lens.iter().all(|&l| l <= max))
    }
}

/// Whether the number at `start` is the version of a product token (`LibreOffice/7.4.7.2`,
/// `Mozilla/5.0`): a name that starts with a capital letter, stands on its own (not the last step
/// of a path such as `servers/10.0.0.1`) and is joined to the number by a slash.
fn product_version(b: &[u8], start: usize) -> bool {
    let Some(slash) = start.checked_sub(1).filter(|&s| b[s] == b'/') else {
        return false;
    };
    let token_start = b[..slash]
        .iter()
        .rposition(|&c| !(c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.')))
        .map_or(0, |at| at + 1);
    let token = &b[token_start..slash];
    let on_its_own = token_start == 0 || !matches!(b[token_start - 1], b'/' | b'\\' | b':');
    token.len() >= 2
        && token[0].is_ascii_uppercase()
        && token[token.len() - 1].is_ascii_alphabetic()
        && on_its_own
}
