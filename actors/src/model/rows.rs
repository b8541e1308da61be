//! A table's rows held compactly: every cell's text in one buffer, with where each cell and each row
//! ends. A table read from a large CSV or spreadsheet holds millions of cells; as a `Vec` of `Vec` of
//! `String` each cell cost a string header and an allocation of its own besides its text (some 56
//! bytes over a cell's 10 to 20), so a table took four to six times its text in memory, in the
//! extraction worker, in the server that masks it, and again in its masked copy. Here a cell costs
//! its text and one offset. It serialises as rows of strings, as the API has always shown them.

use serde::de::{SeqAccess, Visitor};
use serde::ser::SerializeSeq;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

#[derive(Clone, Default, PartialEq, Eq)]
pub struct Rows {
    /// Every cell's text, one after another.
    text: String,
    /// Where each cell ends in `text`.
    cell_ends: Vec<usize>,
    /// Where each row ends in `cell_ends`.
    row_ends: Vec<usize>,
}

/// One row of a [`Rows`]: its cells as `&str`.
#[derive(Clone, Copy)]
pub struct Row<'a> {
    rows: &'a Rows,
    /// The row's cells are `cell_ends[cells.0..cells.1]`.
    cells: (usize, usize),
}

impl Rows {
    pub fn new() -> Rows {
        Rows::default()
    }

    /// Appends a row of `cells`.
    pub fn push<S: AsRef<str>>(&mut self, cells: impl IntoIterator<Item = S>) {
        for cell in cells {
            self.text.push_str(cell.as_ref());
            self.cell_ends.push(self.text.len());
        }
        self.row_ends.push(self.cell_ends.len());
    }

    /// How many rows.
    pub fn len(&self) -> usize {
        self.row_ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.row_ends.is_empty()
    }

    /// The row at `index`.
    pub fn get(&self, index: usize) -> Option<Row<'_>> {
        (index < self.len()).then(|| self.row(index))
    }

    /// The row at `index`, which is less than `len()`.
    fn row(&self, index: usize) -> Row<'_> {
        let start = match index {
            0 => 0,
            _ => self.row_ends[index - 1],
        };
        Row {
            rows: self,
            cells: (start, self.row_ends[index]),
        }
    }

    /// The rows in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Row<'_>> + '_ {
        (0..self.len()).map(|index| self.row(index))
    }

    /// Takes out the first row (a header found after the rows were read); the rest move up.
    pub fn remove_first(&mut self) -> Option<Vec<String>> {
        let first = self.get(0)?.to_vec();
        let (cells, bytes) = (
            self.row_ends[0],
            first.iter().map(String::len).sum::<usize>(),
        );
        self.text.drain(..bytes);
        self.cell_ends.drain(..cells);
        for end in &mut self.cell_ends {
            *end -= bytes;
        }
        self.row_ends.remove(0);
        for end in &mut self.row_ends {
            *end -= cells;
        }
        Some(first)
    }

    /// The rows as vectors of strings (for code that edits them, and for tests).
    pub fn to_vec(&self) -> Vec<Vec<String>> {
        self.iter().map(|row| row.to_vec()).collect()
    }

    /// Frees what the buffers hold beyond their contents.
    pub fn shrink_to_fit(&mut self) {
        self.text.shrink_to_fit();
        self.cell_ends.shrink_to_fit();
        self.row_ends.shrink_to_fit();
    }
}

impl<'a> Row<'a> {
    /// How many cells.
    pub fn len(&self) -> usize {
        self.cells.1 - self.cells.0
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The cell at `index`.
    pub fn get(&self, index: usize) -> Option<&'a str> {
        if index >= self.len() {
            return None;
        }
        let at = self.cells.0 + index;
        let start = match at {
            0 => 0,
            _ => self.rows.cell_ends[at - 1],
        };
        self.rows.text.get(start..self.rows.cell_ends[at])
    }

    /// The cells in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &'a str> + 'a {
        let row = *self;
        (0..row.len()).map(move |index| row.get(index).unwrap_or_default())
    }

    pub fn to_vec(&self) -> Vec<String> {
        self.iter().map(str::to_string).collect()
    }
}

