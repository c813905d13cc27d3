//! Stage planning: the launches each of the five stages needs, as variations of the
//! spec (other dtypes, other sizes, other initial values).
//!
//! Sizes vary only through the spec's *literal* dims: a tensor written
//! `shape = [1823, 781]` is a root; `shape = "x.shape"`, strides, the grid and every
//! argument are expressions over the roots and follow them. Equal literal dims stay
//! equal (a value maps to one new value), so `x: [512, 4096]` and `w: [4096]` still
//! agree after the change.

use std::fmt;

use serde::Serialize;
use tritonc_ir::DType;
use tritonc_spec::parse::{ExprValue, Init, Specials};
use tritonc_spec::LaunchSpec;

use crate::config::{SizeVariation, VerifyConfig};

/// The five stages, in protocol order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Stage {
    /// 1: the spec as written.
    Correctness,
    /// 2: the float tensors in fp16, bf16 and fp32.
    Dtypes,
    /// 3: odd sizes, 1×1, 1×N, zeros, inf/NaN, poisoned masked lanes.
    EdgeCases,
    /// 4: repeated runs bitwise identical; the interpreter's race check.
    Determinism,
    /// 5: many launches; device memory must not grow, results must not drift.
    Stress,
}

impl Stage {
    /// Every stage, in order.
    pub const ALL: [Stage; 5] = [
        Stage::Correctness,
        Stage::Dtypes,
        Stage::EdgeCases,
        Stage::Determinism,
        Stage::Stress,
    ];

    /// The stage's number (1-5), as `--stages` takes it.
    pub fn number(self) -> u32 {
        self as u32 + 1
    }

    /// The stage numbered `n`.
    pub fn from_number(n: u32) -> Option<Stage> {
        Stage::ALL.get((n as usize).checked_sub(1)?).copied()
    }

    /// A short name.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Correctness => "correctness",
            Stage::Dtypes => "dtype sweep",
            Stage::EdgeCases => "edge cases",
            Stage::Determinism => "determinism",
            Stage::Stress => "stress",
        }
    }
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.number(), self.name())
    }
}

/// Parses `--stages 1,3` (also `1-3`); every number must be 1 to 5.
pub fn parse_stages(text: &str) -> Result<Vec<Stage>, String> {
    let mut out = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (a, b) = match part.split_once('-') {
            Some((a, b)) => (a.trim(), b.trim()),
            None => (part, part),
        };
        let num = |s: &str| {
            s.parse::<u32>()
                .ok()
                .filter(|n| (1..=5).contains(n))
                .ok_or_else(|| format!("`{part}` is not a stage number from 1 to 5"))
        };
        for n in num(a)?..=num(b)? {
            out.push(Stage::from_number(n).expect("checked to be 1..=5"));
        }
    }
    if out.is_empty() {
        return Err("no stage given; stages are numbered 1 to 5".into());
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// What a case checks.
#[derive(Debug, Clone, PartialEq)]
pub enum CaseKind {
    /// One device run against the interpreter (and the spec's references when
    /// `with_references`).
    Compare {
        /// Whether the spec's `.npy` references apply (same shapes and dtypes).
        with_references: bool,
    },
    /// The interpreter with masked lanes poisoned against the interpreter without:
    /// outputs must not depend on undefined lanes.
    PoisonVsNormal,
    /// `runs` device runs compared with each other; the interpreter's race check.
    Repeat {
        /// Runs.
        runs: usize,
    },
    /// `iterations` device launches: memory use and results must stay put.
    Stress {
        /// Launches.
        iterations: usize,
    },
    /// Nothing runs: the variant does not apply to this spec (a size variant when the
    /// spec has no free dim that makes it). Shown in the stage's table with the reason.
    NotApplicable {
        /// Why.
        reason: String,
    },
    /// Stage 3's launch past 2^31 elements (`[verify.large]`): the whole launch on the
    /// device, sampled program ids on the interpreter ([`crate::large`]). The case's
    /// spec has every tensor zeroed so that preparing it only for its specialization
    /// costs nothing; `inits` puts the initializers back for a real run.
    Large {
        /// Each tensor's initializer and special values, in spec order.
        inits: Vec<(Init, Specials)>,
        /// Why the declared large launch cannot be made from the spec, if it cannot.
        problem: Option<String>,
    },
    /// The spec does not declare `[verify.large]`: the large-input check is shown as not
    /// declared, not passed.
    NotDeclared,
}

/// One planned launch of a stage.
#[derive(Debug, Clone)]
pub struct Case {
    /// The stage it belongs to.
    pub stage: Stage,
    /// What it is (`bf16`, `sizes 127`, `inf/nan inputs`).
    pub label: String,
    /// The spec to launch.
    pub spec: LaunchSpec,
    /// What to check.
    pub kind: CaseKind,
}

/// A stage that has nothing to run for this spec, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Skipped {
    /// The stage.
    pub stage: Stage,
    /// What was skipped.
    pub label: String,
    /// Why.
    pub reason: String,
}

