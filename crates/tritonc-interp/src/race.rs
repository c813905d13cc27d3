//! Race detection over a launch streamed in chunks of programs: each chunk's access logs
//! are checked against each other and against the [`Footprint`]s of the chunks before,
//! then folded into those footprints and dropped. What is kept is proportional to the
//! bytes accessed (and far less for regular grids), not to the number of programs.

use rayon::prelude::*;
use tritonc_ir::{Function, OpId};

use crate::error::{RtResult, RuntimeError, RuntimeErrorKind};
use crate::footprint::{Footprint, Toucher};
use crate::memory::{buffer_name, AccessLog, Memory};

/// One range of a program's access, for the race sweep.
#[derive(Clone, Copy)]
struct Range {
    start: u64,
    end: u64,
    prog: u64,
    op: OpId,
}

impl Range {
    fn at(addr: u64, t: Toucher<OpId>) -> Range {
        Range {
            start: addr,
            end: addr + 1,
            prog: t.prog,
            op: t.op,
        }
    }
}

/// What the finished chunks of a launch accessed.
#[derive(Default)]
pub(crate) struct RaceCheck {
    /// Every byte written, with its (only) writer.
    writes: Footprint<OpId>,
    /// Every byte read, with its first reader.
    reads: Footprint<OpId>,
}

impl RaceCheck {
    /// Checks the logs of programs `first..first + logs.len()` (linear ids) against each
    /// other and against every earlier chunk, then keeps their footprint. Reports the
    /// first race in a fixed order: write/write within the chunk, then with earlier
    /// chunks; then writes over bytes earlier chunks read; then the first racing read in
    /// program order, within the chunk and then with earlier chunks' writes.
    pub(crate) fn chunk(
        &mut self,
        func: &Function,
        logs: &[AccessLog],
        first: u64,
        memory: &Memory,
        pid_of: impl Fn(u64) -> [u32; 3],
    ) -> RtResult<()> {
        let race = |what: &'static str, a: Range, b: Range, addr: u64| {
            let (later, earlier) = if a.prog >= b.prog { (a, b) } else { (b, a) };
            let mut e = RuntimeError::new(RuntimeErrorKind::Race {
                what,
                other_program: pid_of(earlier.prog),
                other_loc: func.op(earlier.op).loc.clone(),
                address: addr,
                buffer: buffer_name(memory, addr),
            });
            e.loc = Some(func.op(later.op).loc.clone());
            e.op_name = Some(func.kind(later.op).name());
            e.program = Some(pid_of(later.prog));
            e
        };
        // Every range of every program, in program order (collected in parallel).
        let ranges = |write: bool| -> Vec<Range> {
            logs.par_iter()
                .enumerate()
                .flat_map_iter(|(i, log)| {
                    log.accesses
                        .iter()
                        .filter(move |a| a.write == write)
                        .map(move |a| Range {
                            start: a.start,
                            end: a.end,
                            prog: first + i as u64,
                            op: a.op,
                        })
                })
                .collect()
        };
        let mut writes = ranges(true);
        let reads = ranges(false);
        // A stable sort: ties keep program order, so the race reported is the same on
        // any number of threads.
        writes.par_sort_by_key(|r| (r.start, r.prog));
        // Sweep keeping the furthest-reaching range and the furthest from another program.
        let mut best: Option<Range> = None;
        let mut best_other: Option<Range> = None;
        for &w in &writes {
            if let Some(b) = best {
                if b.prog != w.prog && w.start < b.end {
                    return Err(race("write/write", w, b, w.start));
                }
                if let Some(o) = best_other {
                    if o.prog != w.prog && w.start < o.end {
                        return Err(race("write/write", w, o, w.start));
                    }
                }
            }
            match best {
                Some(b) if w.end <= b.end => {
                    if w.prog != b.prog && best_other.is_none_or(|o| w.end > o.end) {
                        best_other = Some(w);
                    }
                }
                Some(b) => {
                    if b.prog != w.prog {
                        best_other = Some(b);
                    }
                    best = Some(w);
                }
                None => best = Some(w),
            }
        }
        let earlier = |fp: &Footprint<OpId>, rs: &[Range]| {
            rs.par_iter()
                .find_map_first(|&r| fp.first_overlap(r.start, r.end).map(|(a, t)| (r, a, t)))
        };
        if let Some((w, addr, t)) = earlier(&self.writes, &writes) {
            return Err(race("write/write", w, Range::at(addr, t), addr));
        }
        if let Some((w, addr, t)) = earlier(&self.reads, &writes) {
            return Err(race("write/read", w, Range::at(addr, t), addr));
        }
        // Writes of different programs are now disjoint: merge into segments.
        let mut segs: Vec<Range> = Vec::new();
        for &w in &writes {
            match segs.last_mut() {
                Some(s) if w.start <= s.end && s.prog == w.prog => s.end = s.end.max(w.end),
                _ => segs.push(w),
            }
        }
        // The first racing read in program order, whichever thread finds it.
        let racing = reads.par_iter().find_map_first(|r| {
            let mut i = segs.partition_point(|s| s.end <= r.start);
            while i < segs.len() && segs[i].start < r.end {
                let s = segs[i];
                if s.prog != r.prog {
                    return Some((*r, s));
                }
                i += 1;
            }
            None
        });
        if let Some((r, s)) = racing {
            return Err(race("write/read", r, s, r.start.max(s.start)));
        }
        if let Some((r, addr, t)) = earlier(&self.writes, &reads) {
            return Err(race("write/read", r, Range::at(addr, t), addr));
        }
        for w in &writes {
            self.writes.insert(w.start, w.end, w.prog, w.op);
        }
        let mut reads = reads;
        reads.par_sort_by_key(|r| (r.start, r.prog));
        for r in &reads {
            self.reads.insert(r.start, r.end, r.prog, r.op);
        }
        Ok(())
    }
}
