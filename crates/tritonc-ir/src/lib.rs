//! The tile IR: the typed SSA form of a Triton kernel that lint, the CPU interpreter and
//! GPU codegen all consume. It is the analogue of Triton's TTIR and its text reads like it.
//!
//! # Shape of the IR
//!
//! - [`Module`] holds [`Function`]s. A function owns arenas of values, ops, blocks and
//!   regions, addressed by small `Copy` ids ([`Value`], [`OpId`], [`BlockId`],
//!   [`RegionId`]) that are only meaningful within that function.
//! - Every value has a [`Type`]: a per-program scalar ([`Type::Scalar`], [`Type::Ptr`]) or a
//!   block ([`Type::Tensor`], rank ≥ 1, with [`Dim`]s and an [`Elem`]). Generic mode may use
//!   [`Dim::Symbolic`]/[`Dim::Unknown`] and [`DType::Var`].
//! - The same data structure holds the **GPU IR** (Triton's TTGIR): there every block type
//!   carries an encoding ([`layout::Layout`]: which thread holds which element), shared
//!   buffers have their own type ([`MemDescType`], with a [`SharedLayout`]), async copies
//!   return [`Type::AsyncToken`]s, and the GPU ops (`ttg.convert_layout`,
//!   `ttg.local_alloc`/`local_load`/`local_store`, `ttg.memdesc_index`,
//!   `ttg.async_copy_global_to_local`/`async_commit_group`/`async_wait`) make layout
//!   changes and shared memory explicit. `tritonc-ttgir`'s passes produce it.
//! - Every op has an [`OpKind`] (with typed attributes), operands, results, regions and a
//!   [`Location`] (source span plus the inlining call-site chain, innermost first).
//! - Values know their uses ([`Function::uses`]); [`Function::replace_all_uses`],
//!   [`Function::set_operand`] and [`Function::erase_op`] keep use lists right.
//! - Structured control flow only: `scf.for`/`scf.if`/`scf.while`, `tt.reduce`/`tt.scan`
//!   carry values through block arguments and terminators (`scf.yield`, …). Each region
//!   has one block.
//!
//! # Building a vector-add kernel
//!
//! ```
//! use tritonc_ir::*;
//!
//! let ptr = Type::ptr(DType::F32);
//! let mut f = Function::new("add_kernel", vec![ptr.clone(), ptr.clone(), ptr, Type::I32], vec![]);
//! let [x, y, out, n] = f.args().to_vec()[..] else { unreachable!() };
//! let entry = f.entry_block();
//! let mut b = Builder::at_end(&mut f, entry);
//! // b.set_loc(Location::new(span)) before each op sema creates.
//! let pid = b.get_program_id(0);
//! let block = b.const_i32(1024);
//! let start = b.binary(BinaryOp::MulI, pid, block);
//! let range = b.make_range(0, 1024);
//! let start = b.splat(start, &[1024]);
//! let offs = b.binary(BinaryOp::AddI, start, range);
//! let n = b.splat(n, &[1024]);
//! let mask = b.cmpi(CmpIPredicate::Slt, offs, n);
//! let xp = b.splat(x, &[1024]);
//! let xp = b.addptr(xp, offs);
//! let xv = b.load(xp, Some(mask), None, LoadOptions::default());
//! let yp = b.splat(y, &[1024]);
//! let yp = b.addptr(yp, offs);
//! let yv = b.load(yp, Some(mask), None, LoadOptions::default());
//! let sum = b.binary(BinaryOp::AddF, xv, yv);
//! let op = b.splat(out, &[1024]);
//! let op = b.addptr(op, offs);
//! b.store(op, sum, Some(mask), CacheModifier::None, EvictionPolicy::Normal);
//! b.ret(&[]);
//! let text = f.to_string();
//! assert!(text.contains("tt.addptr"));
//! ```
//!
//! Region ops come in two flavours: closure helpers ([`Builder::for_with`],
//! [`Builder::if_with`], [`Builder::reduce_with`], [`Builder::scan_with`]) and low-level
//! ones ([`Builder::scf_for`], [`Builder::scf_if`], [`Builder::scf_while`],
//! [`Builder::reduce`], [`Builder::scan`]) that return the new blocks and block arguments;
//! fill those with [`Builder::fill_block`] or [`Builder::set_insertion_end`], and add
//! results later with [`Function::add_result`] when they are only known afterwards.
//!
//! # Text, verification and passes
//!
//! [`print_module`] (or `Display`) prints the stable text form (see [`printer`] for its
//! grammar) and [`parse_module`] parses it back, with or without locations.
//! [`verify_function`]/[`verify_module`] check the invariants and return
//! [`Diagnostic`](tritonc_diagnostics::Diagnostic)s with code [`INVALID_IR`].
//! [`PassManager`] runs [`Pass`]es ([`passes::DeadCodeElimination`],
//! [`passes::ConstantFolding`]) and, in debug builds, the verifier after each one:
//!
//! ```
//! use tritonc_ir::{parse_module, passes, PassManager};
//! let mut m = parse_module("module {
//!   tt.func public @k(%arg0: !tt.ptr<i32>) {
//!     %0 = arith.constant 6 : i32
//!     %1 = arith.constant 7 : i32
//!     %2 = arith.muli %0, %1 : i32
//!     tt.store %arg0, %2 : !tt.ptr<i32>, i32
//!     tt.return
//!   }
//! }").unwrap();
//! PassManager::new()
//!     .add(passes::ConstantFolding)
//!     .add(passes::DeadCodeElimination)
//!     .run(&mut m)
//!     .unwrap();
//! assert!(m.to_string().contains("arith.constant 42 : i32"));
//! assert!(!m.to_string().contains("arith.muli"));
//! ```

pub mod aliases;
pub mod attrs;
pub mod builder;
pub mod function;
pub mod layout;
pub mod location;
pub mod mfma_layout;
pub mod mma_layout;
pub mod ops;
pub mod parser;
pub mod pass;
pub mod passes;
pub mod printer;
pub mod shared_layout;
pub mod types;
pub mod verify;

pub use builder::{Builder, Combiner, ForLoop, IfOp, LoadOptions, WhileLoop};
pub use function::{
    ArgAttrs, BlockData, BlockId, Function, Module, OpData, OpId, RegionData, RegionId, Use, Value,
    ValueDef,
};
pub use location::Location;
pub use mfma_layout::MfmaLayout;
pub use mma_layout::MmaLayout;
pub use ops::*;
pub use parser::{parse_module, ParseError, INVALID_IR_TEXT};
pub use pass::{Pass, PassManager};
pub use printer::{print_function, print_module, PrintOptions};
pub use shared_layout::{MemDescType, Nvmma, Padding, SharedLayout};
pub use types::{DType, Dim, Elem, PtrType, Type, ALL_DTYPES, MAX_TENSOR_NUMEL};
pub use verify::{verify_function, verify_module, INVALID_IR};
