//! Digit and alphanumeric candidates: a token, its grouped number (`Chain`, read by `read_chain`), and
//! the spans of that chain handed to `evaluate`; crypto wallets and passport MRZ lines.

use super::*;

/// The grouped number being judged: its groups and their characters, normalised.
pub(super) struct Chain {
    /// The groups' characters back to back, normalised (digits as ASCII, letters in upper case): the
    /// first `norm_len` bytes (at most 40 per group).
    pub(super) norm: [u8; NORM_MAX],
    pub(super) norm_len: usize,
    /// The groups of the number.
    pub(super) groups: [Group; MAX_GROUPS],
}

impl Default for Chain {
    fn default() -> Chain {
        Chain {
            norm: [0; NORM_MAX],
            norm_len: 0,
            groups: [Group::default(); MAX_GROUPS],
        }
    }
}

impl<'t> Scanner<'t> {
    pub(super) fn token(&mut self, at: usize) -> usize {
        let b = self.b;
        // Start of the word this digit belongs to (lower-case prefixes: "bc1...", "0x...").
        let mut start = at;
        if b[at].is_ascii_alphanumeric() {
            while start > 0 && b[start - 1].is_ascii_alphanumeric() {
                start -= 1;
            }
        }
        // Fast path for the commonest token of business text: a short plain number ("150", "2024")
        // that no separator continues into a longer grouped value.
        if start == at && b[at].is_ascii_digit() {
            let mut k = at;
            while k < b.len() && b[k].is_ascii_digit() {
                k += 1;
            }
            let attached = b
                .get(k)
                .is_some_and(|&c| c.is_ascii_alphabetic() || c == b'<' || c == b':' || c >= 0x80);
            // "12 Mart 1980", "12. März 1985": a day, a space and a word.
            let space = k + usize::from(b.get(k) == Some(&b'.'));
            if k - at <= 2
                && !attached
                && b.get(space) == Some(&b' ')
                && b.get(space + 1)
                    .is_some_and(|&c| c.is_ascii_alphabetic() || c >= 0xC3)
            {
                if let Some(end) = self.month_date(at, k, false) {
                    return end;
                }
            }
            // "12 rue de la Paix", "5 avenue Foch", "10 via Roma": a house number, then a street word
            // written in lower case.
            if k - at <= 4
                && !attached
                && b.get(k) == Some(&b' ')
                && b.get(k + 1)
                    .is_some_and(|&c| lexicon::LOWER_CASE_STREET_INITIAL[usize::from(c)])
            {
                let mut word_end = k + 1;
                while word_end < b.len() && word_end - k <= 10 && b[word_end].is_ascii_lowercase() {
                    word_end += 1;
                }
                if lexicon::lower_case_street(&b[k + 1..word_end]) {
                    return self.address_from_street(k + 1, word_end, true);
                }
            }
            if k - at < 6 && !attached {
                let sep = separator_at(b, k);
                let continues = (sep > 0
                    && (digit_at(b, k + sep).is_some()
                        || b.get(k + sep).is_some_and(u8::is_ascii_uppercase)
                        || separator_at(b, k + sep) > 0))
                    // A plate in lower case: "34 abc 123".
                    || (k - at == 2 && sep > 0 && lower_plate_letters(b, k + sep))
                    // A group of a Cisco MAC address in lower case: "5272.cabb.48cc",
                    // "bbec.adfc.8734".
                    || (k - at == 4
                        && ((b.get(k) == Some(&b'.')
                            && b.get(k + 1).is_some_and(u8::is_ascii_hexdigit))
                            || (at >= 2 && b[at - 1] == b'.' && b[at - 2].is_ascii_hexdigit())));
                if !continues {
                    // Four or five digits after a phone label's colon: a phone number, maybe.
                    if k - at >= 4 && after_colon(b, at) {
                        self.short_phone(at, k);
                    }
                    return k;
                }
            }
        }
        let mut word_end = start;
        while word_end < b.len() && b[word_end].is_ascii_alphanumeric() {
            word_end += 1;
        }
        // No identifier is this long (the longest, a bech32 address, has 90 characters): skip the
        // whole run at once so that enormous tokens stay linear.
        if word_end - start > 100 {
            return word_end.max(at + 1);
        }
        // Mid-word starts in non-ASCII words ("Şube3") are not ids.
        if text::word_before(b, start) && b[start - 1] >= 0x80 {
            return word_end.max(at + 1);
        }
        let word = &b[start..word_end];
        if word.len() >= 26 {
            if let Some(end) = self.wallet(start, word_end) {
                return end;
            }
        }
        if b.get(word_end) == Some(&b'<') || (start > 0 && b[start - 1] == b'<') {
            if let Some(end) = self.mrz(start) {
                return end;
            }
        }
        if b.get(word_end) == Some(&b':')
            && b.get(word_end + 1)
                .is_some_and(|c| c.is_ascii_hexdigit() || *c == b':')
            && word.iter().all(u8::is_ascii_hexdigit)
        {
            if let Some(end) = self.hex_colon(word_end) {
                return end;
            }
        }
        // A MAC address in Cisco's dotted form ("001a.2b3c.4d5e", "cfea.a598.3d33") or with hyphens
        // ("00-1A-2B-3C-4D-5E", "cf-ea-a5-..."), whose letters would cut it into groups of a chain;
        // the token may start at any of its groups (the walk stops at no lower-case letter).
        let beside = |c: u8| b.get(word_end) == Some(&c) || (start > 0 && b[start - 1] == c);
        if (word.len() == 4 && beside(b'.')) || (word.len() == 2 && beside(b'-')) {
            if let Some(end) = self.mac_around(start, word.len()) {
                return end;
            }
        }
        // A Swedish personnummer of a person over 100: YYMMDD+NNNC (a '+' joins no chain).
        if word.len() == 6 && b.get(word_end) == Some(&b'+') {
            let end = word_end + 5;
            if end <= b.len()
                && b[word_end + 1..end].iter().all(u8::is_ascii_digit)
                && !b.get(end).is_some_and(u8::is_ascii_alphanumeric)
            {
                let mut ten = [0u8; 10];
                ten[..6].copy_from_slice(word);
                ten[6..].copy_from_slice(&b[word_end + 1..end]);
                if eu::personal_id_se(&ten) {
                    self.hit(start, end, PiiType::PersonalIdSe, A_MINUS, "personal_id_se");
                    return end;
                }
            }
        }
        // A VAT number's country written apart and in lower case ("VAT: de 136 695 976"), behind a
        // VAT keyword: the chain starts at the prefix, which the walk does not stop at.
        let start = if start == at
            && at >= 3
            && b[at - 1] == b' '
            && b[at - 3].is_ascii_lowercase()
            && b[at - 2].is_ascii_lowercase()
            && (at == 3 || !b[at - 4].is_ascii_alphanumeric())
            && vat::vat_prefix(&[
                b[at - 3].to_ascii_uppercase(),
                b[at - 2].to_ascii_uppercase(),
            ])
            && self.context(at - 3, at).contains(PiiType::VatEu)
        {
            at - 3
        } else {
            start
        };
        let plus = b[at] == b'+' || (b[at] == b'(' && b.get(at + 1) == Some(&b'+'));
        // "+44 ...", "(+358) ...", "+(371) ...", "(0212) ...": the chain starts at the first digit.
        let chain_start = if b[at] == b'+' || b[at] == b'(' {
            at + 1 + usize::from(matches!(b.get(at + 1), Some(b'+' | b'(')))
        } else {
            start
        };
        let (count, mut end) = self.read_chain(chain_start);
        if count == 0 {
            return word_end.max(at + 1);
        }
        // A phone number's extension ("617-6467x12895"): the number ends before its 'x'.
        if self.chain.groups[count - 1].letters > 0 {
            let last = &mut self.chain.groups[count - 1];
            if let Some(x) = extension_at(&b[last.start..last.end]) {
                last.end = last.start + x;
                last.norm_end = last.norm_start + x;
                last.letters = 0;
                last.digits = x;
                self.chain.norm_len = last.norm_end;
                end = last.end;
            }
        }
        let lead = if b[at] == b'+' && at > 0 && b[at - 1] == b'(' {
            at - 1
        } else if b[at] == b'+' || b[at] == b'(' {
            at
        } else {
            start
        };
        let hits_before = self.hits.len();
        self.evaluate_chain(at, count, lead, plus);
        // A chain cut at its limit may end inside a value that goes on after it ("IBAN: TR64 ... 56
        // TR59 1787 ... 71", twelve groups and two more): the scan resumes after the last value found
        // in it, so that the next one starts a chain of its own instead of being missed (and then
        // found by the re-scan of the masked text, which refuses it).
        if count == MAX_GROUPS || end - chain_start > 96 {
            // A chain cut at its limit may end inside a value that goes on after it ("Tarih: 00.00.2000
            // TR64 4111 1011 1111 1112 1234 56/0212 345 67 89": fourteen groups, and the cut falls
            // inside the phone number), which would be missed here and found by the re-scan of the
            // masked text, which then refuses it. The scan resumes at the ninth group from the cut
            // (no value spans more than nine groups: the longest IBAN, 34 characters in fours), or
            // after the validated values that cover the chain's start if they reach further ("IBAN:
            // TR64 ... 56 TR59 1787 ...": the second IBAN starts a chain of its own); at least one
            // group on, so that long runs of groups are scanned in a few passes each, not more.
            let hits = &self.hits[hits_before..];
            let covered = |g: &Group| {
                hits.iter()
                    .any(|h| h.confidence >= VALIDATED && h.start <= g.start && g.end <= h.end)
            };
            let prefix = self.chain.groups[..count]
                .iter()
                .position(|g| !covered(g))
                .unwrap_or(count);
            let first = prefix.max(count.saturating_sub(MAX_VALUE_GROUPS)).max(1);
            if first < count {
                return self.chain.groups[first].start;
            }
        }
        end
    }

