//! The single pass: one walk over the bytes stops only at digits, capitals, '@', ':' and a few openers,
//! builds a candidate from the surrounding token or grouped number, and hands it to the validators
//! that accept its shape. No per-type pass; context is looked up lazily, only for candidates that
//! need it.

use super::context::KeywordIndex;
use super::lexicon::{self, Word};
use super::text::{self, digit_at, letter_at, separator_at, upper_at, CLASS};
use super::types::{PiiType, TypeSet};
use crate::pii_masker::detectors::{eu, generic, tr, us};

/// A validated candidate, before overlap resolution.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hit {
    pub start: usize,
    pub end: usize,
    pub ty: PiiType,
    pub confidence: f32,
    pub detector: &'static str,
    /// The tie-break when two hits claim the same span (lower wins): the type's priority, except among
    /// the hits of one span that rest on no checksum, which take their priorities in the order of their
    /// nearest keywords (see [`Scanner::rank_by_nearest_keyword`]).
    pub priority: u8,
    /// Set on the hits of a whole grouped number whose shorter spans were not evaluated (they lose to
    /// it): where its token starts, so that the spans can be evaluated after all, should another hit
    /// beat this one in overlap resolution (see `engine::resolved`).
    pub shortcut: Option<usize>,
}

const A: f32 = 0.95;
const A_MINUS: f32 = 0.85;
const B_FORM: f32 = 0.8;
const B_CONTEXT: f32 = 0.75;
const C_LABEL: f32 = 0.7;
const D_LABEL: f32 = 0.6;
const D_GAZETTEER: f32 = 0.5;
/// A known given name before a word no gazetteer knows, taken for its surname.
const D_GIVEN: f32 = 0.4;
/// The least confidence of a value validated by a checksum or a distinctive form, rather than by a
/// keyword or a label alone.
pub const VALIDATED: f32 = B_FORM;

const SEP_SPACE: u8 = 1;
const SEP_DOT: u8 = 2;
const SEP_DASH: u8 = 4;
const SEP_SLASH: u8 = 8;
const SEP_PAREN: u8 = 16;

const MAX_GROUPS: usize = 12;
/// The most groups a value is written in (an IBAN of 34 characters in fours).
const MAX_VALUE_GROUPS: usize = 9;
/// The most normalised characters of one chain: 40 per group.
const NORM_MAX: usize = MAX_GROUPS * 40;
/// Lengths at which a span of digits may be a value with no keyword around it (see `evaluate`): 444
/// numbers (7), dashed US numbers (9), phone forms and Swedish ids (10, 12, 14), checksummed 11-digit
/// ids, card numbers (15, 16, 19), French social security numbers (15), workplace numbers (26).
const NO_CONTEXT_DIGIT_LENGTHS: u64 =
    1 << 7 | 1 << 9 | 1 << 10 | 1 << 11 | 1 << 12 | 1 << 14 | 1 << 15 | 1 << 16 | 1 << 19 | 1 << 26;
/// Bytes between a phone label and a national number without a country code ("Tel.: ", "móvil ").
const PHONE_LABEL_GAP: usize = 16;
/// The most bytes a table's column label can be written in (its colon and spaces aside): each byte of
/// a folded label comes from at most three (`i` and a combining dot, a narrow no-break space).
const LABEL_CELL_MAX: usize = 3 * lexicon::TABLE_LABEL_BYTES_MAX;

#[derive(Clone, Copy, Default, Debug)]
struct Group {
    start: usize,
    end: usize,
    norm_start: usize,
    norm_end: usize,
    digits: usize,
    letters: usize,
    /// Separator kinds between the previous group and this one.
    sep: u8,
}

impl Group {
    fn len(&self) -> usize {
        self.norm_end - self.norm_start
    }
}

pub struct Scanner<'t> {
    text: &'t str,
    b: &'t [u8],
    window_before: usize,
    window_after: usize,
    pub hits: Vec<Hit>,
    keywords: KeywordIndex<'t>,
    /// Where the last look-ups before and after a candidate started in `keywords`.
    keyword_cursors: (usize, usize, usize),
    scratch: Vec<u8>,
    /// The groups' characters back to back, normalised (digits as ASCII, letters in upper case): the
    /// first `norm_len` bytes (filled by `chain`, at most 40 per group).
    norm: [u8; NORM_MAX],
    norm_len: usize,
    /// The groups of the current grouped number (filled by `chain`).
    groups: [Group; MAX_GROUPS],
    /// The types and the least confidence of the findings the policy keeps: a checksummed value of such
    /// a type makes the spans inside it moot.
    keep: (TypeSet, f32),
    /// Set by [`Scanner::skipping_nothing`].
    exhaustive: bool,
    /// The end of the last address found, unless its limit cut it: the scan goes on inside an address
    /// (for the values it holds), but its street words start no address of their own (one would end
    /// where it ends).
    address_reach: usize,
    /// Context that a column's header gives the cells under it ("Doğum Tarihi", `date_of_birth`),
    /// however far the header is: (start, end, types) of each such cell, in order (filled by
    /// `tables`), and where the last look-up found its cell.
    cells: Vec<(usize, usize, TypeSet)>,
    cell_cursor: usize,
    /// The value after the last colon of a key-shaped label (`"date_of_birth": "..."`,
    /// `customer.vkn: ...`), with the types its key's keywords support (filled by `colon`).
    field: (usize, usize, TypeSet),
    /// Where that key starts: the value's context window starts there, so that an earlier field's
    /// keywords give it nothing (`"dob": "...", "created": "2024-05-01"`).
    field_key: usize,
    /// A key's words, reused from key to key.
    key_words: Vec<u8>,
    /// Whether `cells` or `field` has given any value context yet.
    given_anywhere: bool,
    /// What the keys met so far announce (see `key_meaning`).
    key_cache: rustc_hash::FxHashMap<Box<[u8]>, KeyMeaning>,
    /// The keyword matches of a key, reused from key to key.
    scratch_found: Vec<(usize, usize, u32)>,
    /// How many URL-encoded values this scanner's text lies inside (see `url_encoded_value`).
    decoding_depth: u8,
}

fn sep_kind(byte: u8) -> u8 {
    match byte {
        b' ' | 0xC2 => SEP_SPACE,
        b'.' => SEP_DOT,
        b'-' | 0xE2 => SEP_DASH,
        b'/' => SEP_SLASH,
        b'(' | b')' => SEP_PAREN,
        _ => 0,
    }
}

/// Moves `at` back over the spaces, tabs and line breaks before it.
fn skip_spaces_back(b: &[u8], at: &mut usize) {
    while *at > 0 && matches!(b[*at - 1], b' ' | b'\t' | b'\n' | b'\r') {
        *at -= 1;
    }
}

