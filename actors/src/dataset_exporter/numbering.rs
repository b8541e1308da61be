//! `numbered` across a dataset: an execution masked under a policy whose `numbered_scope` is
//! `dataset` names each value by a keyed hash (`[MASKED_PERSON_NAME_#3f9a1c0b2d4e]`, the same for the
//! same value in every document of the tenant); a dataset build numbers those tokens per type in the
//! order they first appear across its rows (in the dataset's order of executions), so the same value
//! is the same `[MASKED_PERSON_NAME_2]` in every row of one dataset.

use std::sync::OnceLock;

use rustc_hash::FxHashMap;

use super::rows::DatasetRow;

fn token() -> &'static regex::Regex {
    static TOKEN: OnceLock<regex::Regex> = OnceLock::new();
    TOKEN.get_or_init(|| {
        regex::Regex::new(r"\[MASKED_([A-Z][A-Z0-9_]*?)_#([0-9a-f]{12})\]").expect("a valid regex")
    })
}

/// The numbers handed out so far in one dataset build.
#[derive(Default)]
pub(super) struct Numbering {
    /// (type, hash) -> number.
    given: FxHashMap<(String, String), u32>,
    /// type -> the last number given.
    last: FxHashMap<String, u32>,
}

impl Numbering {
    /// Numbers the tokens of a row: its text, and every string of its fields and tables.
    pub(super) fn apply(&mut self, row: &mut DatasetRow) {
        if let Some(text) = self.text(&row.text) {
            row.text = text;
        }
        self.json(&mut row.fields);
        self.json(&mut row.tables);
    }

    /// `text` with its tokens numbered; None when it has none (most texts: one substring search).
    fn text(&mut self, text: &str) -> Option<String> {
        memchr::memmem::find(text.as_bytes(), b"_#")?;
        let replaced = token().replace_all(text, |captures: &regex::Captures| {
            let ty = captures[1].to_string();
            let hash = captures[2].to_string();
            let last = &mut self.last;
            let number = *self.given.entry((ty.clone(), hash)).or_insert_with(|| {
                let next = last.entry(ty.clone()).or_insert(0);
                *next += 1;
                *next
            });
            format!("[MASKED_{ty}_{number}]")
        });
        Some(replaced.into_owned())
    }

    fn json(&mut self, value: &mut serde_json::Value) {
        match value {
            serde_json::Value::String(text) => {
                if let Some(numbered) = self.text(text) {
                    *text = numbered;
                }
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(|item| self.json(item)),
            serde_json::Value::Object(map) => map.values_mut().for_each(|item| self.json(item)),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_value_one_number_across_rows_each_type_counting_on_its_own() {
        let a = "[MASKED_PERSON_NAME_#aaaaaaaaaaaa]";
        let b = "[MASKED_PERSON_NAME_#bbbbbbbbbbbb]";
        let id = "[MASKED_NATIONAL_ID_TR_#0123456789ab]";
        let mut numbering = Numbering::default();
        let mut first = crate::dataset_exporter::rows::sample(1);
        first.text = format!("{a} wrote to {b}; {a} again, id {id}");
        first.tables = serde_json::json!([{"rows": [[b, "x"]]}]);
        numbering.apply(&mut first);
        assert_eq!(
            first.text,
            "[MASKED_PERSON_NAME_1] wrote to [MASKED_PERSON_NAME_2]; [MASKED_PERSON_NAME_1] again, id [MASKED_NATIONAL_ID_TR_1]"
        );
        assert_eq!(first.tables[0]["rows"][0][0], "[MASKED_PERSON_NAME_2]");
        let mut second = crate::dataset_exporter::rows::sample(2);
        second.text = format!("{b} and [MASKED_PERSON_NAME_#cccccccccccc], not [MASKED_EMAIL] nor [EMAIL_3f9a1c0b2d4e]");
        numbering.apply(&mut second);
        assert_eq!(
            second.text,
            "[MASKED_PERSON_NAME_2] and [MASKED_PERSON_NAME_3], not [MASKED_EMAIL] nor [EMAIL_3f9a1c0b2d4e]"
        );
    }
}
