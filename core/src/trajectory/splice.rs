//! The token list ART splices sampled ids into, without ART's quadratic cost.
//!
//! ART keeps one Python list and, for every trainable message, searches it from the start for
//! the sentinel and replaces a slice (`list.index`, slice assignment, `pop`). [`SpliceList`] has
//! the same observable semantics — every index is a position in that one list — but stores it
//! as a materialised prefix (ids, mask, logprobs) plus the untouched rest of the template ids:
//! searching resumes where the prefix ends (the prefix is searched too only after sampled ids
//! brought a copy of the sentinel into it), and replacements happen at the end of the prefix,
//! so a history costs one pass however many messages it has.

/// The list being spliced: `prefix ++ template[cur..]` (template tokens: mask 0, logprob NaN).
pub(crate) struct SpliceList<'t> {
    pub ids: Vec<u32>,
    pub mask: Vec<u8>,
    pub logprobs: Vec<f64>,
    template: &'t [u32],
    cur: usize,
    sentinel: u32,
    /// The prefix may contain the sentinel (sampled or encoded ids brought one in).
    dirty: bool,
}

/// Where [`SpliceList::find_sentinel`] found the sentinel.
pub(crate) enum Found {
    /// At this index, in the template part (the normal case).
    Template(usize),
    /// At this index, inside ids spliced earlier (a sentinel collision).
    Spliced(usize),
    /// Nowhere.
    Missing,
}

impl<'t> SpliceList<'t> {
    pub fn new(template: &'t [u32], sentinel: u32, extra_capacity: usize) -> Self {
        let cap = template.len() + extra_capacity;
        SpliceList {
            ids: Vec::with_capacity(cap),
            mask: Vec::with_capacity(cap),
            logprobs: Vec::with_capacity(cap),
            template,
            cur: 0,
            sentinel,
            dirty: false,
        }
    }

    pub fn len(&self) -> usize {
        self.ids.len() + self.template.len() - self.cur
    }

    /// `list[i]`.
    pub fn get(&self, i: usize) -> Option<u32> {
        if i < self.ids.len() {
            Some(self.ids[i])
        } else {
            self.template.get(self.cur + (i - self.ids.len())).copied()
        }
    }

    /// `list[i]` with Python's negative indices; `None` is an `IndexError`.
    pub fn get_py(&self, i: isize) -> Option<u32> {
        let n = self.len() as isize;
        let j = if i < 0 { i + n } else { i };
        if j < 0 || j >= n {
            None
        } else {
            self.get(j as usize)
        }
    }

    /// `list.index(sentinel)`.
    pub fn find_sentinel(&mut self) -> Found {
        if self.dirty {
            if let Some(p) = self.ids.iter().position(|&t| t == self.sentinel) {
                return Found::Spliced(p);
            }
            self.dirty = false;
        }
        match self.template[self.cur..].iter().position(|&t| t == self.sentinel) {
            Some(p) => {
                self.materialize(self.cur + p);
                Found::Template(self.ids.len())
            }
            None => Found::Missing,
        }
    }

    /// Move template tokens into the prefix up to template index `to` (exclusive).
    fn materialize(&mut self, to: usize) {
        let to = to.min(self.template.len());
        if to > self.cur {
            let part = &self.template[self.cur..to];
            self.ids.extend_from_slice(part);
            self.mask.resize(self.mask.len() + part.len(), 0);
            self.logprobs.resize(self.logprobs.len() + part.len(), f64::NAN);
            self.cur = to;
        }
    }

    /// Make the prefix at least `n` long.
    fn materialize_len(&mut self, n: usize) {
        if n > self.ids.len() {
            let need = n - self.ids.len();
            self.materialize(self.cur + need);
        }
    }

    /// `list[start:end] = ids` (with `mask[start:end] = [1] * len(ids)` and
    /// `logprobs[start:end] = logprobs`, NaN when `logprobs` is `None`).
    pub fn replace(&mut self, start: usize, end: usize, ids: &[u32], logprobs: Option<&mut dyn Iterator<Item = f64>>) {
        debug_assert!(start <= end);
        self.materialize_len(end);
        let end = end.min(self.ids.len());
        let start = start.min(end);
        if ids.contains(&self.sentinel) {
            self.dirty = true;
        }
        if end == self.ids.len() {
            self.ids.truncate(start);
            self.mask.truncate(start);
            self.logprobs.truncate(start);
            self.ids.extend_from_slice(ids);
            self.mask.resize(start + ids.len(), 1);
            match logprobs {
                Some(it) => self.logprobs.extend(it),
                None => self.logprobs.resize(start + ids.len(), f64::NAN),
            }
        } else {
            self.ids.splice(start..end, ids.iter().copied());
            self.mask.splice(start..end, std::iter::repeat_n(1u8, ids.len()));
            match logprobs {
                Some(it) => {
                    let v: Vec<f64> = it.collect();
                    self.logprobs.splice(start..end, v);
                }
                None => {
                    self.logprobs.splice(start..end, std::iter::repeat_n(f64::NAN, ids.len()));
                }
            }
        }
        debug_assert_eq!(self.ids.len(), self.logprobs.len());
    }

    /// `list.pop(i)` on the three lists (`i` must be in range).
    pub fn remove(&mut self, i: usize) {
        if i == self.ids.len() && self.cur < self.template.len() {
            self.cur += 1;
            return;
        }
        self.materialize_len(i + 1);
        self.ids.remove(i);
        self.mask.remove(i);
        self.logprobs.remove(i);
    }

    /// The final lists.
    pub fn finish(mut self) -> (Vec<u32>, Vec<u8>, Vec<f64>) {
        self.materialize(self.template.len());
        (self.ids, self.mask, self.logprobs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A plain-Vec model of ART's list operations, to check SpliceList against.
    #[test]
    fn behaves_like_one_list() {
        let template = [1, 2, 9, 3, 4, 9, 5, 9];
        let mut l = SpliceList::new(&template, 9, 0);
        let Found::Template(s) = l.find_sentinel() else { panic!() };
        assert_eq!(s, 2);
        assert_eq!(l.get(s + 1), Some(3));
        l.replace(s, s + 1, &[7, 3], Some(&mut [-1.0, -2.0].into_iter()));
        // duplicate end-token removal: the token after the splice
        l.remove(s + 2);
        let Found::Template(s) = l.find_sentinel() else { panic!() };
        assert_eq!(s, 5);
        // <think>-like adjustment: replace 2 earlier tokens plus the sentinel
        l.replace(s - 2, s + 1, &[8, 9], None);
        assert!(matches!(l.find_sentinel(), Found::Spliced(4)));
        l.replace(4, 5, &[6], None);
        let Found::Template(s) = l.find_sentinel() else { panic!() };
        assert_eq!(l.get_py(-1), Some(9));
        l.replace(s, s + 1, &[], None);
        assert!(matches!(l.find_sentinel(), Found::Missing));
        let (ids, mask, lp) = l.finish();
        assert_eq!(ids, vec![1, 2, 7, 8, 6, 5]);
        assert_eq!(mask, vec![0, 0, 1, 1, 1, 0]);
        assert_eq!(lp[2], -1.0);
        assert!(lp[4].is_nan() && lp[0].is_nan());
    }
}