    /// A MAC address that holds the group of `width` characters at `group` (2: an octet of the form
    /// with hyphens; 4: a group of Cisco's dotted form), its first or one after it: where it ends,
    /// once found.
    pub(super) fn mac_around(&mut self, group: usize, width: usize) -> Option<usize> {
        let b = self.b;
        let (length, groups, separator) = if width == 2 {
            (17, 6, b'-')
        } else {
            (14, 3, b'.')
        };
        for k in 0..groups {
            let Some(start) = group.checked_sub((width + 1) * k) else {
                break;
            };
            if k > 0 && b.get(start + width) != Some(&separator) {
                break;
            }
            let end = start + length;
            // Not six pairs inside a longer run of them ("96-96-42-60-71-91-91-0"): no letter or digit
            // touches it, nor a separator that goes on into another group.
            let goes_on = |at: usize, step: isize| {
                let next = |k: isize| b.get(at.wrapping_add_signed(k));
                next(0).is_some_and(u8::is_ascii_alphanumeric)
                    || (next(0) == Some(&separator)
                        && next(step).is_some_and(u8::is_ascii_hexdigit))
            };
            if end <= b.len()
                && generic::mac(&b[start..end])
                && !(start > 0 && goes_on(start - 1, -1))
                && !goes_on(end, 1)
            {
                if !generic::mac_names_no_device(&b[start..end]) {
                    self.hit(start, end, PiiType::MacAddress, A, "mac_address");
                }
                return Some(end);
            }
        }
        None
    }

