//! Readers of a text's structure: a table's header gives its cells their context and their labels.
//! Tab-separated tables, delimited lines, SQL statements and JSON rows live in the rooms below.

mod json;
mod sql;
mod tables;

use super::*;
pub(super) use sql::*;

/// The most bytes a table's column label can be written in (its colon and spaces aside): each byte of
/// a folded label comes from at most three (`i` and a combining dot, a narrow no-break space).
pub(super) const LABEL_CELL_MAX: usize = 3 * lexicon::TABLE_LABEL_BYTES_MAX;

/// The column of a table's header whose cell is "Ad" (a given name) when another is "Soyad" or
/// "Soyadı" (a surname).
pub(super) fn first_name_beside_surname(cells: &[(usize, &str)]) -> Option<usize> {
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
pub(super) fn phone_shaped_cell(cell: &str) -> bool {
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

/// Where the string whose text starts at `at` closes (its `quote`), over backslash escapes and
/// doubled quotes (SQL's `''`, MySQL's `\\'`, JSON's `\\"`).
pub(super) fn string_end(b: &[u8], mut at: usize, limit: usize, quote: u8) -> Option<usize> {
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
pub(super) fn row_values<'t>(
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
pub(super) fn all_strings(b: &[u8], row: &[(usize, &str)], quote: u8) -> bool {
    row.iter().all(|&(start, value)| {
        start > 0 && b[start - 1] == quote && b.get(start + value.len()) == Some(&quote)
    })
}

/// What a table's header says of its columns, and the buffers to read it with: shared by
/// tab-separated tables (and the `COPY` lines of PostgreSQL dumps) and SQL `INSERT` statements.
#[derive(Default)]
pub(super) struct Columns<'t> {
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
        let mut types = crate::pii_masker::engine::context::key_types(&self.words, &mut self.found);
        // As written, for the keywords with punctuation ("T.C. Kimlik", "Doğ. Tar.", "4/b").
        if cell.contains(['.', '-', '/']) {
            types = TypeSet(
                types.0
                    | crate::pii_masker::engine::context::text_types(
                        cell.as_bytes(),
                        &mut self.found,
                    )
                    .0,
            );
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
                scanner
                    .fields
                    .cells
                    .push((start, start + cell.len(), given));
                scanner.fields.given_anywhere = true;
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