/// The plan: cases in stage order, and what was left out.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The launches.
    pub cases: Vec<Case>,
    /// Checks that do not apply.
    pub skipped: Vec<Skipped>,
}

/// Plans the cases of `stages` for `spec`.
pub fn plan(spec: &LaunchSpec, config: &VerifyConfig, stages: &[Stage]) -> Plan {
    let mut cases = Vec::new();
    let mut skipped = Vec::new();
    let case = |stage, label: &str, spec: LaunchSpec, kind| Case {
        stage,
        label: label.to_string(),
        spec,
        kind,
    };
    for &stage in stages {
        match stage {
            Stage::Correctness => cases.push(case(
                stage,
                "spec",
                spec.clone(),
                CaseKind::Compare {
                    with_references: true,
                },
            )),
            Stage::Dtypes => match primary_float_dtype(spec) {
                None => skipped.push(Skipped {
                    stage,
                    label: "float dtypes".into(),
                    reason: "the spec has no float tensors".into(),
                }),
                Some(original) => {
                    for &d in &config.dtypes {
                        let label = dtype_label(d);
                        if d == original {
                            skipped.push(Skipped {
                                stage,
                                label: label.into(),
                                reason: "the spec's own dtype: stage 1".into(),
                            });
                            continue;
                        }
                        cases.push(case(
                            stage,
                            label,
                            with_dtype(spec, original, d),
                            CaseKind::Compare {
                                with_references: false,
                            },
                        ));
                    }
                }
            },
            Stage::EdgeCases => plan_edge_cases(spec, config, &mut cases, &mut skipped),
            Stage::Determinism => cases.push(case(
                stage,
                &format!("{} runs", config.runs),
                spec.clone(),
                CaseKind::Repeat { runs: config.runs },
            )),
            Stage::Stress => cases.push(case(
                stage,
                &format!("{} launches", config.stress_iterations),
                spec.clone(),
                CaseKind::Stress {
                    iterations: config.stress_iterations,
                },
            )),
        }
    }
    // The large launch runs last: a launch that faults on the GPU leaves its context
    // unusable, and no other case should pay for that. Reports group checks by stage.
    if let (true, Some(large)) = (stages.contains(&Stage::EdgeCases), &config.large) {
        let (large_spec, problem) = match crate::large::large_spec(spec, large) {
            Ok(s) => (s, None),
            Err(why) => (spec.clone(), Some(why)),
        };
        let (zeroed, inits) = crate::large::zeroed(&large_spec);
        cases.push(case(
            Stage::EdgeCases,
            crate::large::LABEL,
            zeroed,
            CaseKind::Large { inits, problem },
        ));
    }
    Plan { cases, skipped }
}

