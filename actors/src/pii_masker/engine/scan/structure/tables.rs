//! Tables rendered as tab-separated lines, and lines separated by ';' or '|' among prose.

use super::*;

impl<'t> Scanner<'t> {
    /// Tables rendered as tab-separated lines: a header cell such as "Ad Soyad" or "Adres" marks its
    /// column, and a two-cell row "Adı Soyadı<TAB>value" marks its value.
    // `tables`, `agents`, `word`, `colon` and `email` stay out of `run`'s loop: inlined, they made it
    // one large function whose layout cost 3-6 % of the benchmark's time (alternated runs), and ran
    // 1 % more instructions (callgrind).
    #[inline(never)]
    pub(in super::super) fn tables(&mut self) {
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
    pub(in super::super) fn cells_in_order(&mut self, before: usize) {
        if self.fields.cells.len() > before && !self.fields.cells.is_sorted_by_key(|cell| cell.0) {
            self.fields.cells.sort_by_key(|cell| cell.0);
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
    pub(in super::super) fn delimited_tables(&mut self) {
        let b = self.b;
        let cells_before = self.fields.cells.len();
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
    pub(in super::super) fn delimited_line(
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
}
