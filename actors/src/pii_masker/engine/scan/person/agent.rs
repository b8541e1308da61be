//! "<Ad Soyad> tarafından": two or three capitalised words before Turkish "by".

use super::*;

impl<'t> Scanner<'t> {
    /// "<Ad Soyad> tarafından" (Turkish "by <person>"): two or three capitalised words right before it.
    // Out of `run`'s loop (see `tables`).
    #[inline(never)]
    pub(in crate::pii_masker::engine::scan) fn agents(&mut self) {
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
            // "Garanti Bankası tarafından", "Aras Kargo tarafından": an organisation.
            if words[..capitalised]
                .iter()
                .any(|w| lexicon::not_a_person(&text::fold(w), false))
            {
                continue;
            }
            if capitalised >= 2 && self.reads_as_name(spans[capitalised - 1].0, spans[0].1) {
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
}
