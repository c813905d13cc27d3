//! The `--emit ttgir` text: the tile IR with a layout on every block type, in the shape
//! of Triton's TTGIR.
//!
//! ```text
//! #blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
//! module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
//!   tt.func public @k(%arg0: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
//!     %0 = tt.make_range {start = 0 : i32, end = 512 : i32} : tensor<512xi32, #blocked>
//!     %1 = ttg.convert_layout %0 : tensor<512xi32, #blocked> -> tensor<512xi32, #blocked1>
//! ```
//!
//! Blocked layouts are printed once as `#blockedN` aliases; slices inline. A conversion
//! on a use is printed as a `ttg.convert_layout` right before the op that needs it,
//! whose operand then names the converted value. Vectorized accesses carry
//! `{ttg.vector = N}` after their attributes.

use std::fmt::Write;

use tritonc_ir::attrs::op_attrs;
use tritonc_ir::{ConstValue, DType, Function, OpId, OpKind, Type, Value};

use crate::assign::LayoutAssignment;
use crate::layout::{BlockedLayout, Layout};

struct Printer<'a> {
    func: &'a Function,
    layouts: &'a LayoutAssignment,
    aliases: Vec<BlockedLayout>,
    names: Vec<Option<String>>,
    next_result: usize,
    next_arg: usize,
    body: String,
}

impl Printer<'_> {
    fn alias(&mut self, b: &BlockedLayout) -> String {
        let i = match self.aliases.iter().position(|x| x == b) {
            Some(i) => i,
            None => {
                self.aliases.push(b.clone());
                self.aliases.len() - 1
            }
        };
        if i == 0 {
            "#blocked".to_string()
        } else {
            format!("#blocked{i}")
        }
    }

    fn layout_text(&mut self, l: &Layout) -> String {
        match l {
            Layout::Blocked(b) => self.alias(b),
            Layout::Slice(s) => {
                let parent = self.layout_text(&s.parent);
                format!("#ttg.slice<{{dim = {}, parent = {parent}}}>", s.dim)
            }
        }
    }

    fn type_text(&mut self, ty: &Type, layout: Option<&Layout>) -> String {
        match (ty, layout) {
            (Type::Tensor { shape, elem }, Some(l)) => {
                let mut s = String::from("tensor<");
                for d in shape {
                    let _ = write!(s, "{d}x");
                }
                let l = self.layout_text(l);
                let _ = write!(s, "{elem}, {l}>");
                s
            }
            _ => ty.to_string(),
        }
    }

    fn value_type(&mut self, v: Value, layout: Option<&Layout>) -> String {
        let ty = self.func.value_type(v).clone();
        let layout = layout.or_else(|| self.layouts.layout(v)).cloned();
        self.type_text(&ty, layout.as_ref())
    }

    fn name(&self, v: Value) -> String {
        self.names[v.index()]
            .clone()
            .unwrap_or_else(|| format!("%<undefined {}>", v.index()))
    }

    fn fresh_result(&mut self) -> String {
        let n = format!("%{}", self.next_result);
        self.next_result += 1;
        n
    }

    fn op(&mut self, op: OpId, indent: usize) {
        let f = self.func;
        let data = f.op(op);
        // Conversions of this op's operands come first.
        let mut operand_names = Vec::new();
        for (i, &v) in data.operands().iter().enumerate() {
            match self.layouts.conversion(op, i) {
                Some(c) => {
                    let from = self.value_type(v, Some(&c.from));
                    let to = self.value_type(v, Some(&c.to));
                    let name = self.fresh_result();
                    let src = self.name(v);
                    let _ = writeln!(
                        self.body,
                        "{:indent$}{name} = ttg.convert_layout {src} : {from} -> {to}",
                        ""
                    );
                    operand_names.push(name);
                }
                None => operand_names.push(self.name(v)),
            }
        }
        let mut line = format!("{:indent$}", "");
        let results = data.results();
        if !results.is_empty() {
            let base = self.fresh_result();
            if results.len() == 1 {
                self.names[results[0].index()] = Some(base.clone());
                let _ = write!(line, "{base} = ");
            } else {
                for (i, &r) in results.iter().enumerate() {
                    self.names[r.index()] = Some(format!("{base}#{i}"));
                }
                let _ = write!(line, "{base}:{} = ", results.len());
            }
        }
        line.push_str(data.kind.name());
        if let OpKind::Constant(c) = &data.kind {
            let ty = results.first().map(|&r| f.value_type(r));
            let lit = const_text(*c, ty.and_then(Type::dtype));
            if ty.is_some_and(Type::is_tensor) {
                let _ = write!(line, " dense<{lit}>");
            } else {
                let _ = write!(line, " {lit}");
            }
        }
        for (i, n) in operand_names.iter().enumerate() {
            line.push_str(if i == 0 { " " } else { ", " });
            line.push_str(n);
        }
        let mut attrs: Vec<String> = op_attrs(&data.kind)
            .iter()
            .map(|(k, a)| format!("{k} = {a}"))
            .collect();
        if let Some(plan) = self.layouts.access(op) {
            attrs.push(format!("ttg.vector = {}", plan.vector_width));
        }
        if !attrs.is_empty() {
            let _ = write!(line, " {{{}}}", attrs.join(", "));
        }
        let operand_types: Vec<String> = (0..data.operands().len())
            .map(|i| {
                let v = data.operands()[i];
                let l = self.layouts.operand_layout(f, op, i).cloned();
                self.value_type(v, l.as_ref())
            })
            .collect();
        let result_types: Vec<String> = results.iter().map(|&r| self.value_type(r, None)).collect();
        let all: Vec<&String> = operand_types.iter().chain(&result_types).collect();
        if let Some(first) = all.first() {
            if all.iter().all(|t| t == first) {
                let _ = write!(line, " : {first}");
            } else {
                line.push_str(" :");
                if !operand_types.is_empty() {
                    let _ = write!(line, " {}", operand_types.join(", "));
                }
                match result_types.len() {
                    0 => {}
                    1 => {
                        let _ = write!(line, " -> {}", result_types[0]);
                    }
                    _ => {
                        let _ = write!(line, " -> ({})", result_types.join(", "));
                    }
                }
            }
        }
        self.body.push_str(&line);
        for &r in data.regions() {
            self.body.push_str(" {\n");
            for &b in f.region(r).blocks() {
                let args = f.block(b).args().to_vec();
                if !args.is_empty() {
                    let mut label = format!("{:indent$}^bb0(", "");
                    for (i, &a) in args.iter().enumerate() {
                        let n = format!("%arg{}", self.next_arg);
                        self.next_arg += 1;
                        self.names[a.index()] = Some(n.clone());
                        if i > 0 {
                            label.push_str(", ");
                        }
                        let ty = self.value_type(a, None);
                        let _ = write!(label, "{n}: {ty}");
                    }
                    let _ = writeln!(self.body, "{label}):");
                }
                for &inner in f.block(b).ops() {
                    self.op(inner, indent + 2);
                }
            }
            let _ = write!(self.body, "{:indent$}}}", "");
        }
        self.body.push('\n');
    }
}