fn plan_edge_cases(
    spec: &LaunchSpec,
    config: &VerifyConfig,
    cases: &mut Vec<Case>,
    skipped: &mut Vec<Skipped>,
) {
    let stage = Stage::EdgeCases;
    let compare = CaseKind::Compare {
        with_references: false,
    };
    let fixed = spec
        .tensors
        .iter()
        .find(|t| matches!(t.init, Init::Npy(_)))
        .map(|t| format!("`{}` is read from a .npy file of fixed shape", t.name));
    let free = &config.vary_sizes;
    let size_reason = match (&fixed, free, has_free_dims(spec, free)) {
        (Some(why), _, _) => Some(why.clone()),
        (None, SizeVariation::Off, _) => Some("`vary_sizes = false` in `[verify]`".to_string()),
        (None, SizeVariation::Every, false) => {
            Some("the spec has no literal dim above 1 to vary".to_string())
        }
        (None, SizeVariation::Only(_), false) => {
            Some("no dim listed in `vary_sizes` is a literal dim above 1".to_string())
        }
        (None, _, true) => None,
    };
    let mut variants: Vec<(String, LaunchSpec)> = config
        .edge_sizes
        .iter()
        .map(|&n| (format!("sizes {n}"), with_dims(spec, free, |_, _, _| n)))
        .collect();
    variants.push(("1×1".into(), with_dims(spec, free, |_, _, _| 1)));
    variants.push((
        "1×N".into(),
        with_dims(
            spec,
            free,
            |pos, rank, v| if pos + 1 < rank { 1 } else { v },
        ),
    ));
    // A variant the spec's free dims cannot make (or make only as an earlier one) is
    // reported as not applicable, with the reason, in the stage's table.
    let mut seen: Vec<(&str, &LaunchSpec)> = vec![("the spec as written", spec)];
    for (label, s) in &variants {
        let reason = match (&size_reason, seen.iter().find(|(_, e)| *e == s)) {
            (Some(why), _) => Some(why.clone()),
            (None, Some((same, _))) => Some(format!(
                "the spec has no free dim for it: {} leave{} it the same launch as {}",
                free_dims_phrase(spec, free),
                if free_dim_count(spec, free) == 1 {
                    "s"
                } else {
                    ""
                },
                if same.starts_with("the spec") {
                    same.to_string()
                } else {
                    format!("`{same}`")
                }
            )),
            (None, None) => None,
        };
        let kind = match reason {
            Some(reason) => CaseKind::NotApplicable { reason },
            None => {
                seen.push((label, s));
                compare.clone()
            }
        };
        cases.push(Case {
            stage,
            label: label.clone(),
            spec: s.clone(),
            kind,
        });
    }
    let inputs: Vec<usize> = (0..spec.tensors.len())
        .filter(|&i| !spec.tensors[i].output)
        .collect();
    if inputs.is_empty() {
        skipped.push(Skipped {
            stage,
            label: "zero / inf / NaN inputs".into(),
            reason: "every tensor is an output".into(),
        });
    } else {
        let mut zeros = spec.clone();
        for &i in &inputs {
            zeros.tensors[i].init = Init::Zeros;
            zeros.tensors[i].specials = Specials::default();
        }
        cases.push(Case {
            stage,
            label: "zero inputs".into(),
            spec: zeros,
            kind: compare.clone(),
        });
        let float_inputs: Vec<usize> = inputs
            .iter()
            .copied()
            .filter(|&i| spec.tensors[i].dtype.is_float())
            .collect();
        if float_inputs.is_empty() {
            skipped.push(Skipped {
                stage,
                label: "inf/NaN inputs".into(),
                reason: "no float inputs".into(),
            });
        } else {
            let mut specials = spec.clone();
            for &i in &float_inputs {
                specials.tensors[i].specials = Specials {
                    nan: 0.01,
                    inf: 0.005,
                    neg_inf: 0.005,
                };
            }
            cases.push(Case {
                stage,
                label: "inf/NaN inputs".into(),
                spec: specials,
                kind: compare.clone(),
            });
        }
    }
    cases.push(Case {
        stage,
        label: "poisoned masked lanes".into(),
        spec: spec.clone(),
        kind: CaseKind::PoisonVsNormal,
    });
    if config.large.is_none() {
        cases.push(Case {
            stage,
            label: crate::large::LABEL.into(),
            spec: spec.clone(),
            kind: CaseKind::NotDeclared,
        });
    }
}

/// The name stage 2 uses for a dtype.
fn dtype_label(d: DType) -> &'static str {
    d.signature_name().unwrap_or("?")
}

/// The float dtype of the first float tensor: the one stage 2 varies.
pub fn primary_float_dtype(spec: &LaunchSpec) -> Option<DType> {
    spec.tensors
        .iter()
        .map(|t| t.dtype)
        .find(|d| matches!(d, DType::F16 | DType::BF16 | DType::F32))
}

/// `spec` with every tensor of dtype `from` turned into `to` (tensors of other dtypes,
/// e.g. an fp32 statistics output beside fp16 data, keep theirs).
pub fn with_dtype(spec: &LaunchSpec, from: DType, to: DType) -> LaunchSpec {
    let mut s = spec.clone();
    for t in &mut s.tensors {
        if t.dtype == from {
            t.dtype = to;
        }
    }
    s
}

