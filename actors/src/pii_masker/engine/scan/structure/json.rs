//! JSON arrays of rows under the column names of their object or first row.

use super::*;

impl<'t> Scanner<'t> {
    /// Arrays of rows in JSON, as a table's rows under its header: after a list of column names in
    /// the same object (`{"columns": ["id", "first_name"], "data": [[1, "Ayşe"], ...]}`, a table
    /// split as pandas writes it), or under a first row of names (`[["Ad Soyad", "Telefon"],
    /// ["Ayşe Kaya", ...]]`, a sheet's values as its API returns them).
    // A pass of its own, before the scan: read where the scan's loop meets a bracket instead, it
    // cost that loop 3 % of its time on text without any (its layout), for 2 % fewer instructions on
    // a masked FHIR file's placeholders.
    pub(in super::super) fn json_rows(&mut self) {
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
    pub(in super::super) fn json_rows_at(&mut self, open: usize, walk: &mut JsonWalk) {
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
        let cells_before = self.fields.cells.len();
        walk.reach = reader.read_rows(self, first, (b'[', b']'), b'"', true);
        // Cells of a table or statement further on came before these: in order again.
        self.cells_in_order(cells_before);
    }

    /// The column names that a JSON array of rows opening at `open` has in its object: the key
    /// before it, then one of [`JSON_COLUMN_KEYS`] earlier in the object (the walk's innermost), whose
    /// value is a list of strings or of objects with a `"name"` (into `columns`).
    pub(in super::super) fn json_column_list<'s>(
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
}

/// The keys of a JSON object's list of column names (`"columns": ["id", "first_name"]`, as pandas
/// writes a table split into columns and data).
pub(in super::super) const JSON_COLUMN_KEYS: [&[u8]; 6] = [
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
pub(in super::super) struct JsonWalk {
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
