//! A launch is streamed in chunks of programs: its memory stays bounded however large the
//! grid (measured with a counting allocator), races between programs of different chunks
//! are still found and named, and results do not depend on the thread count.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use tritonc_interp::{launch, ArgValue, Buffer, InterpOptions, Memory, RuntimeErrorKind};
use tritonc_ir::{parse_module, DType, Function};

/// The system allocator, counting live bytes and their peak.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            let now = LIVE.fetch_add(l.size(), Ordering::Relaxed) + l.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        LIVE.fetch_sub(l.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static A: Counting = Counting;

/// `out[pid] = x[pid] + pid`, except that program `clash` stores to `out[0]` (a
/// write/write race with program 0) when `clash_out`, or to `x[0]` (a write over a byte
/// program 0 read) otherwise; `clash` past the grid means no race.
fn kernel(clash: u32, clash_out: bool) -> Function {
    let target = if clash_out { "%arg1" } else { "%arg0" };
    let text = format!(
        "module {{
  tt.func public @k(%arg0: !tt.ptr<i32>, %arg1: !tt.ptr<i32>) {{
    %0 = tt.get_program_id {{axis = 0 : i32}} : i32
    %1 = tt.addptr %arg0, %0 : !tt.ptr<i32>, i32 -> !tt.ptr<i32>
    %2 = tt.load %1 : !tt.ptr<i32> -> i32
    %3 = arith.addi %2, %0 : i32
    %4 = arith.constant {clash} : i32
    %5 = arith.cmpi %0, %4 {{predicate = eq}} : i32, i32 -> i1
    %6 = arith.constant 0 : i32
    %7 = arith.select %5, %6, %0 : i1, i32, i32 -> i32
    %8 = tt.addptr %arg1, %7 : !tt.ptr<i32>, i32 -> !tt.ptr<i32>
    %9 = tt.addptr {target}, %6 : !tt.ptr<i32>, i32 -> !tt.ptr<i32>
    %10 = arith.select %5, %9, %8 : i1, !tt.ptr<i32>, !tt.ptr<i32> -> !tt.ptr<i32>
    tt.store %10, %3 : !tt.ptr<i32>, i32
    tt.return
  }}
}}"
    );
    parse_module(&text)
        .expect("the kernel parses")
        .functions
        .remove(0)
}

fn memory(n: usize) -> (Memory, [ArgValue; 2]) {
    let mut m = Memory::new();
    let xs: Vec<f64> = (0..n).map(|i| (i % 1000) as f64).collect();
    let x = m.add(Buffer::from_f64("x", DType::I32, &xs));
    let out = m.add(Buffer::zeros("out", DType::I32, n));
    (
        m,
        [
            ArgValue::Ptr(x.base_address()),
            ArgValue::Ptr(out.base_address()),
        ],
    )
}

fn on_threads<T: Send>(n: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .expect("a pool")
        .install(f)
}

/// Tests here run one at a time: the allocator's count is the whole process's.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

/// The most bytes a launch over `n` programs allocated beyond its data, checking its
/// results.
fn launch_peak(n: u32) -> usize {
    let f = kernel(u32::MAX, true);
    let (mut mem, args) = memory(n as usize);
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let report = launch(&f, &args, [n, 1, 1], &mut mem, &InterpOptions::default()).unwrap();
    let extra = PEAK.load(Ordering::Relaxed) - before;
    assert_eq!(report.programs, n as u64);
    let out = mem.buffers()[1].to_f64_vec();
    for i in [0usize, 1, 999, 1000, 123_457 % n as usize, n as usize - 1] {
        assert_eq!(out[i], ((i % 1000) + i) as f64, "out[{i}]");
    }
    extra
}

#[test]
fn memory_does_not_grow_with_the_grid() {
    let _one = serial();
    let small = launch_peak(1 << 17);
    let large = launch_peak(1 << 19);
    // Keeping every program's access log and deferred writes until the end of the
    // launch took about 460 bytes per program: 59 and 234 MiB here. Streamed, a chunk's
    // records are all that is held, the same for both grids.
    assert!(
        large < small + (2 << 20) && large < 40 << 20,
        "the launch held {} KiB at its peak over 2^17 programs and {} KiB over 2^19",
        small >> 10,
        large >> 10
    );
}

#[test]
fn a_write_races_with_a_program_of_an_earlier_chunk() {
    let _one = serial();
    let n = 70_000u32;
    let f = kernel(60_000, true);
    for threads in [1, 2] {
        let (mut mem, args) = memory(n as usize);
        let e = on_threads(threads, || {
            launch(&f, &args, [n, 1, 1], &mut mem, &InterpOptions::default())
        })
        .unwrap_err();
        let RuntimeErrorKind::Race {
            what,
            other_program,
            ..
        } = &e.kind
        else {
            panic!("{e}")
        };
        assert_eq!((*what, *other_program), ("write/write", [0, 0, 0]), "{e}");
        assert_eq!(e.program, Some([60_000, 0, 0]), "{e}");
        assert_eq!(
            mem.buffers()[1].to_f64_vec()[0],
            0.0,
            "the racing chunk's writes are not applied"
        );
    }
}

#[test]
fn a_write_over_a_byte_an_earlier_chunk_read_is_a_race() {
    let _one = serial();
    let n = 70_000u32;
    let f = kernel(69_999, false);
    let (mut mem, args) = memory(n as usize);
    let e = launch(&f, &args, [n, 1, 1], &mut mem, &InterpOptions::default()).unwrap_err();
    let RuntimeErrorKind::Race {
        what,
        other_program,
        buffer,
        ..
    } = &e.kind
    else {
        panic!("{e}")
    };
    assert_eq!(
        (*what, *other_program, buffer.as_str()),
        ("write/read", [0, 0, 0], "x"),
        "{e}"
    );
    assert_eq!(e.program, Some([69_999, 0, 0]), "{e}");
}

#[test]
fn results_are_the_same_bytes_on_any_thread_count() {
    let _one = serial();
    let n = 70_000u32;
    let f = kernel(u32::MAX, true);
    let run = |threads| {
        let (mut mem, args) = memory(n as usize);
        on_threads(threads, || {
            launch(&f, &args, [n, 1, 1], &mut mem, &InterpOptions::default()).unwrap()
        });
        mem.buffers()[1].bytes.clone()
    };
    let one = run(1);
    assert_eq!(one, run(2));
    assert_eq!(one, run(3));
}
