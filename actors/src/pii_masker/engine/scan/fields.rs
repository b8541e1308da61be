//! Fields: what follows a colon or an '=' (IPv6 and MAC addresses among them), keys of data files and
//! URL-encoded values.

use super::*;

/// The context that keys and columns give their values, however far they stand from them.
#[derive(Default)]
pub(super) struct Fields {
    /// Context that a column's header gives the cells under it ("Doğum Tarihi", `date_of_birth`),
    /// however far the header is: (start, end, types) of each such cell, in order (filled by
    /// `tables`), and where the last look-up found its cell.
    pub(super) cells: Vec<(usize, usize, TypeSet)>,
    pub(super) cell_cursor: usize,
    /// The value after the last colon of a key-shaped label (`"date_of_birth": "..."`,
    /// `customer.vkn: ...`), with the types its key's keywords support (filled by `colon`).
    pub(super) field: (usize, usize, TypeSet),
    /// Where that key starts: the value's context window starts there, so that an earlier field's
    /// keywords give it nothing (`"dob": "...", "created": "2024-05-01"`).
    pub(super) field_key: usize,
    /// A key's words, reused from key to key.
    key_words: Vec<u8>,
    /// Whether `cells` or `field` has given any value context yet.
    pub(super) given_anywhere: bool,
    /// What the keys met so far announce (see `key_meaning`).
    key_cache: rustc_hash::FxHashMap<Box<[u8]>, KeyMeaning>,
    /// The keyword matches of a key, reused from key to key.
    scratch_found: Vec<(usize, usize, u32)>,
    /// How many URL-encoded values this scanner's text lies inside (see `url_encoded_value`).
    decoding_depth: u8,
}

