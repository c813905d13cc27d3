//! The attribute dictionaries of ops: how each [`OpKind`] prints its attributes and how a
//! name plus a parsed dictionary becomes an [`OpKind`] again.
//!
//! Attributes at their default value are left out of the printout (`cache = none`,
//! `is_volatile = false`, …) and the parser restores the default when one is missing.

use std::fmt;

use crate::ops::*;
use crate::printer::escape_str;
use crate::types::DType;

/// An attribute value as it appears in IR text.
#[derive(Debug, Clone, PartialEq)]
pub enum Attr {
    /// An integer with its type: `0 : i32`.
    Int(i64, DType),
    /// `true` / `false`.
    Bool(bool),
    /// A quoted string.
    Str(String),
    /// A bare word naming an enum case (`slt`, `evict_last`).
    Word(String),
    /// An integer array: `array<i32: 1, 0>`.
    IntArray(DType, Vec<i64>),
}

impl fmt::Display for Attr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Attr::Int(v, t) => write!(f, "{v} : {t}"),
            Attr::Bool(b) => write!(f, "{b}"),
            Attr::Str(s) => write!(f, "\"{}\"", escape_str(s)),
            Attr::Word(w) => f.write_str(w),
            Attr::IntArray(t, vs) => {
                write!(f, "array<{t}")?;
                for (i, v) in vs.iter().enumerate() {
                    f.write_str(if i == 0 { ": " } else { ", " })?;
                    write!(f, "{v}")?;
                }
                f.write_str(">")
            }
        }
    }
}

fn int32(v: impl Into<i64>) -> Attr {
    Attr::Int(v.into(), DType::I32)
}

fn word(w: &str) -> Attr {
    Attr::Word(w.to_string())
}

fn array(vs: &[u64]) -> Attr {
    Attr::IntArray(DType::I64, vs.iter().map(|&v| v as i64).collect())
}

