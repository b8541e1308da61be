//! The name that signs a letter after its closing line ("Best regards,", "Saygılarımla,").

use super::*;

impl<'t> Scanner<'t> {
    /// A letter's closing that begins with the word at `i..end` ([`Word::Closing`]) at the start of
    /// its line ("Best regards,", "Saygılarımla,", "Mit freundlichen Grüßen"), and the name that signs
    /// it: alone on the next line (past one blank line), or after the closing's comma on its own line
    /// ("Thanks, John."). One word signs only when it is a known name: "Best,\nMarketing" is no one,
    /// nor is a team or a company ("Regards,\nThe Support Team"). Where the scan goes on.
    #[inline(never)]
    pub(in crate::pii_masker::engine::scan) fn signed_closing(
        &mut self,
        i: usize,
        end: usize,
    ) -> usize {
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
}