impl std::fmt::Debug for Rows {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl std::fmt::Debug for Row<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<S: AsRef<str>> FromIterator<Vec<S>> for Rows {
    fn from_iter<I: IntoIterator<Item = Vec<S>>>(rows: I) -> Rows {
        let mut all = Rows::new();
        for row in rows {
            all.push(row);
        }
        all
    }
}

impl From<Vec<Vec<String>>> for Rows {
    fn from(rows: Vec<Vec<String>>) -> Rows {
        rows.into_iter().collect()
    }
}

impl<S: AsRef<str>, const N: usize, const M: usize> PartialEq<[[S; M]; N]> for Rows {
    fn eq(&self, other: &[[S; M]; N]) -> bool {
        self.len() == N
            && self
                .iter()
                .zip(other)
                .all(|(row, cells)| row.iter().eq(cells.iter().map(AsRef::as_ref)))
    }
}

impl Serialize for Rows {
    fn serialize<Z: Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
        let mut rows = serializer.serialize_seq(Some(self.len()))?;
        for row in self.iter() {
            rows.serialize_element(&row)?;
        }
        rows.end()
    }
}

impl Serialize for Row<'_> {
    fn serialize<Z: Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for Rows {
    /// Straight into the buffers, cell by cell: never as vectors of strings first.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Rows, D::Error> {
        struct RowsVisitor;
        impl<'de> Visitor<'de> for RowsVisitor {
            type Value = Rows;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("rows of strings")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Rows, A::Error> {
                let mut rows = Rows::new();
                while seq.next_element_seed(RowSeed(&mut rows))?.is_some() {}
                rows.shrink_to_fit();
                Ok(rows)
            }
        }
        deserializer.deserialize_seq(RowsVisitor)
    }
}

/// Reads one row's cells into the buffers.
struct RowSeed<'r>(&'r mut Rows);

impl<'de> serde::de::DeserializeSeed<'de> for RowSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for RowSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a row of strings")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let rows = self.0;
        while seq.next_element_seed(CellSeed(rows))?.is_some() {}
        rows.row_ends.push(rows.cell_ends.len());
        Ok(())
    }
}

/// Appends one cell's text to the buffer (borrowed from the input when the format allows).
struct CellSeed<'r>(&'r mut Rows);

impl<'de> serde::de::DeserializeSeed<'de> for CellSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for CellSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a cell's text")
    }
    fn visit_str<E: serde::de::Error>(self, cell: &str) -> Result<(), E> {
        self.0.text.push_str(cell);
        self.0.cell_ends.push(self.0.text.len());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Rows {
        vec![
            vec!["Ad".to_string(), "Şehir".to_string()],
            vec![],
            vec!["Ayşe".to_string(), String::new(), "tab\there".to_string()],
        ]
        .into()
    }

    #[test]
    fn rows_keep_their_cells_and_read_back_as_written() {
        let rows = sample();
        assert_eq!(rows.len(), 3);
        assert_eq!(rows.get(0).and_then(|r| r.get(1)), Some("Şehir"));
        assert!(rows.get(1).is_some_and(|r| r.is_empty()));
        assert_eq!(
            rows.get(2).map(|r| r.to_vec()).unwrap_or_default(),
            ["Ayşe", "", "tab\there"]
        );
        assert!(rows.get(3).is_none() && rows.get(2).and_then(|r| r.get(3)).is_none());
        let json = serde_json::to_string(&rows).expect("json");
        assert_eq!(json, r#"[["Ad","Şehir"],[],["Ayşe","","tab\there"]]"#);
        assert_eq!(serde_json::from_str::<Rows>(&json).expect("rows"), rows);
        let packed = rmp_serde::to_vec_named(&rows).expect("msgpack");
        assert_eq!(rmp_serde::from_slice::<Rows>(&packed).expect("rows"), rows);
        assert!(serde_json::from_str::<Rows>(r#"[["a", 1]]"#).is_err());
    }

    #[test]
    fn the_first_row_comes_out_and_the_rest_move_up() {
        let mut rows = sample();
        assert_eq!(
            rows.remove_first(),
            Some(vec!["Ad".to_string(), "Şehir".to_string()])
        );
        assert_eq!(rows.to_vec(), [vec![], vec!["Ayşe", "", "tab\there"]]);
        assert_eq!(rows.remove_first(), Some(vec![]));
        assert_eq!(rows.remove_first().map(|r| r.len()), Some(3));
        assert!(rows.is_empty() && rows.remove_first().is_none());
    }
}
