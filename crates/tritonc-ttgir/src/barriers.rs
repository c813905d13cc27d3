//! The `tritonc-place-barriers` pass: a `gpu.barrier` before every op whose shared-memory
//! access would otherwise race with an access of another thread before it (Triton's
//! `Membar` analysis), and nowhere else.
//!
//! Each op's accesses are byte intervals of the kernel's shared memory, in the order the
//! op makes them:
//! - a shared buffer (`ttg.local_alloc`, placed by `tritonc-allocate-shared`) is read by
//!   `ttg.local_load` and by a dot whose operand such a load gives, written by
//!   `ttg.local_store` and by a `ttg.local_alloc` with an initial block, and written
//!   asynchronously by `ttg.async_copy_global_to_local` — those writes become visible
//!   writes at a `ttg.async_wait` (and stop being in flight at `{num = 0}`); views
//!   (`ttg.memdesc_index`) stand for their whole allocation;
//! - an op that stages values through scratch ([`crate::scratch`]) writes the scratch,
//!   synchronizes inside the op, and reads it back. Scratch starts after every buffer
//!   (at their end rounded up to 128 bytes) while any buffer is live, at 0 otherwise,
//!   and runs to the end of shared memory;
//! - `gpu.barrier` synchronizes.
//!
//! Walking the function in order with the reads and writes not yet followed by a barrier,
//! an op needs a barrier before it when one of its accesses before its own first
//! synchronization reads bytes written since the last barrier, or writes bytes read or
//! written since then (an asynchronous copy's write counts as a write). `scf.if` joins
//! both branches; a loop's body starts from its entry state joined with its own end state
//! until that no longer changes, so a hazard across iterations puts the barrier inside
//! the body, where it is needed, and the state after a loop is the entry's joined with
//! the body's end.

use std::collections::{BTreeSet, HashMap, HashSet};

use tritonc_ir::{Builder, Function, OpId, OpKind, RegionId, Value};

use crate::pipeline::{GpuOptions, GpuPass};
use crate::scratch::scratch_ops;
use crate::{LayoutAssignment, TtgirError};

/// Places the barriers of a function's shared-memory accesses.
#[derive(Debug, Clone, Copy, Default)]
pub struct PlaceBarriers;

/// Bytes `[start, end)` of shared memory.
type Interval = (u64, u64);

/// Scratch runs to the end of shared memory.
const END: u64 = u64::MAX;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Access {
    Read(Interval),
    Write(Interval),
    /// An asynchronous copy's write: in flight until a `ttg.async_wait`.
    AsyncWrite(Interval),
    /// A barrier inside the op (or the op is one).
    Sync,
    /// `ttg.async_wait`: copies in flight are done for the thread that issued them;
    /// `all` when no group stays outstanding.
    Complete { all: bool },
}

/// Accesses since the last barrier.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct State {
    reads: BTreeSet<Interval>,
    writes: BTreeSet<Interval>,
    in_flight: BTreeSet<Interval>,
}

impl State {
    fn join(&mut self, other: &State) {
        self.reads.extend(&other.reads);
        self.writes.extend(&other.writes);
        self.in_flight.extend(&other.in_flight);
    }

    fn synchronize(&mut self) {
        self.reads.clear();
        self.writes.clear();
    }

    /// Whether `access` races with what this state holds.
    fn conflicts(&self, access: Access) -> bool {
        let overlaps = |set: &BTreeSet<Interval>, (s, e): Interval| {
            set.iter().any(|&(a, b)| a < e && s < b)
        };
        match access {
            Access::Read(i) => overlaps(&self.writes, i),
            Access::Write(i) | Access::AsyncWrite(i) => {
                overlaps(&self.reads, i) || overlaps(&self.writes, i)
            }
            Access::Sync | Access::Complete { .. } => false,
        }
    }