/// The attributes `kind` prints, in print order, defaults left out.
pub fn op_attrs(kind: &OpKind) -> Vec<(&'static str, Attr)> {
    use OpKind::*;
    let mut out: Vec<(&'static str, Attr)> = Vec::new();
    match kind {
        GetProgramId { axis } | GetNumPrograms { axis } | ExpandDims { axis } | Reduce { axis } => {
            out.push(("axis", int32(*axis)))
        }
        MakeRange { start, end } => {
            out.push(("start", int32(*start)));
            out.push(("end", int32(*end)));
        }
        Reshape {
            allow_reorder: true,
        } => out.push(("allow_reorder", Attr::Bool(true))),
        Trans { order } => out.push((
            "order",
            Attr::IntArray(DType::I32, order.iter().map(|&o| o as i64).collect()),
        )),
        CmpI(p) => out.push(("predicate", word(p.word()))),
        CmpF(p) => out.push(("predicate", word(p.word()))),
        Cast {
            rounding: Some(r), ..
        }
        | FpToFp { rounding: Some(r) } => out.push(("rounding", word(r.word()))),
        ClampF {
            propagate_nan: true,
        } => out.push(("propagate_nan", Attr::Bool(true))),
        ExternElementwise {
            libname,
            libpath,
            symbol,
            pure,
        } => {
            out.push(("libname", Attr::Str(libname.clone())));
            out.push(("libpath", Attr::Str(libpath.clone())));
            out.push(("symbol", Attr::Str(symbol.clone())));
            out.push(("pure", Attr::Bool(*pure)));
        }
        ElementwiseInlineAsm {
            asm,
            constraints,
            pure,
            pack,
        } => {
            out.push(("asm_string", Attr::Str(asm.clone())));
            out.push(("constraints", Attr::Str(constraints.clone())));
            out.push(("packed_element", Attr::Int(i64::from(*pack), DType::I32)));
            out.push(("pure", Attr::Bool(*pure)));
        }
        Load {
            cache,
            evict,
            is_volatile,
        } => {
            push_cache_evict(&mut out, *cache, *evict);
            if *is_volatile {
                out.push(("is_volatile", Attr::Bool(true)));
            }
        }
        Store { cache, evict } => push_cache_evict(&mut out, *cache, *evict),
        AtomicRmw { op, sem, scope } => {
            out.push(("rmw_op", word(op.word())));
            out.push(("sem", word(sem.word())));
            out.push(("scope", word(scope.word())));
        }
        AtomicCas { sem, scope } => {
            out.push(("sem", word(sem.word())));
            out.push(("scope", word(scope.word())));
        }
        Scan { axis, reverse } => {
            out.push(("axis", int32(*axis)));
            out.push(("reverse", Attr::Bool(*reverse)));
        }
        Dot {
            input_precision,
            max_num_imprecise_acc,
        } => {
            out.push(("input_precision", word(input_precision.word())));
            if *max_num_imprecise_acc != 0 {
                out.push(("max_num_imprecise_acc", int32(*max_num_imprecise_acc)));
            }
        }
        Hint(h) => {
            if let Some(d) = &h.divisibility {
                out.push(("divisibility", array(d)));
            }
            if let Some(c) = &h.contiguity {
                out.push(("contiguity", array(c)));
            }
            if let Some(c) = &h.constancy {
                out.push(("constancy", array(c)));
            }
        }
        Print { prefix, hex } => {
            out.push(("prefix", Attr::Str(prefix.clone())));
            if *hex {
                out.push(("hex", Attr::Bool(true)));
            }
        }
        Assert { message } => out.push(("message", Attr::Str(message.clone()))),
        AsyncCopyGlobalToLocal { cache, evict } => push_cache_evict(&mut out, *cache, *evict),
        AsyncWait { num } => out.push(("num", int32(*num))),
        WarpGroupDotWait { pendings } => out.push(("pendings", int32(*pendings))),
        LocalAlloc { offset: Some(o) } => out.push(("offset", int32(*o))),
        For { num_stages: Some(n) } => out.push(("num_stages", int32(*n))),
        _ => {}
    }
    out
}

fn push_cache_evict(
    out: &mut Vec<(&'static str, Attr)>,
    cache: CacheModifier,
    evict: EvictionPolicy,
) {
    if cache != CacheModifier::None {
        out.push(("cache", word(cache.word())));
    }
    if evict != EvictionPolicy::Normal {
        out.push(("evict", word(evict.word())));
    }
}

/// Takes attributes out of a parsed dictionary by key, checking their form.
struct AttrDict {
    entries: Vec<(String, Attr)>,
}

impl AttrDict {
    fn take(&mut self, key: &str) -> Option<Attr> {
        let i = self.entries.iter().position(|(k, _)| k == key)?;
        Some(self.entries.remove(i).1)
    }

    fn int(&mut self, key: &str) -> Result<Option<i64>, String> {
        match self.take(key) {
            None => Ok(None),
            Some(Attr::Int(v, _)) => Ok(Some(v)),
            Some(a) => Err(format!("attribute `{key}` must be an integer, found `{a}`")),
        }
    }

    fn req_int<T: TryFrom<i64>>(&mut self, key: &str) -> Result<T, String> {
        let v = self
            .int(key)?
            .ok_or_else(|| format!("missing attribute `{key}`"))?;
        T::try_from(v).map_err(|_| format!("attribute `{key}` = {v} is out of range"))
    }

    fn opt_int<T: TryFrom<i64>>(&mut self, key: &str, default: T) -> Result<T, String> {
        match self.int(key)? {
            None => Ok(default),
            Some(v) => {
                T::try_from(v).map_err(|_| format!("attribute `{key}` = {v} is out of range"))
            }
        }
    }

    fn bool(&mut self, key: &str) -> Result<Option<bool>, String> {
        match self.take(key) {
            None => Ok(None),
            Some(Attr::Bool(b)) => Ok(Some(b)),
            Some(a) => Err(format!(
                "attribute `{key}` must be `true` or `false`, found `{a}`"
            )),
        }
    }

    fn string(&mut self, key: &str) -> Result<String, String> {
        match self.take(key) {
            None => Err(format!("missing attribute `{key}`")),
            Some(Attr::Str(s)) => Ok(s),
            Some(a) => Err(format!("attribute `{key}` must be a string, found `{a}`")),
        }
    }

    fn word<T>(
        &mut self,
        key: &str,
        parse: impl Fn(&str) -> Option<T>,
    ) -> Result<Option<T>, String> {
        match self.take(key) {
            None => Ok(None),
            Some(Attr::Word(w)) => parse(&w)
                .map(Some)
                .ok_or_else(|| format!("unknown value `{w}` for attribute `{key}`")),
            Some(a) => Err(format!(
                "attribute `{key}` must be a bare word, found `{a}`"
            )),
        }
    }

    fn req_word<T>(&mut self, key: &str, parse: impl Fn(&str) -> Option<T>) -> Result<T, String> {
        self.word(key, parse)?
            .ok_or_else(|| format!("missing attribute `{key}`"))
    }

    fn array(&mut self, key: &str) -> Result<Option<Vec<i64>>, String> {
        match self.take(key) {
            None => Ok(None),
            Some(Attr::IntArray(_, vs)) => Ok(Some(vs)),
            Some(a) => Err(format!("attribute `{key}` must be an array, found `{a}`")),
        }
    }

    fn u64_array(&mut self, key: &str) -> Result<Option<Vec<u64>>, String> {
        match self.array(key)? {
            None => Ok(None),
            Some(vs) => vs
                .into_iter()
                .map(|v| {
                    u64::try_from(v).map_err(|_| format!("attribute `{key}` holds negative {v}"))
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Some),
        }
    }
}

/// Rebuilds the kind of op `name` from its attribute dictionary. `arith.constant` is not
/// handled here (its value is not an attribute in the text form).
pub fn kind_from_parts(name: &str, entries: Vec<(String, Attr)>) -> Result<OpKind, String> {
    use OpKind::*;
    let mut d = AttrDict { entries };
    let kind = if let Some(b) = BinaryOp::from_word(name) {
        Binary(b)
    } else if let Some(m) = MathOp::from_word(name) {
        Math(m)
    } else if let Some(op) = CastOp::from_word(name) {
        Cast {
            op,
            rounding: d.word("rounding", RoundingMode::from_word)?,
        }
    } else {
        match name {
            "tt.get_program_id" => GetProgramId {
                axis: d.req_int("axis")?,
            },
            "tt.get_num_programs" => GetNumPrograms {
                axis: d.req_int("axis")?,
            },
            "tt.make_range" => MakeRange {
                start: d.req_int("start")?,
                end: d.req_int("end")?,
            },
            "tt.splat" => Splat,
            "tt.broadcast" => Broadcast,
            "tt.expand_dims" => ExpandDims {
                axis: d.req_int("axis")?,
            },
            "tt.reshape" => Reshape {
                allow_reorder: d.bool("allow_reorder")?.unwrap_or(false),
            },
            "tt.trans" => {
                let order = d.array("order")?.ok_or("missing attribute `order`")?;
                let order = order
                    .into_iter()
                    .map(|v| u32::try_from(v).map_err(|_| format!("`order` holds invalid {v}")))
                    .collect::<Result<_, _>>()?;
                Trans { order }
            }
            "tt.join" => Join,
            "tt.split" => Split,
            "tt.cat" => Cat,
            "arith.cmpi" => CmpI(d.req_word("predicate", CmpIPredicate::from_word)?),
            "arith.cmpf" => CmpF(d.req_word("predicate", CmpFPredicate::from_word)?),
            "arith.select" => Select,
            "tt.fp_to_fp" => FpToFp {
                rounding: d.word("rounding", RoundingMode::from_word)?,
            },
            "tt.int_to_ptr" => IntToPtr,
            "tt.ptr_to_int" => PtrToInt,
            "tt.addptr" => AddPtr,
            "math.fma" => Fma,
            "tt.precise_sqrt" => PreciseSqrt,
            "tt.precise_divf" => PreciseDivF,
            "tt.mulhiui" => MulHiUI,
            "tt.clampf" => ClampF {
                propagate_nan: d.bool("propagate_nan")?.unwrap_or(false),
            },
            "tt.extern_elementwise" => ExternElementwise {
                libname: d.string("libname")?,
                libpath: d.string("libpath")?,
                symbol: d.string("symbol")?,
                pure: d.bool("pure")?.ok_or("missing attribute `pure`")?,
            },
            "tt.elementwise_inline_asm" => ElementwiseInlineAsm {
                asm: d.string("asm_string")?,
                constraints: d.string("constraints")?,
                pack: d.req_int("packed_element")?,
                pure: d.bool("pure")?.ok_or("missing attribute `pure`")?,
            },
            "tt.load" => Load {
                cache: d
                    .word("cache", CacheModifier::from_word)?
                    .unwrap_or(CacheModifier::None),
                evict: d
                    .word("evict", EvictionPolicy::from_word)?
                    .unwrap_or(EvictionPolicy::Normal),
                is_volatile: d.bool("is_volatile")?.unwrap_or(false),
            },
            "tt.store" => Store {
                cache: d
                    .word("cache", CacheModifier::from_word)?
                    .unwrap_or(CacheModifier::None),
                evict: d
                    .word("evict", EvictionPolicy::from_word)?
                    .unwrap_or(EvictionPolicy::Normal),
            },
            "tt.atomic_rmw" => AtomicRmw {
                op: d.req_word("rmw_op", RmwOp::from_word)?,
                sem: d.req_word("sem", MemSemantic::from_word)?,
                scope: d.req_word("scope", MemScope::from_word)?,
            },
            "tt.atomic_cas" => AtomicCas {
                sem: d.req_word("sem", MemSemantic::from_word)?,
                scope: d.req_word("scope", MemScope::from_word)?,
            },
            "tt.reduce" => Reduce {
                axis: d.req_int("axis")?,
            },
            "tt.reduce.return" => ReduceReturn,
            "tt.scan" => Scan {
                axis: d.req_int("axis")?,
                reverse: d.bool("reverse")?.unwrap_or(false),
            },
            "tt.scan.return" => ScanReturn,
            "tt.dot" => Dot {
                input_precision: d.req_word("input_precision", InputPrecision::from_word)?,
                max_num_imprecise_acc: d.opt_int("max_num_imprecise_acc", 0)?,
            },
            "tt.hint" => Hint(Hints {
                divisibility: d.u64_array("divisibility")?,
                contiguity: d.u64_array("contiguity")?,
                constancy: d.u64_array("constancy")?,
            }),
            "tt.print" => Print {
                prefix: d.string("prefix")?,
                hex: d.bool("hex")?.unwrap_or(false),
            },
            "tt.assert" => Assert {
                message: d.string("message")?,
            },
            "gpu.barrier" => Barrier,
            "tt.gdc_wait" => GdcWait,
            "tt.gdc_launch_dependents" => GdcLaunchDependents,
            "ttg.convert_layout" => ConvertLayout,
            "ttg.local_alloc" => LocalAlloc {
                offset: d
                    .int("offset")?
                    .map(|o| u32::try_from(o).map_err(|_| format!("offset {o} is out of range")))
                    .transpose()?,
            },
            "ttg.local_dealloc" => LocalDealloc,
            "ttg.local_load" => LocalLoad,
            "ttg.local_store" => LocalStore,
            "ttg.memdesc_index" => MemDescIndex,
            "ttg.async_copy_global_to_local" => AsyncCopyGlobalToLocal {
                cache: d
                    .word("cache", CacheModifier::from_word)?
                    .unwrap_or(CacheModifier::None),
                evict: d
                    .word("evict", EvictionPolicy::from_word)?
                    .unwrap_or(EvictionPolicy::Normal),
            },
            "ttg.async_commit_group" => AsyncCommitGroup,
            "ttg.async_wait" => AsyncWait {
                num: d.req_int("num")?,
            },
            "ttng.warp_group_dot_wait" => WarpGroupDotWait {
                pendings: d.req_int("pendings")?,
            },
            "scf.for" => For {
                num_stages: d
                    .int("num_stages")?
                    .map(|n| u32::try_from(n).map_err(|_| format!("num_stages {n} is out of range")))
                    .transpose()?,
            },
            "scf.if" => If,
            "scf.while" => While,
            "scf.yield" => Yield,
            "scf.condition" => Condition,
            "tt.return" => Return,
            _ => return Err(format!("unknown op `{name}`")),
        }
    };
    if let Some((k, _)) = d.entries.first() {
        return Err(format!("unknown attribute `{k}` for `{name}`"));
    }
    Ok(kind)
}