/// The literal dims above 1 that `free` lets vary, as `x.shape[0]`.
fn free_dims(spec: &LaunchSpec, free: &SizeVariation) -> Vec<String> {
    let mut out = Vec::new();
    for t in &spec.tensors {
        for (pos, e) in t.shape.iter().enumerate() {
            if matches!(e.value, ExprValue::Int(v) if v > 1) && free.allows(&t.name, pos) {
                out.push(format!("{}.shape[{pos}]", t.name));
            }
        }
    }
    out
}

fn has_free_dims(spec: &LaunchSpec, free: &SizeVariation) -> bool {
    free_dim_count(spec, free) > 0
}

fn free_dim_count(spec: &LaunchSpec, free: &SizeVariation) -> usize {
    free_dims(spec, free).len()
}

/// "its free dims (`q.shape[1]`, `q.shape[2]`)" for a not-applicable reason.
fn free_dims_phrase(spec: &LaunchSpec, free: &SizeVariation) -> String {
    let dims: Vec<String> = free_dims(spec, free)
        .into_iter()
        .map(|d| format!("`{d}`"))
        .collect();
    match dims.as_slice() {
        [one] => format!("its only free dim, {one},"),
        _ => format!("its free dims ({})", dims.join(", ")),
    }
}

/// Checks that every dim `vary_sizes` lists is a literal dim of the spec: a name that
/// matches nothing would silently vary less than the spec says.
pub fn check_vary_sizes(spec: &LaunchSpec, config: &VerifyConfig) -> Result<(), String> {
    let SizeVariation::Only(dims) = &config.vary_sizes else {
        return Ok(());
    };
    for d in dims {
        let Some(t) = spec.tensors.iter().find(|t| t.name == d.tensor) else {
            return Err(format!(
                "`vary_sizes` names `{d}`, but the spec has no tensor `{}`",
                d.tensor
            ));
        };
        match t.shape.get(d.dim).map(|e| &e.value) {
            Some(ExprValue::Int(_)) => {}
            Some(_) => {
                return Err(format!(
                    "`vary_sizes` names `{d}`, which is an expression: it follows the dims \
                     it is written in; list those instead"
                ))
            }
            None => {
                return Err(format!(
                    "`vary_sizes` names `{d}`, but `{}` has {} dim(s)",
                    t.name,
                    t.shape.len()
                ))
            }
        }
    }
    Ok(())
}