    fn apply(&mut self, access: Access) {
        match access {
            Access::Read(i) => {
                self.reads.insert(i);
            }
            Access::Write(i) => {
                self.writes.insert(i);
            }
            Access::AsyncWrite(i) => {
                self.in_flight.insert(i);
            }
            Access::Sync => self.synchronize(),
            Access::Complete { all } => {
                self.writes.extend(self.in_flight.iter().copied());
                if all {
                    self.in_flight.clear();
                }
            }
        }
    }
}

impl GpuPass for PlaceBarriers {
    fn name(&self) -> &'static str {
        "tritonc-place-barriers"
    }

    fn run(&self, func: &mut Function, options: &GpuOptions) -> Result<(), TtgirError> {
        let layouts =
            LayoutAssignment::from_gpu_ir(func, options.num_warps, options.warp_size())?;
        let before = barrier_positions(func, &layouts)?;
        for op in before {
            let loc = func.op(op).loc.clone();
            let mut b = Builder::before(func, op);
            b.set_loc(loc);
            b.insert(OpKind::Barrier, &[], Vec::new());
        }
        Ok(())
    }
}

/// The ops of `func` that need a barrier just before them, in walk order.
pub fn barrier_positions(
    func: &Function,
    layouts: &LayoutAssignment,
) -> Result<Vec<OpId>, TtgirError> {
    let analysis = Analysis::new(func, layouts)?;
    let mut out = Vec::new();
    analysis.block(func.entry_block(), State::default(), &mut Some(&mut out));
    let mut seen = HashSet::new();
    out.retain(|op| seen.insert(*op));
    Ok(out)
}

struct Analysis<'f> {
    func: &'f Function,
    scratch: HashSet<OpId>,
    /// Where each scratch op's scratch starts.
    scratch_start: HashMap<OpId, u64>,
}

impl<'f> Analysis<'f> {
    fn new(func: &'f Function, layouts: &LayoutAssignment) -> Result<Self, TtgirError> {
        let scratch = scratch_ops(func, layouts);
        // Scratch moves past every buffer while one is live (the back end's rule).
        let mut buffers_end = 0u64;
        for op in func.walk() {
            if matches!(func.kind(op), OpKind::LocalAlloc { .. }) {
                let (s, e) = buffer_of(func, func.op(op).results()[0]);
                if e == END {
                    return Err(TtgirError {
                        message: "a shared buffer was not placed".into(),
                        span: func.op(op).loc.known_span(),
                    });
                }
                buffers_end = buffers_end.max(e.max(s));
            }
        }
        let buffers_end = buffers_end.next_multiple_of(128);
        let mut live = 0u32;
        let mut scratch_start = HashMap::new();
        for op in func.walk() {
            match func.kind(op) {
                OpKind::LocalAlloc { .. } => live += 1,
                OpKind::LocalDealloc => live = live.saturating_sub(1),
                _ => {}
            }
            if scratch.contains(&op) {
                scratch_start.insert(op, if live > 0 { buffers_end } else { 0 });
            }
        }
        Ok(Analysis {
            func,
            scratch,
            scratch_start,
        })
    }

    /// The accesses of a non-control op, in order.
    fn accesses(&self, op: OpId) -> Vec<Access> {
        let f = self.func;
        let data = f.op(op);
        let mut out = Vec::new();
        if self.scratch.contains(&op) {
            let scratch = (self.scratch_start[&op], END);
            out.extend([Access::Write(scratch), Access::Sync, Access::Read(scratch)]);
        }
        let buffer = |i: usize| buffer_of(f, data.operands()[i]);
        match f.kind(op) {
            OpKind::LocalAlloc { .. } if !data.operands().is_empty() => {
                out.push(Access::Write(buffer_of(f, data.results()[0])))
            }
            OpKind::LocalStore => out.push(Access::Write(buffer(1))),
            OpKind::LocalLoad => out.push(Access::Read(buffer(0))),
            OpKind::Dot { .. } => {
                for i in 0..2 {
                    if let Some(load) = f.defining_op(data.operands()[i]) {
                        if matches!(f.kind(load), OpKind::LocalLoad) {
                            out.push(Access::Read(buffer_of(f, f.op(load).operands()[0])));
                        }
                    }
                }
            }
            OpKind::AsyncCopyGlobalToLocal { .. } => out.push(Access::AsyncWrite(buffer(1))),
            OpKind::AsyncWait { num } => out.push(Access::Complete { all: *num == 0 }),
            OpKind::Barrier => out.push(Access::Sync),
            _ => {}
        }
        out
    }

