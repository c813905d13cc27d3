//! The textual form of the IR.
//!
//! ```text
//! module {
//!   tt.func public @k(%arg0: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg1: i32) {
//!     %0 = tt.get_program_id {axis = 0 : i32} : i32
//!     %1 = arith.constant dense<0.0> : tensor<128xf32>
//!     %2 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
//!     %3:2 = tt.split %x : tensor<64x2xf32> -> (tensor<64xf32>, tensor<64xf32>)
//!     tt.store %2, %1 : tensor<128x!tt.ptr<f32>>, tensor<128xf32>
//!     tt.return
//!   }
//! }
//! ```
//!
//! An op prints as `results = name operands {attrs} : types regions loc(...)`. Types: when
//! every operand and result has one type `T`, just `: T`; otherwise `: operand types ->
//! result types` (results in parentheses when there are several), and an op without
//! results lists only its operand types. Values are numbered in print order: op results
//! `%0, %1, …` (`%3:2` defines `%3#0` and `%3#1`), block arguments `%arg0, %arg1, …`.
//! Regions of `scf.if` are separated by `else`, those of `scf.while` by `do`.

use std::fmt::Write;

use crate::attrs::op_attrs;
use crate::function::{BlockId, Function, Module, OpId, RegionId, Value};
use crate::ops::{ConstValue, OpKind};
use crate::types::{DType, Type};

/// Printer settings.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PrintOptions {
    /// Append `loc(...)` to every op and function.
    pub with_locations: bool,
}

/// Escapes a string for a double-quoted literal.
pub fn escape_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                let _ = write!(out, "\\{:02X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// Prints a module; GPU-IR encodings become aliases defined above it
/// ([`crate::aliases::alias_encodings`]).
pub fn print_module(module: &Module, opts: PrintOptions) -> String {
    let mut out = String::from("module {\n");
    for f in &module.functions {
        FunctionPrinter::new(f, opts, &mut out).print();
    }
    out.push_str("}\n");
    crate::aliases::alias_encodings(&out)
}

/// Prints one function (without the surrounding `module { }`).
pub fn print_function(func: &Function, opts: PrintOptions) -> String {
    let mut out = String::new();
    FunctionPrinter::new(func, opts, &mut out).print();
    out
}

impl std::fmt::Display for Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&print_module(self, PrintOptions::default()))
    }
}

impl std::fmt::Display for Function {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&print_function(self, PrintOptions::default()))
    }
}

/// Whether a function name can be printed without quotes after `@`.
pub(crate) fn is_bare_ident(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '$')
}

/// Formats an `arith.constant` literal for a value of dtype `dtype`.
pub(crate) fn format_const(value: ConstValue, dtype: Option<DType>) -> String {
    match value {
        ConstValue::Int(v) if dtype == Some(DType::I1) => {
            (if v != 0 { "true" } else { "false" }).to_string()
        }
        ConstValue::Int(v) => v.to_string(),
        ConstValue::Float(x) if x.is_nan() => format!("0x{:016X}", x.to_bits()),
        // `{:?}` is the shortest text that parses back to the same f64, and keeps a `.0`.
        ConstValue::Float(x) => format!("{x:?}"),
    }
}

struct FunctionPrinter<'a> {
    func: &'a Function,
    opts: PrintOptions,
    out: &'a mut String,
    names: Vec<Option<String>>,
    next_result: usize,
    next_arg: usize,
}

impl<'a> FunctionPrinter<'a> {
    fn new(func: &'a Function, opts: PrintOptions, out: &'a mut String) -> Self {
        FunctionPrinter {
            func,
            opts,
            out,
            names: vec![None; func.num_values()],
            next_result: 0,
            next_arg: 0,
        }
    }

    fn name(&self, v: Value) -> String {
        // An unnamed operand means the IR is malformed (used before defined); print
        // something recognisable that the parser will reject.
        self.names[v.index()]
            .clone()
            .unwrap_or_else(|| format!("%<undefined {}>", v.index()))
    }

    fn name_arg(&mut self, v: Value) -> String {
        let n = format!("%arg{}", self.next_arg);
        self.next_arg += 1;
        self.names[v.index()] = Some(n.clone());
        n
    }