/// `spec` with every literal dim that `free` allows replaced by `f(position, rank,
/// value)`; a dim of 1 stays 1 (it is a broadcast or a deliberate singleton). Dims
/// written as expressions follow the literals they name.
pub fn with_dims(
    spec: &LaunchSpec,
    free: &SizeVariation,
    f: impl Fn(usize, usize, usize) -> usize,
) -> LaunchSpec {
    let mut s = spec.clone();
    for t in &mut s.tensors {
        let rank = t.shape.len();
        for (pos, e) in t.shape.iter_mut().enumerate() {
            if let ExprValue::Int(v) = e.value {
                if v > 1 && free.allows(&t.name, pos) {
                    e.value = ExprValue::Int(f(pos, rank, v as usize) as i64);
                }
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use tritonc_diagnostics::FileId;

    fn spec(text: &str) -> LaunchSpec {
        tritonc_spec::parse(text, FileId(0)).expect("the test spec parses")
    }

    const NORM: &str = r#"
kernel = "k.py"
grid = ["x.shape[0]"]
[tensors.x]
shape = [512, 4096]
dtype = "float16"
init = "randn"
[tensors.w]
shape = [4096]
dtype = "float16"
[tensors.y]
shape = "x.shape"
dtype = "float16"
output = true
[tensors.rstd]
shape = ["x.shape[0]"]
dtype = "float32"
output = true
[args]
x = "x"
"#;

    fn dims(s: &LaunchSpec, name: &str) -> Vec<i64> {
        let t = s.tensors.iter().find(|t| t.name == name).expect("tensor");
        t.shape
            .iter()
            .map(|e| match e.value {
                ExprValue::Int(v) => v,
                _ => -1,
            })
            .collect()
    }

    #[test]
    fn stage_numbers_parse_with_ranges_and_reject_others() {
        assert_eq!(
            parse_stages("1,3").expect("valid"),
            vec![Stage::Correctness, Stage::EdgeCases]
        );
        assert_eq!(parse_stages("2-4").expect("valid").len(), 3);
        assert_eq!(parse_stages("5,1,1").expect("valid").len(), 2);
        assert!(parse_stages("0").is_err());
        assert!(parse_stages("6").is_err());
        assert!(parse_stages("").is_err());
    }

    #[test]
    fn size_variants_keep_equal_dims_equal_and_leave_expressions_alone() {
        let s = spec(NORM);
        let odd = with_dims(&s, &SizeVariation::Every, |_, _, _| 127);
        assert_eq!(dims(&odd, "x"), vec![127, 127]);
        assert_eq!(dims(&odd, "w"), vec![127]);
        // Derived shapes stay expressions.
        assert_eq!(dims(&odd, "y"), vec![-1]);
        let row = with_dims(&s, &SizeVariation::Every, |pos, rank, v| {
            if pos + 1 < rank {
                1
            } else {
                v
            }
        });
        assert_eq!(dims(&row, "x"), vec![1, 4096]);
        assert_eq!(dims(&row, "w"), vec![4096]);
    }

    #[test]
    fn dtype_sweep_changes_the_primary_float_dtype_only() {
        let s = spec(NORM);
        assert_eq!(primary_float_dtype(&s), Some(DType::F16));
        let b = with_dtype(&s, DType::F16, DType::BF16);
        let dt: Vec<DType> = b.tensors.iter().map(|t| t.dtype).collect();
        assert_eq!(dt, vec![DType::BF16, DType::BF16, DType::BF16, DType::F32]);
    }

    #[test]
    fn the_plan_covers_every_stage_and_says_what_it_skips() {
        let s = spec(NORM);
        let p = plan(&s, &VerifyConfig::default(), &Stage::ALL);
        let labels: Vec<(Stage, &str)> = p
            .cases
            .iter()
            .map(|c| (c.stage, c.label.as_str()))
            .collect();
        assert!(labels.contains(&(Stage::Correctness, "spec")));
        assert!(labels.contains(&(Stage::Dtypes, "bf16")));
        assert!(labels.contains(&(Stage::Dtypes, "fp32")));
        assert!(!labels.contains(&(Stage::Dtypes, "fp16")));
        for l in [
            "sizes 127",
            "sizes 33",
            "1×1",
            "1×N",
            "zero inputs",
            "inf/NaN inputs",
        ] {
            assert!(labels.contains(&(Stage::EdgeCases, l)), "{l}");
        }
        assert!(labels.contains(&(Stage::Determinism, "10 runs")));
        assert!(labels.contains(&(Stage::Stress, "200 launches")));
        assert!(p
            .skipped
            .iter()
            .any(|k| k.stage == Stage::Dtypes && k.label == "fp16"));
        // Only stage 3 when asked for only stage 3.
        let p3 = plan(&s, &VerifyConfig::default(), &[Stage::EdgeCases]);
        assert!(p3.cases.iter().all(|c| c.stage == Stage::EdgeCases));
    }

    #[test]
    fn a_one_dimensional_spec_has_no_separate_one_by_n_case() {
        let s = spec(
            "kernel = \"k.py\"\ngrid = [1]\n[tensors.x]\nshape = [1000]\ndtype = \"int32\"\n[args]\nx = \"x\"\n",
        );
        let p = plan(
            &s,
            &VerifyConfig::default(),
            &[Stage::EdgeCases, Stage::Dtypes],
        );
        let kind = |label: &str| {
            p.cases
                .iter()
                .find(|c| c.label == label)
                .map(|c| c.kind.clone())
                .unwrap_or_else(|| panic!("no case `{label}`"))
        };
        assert!(matches!(kind("1×1"), CaseKind::Compare { .. }));
        // 1×N of a 1-D spec is the spec itself: shown as not applicable, not dropped.
        match kind("1×N") {
            CaseKind::NotApplicable { reason } => {
                assert!(reason.contains("no free dim"), "{reason}");
                assert!(reason.contains("the spec as written"), "{reason}");
            }
            other => panic!("1×N: {other:?}"),
        }
        // Integer-only specs have no float sweep and no inf/NaN case.
        assert!(p.skipped.iter().any(|k| k.stage == Stage::Dtypes));
        assert!(p.skipped.iter().any(|k| k.label == "inf/NaN inputs"));
    }

    const ROPE: &str = r#"
kernel = "k.py"
grid = ["q.shape[0]"]
[tensors.q]
shape = [64, 12, 128]
dtype = "float16"
init = "randn"
[tensors.cos]
shape = ["q.shape[0]", "q.shape[2] // 2"]
dtype = "float32"
[args]
q = "q"
"#;

    fn only(dims: &[&str]) -> SizeVariation {
        SizeVariation::Only(
            dims.iter()
                .map(|d| crate::config::DimRef::parse(d).expect("a dim"))
                .collect(),
        )
    }

    #[test]
    fn vary_sizes_keeps_the_dims_it_does_not_list() {
        let s = spec(ROPE);
        let free = only(&["q.shape[0]", "q.shape[1]"]);
        assert_eq!(
            dims(&with_dims(&s, &free, |_, _, _| 127), "q"),
            vec![127, 127, 128]
        );
        assert_eq!(
            dims(&with_dims(&s, &free, |_, _, _| 1), "q"),
            vec![1, 1, 128]
        );
        // Mixed shapes vary their literal dims too (an expression follows its roots).
        let m = spec(&NORM.replace("shape = [4096]", "shape = [\"x.shape[0]\", 4096]"));
        assert_eq!(
            dims(&with_dims(&m, &SizeVariation::Every, |_, _, _| 33), "w"),
            vec![-1, 33]
        );
        assert_eq!(
            dims(&with_dims(&s, &SizeVariation::Off, |_, _, _| 33), "q"),
            vec![64, 12, 128]
        );
    }

    #[test]
    fn a_size_variant_the_free_dims_cannot_make_is_not_applicable_with_the_reason() {
        let s = spec(ROPE);
        let config = VerifyConfig {
            vary_sizes: only(&["q.shape[0]", "q.shape[1]"]),
            ..VerifyConfig::default()
        };
        let p = plan(&s, &config, &[Stage::EdgeCases]);
        let by_label = |l: &str| p.cases.iter().find(|c| c.label == l).expect(l);
        for l in ["sizes 127", "sizes 33", "1×1"] {
            assert!(
                matches!(by_label(l).kind, CaseKind::Compare { .. }),
                "{l} runs"
            );
        }
        // All but the last dim 1, the last dim fixed: the same launch as 1×1.
        match &by_label("1×N").kind {
            CaseKind::NotApplicable { reason } => {
                assert!(reason.contains("`q.shape[0]`, `q.shape[1]`"), "{reason}");
                assert!(reason.contains("`1×1`"), "{reason}");
            }
            other => panic!("{other:?}"),
        }

        // Without free dims every size variant is a visible not-applicable case.
        let off = VerifyConfig {
            vary_sizes: SizeVariation::Off,
            ..VerifyConfig::default()
        };
        let p = plan(&s, &off, &[Stage::EdgeCases]);
        let na: Vec<&str> = p
            .cases
            .iter()
            .filter_map(|c| match &c.kind {
                CaseKind::NotApplicable { reason } => {
                    assert!(reason.contains("vary_sizes = false"), "{reason}");
                    Some(c.label.as_str())
                }
                _ => None,
            })
            .collect();
        assert_eq!(na, vec!["sizes 127", "sizes 33", "1×1", "1×N"]);
    }

    #[test]
    fn vary_sizes_must_name_literal_dims_of_the_spec() {
        let s = spec(ROPE);
        let with = |dims: &[&str]| VerifyConfig {
            vary_sizes: only(dims),
            ..VerifyConfig::default()
        };
        assert!(check_vary_sizes(&s, &with(&["q.shape[2]"])).is_ok());
        let e = check_vary_sizes(&s, &with(&["k.shape[0]"])).expect_err("no tensor k");
        assert!(e.contains("no tensor `k`"), "{e}");
        let e = check_vary_sizes(&s, &with(&["q.shape[3]"])).expect_err("rank 3");
        assert!(e.contains("3 dim(s)"), "{e}");
        let e = check_vary_sizes(&s, &with(&["cos.shape[0]"])).expect_err("an expression");
        assert!(e.contains("expression"), "{e}");
    }
}
