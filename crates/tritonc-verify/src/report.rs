//! The verification report: one check per (case, output, reference), grouped by stage,
//! rendered as tables for people or as JSON.

use std::fmt::Write as _;

use serde::Serialize;

use crate::compare::{Comparison, Worst};
use crate::plan::{Skipped, Stage};

/// One check: an output of one case against one reference.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Check {
    /// The stage.
    pub stage: Stage,
    /// The case (`spec`, `bf16`, `sizes 127`, `10 runs`).
    pub case: String,
    /// The output tensor, or what was checked (`race check`, `device memory`).
    pub output: String,
    /// The reference (`interpreter`, `y_ref.npy`, `run 1`, `triton`).
    pub against: String,
    /// Whether it passed (a check that does not apply does not fail).
    pub passed: bool,
    /// Whether nothing ran because the case does not apply to the spec (`note` says why).
    #[serde(default)]
    pub not_applicable: bool,
    /// Whether nothing ran because the spec does not declare what the check needs
    /// (`[verify.large]`): shown as `not declared`, never as a pass.
    #[serde(default)]
    pub not_declared: bool,
    /// The comparison, when values were compared.
    pub comparison: Option<Comparison>,
    /// The tolerance used (`exact`, or `atol … rtol …`).
    pub tolerance: Option<String>,
    /// What went wrong or is worth knowing.
    pub note: Option<String>,
}

impl Check {
    /// A check from a comparison.
    pub fn compared(
        stage: Stage,
        case: &str,
        output: &str,
        against: &str,
        comparison: Comparison,
        tolerance: String,
    ) -> Check {
        Check {
            stage,
            case: case.into(),
            output: output.into(),
            against: against.into(),
            passed: comparison.passed(),
            not_applicable: false,
            not_declared: false,
            comparison: Some(comparison),
            tolerance: Some(tolerance),
            note: None,
        }
    }

    /// A check without values: passed or failed with a note.
    pub fn outcome(
        stage: Stage,
        case: &str,
        output: &str,
        against: &str,
        passed: bool,
        note: impl Into<String>,
    ) -> Check {
        Check {
            stage,
            case: case.into(),
            output: output.into(),
            against: against.into(),
            passed,
            not_applicable: false,
            not_declared: false,
            comparison: None,
            tolerance: None,
            note: Some(note.into()),
        }
    }

    /// A case that does not apply to the spec, with the reason: a row of its own, so
    /// that nothing is left out silently.
    pub fn not_applicable(stage: Stage, case: &str, reason: impl Into<String>) -> Check {
        Check {
            not_applicable: true,
            ..Check::outcome(stage, case, "-", "-", true, reason)
        }
    }

    /// A check the spec does not declare what it needs for, with what to declare.
    pub fn not_declared(stage: Stage, case: &str, what: impl Into<String>) -> Check {
        Check {
            not_declared: true,
            ..Check::outcome(stage, case, "-", "-", true, what)
        }
    }

    /// With a note.
    pub fn with_note(mut self, note: impl Into<String>) -> Check {
        self.note = Some(note.into());
        self
    }
}

/// The whole verification of one spec.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VerifyReport {
    /// The spec's path.
    pub spec: String,
    /// The kernel's name.
    pub kernel: String,
    /// The device under test.
    pub device: String,
    /// The stages run.
    pub stages: Vec<Stage>,
    /// The checks, in stage order.
    pub checks: Vec<Check>,
    /// What did not apply.
    pub skipped: Vec<Skipped>,
    /// Whether every check passed.
    pub passed: bool,
}

impl VerifyReport {
    /// Puts the checks in stage order (cases run out of order, e.g. the large one last,
    /// keep their place within the stage) and recomputes `passed`.
    pub fn finish(&mut self) {
        self.checks.sort_by_key(|c| c.stage);
        self.passed = self.checks.iter().all(|c| c.passed);
    }

    /// The stages that have a failing check.
    pub fn failed_stages(&self) -> Vec<Stage> {
        let mut s: Vec<Stage> = self
            .checks
            .iter()
            .filter(|c| !c.passed)
            .map(|c| c.stage)
            .collect();
        s.dedup();
        s
    }