/// The opening `open` ('{' or '[') before `at` that no bracket between them closes, no further back
/// than `floor`.
fn unmatched_open(b: &[u8], mut at: usize, floor: usize, open: u8) -> Option<usize> {
    let mut depth = 0usize;
    while at > floor {
        at -= 1;
        match b[at] {
            b'}' | b']' => depth += 1,
            c if c == open && depth == 0 => return Some(at),
            b'{' | b'[' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

/// The quoted JSON key whose value starts at `value` (`"name": ` before it, spaces allowed around the
/// colon): the key's bytes inside its quotes.
fn quoted_key_before(b: &[u8], value: usize) -> Option<(usize, usize)> {
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

/// The column list of a `COPY table (columns) FROM stdin;` line (a PostgreSQL dump) ending right before
/// `line_start`: where it starts and ends inside its parentheses.
fn copy_columns(b: &[u8], line_start: usize) -> Option<(usize, usize)> {
    let before = line_start.checked_sub(1)?;
    let start = memchr::memrchr(b'\n', &b[..before]).map_or(0, |p| p + 1);
    let line = trim_cr(&b[start..before]);
    if !line.starts_with(b"COPY ") || line.len() > 4096 {
        return None;
    }
    let rest = line.strip_suffix(b";").unwrap_or(line);
    let rest = rest.strip_suffix(b" FROM stdin")?;
    let close = rest.len().checked_sub(1).filter(|&c| rest[c] == b')')?;
    let open = memchr::memchr(b'(', rest)?;
    (open < close).then_some((start + open + 1, start + close))
}

/// The column of a table's header whose cell is "Ad" (a given name) when another is "Soyad" or
/// "Soyadı" (a surname).
fn first_name_beside_surname(cells: &[(usize, &str)]) -> Option<usize> {
    let is = |cell: &str, words: &[&str]| {
        let core = cell.trim().trim_end_matches(':').trim_end();
        core.len() <= 8 && {
            let mut folded = Vec::with_capacity(8);
            text::fold_into(core.as_bytes(), &mut folded);
            words.iter().any(|w| w.as_bytes() == folded)
        }
    };
    let given = cells.iter().position(|&(_, cell)| is(cell, &["ad"]))?;
    cells
        .iter()
        .any(|&(_, cell)| is(cell, &["soyad", "soyadi"]))
        .then_some(given)
}

/// A table cell that holds one phone number and nothing else: 7 to 15 digits, written with spaces,
/// dashes, dots, slashes or parentheses, an optional leading `+`, starting and ending with a digit (or
/// its opening parenthesis), and perhaps its extension ("x944").
fn phone_shaped_cell(cell: &str) -> bool {
    let b = cell.as_bytes();
    // An extension after the number ("686-620-1820x944") is the number's.
    let b = match memchr::memrchr(b'x', b) {
        Some(x) if x > 0 && extension_at(&b[x - 1..]) == Some(1) => &b[..x],
        _ => b,
    };
    let digits = b.iter().filter(|c| c.is_ascii_digit()).count();
    (7..=15).contains(&digits)
        && b.iter().all(|&c| {
            c.is_ascii_digit() || matches!(c, b' ' | b'-' | b'.' | b'/' | b'(' | b')' | b'+')
        })
        && b.iter().skip(1).all(|&c| c != b'+')
        && b.last().is_some_and(u8::is_ascii_digit)
        && b.first()
            .is_some_and(|c| c.is_ascii_digit() || matches!(c, b'+' | b'('))
}

/// Where the local part of an e-mail address ending at `end` starts: at most 64 local characters back,
/// without leading dots (`end` itself when there is none).
fn email_local_start(b: &[u8], end: usize) -> usize {
    let mut start = end;
    while start > 0 && end - start < 64 && generic::email_local_char(b[start - 1]) {
        start -= 1;
    }
    while start < end && b[start] == b'.' {
        start += 1;
    }
    start
}

/// Where the group of local parts closed at `close` starts, when it is one: the notation of papers and
/// staff lists for several addresses at one domain, "{vladk, barlaso, plewis}@fb.com" (every address
/// in it is personal data, and no single one is found: the '}' ends each local part). The group, on
/// one line and within 256 bytes, holds local parts separated by commas, semicolons or '|' (spaces
/// allowed: text extraction turns underscores into them, "{melissadell,jacob carlson}@..."), at least
/// one of which makes a valid address with `domain`.
fn email_group_start(b: &[u8], close: usize, domain: &[u8]) -> Option<usize> {
    let floor = close.saturating_sub(256);
    let open = floor + memchr::memrchr2(b'{', b'\n', &b[floor..close])?;
    if b[open] != b'{' {
        return None;
    }
    let inside = &b[open + 1..close];
    let allowed = |c: &u8| generic::email_local_char(*c) || matches!(c, b',' | b';' | b'|' | b' ');
    if !inside.iter().all(allowed) {
        return None;
    }
    inside
        .split(|c| matches!(c, b',' | b';' | b'|'))
        .any(|local| generic::email(local.trim_ascii(), domain))
        .then_some(open)
}

/// A byte before which the text read back from a colon as its label stops (a line break, a cell or
/// field separator, another colon): `colon` and its filter `may_end_label` must stop at the same ones.
fn ends_label_window(c: u8) -> bool {
    matches!(c, b'\n' | b':' | b';' | b'\t' | b'|' | b'>')
}

/// `(word)` or `[word]` at `open`, for one of `words` (ASCII, any case): the position after the closing
/// bracket.
fn bracketed(b: &[u8], open: usize, words: &[&[u8]]) -> Option<usize> {
    let close = match b.get(open)? {
        b'(' => b')',
        b'[' => b']',
        _ => return None,
    };
    words.iter().find_map(|word| {
        let inner = b.get(open + 1..open + 1 + word.len())?;
        (inner.eq_ignore_ascii_case(word) && b.get(open + 1 + word.len()) == Some(&close))
            .then_some(open + 2 + word.len())
    })
}

/// Bytes a mask token is looked for in (the longest placeholder has 30).
const MASK_TOKEN_MAX: usize = 48;

/// A mask token `[MASKED_<NAME>]` at `i`, its name one of the 46 types': its end. A text's own
/// "[MASKED_10000000146]" is no placeholder, and its number is found.
fn mask_token_end(b: &[u8], i: usize) -> Option<usize> {
    if !b[i..].starts_with(b"[MASKED_") {
        return None;
    }
    let rest = &b[i + 8..b.len().min(i + MASK_TOKEN_MAX)];
    let close = memchr::memchr(b']', rest)?;
    let name = &rest[..close];
    PiiType::ALL
        .iter()
        .any(|ty| {
            let placeholder = ty.placeholder().as_bytes();
            placeholder.len() == name.len() + 9 && &placeholder[8..placeholder.len() - 1] == name
        })
        .then_some(i + 8 + close + 1)
}

/// A cell cut of its spaces and of the quotes or brackets around a column name (`"Doğum Tarihi"`,
/// `` `first_name` ``, `[Telefon]`).
fn unquoted_name(cell: &str) -> &str {
    cell.trim_matches(|c| matches!(c, ' ' | '"' | '`' | '[' | ']' | '\n' | '\r' | '\t'))
}

/// A `CREATE TABLE` statement's table and column names.
struct SqlTable<'t> {
    start: usize,
    columns: Vec<(usize, &'t str)>,
}

/// The `CREATE TABLE` statements of a text, by table name (in lower case), each name's in the
/// text's order.
#[derive(Default)]
struct SqlTables<'t>(rustc_hash::FxHashMap<Box<[u8]>, Vec<SqlTable<'t>>>);

impl<'t> SqlTables<'t> {
    /// The last definition of table `name` before `at`.
    fn before(&self, name: &str, at: usize) -> Option<&SqlTable<'t>> {
        let tables = self.0.get(name.to_ascii_lowercase().as_bytes())?;
        let count = tables.partition_point(|table| table.start < at);
        count.checked_sub(1).map(|last| &tables[last])
    }
}

/// The most bytes an SQL row or a table's definition is read over.
const SQL_STATEMENT_MAX: usize = 1 << 16;
/// The most levels of brackets a value of a row nests.
const ROW_DEPTH_MAX: usize = 8;
/// The most bytes an `INSERT` statement's column list is looked for in.
const SQL_COLUMNS_MAX: usize = 4096;

/// `at` moved over spaces and line breaks.
fn sql_space(b: &[u8], mut at: usize) -> usize {
    while b.get(at).is_some_and(u8::is_ascii_whitespace) {
        at += 1;
    }
    at
}

/// Whether the SQL keyword `word` (lower case) is written at `at`, in any case, as a whole word.
fn sql_keyword(b: &[u8], at: usize, word: &[u8]) -> bool {
    b.get(at..at + word.len())
        .is_some_and(|w| w.eq_ignore_ascii_case(word))
        && !b
            .get(at + word.len())
            .is_some_and(|&c| c.is_ascii_alphanumeric() || c == b'_')
}

/// `at` moved over those of the SQL keywords `words` written there, in their order, and the spaces
/// after each.
fn sql_words(b: &[u8], mut at: usize, words: &[&[u8]]) -> usize {
    for word in words {
        if sql_keyword(b, at, word) {
            at = sql_space(b, at + word.len());
        }
    }
    at
}

/// The (schema-qualified, quoted or bracketed) name at `at`: where it ends, and its last part
/// without quotes (`public.customers`, `` `shop`.`customers` ``, `[dbo].[customers]`).
fn sql_name(text: &str, at: usize) -> Option<(usize, &str)> {
    let b = text.as_bytes();
    let mut i = at;
    loop {
        let (start, end, next) = match *b.get(i)? {
            open @ (b'"' | b'`' | b'[') => {
                let close = if open == b'[' { b']' } else { open };
                let end = i + 1 + memchr::memchr(close, b.get(i + 1..(i + 129).min(b.len()))?)?;
                (i + 1, end, end + 1)
            }
            _ => {
                let mut end = i;
                while b.get(end).is_some_and(|&c| {
                    c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80
                }) {
                    end += 1;
                }
                (i, end, end)
            }
        };
        if end == start {
            return None;
        }
        if b.get(next) == Some(&b'.') {
            i = next + 1;
            continue;
        }
        // Quotes, brackets, dots and ASCII letters are whole characters: the cuts are boundaries.
        return Some((next, &text[start..end]));
    }
}

/// The column names of the list that opens at `open` (`(id, "first_name", `phone`)`), into
/// `columns`: where the list closes.
fn sql_column_names<'t>(
    text: &'t str,
    open: usize,
    columns: &mut Vec<(usize, &'t str)>,
) -> Option<usize> {
    let b = text.as_bytes();
    let limit = (open + SQL_COLUMNS_MAX).min(b.len());
    let close = open + 1 + memchr::memchr(b')', &b[open + 1..limit])?;
    let mut from = open + 1;
    for part in text[open + 1..close].split(',') {
        let name = unquoted_name(part);
        columns.push((
            from + (name.as_ptr() as usize - part.as_ptr() as usize),
            name,
        ));
        from += part.len() + 1;
    }
    Some(close)
}

/// Where the string whose text starts at `at` closes (its `quote`), over backslash escapes and
/// doubled quotes (SQL's `''`, MySQL's `\\'`, JSON's `\\"`).
fn string_end(b: &[u8], mut at: usize, limit: usize, quote: u8) -> Option<usize> {
    loop {
        let found = at + memchr::memchr2(quote, b'\\', b.get(at..limit)?)?;
        // A backslash escapes the byte after it, and a quote doubled is one quote.
        if b[found] == b'\\' || b.get(found + 1) == Some(&quote) {
            at = found + 2;
        } else {
            return Some(found);
        }
    }
}

/// The values of the row that opens at `open`: an SQL row (`(1, 'Ayşe', NULL, '1985-03-12'::date)`,
/// strings in `'`, closed by `)`) or a JSON array (`[1, "Ayşe", null]`, strings in `"`, closed by
/// `]`), into `row`: a string's text without its quotes, anything else as written. Where the row
/// ends (after its closing bracket), or where reading stopped when it does not end.
fn row_values<'t>(
    text: &'t str,
    open: usize,
    quote: u8,
    close: u8,
    row: &mut Vec<(usize, &'t str)>,
) -> Result<usize, usize> {
    let b = text.as_bytes();
    let limit = (open + SQL_STATEMENT_MAX).min(b.len());
    row.clear();
    let mut i = open + 1;
    loop {
        i = sql_space(b, i);
        let start = i;
        let mut depth = 0usize;
        let mut strings = 0;
        let mut string = (0, 0);
        loop {
            let Some(&c) = b.get(i).filter(|_| i < limit) else {
                return Err(i);
            };
            match c {
                c if c == quote => {
                    let end = string_end(b, i + 1, limit, quote).ok_or(limit)?;
                    string = (i + 1, end);
                    strings += 1;
                    i = end + 1;
                }
                // Values nest a few levels at most (a function's arguments, an object); deeper, it is
                // no row, and every opening bracket of such a run would read it again.
                b'(' | b'[' | b'{' if depth == ROW_DEPTH_MAX => return Err(i),
                b'(' | b'[' | b'{' => {
                    depth += 1;
                    i += 1;
                }
                b')' | b']' | b'}' if depth > 0 => {
                    depth -= 1;
                    i += 1;
                }
                b',' if depth == 0 => break,
                c if c == close => break,
                // A bracket of another kind closes nothing open: not a row.
                b')' | b']' | b'}' => return Err(i),
                _ => i += 1,
            }
        }
        let mut end = i;
        while end > start && b[end - 1].is_ascii_whitespace() {
            end -= 1;
        }
        // Quotes, brackets, commas and spaces are whole characters: the cuts are boundaries.
        row.push(if strings == 1 {
            (string.0, &text[string.0..string.1])
        } else {
            (start, &text[start..end])
        });
        if b[i] == close {
            return Ok(i + 1);
        }
        i += 1;
    }
}

/// Whether every value of `row` (read by [`row_values`]) is a string in `quote`s.
fn all_strings(b: &[u8], row: &[(usize, &str)], quote: u8) -> bool {
    row.iter().all(|&(start, value)| {
        start > 0 && b[start - 1] == quote && b.get(start + value.len()) == Some(&quote)
    })
}

/// The keys of a JSON object's list of column names (`"columns": ["id", "first_name"]`, as pandas
/// writes a table split into columns and data).
const JSON_COLUMN_KEYS: [&[u8]; 6] = [
    b"\"columns\"",
    b"\"column_names\"",
    b"\"fields\"",
    b"\"headers\"",
    b"\"header\"",
    b"\"meta\"",
];

/// The objects open at a point of a JSON text, walked forward from one array of arrays to the next
/// (see `json_rows`): every byte is read once, strings passed over.
#[derive(Default)]
struct JsonWalk {
    /// Where the walk has read to.
    at: usize,
    /// Where the last array of rows read ends, or reading a first row stopped.
    reach: usize,
    /// The opening braces of the objects open there, innermost last.
    open: Vec<usize>,
    /// The object whose column list was last looked for: its brace, where the search has read to,
    /// and where the list's key ends when found.
    columns: Option<(usize, usize, Option<usize>)>,
}

impl JsonWalk {
    /// Walks on to `to`; false when `to` lies inside a string.
    fn to(&mut self, b: &[u8], to: usize) -> bool {
        if to < self.at {
            return false;
        }
        while let Some(found) = memchr::memchr3(b'{', b'}', b'"', &b[self.at..to]) {
            let i = self.at + found;
            match b[i] {
                b'{' => self.open.push(i),
                b'}' => {
                    self.open.pop();
                }
                _ => {
                    // On after the string's closing quote (to the text's end when it has none).
                    self.at = string_end(b, i + 1, b.len(), b'"').map_or(b.len(), |end| end + 1);
                    if self.at > to {
                        return false;
                    }
                    continue;
                }
            }
            self.at = i + 1;
        }
        self.at = to;
        true
    }
}

/// The text's `CREATE TABLE` statements: each table's column names, by the table's name.
fn sql_created_tables(text: &str) -> SqlTables<'_> {
    let b = text.as_bytes();
    let mut tables = SqlTables::default();
    for finder in [&b"CREATE"[..], b"create"] {
        let mut from = 0;
        while let Some(found) = memchr::memmem::find(&b[from..], finder) {
            let at = from + found;
            from = at + 6;
            // `CREATE TEMPORARY TABLE`, `CREATE TABLE IF NOT EXISTS`.
            let i = sql_words(
                b,
                sql_space(b, at + 6),
                &[b"temporary", b"temp", b"table", b"if", b"not", b"exists"],
            );
            if !b[at..i]
                .windows(5)
                .any(|w| w.eq_ignore_ascii_case(b"table"))
            {
                continue;
            }
            let Some((name_end, name)) = sql_name(text, i) else {
                continue;
            };
            let open = sql_space(b, name_end);
            if b.get(open) != Some(&b'(') {
                continue;
            }
            // The definitions, split at the commas outside parentheses and strings.
            let limit = (open + SQL_STATEMENT_MAX).min(b.len());
            let mut columns = Vec::new();
            let (mut depth, mut part, mut i) = (0usize, open + 1, open + 1);
            let mut closed = false;
            while i < limit {
                match b[i] {
                    b'\'' => match string_end(b, i + 1, limit, b'\'') {
                        Some(close) => i = close,
                        None => break,
                    },
                    b'(' => depth += 1,
                    b')' | b',' if depth == 0 => {
                        let definition = sql_space(b, part);
                        if let Some((_, column)) = sql_name(text, definition) {
                            let constraint = [
                                "constraint",
                                "primary",
                                "key",
                                "unique",
                                "index",
                                "foreign",
                                "check",
                                "fulltext",
                                "spatial",
                                "exclude",
                                "like",
                            ]
                            .iter()
                            .any(|word| sql_keyword(b, definition, word.as_bytes()));
                            if !constraint {
                                let offset = column.as_ptr() as usize - text.as_ptr() as usize;
                                columns.push((offset, column));
                            }
                        }
                        part = i + 1;
                        if b[i] == b')' {
                            closed = true;
                            break;
                        }
                    }
                    b')' => depth -= 1,
                    _ => {}
                }
                i += 1;
            }
            from = i.max(from);
            if closed && !columns.is_empty() {
                let key = name.to_ascii_lowercase().into_bytes().into_boxed_slice();
                tables
                    .0
                    .entry(key)
                    .or_default()
                    .push(SqlTable { start: at, columns });
            }
        }
    }
    for definitions in tables.0.values_mut() {
        definitions.sort_by_key(|table| table.start);
    }
    tables
}

/// What a table's header says of its columns, and the buffers to read it with: shared by
/// tab-separated tables (and the `COPY` lines of PostgreSQL dumps) and SQL `INSERT` statements.
#[derive(Default)]
struct Columns<'t> {
    /// (column, type) of the header's label cells ("Ad Soyad", "Adres") and of its phone columns, in
    /// column order.
    columns: Vec<(usize, PiiType)>,
    /// The columns whose header names a part of a person's name ("first_name", "Soyadı"): their
    /// names may be written in lower case.
    person_columns: Vec<usize>,
    /// The types each column's header supports ("Doğum Tarihi", `date_of_birth`), for its cells.
    column_types: Vec<TypeSet>,
    /// (cell, type) of the label cells of the current line.
    labels: Vec<(usize, PiiType)>,
    types: Vec<TypeSet>,
    marks: Vec<(usize, PiiType)>,
    folded: Vec<u8>,
    words: Vec<u8>,
    found: Vec<(usize, usize, u32)>,
    /// The values of the row being read (see `read_rows`).
    row: Vec<(usize, &'t str)>,
}

impl<'t> Columns<'t> {
    /// The table ended: no header holds any more.
    fn forget(&mut self) {
        self.columns.clear();
        self.person_columns.clear();
        self.column_types.clear();
    }

    /// The type a cell labels ("Ad Soyad", "Telefon"; on a table's `first` line also a key such as
    /// "first_name").
    // Inlined into the cell loops: called, it cost a spreadsheet's text 6 % more instructions.
    #[inline(always)]
    fn label_kind(&mut self, cell: &str, first: bool) -> Option<PiiType> {
        // Every label is a few words that begin with a letter, hold no digit or '@', and fit in
        // `TABLE_LABEL_BYTES_MAX` bytes (a test holds the lexicon to that): an empty cell, an
        // indentation, a number, a phone number, an e-mail address, an IBAN or a tag
        // (`<cbc:Name>`, on every tab-indented line of an XML file) is none, and is not folded. A
        // cell that begins with ASCII other than a letter or a space is none before it is trimmed.
        if cell.as_bytes().first().is_some_and(|&c| {
            c.is_ascii() && !c.is_ascii_alphabetic() && !char::from(c).is_whitespace()
        }) {
            return None;
        }
        let cell = cell.trim();
        let core = cell.trim_end_matches(|c: char| c == ':' || c.is_whitespace());
        if core.len() > LABEL_CELL_MAX
            || !core.starts_with(|c: char| c.is_alphabetic() || c == '\u{307}')
        {
            return None;
        }
        // Folding keeps digits and '@'.
        if core.bytes().any(|c| c.is_ascii_digit() || c == b'@') {
            return None;
        }
        let folded = &mut self.folded;
        folded.clear();
        text::fold_into(cell.as_bytes(), folded);
        let label = folded.strip_suffix(b":").unwrap_or(folded).trim_ascii();
        lexicon::table_label(label).or_else(|| {
            // A header written as a key, on a table's first line: "first_name", "lastName",
            // "customer.email" (and nothing else: not "Ad Soyad: [MASKED_PERSON_NAME]").
            let key = core.as_bytes();
            if !first || key.len() > text::KEY_MAX || key_shaped_before(key, key.len()) != Some(0) {
                return None;
            }
            if !text::key_words(key, folded) {
                return None;
            }
            lexicon::key_table_label(folded)
        })
    }

    /// The types a header cell's keywords support ("Doğum Tarihi", "date_of_birth", "Vergi No"), for
    /// the cells under it: its text as written and as a key's words.
    fn header_types(&mut self, cell: &str) -> TypeSet {
        let cell = cell.trim();
        // Not a cell with a placeholder in it: masking must not make a header of a line.
        if cell.len() > text::KEY_MAX
            || !cell.starts_with(char::is_alphabetic)
            || cell.contains(['@', '['])
        {
            return TypeSet::default();
        }
        text::key_words(cell.as_bytes(), &mut self.words);
        let mut types = super::context::key_types(&self.words, &mut self.found);
        // As written, for the keywords with punctuation ("T.C. Kimlik", "Doğ. Tar.", "4/b").
        if cell.contains(['.', '-', '/']) {
            types =
                TypeSet(types.0 | super::context::text_types(cell.as_bytes(), &mut self.found).0);
        }
        types
    }

    /// Whether a header cell names a part of a person's name ("first_name", "Soyadı", "Ad Soyad"):
    /// its cells' names may be written in lower case.
    fn person_header(&mut self, cell: &str) -> bool {
        let core = cell
            .trim()
            .trim_end_matches(|c: char| c == ':' || c.is_whitespace());
        let folded = &mut self.folded;
        folded.clear();
        text::fold_into(core.as_bytes(), folded);
        lexicon::person_name_label(folded.trim_ascii())
            || (core.len() <= text::KEY_MAX && {
                text::key_words(core.as_bytes(), folded);
                lexicon::person_name_label(folded)
            })
    }

    /// The rows from `at` on, separated by commas, each in `brackets` with its strings in `quote`s
    /// (see [`row_values`]), and each marked under the header when `marking`: where they end, or
    /// where reading stopped.
    fn read_rows(
        &mut self,
        scanner: &mut Scanner<'t>,
        mut at: usize,
        brackets: (u8, u8),
        quote: u8,
        marking: bool,
    ) -> usize {
        let b = scanner.b;
        let mut row = std::mem::take(&mut self.row);
        while b.get(at) == Some(&brackets.0) {
            match row_values(scanner.text, at, quote, brackets.1, &mut row) {
                Ok(end) => {
                    if marking {
                        self.mark_row(scanner, &row);
                    }
                    at = sql_space(b, end);
                    if b.get(at) != Some(&b',') {
                        break;
                    }
                    at = sql_space(b, at + 1);
                }
                Err(stop) => {
                    at = stop;
                    break;
                }
            }
        }
        self.row = row;
        at
    }

    /// Reads a list of column names (an SQL statement's, a JSON object's, the cells of a line that
    /// ';' or '|' separates) as a table's first line: whether they name anything, and then their
    /// columns hold for the rows read after.
    fn read_header(&mut self, names: &[(usize, &str)]) -> bool {
        self.forget();
        self.labels.clear();
        for (index, &(_, name)) in names.iter().enumerate() {
            if let Some(kind) = self.label_kind(name, true) {
                self.labels.push((index, kind));
            }
        }
        let header = self.header(names, true);
        // The rows under it are no two-cell rows of a label and its value.
        self.labels.clear();
        header
    }

    /// Reads `cells` (with their labels in `labels`) as a header when one is a label or, on a
    /// table's `first` line, when one names what a keyword names ("Doğum Tarihi", "tckn"); then its
    /// columns hold for the rows under it.
    #[inline(always)]
    fn header(&mut self, cells: &[(usize, &str)], first: bool) -> bool {
        let header = (!self.labels.is_empty() || first) && {
            let mut types = std::mem::take(&mut self.types);
            types.clear();
            // A cell that is a label already ("Ad Soyad", "Telefon") names no other type.
            for (index, &(_, cell)) in cells.iter().enumerate() {
                types.push(if self.labels.iter().any(|label| label.0 == index) {
                    TypeSet::default()
                } else {
                    self.header_types(cell)
                });
            }
            self.types = types;
            !self.labels.is_empty() || self.types.iter().any(|t| t.0 != 0)
        };
        if !header {
            return false;
        }
        std::mem::swap(&mut self.column_types, &mut self.types);
        self.columns.clone_from(&self.labels);
        // A phone column by its keyword ("Phone 1", "Cep Tel.", "mobile_phone").
        for (index, given) in self.column_types.iter().enumerate() {
            if given.contains(PiiType::PhoneIntl) && !self.columns.iter().any(|c| c.0 == index) {
                self.columns.push((index, PiiType::PhoneIntl));
            }
        }
        self.columns.sort_unstable_by_key(|column| column.0);
        // A bare "name" column among the columns of goods (quantity, price, amount) names the items:
        // an e-invoice's line table "id, name, quantity, unit_price, amount".
        let bare_name = |&(index, kind): &(usize, PiiType)| {
            kind == PiiType::PersonName && lexicon::bare_name_header(cells[index].1)
        };
        if self.columns.iter().any(bare_name)
            && cells.iter().any(|&(_, cell)| lexicon::goods_header(cell))
        {
            self.columns.retain(|column| !bare_name(column));
        }
        self.person_columns.clear();
        for k in 0..self.columns.len() {
            let (index, kind) = self.columns[k];
            if kind == PiiType::PersonName && self.person_header(cells[index].1) {
                self.person_columns.push(index);
            }
        }
        // "Ad" beside "Soyad": the given name's column ("ad" alone is too short a word to be a label
        // anywhere else).
        if let Some(given) = first_name_beside_surname(cells) {
            if !self.columns.iter().any(|column| column.0 == given) {
                self.columns.push((given, PiiType::PersonName));
                self.columns.sort_unstable_by_key(|column| column.0);
            }
            self.person_columns.push(given);
        }
        true
    }

    /// The values of a row under the header: the types its column gives each cell, and a hit for each
    /// cell of a label's column (and for the value of a two-cell row "Adı Soyadı<TAB>value").
    // Inlined into the table's line loop, as `label_kind`.
    #[inline(always)]
    fn mark_row(&mut self, scanner: &mut Scanner<'_>, cells: &[(usize, &str)]) {
        for (&(start, cell), &given) in cells.iter().zip(&self.column_types) {
            // Types found without context (checksums) gain nothing from a column, and phone
            // numbers are its marks (above): without them, the cells of "T.C. Kimlik No", "IBAN",
            // "E-posta" or "Telefon" are scanned as before.
            let given = TypeSet(given.0 & !(CONTEXT_FREE | PHONES));
            if given.0 != 0 && cell.bytes().any(|c| !c.is_ascii_whitespace()) {
                scanner.cells.push((start, start + cell.len(), given));
                scanner.given_anywhere = true;
            }
        }
        let mut marks = std::mem::take(&mut self.marks);
        marks.clone_from(&self.columns);
        let label_row = cells.len() == 2 && self.labels.len() == 1 && self.labels[0].0 == 0;
        if label_row {
            marks.push((1, self.labels[0].1));
        }
        for &(index, kind) in &marks {
            let Some(&(start, cell)) = cells.get(index) else {
                continue;
            };
            let trimmed = cell.trim();
            let lead = cell.len() - cell.trim_start().len();
            if kind == PiiType::PhoneIntl {
                if phone_shaped_cell(trimmed) {
                    // A Turkish number is a `phone_tr` under any phone header, as it is near the
                    // header's keyword.
                    // (After a '+', the number's own hit is a `phone_tr` already, and wins.)
                    let turkish = !trimmed.starts_with('+') && {
                        let mut digits = [0u8; 16];
                        let mut count = 0;
                        for c in trimmed.bytes().take_while(|&c| c != b'x') {
                            if c.is_ascii_digit() && count < digits.len() {
                                digits[count] = c;
                                count += 1;
                            }
                        }
                        let digits = &digits[..count];
                        tr::phone_nsn(digits) || tr::phone_with_prefix(digits)
                    };
                    let before = scanner.hits.len();
                    scanner.hit(
                        start + lead,
                        start + lead + trimmed.len(),
                        if turkish { PiiType::PhoneTr } else { kind },
                        B_CONTEXT,
                        "table_column_label",
                    );
                    // With the column's own priority: the number's own `phone_tr` hit, where its
                    // form or a keyword finds one, still wins over it.
                    if let Some(hit) = scanner.hits.get_mut(before) {
                        hit.priority = kind.priority();
                    }
                }
                continue;
            }
            let capitalised = trimmed.chars().next().is_some_and(char::is_uppercase);
            // Under a header of a part of a person's name, a name typed in lower case too.
            let lower_case_name = !capitalised
                && kind == PiiType::PersonName
                && (self.person_columns.contains(&index)
                    || (index == 1 && label_row && self.person_header(cells[0].1)))
                && lower_case_name_cell(trimmed, &mut scanner.scratch);
            if trimmed.len() >= 3
                && (capitalised || lower_case_name)
                && !trimmed.starts_with("[MASKED_")
            {
                let confidence = if kind == PiiType::PersonName {
                    D_LABEL
                } else {
                    D_GAZETTEER
                };
                scanner.hit(
                    start + lead,
                    start + lead + trimmed.len(),
                    kind,
                    confidence,
                    "table_column_label",
                );
            }
        }
        self.marks = marks;
    }
}

impl<'t> Scanner<'t> {
    pub fn new(text: &'t str, window_before: usize, window_after: usize) -> Scanner<'t> {
        Scanner {
            text,
            b: text.as_bytes(),
            window_before,
            window_after,
            hits: Vec::new(),
            keywords: KeywordIndex::new(text.as_bytes()),
            keyword_cursors: (0, 0, 0),
            scratch: Vec::with_capacity(256),
            norm: [0; NORM_MAX],
            norm_len: 0,
            groups: [Group::default(); MAX_GROUPS],
            keep: (TypeSet::all(), 0.0),
            exhaustive: false,
            address_reach: 0,
            cells: Vec::new(),
            cell_cursor: 0,
            field: (0, 0, TypeSet::default()),
            field_key: 0,
            key_words: Vec::new(),
            given_anywhere: false,
            key_cache: rustc_hash::FxHashMap::default(),
            scratch_found: Vec::new(),
            decoding_depth: 0,
        }
    }

    /// The hits of the tokens starting at `positions` alone (for the tokens whose shorter spans were
    /// skipped, with a scanner that keeps nothing, so that it skips none).
    pub fn tokens(mut self, positions: &[usize]) -> Vec<Hit> {
        // The columns' context, as the scan had it (the tables' own hits are the scan's already).
        self.tables();
        self.delimited_tables();
        self.sql_rows();
        self.json_rows();
        self.hits.clear();
        for &at in positions {
            if at < self.b.len() {
                self.token(at);
            }
        }
        self.hits
    }

    /// Tells the scanner which findings the policy keeps (by default all of them).
    pub fn keeping(mut self, types: TypeSet, min_confidence: f32) -> Scanner<'t> {
        self.keep = (types, min_confidence);
        self
    }

    /// A scanner that takes no shortcut: it keeps no type (so it evaluates every span of a validated
    /// number) and looks up every colon's label in full. The reference the shortcuts are tested
    /// against, and the second round for the numbers whose skipped spans turned out to matter.
    pub fn skipping_nothing(mut self) -> Scanner<'t> {
        self.keep = (TypeSet::default(), 0.0);
        self.exhaustive = true;
        self
    }

    fn hit(
        &mut self,
        start: usize,
        end: usize,
        ty: PiiType,
        confidence: f32,
        detector: &'static str,
    ) {
        if confidence == C_LABEL && !self.own_label(ty, start) {
            return;
        }
        let mut end = end;
        if self.b.get(end) == Some(&b'x') && matches!(ty, PiiType::PhoneTr | PiiType::PhoneIntl) {
            end = extension_end(self.b, end);
        }
        self.hits.push(Hit {
            start,
            end,
            ty,
            confidence,
            detector,
            priority: ty.priority(),
            shortcut: None,
        });
    }

    /// Whether the nearest label before a label-only value at `start` that supports `ty` is the
    /// value's own: another field's colon between them means it labels an earlier value ("Ehliyet
    /// No: 123456\nHesap No: 12345678": the account number is no licence number; "Sürücü Belgesi No:
    /// 123456  Bağ-Kur No: 7654321": the second is no licence number either). A value whose window
    /// holds its label after it only keeps its hit.
    fn own_label(&mut self, ty: PiiType, start: usize) -> bool {
        if self.given_context(start).contains(ty) {
            return true;
        }
        let from = start.saturating_sub(self.window_before);
        self.keywords
            .nearest_end_before(ty, from, start)
            .is_none_or(|end| memchr::memchr_iter(b':', &self.b[end..start]).count() <= 1)
    }

    /// The types that a column's header or a field's key gives the value starting at `at` (see
    /// `cells` and `field`), whatever keywords stand near it.
    #[inline(always)]
    fn given_context(&mut self, at: usize) -> TypeSet {
        if self.given_anywhere {
            self.given_context_at(at)
        } else {
            TypeSet::default()
        }
    }

    #[inline(never)]
    fn given_context_at(&mut self, at: usize) -> TypeSet {
        let mut types = TypeSet::default();
        if self.field.0 <= at && at < self.field.1 {
            types = self.field.2;
        }
        if self.cells.is_empty() {
            return types;
        }
        // `k`: the first cell that ends after `at` (the cursor is the last look-up's; look-ups mostly
        // move forward, or stay between the same two cells).
        let cells = &self.cells;
        let mut k = self.cell_cursor.min(cells.len());
        if k > 0 && cells[k - 1].1 > at {
            k = cells[..k].partition_point(|cell| cell.1 <= at);
        } else {
            while k < cells.len() && cells[k].1 <= at {
                k += 1;
            }
        }
        self.cell_cursor = k;
        match cells.get(k) {
            Some(&(start, end, given)) if start <= at && at < end => TypeSet(types.0 | given.0),
            _ => types,
        }
    }

    /// Keyword-supported types around `start..end`, and those its column or field gives it.
    fn context(&mut self, start: usize, end: usize) -> TypeSet {
        let (from, to) = if self.given_anywhere {
            self.field_window(start, end)
        } else {
            (
                start.saturating_sub(self.window_before),
                end + self.window_after,
            )
        };
        let before = self
            .keywords
            .types_in_moving(&mut self.keyword_cursors.0, from, start);
        let after = self
            .keywords
            .types_in_moving(&mut self.keyword_cursors.1, end, to);
        TypeSet(before.0 | after.0 | self.given_context(start).0)
    }

    /// The context window of `start..end` once keys or headers have been met: a field's value's
    /// window is its key and itself. Out of line: only text with keys or headers comes here, and
    /// `context` stays as small as it was where numbers are judged.
    #[inline(never)]
    fn field_window(&self, start: usize, end: usize) -> (usize, usize) {
        let (mut from, mut to) = (
            start.saturating_sub(self.window_before),
            end + self.window_after,
        );
        if self.field.0 <= start && start < self.field.1 {
            from = from.max(self.field_key);
            to = to.min(self.field.1.max(end));
        }
        (from, to)
    }

    /// Tables rendered as tab-separated lines: a header cell such as "Ad Soyad" or "Adres" marks its
    /// column, and a two-cell row "Adı Soyadı<TAB>value" marks its value.
    // `tables`, `agents`, `word`, `colon` and `email` stay out of `run`'s loop: inlined, they made it
    // one large function whose layout cost 3-6 % of the benchmark's time (alternated runs), and ran
    // 1 % more instructions (callgrind).
    #[inline(never)]
    fn tables(&mut self) {
        let text = self.text;
        // The vectorised search: `<[u8]>::contains` goes through the whole text a byte at a time (1 %
        // of a scan in a profile) to find, usually, no tab at all.
        let Some(first_tab) = memchr::memchr(b'\t', self.b) else {
            return;
        };
        let mut reader = Columns::default();
        // Whether the line before the current one held a tab (the current line is no table's first).
        let mut in_table = false;
        // Reused from line to line.
        let mut cells: Vec<(usize, &str)> = Vec::new();
        // Only the lines with a tab are read: from one tab to the next with `memchr` on the bytes,
        // each such line cut out around its first tab (a text with one table among many short lines,
        // an e-invoice's fields, paid two searches per line). A line without a tab between two with
        // one ends the table above it.
        let b = self.b;
        // The search resumes at the line of the tab found above, not at the text's start again.
        let mut next_line = memchr::memrchr(b'\n', &b[..first_tab]).map_or(0, |p| p + 1);
        while let Some(tab) = memchr::memchr(b'\t', &b[next_line.min(b.len())..]) {
            let tab = next_line + tab;
            let line_start =
                memchr::memrchr(b'\n', &b[next_line..tab]).map_or(next_line, |p| next_line + p + 1);
            if line_start != next_line {
                reader.forget();
                in_table = false;
            }
            let newline = memchr::memchr(b'\n', &b[tab..]).map_or(b.len(), |p| tab + p);
            next_line = newline + 1;
            let end = end_before_crs(b, line_start, newline);
            cells.clear();
            reader.labels.clear();
            // A table's first line (none with a tab right before it): its cells may be headers
            // written as keys, and the line a header of keywords alone.
            let first = !in_table;
            // A PostgreSQL dump's rows under their `COPY table (columns) FROM stdin;` line: the
            // columns are the table's header, and this line is read again as its first row.
            let copied = if first {
                copy_columns(b, line_start)
            } else {
                None
            };
            // The cells: the line's, between tabs, or the COPY line's column names, between commas.
            let (from_at, to_at, separator) = match copied {
                Some((from, to)) => {
                    next_line = line_start;
                    (from, to, b',')
                }
                None => (line_start, end, b'\t'),
            };
            let mut from = from_at;
            // One iterator over the line's tabs: a search per cell cost more to start than to run.
            let mut tabs = memchr::memchr_iter(separator, &b[from_at..to_at]);
            loop {
                let to = tabs.next().map_or(to_at, |p| from_at + p);
                // Tabs, commas, line breaks and carriage returns are ASCII: the cuts are char
                // boundaries.
                let mut cell = &text[from..to];
                let mut cell_from = from;
                if copied.is_some() {
                    // A column name without its spaces and quotes (`"Doğum Tarihi"`).
                    let name = unquoted_name(cell);
                    cell_from += name.as_ptr() as usize - cell.as_ptr() as usize;
                    cell = name;
                }
                if let Some(kind) = reader.label_kind(cell, first) {
                    reader.labels.push((cells.len(), kind));
                }
                cells.push((cell_from, cell));
                if to == to_at {
                    break;
                }
                from = to + 1;
            }
            // A header: a line with a label, or a table's first line whose cells name what a keyword
            // names ("Doğum Tarihi", "tckn").
            in_table = true;
            if cells.len() >= 3 && reader.header(&cells, first) {
                continue;
            }
            if copied.is_some() {
                // Columns that name nothing: the rows are read as they are.
                continue;
            }
            reader.mark_row(self, &cells);
        }
    }

    /// Puts the header-given cells back in order after a pass added those from `before` on (the
    /// look-up of a position's cell walks them in order): only when the new ones broke it.
    fn cells_in_order(&mut self, before: usize) {
        if self.cells.len() > before && !self.cells.is_sorted_by_key(|cell| cell.0) {
            self.cells.sort_by_key(|cell| cell.0);
        }
    }

    /// Tables whose cells a ';' or a '|' separates inside a text that is not all table: a list pasted
    /// into an e-mail's body or a document's paragraphs ("Ad Soyad;Doğum Tarihi;Vergi No", then a
    /// line per person), a Markdown table among prose. (A file that is all table is converted by
    /// extraction into tab-separated lines, which [`Self::tables`] reads.) A line of at least three
    /// cells that reads as a header, as a tab-separated table's first line does, gives its columns
    /// to the lines right under it that have as many cells; a line with another number of cells, or
    /// a gap, ends the table. Only the lines that hold the separator are looked at.
    // Out of `run`'s loop (see `tables`).
    #[inline(never)]
    fn delimited_tables(&mut self) {
        let b = self.b;
        let cells_before = self.cells.len();
        let mut cells: Vec<(usize, &str)> = Vec::new();
        for separator in [b';', b'|'] {
            let Some(first) = memchr::memchr(separator, b) else {
                continue;
            };
            let mut reader = Columns::default();
            // The header's number of cells and where the table's last line ends.
            let mut table: Option<(usize, usize)> = None;
            let mut next_line = memchr::memrchr(b'\n', &b[..first]).map_or(0, |p| p + 1);
            while let Some(found) = memchr::memchr(separator, &b[next_line.min(b.len())..]) {
                let at = next_line + found;
                // A line with one separator has two cells: neither a header (three at least) nor a
                // row under one. It is passed over without looking back for its start. (One pass
                // over separators and line breaks together, counting, cost the benchmark's text
                // more: its line breaks are many and close.)
                let second = match memchr::memchr2(separator, b'\n', &b[at + 1..]) {
                    Some(p) if b[at + 1 + p] == separator => at + 1 + p,
                    Some(p) => {
                        next_line = at + 1 + p + 1;
                        continue;
                    }
                    None => break,
                };
                let newline = memchr::memchr(b'\n', &b[second..]).map_or(b.len(), |p| second + p);
                next_line = newline + 1;
                // Outside a table, a digit between the first two separators makes no header.
                if table.is_none() && b[at + 1..second].iter().any(u8::is_ascii_digit) {
                    continue;
                }
                let line_start = memchr::memrchr(b'\n', &b[..at]).map_or(0, |p| p + 1);
                self.delimited_line(
                    separator,
                    (line_start, newline),
                    &mut reader,
                    &mut table,
                    &mut cells,
                );
            }
        }
        // The tab-separated tables' cells come before these: together, in order again.
        self.cells_in_order(cells_before);
    }

    /// One line of [`Self::delimited_tables`], `line_start..newline` with at least two `separator`s:
    /// a row of the `table` above it, or a header that begins one.
    #[inline(always)]
    fn delimited_line(
        &mut self,
        separator: u8,
        (line_start, newline): (usize, usize),
        reader: &mut Columns<'t>,
        table: &mut Option<(usize, usize)>,
        cells: &mut Vec<(usize, &'t str)>,
    ) {
        let text = self.text;
        let b = self.b;
        let end = end_before_crs(b, line_start, newline);
        // Right under the table's last line.
        let row = table.is_some_and(|(_, last)| line_start == last + 1);
        // A header names its columns: no digit on its line (prose with semicolons, "Toplam
        // 4.462,63 USD; vade 34 gün; ...", is turned away here, before it is cut).
        if !row && b[line_start..end].iter().any(u8::is_ascii_digit) {
            if table.is_some() {
                reader.forget();
                *table = None;
            }
            return;
        }
        cells.clear();
        let mut from = line_start;
        for cut in memchr::memchr_iter(separator, &b[line_start..end]) {
            // The separators and line breaks are ASCII: the cuts are char boundaries.
            cells.push((from, &text[from..line_start + cut]));
            from = line_start + cut + 1;
        }
        cells.push((from, &text[from..end]));
        match *table {
            Some((count, _)) if row && count == cells.len() => {
                reader.mark_row(self, cells);
                *table = Some((count, newline));
                return;
            }
            Some(_) => {
                reader.forget();
                *table = None;
            }
            None => {}
        }
        // A line that did not fit the table above may begin another, by the same rules: no digit,
        // and no cell longer than a label.
        if (row && b[line_start..end].iter().any(u8::is_ascii_digit))
            || cells
                .iter()
                .any(|&(_, cell)| cell.trim().len() > LABEL_CELL_MAX)
        {
            return;
        }
        if reader.read_header(cells) {
            *table = Some((cells.len(), newline));
        }
    }

    /// The rows of SQL `INSERT` statements, as a table's rows under its header: each value is read
    /// under its column, named in the statement (`INSERT INTO t (first_name, phone) VALUES ('Ayşe',
    /// '0532 123 45 67'), (...);`) or, without a list, by the text's `CREATE TABLE t (...)` (a
    /// MySQL or SQLite dump).
    // Out of `run`'s loop (see `tables`).
    #[inline(never)]
    fn sql_rows(&mut self) {
        // One vectorised search for the statement's keyword as dumps and logs write it, and in lower
        // case too in a text that begins as SQL (a hand-written script): a search costs a third of
        // an instruction a byte, which every text pays.
        static INSERT: std::sync::OnceLock<[memchr::memmem::Finder<'static>; 2]> =
            std::sync::OnceLock::new();
        let finders = INSERT.get_or_init(|| {
            [
                memchr::memmem::Finder::new(b"INSERT"),
                memchr::memmem::Finder::new(b"insert"),
            ]
        });
        let searches = if text::starts_as_sql(self.text) { 2 } else { 1 };
        let text = self.text;
        let b = self.b;
        let cells_before = self.cells.len();
        let mut reader = Columns::default();
        let mut columns: Vec<(usize, &str)> = Vec::new();
        // The column names of the last header read, and whether they named anything.
        let (mut header_names, mut header): (Vec<&str>, bool) = (Vec::new(), false);
        // The text's `CREATE TABLE` statements, read at the first `INSERT` without a column list.
        let mut created: Option<SqlTables<'_>> = None;
        for finder in &finders[..searches] {
            let mut from = 0;
            while let Some(found) = finder.find(&b[from..]) {
                let at = from + found;
                // An `INSERT` that is not what it seems is read up to where it stops making sense,
                // and the search goes on from there: every byte is read once, whatever the text.
                from = at + 6;
                if at > 0 && (b[at - 1].is_ascii_alphanumeric() || b[at - 1] == b'_') {
                    continue;
                }
                let mut i = at + 6;
                if !b.get(i).is_some_and(u8::is_ascii_whitespace) {
                    continue;
                }
                i = sql_space(b, i);
                // MySQL's `INSERT IGNORE INTO`, `INSERT LOW_PRIORITY INTO`, SQLite's `INSERT OR
                // REPLACE INTO`: the words before the table, in their order.
                i = sql_words(
                    b,
                    i,
                    &[
                        b"low_priority",
                        b"delayed",
                        b"high_priority",
                        b"ignore",
                        b"or",
                        b"replace",
                        b"rollback",
                        b"abort",
                        b"fail",
                        b"into",
                    ],
                );
                let Some((name_end, table)) = sql_name(text, i) else {
                    from = i.max(from);
                    continue;
                };
                i = sql_space(b, name_end);
                columns.clear();
                if b.get(i) == Some(&b'(') {
                    let Some(close) = sql_column_names(text, i, &mut columns) else {
                        // No list closes within reach of this one.
                        from = (i + SQL_COLUMNS_MAX).min(b.len());
                        continue;
                    };
                    i = sql_space(b, close + 1);
                } else {
                    let tables = created.get_or_insert_with(|| sql_created_tables(text));
                    let Some(created) = tables.before(table, at) else {
                        from = i.max(from);
                        continue;
                    };
                    columns.extend_from_slice(&created.columns);
                }
                let values = if sql_keyword(b, i, b"values") {
                    6
                } else if sql_keyword(b, i, b"value") {
                    5
                } else {
                    from = i.max(from);
                    continue;
                };
                i = sql_space(b, i + values);
                // The column list is the header: whatever its names label or give, for the rows.
                // Read once for the statements of a dump that repeat it row after row.
                if !columns.iter().map(|c| c.1).eq(header_names.iter().copied()) {
                    header = reader.read_header(&columns);
                    header_names.clear();
                    header_names.extend(columns.iter().map(|c| c.1));
                }
                let i = reader.read_rows(self, i, (b'(', b')'), b'\'', header);
                from = i.max(from);
            }
        }
        // The tables' cells come before these, and upper-case statements before lower-case ones:
        // together, in order again.
        self.cells_in_order(cells_before);
    }

    /// Arrays of rows in JSON, as a table's rows under its header: after a list of column names in
    /// the same object (`{"columns": ["id", "first_name"], "data": [[1, "Ayşe"], ...]}`, a table
    /// split as pandas writes it), or under a first row of names (`[["Ad Soyad", "Telefon"],
    /// ["Ayşe Kaya", ...]]`, a sheet's values as its API returns them).
    // A pass of its own, before the scan: read where the scan's loop meets a bracket instead, it
    // cost that loop 3 % of its time on text without any (its layout), for 2 % fewer instructions on
    // a masked FHIR file's placeholders.
    fn json_rows(&mut self) {
        let b = self.b;
        let mut walk = JsonWalk::default();
        for open in memchr::memchr_iter(b'[', b) {
            // Most brackets open no array of arrays: a placeholder, a link, a list of values.
            if b.get(open + 1)
                .is_some_and(|&c| c == b'[' || c.is_ascii_whitespace())
            {
                self.json_rows_at(open, &mut walk);
            }
        }
    }

    /// The array of rows that opens at `open`, if it is one and lies beyond the last one read.
    // Cold: most brackets open no array of arrays.
    #[cold]
    #[inline(never)]
    fn json_rows_at(&mut self, open: usize, walk: &mut JsonWalk) {
        let text = self.text;
        let b = self.b;
        // Not inside a string, nor inside rows read already.
        if open < walk.reach || !walk.to(b, open) {
            return;
        }
        let mut first = sql_space(b, open + 1);
        if b.get(first) != Some(&b'[') {
            return;
        }
        let mut columns: Vec<(usize, &str)> = Vec::new();
        if !self.json_column_list(open, walk, &mut columns) {
            // The first row, when each of its values is a string (not a matrix's numbers).
            if b.get(sql_space(b, first + 1)) != Some(&b'"') {
                return;
            }
            let end = match row_values(text, first, b'"', b']', &mut columns) {
                Ok(end) => end,
                Err(stop) => {
                    // What could not be read as a row is not read again from a bracket inside it.
                    walk.reach = stop;
                    return;
                }
            };
            let comma = sql_space(b, end);
            if !all_strings(b, &columns, b'"') || b.get(comma) != Some(&b',') {
                return;
            }
            first = sql_space(b, comma + 1);
        }
        let mut reader = Columns::default();
        if !reader.read_header(&columns) {
            return;
        }
        let cells_before = self.cells.len();
        walk.reach = reader.read_rows(self, first, (b'[', b']'), b'"', true);
        // Cells of a table or statement further on came before these: in order again.
        self.cells_in_order(cells_before);
    }

    /// The column names that a JSON array of rows opening at `open` has in its object: the key
    /// before it, then one of [`JSON_COLUMN_KEYS`] earlier in the object (the walk's innermost), whose
    /// value is a list of strings or of objects with a `"name"` (into `columns`).
    fn json_column_list<'s>(
        &self,
        open: usize,
        walk: &mut JsonWalk,
        columns: &mut Vec<(usize, &'s str)>,
    ) -> bool
    where
        't: 's,
    {
        let b = self.b;
        let Some((key_start, _)) = quoted_key_before(b, open) else {
            return false;
        };
        let Some(&brace) = walk.open.last() else {
            return false;
        };
        // The object's column list, looked for once over each stretch of the object.
        let (searched, found) = match walk.columns {
            Some((object, searched, found)) if object == brace => (searched, found),
            _ => (brace, None),
        };
        let found = found.or_else(|| {
            // The stretches between two arrays are short: each quote is compared with the keys.
            let from = searched.min(key_start);
            memchr::memchr_iter(b'"', &b[from..key_start]).find_map(|at| {
                let rest = &b[from + at..key_start];
                JSON_COLUMN_KEYS
                    .iter()
                    .find(|key| rest.starts_with(key))
                    .map(|key| from + at + key.len())
            })
        });
        walk.columns = Some((brace, key_start.max(searched), found));
        let Some(after_key) = found else {
            return false;
        };
        let mut list = sql_space(b, after_key);
        if b.get(list) != Some(&b':') {
            return false;
        }
        list = sql_space(b, list + 1);
        if b.get(list) != Some(&b'[') || row_values(self.text, list, b'"', b']', columns).is_err() {
            return false;
        }
        if all_strings(b, columns, b'"') {
            return true;
        }
        // Objects that name their columns (`[{"name": "id", "type": "bigint"}, ...]`, as Trino,
        // Elasticsearch's SQL and ClickHouse's JSONCompact write them).
        for column in columns.iter_mut() {
            let (start, item) = *column;
            let Some(name) = item
                .starts_with('{')
                .then(|| memchr::memmem::find(item.as_bytes(), b"\"name\""))
                .flatten()
                .and_then(|at| {
                    let mut value = sql_space(b, start + at + 6);
                    if b.get(value) != Some(&b':') {
                        return None;
                    }
                    value = sql_space(b, value + 1);
                    (b.get(value) == Some(&b'"')).then_some(value + 1)
                })
                .and_then(|from| {
                    let limit = (start + item.len()).min(b.len());
                    string_end(b, from, limit, b'"').map(|end| (from, &self.text[from..end]))
                })
            else {
                return false;
            };
            *column = name;
        }
        !columns.is_empty()
    }

    /// "<Ad Soyad> tarafından" (Turkish "by <person>"): two or three capitalised words right before it.
    // Out of `run`'s loop (see `tables`).
    #[inline(never)]
    fn agents(&mut self) {
        // One vectorised search for the shared prefix, with a searcher built once: `str::match_indices`
        // walked the whole text byte by byte (some 6 % of a scan of number-dense text), and a searcher
        // built per call cost more than the search in a document's many short elements.
        static PREFIX: std::sync::OnceLock<memchr::memmem::Finder<'static>> =
            std::sync::OnceLock::new();
        let prefix = PREFIX.get_or_init(|| memchr::memmem::Finder::new(b"taraf"));
        let text = self.text;
        let b = self.b;
        for at in prefix.find_iter(b) {
            let rest = &b[at + 5..];
            if !(rest.starts_with("ından".as_bytes()) || rest.starts_with(b"indan")) {
                continue;
            }
            // Up to three words right before, on the same line: a paragraph that starts with the name
            // has a line break, not a space, before it, and a table cell a tab; word processors put
            // no-break spaces between a name's words. Walked back over bytes (every separator is whole
            // characters, so each word's slice is too).
            let separator = |i: usize| {
                if i > 0 && b[i - 1] == b'\t' {
                    1
                } else {
                    text::space_before(b, i)
                }
            };
            let last = separator(at);
            if last == 0 {
                continue;
            }
            let floor = text::floor_boundary(text, at.saturating_sub(80));
            let mut spans = [(0, 0); 3];
            let mut count = 0;
            let mut end = at - last;
            while count < 3 {
                let mut start = end;
                while start > floor
                    && separator(start) == 0
                    && !matches!(b[start - 1], b'\n' | b'\r')
                {
                    start -= 1;
                }
                spans[count] = (start, end);
                count += 1;
                let gap = separator(start);
                if start == floor || gap == 0 {
                    break;
                }
                end = start - gap;
            }
            let mut words = [""; 3];
            for (word, &(start, end)) in words.iter_mut().zip(&spans[..count]) {
                *word = &text[start..end];
            }
            let words = &words[..count];
            let mut capitalised = words
                .iter()
                .take_while(|w| {
                    w.chars().next().is_some_and(char::is_uppercase)
                        && w.chars().all(char::is_alphabetic)
                })
                .count();
            // Two words ("Şenkal Karadeniz"); a third only when it is a known first name
            // ("Ayşe Gül Yılmaz"), so that "Fatura Şenkal Karadeniz" keeps "Fatura".
            if capitalised == 3
                && !matches!(
                    lexicon::lookup(&text::fold(words[2])),
                    Some(Word::FirstName | Word::Either)
                )
            {
                capitalised = 2;
            }
            if capitalised >= 2 {
                self.hit(
                    spans[capitalised - 1].0,
                    at - last,
                    PiiType::PersonName,
                    D_GAZETTEER,
                    "person_name_agent",
                );
            }
        }
    }

    /// Runs the pass over the whole text. Inlined into its callers: out of line (it is called by
    /// `url_encoded_value` too), its loop cost the benchmark 0.1 %.
    #[inline(always)]
    pub fn run(mut self) -> Vec<Hit> {
        self.tables();
        self.delimited_tables();
        self.sql_rows();
        self.json_rows();
        self.agents();
        let b = self.b;
        let n = b.len();
        let mut i = 0;
        while i < n {
            // The hot loop: skip bytes that cannot start anything.
            while i < n && CLASS[b[i] as usize] == 0 {
                i += 1;
            }
            if i >= n {
                break;
            }
            let class = CLASS[b[i] as usize];
            let next = match class {
                text::DIGIT => self.token(i),
                text::UPPER => self.word(i),
                text::AT => self.email(i),
                text::COLON => self.colon(i),
                text::LEAD => {
                    if digit_at(b, i).is_some() {
                        self.token(i)
                    } else if text::latin_upper_at(b, i) > 0 {
                        self.word(i)
                    } else {
                        i + 1
                    }
                }
                _ => match b[i] {
                    b'[' => mask_token_end(b, i)
                        .or_else(|| self.obfuscated_email(i))
                        .unwrap_or(i + 1),
                    b'+' | b'(' if digit_at(b, i + 1).is_some() && !text::word_before(b, i) => {
                        self.token(i)
                    }
                    b'(' if b.get(i + 1) == Some(&b'+') => i + 1,
                    b'(' => self.obfuscated_email(i).unwrap_or(i + 1),
                    b'=' => self.equals(i),
                    _ => i + 1,
                },
            };
            i = next.max(i + 1);
        }
        self.hits
    }

    // ------------------------------------------------------------------------------------------
    // Words starting with a capital letter

    fn word_end(&self, mut i: usize) -> usize {
        loop {
            let l = letter_at(self.b, i);
            if l == 0 {
                return i;
            }
            i += l;
        }
    }

    /// [`Self::word_end`], and whether the word's letters are all ASCII, and all ASCII capitals, found
    /// in the same walk.
    #[inline(always)]
    fn word_shape(&self, mut i: usize) -> (usize, bool, bool) {
        let b = self.b;
        let (mut ascii, mut caps) = (true, true);
        loop {
            match b.get(i) {
                Some(&c) if c.is_ascii_alphabetic() => {
                    caps &= c.is_ascii_uppercase();
                    i += 1;
                }
                Some(0xC3..=0xC5) if b.get(i + 1).is_some_and(|n| (0x80..=0xBF).contains(n)) => {
                    (ascii, caps) = (false, false);
                    i += 2;
                }
                _ => return (i, ascii, caps),
            }
        }
    }

    // Out of `run`'s loop (see `tables`).
    #[inline(never)]
    fn word(&mut self, i: usize) -> usize {
        let b = self.b;
        if text::word_before(b, i) {
            // Mid-word capital ("McDonald", "iPhone"): skip the rest of the word.
            return self.word_end(i);
        }
        let (end, ascii, ascii_caps) = self.word_shape(i);
        // Letters followed by digits: an alphanumeric token (IBAN, passport, NINO, VIN...).
        if ascii && digit_at(b, end).is_some() {
            return self.token(i);
        }
        // Short capital prefixes of grouped ids: "AB 12 34 56 C", "TR33 ...", "ATU 1358...".
        if ascii_caps && end - i <= 4 {
            let sep = separator_at(b, end);
            if sep > 0 && digit_at(b, end + sep).is_some() {
                // Unless the next word is an id read as a whole word, which a chain from the prefix
                // would swallow: "BTC 1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa", "MAC 001a.2b3c.4d5e".
                if whole_word_id_at(b, end + sep) {
                    return end;
                }
                return self.token(i);
            }
        }
        if ascii_caps && (end - i == 8 || end - i == 11) && generic::bic(&b[i..end]) {
            if self.context(i, end).contains(PiiType::BicSwift) {
                self.hit(i, end, PiiType::BicSwift, B_CONTEXT, "bic_swift");
            }
            return end;
        }
        // A word of one letter is looked up only as a title, with its dot and a space after it
        // ("M. Jean Dupont": French "Monsieur"; not "M.Ö.").
        let one_letter_title =
            end - i == 1 && b.get(end) == Some(&b'.') && b.get(end + 1) == Some(&b' ');
        if end - i == 1 && b[i] == b'O' {
            if let Some(stop) = self.irish_surname(i) {
                return stop;
            }
        }
        if (end - i < 2 && !one_letter_title) || end - i > 40 {
            return end;
        }
        // "March 12, 1985" behind a birth-date label.
        let space = end + usize::from(b.get(end) == Some(&b'.'));
        if b.get(space) == Some(&b' ') && digit_at(b, space + 1).is_some() {
            if let Some(stop) = self.month_date(i, end, true) {
                return stop;
            }
        }
        // Folded on the stack (the word has at most 40 bytes here), not through the scratch vector.
        let mut stack = [0u8; 40];
        let folded = text::fold_short(&b[i..end], &mut stack, &mut self.scratch);
        let found = lexicon::lookup(folded);
        let compound = found.is_none() && lexicon::street_compound(folded);
        match found {
            Some(Word::Honorific) => {
                let mut after = end;
                if b.get(after) == Some(&b'.') {
                    after += 1;
                }
                // "Prof. Dr. Ali Çelik": the last title introduces the name; the walk goes on to it.
                if self.honorific_follows(after) {
                    return after;
                }
                self.named_after_honorific(after).unwrap_or(end)
            }
            Some(Word::FirstName | Word::Either) => self.gazetteer_name(i, end),
            Some(Word::Street) => self.address_from_street(i, end, false),
            None if compound => self.address_from_street(i, end, false),
            Some(Word::Closing) => self.signed_closing(i, end),
            Some(Word::Surname) if lexicon::distinctive_surname(folded) => {
                let first = lexicon::surname_first(folded);
                self.given_before_surname(i, end)
                    .or_else(|| self.honorific_name(i))
                    .or_else(|| first.then(|| self.given_after_surname(i, end)).flatten())
                    .unwrap_or(end)
            }
            _ => self
                .honorific_name(i)
                .or_else(|| self.marked_name(i, end))
                .or_else(|| self.greeted_name(i, end))
                .unwrap_or(end),
        }
    }

    /// The name that the capitalised word at `i..end` ends, when "adlı", "isimli" or "adındaki" and a
    /// noun for a person follow it: the end of the name. Most words are turned away here, inline, by
    /// the two bytes after their space.
    #[inline(always)]
    fn marked_name(&mut self, i: usize, end: usize) -> Option<usize> {
        let b = self.b;
        if b.get(end) == Some(&b' ') && matches!(b.get(end + 1..end + 3), Some(b"ad" | b"is")) {
            self.name_before_marker(i, end)
        } else {
            None
        }
    }

    /// A capitalised word no list knows, at `i..end`, greeted and followed by a comma: "Hi Priya,",
    /// "Merhaba Nilay," (not "Hi All,", "Hello World,", "Dear Customer,"). The end of the name.
    #[inline(always)]
    fn greeted_name(&mut self, i: usize, end: usize) -> Option<usize> {
        if self.b.get(end) == Some(&b',') && self.greeting_before(i) {
            self.greeted_word(i, end)
        } else {
            None
        }
    }

    #[inline(never)]
    fn greeted_word(&mut self, i: usize, end: usize) -> Option<usize> {
        if end - i < 2 || self.behind_label(i, end, true) != lexicon::Behind::Word {
            return None;
        }
        self.hit(i, end, PiiType::PersonName, D_GIVEN, "person_name_greeting");
        Some(end)
    }

    /// Two capitalised words on one line, the second at `i..end`, before a word that introduces what
    /// a person is ([`lexicon::name_marker`]) and a noun for a person ([`lexicon::person_noun`]):
    /// "Lezize Korutürk adlı müşteri", "Sevim Tekinalp adında bir hasta". A third word before them
    /// counts when it is a known given name, as for "tarafından". Not a company's or an
    /// organisation's words, nor a place's by its Turkish compound ending ("Ankara Şubesi adlı
    /// personel"); "Kuzey Yıldızı adlı gemi" names no person.
    #[inline(never)]
    fn name_before_marker(&mut self, i: usize, end: usize) -> Option<usize> {
        let b = self.b;
        let marker = end + 1;
        let marker_end = self.word_end(marker);
        if marker_end - marker > 12 || !self.folded_is(marker, marker_end, lexicon::name_marker) {
            return None;
        }
        let mut noun = text::after_spaces(b, marker_end);
        if noun == marker_end {
            return None;
        }
        if b[noun..].starts_with(b"bir ") {
            noun = text::after_spaces(b, noun + 3);
        }
        let noun_end = self.word_end(noun);
        if noun_end == noun
            || noun_end - noun > 40
            || !self.folded_is(noun, noun_end, lexicon::person_noun)
        {
            return None;
        }
        let mut words = [(i, end); 3];
        let mut count = 1;
        while count < 3 {
            let start = words[count - 1].0;
            let space = text::space_before(b, start);
            if space == 0 {
                break;
            }
            let word_end = start - space;
            let word = letters_start(b, word_end, 40);
            if word == word_end
                || !upper_at(b, word)
                || (word > 0 && text::is_word_byte(b[word - 1]))
            {
                break;
            }
            words[count] = (word, word_end);
            count += 1;
        }
        if count == 3
            && !self.folded_is(words[2].0, words[2].1, |folded| {
                matches!(
                    lexicon::lookup(folded),
                    Some(Word::FirstName | Word::Either)
                )
            })
        {
            count = 2;
        }
        if count < 2 || self.folded_is(i, end, lexicon::compound_head) {
            return None;
        }
        for (position, &(start, stop)) in words[..count].iter().enumerate() {
            if self.behind_label(start, stop, position == count - 1) != lexicon::Behind::Word {
                return None;
            }
        }
        self.hit(
            words[count - 1].0,
            end,
            PiiType::PersonName,
            D_GAZETTEER,
            "person_name_marked",
        );
        Some(end)
    }

    /// Whether the fold of the word at `start..end` passes `test`.
    fn folded_is(&self, start: usize, end: usize, test: impl Fn(&[u8]) -> bool) -> bool {
        let (mut stack, mut spill) = ([0u8; 40], Vec::new());
        test(text::fold_short(
            &self.b[start..end],
            &mut stack,
            &mut spill,
        ))
    }

    /// An Irish surname, "O'" at `i` and a capitalised word ("O'Sullivan", "O’Brien",
    /// "O'Neill-Byrne"), ending its run of capitalised words, with the capitalised word before it as
    /// its given name ("Siobhan O'Sullivan") unless that word names no person or is a title: the end of
    /// the name. "O'nun" (Turkish "his") is none.
    #[inline(never)]
    fn irish_surname(&mut self, i: usize) -> Option<usize> {
        let b = self.b;
        let apostrophe = match b.get(i + 1) {
            Some(b'\'') => 1,
            Some(0xE2) if b.get(i + 2..i + 4) == Some(&[0x80, 0x99]) => 3,
            _ => return None,
        };
        let rest = i + 1 + apostrophe;
        if !upper_at(b, rest) {
            return None;
        }
        let mut stop = self.word_end(rest);
        if stop - rest < 2 || digit_at(b, stop).is_some() {
            return None;
        }
        if b.get(stop) == Some(&b'-') && upper_at(b, stop + 1) {
            stop = self.word_end(stop + 1);
        }
        let next = text::after_spaces(b, stop);
        if next > stop && upper_at(b, next) {
            return None;
        }
        let mut start = i;
        let space = text::space_before(b, i);
        if space > 0 {
            let given_end = i - space;
            let given = letters_start(b, given_end, 40);
            if given_end - given >= 2
                && upper_at(b, given)
                && !(given > 0 && text::is_word_byte(b[given - 1]))
                && self.behind_label(given, given_end, true) == lexicon::Behind::Word
            {
                start = given;
            }
        }
        self.hit(
            start,
            stop,
            PiiType::PersonName,
            D_GIVEN,
            "person_name_surname",
        );
        Some(stop)
    }

    /// A distinctive surname at `i..end` ([`lexicon::distinctive_surname`]: "Chen", "Schmidt") after
    /// one capitalised word that no list knows, taken for its given name ("Danqi Chen", "Ruochen
    /// Zhang"): the two words alone make the run of capitalised words, and the word is no firm's or
    /// organisation's. The end of the name.
    #[inline(never)]
    fn given_before_surname(&mut self, i: usize, end: usize) -> Option<usize> {
        let b = self.b;
        if i < 3 || b[i - 1] != b' ' {
            return None;
        }
        let given_end = i - 1;
        let given = letters_start(b, given_end, 31);
        if given_end - given < 2
            || !upper_at(b, given)
            || (given > 0 && text::is_word_byte(b[given - 1]))
        {
            return None;
        }
        if !self.folded_is(given, given_end, lexicon::may_be_surname) {
            return None;
        }
        // No capitalised word before it on its line, nor after the surname.
        if capitalised_before(b, given) {
            return None;
        }
        let next = text::after_spaces(b, end);
        if next > end && upper_at(b, next) {
            return None;
        }
        self.hit(
            given,
            end,
            PiiType::PersonName,
            D_GIVEN,
            "person_name_surname",
        );
        Some(end)
    }

    /// A Chinese or Vietnamese surname at `i..end` ([`lexicon::surname_first`]) before one or two
    /// capitalised words that no list knows, which end the run of capitalised words and follow no
    /// capitalised word: "Zhang Wei", "Nguyen Van An". The end of the name.
    #[inline(never)]
    fn given_after_surname(&mut self, i: usize, end: usize) -> Option<usize> {
        let b = self.b;
        if capitalised_before(b, i) {
            return None;
        }
        let mut stop = end;
        for _ in 0..2 {
            let next = text::after_spaces(b, stop);
            if next == stop || !upper_at(b, next) {
                break;
            }
            let next_end = self.word_end(next);
            if next_end - next < 2
                || digit_at(b, next_end).is_some()
                || !self.folded_is(next, next_end, lexicon::may_be_surname)
            {
                return None;
            }
            stop = next_end;
        }
        let after = text::after_spaces(b, stop);
        if stop == end || (after > stop && upper_at(b, after)) {
            return None;
        }
        self.hit(
            i,
            stop,
            PiiType::PersonName,
            D_GIVEN,
            "person_name_surname_first",
        );
        Some(stop)
    }

    /// A date of birth written with its month's name, behind a birth-date label: "12 Mart 1980",
    /// "12. März 1985", "12 mars 1985" from the day at `first..first_end`, or with `month_first`
    /// "March 12, 1985" from the month's word there. The end of the date when it is one.
    fn month_date(&mut self, first: usize, first_end: usize, month_first: bool) -> Option<usize> {
        let b = self.b;
        let digits_end = |from: usize| {
            let mut i = from;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            i
        };
        // After the first word or number: an optional '.', then spaces, then the second part.
        let mut i = first_end + usize::from(b.get(first_end) == Some(&b'.'));
        let second = text::after_spaces(b, i);
        if second == i {
            return None;
        }
        if !may_begin_month(b, if month_first { first } else { second }) {
            return None;
        }
        let (second_end, day_range, month_range) = if month_first {
            let end = digits_end(second);
            if !(1..=2).contains(&(end - second)) {
                return None;
            }
            (end, (second, end), (first, first_end))
        } else {
            // A month's name has 3 to 13 bytes of letters; most numbers are followed by other words,
            // turned away here by a plain byte loop.
            let mut end = second;
            while end - second <= 13
                && b.get(end)
                    .is_some_and(|&c| c.is_ascii_alphabetic() || c >= 0x80)
            {
                end += 1;
            }
            if !(3..=13).contains(&(end - second)) {
                return None;
            }
            (end, (first, first_end), (second, end))
        };
        // Then an optional '.' or ',', spaces and a four-digit year ending there.
        i = second_end;
        if matches!(b.get(i), Some(b'.' | b',')) {
            i += 1;
        }
        let year = text::after_spaces(b, i);
        let end = digits_end(year);
        if year == i || end - year != 4 || b.get(end).is_some_and(|&c| text::is_word_byte(c)) {
            return None;
        }
        let mut stack = [0u8; 40];
        let month = text::fold_short(
            &b[month_range.0..month_range.1],
            &mut stack,
            &mut self.scratch,
        );
        let month = month_number(month)?;
        let (day, year) = (
            decimal(&b[day_range.0..day_range.1]),
            decimal(&b[year..end]),
        );
        let valid = (1900..=2100).contains(&year)
            && crate::pii_masker::detectors::valid_date(year, month, day)
            && self.context(first, end).contains(PiiType::DateOfBirth);
        if !valid {
            return None;
        }
        self.hit(first, end, PiiType::DateOfBirth, C_LABEL, "date_of_birth");
        Some(end)
    }

    /// Whether the word after the spaces at `from` is a title ("Dr", "Sayın").
    fn honorific_follows(&mut self, from: usize) -> bool {
        let b = self.b;
        let i = text::after_spaces(b, from);
        if i == from || !upper_at(b, i) {
            return false;
        }
        let end = self.word_end(i);
        let mut stack = [0u8; 40];
        let folded = text::fold_short(&b[i..end], &mut stack, &mut self.scratch);
        end - i >= 2 && lexicon::lookup(folded) == Some(Word::Honorific)
    }

    /// Up to `max` capitalised words starting after spaces at `from`: the span of the words.
    fn name_words(&self, from: usize, max: usize) -> Option<(usize, usize)> {
        let b = self.b;
        let mut i = text::after_spaces(b, from);
        let mut start = i;
        let mut end = None;
        let mut words = 0;
        while words < max && upper_at(b, i) {
            let mut j = self.word_end(i);
            while matches!(b.get(j), Some(b'-' | b'\'')) && upper_at(b, j + 1)
                || (b.get(j) == Some(&b'-') && letter_at(b, j + 1) > 0)
            {
                j = self.word_end(j + 1);
            }
            // An initial, with its dot, inside the name ("Ad Soyad: Ayşe K. Yılmaz", "M. Ali Yılmaz"):
            // the name goes on after it (it ended there, and left the surname unmasked).
            if letter_at(b, i) == j - i && b.get(j) == Some(&b'.') {
                let next = text::after_spaces(b, j + 1);
                if next > j + 1 && upper_at(b, next) && words + 1 < max {
                    end = Some(j + 1);
                    words += 1;
                    i = next;
                    continue;
                }
                break;
            }
            // A word that goes on in digits is an id, not a name ("Sayın Ayşe Yılmaz TR59 1787
            // ..."): the name would take its letters, overlap the IBAN and lose to it whole. A word
            // before a colon after the first is the next field's label ("Soyadı: Korutürk İletişim:
            // 0531 ...").
            if j - i < 2
                || digit_at(b, j).is_some()
                || (words > 0 && matches!(b.get(text::after_spaces(b, j)), Some(b':' | b'=')))
            {
                break;
            }
            // A company's name behind a name label or a title ("Alıcı: Yaman Gıda Ltd. Şti.",
            // "Sayın Akdeniz Yapı Sanayi A.Ş."): the words run into a legal form. An organisation
            // ("Türkiye İş Bankası", "Muhasebe Departmanı", "Support Team") or a salutation ("Sayın
            // Yetkili", "Sayın Müşterimiz") is no person either. Titles at the start belong to no
            // name ("Sorumlu: Op. Dr. Ali Çelik").
            match self.behind_label(i, j, words == 0) {
                lexicon::Behind::NoPerson => return None,
                lexicon::Behind::Title => {
                    let after = j + usize::from(b.get(j) == Some(&b'.'));
                    let next = text::after_spaces(b, after);
                    if next == after {
                        break;
                    }
                    i = next;
                    start = next;
                    continue;
                }
                lexicon::Behind::Word => {}
            }
            end = Some(j);
            words += 1;
            let space = text::space_at(b, j);
            if space == 0 {
                break;
            }
            let next = particles_end(b, j + space);
            if upper_at(b, next) {
                i = next;
            } else {
                break;
            }
        }
        // The legal form may stand after the words taken ("Akdeniz Yapı Malzemeleri Pazarlama Ltd.").
        // Not when that word ends in a colon: it is the next field's label ("Soyadı: Korutürk
        // İletişim: 0531 ...").
        if let Some(stop) = end {
            let next = text::after_spaces(b, stop);
            let next_end = self.word_end(next);
            if next > stop
                && upper_at(b, next)
                && b.get(text::after_spaces(b, next_end)) != Some(&b':')
                && self.behind_label(next, next_end, false) == lexicon::Behind::NoPerson
            {
                return None;
            }
        }
        end.map(|end| (start, end))
    }

    /// What the word at `start..end` (with "A.Ş."'s dotted letters and the dot after it) is among the
    /// words behind a title or a name label ([`lexicon::behind_label`]).
    fn behind_label(&self, start: usize, end: usize, first: bool) -> lexicon::Behind {
        let b = self.b;
        // "A.Ş.", "S.A.", "Ltd.Şti.": letters joined by dots read as one word.
        let mut stop = end;
        while b.get(stop) == Some(&b'.') && letter_at(b, stop + 1) > 0 {
            stop = self.word_end(stop + 1);
        }
        stop += usize::from(b.get(stop) == Some(&b'.'));
        if stop - start > 40 {
            return lexicon::Behind::Word;
        }
        let (mut stack, mut spill) = ([0u8; 40], Vec::new());
        lexicon::behind_label(
            text::fold_short(&b[start..stop], &mut stack, &mut spill),
            first,
        )
    }

    /// A known given name at `i..first_end` and the capitalised words after it: a name when a known
    /// surname follows ("Ayşe K. Yılmaz"), when a title follows ("Ahmet Bey", "Elif Hanım'a"), when
    /// one word no gazetteer knows ends the run ("Mehmet Karadağlı katıldı", "John Whitfield and"),
    /// and alone after a greeting, a lower-case honorific or a letter's closing.
    fn gazetteer_name(&mut self, i: usize, first_end: usize) -> usize {
        let b = self.b;
        // A saint's name is a place's: "San Luis Potosí", "Santa Maria", "São Paulo", "Saint Louis".
        if i >= 4 && b[i - 1] == b' ' && self.saint_before(i - 1) {
            return first_end;
        }
        let mut end = first_end;
        let (mut found_surname, mut titled) = (false, false);
        let mut cursor = first_end;
        let (mut words, mut initial) = (0, false);
        while words < 2 {
            let space = text::space_at(b, cursor);
            if space == 0 || !upper_at(b, cursor + space) {
                break;
            }
            let ws = cursor + space;
            let we = self.word_end(ws);
            // One middle initial between the names: "John M. Smith", "Ayşe K. Yılmaz".
            if !initial && we > ws && letter_at(b, ws) == we - ws && b.get(we) == Some(&b'.') {
                initial = true;
                cursor = we + 1;
                continue;
            }
            words += 1;
            if we - ws < 2 {
                break;
            }
            let (mut stack, mut spill) = ([0u8; 40], Vec::new());
            let folded = text::fold_short(&b[ws..we], &mut stack, &mut spill);
            match lexicon::lookup(folded) {
                Some(Word::Surname | Word::Either) => {
                    found_surname = true;
                    end = we;
                }
                Some(Word::FirstName) => end = we,
                Some(_) => break,
                None if lexicon::post_title(folded) => {
                    // Not when the title begins a place's name: "Selim Bey Apartmanı".
                    let next = text::after_spaces(b, we);
                    titled = next == we || !upper_at(b, next);
                    break;
                }
                None => {
                    if !found_surname && !initial {
                        if let Some(stop) = self.unknown_surname(i, first_end, we, folded) {
                            self.hit(i, stop, PiiType::PersonName, D_GIVEN, "person_name_given");
                            return stop;
                        }
                    }
                    break;
                }
            }
            cursor = we;
        }
        if found_surname {
            self.hit(
                i,
                end,
                PiiType::PersonName,
                D_GAZETTEER,
                "person_name_gazetteer",
            );
        } else if titled {
            // "Ahmet Bey", "Elif Hanım'a": the names before the title.
            self.hit(
                i,
                end,
                PiiType::PersonName,
                D_GAZETTEER,
                "person_name_title_after",
            );
        } else if self.greeting_before(i) {
            // "Merhaba Mehmet,", "Dear Emma,": a given name alone, greeted.
            self.hit(
                i,
                end,
                PiiType::PersonName,
                D_GAZETTEER,
                "person_name_greeting",
            );
        } else if let Some(stop) = self.honorific_name(i) {
            return stop;
        }
        end
    }

    /// Whether the word ending at `end` is "San", "Santa", "Santo", "São", "Saint", "Sainte", "Sankt"
    /// or "St." (a place named after a saint follows).
    fn saint_before(&self, end: usize) -> bool {
        let b = self.b;
        let start = letters_start(b, end - usize::from(b[end - 1] == b'.'), 8);
        (start == 0 || !text::is_word_byte(b[start - 1]))
            && matches!(
                &b[start..end],
                b"San"
                    | b"Santa"
                    | b"Santo"
                    | b"S\xC3\xA3o"
                    | b"Saint"
                    | b"Sainte"
                    | b"Sankt"
                    | b"St."
            )
    }

    /// The end of the surname ending at `we` (`folded`), a capitalised word no gazetteer knows, after the
    /// known given name at `i..given_end` ("Mehmet Karadağlı", "Sarah Connolly-Hughes"): when the
    /// given name is no common word ([`lexicon::word_like_given_name`]: "Ege Üniversitesi"), the word
    /// may be a surname ([`lexicon::may_be_surname`]), and it ends the run of capitalised words
    /// (or a title follows it, "Mehmet Karadağlı Bey", or a known surname ends it, "Mehmet Karadağlı
    /// Yılmaz"). A run that goes on is a heading or a place's
    /// name ("Thomas Cook Holidays", "Fatih Camii Avlusu"), left alone.
    fn unknown_surname(
        &self,
        i: usize,
        given_end: usize,
        mut we: usize,
        folded: &[u8],
    ) -> Option<usize> {
        let b = self.b;
        // A digit right after the word makes it an id ("Ahmet AB12"), unless it is one footnote mark
        // after a word in lower case, as in a paper's author line ("Jacob Carlson3,").
        let footnote = b.get(we).is_some_and(u8::is_ascii_digit)
            && !b.get(we + 1).is_some_and(u8::is_ascii_alphanumeric)
            && b[we - 1].is_ascii_lowercase();
        if !lexicon::may_be_surname(folded) || (digit_at(b, we).is_some() && !footnote) {
            return None;
        }
        // "A.Ş.", "St.Louis": letters joined by a dot are no surname.
        if b.get(we) == Some(&b'.') && letter_at(b, we + 1) > 0 {
            return None;
        }
        // A double surname: "Connolly-Hughes", "Karadağlı-Öz".
        if b.get(we) == Some(&b'-') && upper_at(b, we + 1) {
            we = self.word_end(we + 1);
        }
        if self.folded_is(i, given_end, lexicon::word_like_given_name) {
            return None;
        }
        let next = text::after_spaces(b, we);
        if next > we && upper_at(b, next) {
            let next_end = self.word_end(next);
            let (mut stack, mut spill) = ([0u8; 40], Vec::new());
            let folded = text::fold_short(&b[next..next_end], &mut stack, &mut spill);
            if matches!(lexicon::lookup(folded), Some(Word::Surname | Word::Either))
                && !upper_at(b, text::after_spaces(b, next_end))
            {
                // A second surname, known: "Mehmet Karadağlı Yılmaz".
                return Some(next_end);
            }
            if !lexicon::post_title(folded) {
                return None;
            }
        }
        Some(we)
    }

    /// A name after an honorific written in lower case ("de heer Jansen", "mevrouw De Vries",
    /// "monsieur Dupont": up to four capitalised words): the end of the name when there is one.
    #[inline(always)]
    fn honorific_name(&mut self, i: usize) -> Option<usize> {
        // Most capitalised words are turned away here, inline, by the bytes before them: how the
        // honorifics end ("heer", "mevr", "dhr", "monsieur", "signor", "mevrouw", "madame",
        // "mademoiselle", "signora", "signorina") and the space after them.
        let b = self.b;
        // Also a noun for a person with "our" or "my" ("-ımız", "-imiz", "-ım": "müvekkilimiz
        // Lezize Korutürk"), "named", "called" ("a customer named Weining Li"), and "by" ("signed by
        // Hiroshi Tanaka").
        let promising = i >= 4
            && b[i - 1] == b' '
            && match (b[i - 3], b[i - 2]) {
                (b'e' | b'v' | b'h' | b'u' | b'o', b'r')
                | (b'u', b'w')
                | (b'm' | b'l', b'e')
                | (b'r' | b'n', b'a')
                | (b'i' | b'u' | 0xB1 | 0xBC, b'z' | b'm')
                | (b'b', b'y') => true,
                (b'e', b'd') => matches!(b[i - 4], b'm' | b'l'),
                _ => false,
            };
        if promising {
            self.honorific_name_after(i)
        } else {
            None
        }
    }

    #[inline(never)]
    fn honorific_name_after(&mut self, i: usize) -> Option<usize> {
        if self.lower_case_honorific_before(i - 1) {
            return self.named_after_honorific(i);
        }
        if matches!(self.b[i - 2], b'z' | b'm' | b'd' | b'y') {
            self.named_after_noun(i)
        } else {
            None
        }
    }

    /// The name after a noun for a person with "our" or "my" ([`lexicon::person_noun_ours`]:
    /// "Müvekkilimiz Lezize Korutürk", "çalışanımız Can Dündar", two or three words), or after a
    /// noun for a person and "named" or "called" ("a customer named Weining Li", "the patient called
    /// Oluwaseun", one word or more), or after a participle and "by" ([`lexicon::by_verb`]: "signed
    /// by Hiroshi Tanaka", two words or more), from `i`: the end of the name.
    fn named_after_noun(&mut self, i: usize) -> Option<usize> {
        let b = self.b;
        let before = i - 1;
        let word = letters_start(b, before, 24);
        if word == before || (word > 0 && text::is_word_byte(b[word - 1])) {
            return None;
        }
        let by = &b[word..before] == b"by";
        let least = if by {
            // "signed by Hiroshi Tanaka": two words or more after a participle.
            let verb_end = text::before_spaces(b, word);
            let verb = letters_start(b, verb_end, 16);
            if verb_end == word || !lexicon::by_verb(&b[verb..verb_end]) {
                return None;
            }
            2
        } else if matches!(&b[word..before], b"named" | b"called") {
            let noun_end = text::before_spaces(b, word);
            let noun = letters_start(b, noun_end, 12);
            if noun_end == word
                || noun == noun_end
                || (noun > 0 && text::is_word_byte(b[noun - 1]))
                || !self.folded_is(noun, noun_end, lexicon::person_noun_en)
            {
                return None;
            }
            1
        } else if self.folded_is(word, before, lexicon::person_noun_ours) {
            2
        } else {
            return None;
        };
        let (start, stop) = self.name_words(i, 3)?;
        // "approved by Board Resolution 12": a name is no numbered thing.
        if by && digit_at(b, text::after_spaces(b, stop)).is_some() {
            return None;
        }
        let (mut words, mut k) = (1, start);
        while k < stop {
            let space = text::space_at(b, k);
            words += usize::from(space > 0);
            k += space.max(1);
        }
        if words < least
            || self.folded_is(
                self.last_word_start(start, stop),
                stop,
                lexicon::compound_head,
            )
        {
            return None;
        }
        self.hit(
            start,
            stop,
            PiiType::PersonName,
            D_GAZETTEER,
            "person_name_after_noun",
        );
        Some(stop)
    }

    /// The start of the last word of the name at `start..stop`.
    fn last_word_start(&self, start: usize, stop: usize) -> usize {
        letters_start(self.b, stop, stop - start).max(start)
    }

    /// The name (up to four capitalised words) after an honorific, from `from`: its end when there is
    /// one.
    fn named_after_honorific(&mut self, from: usize) -> Option<usize> {
        let (start, stop) = self.name_words(from, 4)?;
        self.hit(
            start,
            stop,
            PiiType::PersonName,
            D_LABEL,
            "person_name_honorific",
        );
        Some(stop)
    }

    /// A letter's closing that begins with the word at `i..end` ([`Word::Closing`]) at the start of
    /// its line ("Best regards,", "Saygılarımla,", "Mit freundlichen Grüßen"), and the name that signs
    /// it: alone on the next line (past one blank line), or after the closing's comma on its own line
    /// ("Thanks, John."). One word signs only when it is a known name: "Best,\nMarketing" is no one,
    /// nor is a team or a company ("Regards,\nThe Support Team"). Where the scan goes on.
    #[inline(never)]
    fn signed_closing(&mut self, i: usize, end: usize) -> usize {
        let b = self.b;
        let lead = text::before_spaces(b, i);
        if lead > 0 && b[lead - 1] != b'\n' {
            return end;
        }
        // The closing's line: 40 bytes at most.
        let limit = (i + 40).min(b.len());
        let line_end = memchr::memchr(b'\n', &b[i..limit]).map_or(limit, |p| i + p);
        if line_end == limit && limit < b.len() {
            return end;
        }
        let comma = memchr::memchr(b',', &b[i..line_end]).map(|p| i + p);
        let after_comma = comma.map(|c| text::after_spaces(b, c + 1));
        let same_line = after_comma.filter(|&a| a < line_end && !matches!(b[a], b'\r'));
        let mut closing_end = comma.unwrap_or(line_end);
        while closing_end > i && matches!(b[closing_end - 1], b' ' | b'\r' | b'.' | b'!') {
            closing_end -= 1;
        }
        let (mut stack, mut spill) = ([0u8; 40], Vec::new());
        if !lexicon::closing(text::fold_short(&b[i..closing_end], &mut stack, &mut spill)) {
            return end;
        }
        let from = match same_line {
            Some(from) => from,
            None => {
                // The next line, or the one after a blank line.
                let mut next = line_end + 1;
                let blank_end = text::after_spaces(b, next);
                let blank_end = blank_end + usize::from(b.get(blank_end) == Some(&b'\r'));
                if b.get(blank_end) == Some(&b'\n') {
                    next = blank_end + 1;
                }
                text::after_spaces(b, next)
            }
        };
        if !upper_at(b, from) {
            return end;
        }
        let Some((start, stop)) = self.name_words(from, 3) else {
            return end;
        };
        // The name ends its line (a comma or a full stop may close it).
        let mut after = text::after_spaces(b, stop);
        if matches!(b.get(after), Some(b',' | b'.')) {
            after = text::after_spaces(b, after + 1);
        }
        if !matches!(b.get(after), None | Some(b'\n' | b'\r')) {
            return end;
        }
        if !b[start..stop].contains(&b' ') {
            let (mut stack, mut spill) = ([0u8; 40], Vec::new());
            let known = matches!(
                lexicon::lookup(text::fold_short(&b[start..stop], &mut stack, &mut spill)),
                Some(Word::FirstName | Word::Surname | Word::Either)
            );
            if !known {
                return end;
            }
        }
        self.hit(
            start,
            stop,
            PiiType::PersonName,
            D_GAZETTEER,
            "person_name_signoff",
        );
        stop
    }

    /// Whether the word ending at `end` (a space follows it) is an honorific in lower case, a word of
    /// its own ([`lexicon::lower_case_honorific`]).
    fn lower_case_honorific_before(&self, end: usize) -> bool {
        let b = self.b;
        let mut start = end;
        while start > 0 && end - start <= 12 && b[start - 1].is_ascii_lowercase() {
            start -= 1;
        }
        end - start >= 3
            && end - start <= 12
            && !(start > 0 && text::is_word_byte(b[start - 1]))
            && lexicon::lower_case_honorific(&b[start..end])
    }

    /// Whether the word before the one at `i`, on its line, is a greeting ([`lexicon::greeting`]).
    fn greeting_before(&self, i: usize) -> bool {
        let b = self.b;
        let mut end = i;
        while end > 0 && b[end - 1] == b' ' {
            end -= 1;
        }
        if end == i || end == 0 {
            return false;
        }
        let mut start = end;
        while start > 0 && end - start <= 12 && b[start - 1].is_ascii_alphabetic() {
            start -= 1;
        }
        // A greeting is an ASCII word of at most 8 letters, standing at its start.
        if start == end || end - start > 8 || (start > 0 && text::is_word_byte(b[start - 1])) {
            return false;
        }
        lexicon::greeting(&b[start..end])
    }

    /// An address around a street word: capitalised words before it, numbers and address words after.
    fn address_from_street(&mut self, ws: usize, we: usize, numbered: bool) -> usize {
        let b = self.b;
        if ws < self.address_reach {
            return we;
        }
        // Back over up to two capitalised words or numbers on the same line ("Atatürk", "75."). A
        // house number there is the English order ("10 Downing Street", "221B Baker Street").
        let mut start = ws;
        let (mut number_before, mut name_before) = (false, false);
        for _ in 0..2 {
            let k = text::before_spaces(b, start);
            if k == start || k == 0 {
                break;
            }
            let mut w = k;
            while w > 0
                && (b[w - 1].is_ascii_alphanumeric() || b[w - 1] >= 0x80 || b[w - 1] == b'.')
            {
                w -= 1;
            }
            if w == k || !(upper_at(b, w) || b[w].is_ascii_digit()) {
                break;
            }
            // Not the last group of a number written in groups ("TR64 ... 1234 56 Hürriyet Mah."): the
            // address would overlap that value and lose to it whole, and be found only in the
            // re-scan of the masked text, which refuses it.
            let before = text::before_spaces(b, w);
            if b[w].is_ascii_digit() && before < w && before > 0 && b[before - 1].is_ascii_digit() {
                break;
            }
            number_before |= b[w].is_ascii_digit();
            name_before |= upper_at(b, w);
            start = w;
        }
        // Forward through the rest of the address on this line.
        let limit = (we + 160).min(b.len());
        let mut i = we;
        let mut end = we;
        let mut has_digit = false;
        let mut street_words = 1;
        let mut named = false;
        let mut judged_colon = usize::MAX;
        while i < limit {
            let c = b[i];
            if c == b'\n' || c == b'\r' || c == b';' {
                break;
            }
            if matches!(c, b' ' | b',' | b'/' | b'-' | b':' | b'.' | b'(' | b')') {
                i += 1;
                continue;
            }
            let space = text::space_at(b, i);
            if space > 0 {
                i += space;
                continue;
            }
            if c.is_ascii_digit() {
                while i < limit && b[i].is_ascii_digit() {
                    i += 1;
                }
                has_digit = true;
                end = i;
                continue;
            }
            let l = letter_at(b, i);
            if l == 0 {
                break;
            }
            let w_end = self.word_end(i);
            // The next field's label ends the address ("... Selçuklu/Konya. E-posta: ...", "...
            // Kadıköy Tel: ..."): a colon a few words on may close one that begins here or after.
            // Each colon is judged once, not again from every capitalised word before it.
            if upper_at(b, i) {
                // On this line and in this cell: the walk ends at a break or a tab, and a label on the
                // next line ("Ankara\nCep Telefonu:") or in the next cell ("Daire 3\tDoğum Tarihi:")
                // would otherwise end the address after it, inside that label.
                let reach = &b[i..(i + 40).min(limit)];
                let reach =
                    &reach[..memchr::memchr3(b'\n', b'\r', b'\t', reach).unwrap_or(reach.len())];
                if let Some(colon) = memchr::memchr(b':', reach).map(|colon| i + colon) {
                    if colon != judged_colon {
                        judged_colon = colon;
                        let label = self
                            .next_label_start(start, colon)
                            .filter(|&label| label >= we);
                        if let Some(label) = label {
                            end = before_label(self.text, start, label);
                            break;
                        }
                    }
                }
            }
            let mut stack = [0u8; 40];
            let folded = text::fold_short(&b[i..w_end], &mut stack, &mut self.scratch);
            let is_street = lexicon::lookup(folded) == Some(Word::Street);
            if upper_at(b, i) || is_street || lexicon::ADDRESS_WORDS.contains(&folded) {
                street_words += usize::from(is_street);
                named |= upper_at(b, i);
                end = w_end;
                i = w_end;
            } else if lexicon::ADDRESS_PARTICLES.contains(&folded) {
                i = w_end;
            } else {
                break;
            }
        }
        let end = run_end(b, end);
        // A lower-case street word after a house number ("12 rue de la Paix") needs a name after it,
        // and the English order a capitalised name and street word after it: "12 place settings" is
        // no address.
        let english = number_before && name_before && upper_at(b, ws);
        if has_digit || english || street_words >= 2 || (numbered && named) {
            self.hit(start, end, PiiType::Address, D_GAZETTEER, "address_street");
            if i < limit {
                self.address_reach = end;
            }
        }
        // The scan goes on after the street word, inside the address: its digits and capitalised words
        // may be values of their own (an IBAN, a phone number), to be found whole. One the address
        // contains is masked with it; one it runs into wins over it (see `engine::better`).
        we
    }

    // ------------------------------------------------------------------------------------------
    // ':' : IPv6 / MAC, and labels ("Ad Soyad:", "Adres:")

    // Out of `run`'s loop (see `tables`).
    #[inline(never)]
    fn colon(&mut self, i: usize) -> usize {
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
    fn equals(&mut self, i: usize) -> usize {
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
    fn url_encoded_value(&mut self, i: usize, key_start: usize, key_end: usize) {
        if self.decoding_depth >= 2 {
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
        let mut inner = Scanner::new(&field, self.window_before, self.window_after);
        inner.keep = self.keep;
        inner.exhaustive = self.exhaustive;
        inner.decoding_depth = self.decoding_depth + 1;
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

    /// A name behind its label at `start..end`: where the scan goes on.
    fn labelled_name(&mut self, start: usize, end: usize) -> Option<usize> {
        self.hit(
            start,
            end,
            PiiType::PersonName,
            D_LABEL,
            "person_name_label",
        );
        Some(end)
    }

    /// Where the value after the colon at `colon` starts: after its spaces and tabs.
    fn value_start(&self, colon: usize) -> usize {
        let mut start = colon + 1;
        while matches!(self.b.get(start), Some(b' ' | b'\t')) {
            start += 1;
        }
        start
    }

    /// The value starting at `start` when it is quoted (`"Ayşe Yılmaz"`, `'1990-07-04'`) and its quote
    /// closes on its line: where it starts after the quote, and the closing quote.
    fn quoted_value(&self, start: usize) -> Option<(usize, usize)> {
        let b = self.b;
        let &quote = b.get(start).filter(|&&c| c == b'"' || c == b'\'')?;
        let from = start + 1;
        let limit = (from + 256).min(b.len());
        memchr::memchr2(quote, b'\n', &b[from..limit])
            .map(|p| from + p)
            .filter(|&p| b[p] == quote)
            .map(|close| (from, close))
    }

    /// Where the value after the colon at `colon` starts and ends, and its closing quote when it is
    /// quoted ([`Self::quoted_value`]); unquoted, it ends at the end of its line, cell or item (a tab,
    /// ',', ';', '|', '}' or ']', and after an equals sign at a '&'), at most 64 bytes on.
    fn field_value(&self, colon: usize) -> (usize, usize, Option<usize>) {
        let start = self.value_start(colon);
        if let Some((from, close)) = self.quoted_value(start) {
            return (from, close, Some(close));
        }
        let limit = (start + 64).min(self.b.len());
        // A query string's next pair ends a value after '='.
        let stops = if self.b[colon] == b'=' {
            FIELD_END | FIELD_END_AMP
        } else {
            FIELD_END
        };
        let end = self.b[start..limit]
            .iter()
            .position(|&c| FIELD_ENDS[usize::from(c)] & stops != 0)
            .map_or(limit, |p| start + p);
        (start, end, None)
    }

    /// A quoted key before the colon at `i` (`"first_name": `, its closing quote at `last - 1`): see
    /// [`Self::key_colon`].
    #[inline(never)]
    fn quoted_key_colon(&mut self, i: usize, last: usize) -> usize {
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
    fn key_colon(&mut self, i: usize, key_start: usize, key_end: usize) -> usize {
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
        self.field = (value, end, types);
        self.field_key = if bounds { key_start } else { 0 };
        self.given_anywhere = true;
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
    fn record_types(&mut self, key_start: usize) -> TypeSet {
        let floor = key_start.saturating_sub(self.window_before);
        let from = memchr::memrchr(b'{', &self.b[floor..key_start]).map_or(floor, |p| floor + p);
        let types = self
            .keywords
            .types_in_moving(&mut self.keyword_cursors.2, from, key_start);
        TypeSet(types.0 & !CONTEXT_FREE)
    }

    /// Whether the key starting at `key_start` (after its quote) stands in a JSON object that is the
    /// value, or an item of the value, of a name key (`"name": {"first": ...`, `"name": [{"use":
    /// "official", "family": ...`, `"name": [{...}, {"given": ...`): the object's opening brace, the
    /// array's bracket if it is an item, then the key before them (at most 512 bytes back).
    #[cold]
    fn in_name_object(&mut self, key_start: usize) -> bool {
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
    fn name_array(&mut self, person: bool, open: usize) {
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
    fn key_info(&mut self, key_start: usize, key_end: usize) -> KeyMeaning {
        let key = &self.b[key_start..key_end];
        if let Some(&known) = self.key_cache.get(key) {
            return known;
        }
        let known = key_meaning(key, &mut self.key_words, &mut self.scratch_found);
        // Bounded: a data file repeats a few keys on every record.
        if self.key_cache.len() < KEY_CACHE_MAX {
            self.key_cache.insert(key.into(), known);
        }
        known
    }

    /// The label of a one-word name key (`key`, starting at `key_start` after its quote) read with the
    /// key of the object it opens (`"product": {"name"` reads "product name", which names a thing):
    /// a name label unless the object's key makes it a thing's.
    fn parent_key_label(&mut self, key_start: usize, key: &[u8]) -> Option<lexicon::Label> {
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
        let mut words = std::mem::take(&mut self.key_words);
        text::key_words(&b[at..parent_end], &mut words);
        words.push(b' ');
        words.extend(key.iter().map(u8::to_ascii_lowercase));
        let kind = lexicon::colon_label(&words);
        self.key_words = words;
        kind
    }

    /// The name or the address behind a label of `kind`, its value starting at `value` (after a quote
    /// when it is quoted, closed at `close`): where the scan goes on when one was found. Behind a label
    /// that names a part of a person's name (`person`: "first name", "soyadı"), a name written in
    /// lower case counts too.
    fn labelled_value(
        &mut self,
        kind: lexicon::Label,
        person: bool,
        value: usize,
        close: Option<usize>,
    ) -> Option<usize> {
        let b = self.b;
        match kind {
            lexicon::Label::Name => {
                let found = self.name_words(value, 4);
                let (start, end) = match found {
                    None if person => self.lower_case_name(value, close)?,
                    found => found?,
                };
                if close.is_some_and(|close| end > close) {
                    return None;
                }
                self.labelled_name(start, end)
            }
            lexicon::Label::Address => {
                let mut start = value;
                loop {
                    let space =
                        text::space_at(b, start).max(usize::from(b.get(start) == Some(&b'\t')));
                    if space == 0 {
                        break;
                    }
                    start += space;
                }
                // A quote that opens it and closes nowhere is not its own ("Adres: \"+1-808-617-6467
                // abc"): kept out, the placeholders after it start the value in the masked text too,
                // which is then passed over, not read as an address beginning with the quote.
                if matches!(b.get(start), Some(b'"' | b'\'')) {
                    start += 1;
                }
                let mut end = start;
                // To the end of its line or of its field (a tab, ';' or '|', which no address holds),
                // at most 200 bytes; a quoted one to its closing quote.
                let stop = close.unwrap_or(b.len());
                while end < stop
                    && end - start < 200
                    && !matches!(b[end], b'\n' | b'\r' | b'\t' | b';' | b'|')
                {
                    end += 1;
                }
                // Nor does it run into a placeholder: in the masked text, "Adres: x
                // [MASKED_NATIONAL_ID_TR] y" holds no address, where the input's "x 10000000146 y"
                // lost to the TCKN and left no word of its own.
                if let Some(token) = memchr::memmem::find(&b[start..end], b"[MASKED_") {
                    if mask_token_end(b, start + token).is_some() {
                        end = start + token;
                    }
                }
                // The next field's label ends it before that: ", Tel: ...", "Ankara Telefon: ...",
                // ", Vergi No: ...", ", E-posta: ..." (those values are then found, and masked, as
                // what they are, not as part of an address); "No: 12", "D:3", "Kat: 2" are its own.
                let next_label = memchr::memchr_iter(b':', &b[start..end])
                    .find_map(|colon| self.next_label_start(start, start + colon));
                let (trimmed, cut) = match next_label {
                    Some(label) => (before_label(self.text, start, label), false),
                    None => {
                        let end = run_end(b, text::floor_boundary(self.text, end));
                        (
                            start + self.text[start..end].trim_end().len(),
                            end - start >= 200,
                        )
                    }
                };
                if trimmed > start + 3 && !b[start..].starts_with(b"[MASKED_") {
                    self.hit(start, trimmed, PiiType::Address, D_LABEL, "address_label");
                    // One cut at its limit may end before a street address inside it does.
                    if !cut {
                        self.address_reach = trimmed;
                    }
                    // The scan goes on inside it: the line may hold other values, and one the limit
                    // cuts through (an IBAN) must be found whole, to win over the address.
                    return Some(start);
                }
                None
            }
        }
    }

    /// A name written in lower case behind a label of a part of a person's name (`"first_name":
    /// "mehmet"`, `soyad=yılmaz`, `Adı: ayşe nur Soyadı: ...`): one to four words of letters that
    /// fill the value up to its closing quote, or up to the end of its line, cell or item or the next
    /// field's label; right after an equals sign and unquoted, as a query string or logfmt writes it,
    /// one word followed by a space will do (`GET /kayit?soyad=korutürk 200`). What fills a name field
    /// without naming anyone (`null`, `test`, `yok`) is not taken, nor a word that goes on in digits
    /// (`user123`).
    #[cold]
    #[inline(never)]
    fn lower_case_name(&mut self, value: usize, close: Option<usize>) -> Option<(usize, usize)> {
        let b = self.b;
        let start = text::after_spaces(b, value);
        if upper_at(b, start) {
            return None;
        }
        let spaceless = close.is_none() && start > 0 && b[start - 1] == b'=';
        let (end, words) = self.lower_case_words(start, close, 4, false).or_else(|| {
            spaceless
                .then(|| self.lower_case_words(start, close, 1, true))
                .flatten()
        })?;
        if words == 1 && no_name_value(&b[start..end], &mut self.scratch) {
            return None;
        }
        Some((start, end))
    }

    /// Up to `max` words of letters from `start` (see [`Self::lower_case_name`]) that end the value:
    /// their end and count. `space_ends`: a space after them ends the value too.
    fn lower_case_words(
        &self,
        start: usize,
        close: Option<usize>,
        max: usize,
        space_ends: bool,
    ) -> Option<(usize, usize)> {
        let b = self.b;
        let limit = close.unwrap_or(b.len()).min(start + 64);
        let next_label = |at: usize| {
            let label_end = self.word_end(at);
            label_end > at && matches!(b.get(text::after_spaces(b, label_end)), Some(b':' | b'='))
        };
        let mut end = start;
        let mut words = 0;
        loop {
            let word_end = self.word_end(end);
            if word_end - end < 2 || word_end > limit {
                return None;
            }
            words += 1;
            end = word_end;
            // The next word belongs to the name unless it is the next field's label.
            let next = end + usize::from(b.get(end) == Some(&b' '));
            let next_end = self.word_end(next);
            if words == max
                || next == end
                || next_end == next
                || next_end > limit
                || next_label(next)
            {
                break;
            }
            end = next;
        }
        let ends = match close {
            Some(close) => end == close,
            None => {
                let after = text::after_spaces(b, end);
                (space_ends && after > end)
                    || after >= b.len()
                    || matches!(
                        b[after],
                        b'\n' | b'\r' | b'\t' | b',' | b';' | b'&' | b'|' | b'}' | b']'
                    )
                    || (after > end && next_label(after))
            }
        };
        ends.then_some((end, words))
    }

    /// Where the label ending at the colon at `colon`, inside an address that starts at `from`, starts,
    /// when it is another field's label; `None` for a part of the address ("No:", "D:3", "Posta
    /// Kodu:") or no label at all. A label counts when it stands alone after a comma, a semicolon or a
    /// sentence's end (", Tel:", ", Doğum Tarihi:", ", Sipariş:"; ", Vergi No:" only when a context
    /// keyword begins it), or when its last word, or the one before, is a label word or a context
    /// keyword ("Ankara Telefon:", "Kadıköy Doğum Tarihi:").
    #[inline(never)]
    fn next_label_start(&mut self, from: usize, colon: usize) -> Option<usize> {
        let b = self.b;
        let mut last = colon;
        while last > from && b[last - 1] == b' ' {
            last -= 1;
        }
        if last == from || !(b[last - 1].is_ascii_alphabetic() || b[last - 1] >= 0x80) {
            return None;
        }
        // The phrase back to a comma, a semicolon, a sentence's end or the address's start: "clean"
        // when it holds no digit, at most three words and 40 bytes.
        let mut p = last;
        let mut clean = true;
        while p > from {
            let c = b[p - 1];
            if c == b',' || c == b';' || (c == b' ' && p >= 2 && b[p - 2] == b'.') {
                break;
            }
            if c.is_ascii_digit() || last - p >= 40 {
                clean = false;
                break;
            }
            p -= 1;
        }
        // Cut at 40 bytes, the phrase may start inside a character: its words start at one.
        let p = text::ceil_boundary(self.text, p);
        // The phrase's words, as byte ranges (it has at most 40 bytes).
        let mut words = [(0usize, 0usize); 24];
        let mut count = 0;
        let mut at = p;
        while at < last && count < words.len() {
            at = text::after_spaces(b, at);
            let mut end = at;
            while end < last && text::space_at(b, end) == 0 {
                end += 1;
            }
            if end > at {
                words[count] = (at, end);
                count += 1;
            }
            at = end;
        }
        let words = &words[..count];
        // A label is words of letters ("E-posta", "Doğum Tarihi"): "<cbc:" is a tag, "89:" no label.
        let lettered = |&(from, to): &(usize, usize)| {
            (b[from].is_ascii_alphabetic() || b[from] >= 0x80)
                && b[from..to].iter().all(|&c| {
                    c.is_ascii_alphabetic() || c >= 0x80 || matches!(c, b'-' | b'.' | b'\'')
                })
        };
        let clean = clean && words.len() <= 3 && words.iter().all(lettered);
        let (&first, &last_word) = (words.first()?, words.last()?);
        if !lettered(&last_word) {
            return None;
        }
        let mut stack = [0u8; 40];
        let folded = text::fold_short(&b[last_word.0..last_word.1], &mut stack, &mut self.scratch);
        let before = words.len().checked_sub(2).map(|k| words[k]);
        if lexicon::address_part_word(folded) {
            // "Vergi No:", "Kimlik No:", "SGK No:" after a comma: a keyword starts the phrase.
            if clean && words.len() >= 2 && self.keywords.keyword_at(first.0) {
                return Some(first.0);
            }
            // "Kadıköy Fatura No:", "Sipariş No:": another field's number, wherever it stands.
            let number = lexicon::number_word(folded);
            let before = before.filter(|before| number && lettered(before))?;
            let folded = text::fold_short(&b[before.0..before.1], &mut stack, &mut self.scratch);
            return lexicon::field_label_word(folded).then_some(before.0);
        }
        if clean {
            return Some(first.0);
        }
        const LABEL_WORDS: &[&[u8]] = &[
            b"tel",
            b"telefon",
            b"telefonu",
            b"gsm",
            b"cep",
            b"faks",
            b"fax",
            b"e-posta",
            b"eposta",
            b"e-mail",
            b"email",
            b"mail",
            b"phone",
            b"mobile",
            b"iban",
            b"web",
        ];
        if LABEL_WORDS.contains(&folded) || self.keywords.keyword_at(last_word.0) {
            return Some(last_word.0);
        }
        if let Some(before) = before.filter(|before| lettered(before)) {
            if self.keywords.keyword_at(before.0) {
                return Some(before.0);
            }
        }
        // "Kadıköy Sipariş:", "Kadıköy Tarih:": a field of the document, never a part of an address.
        lexicon::field_label_word(folded).then_some(last_word.0)
    }

    /// Whether the text before the colon at `i` (its last letter at `last - 1`) may be a label: its
    /// last word, folded, ends some label ([`lexicon::ends_some_label`]), or the 32 bytes before the
    /// colon hold two d's in any case (as a folded text holding "address" must: that word may mark an
    /// address label followed by other words, see [`lexicon::colon_label`]). Exact: when neither
    /// holds, the look-up in `colon` finds no label either, and the colon is passed at a fraction of
    /// the cost.
    fn may_end_label(&mut self, i: usize, last: usize) -> bool {
        let b = self.b;
        let floor = i.saturating_sub(32);
        // The last word as `colon` reads it: back to a space, a separator or the window's edge (a
        // no-break space inside it folds to a space, and the part after it is the word).
        let mut start = last;
        while start > floor && b[start - 1] != b' ' && !ends_label_window(b[start - 1]) {
            start -= 1;
        }
        let start = text::ceil_boundary(self.text, start);
        let raw = &b[start..last];
        if raw.is_empty() {
            // Only spaces in reach: the full look-up decides.
            return true;
        }
        let ends_label = if raw.is_ascii() {
            // Folds to its lower case: no folding, and mostly no hashing either.
            lexicon::ascii_ends_some_label(raw)
        } else {
            let mut stack = [0u8; 40];
            let folded = text::fold_short(raw, &mut stack, &mut self.scratch).trim_ascii_end();
            if folded.is_empty() {
                // Only no-break spaces: the label's last word is further back.
                return true;
            }
            let word = folded
                .iter()
                .rposition(|&c| c == b' ')
                .map_or(folded, |space| &folded[space + 1..]);
            lexicon::ends_some_label(word)
        };
        // "address" folded has two d's, which only ASCII d's fold to (combining dots, which folding
        // drops, may stand between them).
        ends_label || b[floor..i].iter().filter(|&&c| c | 0x20 == b'd').count() >= 2
    }

    /// A hex/colon token (IPv6, MAC with ':') around the colon at `i`.
    fn hex_colon(&mut self, i: usize) -> Option<usize> {
        let b = self.b;
        let token = |c: u8| c.is_ascii_hexdigit() || c == b':' || c == b'.' || c == b'%';
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
        if (start > 0 && b[start - 1].is_ascii_alphanumeric())
            || b.get(end).is_some_and(u8::is_ascii_alphanumeric)
        {
            return None;
        }
        let candidate = &b[start..end];
        if generic::mac(candidate) {
            self.hit(start, end, PiiType::MacAddress, A, "mac_address");
            return Some(end);
        }
        if candidate.iter().filter(|&&c| c == b':').count() >= 2 && generic::ipv6(candidate) {
            self.hit(start, end, PiiType::Ipv6, A, "ipv6");
            return Some(end);
        }
        None
    }

    // ------------------------------------------------------------------------------------------
    // '@' : e-mail

    // Out of `run`'s loop (see `tables`).
    #[inline(never)]
    fn email(&mut self, at: usize) -> usize {
        let b = self.b;
        let start = email_local_start(b, at);
        let mut end = at + 1;
        while end < b.len() && end - at < 254 && generic::email_domain_char(b[end]) {
            end += 1;
        }
        let mut end = text::floor_boundary(self.text, end);
        while end > at + 1 && matches!(b[end - 1], b'.' | b'-') {
            end -= 1;
        }
        // Non-ASCII bytes at the very end are punctuation more often than an IDN label.
        while end > at + 1
            && b[end - 1] >= 0x80
            && !self.text[at + 1..end]
                .rsplit('.')
                .next()
                .is_some_and(|tld| tld.is_ascii())
        {
            end = text::floor_boundary(self.text, end - 1);
        }
        if start < at && generic::email(&b[start..at], &b[at + 1..end]) {
            if start > 0 && b[start - 1] == b'<' {
                self.display_name(start - 1);
            }
            self.hit(start, end, PiiType::Email, A, "email");
            return end;
        }
        if start == at && at > 0 && b[at - 1] == b'}' {
            if let Some(open) = email_group_start(b, at - 1, &b[at + 1..end]) {
                self.hit(open, end, PiiType::Email, A, "email");
                return end;
            }
        }
        at + 1
    }

    /// The display name before an address in angle brackets, whose '<' is at `lt`: `"Lezize Korutürk"
    /// <lezize@ornek.com>`, `Lezize Korutürk <...>`, `"Korutürk, Lezize" <...>`. Two to four
    /// capitalised words that [`Self::name_words`] takes whole, on the line of the address; not a
    /// team's or a company's name (`"Acme Support" <support@acme.com>`), nor one word alone.
    #[inline(never)]
    fn display_name(&mut self, lt: usize) {
        let b = self.b;
        let close = text::before_spaces(b, lt);
        if close == 0 {
            return;
        }
        let whole = |scanner: &Self, from: usize, to: usize| {
            scanner.name_words(from, 4).filter(|&(_, end)| end == to)
        };
        let span = if b[close - 1] == b'"' {
            let inner_end = close - 1;
            let Some(open) = b[inner_end.saturating_sub(80)..inner_end]
                .iter()
                .rposition(|&c| c == b'"' || c == b'\n')
                .map(|k| k + inner_end.saturating_sub(80))
                .filter(|&k| b[k] == b'"')
            else {
                return;
            };
            let inner_start = text::after_spaces(b, open + 1);
            let inner_stop = text::before_spaces(b, inner_end);
            // Quotes around nothing but spaces: `" " <a@b.com>`.
            if inner_start >= inner_stop {
                return;
            }
            match b[inner_start..inner_stop].iter().position(|&c| c == b',') {
                // "Surname, Given".
                Some(comma) => {
                    let comma = inner_start + comma;
                    let first = whole(self, inner_start, comma);
                    let second = whole(self, comma + 1, inner_stop);
                    first.zip(second).map(|(first, second)| (first.0, second.1))
                }
                None => whole(self, inner_start, inner_stop),
            }
        } else {
            // Back over the capitalised words before the address, on its line.
            let mut start = close;
            let mut words = 0;
            while words < 4 {
                let word = letters_start(b, start, 40);
                if word == start || !upper_at(b, word) {
                    break;
                }
                start = word;
                words += 1;
                let space = text::space_before(b, start);
                let before = start - space;
                if space == 0
                    || before == 0
                    || !(b[before - 1].is_ascii_alphabetic() || b[before - 1] >= 0x80)
                {
                    break;
                }
                start = before;
            }
            let start = text::after_spaces(b, start);
            if start >= close {
                return;
            }
            whole(self, start, close)
        };
        let Some((start, end)) = span else { return };
        if !b[start..end]
            .iter()
            .any(|&c| c == b' ' || c == b',' || c == 0xA0)
        {
            return;
        }
        self.hit(
            start,
            end,
            PiiType::PersonName,
            D_GAZETTEER,
            "person_name_display",
        );
    }

    /// An address written to dodge harvesters, at its bracketed "at": `ayse(at)firma.com.tr`,
    /// `ahmet.yilmaz [at] ornek [dot] com`, `mehmet[@]ornek.com`. The dots of the domain may be
    /// bracketed too (`[dot]`, `(dot)`, `[.]`); the address read back must be a valid one (a known
    /// top-level domain), so "fiyat (at) indirim" is not one. A spelled-out " at " / " dot " is not
    /// read: in prose it is a word.
    fn obfuscated_email(&mut self, open: usize) -> Option<usize> {
        let b = self.b;
        let close = bracketed(b, open, &[b"at", b"@"])?;
        // The local part, right before the bracket or one space before it.
        let mut local_end = open;
        if local_end > 0 && b[local_end - 1] == b' ' {
            local_end -= 1;
        }
        let start = email_local_start(b, local_end);
        if start == local_end {
            return None;
        }
        // The domain, its labels joined by dots written plainly or in brackets.
        let label_char = |c: u8| c.is_ascii_alphanumeric() || c == b'-';
        let mut at = close + usize::from(b.get(close) == Some(&b' '));
        let mut domain = Vec::new();
        let mut end = at;
        while domain.len() < 253 {
            let label = at;
            while at < b.len() && label_char(b[at]) {
                at += 1;
            }
            if at == label {
                break;
            }
            domain.extend_from_slice(&b[label..at]);
            end = at;
            let dot = if b.get(at) == Some(&b'.') && b.get(at + 1).is_some_and(|&c| label_char(c)) {
                Some(at + 1)
            } else {
                let open = at + usize::from(b.get(at) == Some(&b' '));
                bracketed(b, open, &[b"dot", b"."])
                    .map(|after| after + usize::from(b.get(after) == Some(&b' ')))
            };
            match dot {
                Some(next) => {
                    domain.push(b'.');
                    at = next;
                }
                None => break,
            }
        }
        if domain.last() == Some(&b'.') {
            domain.pop();
        }
        if !generic::email(&b[start..local_end], &domain) {
            return None;
        }
        self.hit(start, end, PiiType::Email, B_CONTEXT, "email_obfuscated");
        Some(end)
    }

    // ------------------------------------------------------------------------------------------
    // Tokens: grouped numbers and alphanumeric ids

    fn token(&mut self, at: usize) -> usize {
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
                let continues = sep > 0
                    && (digit_at(b, k + sep).is_some()
                        || b.get(k + sep).is_some_and(u8::is_ascii_uppercase)
                        || separator_at(b, k + sep) > 0);
                if !continues {
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
        if word.len() == 14 || word.len() == 4 && b.get(word_end) == Some(&b'.') {
            // Cisco MAC "001a.2b3c.4d5e"
            let end = (start + 14).min(b.len());
            if generic::mac(&b[start..end]) && !b.get(end).is_some_and(u8::is_ascii_alphanumeric) {
                self.hit(start, end, PiiType::MacAddress, A, "mac_address");
                return end;
            }
        }
        let plus = b[at] == b'+' || (b[at] == b'(' && b.get(at + 1) == Some(&b'+'));
        let chain_start = if b[at] == b'+' || b[at] == b'(' {
            at + 1 + usize::from(b.get(at + 1) == Some(&b'+'))
        } else {
            start
        };
        let (count, mut end) = self.chain(chain_start);
        if count == 0 {
            return word_end.max(at + 1);
        }
        // A phone number's extension ("617-6467x12895"): the number ends before its 'x'.
        if self.groups[count - 1].letters > 0 {
            let last = &mut self.groups[count - 1];
            if let Some(x) = extension_at(&b[last.start..last.end]) {
                last.end = last.start + x;
                last.norm_end = last.norm_start + x;
                last.letters = 0;
                last.digits = x;
                self.norm_len = last.norm_end;
                end = last.end;
            }
        }
        let lead = if b[at] == b'+' || b[at] == b'(' {
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
            let prefix = self.groups[..count]
                .iter()
                .position(|g| !covered(g))
                .unwrap_or(count);
            let first = prefix.max(count.saturating_sub(MAX_VALUE_GROUPS)).max(1);
            if first < count {
                return self.groups[first].start;
            }
        }
        end
    }

    /// Groups of digits/letters joined by number separators, starting at `start`, into `self.groups`:
    /// their count and the end of the last one.
    fn chain(&mut self, start: usize) -> (usize, usize) {
        let b = self.b;
        let mut count = 0;
        self.norm_len = 0;
        let mut i = start;
        let mut sep = 0u8;
        // A '(' right before the first digit ("(0212) 345 67 89") may be closed inside the chain.
        let mut open_paren = start > 0 && b[start - 1] == b'(' && b[start].is_ascii_digit();
        loop {
            let group_start = i;
            let norm_start = self.norm_len;
            // A group has at most 40 characters, normalised into its own 40 bytes of `norm` (at most
            // `MAX_GROUPS` groups of 40 fill it), indexed below 40 so that no store is bounds-checked.
            let slot: &mut [u8; 40] = (&mut self.norm[norm_start..norm_start + 40])
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
            self.norm_len = norm_start + n;
            if i == group_start {
                break;
            }
            self.groups[count] = Group {
                start: group_start,
                end: i,
                norm_start,
                norm_end: self.norm_len,
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
                if letters.is_empty()
                    || text::letter_at(b, k) > 0
                    || !(letters.iter().all(u8::is_ascii_uppercase)
                        && (letters.len() <= 4 || mixed))
                {
                    break;
                }
                if kinds & SEP_SLASH != 0 {
                    break;
                }
                // Nor a keyword ("00.00.2000 SGK Sicil No: ..."): taken into the chain, it would stand
                // in no span's context window, and the same span would be judged without it here and
                // with it in the masked text's re-scan, where the chain ends earlier.
                if self.keywords.keyword_at(j) {
                    break;
                }
            }
            i = j;
            sep = kinds;
        }
        let end = if count == 0 {
            start
        } else {
            self.groups[count - 1].end
        };
        (count, end)
    }

    /// The spans of the chain in `self.groups[..count]`, found by the token at `at` (recorded in the
    /// hits whose shorter spans were skipped).
    fn evaluate_chain(&mut self, at: usize, count: usize, lead: usize, plus: bool) {
        // Fast exit: one short number ("2024", "150", "12,50").
        if count == 1 && self.groups[0].letters == 0 && self.groups[0].digits < 6 {
            return;
        }
        let given = self.given_context(self.groups[0].start);
        let groups = &self.groups[..count];
        let hits_before = self.hits.len();
        let mut context: [Option<TypeSet>; MAX_GROUPS] = [None; MAX_GROUPS];
        // Every candidate's context window lies inside the chain's own: when that holds no keyword
        // (the usual case), no candidate needs a look-up of its own.
        let (chain_start, chain_end) = (groups[0].start, groups[count - 1].end);
        let anywhere = self.keywords.types_in_moving(
            &mut self.keyword_cursors.0,
            chain_start.saturating_sub(self.window_before),
            chain_end + self.window_after,
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
        let mut whole_kept = false;
        for length in (1..=count).rev() {
            if whole_kept {
                break;
            }
            for (first, context) in context.iter_mut().enumerate().take(count - length + 1) {
                let last = first + length - 1;
                // Groups are normalised back to back: the span's length is one subtraction.
                let total = self.groups[last].norm_end - self.groups[first].norm_start;
                if !(5..=34).contains(&total) {
                    continue;
                }
                if no_context
                    && digits_only
                    && !(plus && first == 0)
                    && NO_CONTEXT_DIGIT_LENGTHS & (1 << total) == 0
                    && length != 4
                {
                    continue;
                }
                let start = if first == 0 {
                    lead
                } else {
                    self.groups[first].start
                };
                let plus = plus && first == 0;
                let before = self.hits.len();
                self.evaluate(count, first, last, start, plus, context);
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
                whole_kept = self.hits[hits_before..].iter().any(|hit| {
                    hit.confidence >= B_FORM && hit.confidence >= keep.1 && keep.0.contains(hit.ty)
                });
                if whole_kept {
                    for hit in &mut self.hits[hits_before..] {
                        hit.shortcut = Some(at);
                    }
                }
            }
        }
        if self.hits.len() - hits_before >= 2 {
            self.rank_by_nearest_keyword(hits_before);
        }
    }

    /// One value, several labels: in "Sürücü Belgesi No: 123456  Bağ-Kur No: 7654321" the first
    /// number has both labels in its window, and the fixed priority alone made it a Bağ-Kur number
    /// (and left it unmasked for a tenant who switched that type off). Among the hits of one chain
    /// (`self.hits[from..]`; those of one span are consecutive) that share a span and do not rest on a
    /// checksum, the one whose keyword is nearest takes the best of their priorities, the next one the
    /// next, and so on, and those with no keyword at all (a phone number by its grouping alone) come
    /// last: "Vergi Kimlik No: 454 053 6920" is a VKN although 454 is also an area code. A checksummed
    /// hit keeps its own priority.
    #[cold]
    #[inline(never)]
    fn rank_by_nearest_keyword(&mut self, from: usize) {
        let mut ranked: Vec<(usize, u8, usize)> = Vec::new();
        let mut run = from;
        while run < self.hits.len() {
            let span = (self.hits[run].start, self.hits[run].end);
            let mut next = run;
            ranked.clear();
            while next < self.hits.len() && (self.hits[next].start, self.hits[next].end) == span {
                let hit = self.hits[next];
                if hit.confidence < A_MINUS {
                    // The column's header or the field's key is the nearest label of all.
                    let distance = if self.given_context(hit.start).contains(hit.ty) {
                        Some(0)
                    } else {
                        self.keywords.distance(
                            hit.ty,
                            hit.start,
                            hit.end,
                            self.window_before,
                            self.window_after,
                        )
                    };
                    ranked.push((distance.unwrap_or(usize::MAX), hit.priority, next));
                }
                next += 1;
            }
            if ranked.len() >= 2 {
                let mut slots: Vec<u8> = ranked.iter().map(|&(_, priority, _)| priority).collect();
                slots.sort_unstable();
                ranked.sort_unstable();
                for (&(_, _, index), slot) in ranked.iter().zip(slots) {
                    self.hits[index].priority = slot;
                }
            }
            run = next;
        }
    }

    /// The context of the span starting at group `first` of a chain of `chain_len` groups, looked up
    /// once (`context`) and only when a validator asks for it. Inlined where it is asked for: a
    /// closure out of line cost 1 % of the benchmark's instructions.
    #[inline(always)]
    fn span_context(
        &mut self,
        context: &mut Option<TypeSet>,
        first: usize,
        chain_len: usize,
    ) -> TypeSet {
        if let Some(known) = *context {
            return known;
        }
        let found = self.context(self.groups[first].start, self.groups[chain_len - 1].end);
        *context = Some(found);
        found
    }

    #[allow(clippy::too_many_lines)]
    fn evaluate(
        &mut self,
        chain_len: usize,
        first: usize,
        last: usize,
        start: usize,
        plus: bool,
        context: &mut Option<TypeSet>,
    ) {
        let end = self.groups[last].end;
        const SPAN_MAX: usize = 48;
        let mut buffer = [0u8; SPAN_MAX];
        let from = self.groups[first].norm_start;
        let len = (self.groups[last].norm_end - from).min(SPAN_MAX);
        // A copy of fixed length, which compiles to a few moves instead of a call to `memcpy`
        // (400,000 calls on the benchmark); what lies past the span is never read.
        if from + SPAN_MAX <= NORM_MAX {
            buffer.copy_from_slice(&self.norm[from..from + SPAN_MAX]);
        } else {
            buffer[..len].copy_from_slice(&self.norm[from..from + len]);
        }
        let s = &buffer[..len];
        let count = last - first + 1;
        // The span's letters, separators and group lengths in one walk over its groups.
        let (mut letters, mut seps) = (0usize, 0u8);
        let mut lens_buffer = [0usize; MAX_GROUPS];
        for (index, group) in self.groups[first..=last].iter().enumerate() {
            letters += group.letters;
            if index > 0 {
                seps |= group.sep;
            }
            lens_buffer[index] = group.len();
        }
        let lens = &lens_buffer[..count];
        // Written plain, or in groups no longer than `max` characters (e.g. 3-3-3-2, 4-4-4-4): a
        // juxtaposition of unrelated numbers ("EAN 8690379742866 11") does not count.
        let grouped = |max: usize| count == 1 || (count >= 3 && lens.iter().all(|&l| l <= max));
        let slashed = seps & SEP_SLASH != 0;
        if letters == 0 {
            match len {
                7 if s.starts_with(b"444")
                    && ((count >= 2 && lens[0] == 3 && seps == SEP_SPACE)
                        || self
                            .span_context(context, first, chain_len)
                            .contains(PiiType::PhoneTr)) =>
                {
                    self.hit(start, end, PiiType::PhoneTr, B_FORM, "phone_tr");
                }
                9 => {
                    let dashed = count == 3 && lens == [3, 2, 4] && seps == SEP_DASH;
                    let c = self.span_context(context, first, chain_len);
                    if us::itin_us(s) && (dashed || c.contains(PiiType::ItinUs)) {
                        self.hit(start, end, PiiType::ItinUs, B_FORM, "itin_us");
                    } else if us::ssn_us(s) && (dashed && c.0 != 0 || c.contains(PiiType::SsnUs)) {
                        self.hit(start, end, PiiType::SsnUs, B_FORM, "ssn_us");
                    } else if us::ssn_us(s) && dashed {
                        self.hit(start, end, PiiType::SsnUs, B_CONTEXT, "ssn_us");
                    }
                    if us::ein_us(s) && c.contains(PiiType::EinUs) {
                        self.hit(start, end, PiiType::EinUs, B_CONTEXT, "ein_us");
                    }
                    if us::aba_routing_us(s) && c.contains(PiiType::AbaRoutingUs) {
                        self.hit(
                            start,
                            end,
                            PiiType::AbaRoutingUs,
                            B_CONTEXT,
                            "aba_routing_us",
                        );
                    }
                    if eu::citizen_id_nl(s) && c.contains(PiiType::CitizenIdNl) {
                        self.hit(start, end, PiiType::CitizenIdNl, B_CONTEXT, "citizen_id_nl");
                    }
                    if c.contains(PiiType::PassportUs) && count == 1 {
                        self.hit(start, end, PiiType::PassportUs, C_LABEL, "passport_us");
                    }
                }
                10 => {
                    let phone_form =
                        (count == 4 && lens == [3, 3, 2, 2]) || (count == 3 && lens == [3, 3, 4]);
                    if tr::phone_nsn(s)
                        && (phone_form
                            || self
                                .span_context(context, first, chain_len)
                                .contains(PiiType::PhoneTr))
                    {
                        self.hit(
                            start,
                            end,
                            PiiType::PhoneTr,
                            if phone_form { B_FORM } else { B_CONTEXT },
                            "phone_tr",
                        );
                    }
                    if tr::vkn(s)
                        && self
                            .span_context(context, first, chain_len)
                            .contains(PiiType::TaxIdTr)
                    {
                        self.hit(start, end, PiiType::TaxIdTr, B_FORM, "tax_id_tr");
                    }
                    if eu::nhs_number_uk(s)
                        && self
                            .span_context(context, first, chain_len)
                            .contains(PiiType::NhsNumberUk)
                    {
                        self.hit(start, end, PiiType::NhsNumberUk, B_CONTEXT, "nhs_number_uk");
                    }
                    if us::npi_us(s)
                        && self
                            .span_context(context, first, chain_len)
                            .contains(PiiType::NpiUs)
                    {
                        self.hit(start, end, PiiType::NpiUs, B_CONTEXT, "npi_us");
                    }
                    let hyphenated = count == 2
                        && lens == [6, 4]
                        && (seps == SEP_DASH || self.b.get(self.groups[first].end) == Some(&b'+'));
                    if eu::personal_id_se(s)
                        && (hyphenated
                            || self
                                .span_context(context, first, chain_len)
                                .contains(PiiType::PersonalIdSe))
                    {
                        self.hit(start, end, PiiType::PersonalIdSe, A_MINUS, "personal_id_se");
                    }
                }
                // Not across a slash, which joins phone numbers and dates, never an id's groups:
                // "0531 862 54 13/0212 345 67 89" holds no TCKN "862 54 13/0212".
                11 if grouped(4) && !slashed => {
                    if tr::tckn(s) {
                        self.hit(start, end, PiiType::NationalIdTr, A, "national_id_tr");
                    }
                    if tr::phone_with_prefix(s) {
                        self.hit(start, end, PiiType::PhoneTr, B_FORM, "phone_tr");
                    }
                    if eu::tax_id_de(s) {
                        self.hit(start, end, PiiType::TaxIdDe, A, "tax_id_de");
                    }
                    if eu::national_id_pl(s) {
                        self.hit(start, end, PiiType::NationalIdPl, A_MINUS, "national_id_pl");
                    }
                    if eu::national_id_be(s)
                        && (count > 1
                            || self
                                .span_context(context, first, chain_len)
                                .contains(PiiType::NationalIdBe))
                    {
                        self.hit(start, end, PiiType::NationalIdBe, A_MINUS, "national_id_be");
                    }
                }
                12 => {
                    if tr::phone_with_prefix(s)
                        && (plus
                            || count > 1
                            || self
                                .span_context(context, first, chain_len)
                                .contains(PiiType::PhoneTr))
                    {
                        self.hit(start, end, PiiType::PhoneTr, B_FORM, "phone_tr");
                    }
                    if count == 2
                        && lens == [8, 4]
                        && seps == SEP_DASH
                        && eu::personal_id_se(&s[2..])
                    {
                        self.hit(start, end, PiiType::PersonalIdSe, A_MINUS, "personal_id_se");
                    }
                }
                14 if tr::phone_with_prefix(s) => {
                    self.hit(start, end, PiiType::PhoneTr, B_FORM, "phone_tr");
                }
                _ => {}
            }
            if (12..=19).contains(&len) && grouped(6) && !slashed && generic::credit_card(s) {
                // 15, 16 and 19 digits are the usual PAN lengths; the rarer ones need a card word.
                if matches!(len, 15 | 16 | 19) {
                    self.hit(start, end, PiiType::CreditCard, A, "credit_card");
                } else if self
                    .span_context(context, first, chain_len)
                    .contains(PiiType::CreditCard)
                {
                    self.hit(start, end, PiiType::CreditCard, B_CONTEXT, "credit_card");
                }
            }
            if len == 15 && grouped(4) && !slashed {
                if eu::social_security_fr(s) {
                    self.hit(
                        start,
                        end,
                        PiiType::SocialSecurityFr,
                        A,
                        "social_security_fr",
                    );
                }
                if generic::imei(s)
                    && self
                        .span_context(context, first, chain_len)
                        .contains(PiiType::Imei)
                {
                    self.hit(start, end, PiiType::Imei, B_CONTEXT, "imei");
                }
            }
            if len == 17
                && generic::vin(s) == Some(true)
                && self
                    .span_context(context, first, chain_len)
                    .contains(PiiType::Vin)
            {
                self.hit(start, end, PiiType::Vin, A_MINUS, "vin");
            }
            if len == 26 && grouped(7) && tr::isyeri_sicil(s) {
                self.hit(
                    start,
                    end,
                    PiiType::IsyeriSicilNo,
                    B_FORM,
                    "isyeri_sicil_no",
                );
            }
            if len == 24
                && self
                    .span_context(context, first, chain_len)
                    .contains(PiiType::IsyeriSicilNo)
            {
                self.hit(
                    start,
                    end,
                    PiiType::IsyeriSicilNo,
                    C_LABEL,
                    "isyeri_sicil_no",
                );
            }
            if plus && !s.starts_with(b"90") && (7..=15).contains(&len) && country_code(s).is_some()
            {
                self.hit(start, end, PiiType::PhoneIntl, B_FORM, "phone_intl");
            }
            if !plus
                && s.starts_with(b"00")
                && !s.starts_with(b"0090")
                && count >= 2
                && seps & !(SEP_SPACE | SEP_DASH | SEP_PAREN) == 0
                && (9..=17).contains(&len)
                && country_code(&s[2..]).is_some()
                && self
                    .span_context(context, first, chain_len)
                    .contains(PiiType::PhoneIntl)
            {
                self.hit(start, end, PiiType::PhoneIntl, B_CONTEXT, "phone_intl");
            }
            // A national number right behind its phone label, without a country code: "Tel. 030
            // 123456", "tél. 01 23 45 67 89", "móvil 612 345 678" (a Turkish one is `phone_tr` above).
            if !plus
                && (7..=13).contains(&len)
                && self
                    .span_context(context, first, chain_len)
                    .contains(PiiType::PhoneIntl)
            {
                // One run after a trunk 0; an area code after a trunk 0 and the number ("030
                // 123456"); or groups of at most four digits. Not a date, not an amount.
                let phone_shaped = if count == 1 {
                    s[0] == b'0' && (9..=12).contains(&len)
                } else {
                    seps & !(SEP_SPACE | SEP_DASH | SEP_DOT | SEP_PAREN) == 0
                        && (lens.iter().all(|&l| l <= 4)
                            || (count == 2 && s[0] == b'0' && lens[0] <= 5))
                        && !is_date(s, lens)
                        && !(seps == SEP_DOT && lens[1..].iter().all(|&l| l == 3))
                };
                if phone_shaped
                    && (self.given_context(start).contains(PiiType::PhoneIntl)
                        || self
                            .keywords
                            .types_in_moving(
                                &mut self.keyword_cursors.2,
                                start.saturating_sub(PHONE_LABEL_GAP),
                                start,
                            )
                            .contains(PiiType::PhoneIntl))
                {
                    self.hit(start, end, PiiType::PhoneIntl, B_CONTEXT, "phone_intl");
                }
            }
            if (6..=13).contains(&len) {
                let c = self.span_context(context, first, chain_len);
                for ty in [
                    PiiType::EmeklilikNo,
                    PiiType::BagkurNo,
                    PiiType::DriverLicenseTr,
                    PiiType::DriverLicenseUs,
                ] {
                    if c.contains(ty) {
                        self.hit(start, end, ty, C_LABEL, ty.name());
                    }
                }
            }
            if count == 3
                && matches!(seps, SEP_DOT | SEP_SLASH | SEP_DASH)
                && is_date(s, lens)
                && self
                    .span_context(context, first, chain_len)
                    .contains(PiiType::DateOfBirth)
            {
                self.hit(start, end, PiiType::DateOfBirth, C_LABEL, "date_of_birth");
            }
            if count == 4
                && seps == SEP_DOT
                && lens.iter().all(|&l| l <= 3)
                && generic::ipv4(&self.b[self.groups[first].start..end])
            {
                let before = &self.b[start.saturating_sub(8)..start];
                let mut folded = Vec::new();
                text::fold_into(before, &mut folded);
                if !(folded.ends_with(b"v")
                    || folded.ends_with(b"version ")
                    || folded.ends_with(b"oid ")
                    || folded.ends_with(b"v."))
                {
                    self.hit(start, end, PiiType::Ipv4, A_MINUS, "ipv4");
                }
            }
            return;
        }
        // Tokens with letters.
        if len >= 15
            && s[0].is_ascii_uppercase()
            && s[1].is_ascii_uppercase()
            && s[2].is_ascii_digit()
            && s[3].is_ascii_digit()
            && generic::iban(s)
        {
            let ty = if s.starts_with(b"TR") {
                PiiType::IbanTr
            } else {
                PiiType::Iban
            };
            self.hit(start, end, ty, A, ty.name());
            return;
        }
        match len {
            9 => {
                if eu::national_insurance_uk(s) {
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
            && self.groups[first].letters == 0
            && self.groups[first + 1].digits == 0
            && self.groups[first + 2].letters == 0
        {
            let g = &self.groups[first..=last];
            let norm = &self.norm;
            if tr::plate(
                &norm[g[0].norm_start..g[0].norm_end],
                &norm[g[1].norm_start..g[1].norm_end],
                &norm[g[2].norm_start..g[2].norm_end],
            ) {
                self.hit(
                    start,
                    end,
                    PiiType::LicensePlateTr,
                    B_FORM,
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
        let vat_prefix = len >= 10
            && s[0].is_ascii_uppercase()
            && s[1].is_ascii_uppercase()
            && (generic::iban_length(&s[..2]).is_some() || s.starts_with(b"EL"));
        if vat_prefix && eu::vat_eu(s) {
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
                && !(self.groups[first].digits == 0 && self.keywords.keyword_at(start))
            {
                for ty in labelled {
                    if c.contains(ty) {
                        self.hit(start, end, ty, C_LABEL, ty.name());
                    }
                }
            }
        }
    }

    /// Bitcoin and Ethereum addresses (a whole word).
    fn wallet(&mut self, start: usize, end: usize) -> Option<usize> {
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
    fn mrz(&mut self, at: usize) -> Option<usize> {
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

/// The end of an address that starts at `start` and is ended by the next field's label at `label`:
/// what separates the two stays outside it (", Tel:", ". E-posta:").
fn before_label(text: &str, start: usize, label: usize) -> usize {
    start
        + text[start..label]
            .trim_end_matches(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | '.'))
            .len()
}

/// The types whose findings no keyword changes (a checksum or a distinctive form finds them, and no
/// validator asks for their context): `national_id_tr`, `iban_tr`, `iban`, `email`.
const CONTEXT_FREE: u64 = PiiType::NationalIdTr.bit()
    | PiiType::IbanTr.bit()
    | PiiType::Iban.bit()
    | PiiType::Email.bit();

/// `phone_tr` and `phone_intl`.
const PHONES: u64 = PiiType::PhoneTr.bit() | PiiType::PhoneIntl.bit();

/// The most keys a scan remembers the meaning of ([`key_meaning`]).
const KEY_CACHE_MAX: usize = 256;

/// What a data file's key announces: the label of its words ("first name", "home address") and the
/// types of its keywords ("date of birth", "vkn"). Labels end a key ("customer person first name"):
/// its last word is looked at first, and most keys ("id", "created at", "invoice number") end there.
/// Whether a table cell holds a name written in lower case (under a header of a part of a person's
/// name): one to four words of letters, each of two or more, not a value that fills a name field
/// without naming anyone (`null`, `test`, `yok`).
#[cold]
fn lower_case_name_cell(cell: &str, scratch: &mut Vec<u8>) -> bool {
    // Most cells that come here are placeholders of the masked text's re-scan.
    cell.chars().next().is_some_and(char::is_lowercase) && names_someone(cell, scratch)
}

/// Whether a value that stands alone in a name's place (a table cell) can name
/// someone: one to four words of letters, each of two or more, and not a value that fills a name
/// field without naming anyone ([`no_name_value`]).
fn names_someone(value: &str, scratch: &mut Vec<u8>) -> bool {
    let mut words = 0;
    for word in value.split(' ') {
        words += 1;
        if words > 4 || word.chars().count() < 2 || !word.chars().all(char::is_alphabetic) {
            return false;
        }
    }
    words > 1 || !no_name_value(value.as_bytes(), scratch)
}

/// Whether one word fills a name field without naming anyone (`null`, `test`, `yok`), folded first.
fn no_name_value(word: &[u8], scratch: &mut Vec<u8>) -> bool {
    scratch.clear();
    text::fold_into(word, scratch);
    lexicon::no_name_value(scratch)
}

/// What ends an unquoted field's value ([`Scanner::field_value`]): a line, a cell or an item, and
/// after an equals sign a '&' too.
const FIELD_END: u8 = 1;
const FIELD_END_AMP: u8 = 2;
static FIELD_ENDS: [u8; 256] = {
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
fn key_meaning(
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
    let types = super::context::key_types(words, found);
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
struct KeyMeaning {
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

/// Where the word ending at `last` (before a colon) starts, when it is written as a data file's key:
/// in snake, kebab, dotted or camel case ("first_name", "customer.vkn", "dateOfBirth"), beginning
/// with a letter. Most colons in prose end a plain word ("Tarih:"), which this turns away in one walk back.
#[inline(always)]
fn key_shaped_before(b: &[u8], last: usize) -> Option<usize> {
    let floor = last.saturating_sub(text::KEY_MAX);
    let mut at = last;
    let mut shaped = false;
    while at > floor {
        let c = b[at - 1];
        if c.is_ascii_alphanumeric() || c >= 0x80 {
            shaped |= c.is_ascii_uppercase() && at >= 2 && b[at - 2].is_ascii_lowercase();
        } else if matches!(c, b'_' | b'.' | b'-') {
            shaped = true;
        } else {
            break;
        }
        at -= 1;
    }
    (shaped && at < last && (b[at].is_ascii_alphabetic() || b[at] >= 0x80)).then_some(at)
}

/// Where a phone number ending at `end`, before an 'x', ends with its extension ("+1-808-617-6467x12895":
/// one to six digits after the 'x', and no other letter or digit); `end` when none follows.
#[cold]
#[inline(never)]
fn extension_end(b: &[u8], end: usize) -> usize {
    let digits = b[end + 1..]
        .iter()
        .take(7)
        .take_while(|c| c.is_ascii_digit())
        .count();
    if (1..=6).contains(&digits)
        && !b
            .get(end + 1 + digits)
            .is_some_and(u8::is_ascii_alphanumeric)
    {
        end + 1 + digits
    } else {
        end
    }
}

/// Where a group of ASCII digits and letters ("6467x12895") reads as digits, a lower-case 'x' and the
/// digits of an extension: the 'x''s offset.
fn extension_at(group: &[u8]) -> Option<usize> {
    let x = group.iter().position(|&c| !c.is_ascii_digit())?;
    (x > 0
        && group[x] == b'x'
        && group.len() > x + 1
        && group[x + 1..].iter().all(u8::is_ascii_digit))
    .then_some(x)
}

/// An address that reaches its limit inside a word or a number ("... FTR|000000000") ends with it
/// instead, up to 100 bytes further: its tail would read as a value of its own in the masked text
/// ("[MASKED_ADDRESS]000000000" behind an SGK label), where the scan of the whole token saw none.
fn run_end(b: &[u8], mut end: usize) -> usize {
    if !text::word_before(b, end) {
        return end;
    }
    let cap = end + 100;
    while end < b.len() && end < cap {
        let l = if b[end].is_ascii_alphanumeric() {
            1
        } else {
            letter_at(b, end)
        };
        if l == 0 {
            break;
        }
        end += l;
    }
    end
}

/// The names of the months and their abbreviations, folded ([`text::fold_short`]), in the languages of
/// the birth-date labels (Turkish, English, German, French, Spanish, Italian, Dutch, Polish).
const MONTHS: [&[&str]; 12] = [
    &[
        "ocak", "january", "jan", "januar", "janvier", "enero", "gennaio", "januari", "stycznia",
    ],
    &[
        "subat", "february", "feb", "februar", "fevrier", "febrero", "febbraio", "februari",
        "lutego",
    ],
    &[
        "mart", "march", "mar", "marz", "mars", "marzo", "maart", "marca",
    ],
    &[
        "nisan", "april", "apr", "avril", "abril", "aprile", "kwietnia",
    ],
    &["mayis", "may", "mai", "mayo", "maggio", "mei", "maja"],
    &[
        "haziran", "june", "jun", "juni", "juin", "junio", "giugno", "czerwca",
    ],
    &[
        "temmuz", "july", "jul", "juli", "juillet", "julio", "luglio", "lipca",
    ],
    &[
        "agustos",
        "august",
        "aug",
        "aout",
        "ao\u{fb}t",
        "agosto",
        "augustus",
        "sierpnia",
    ],
    &[
        "eylul",
        "september",
        "sep",
        "sept",
        "septembre",
        "septiembre",
        "settembre",
    ],
    &[
        "ekim", "october", "oct", "oktober", "octobre", "octubre", "ottobre",
    ],
    &[
        "kasim",
        "november",
        "nov",
        "novembre",
        "noviembre",
        "listopada",
    ],
    &[
        "aralik",
        "december",
        "dec",
        "dezember",
        "decembre",
        "diciembre",
        "dicembre",
        "grudnia",
    ],
];

/// Bit `second - 'a'` of entry `first - 'a'` set when a month's folded name begins with those two
/// letters (every name begins with two ASCII letters).
const MONTH_PAIRS: [u32; 26] = {
    let mut pairs = [0u32; 26];
    let mut month = 0;
    while month < MONTHS.len() {
        let mut k = 0;
        while k < MONTHS[month].len() {
            let name = MONTHS[month][k].as_bytes();
            pairs[(name[0] - b'a') as usize] |= 1 << (name[1] - b'a');
            k += 1;
        }
        month += 1;
    }
    pairs
};

/// Whether the word at `at` may be a month's name, by its first two bytes: two ASCII letters that
/// begin some folded name (in either case); an ASCII letter that begins one, then a byte of a non-ASCII
/// letter, which folding could make its second ("Ağustos", "März", "Février"); or a non-ASCII first
/// letter ("Şubat"). Turns away most words after a small number ("39 adet", "9 iş günü") before their
/// letters are walked.
fn may_begin_month(b: &[u8], at: usize) -> bool {
    let (Some(&first), Some(&second)) = (b.get(at), b.get(at + 1)) else {
        return false;
    };
    if first >= 0x80 {
        return true;
    }
    let first = first | 0x20;
    if !first.is_ascii_lowercase() {
        return false;
    }
    let seconds = MONTH_PAIRS[usize::from(first - b'a')];
    if second >= 0x80 {
        return seconds != 0;
    }
    let second = second | 0x20;
    second.is_ascii_lowercase() && seconds & (1 << (second - b'a')) != 0
}

/// The month (1-12) a folded month name or abbreviation stands for.
fn month_number(folded: &[u8]) -> Option<u32> {
    MONTHS
        .iter()
        .position(|names| names.iter().any(|name| name.as_bytes() == folded))
        .map(|index| index as u32 + 1)
}

/// Past up to two name particles, each followed by a space, from `at`; `at` when there are none.
/// Where the run of letters (ASCII letters and the bytes of non-ASCII characters) that ends at `end`
/// starts, looking back at most `max` bytes.
/// Whether a capitalised word stands right before `at`, past spaces, on its line.
fn capitalised_before(b: &[u8], at: usize) -> bool {
    let before = text::before_spaces(b, at);
    if before == at || before == 0 {
        return false;
    }
    let word = letters_start(b, before, usize::MAX);
    word < before && upper_at(b, word)
}

fn letters_start(b: &[u8], end: usize, max: usize) -> usize {
    let mut start = end;
    while start > 0
        && end - start < max
        && (b[start - 1].is_ascii_alphabetic() || b[start - 1] >= 0x80)
    {
        start -= 1;
    }
    start
}

fn particles_end(b: &[u8], at: usize) -> usize {
    let mut i = at;
    for _ in 0..2 {
        let word = b[i.min(b.len())..]
            .iter()
            .position(|c| !c.is_ascii_lowercase())
            .unwrap_or(b.len() - i.min(b.len()));
        if word == 0 || !lexicon::NAME_PARTICLES.contains(&&b[i..i + word]) {
            break;
        }
        let space = text::space_at(b, i + word);
        if space == 0 {
            break;
        }
        i += word + space;
    }
    i
}

/// Whether the word at `at` has the shape of an id that [`Scanner::token`] checks as a whole word
/// (a wallet address, a Cisco MAC, the start of an MRZ line) rather than as a chain of groups.
fn whole_word_id_at(b: &[u8], at: usize) -> bool {
    let rest = &b[at.min(b.len())..];
    let word = rest
        .iter()
        .position(|c| !c.is_ascii_alphanumeric())
        .unwrap_or(rest.len());
    word >= 26
        || rest.get(word) == Some(&b'<')
        || (word == 4 && rest.get(4) == Some(&b'.') && generic::mac(&rest[..rest.len().min(14)]))
}

/// Where the line `start..newline` ends before its carriage returns.
fn end_before_crs(b: &[u8], start: usize, newline: usize) -> usize {
    let mut end = newline;
    while end > start && b[end - 1] == b'\r' {
        end -= 1;
    }
    end
}

fn trim_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// TCKK serial `A12B34567` or old booklet `U21123456`.
fn id_card_shape(s: &[u8]) -> bool {
    s.len() == 9
        && s[0].is_ascii_uppercase()
        && s[1].is_ascii_digit()
        && s[2].is_ascii_digit()
        && (s[3].is_ascii_uppercase() || s[3].is_ascii_digit())
        && s[4..].iter().all(u8::is_ascii_digit)
}

/// The value of a short run of ASCII digits.
fn decimal(digits: &[u8]) -> u32 {
    digits
        .iter()
        .fold(0u32, |n, &c| n * 10 + u32::from(c - b'0'))
}

/// dd.mm.yyyy, dd/mm/yyyy, yyyy-mm-dd with a plausible birth year.
fn is_date(s: &[u8], lens: &[usize]) -> bool {
    let valid = |year: u32, month: u32, day: u32| {
        (1900..=2100).contains(&year) && crate::pii_masker::detectors::valid_date(year, month, day)
    };
    match lens {
        [1 | 2, 1 | 2, 4] => {
            let (d, rest) = s.split_at(lens[0]);
            let (m, y) = rest.split_at(lens[1]);
            let (d, m, y) = (decimal(d), decimal(m), decimal(y));
            // Day first, or month first as the US writes it ("04/15/1985").
            valid(y, m, d) || valid(y, d, m)
        }
        [4, 1 | 2, 1 | 2] => {
            let (y, rest) = s.split_at(4);
            let (m, d) = rest.split_at(lens[1]);
            valid(decimal(y), decimal(m), decimal(d))
        }
        _ => false,
    }
}

/// ITU country calling codes (1–3 digits) at the start of `s`.
fn country_code(s: &[u8]) -> Option<usize> {
    const CODES: &[&[u8]] = &[
        b"1", b"7", b"20", b"27", b"30", b"31", b"32", b"33", b"34", b"36", b"39", b"40", b"41",
        b"43", b"44", b"45", b"46", b"47", b"48", b"49", b"51", b"52", b"53", b"54", b"55", b"56",
        b"57", b"58", b"60", b"61", b"62", b"63", b"64", b"65", b"66", b"81", b"82", b"84", b"86",
        b"91", b"92", b"93", b"94", b"95", b"98", b"212", b"213", b"216", b"218", b"220", b"234",
        b"254", b"255", b"351", b"352", b"353", b"354", b"355", b"356", b"357", b"358", b"359",
        b"370", b"371", b"372", b"373", b"374", b"375", b"380", b"381", b"382", b"385", b"386",
        b"387", b"389", b"420", b"421", b"423", b"852", b"886", b"961", b"962", b"963", b"964",
        b"965", b"966", b"971", b"972", b"973", b"974", b"994", b"995", b"996", b"998",
    ];
    CODES
        .iter()
        .find(|code| s.starts_with(code))
        .map(|code| code.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every month's name, as written in any case and with its own letters (Turkish capitals, accents),
    /// passes the two-byte filter in front of the month look-up; the words after the benchmark's small
    /// numbers do not.
    #[test]
    fn the_month_filter_lets_every_written_month_through() {
        let written = [
            "Ocak",
            "ŞUBAT",
            "Şubat",
            "şubat",
            "Mart",
            "Nisan",
            "Mayıs",
            "MAYIS",
            "Haziran",
            "Temmuz",
            "Ağustos",
            "AĞUSTOS",
            "Eylül",
            "EYLÜL",
            "Ekim",
            "Kasım",
            "KASIM",
            "Aralık",
            "ARALIK",
            "März",
            "MÄRZ",
            "Février",
            "FÉVRIER",
            "août",
            "Août",
            "décembre",
            "Décembre",
            "Juli",
            "Sept",
            "Dez",
        ];
        for name in MONTHS
            .iter()
            .flat_map(|names| names.iter())
            .copied()
            .chain(written)
        {
            let (upper, title) = (name.to_uppercase(), super::super::context::title(name));
            for form in [name, upper.as_str(), title.as_str()] {
                assert!(may_begin_month(form.as_bytes(), 0), "{form}");
            }
        }
        for word in ["adet", "kutu", "sayfadır", "iş", "TL", "x", "", "12"] {
            assert!(!may_begin_month(word.as_bytes(), 0), "{word}");
        }
    }
}
