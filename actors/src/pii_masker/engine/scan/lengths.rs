//! The types of a grouped number that its length names: 444 numbers, Dutch, Turkish, Belgian, German
//! and Polish ids, Turkish phone numbers of 10 to 14 digits, Swedish personnummer.

use super::*;

impl<'t> Scanner<'t> {
    /// The types of a fixed length (444 numbers, Dutch, Turkish, Belgian, German and Polish ids, Turkish
    /// phones of 10 to 14 digits, Swedish personnummer).
    #[inline(always)]
    pub(super) fn of_its_length(&mut self, span: &Span<'_>, context: &mut Option<TypeSet>) {
        let grouped = |max: usize| span.grouped(max);
        match span.len {
            7 if span.s.starts_with(b"444")
                && ((span.count >= 2 && span.lens[0] == 3 && span.seps == SEP_SPACE)
                    || self.span_says(span, context, PiiType::PhoneTr)) =>
            {
                self.hit_span(span, PiiType::PhoneTr, B_FORM, "phone_tr");
            }
            9 => {
                let dashed = span.count == 3 && span.lens == [3, 2, 4] && span.seps == SEP_DASH;
                let c = self.span_context(context, span.first, span.chain_len);
                if us::itin_us(span.s) && (dashed || c.contains(PiiType::ItinUs)) {
                    self.hit_span(span, PiiType::ItinUs, B_FORM, "itin_us");
                } else if us::ssn_us(span.s) && (dashed && c.0 != 0 || c.contains(PiiType::SsnUs)) {
                    self.hit_span(span, PiiType::SsnUs, B_FORM, "ssn_us");
                } else if us::ssn_us(span.s) && dashed {
                    self.hit_span(span, PiiType::SsnUs, B_CONTEXT, "ssn_us");
                }
                if us::ein_us(span.s) && c.contains(PiiType::EinUs) {
                    self.hit_span(span, PiiType::EinUs, B_CONTEXT, "ein_us");
                }
                if us::aba_routing_us(span.s) && c.contains(PiiType::AbaRoutingUs) {
                    self.hit_span(span, PiiType::AbaRoutingUs, B_CONTEXT, "aba_routing_us");
                }
                if eu::citizen_id_nl(span.s) && c.contains(PiiType::CitizenIdNl) {
                    self.hit_span(span, PiiType::CitizenIdNl, B_CONTEXT, "citizen_id_nl");
                }
                if c.contains(PiiType::PassportUs) && span.count == 1 {
                    self.hit_span(span, PiiType::PassportUs, C_LABEL, "passport_us");
                }
            }
            10 => {
                // The North American layout, "(212) 555-0147", "212-555-0147", "212.555.0147": a US or
                // Canadian number where one is valid (Turkish numbers end in pairs), typed so even
                // where its digits are a Turkish number's too.
                let nanp = span.count == 3
                    && span.lens == [3, 3, 4]
                    && span.seps & (SEP_DASH | SEP_DOT | SEP_PAREN) != 0
                    && span.seps & !(SEP_DASH | SEP_DOT | SEP_PAREN | SEP_SPACE) == 0
                    && !(span.plus && span.first == 0)
                    && phone::national_regions(std::str::from_utf8(span.s).unwrap_or(""))
                        .any(|(rules, _)| matches!(&rules.id, b"US" | b"CA"));
                let phone_form = (span.count == 4 && span.lens == [3, 3, 2, 2])
                    || (span.count == 3 && span.lens == [3, 3, 4]);
                // (Not right after a '+': "+36 88 947 257" is a country code and its number.)
                if tr::phone_nsn(span.s)
                    && !(span.plus && span.first == 0)
                    && (phone_form || self.span_says(span, context, PiiType::PhoneTr))
                {
                    let (ty, detector) = if nanp {
                        (PiiType::PhoneIntl, "phone_intl")
                    } else {
                        (PiiType::PhoneTr, "phone_tr")
                    };
                    self.hit_span(
                        span,
                        ty,
                        if phone_form { B_FORM } else { B_CONTEXT },
                        detector,
                    );
                }
                if tr::vkn(span.s) && self.span_says(span, context, PiiType::TaxIdTr) {
                    self.hit_span(span, PiiType::TaxIdTr, B_FORM, "tax_id_tr");
                }
                if eu::nhs_number_uk(span.s) && self.span_says(span, context, PiiType::NhsNumberUk)
                {
                    self.hit_span(span, PiiType::NhsNumberUk, B_CONTEXT, "nhs_number_uk");
                }
                if us::npi_us(span.s) && self.span_says(span, context, PiiType::NpiUs) {
                    self.hit_span(span, PiiType::NpiUs, B_CONTEXT, "npi_us");
                }
                let hyphenated = span.count == 2
                    && span.lens == [6, 4]
                    && (span.seps == SEP_DASH
                        || self.b.get(self.chain.groups[span.first].end) == Some(&b'+'));
                self.personnummer(span, context, span.s, hyphenated);
            }
            // Not across a slash, which joins phone numbers and dates, never an id's groups:
            // "0531 862 54 13/0212 345 67 89" holds no TCKN "862 54 13/0212".
            // The Belgian register's own form, "85.07.30-033.28": of the 11-digit ids whose checks
            // its digits may also pass, only it is written so.
            11 if span.lens == [2, 2, 2, 3, 2]
                && span.seps == SEP_DOT | SEP_DASH
                && eu::national_id_be(span.s) =>
            {
                self.hit_span(span, PiiType::NationalIdBe, A_MINUS, "national_id_be");
            }
            11 if grouped(4) && !span.slashed => {
                if tr::tckn(span.s) {
                    self.hit_span(span, PiiType::NationalIdTr, A, "national_id_tr");
                }
                if tr::phone_with_prefix(span.s) {
                    self.hit_span(span, PiiType::PhoneTr, B_FORM, "phone_tr");
                }
                // Without its layout (a leading 0, the repetition rule; a date), only behind a
                // keyword of its own, as a checksum of one digit needs: the full check first, which
                // turns most numbers away cheaply, then the checksum alone where the keyword stands.
                if eu::tax_id_de(span.s) {
                    self.hit_span(span, PiiType::TaxIdDe, A, "tax_id_de");
                } else if self.span_says(span, context, PiiType::TaxIdDe) {
                    if let Some(confidence) = failing_closed(eu::tax_id_de_check(span.s), A) {
                        self.hit_span(span, PiiType::TaxIdDe, confidence, "tax_id_de");
                    }
                }
                let pl = eu::national_id_pl_check(span.s);
                if pl == Check::Valid
                    || (pl == Check::ChecksumOnly
                        && self.span_says(span, context, PiiType::NationalIdPl))
                {
                    if let Some(confidence) = failing_closed(pl, A_MINUS) {
                        self.hit_span(span, PiiType::NationalIdPl, confidence, "national_id_pl");
                    }
                }
                if eu::national_id_be(span.s)
                    && (span.count > 1 || self.span_says(span, context, PiiType::NationalIdBe))
                {
                    self.hit_span(span, PiiType::NationalIdBe, A_MINUS, "national_id_be");
                }
            }
            // A trunk 0 and the area code in parentheses, the rest in one run: "0 (532) 1234567".
            11 if !span.slashed
                && span.s[0] == b'0'
                && span.lens[0] == 1
                && span.seps & SEP_PAREN != 0
                && span.seps & !(SEP_SPACE | SEP_PAREN | SEP_DASH) == 0
                && tr::phone_with_prefix(span.s) =>
            {
                self.hit_span(span, PiiType::PhoneTr, B_FORM, "phone_tr");
            }
            12 => {
                // Not across a slash ("90.31.217.189/24" is an address and its prefix).
                if tr::phone_with_prefix(span.s)
                    && !span.slashed
                    && (span.plus
                        || span.count > 1
                        || self.span_says(span, context, PiiType::PhoneTr))
                {
                    self.hit_span(span, PiiType::PhoneTr, B_FORM, "phone_tr");
                }
                // YYYYMMDD-NNNC, or the twelve digits in one run behind a keyword.
                if matches!(&span.s[..2], b"18" | b"19" | b"20") {
                    let hyphenated =
                        span.count == 2 && span.lens == [8, 4] && span.seps == SEP_DASH;
                    self.personnummer(span, context, &span.s[2..], hyphenated);
                }
            }
            14 if tr::phone_with_prefix(span.s) => {
                self.hit_span(span, PiiType::PhoneTr, B_FORM, "phone_tr");
            }
            _ => {}
        }
    }

    /// A Swedish personnummer whose 10-digit form is `ten`: hyphenated (or with the '+' of a person
    /// over 100), or behind a keyword; without a real date in it, only behind a keyword.
    fn personnummer(
        &mut self,
        span: &Span<'_>,
        context: &mut Option<TypeSet>,
        ten: &[u8],
        hyphenated: bool,
    ) {
        // No id is written with slashes, which join dates and phone numbers.
        let check = eu::personal_id_se_check(ten);
        if check == Check::Fails || span.slashed {
            return;
        }
        let labelled = self.span_says(span, context, PiiType::PersonalIdSe);
        if labelled || (hyphenated && check == Check::Valid) {
            if let Some(confidence) = failing_closed(check, A_MINUS) {
                self.hit_span(span, PiiType::PersonalIdSe, confidence, "personal_id_se");
            }
        }
    }
}