    /// Groups of digits/letters joined by number separators, starting at `start`, into `self.chain.groups`:
    /// their count and the end of the last one.
    pub(super) fn read_chain(&mut self, start: usize) -> (usize, usize) {
        let b = self.b;
        let mut count = 0;
        self.chain.norm_len = 0;
        let mut i = start;
        let mut sep = 0u8;
        // A '(' right before the first digit ("(0212) 345 67 89") may be closed inside the chain.
        let mut open_paren = start > 0
            && match b[start - 1] {
                b'(' => b[start].is_ascii_digit(),
                b'+' => start > 1 && b[start - 2] == b'(' && b[start].is_ascii_digit(),
                _ => false,
            };
        let mut lower_seen = false;
        loop {
            let group_start = i;
            let norm_start = self.chain.norm_len;
            // A group has at most 40 characters, normalised into its own 40 bytes of `norm` (at most
            // `MAX_GROUPS` groups of 40 fill it), indexed below 40 so that no store is bounds-checked.
            let slot: &mut [u8; 40] = (&mut self.chain.norm[norm_start..norm_start + 40])
                .try_into()
                .expect("MAX_GROUPS groups of 40 bytes fit in norm");
            let (mut n, mut letters) = (0, 0);
            while n < 40 {
                let Some(&c) = b.get(i) else { break };
                // ASCII first; a full-width digit (three bytes from 0xEF) is neither.
                let (normalised, len) = if c.is_ascii_digit() {
                    (c, 1)
                } else if c.is_ascii_alphabetic() {
                    letters += 1;
                    lower_seen |= c.is_ascii_lowercase();
                    (c.to_ascii_uppercase(), 1)
                } else if let Some(digit) = digit_at(b, i) {
                    digit
                } else {
                    break;
                };
                slot[n] = normalised;
                n += 1;
                i += len;
            }
            let digits = n - letters;
            self.chain.norm_len = norm_start + n;
            if i == group_start {
                break;
            }
            self.chain.groups[count] = Group {
                start: group_start,
                end: i,
                norm_start,
                norm_end: self.chain.norm_len,
                digits,
                letters,
                sep,
            };
            count += 1;
            if count == MAX_GROUPS
                || i - start > 96
                || b.get(i).is_some_and(|c| {
                    *c >= 0x80 && digit_at(b, i).is_none() && separator_at(b, i) == 0
                })
            {
                break;
            }
            // Separators between groups: at most two characters (") ", " - " is too loose).
            let mut j = i;
            let mut kinds = 0u8;
            let mut separators = 0;
            let mut unbalanced = false;
            while separators < 2 {
                let l = separator_at(b, j);
                if l == 0 {
                    break;
                }
                match b[j] {
                    b'(' if !open_paren => open_paren = true,
                    b')' if open_paren => open_paren = false,
                    b'(' | b')' => unbalanced = true,
                    _ => {}
                }
                kinds |= sep_kind(b[j]);
                j += l;
                separators += 1;
            }
            if unbalanced {
                break;
            }
            if separators == 0
                || (separators == 2
                    && kinds & SEP_PAREN == 0
                    && kinds != SEP_SPACE | SEP_DASH
                    // "06/ 350 75 04": an area code and a slash, as Belgians write it.
                    && !(kinds == SEP_SPACE | SEP_SLASH && b[j - 1] == b' ')
                    && kinds != SEP_SPACE)
            {
                break;
            }
            if kinds == SEP_SPACE && separators == 2 {
                break;
            }
            // The next group must start with a digit, or be a short run of capitals / a mixed token.
            if digit_at(b, j).is_none() {
                let mut k = j;
                while k < b.len() && b[k].is_ascii_alphabetic() {
                    k += 1;
                }
                let letters = &b[j..k];
                let mixed = b.get(k).is_some_and(u8::is_ascii_digit);
                // Capitals that begin a word going on in non-ASCII letters ("0532 123 45 67 Hüseyin
                // Yılmaz"): taken into the chain, they would make the scan resume inside that word and
                // miss what it starts (a name here, found only in the masked text's re-scan, which
                // then refuses it).
                // Lower-case groups go on a chain whose letters so far were lower-case too, when
                // they hold digits ("1eg4-te5-mk73"): a word never does.
                // A plate's letters between a province's two digits and the plate's number ("34 ABC
                // 123", "54-GSM-65"), in either case ("34 abc 123": `evaluate` then asks for a plate
                // keyword).
                let plate_letters = count == 1
                    && self.chain.groups[0].digits == 2
                    && self.chain.groups[0].letters == 0
                    && letters.len() <= 3
                    && separator_at(b, k) > 0
                    && digit_at(b, k + separator_at(b, k)).is_some();
                let lower = (lower_seen && mixed || plate_letters)
                    && letters.iter().all(u8::is_ascii_lowercase);
                if letters.is_empty()
                    || text::letter_at(b, k) > 0
                    || !((letters.iter().all(u8::is_ascii_uppercase) || lower)
                        && (letters.len() <= 4 || mixed))
                {
                    break;
                }
                if kinds & SEP_SLASH != 0 {
                    break;
                }
                // Nor a keyword ("00.00.2000 SGK Sicil No: ..."): taken into the chain, it would stand
                // in no span's context window, and the same span would be judged without it here and
                // with it in the masked text's re-scan, where the chain ends earlier. A plate's letters
                // may spell one ("54-GSM-65", "51 BIC 28"): they stay.
                if !plate_letters && self.near.keywords.keyword_at(j) {
                    break;
                }
            }
            i = j;
            sep = kinds;
        }
        let end = if count == 0 {
            start
        } else {
            self.chain.groups[count - 1].end
        };
        (count, end)
    }