    fn print(mut self) {
        let f = self.func;
        let vis = if f.public { "public" } else { "private" };
        let name = if is_bare_ident(&f.name) {
            f.name.clone()
        } else {
            format!("\"{}\"", escape_str(&f.name))
        };
        let _ = write!(self.out, "  tt.func {vis} @{name}(");
        for (i, &a) in f.args().iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            let n = self.name_arg(a);
            let _ = write!(self.out, "{n}: {}", f.value_type(a));
            if let Some(div) = f.arg_attrs.get(i).and_then(|a| a.divisibility) {
                let _ = write!(self.out, " {{tt.divisibility = {div} : i32}}");
            }
        }
        self.out.push(')');
        if !f.result_types.is_empty() {
            let tys: Vec<String> = f.result_types.iter().map(Type::to_string).collect();
            let _ = write!(self.out, " -> ({})", tys.join(", "));
        }
        self.out.push_str(" {\n");
        let body = f.body();
        // The entry block's arguments are the function's; later blocks (if any) get labels.
        let blocks = f.region(body).blocks().to_vec();
        for (bi, &b) in blocks.iter().enumerate() {
            if bi > 0 {
                self.block_label(b, bi, 2);
            }
            self.block_ops(b, 4);
        }
        self.out.push_str("  }");
        if self.opts.with_locations {
            let _ = write!(self.out, " {}", f.loc);
        }
        self.out.push('\n');
    }

    fn block_label(&mut self, b: BlockId, index: usize, indent: usize) {
        let args = self.func.block(b).args().to_vec();
        let _ = write!(self.out, "{:indent$}^bb{index}", "");
        if !args.is_empty() {
            self.out.push('(');
            for (i, &a) in args.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                let n = self.name_arg(a);
                let _ = write!(self.out, "{n}: {}", self.func.value_type(a));
            }
            self.out.push(')');
        }
        self.out.push_str(":\n");
    }

    fn block_ops(&mut self, b: BlockId, indent: usize) {
        for &op in self.func.block(b).ops() {
            self.op(op, indent);
        }
    }

    fn region(&mut self, r: RegionId, indent: usize) {
        self.out.push_str("{\n");
        let blocks = self.func.region(r).blocks().to_vec();
        for (bi, &b) in blocks.iter().enumerate() {
            if bi > 0 || !self.func.block(b).args().is_empty() {
                self.block_label(b, bi, indent);
            }
            self.block_ops(b, indent + 2);
        }
        let _ = write!(self.out, "{:indent$}}}", "");
    }

    fn op(&mut self, op: OpId, indent: usize) {
        let f = self.func;
        let data = f.op(op);
        let _ = write!(self.out, "{:indent$}", "");
        let results = data.results();
        if !results.is_empty() {
            let base = format!("%{}", self.next_result);
            self.next_result += 1;
            if results.len() == 1 {
                self.names[results[0].index()] = Some(base.clone());
                let _ = write!(self.out, "{base} = ");
            } else {
                for (i, &r) in results.iter().enumerate() {
                    self.names[r.index()] = Some(format!("{base}#{i}"));
                }
                let _ = write!(self.out, "{base}:{} = ", results.len());
            }
        }
        self.out.push_str(data.kind.name());
        if let OpKind::Constant(c) = &data.kind {
            let ty = results.first().map(|&r| f.value_type(r));
            let lit = format_const(*c, ty.and_then(Type::dtype));
            match ty {
                Some(t) if t.is_tensor() => {
                    let _ = write!(self.out, " dense<{lit}>");
                }
                _ => {
                    let _ = write!(self.out, " {lit}");
                }
            }
        }
        for (i, &v) in data.operands().iter().enumerate() {
            self.out.push_str(if i == 0 { " " } else { ", " });
            let n = self.name(v);
            self.out.push_str(&n);
        }
        let attrs = op_attrs(&data.kind);
        if !attrs.is_empty() {
            self.out.push_str(" {");
            for (i, (k, a)) in attrs.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                let _ = write!(self.out, "{k} = {a}");
            }
            self.out.push('}');
        }
        self.types(data.operands(), results);
        let separator = match data.kind {
            OpKind::If => "else",
            OpKind::While => "do",
            _ => "",
        };
        for (i, &r) in data.regions().iter().enumerate() {
            if i > 0 && !separator.is_empty() {
                let _ = write!(self.out, " {separator}");
            }
            self.out.push(' ');
            self.region(r, indent);
        }
        if self.opts.with_locations {
            let _ = write!(self.out, " {}", data.loc);
        }
        self.out.push('\n');
    }

    fn types(&mut self, operands: &[Value], results: &[Value]) {
        let f = self.func;
        let ops: Vec<&Type> = operands.iter().map(|&v| f.value_type(v)).collect();
        let res: Vec<&Type> = results.iter().map(|&v| f.value_type(v)).collect();
        let mut all = ops.iter().chain(res.iter());
        let Some(first) = all.next() else { return };
        if all.all(|t| t == first) {
            let _ = write!(self.out, " : {first}");
            return;
        }
        let list = |ts: &[&Type]| {
            ts.iter()
                .map(|t| t.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        self.out.push_str(" :");
        if !ops.is_empty() {
            let _ = write!(self.out, " {}", list(&ops));
        }
        match res.len() {
            0 => {}
            1 => {
                let _ = write!(self.out, " -> {}", res[0]);
            }
            _ => {
                let _ = write!(self.out, " -> ({})", list(&res));
            }
        }
    }
}
