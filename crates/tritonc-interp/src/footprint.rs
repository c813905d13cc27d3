//! The bytes that the finished programs of a launch read or wrote, and which program
//! touched each of them first: what a streamed launch ([`crate::launch`]) keeps of its
//! earlier chunks of programs to find races with later ones.
//!
//! A footprint is a set of disjoint byte segments. A segment is either one program's
//! (`stride == 0`) or a run of equally long, back-to-back ranges of consecutive programs
//! through one op (`stride` bytes each: program `prog + k` owns bytes
//! `[start + k·stride, start + (k+1)·stride)`). Runs are what a grid of programs each
//! owning one contiguous block leaves (vector add, one row per program), so such a
//! launch's footprint stays a handful of segments however large its grid; irregular
//! accesses keep one segment per range, as many as the data has.

use std::collections::BTreeMap;

/// One segment, keyed by its first byte in [`Footprint`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Segment<O> {
    /// One past the last byte.
    end: u64,
    /// Bytes per program of a run; 0 for one program's segment.
    stride: u64,
    /// The (first) program's linear id.
    prog: u64,
    /// The op that touched it.
    op: O,
}

/// Who touched a byte first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Toucher<O> {
    /// The program's linear id.
    pub prog: u64,
    /// The op.
    pub op: O,
}

/// Byte segments with the program (and op, `O`) that touched each byte first.
#[derive(Debug, Clone)]
pub struct Footprint<O> {
    segs: BTreeMap<u64, Segment<O>>,
}

impl<O> Default for Footprint<O> {
    fn default() -> Self {
        Footprint {
            segs: BTreeMap::new(),
        }
    }
}

impl<O: Copy + Eq> Footprint<O> {
    /// An empty footprint.
    pub fn new() -> Self {
        Self::default()
    }

    /// Segments kept (for memory bounds in tests).
    pub fn segments(&self) -> usize {
        self.segs.len()
    }

    fn toucher(start: u64, s: &Segment<O>, addr: u64) -> Toucher<O> {
        let prog = if s.stride == 0 {
            s.prog
        } else {
            s.prog + (addr - start) / s.stride
        };
        Toucher { prog, op: s.op }
    }

    /// The lowest byte of `[start, end)` in the footprint, with who touched it.
    pub fn first_overlap(&self, start: u64, end: u64) -> Option<(u64, Toucher<O>)> {
        if let Some((&s, seg)) = self.segs.range(..=start).next_back() {
            if seg.end > start {
                return Some((start, Self::toucher(s, seg, start)));
            }
        }
        let (&s, seg) = self.segs.range(start..end).next()?;
        Some((s, Self::toucher(s, seg, s)))
    }

    /// Adds the bytes of `[start, end)` not yet in the footprint, as touched by `prog`
    /// through `op`.
    pub fn insert(&mut self, start: u64, end: u64, prog: u64, op: O) {
        let mut at = start;
        while at < end {
            // Skip what an earlier segment covers.
            if let Some((_, seg)) = self.segs.range(..=at).next_back() {
                if seg.end > at {
                    at = seg.end;
                    continue;
                }
            }
            let gap_end = self.segs.range(at..end).next().map_or(end, |(&s, _)| s);
            self.add_disjoint(at, gap_end, prog, op);
            at = gap_end;
        }
    }

    /// Adds `[start, end)`, which no segment overlaps, merging it into the segment that
    /// ends where it starts when both are one program's or one run's.
    fn add_disjoint(&mut self, start: u64, end: u64, prog: u64, op: O) {
        let len = end - start;
        if let Some((&ps, prev)) = self.segs.range(..start).next_back() {
            if prev.end == start && prev.op == op {
                let prev_len = prev.end - ps;
                let merged = if prev.stride == 0 && prev.prog == prog {
                    // The same program, contiguous.
                    Some(Segment { end, ..*prev })
                } else if prev.stride == 0 && prev.prog + 1 == prog && prev_len == len {
                    // Two consecutive programs with equal ranges start a run.
                    Some(Segment {
                        end,
                        stride: len,
                        ..*prev
                    })
                } else if prev.stride != 0
                    && prev.stride == len
                    && prev.prog + prev_len / prev.stride == prog
                {
                    // The run's next program.
                    Some(Segment { end, ..*prev })
                } else {
                    None
                };
                if let Some(m) = merged {
                    self.segs.insert(ps, m);
                    return;
                }
            }
        }
        self.segs.insert(
            start,
            Segment {
                end,
                stride: 0,
                prog,
                op,
            },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(i: u32) -> u32 {
        i
    }

    #[test]
    fn consecutive_programs_with_equal_blocks_form_one_run() {
        let mut f = Footprint::new();
        for p in 0..10_000u64 {
            f.insert(100 + p * 64, 100 + (p + 1) * 64, p, op(3));
        }
        assert_eq!(f.segments(), 1);
        let (addr, t) = f
            .first_overlap(100 + 5 * 64 + 10, 100 + 5 * 64 + 11)
            .unwrap();
        assert_eq!((addr, t.prog, t.op), (100 + 5 * 64 + 10, 5, op(3)));
        // A range starting in a gap before the run: its first byte in the run.
        let (addr, t) = f.first_overlap(0, 101).unwrap();
        assert_eq!((addr, t.prog), (100, 0));
        assert!(f.first_overlap(0, 100).is_none());
        assert!(f.first_overlap(100 + 10_000 * 64, u64::MAX).is_none());
        let (_, t) = f.first_overlap(100 + 10_000 * 64 - 1, u64::MAX).unwrap();
        assert_eq!(t.prog, 9_999);
    }

    #[test]
    fn an_irregular_block_breaks_the_run() {
        let mut f = Footprint::new();
        f.insert(0, 8, 0, op(1));
        f.insert(8, 16, 1, op(1));
        f.insert(16, 20, 2, op(1)); // shorter
        f.insert(20, 28, 3, op(1));
        f.insert(28, 36, 4, op(2)); // another op
        assert_eq!(f.segments(), 4);
        assert_eq!(f.first_overlap(12, 13).unwrap().1.prog, 1);
        assert_eq!(f.first_overlap(17, 18).unwrap().1.prog, 2);
        assert_eq!(f.first_overlap(21, 22).unwrap().1.prog, 3);
        assert_eq!(f.first_overlap(30, 31).unwrap().1.op, op(2));
    }

    #[test]
    fn a_byte_keeps_its_first_toucher() {
        let mut f = Footprint::new();
        f.insert(10, 20, 0, op(1));
        // Overlaps [10, 20) on both sides: only [0, 10) and [20, 30) are new.
        f.insert(0, 30, 7, op(2));
        assert_eq!(f.first_overlap(15, 16).unwrap().1.prog, 0);
        assert_eq!(f.first_overlap(5, 6).unwrap().1.prog, 7);
        assert_eq!(f.first_overlap(25, 26).unwrap().1.prog, 7);
        // Every program reading the same bytes keeps one segment.
        for p in 8..1000 {
            f.insert(0, 30, p, op(2));
        }
        assert_eq!(f.segments(), 3);
    }

    #[test]
    fn one_program_growing_a_range_stays_one_segment() {
        let mut f = Footprint::new();
        for i in 0..100u64 {
            f.insert(i * 4, i * 4 + 4, 9, op(0));
        }
        assert_eq!(f.segments(), 1);
        assert_eq!(f.first_overlap(396, 400).unwrap().1.prog, 9);
    }
}