    /// The spans of the chain in `self.chain.groups[..count]`, found by the token at `at` (recorded in the
    /// hits whose shorter spans were skipped).
    pub(super) fn evaluate_chain(&mut self, at: usize, count: usize, lead: usize, plus: bool) {
        // Fast exit: one short number ("2024", "150", "12,50").
        if count == 1 && self.chain.groups[0].letters == 0 && self.chain.groups[0].digits < 6 {
            return;
        }
        let given = self.given_context(self.chain.groups[0].start);
        let groups = &self.chain.groups[..count];
        let hits_before = self.hits.len();
        let mut context: [Option<TypeSet>; MAX_GROUPS] = [None; MAX_GROUPS];
        // Every candidate's context window lies inside the chain's own: when that holds no keyword
        // (the usual case), no candidate needs a look-up of its own.
        let (chain_start, chain_end) = (groups[0].start, groups[count - 1].end);
        let anywhere = self.near.keywords.types_in_moving(
            &mut self.near.cursors.0,
            chain_start.saturating_sub(self.near.before),
            chain_end + self.near.after,
        );
        let no_context = anywhere.0 == 0 && given.0 == 0;
        if no_context {
            context = [Some(TypeSet::default()); MAX_GROUPS];
        }
        // Without a keyword nearby, a span of digits only can be a value only at the lengths of the
        // types that need none (checksummed ids, phone forms, card numbers), or as a dotted IPv4
        // address: the rest of the spans ("05.11.2023", order numbers of 8 digits) are not evaluated.
        let digits_only = groups.iter().all(|g| g.letters == 0);
        // Set once the whole chain validated, by a checksum or by a distinctive form, as a type the
        // policy keeps ("TR59 1787 4021 8990 5947 2221 71", "4111 1111 1111 1111", "+44 20 7946
        // 0958"): a span inside it would lose to it (the longest span wins), so the shorter spans are
        // not evaluated (21 of them for an IBAN in groups). Hits on a keyword alone do not count, nor
        // do the hits of shorter spans: those leave the rest of the chain open. Should a longer hit
        // around it (an address behind its label) beat the whole chain after all, its hits' `shortcut`
        // sends the token back for every span.
        // The chain's first and last groups with digits: a span holds every digit of the chain when it
        // reaches both (a word of capitals taken in around a number holds none).
        let groups = &self.chain.groups[..count];
        let first_digits = groups.iter().position(|g| g.digits > 0).unwrap_or(0);
        let last_digits = groups.iter().rposition(|g| g.digits > 0).unwrap_or(0);
        let double_zero = self.chain.norm[self.chain.groups[0].norm_start..].starts_with(b"00");
        let mut whole_kept = false;
        for length in (1..=count).rev() {
            if whole_kept {
                break;
            }
            for (first, context) in context.iter_mut().enumerate().take(count - length + 1) {
                let last = first + length - 1;
                // Groups are normalised back to back: the span's length is one subtraction.
                let total = self.chain.groups[last].norm_end - self.chain.groups[first].norm_start;
                // (Four groups of one digit: the IPv4 address "0.0.0.0".)
                if !((5..=34).contains(&total) || (length == 4 && total == 4)) {
                    continue;
                }
                // Without a keyword near it, a span of no other type's length is judged as a phone
                // number only: when it is a whole grouped number of a phone's length (a bare
                // national number in its region's own layout) or starts with "00" (an international
                // one; `world_phone`).
                let phone_only = no_context
                    && digits_only
                    && !(plus && first == 0)
                    && NO_CONTEXT_DIGIT_LENGTHS & (1 << total) == 0
                    && length != 4;
                if phone_only
                    && !(first == 0 && double_zero)
                    && !(length >= 2
                        && (6..=15).contains(&total)
                        && first <= first_digits
                        && last >= last_digits)
                {
                    continue;
                }
                let start = if first == 0 {
                    lead
                } else {
                    self.chain.groups[first].start
                };
                let plus = plus && first == 0;
                let before = self.hits.len();
                self.evaluate(count, first, last, start, (plus, phone_only), context);
                if plus {
                    // A number written after '+' is a phone number, never an id whose digits it
                    // happens to share ("+1-539-402-0259" passes the Belgian register check).
                    let mut index = before;
                    while index < self.hits.len() {
                        if matches!(self.hits[index].ty, PiiType::PhoneTr | PiiType::PhoneIntl) {
                            index += 1;
                        } else {
                            self.hits.remove(index);
                        }
                    }
                }
            }
            if length == count {
                let keep = self.keep;
                // A token past 4 GiB has no place to note, and takes no shortcut.
                let token = u32::try_from(at).ok();
                whole_kept = token.is_some()
                    && self.hits[hits_before..].iter().any(|hit| {
                        hit.confidence >= B_FORM
                            && hit.confidence >= keep.1
                            && keep.0.contains(hit.ty)
                    });
                if whole_kept {
                    for hit in &mut self.hits[hits_before..] {
                        hit.shortcut = token;
                    }
                }
            }
        }
        if self.hits.len() - hits_before >= 2 {
            self.rank_by_nearest_keyword(hits_before);
        }
    }

