//! Context look-up: the keywords around a candidate, and what a column's header or a field's key gives it.

use super::*;

impl<'t> Scanner<'t> {
    /// Whether the nearest label before a label-only value at `start` that supports `ty` is the
    /// value's own: another field's colon between them means it labels an earlier value ("Ehliyet
    /// No: 123456\nHesap No: 12345678": the account number is no licence number; "Sürücü Belgesi No:
    /// 123456  Bağ-Kur No: 7654321": the second is no licence number either). A value whose window
    /// holds its label after it only keeps its hit.
    pub(super) fn own_label(&mut self, ty: PiiType, start: usize) -> bool {
        if self.given_context(start).contains(ty) {
            return true;
        }
        let from = start.saturating_sub(self.near.before);
        self.near
            .keywords
            .nearest_end_before(ty, from, start)
            .is_none_or(|end| memchr::memchr_iter(b':', &self.b[end..start]).count() <= 1)
    }

    /// The types that a column's header or a field's key gives the value starting at `at` (see
    /// `cells` and `field`), whatever keywords stand near it.
    #[inline(always)]
    pub(super) fn given_context(&mut self, at: usize) -> TypeSet {
        if self.fields.given_anywhere {
            self.given_context_at(at)
        } else {
            TypeSet::default()
        }
    }

    #[inline(never)]
    pub(super) fn given_context_at(&mut self, at: usize) -> TypeSet {
        let mut types = TypeSet::default();
        if self.fields.field.0 <= at && at < self.fields.field.1 {
            types = self.fields.field.2;
        }
        if self.fields.cells.is_empty() {
            return types;
        }
        // `k`: the first cell that ends after `at` (the cursor is the last look-up's; look-ups mostly
        // move forward, or stay between the same two cells).
        let cells = &self.fields.cells;
        let mut k = self.fields.cell_cursor.min(cells.len());
        if k > 0 && cells[k - 1].1 > at {
            k = cells[..k].partition_point(|cell| cell.1 <= at);
        } else {
            while k < cells.len() && cells[k].1 <= at {
                k += 1;
            }
        }
        self.fields.cell_cursor = k;
        match cells.get(k) {
            Some(&(start, end, given)) if start <= at && at < end => TypeSet(types.0 | given.0),
            _ => types,
        }
    }

    /// Keyword-supported types around `start..end`, and those its column or field gives it.
    pub(super) fn context(&mut self, start: usize, end: usize) -> TypeSet {
        let (from, to) = if self.fields.given_anywhere {
            self.field_window(start, end)
        } else {
            (
                start.saturating_sub(self.near.before),
                end + self.near.after,
            )
        };
        let before = self
            .near
            .keywords
            .types_in_moving(&mut self.near.cursors.0, from, start);
        let after = self
            .near
            .keywords
            .types_in_moving(&mut self.near.cursors.1, end, to);
        TypeSet(before.0 | after.0 | self.given_context(start).0)
    }

    /// The context window of `start..end` once keys or headers have been met: a field's value's
    /// window is its key and itself. Out of line: only text with keys or headers comes here, and
    /// `context` stays as small as it was where numbers are judged.
    #[inline(never)]
    pub(super) fn field_window(&self, start: usize, end: usize) -> (usize, usize) {
        let (mut from, mut to) = (
            start.saturating_sub(self.near.before),
            end + self.near.after,
        );
        if self.fields.field.0 <= start && start < self.fields.field.1 {
            from = from.max(self.fields.field_key);
            to = to.min(self.fields.field.1.max(end));
        }
        (from, to)
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
    pub(super) fn rank_by_nearest_keyword(&mut self, from: usize) {
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
                        self.near.keywords.distance(
                            hit.ty,
                            hit.start,
                            hit.end,
                            self.near.before,
                            self.near.after,
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
            if next - run >= 2 {
                self.label_decides(run, next);
            }
            run = next;
        }
    }

    /// The label decides the type: of the hits of one span (`self.hits[run..next]`) that validate as
    /// their type, those whose own label stands right before the value (at most `LABEL_GAP` bytes before it, or its column's header
    /// or its field's key) take the best priorities, whatever the others' checksums: "PESEL:
    /// 02122401358" is a PESEL, although its digits are also an Istanbul phone number. Without such a
    /// label, or when every hit has one, the priorities stay.
    fn label_decides(&mut self, run: usize, next: usize) {
        const LABEL_GAP: usize = 12;
        let mut labelled = [false; 16];
        let count = (next - run).min(labelled.len());
        for (k, slot) in labelled.iter_mut().enumerate().take(count) {
            let hit = self.hits[run + k];
            // Only a hit that validates as its type (a checksum or a form of its own, not the
            // label alone): a valid TCKN behind "Bağ-Kur No" stays a national id.
            *slot = hit.confidence > C_LABEL
                && (self.given_context(hit.start).contains(hit.ty)
                    || self
                        .near
                        .keywords
                        .distance(hit.ty, hit.start, hit.end, self.near.before, 0)
                        .is_some_and(|gap| gap <= LABEL_GAP));
        }
        let labelled = &labelled[..count];
        if labelled.iter().all(|&l| l) || !labelled.iter().any(|&l| l) {
            return;
        }
        let mut slots: Vec<u8> = self.hits[run..run + count]
            .iter()
            .map(|h| h.priority)
            .collect();
        slots.sort_unstable();
        let mut order: Vec<(bool, u8, usize)> = (0..count)
            .map(|k| (!labelled[k], self.hits[run + k].priority, run + k))
            .collect();
        order.sort_unstable();
        for (&(_, _, index), slot) in order.iter().zip(slots) {
            self.hits[index].priority = slot;
        }
    }

    /// Whether the context of a span (its window's keywords, or its key or column) names `ty`.
    #[inline(always)]
    pub(super) fn span_says(
        &mut self,
        span: &Span<'_>,
        context: &mut Option<TypeSet>,
        ty: PiiType,
    ) -> bool {
        self.span_context(context, span.first, span.chain_len)
            .contains(ty)
    }

    /// The context of the span starting at group `first` of a chain of `chain_len` groups, looked up
    /// once (`context`) and only when a validator asks for it. Inlined where it is asked for: a
    /// closure out of line cost 1 % of the benchmark's instructions.
    #[inline(always)]
    pub(super) fn span_context(
        &mut self,
        context: &mut Option<TypeSet>,
        first: usize,
        chain_len: usize,
    ) -> TypeSet {
        if let Some(known) = *context {
            return known;
        }
        let found = self.context(
            self.chain.groups[first].start,
            self.chain.groups[chain_len - 1].end,
        );
        *context = Some(found);
        found
    }
}