impl<'t> Scanner<'t> {
    // Out of `run`'s loop (see `tables`).
    #[inline(never)]
    pub(super) fn colon(&mut self, i: usize) -> usize {
        let b = self.b;
        let hex_before = i > 0 && b[i - 1].is_ascii_hexdigit();
        let hex_after = b
            .get(i + 1)
            .is_some_and(|c| c.is_ascii_hexdigit() || *c == b':');
        if hex_before && hex_after || (b.get(i + 1) == Some(&b':') && !text::word_before(b, i)) {
            if let Some(end) = self.hex_colon(i) {
                return end;
            }
        }
        if let Some(end) = self.mac_after(i) {
            return end;
        }
        // An XML tag's namespace prefix ("<cbc:CityName>", "</cac:Party>"): neither it nor the tag's
        // name is a label or a value, and the name is skipped whole (an e-invoice has a few on every
        // line, each a capitalised word for `word` otherwise).
        let opens_tag = |at: usize| {
            at > 0 && (b[at - 1] == b'<' || (b[at - 1] == b'/' && at >= 2 && b[at - 2] == b'<'))
        };
        let tag_prefix = || {
            let mut prefix = i;
            while prefix > 0 && i - prefix <= 16 && b[prefix - 1].is_ascii_alphanumeric() {
                prefix -= 1;
            }
            prefix < i && opens_tag(prefix)
        };
        // A label's colon is followed by a space or its value's digits, a tag's by its name.
        if b.get(i + 1).is_some_and(u8::is_ascii_alphabetic) && tag_prefix() {
            let mut end = i + 1;
            while b
                .get(end)
                .is_some_and(|&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.'))
            {
                end += 1;
            }
            return end;
        }
        // Label before the colon: up to three words back on the same line. Every label ends with a
        // letter (or a closing parenthesis: "Address (home):"), so "12:30" and "ISO 9001:2015" stop here.
        let mut last = i;
        while last > 0 && b[last - 1] == b' ' {
            last -= 1;
        }
        if last == 0 {
            return i + 1;
        }
        // A quoted key: `"date_of_birth": ...`, `'name': ...`.
        if matches!(b[last - 1], b'"' | b'\'') {
            return self.quoted_key_colon(i, last);
        }
        if !(b[last - 1].is_ascii_alphabetic() || b[last - 1] >= 0x80 || b[last - 1] == b')') {
            return i + 1;
        }
        if !self.exhaustive && !self.may_end_label(i, last) {
            return match key_shaped_before(b, last) {
                Some(key_start) => self.key_colon(i, key_start, last),
                None => i + 1,
            };
        }
        let mut from = i;
        let mut words = 0;
        while from > 0 && i - from < 32 {
            let c = b[from - 1];
            if ends_label_window(c) {
                break;
            }
            if c == b' ' && from < i && b[from] != b' ' {
                words += 1;
                if words >= 3 {
                    break;
                }
            }
            from -= 1;
        }
        let mut from = text::ceil_boundary(self.text, from);
        // A placeholder is no label, nor part of one: in a masked text "[MASKED_ADDRESS].</cbc:"
        // would read as an address label (see `lexicon::colon_label`), and the leak
        // re-scan would refuse an e-invoice's masked XML for the tag name after it. The window may
        // start inside one ("ADDRESS]. tarafından No:"): the label starts after the last one that
        // ends in it.
        let mut close_before = i;
        while let Some(close) = memchr::memrchr(b']', &b[from..close_before]) {
            let close = from + close;
            let low = close.saturating_sub(MASK_TOKEN_MAX);
            let open = memchr::memrchr(b'[', &b[low..close]).map(|open| low + open);
            if open.is_some_and(|open| mask_token_end(b, open) == Some(close + 1)) {
                from = close + 1;
                break;
            }
            close_before = close;
        }
        // Folded on the stack: the window holds at most 32 bytes.
        let mut stack = [0u8; 40];
        let label = text::fold_short(&b[from..i], &mut stack, &mut self.scratch).trim_ascii();
        let Some(kind) = lexicon::colon_label(label) else {
            return match key_shaped_before(b, last) {
                Some(key_start) => self.key_colon(i, key_start, last),
                None => i + 1,
            };
        };
        let person = kind == lexicon::Label::Name && lexicon::person_name_label(label);
        // An unquoted value keeps the reading it always had (from the colon on).
        let (value, close) = match self.quoted_value(self.value_start(i)) {
            Some((value, close)) => (value, Some(close)),
            None => (i + 1, None),
        };
        self.labelled_value(kind, person, value, close)
            .unwrap_or(i + 1)
    }

    /// A key before an equals sign, as a query string, a log line in logfmt, an `.env` or INI file
    /// write it (`first_name=Mehmet&dob=1985-03-12`, `musteri_vkn=4540536920`, `name = Ayşe Yılmaz`):
    /// read as the same key before a colon is ([`Self::key_colon`]), whether or not its case marks
    /// it as a key. An operator's '=' (`a == b`, `x <= 5`, `i += 1`) and a key that does not start
    /// its word are no keys.
    #[cold]
    #[inline(never)]
    pub(super) fn equals(&mut self, i: usize) -> usize {
        let b = self.b;
        if b.get(i + 1) == Some(&b'=') {
            return i + 2;
        }
        let mut last = i;
        while last > 0 && b[last - 1] == b' ' {
            last -= 1;
        }
        let mut start = last;
        while start > 0 && last - start < text::KEY_MAX && text::key_byte(b[start - 1]) {
            start -= 1;
        }
        let opens_key = start == 0
            || matches!(
                b[start - 1],
                b' ' | b'\t'
                    | b'\n'
                    | b'\r'
                    | b'&'
                    | b'?'
                    | b';'
                    | b','
                    | b'"'
                    | b'\''
                    | b'{'
                    | b'('
            );
        if start == last || !opens_key || !(b[start].is_ascii_alphabetic() || b[start] >= 0x80) {
            return i + 1;
        }
        self.url_encoded_value(i, start, last);
        self.key_colon(i, start, last)
    }

    /// A query string's value written URL-encoded, right after the '=' at `i` up to its '&' or
    /// space (`email=ali.veli%40example.com`, `name=Ay%C5%9Fe+Y%C4%B1lmaz`, `tel=%2B90+532+...`):
    /// decoded, it is scanned as `key: value` by a scanner of its own, and each value found there is
    /// masked over the bytes that encode it. The scan goes on over the raw value too (what it finds
    /// there loses to a longer decoded span), so that the masked text's re-scan sees what this one did.
    #[cold]
    pub(super) fn url_encoded_value(&mut self, i: usize, key_start: usize, key_end: usize) {
        if self.fields.decoding_depth >= 2 {
            return;
        }
        let b = self.b;
        let start = i + 1;
        let limit = (start + 256).min(b.len());
        let end = b[start..limit]
            .iter()
            .position(|&c| matches!(c, b'&' | b' ' | b'\t' | b'\n' | b'\r' | b'"' | b'\''))
            .map_or(limit, |p| start + p);
        let raw = &b[start..end];
        // Where each decoded byte is written: `%XX` is one byte from three, any other byte itself.
        let mut written = Vec::with_capacity(raw.len() + 1);
        let mut r = 0;
        while r < raw.len() {
            written.push(start + r);
            let triple = raw[r] == b'%'
                && raw.get(r + 1).is_some_and(u8::is_ascii_hexdigit)
                && raw.get(r + 2).is_some_and(u8::is_ascii_hexdigit);
            r += if triple { 3 } else { 1 };
        }
        written.push(end);
        let escaped = written.len() <= raw.len();
        if !escaped && !raw.contains(&b'+') {
            return;
        }
        // As a form encodes it: '+' for a space.
        let spaced: Vec<u8> = raw
            .iter()
            .map(|&c| if c == b'+' { b' ' } else { c })
            .collect();
        let Ok(decoded) = percent_encoding::percent_decode(&spaced).decode_utf8() else {
            return;
        };
        let key = &self.text[key_start..key_end];
        let field = format!("{key}: {decoded}");
        let offset = key.len() + 2;
        let mut inner = Scanner::new(&field, self.near.before, self.near.after);
        inner.keep = self.keep;
        inner.exhaustive = self.exhaustive;
        inner.fields.decoding_depth = self.fields.decoding_depth + 1;
        for hit in inner.run() {
            if hit.start < offset || hit.end <= hit.start {
                continue;
            }
            let (from, to) = (hit.start - offset, hit.end - offset);
            let (Some(&from), Some(&to)) = (written.get(from), written.get(to)) else {
                continue;
            };
            self.hits.push(Hit {
                start: from,
                end: to,
                shortcut: None,
                ..hit
            });
        }
    }

    /// A quoted key before the colon at `i` (`"first_name": `, its closing quote at `last - 1`): see
    /// [`Self::key_colon`].
    #[inline(never)]
    pub(super) fn quoted_key_colon(&mut self, i: usize, last: usize) -> usize {
        let b = self.b;
        let quote = b[last - 1];
        let key_end = last - 1;
        let mut key_start = key_end;
        // A quoted key may hold spaces, as a spreadsheet's headers do: `"Ad Soyad": `.
        while key_start > 0
            && key_end - key_start < text::KEY_MAX
            && (text::key_byte(b[key_start - 1]) || b[key_start - 1] == b' ')
        {
            key_start -= 1;
        }
        if key_start == key_end
            || !(b[key_start].is_ascii_alphabetic() || b[key_start] >= 0x80)
            || key_start == 0
            || b[key_start - 1] != quote
        {
            return i + 1;
        }
        self.key_colon(i, key_start, key_end)
    }

    /// A label written as a data file's key, at `key_start..key_end` before the colon at `i`: quoted
    /// (`"first_name": `), or in snake, kebab, camel or dotted case (`customer.person.first_name: `,
    /// `dateOfBirth: `). Its words ([`text::key_words`]) are looked up as a label ("first name",
    /// "home address"), and its keywords ("date of birth", "vkn") give the value after it their
    /// types, as a keyword right before it would.
    #[inline(never)]
    pub(super) fn key_colon(&mut self, i: usize, key_start: usize, key_end: usize) -> usize {
        let key = &self.b[key_start..key_end];
        let KeyMeaning {
            kind,
            types,
            person,
            bounds,
            name_part,
        } = self.key_info(key_start, key_end);
        // A bare "name" inside an object: the object's key says whose (`"product": {"name": ...}`
        // names a thing, as "Product name:" does; `"customer": {"name": ...}` a person).
        let kind = match kind {
            Some(lexicon::Label::Name) if key.iter().all(u8::is_ascii_alphabetic) => {
                self.parent_key_label(key_start, key)
            }
            other => other,
        };
        // A part of a name inside an object that is a name (`"name": [{"family": ..., "given": [...]}]`).
        let (kind, person) = if name_part && self.in_name_object(key_start) {
            (Some(lexicon::Label::Name), true)
        } else {
            (kind, person)
        };
        let (value, end, close) = self.field_value(i);
        // A key that says nothing (`"value"`) leaves the window to the record around it, and the
        // record's keywords before it, from its opening brace, label the value (`{"system": "phone",
        // "value": "(03) 5555 6473"}`).
        let types = if bounds {
            types
        } else {
            self.record_types(key_start)
        };
        self.fields.field = (value, end, types);
        self.fields.field_key = if bounds { key_start } else { 0 };
        self.fields.given_anywhere = true;
        if kind == Some(lexicon::Label::Name) {
            let open = self.value_start(i);
            if self.b.get(open) == Some(&b'[') {
                self.name_array(person, open);
                return i + 1;
            }
        }
        kind.and_then(|kind| self.labelled_value(kind, person, value, close))
            .unwrap_or(i + 1)
    }

    /// The types of the keywords before the key at `key_start`, back to its record's opening brace
    /// (at most the context window before it), those that need context only.
    #[cold]
    pub(super) fn record_types(&mut self, key_start: usize) -> TypeSet {
        let floor = key_start.saturating_sub(self.near.before);
        let from = memchr::memrchr(b'{', &self.b[floor..key_start]).map_or(floor, |p| floor + p);
        let types = self
            .near
            .keywords
            .types_in_moving(&mut self.near.cursors.2, from, key_start);
        TypeSet(types.0 & !CONTEXT_FREE)
    }

    /// Whether the key starting at `key_start` (after its quote) stands in a JSON object that is the
    /// value, or an item of the value, of a name key (`"name": {"first": ...`, `"name": [{"use":
    /// "official", "family": ...`, `"name": [{...}, {"given": ...`): the object's opening brace, the
    /// array's bracket if it is an item, then the key before them (at most 512 bytes back).
    #[cold]
    pub(super) fn in_name_object(&mut self, key_start: usize) -> bool {
        let b = self.b;
        let floor = key_start.saturating_sub(512);
        let Some(open) = unmatched_open(b, key_start, floor, b'{') else {
            return false;
        };
        let mut at = open;
        skip_spaces_back(b, &mut at);
        // An item of an array after others: back to the array's opening bracket.
        if at > 0 && b[at - 1] == b',' {
            let Some(bracket) = unmatched_open(b, at, floor, b'[') else {
                return false;
            };
            at = bracket + 1;
        }
        if at > 0 && b[at - 1] == b'[' {
            at -= 1;
        }
        quoted_key_before(b, at).is_some_and(|(key_start, key_end)| {
            self.key_info(key_start, key_end).kind == Some(lexicon::Label::Name)
        })
    }

    /// The names in a JSON array behind a name key (`"given": ["Peter", "James"]`), from its '[' at
    /// `open`, each quoted item read as a name behind its label.
    #[cold]
    pub(super) fn name_array(&mut self, person: bool, open: usize) {
        let b = self.b;
        let limit = (open + 512).min(b.len());
        let mut at = open + 1;
        while at < limit {
            match b[at] {
                b']' | b'\n' | b'{' => return,
                b'"' => {
                    let Some((from, close)) = self.quoted_value(at) else {
                        return;
                    };
                    self.labelled_value(lexicon::Label::Name, person, from, Some(close));
                    at = close + 1;
                }
                _ => at += 1,
            }
        }
    }

    /// What the key at `key_start..key_end` announces ([`key_meaning`]), remembered for the keys a
    /// data file repeats on every record. Inlined: out of line, it cost an e-invoice's text 0.5 %.
    #[inline(always)]
    pub(super) fn key_info(&mut self, key_start: usize, key_end: usize) -> KeyMeaning {
        let key = &self.b[key_start..key_end];
        if let Some(&known) = self.fields.key_cache.get(key) {
            return known;
        }
        let known = key_meaning(
            key,
            &mut self.fields.key_words,
            &mut self.fields.scratch_found,
        );
        // Bounded: a data file repeats a few keys on every record.
        if self.fields.key_cache.len() < KEY_CACHE_MAX {
            self.fields.key_cache.insert(key.into(), known);
        }
        known
    }

    /// The label of a one-word name key (`key`, starting at `key_start` after its quote) read with the
    /// key of the object it opens (`"product": {"name"` reads "product name", which names a thing):
    /// a name label unless the object's key makes it a thing's.
    pub(super) fn parent_key_label(
        &mut self,
        key_start: usize,
        key: &[u8],
    ) -> Option<lexicon::Label> {
        let b = self.b;
        // Back over the quote and spaces to the '{', then the key whose value it opens.
        let mut brace = key_start.saturating_sub(1);
        skip_spaces_back(b, &mut brace);
        let Some((at, parent_end)) = brace
            .checked_sub(1)
            .filter(|&open| b[open] == b'{')
            .and_then(|open| quoted_key_before(b, open))
        else {
            return Some(lexicon::Label::Name);
        };
        let mut words = std::mem::take(&mut self.fields.key_words);
        text::key_words(&b[at..parent_end], &mut words);
        words.push(b' ');
        words.extend(key.iter().map(u8::to_ascii_lowercase));
        let kind = lexicon::colon_label(&words);
        self.fields.key_words = words;
        kind
    }

    /// A hex/colon token (IPv6, MAC with ':') around the colon at `i`.
    /// A MAC address right after a label's colon that starts with a letter ("MAC: aabb.ccdd.eeff",
    /// "Hardware address: AA-BB-CC-DD-EE-FF"): the walk stops at no letter of a lower-case one, and one
    /// in capitals is no word. One that starts with a digit is a token's; one with colons is
    /// `hex_colon`'s, at its own colons.
    fn mac_after(&mut self, colon: usize) -> Option<usize> {
        let b = self.b;
        let mut start = colon + 1;
        while b.get(start) == Some(&b' ') && start - colon <= 3 {
            start += 1;
        }
        if !b
            .get(start)
            .is_some_and(|c| matches!(c, b'a'..=b'f' | b'A'..=b'F'))
        {
            return None;
        }
        if b.get(start + 2) == Some(&b'-') {
            self.mac_around(start, 2)
        } else if b.get(start + 4) == Some(&b'.') {
            self.mac_around(start, 4)
        } else {
            None
        }
    }

    pub(super) fn hex_colon(&mut self, i: usize) -> Option<usize> {
        let b = self.b;
        let token = |c: u8| c.is_ascii_hexdigit() || c == b':' || c == b'.';
        let mut start = i;
        while start > 0 && token(b[start - 1]) && i - start < 45 {
            start -= 1;
        }
        let mut end = i;
        while end < b.len() && token(b[end]) && end - start < 64 {
            end += 1;
        }
        while end > start && matches!(b[end - 1], b'.' | b':') && !(end >= 2 && b[end - 2] == b':')
        {
            end -= 1;
        }
        // A link-local address's zone ("fe80::1%eth0", "%25"), and a network's prefix length
        // ("2001:db8::/32") are the address's.
        let mut zone_end = end;
        if b.get(end) == Some(&b'%') {
            zone_end = end + 1;
            while zone_end < b.len()
                && zone_end - end <= 16
                && (b[zone_end].is_ascii_alphanumeric() || matches!(b[zone_end], b'_' | b'-'))
            {
                zone_end += 1;
            }
        }
        if (start > 0 && b[start - 1].is_ascii_alphanumeric())
            || b.get(zone_end).is_some_and(u8::is_ascii_alphanumeric)
        {
            return None;
        }
        let candidate = &b[start..end];
        if zone_end == end && generic::mac(candidate) {
            if !generic::mac_names_no_device(candidate) {
                self.hit(start, end, PiiType::MacAddress, A, "mac_address");
            }
            return Some(end);
        }
        if candidate.iter().filter(|&&c| c == b':').count() >= 2 && generic::ipv6(candidate) {
            let end = prefix_length_end(b, zone_end, 128);
            self.hit(start, end, PiiType::Ipv6, A, "ipv6");
            return Some(end);
        }
        None
    }
}

/// The quoted JSON key whose value starts at `value` (`"name": ` before it, spaces allowed around the
/// colon): the key's bytes inside its quotes.
pub(super) fn quoted_key_before(b: &[u8], value: usize) -> Option<(usize, usize)> {
    let mut at = value;
    skip_spaces_back(b, &mut at);
    at = at.checked_sub(1).filter(|&colon| b[colon] == b':')?;
    skip_spaces_back(b, &mut at);
    let key_end = at.checked_sub(1).filter(|&quote| b[quote] == b'"')?;
    let mut key_start = key_end;
    while key_start > 0 && key_end - key_start < text::KEY_MAX && text::key_byte(b[key_start - 1]) {
        key_start -= 1;
    }
    (key_start < key_end && key_start > 0 && b[key_start - 1] == b'"')
        .then_some((key_start, key_end))
}

/// The most keys a scan remembers the meaning of ([`key_meaning`]).
pub(super) const KEY_CACHE_MAX: usize = 256;

/// What ends an unquoted field's value ([`Scanner::field_value`]): a line, a cell or an item, and
/// after an equals sign a '&' too.
pub(super) const FIELD_END: u8 = 1;

pub(super) const FIELD_END_AMP: u8 = 2;

pub(super) static FIELD_ENDS: [u8; 256] = {
    let mut table = [0u8; 256];
    let ends = b"\n\r\t,;|}]";
    let mut k = 0;
    while k < ends.len() {
        table[ends[k] as usize] = FIELD_END;
        k += 1;
    }
    table[b'&' as usize] = FIELD_END_AMP;
    table
};

/// What a key announces: its words ([`text::key_words`], into `words`) looked up as a label and
/// searched for keywords.
pub(super) fn key_meaning(
    key: &[u8],
    words: &mut Vec<u8>,
    found: &mut Vec<(usize, usize, u32)>,
) -> KeyMeaning {
    text::key_words(key, words);
    let last = words
        .iter()
        .rposition(|&c| c == b' ')
        .map_or(&words[..], |space| &words[space + 1..]);
    let labelled =
        lexicon::ends_some_label(last) || memchr::memmem::find(words, b"address").is_some();
    let kind = if labelled {
        lexicon::colon_label(words)
    } else {
        None
    };
    let types = crate::pii_masker::engine::context::key_types(words, found);
    KeyMeaning {
        kind,
        types: TypeSet(types.0 & !CONTEXT_FREE),
        person: kind == Some(lexicon::Label::Name) && lexicon::person_name_label(words),
        bounds: !lexicon::generic_value_key(words),
        name_part: kind.is_none() && lexicon::name_part_key(words),
    }
}

/// What a data file's key announces (see [`key_meaning`]).
#[derive(Clone, Copy)]
pub(super) struct KeyMeaning {
    /// The label it is, if any.
    kind: Option<lexicon::Label>,
    /// The types its keywords support.
    types: TypeSet,
    /// Whether it names a part of a person's name (`first_name`, `soyad`).
    person: bool,
    /// Whether its value's context window starts at it (not for `"value"` and the like).
    bounds: bool,
    /// Whether it names a part of a name inside an object that is a name (`"family"`, `"given"`).
    name_part: bool,
}
