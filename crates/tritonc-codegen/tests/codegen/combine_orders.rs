//! The combine orders a compiled kernel records for its bundle (`combine_orders`): each
//! reduction's and scan's schedule in the layout the code uses.

use crate::from_source::compile_source;

const SOURCE: &str = "import triton
import triton.language as tl


@triton.jit
def kernel(x_ptr, y_ptr, z_ptr, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + r)
    tl.store(y_ptr, tl.sum(x, axis=0))
    tl.store(z_ptr + r, tl.cumsum(x, axis=0))
";

#[test]
fn every_reduction_and_scan_is_recorded_with_its_schedule() {
    let k = compile_source("red.py", SOURCE, "kernel", "*fp32:16, *fp32:16, *fp32:16, 1024", 4, 90)
        .expect("compiles");
    let o = &k.combine_orders;
    assert_eq!(o["target"], "sm_90");
    assert_eq!(o["warp_size"], 32);
    let reductions = o["reductions"].as_array().expect("reductions");
    assert_eq!(reductions.len(), 1, "{o}");
    let r = &reductions[0];
    assert_eq!(r["axis"], 0);
    assert_eq!(r["shape"], serde_json::json!([1024]));
    // `tl.sum` starts at column 21 of line 9 (1-based).
    assert_eq!(r["at"], "red.py:9:21", "{r}");
    // 1024 elements over 4 warps of 32 lanes: every lane and warp bit is a butterfly
    // step, and each thread folds the rest in registers.
    let regs = r["registers"].as_array().unwrap().len();
    let lanes = r["lanes"].as_array().unwrap().len();
    let warps = r["warps"].as_array().unwrap().len();
    assert_eq!((lanes, warps), (5, 2), "{r}");
    assert_eq!(regs << (lanes + warps), 1024, "{r}");
    // The lane steps are XOR masks 16, 8, …, 1 (or the reverse), one per lane bit.
    let mut masks: Vec<u64> = r["lanes"].as_array().unwrap().iter().map(|s| s[0].as_u64().unwrap()).collect();
    masks.sort();
    assert_eq!(masks, [1, 2, 4, 8, 16]);
    let scans = o["scans"].as_array().expect("scans");
    assert_eq!(scans.len(), 1);
    assert_eq!(scans[0]["len"], 1024);
    assert_eq!(scans[0]["reverse"], false);
    // Every axis bit is one register, lane or warp step.
    assert_eq!(scans[0]["steps"].as_array().unwrap().len(), 10, "{}", scans[0]);
}