    /// The report as text: a heading and a table per stage, then a summary line.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "verify {} ({}) on {}",
            self.spec, self.kernel, self.device
        );
        for &stage in &self.stages {
            let checks: Vec<&Check> = self.checks.iter().filter(|c| c.stage == stage).collect();
            let skipped: Vec<&Skipped> = self.skipped.iter().filter(|s| s.stage == stage).collect();
            let verdict = if !checks.iter().all(|c| c.passed) {
                "FAIL"
            } else if !checks.is_empty()
                && checks.iter().all(|c| c.not_applicable || c.not_declared)
            {
                "nothing checked"
            } else {
                "pass"
            };
            let _ = writeln!(out, "\nstage {stage}: {verdict}");
            let mut rows = vec![[
                "case", "output", "against", "result", "max abs", "max rel", "worst at", "got",
                "want",
            ]
            .map(String::from)];
            for c in &checks {
                let (abs, rel, at, got, want) = match &c.comparison {
                    Some(cmp) => {
                        let (at, got, want) = match &cmp.worst {
                            Some(Worst { index, got, want }) => {
                                (format!("{index:?}"), num(*got), num(*want))
                            }
                            None => ("-".into(), "-".into(), "-".into()),
                        };
                        (num(cmp.max_abs), num(cmp.max_rel), at, got, want)
                    }
                    None => ("-".into(), "-".into(), "-".into(), "-".into(), "-".into()),
                };
                let result = match (&c.comparison, c.passed) {
                    _ if c.not_applicable => "n/a".to_string(),
                    _ if c.not_declared => "not declared".to_string(),
                    (_, true) => "pass".to_string(),
                    (Some(cmp), false) => format!("FAIL ({}/{})", cmp.mismatches, cmp.numel),
                    (None, false) => "FAIL".to_string(),
                };
                rows.push([
                    c.case.clone(),
                    c.output.clone(),
                    c.against.clone(),
                    result,
                    abs,
                    rel,
                    at,
                    got,
                    want,
                ]);
            }
            out.push_str(&table(&rows));
            for c in &checks {
                let mut notes = Vec::new();
                if let Some(t) = &c.tolerance {
                    if !c.passed {
                        notes.push(format!("tolerance {t}"));
                    }
                }
                if let Some(n) = &c.note {
                    notes.push(n.clone());
                }
                if c.not_applicable {
                    let _ = writeln!(out, "  not applicable: {}: {}", c.case, notes.join("; "));
                } else if c.not_declared {
                    let _ = writeln!(out, "  not declared: {}: {}", c.case, notes.join("; "));
                } else if !notes.is_empty() {
                    let _ = writeln!(
                        out,
                        "  note: {} / {}: {}",
                        c.case,
                        c.output,
                        notes.join("; ")
                    );
                }
            }
            for s in skipped {
                let _ = writeln!(out, "  skipped: {}: {}", s.label, s.reason);
            }
        }
        let failed = self.checks.iter().filter(|c| !c.passed).count();
        let not_applicable = self.checks.iter().filter(|c| c.not_applicable).count();
        let not_declared = self.checks.iter().filter(|c| c.not_declared).count();
        let _ = writeln!(
            out,
            "\n{}: {} checks, {} failed{}{}{}",
            if !self.passed {
                "FAIL"
            } else if not_applicable + not_declared == self.checks.len() {
                // Nothing was compared with an independent reference.
                "NOTHING CHECKED"
            } else {
                "PASS"
            },
            self.checks.len(),
            failed,
            if not_applicable > 0 {
                format!(", {not_applicable} not applicable")
            } else {
                String::new()
            },
            if not_declared > 0 {
                format!(", {not_declared} not declared")
            } else {
                String::new()
            },
            match self.failed_stages().as_slice() {
                [] => String::new(),
                s => format!(
                    " (stage {})",
                    s.iter()
                        .map(|s| s.number().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            }
        );
        out
    }
}

/// A number for a table cell: compact, exact enough to tell values apart.
fn num(x: f64) -> String {
    if x == 0.0 {
        "0".into()
    } else if x.is_nan() || x.is_infinite() {
        format!("{x}")
    } else if (1e-3..1e5).contains(&x.abs()) {
        let s = format!("{x:.6}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        format!("{x:.3e}")
    }
}

/// Left-aligned columns separated by two spaces, the first row a header.
fn table(rows: &[[String; 9]]) -> String {
    let mut widths = [0usize; 9];
    for r in rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let mut out = String::new();
    for r in rows {
        let mut line = String::from("  ");
        for (i, (c, w)) in r.iter().zip(widths).enumerate() {
            line.push_str(c);
            if i + 1 < r.len() {
                line.extend(std::iter::repeat_n(' ', w - c.chars().count() + 2));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_compact() {
        assert_eq!(num(0.0), "0");
        assert_eq!(num(0.5), "0.5");
        assert_eq!(num(1.0), "1");
        assert_eq!(num(2.5e-7), "2.500e-7");
        assert_eq!(num(f64::NAN), "NaN");
    }

    #[test]
    fn a_failing_check_fails_the_report_and_names_its_stage() {
        let mut r = VerifyReport {
            spec: "s.toml".into(),
            kernel: "k".into(),
            device: "interpreter".into(),
            stages: vec![Stage::Correctness, Stage::Determinism],
            checks: vec![
                Check::outcome(Stage::Correctness, "spec", "y", "interpreter", true, "ok"),
                Check::outcome(
                    Stage::Determinism,
                    "10 runs",
                    "race check",
                    "interpreter",
                    false,
                    "E0602",
                ),
            ],
            skipped: vec![],
            passed: true,
        };
        r.finish();
        assert!(!r.passed);
        assert_eq!(r.failed_stages(), vec![Stage::Determinism]);
        let text = r.render();
        assert!(text.contains("stage 1 correctness: pass"), "{text}");
        assert!(text.contains("stage 4 determinism: FAIL"), "{text}");
        assert!(
            text.trim_end()
                .ends_with("FAIL: 2 checks, 1 failed (stage 4)"),
            "{text}"
        );
        let json = serde_json::to_value(&r).expect("serializes");
        assert_eq!(json["checks"][1]["stage"], "Determinism");
        assert_eq!(json["passed"], false);
    }
}
