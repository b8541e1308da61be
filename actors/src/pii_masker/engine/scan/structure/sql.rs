//! SQL: `INSERT` statements' rows under their columns, `CREATE TABLE` definitions, `COPY` blocks.

use super::*;
use crate::extractor_pool::starts_as_sql;

impl<'t> Scanner<'t> {
    /// The rows of SQL `INSERT` statements, as a table's rows under its header: each value is read
    /// under its column, named in the statement (`INSERT INTO t (first_name, phone) VALUES ('Ayşe',
    /// '0532 123 45 67'), (...);`) or, without a list, by the text's `CREATE TABLE t (...)` (a
    /// MySQL or SQLite dump).
    // Out of `run`'s loop (see `tables`).
    #[inline(never)]
    pub(in super::super) fn sql_rows(&mut self) {
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
        let searches = if starts_as_sql(self.text) { 2 } else { 1 };
        let text = self.text;
        let b = self.b;
        let cells_before = self.fields.cells.len();
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
}

/// The column list of a `COPY table (columns) FROM stdin;` line (a PostgreSQL dump) ending right before
/// `line_start`: where it starts and ends inside its parentheses.
pub(in super::super) fn copy_columns(b: &[u8], line_start: usize) -> Option<(usize, usize)> {
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

/// A `CREATE TABLE` statement's table and column names.
pub(in super::super) struct SqlTable<'t> {
    start: usize,
    columns: Vec<(usize, &'t str)>,
}

/// The `CREATE TABLE` statements of a text, by table name (in lower case), each name's in the
/// text's order.
#[derive(Default)]
pub(in super::super) struct SqlTables<'t>(rustc_hash::FxHashMap<Box<[u8]>, Vec<SqlTable<'t>>>);

impl<'t> SqlTables<'t> {
    /// The last definition of table `name` before `at`.
    fn before(&self, name: &str, at: usize) -> Option<&SqlTable<'t>> {
        let tables = self.0.get(name.to_ascii_lowercase().as_bytes())?;
        let count = tables.partition_point(|table| table.start < at);
        count.checked_sub(1).map(|last| &tables[last])
    }
}

/// The most bytes an SQL row or a table's definition is read over.
pub(in super::super) const SQL_STATEMENT_MAX: usize = 1 << 16;

/// The most levels of brackets a value of a row nests.
pub(in super::super) const ROW_DEPTH_MAX: usize = 8;

/// The most bytes an `INSERT` statement's column list is looked for in.
pub(in super::super) const SQL_COLUMNS_MAX: usize = 4096;

/// `at` moved over spaces and line breaks.
pub(in super::super) fn sql_space(b: &[u8], mut at: usize) -> usize {
    while b.get(at).is_some_and(u8::is_ascii_whitespace) {
        at += 1;
    }
    at
}

/// Whether the SQL keyword `word` (lower case) is written at `at`, in any case, as a whole word.
pub(in super::super) fn sql_keyword(b: &[u8], at: usize, word: &[u8]) -> bool {
    b.get(at..at + word.len())
        .is_some_and(|w| w.eq_ignore_ascii_case(word))
        && !b
            .get(at + word.len())
            .is_some_and(|&c| c.is_ascii_alphanumeric() || c == b'_')
}

/// `at` moved over those of the SQL keywords `words` written there, in their order, and the spaces
/// after each.
pub(in super::super) fn sql_words(b: &[u8], mut at: usize, words: &[&[u8]]) -> usize {
    for word in words {
        if sql_keyword(b, at, word) {
            at = sql_space(b, at + word.len());
        }
    }
    at
}

/// The (schema-qualified, quoted or bracketed) name at `at`: where it ends, and its last part
/// without quotes (`public.customers`, `` `shop`.`customers` ``, `[dbo].[customers]`).
pub(in super::super) fn sql_name(text: &str, at: usize) -> Option<(usize, &str)> {
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
pub(in super::super) fn sql_column_names<'t>(
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

/// The text's `CREATE TABLE` statements: each table's column names, by the table's name.
pub(in super::super) fn sql_created_tables(text: &str) -> SqlTables<'_> {
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