    /// Walks `block` from `state`; records the ops that need a barrier in `out`.
    fn block(
        &self,
        block: tritonc_ir::BlockId,
        mut state: State,
        out: &mut Option<&mut Vec<OpId>>,
    ) -> State {
        let f = self.func;
        for &op in f.block(block).ops() {
            let regions = f.op(op).regions().to_vec();
            state = match f.kind(op) {
                OpKind::For { .. } => self.repeat(&regions, None, state, out),
                OpKind::While => self.repeat(&regions[1..], Some(regions[0]), state, out),
                OpKind::If => {
                    let mut then = self.region(regions[0], state.clone(), out);
                    let other = self.region(regions[1], state, out);
                    then.join(&other);
                    then
                }
                _ => {
                    let accesses = self.accesses(op);
                    let first_sync = accesses
                        .iter()
                        .position(|a| *a == Access::Sync)
                        .unwrap_or(accesses.len());
                    if accesses[..first_sync].iter().any(|&a| state.conflicts(a)) {
                        if let Some(out) = out.as_deref_mut() {
                            out.push(op);
                        }
                        state.synchronize();
                    }
                    for a in accesses {
                        state.apply(a);
                    }
                    state
                }
            };
        }
        state
    }

    fn region(&self, region: RegionId, mut state: State, out: &mut Option<&mut Vec<OpId>>) -> State {
        for &b in self.func.region(region).blocks() {
            state = self.block(b, state, out);
        }
        state
    }

    /// A loop: `cond` (a `scf.while`'s before-region, where the loop may leave) then
    /// `body`, repeated. The body starts from the entry state joined with its own end
    /// state until that is stable; only that last walk records barriers.
    fn repeat(
        &self,
        body: &[RegionId],
        cond: Option<RegionId>,
        entry: State,
        out: &mut Option<&mut Vec<OpId>>,
    ) -> State {
        let once = |start: State, out: &mut Option<&mut Vec<OpId>>| {
            let at_cond = match cond {
                Some(c) => self.region(c, start, out),
                None => start,
            };
            let mut end = at_cond.clone();
            for &r in body {
                end = self.region(r, end, out);
            }
            (at_cond, end)
        };
        let mut start = entry.clone();
        loop {
            let (_, end) = once(start.clone(), &mut None);
            let mut next = start.clone();
            next.join(&end);
            if next == start {
                break;
            }
            start = next;
        }
        let (at_cond, end) = once(start, out);
        match cond {
            // A `scf.while` leaves after its condition.
            Some(_) => at_cond,
            None => {
                let mut exit = entry;
                exit.join(&end);
                exit
            }
        }
    }
}

/// The bytes of the allocation behind buffer (or view) `v`; all of shared memory when it
/// cannot be traced to a placed `ttg.local_alloc`.
fn buffer_of(func: &Function, v: Value) -> Interval {
    let mut v = v;
    loop {
        let Some(def) = func.defining_op(v) else {
            return (0, END);
        };
        match func.kind(def) {
            OpKind::MemDescIndex => v = func.op(def).operands()[0],
            OpKind::LocalAlloc { offset: Some(offset) } => {
                let bytes = func.value_type(v).memdesc().and_then(|m| m.bytes());
                return match bytes {
                    Some(n) => (u64::from(*offset), u64::from(*offset) + n),
                    None => (0, END),
                };
            }
            _ => return (0, END),
        }
    }
}
