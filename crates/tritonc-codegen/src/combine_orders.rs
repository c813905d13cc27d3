//! The order in which each cross-element combination of a compiled kernel runs: every
//! `tt.reduce` and `tt.scan` of the GPU IR with the schedule its operand's layout gives
//! (`tritonc_ttgir::ReductionSchedule`, `ScanSchedule`), as JSON for the bundle's
//! metadata (`reduction_layouts`).
//!
//! fp reductions are not associative, so the schedule decides the result's bits; it
//! depends on the target (wave64 on AMD, tensor-core accumulator layouts on sm_80+), so
//! a bundle records the one its code runs, and `tritonc verify`/`run --interpret` replay
//! the bundle's target's order (`tritonc_interp::ReductionOrderSource::BackendFor`).
//!
//! ```json
//! {"target": "sm_90", "warp_size": 32,
//!  "reductions": [{"at": "k.py:12:9", "axis": 1, "shape": [64, 128], "layout": "#ttg.blocked<…>",
//!                  "registers": [0, 1], "lanes": [[16, 8], …], "warps": []}],
//!  "scans": [{"at": …, "axis": 0, "reverse": false, "len": 1024,
//!             "steps": [["register", 1, 1], ["lane", 2, 1], …]}]}
//! ```
//! A butterfly step is `[xor_mask, axis_offset]`; a scan step is `[unit, axis_offset,
//! index_mask]`.

use serde_json::{json, Value as Json};
use tritonc_diagnostics::SourceMap;
use tritonc_ir::{Function, OpKind};
use tritonc_ttgir::{LayoutAssignment, ScanUnit};

use crate::target::Target;

/// The combine orders of `func` (GPU IR, laid out by `layouts`) on `target`.
pub fn combine_orders(
    func: &Function,
    layouts: &LayoutAssignment,
    sources: &SourceMap,
    target: &Target,
) -> Json {
    let at = |op| {
        let loc = &func.op(op).loc;
        let span = loc.call_sites.last().copied().or_else(|| loc.known_span())?;
        let file = sources.try_get(span.file)?;
        let lc = file.line_col(span.start);
        Some(format!(
            "{}:{}:{}",
            file.path().display(),
            lc.line + 1,
            lc.col_utf8 + 1
        ))
    };
    let mut reductions = Vec::new();
    let mut scans = Vec::new();
    for op in func.walk() {
        match func.kind(op) {
            OpKind::Reduce { axis } => {
                let input = func.op(op).operands()[0];
                let shape = func.value_type(input).known_shape();
                let layout = layouts.layout(input).map(|l| l.to_string());
                let schedule = layouts.reduction_schedule(func, op).ok();
                reductions.push(json!({
                    "at": at(op),
                    "axis": axis,
                    "shape": shape,
                    "layout": layout,
                    "registers": schedule.as_ref().map(|s| s.register_positions.clone()),
                    "lanes": schedule.as_ref().map(|s| s.lane_steps.iter()
                        .map(|b| [u64::from(b.xor_mask), b.axis_offset]).collect::<Vec<_>>()),
                    "warps": schedule.as_ref().map(|s| s.warp_steps.iter()
                        .map(|b| [u64::from(b.xor_mask), b.axis_offset]).collect::<Vec<_>>()),
                }));
            }
            OpKind::Scan { axis, reverse } => {
                let schedule = layouts.scan_schedule(func, op).ok();
                scans.push(json!({
                    "at": at(op),
                    "axis": axis,
                    "reverse": reverse,
                    "len": schedule.as_ref().map(|s| s.len),
                    "steps": schedule.as_ref().map(|s| s.steps.iter().map(|st| json!([
                        match st.unit {
                            ScanUnit::Register => "register",
                            ScanUnit::Lane => "lane",
                            ScanUnit::Warp => "warp",
                        },
                        st.axis_offset,
                        st.index_mask,
                    ])).collect::<Vec<_>>()),
                }));
            }
            _ => {}
        }
    }
    json!({
        "target": target.name(),
        "warp_size": target.warp_size(),
        "reductions": reductions,
        "scans": scans,
    })
}