fn const_text(value: ConstValue, dtype: Option<DType>) -> String {
    match value {
        ConstValue::Int(v) if dtype == Some(DType::I1) => (v != 0).to_string(),
        ConstValue::Int(v) => v.to_string(),
        ConstValue::Float(x) if x.is_nan() => format!("0x{:016X}", x.to_bits()),
        ConstValue::Float(x) => format!("{x:?}"),
    }
}

/// Prints `func` with the layouts of `layouts` (one `module` holding the function).
pub fn print_ttgir(func: &Function, layouts: &LayoutAssignment) -> String {
    let mut p = Printer {
        func,
        layouts,
        aliases: Vec::new(),
        names: vec![None; func.num_values()],
        next_result: 0,
        next_arg: 0,
        body: String::new(),
    };
    let mut header = format!("  tt.func public @{}(", func.name);
    for (i, &a) in func.args().iter().enumerate() {
        let n = format!("%arg{}", p.next_arg);
        p.next_arg += 1;
        p.names[a.index()] = Some(n.clone());
        if i > 0 {
            header.push_str(", ");
        }
        let _ = write!(header, "{n}: {}", func.value_type(a));
        if let Some(d) = func.arg_attrs.get(i).and_then(|x| x.divisibility) {
            let _ = write!(header, " {{tt.divisibility = {d} : i32}}");
        }
    }
    header.push_str(") {\n");
    for &op in func.block(func.entry_block()).ops() {
        p.op(op, 4);
    }
    let mut out = String::new();
    for (i, b) in p.aliases.iter().enumerate() {
        let name = if i == 0 {
            "#blocked".to_string()
        } else {
            format!("#blocked{i}")
        };
        let _ = writeln!(out, "{name} = {b}");
    }
    let _ = writeln!(
        out,
        "module attributes {{\"ttg.num-warps\" = {} : i32, \"ttg.threads-per-warp\" = 32 : i32}} {{",
        layouts.num_warps
    );
    out.push_str(&header);
    out.push_str(&p.body);
    out.push_str("  }\n}\n");
    out
}