    /// Bitcoin and Ethereum addresses (a whole word).
    pub(super) fn wallet(&mut self, start: usize, end: usize) -> Option<usize> {
        let word = &self.b[start..end];
        let valid = generic::btc_base58(word)
            || ((word.starts_with(b"bc1") || word.starts_with(b"BC1"))
                && generic::btc_bech32(word))
            || generic::eth_address(word);
        if valid {
            self.hit(start, end, PiiType::CryptoWallet, A, "crypto_wallet");
            return Some(end);
        }
        None
    }

    /// MRZ lines around `at`: the whole block is one finding.
    pub(super) fn mrz(&mut self, at: usize) -> Option<usize> {
        let b = self.b;
        // MRZ lines are at most 44 characters: look no further than that for the line ends.
        let back = at.saturating_sub(48);
        let line_start = match b[back..at].iter().rposition(|&c| c == b'\n') {
            Some(p) => back + p + 1,
            None if back == 0 => 0,
            None => return None,
        };
        let ahead = (at + 48).min(b.len());
        let line_end = match b[at..ahead].iter().position(|&c| c == b'\n') {
            Some(p) => at + p,
            None if ahead == b.len() => b.len(),
            None => return None,
        };
        let line = trim_cr(&b[line_start..line_end]);
        if !generic::mrz_line(line) {
            return None;
        }
        let mrz_shaped = |l: &[u8]| {
            matches!(l.len(), 30 | 36 | 44)
                && l.iter()
                    .all(|&c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'<')
        };
        let mut start = line_start;
        // Up to two MRZ lines above.
        for _ in 0..2 {
            if start < 2 {
                break;
            }
            let prev_end = start - 1;
            let floor = prev_end.saturating_sub(48);
            let prev_start = b[floor..prev_end]
                .iter()
                .rposition(|&c| c == b'\n')
                .map_or(floor, |p| floor + p + 1);
            if mrz_shaped(trim_cr(&b[prev_start..prev_end])) {
                start = prev_start;
            } else {
                break;
            }
        }
        let mut end = line_start + line.len();
        for _ in 0..2 {
            let next_start = end + if b.get(end) == Some(&b'\r') { 2 } else { 1 };
            if next_start >= b.len() {
                break;
            }
            let ceiling = (next_start + 48).min(b.len());
            let next_end = b[next_start..ceiling]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(ceiling, |p| next_start + p);
            let next = trim_cr(&b[next_start..next_end]);
            if mrz_shaped(next) {
                end = next_start + next.len();
            } else {
                break;
            }
        }
        self.hit(start, end, PiiType::Mrz, A, "mrz");
        Some(end)
    }
}

/// Whether one to three lower-case letters at `at` stand between separators before a digit, as a
/// plate's letters written in lower case do ("34 abc 123").
fn lower_plate_letters(b: &[u8], at: usize) -> bool {
    let letters = b[at.min(b.len())..]
        .iter()
        .take(4)
        .take_while(|c| c.is_ascii_lowercase())
        .count();
    let sep = separator_at(b, at + letters);
    (1..=3).contains(&letters) && sep > 0 && digit_at(b, at + letters + sep).is_some()
}

/// Whether a colon, then at most two spaces, stands right before `at`.
#[inline(always)]
fn after_colon(b: &[u8], at: usize) -> bool {
    let mut k = at;
    while k > 0 && at - k < 2 && b[k - 1] == b' ' {
        k -= 1;
    }
    k > 0 && b[k - 1] == b':'
}
