//! `tritonc tune` without a GPU: the interpreter is the bench (its times mean nothing,
//! its answers do). The fixture `tests/fixtures/tune/row_sum.py` has a config whose block
//! (16) is smaller than the 40-element rows (a wrong answer), one pruned by its
//! `early_config_prune`, and a `reset_to_zero` argument.

use std::path::{Path, PathBuf};

use super::common::{repo_root, tritonc_in};

const SPEC: &str = "crates/tritonc/tests/fixtures/tune/row_sum.toml";
const UNTUNED: &str = "crates/tritonc/tests/fixtures/tune/row_sum_untuned.toml";

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tritonc-tune-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// The tuning tables in `dir`.
fn tables(dir: &Path) -> Vec<serde_json::Value> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).expect("the output directory exists") {
        let p = e.expect("entry").path();
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
        if name.starts_with("row_sum.tune-") && name.ends_with(".json") {
            let text = std::fs::read_to_string(&p).expect("the table reads");
            out.push(serde_json::from_str(&text).expect("the table is JSON"));
        }
    }
    out
}

/// The phases of a reused result (nothing ran).
fn again_phases(stdout: &str) -> serde_json::Value {
    let j: serde_json::Value = serde_json::from_str(stdout).expect("JSON");
    j["results"][0]["tune_phases_s"].clone()
}

fn tune(extra: &[&str]) -> super::common::Outcome {
    let mut args = vec!["tune", SPEC, "--interpret", "--rounds", "2", "--warmup", "0"];
    args.extend_from_slice(extra);
    tritonc_in(&repo_root(), &args)
}

#[test]
fn tune_catches_the_wrong_config_prunes_and_a_second_process_reuses_the_table() {
    let dir = scratch("reuse");
    let d = dir.to_str().expect("utf-8");
    let o = tune(&["-o", d]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    // Config [1] sums 16 of 40 columns: reported, never chosen.
    assert!(
        o.stdout.contains("[1] BLOCK=16, num_warps=1, num_stages=3: WRONG ANSWER (not chosen)"),
        "{}",
        o.stdout
    );
    assert!(o.stderr.contains("computes a different answer: not chosen"), "{}", o.stderr);
    // Row 2 is 80 + … + 119 = 3980; the 16-wide block sums 80 … 95 = 1400.
    assert!(o.stderr.contains("worst at [2]: 1400 where the reference has 3980"), "{}", o.stderr);
    // Config [3] (BLOCK=1024 > 4 × 40) is pruned by the kernel's own function.
    assert!(o.stdout.contains("[3] BLOCK=1024, num_warps=4, num_stages=3: pruned"), "{}", o.stdout);
    // Lint and tune agree: TRI301 is shown for the kernel.
    assert!(o.stderr.contains("TRI301"), "{}", o.stderr);
    let t = tables(&dir);
    assert_eq!(t.len(), 1, "one content-addressed table");
    let entry = &t[0]["entries"][0];
    assert_eq!(entry["key"], serde_json::json!({"n_cols": 40}));
    let winner = entry["winner"].as_u64().expect("a winner");
    assert!(winner == 0 || winner == 2, "a correct config wins, not {winner}");
    assert_eq!(entry["outcomes"][1]["status"], "wrong");
    assert_eq!(entry["outcomes"][3]["status"], "pruned");
    assert_eq!(entry["outcomes"][0]["status"], "timed");
    assert_eq!(t[0]["device"], "interpreter");

    // A second process: the winner comes from the table, nothing is run again.
    let again = tune(&["-o", d, "--json"]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    let j: serde_json::Value = serde_json::from_str(&again.stdout).expect("JSON");
    let r = &j["results"][0];
    assert_eq!(r["reused"], true, "{}", again.stdout);
    assert_eq!(r["winner"].as_u64(), Some(winner));
    assert_eq!(r["tune_s"], 0.0);
    // `--force` tunes again; another key value adds an entry.
    let forced = tune(&["-o", d, "--json", "--force", "--key", "n_cols=48"]);
    assert_eq!(forced.code, 0, "{}", forced.stderr);
    let j: serde_json::Value = serde_json::from_str(&forced.stdout).expect("JSON");
    assert_eq!(j["results"][0]["reused"], false);
    assert_eq!(j["results"][0]["key"], serde_json::json!({"n_cols": 48}));
    // Where the time went: every part measured, none longer than the whole (one worker).
    let phases = &j["results"][0]["tune_phases_s"];
    let tune_s = j["results"][0]["tune_s"].as_f64().expect("tune_s");
    let mut sum = 0.0;
    for part in ["reference_s", "run_s", "check_s", "time_s"] {
        let v = phases[part].as_f64().unwrap_or_else(|| panic!("{part} in {phases}"));
        assert!(v > 0.0 && v <= tune_s, "{part} = {v}, tune_s = {tune_s}");
        sum += v;
    }
    assert!(sum <= tune_s * 1.001, "{phases} adds up to more than {tune_s}");
    assert_eq!(again_phases(&again.stdout), serde_json::json!({"reference_s": 0.0, "run_s": 0.0, "check_s": 0.0, "time_s": 0.0}));
    let t = tables(&dir);
    assert_eq!(t[0]["entries"].as_array().map(Vec::len), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn run_takes_the_tuned_config_exact_nearest_or_first() {
    let dir = scratch("dispatch");
    let d = dir.to_str().expect("utf-8");
    let root = repo_root();
    // No table yet: the first config, said so.
    let o = tritonc_in(&root, &["run", UNTUNED, "--interpret", "--bundle", d]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stderr.contains("config [0] BLOCK=64"), "{}", o.stderr);
    assert!(o.stderr.contains("no tuning table"), "{}", o.stderr);
    assert!(o.stdout.contains("row_sum on interpreter"), "{}", o.stdout);
    // Tuned for 40 columns only: 48 takes the nearest entry's winner.
    let t = tune(&["-o", d, "--json"]);
    assert_eq!(t.code, 0, "{}", t.stderr);
    let j: serde_json::Value = serde_json::from_str(&t.stdout).expect("JSON");
    let winner = j["results"][0]["winner"].as_u64().expect("winner");
    let o = tritonc_in(&root, &["run", UNTUNED, "--interpret", "--bundle", d]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stderr.contains(&format!("config [{winner}]")), "{}", o.stderr);
    assert!(o.stderr.contains("tuned for n_cols=40 on interpreter, the nearest to n_cols=48"), "{}", o.stderr);
    // After tuning 48 itself: exact.
    let t = tune(&["-o", d, "--key", "n_cols=48"]);
    assert_eq!(t.code, 0, "{}", t.stderr);
    let o = tritonc_in(&root, &["run", UNTUNED, "--interpret", "--bundle", d]);
    assert!(o.stderr.contains("(tuned for n_cols=48 on interpreter)"), "{}", o.stderr);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn tune_with_two_workers_and_the_interpreter_as_reference_agrees() {
    let dir = scratch("workers");
    let d = dir.to_str().expect("utf-8");
    let o = tune(&["-o", d, "--devices", "2", "--reference", "interpreter", "--json"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let j: serde_json::Value = serde_json::from_str(&o.stdout).expect("JSON");
    let r = &j["results"][0];
    assert_eq!(r["workers"], 2);
    assert_eq!(r["reference"], "interpreter (config 0)");
    let status: Vec<&str> = r["outcomes"]
        .as_array()
        .expect("outcomes")
        .iter()
        .map(|o| o["status"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(status, ["timed", "wrong", "timed", "pruned"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn reset_to_zero_clears_the_argument_before_every_checked_run() {
    use tritonc_driver::tune::bench::{InterpreterBench, TuneBench};
    let root = repo_root();
    let spec_path = root.join(SPEC);
    let mut sources = tritonc_diagnostics::SourceMap::new();
    let loaded = tritonc_verify::load_spec(&spec_path, &mut sources).expect("the spec loads");
    let options = tritonc_driver::options::Options::new(
        tritonc_driver::target::Target::parse("sm_90").expect("target"),
    );
    let session = tritonc_driver::tune::tuner::prepare_session(
        &loaded.spec,
        &spec_path,
        &mut sources,
        &tritonc_spec::SingleFile,
        &options,
    )
    .expect("the session prepares");
    assert_eq!(session.tuned.reset_to_zero, ["total_ptr"]);
    let pruned: Vec<bool> = session.candidates.iter().map(|c| c.pruned).collect();
    assert_eq!(pruned, [false, false, false, true]);
    let case = session.candidates[0].case.as_ref().expect("config 0 prepares");
    let out = InterpreterBench::new(None).run(case, None).expect("runs");
    let total = out.iter().find(|o| o.name == "total").expect("total");
    // 780 + 2380 + 3980: the spec's initial 100 was cleared first.
    assert_eq!(total.values, [7140.0]);
    let y = out.iter().find(|o| o.name == "y").expect("y");
    assert_eq!(y.values, [780.0, 2380.0, 3980.0]);
}

#[test]
fn tune_refuses_what_it_cannot_tune() {
    let root = repo_root();
    let o = tritonc_in(&root, &["tune", "examples/vector_add.toml", "--interpret"]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(o.stderr.contains("E0516") && o.stderr.contains("no `@triton.autotune`"), "{}", o.stderr);
    let o = tritonc_in(&root, &["tune", "examples/matmul.py", "--interpret"]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(o.stderr.contains("takes launch specs"), "{}", o.stderr);
    let o = tritonc_in(&root, &["tune", SPEC, "--interpret", "--key", "n_cols=abc"]);
    assert_eq!(o.code, 2, "{}", o.stderr);
}

#[cfg(feature = "mlir")]
#[test]
fn compile_only_here_then_bundles_without_a_gpu_is_exit_3() {
    if tritonc_runtime::Device::driver_present() {
        return;
    }
    let dir = scratch("bundles");
    let d = dir.to_str().expect("utf-8");
    let root = repo_root();
    let o = tritonc_in(&root, &["tune", SPEC, "--compile-only", "-o", d]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stderr.contains("3 of 4 configs compiled"), "{}", o.stderr);
    let bundles = std::fs::read_dir(&dir)
        .expect("written")
        .filter(|e| e.as_ref().is_ok_and(|e| e.path().extension().is_some_and(|x| x == "tcb")))
        .count();
    assert_eq!(bundles, 3, "the pruned config is not compiled");
    let o = tritonc_in(&root, &["tune", SPEC, "--bundle", d]);
    assert_eq!(o.code, 3, "{}", o.stderr);
    assert!(o.stderr.contains("cannot tune on the GPU"), "{}", o.stderr);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--emit c --tuned DIR` finds the kernel's tables in DIR; entries timed on other code
/// (here the interpreter's) are left out with E0518 and the C still has the tuned
/// functions (the first config then); `--tuned` without `--emit c` is an input error.
#[test]
fn emit_c_reads_tuning_tables_and_leaves_out_entries_of_other_code() {
    let dir = scratch("emit-c");
    let d = dir.to_str().expect("utf-8");
    let o = tune(&["-o", d]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let c_dir = dir.join("c");
    let c = c_dir.to_str().expect("utf-8");
    let kernel = "crates/tritonc/tests/fixtures/tune/row_sum.py";
    let sig = "*fp32, *fp32, *fp32, i32";
    let o = tritonc_in(
        &repo_root(),
        &["compile", kernel, "--signature", sig, "--emit", "c", "-o", c, "--tuned", d],
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stderr.contains("warning[E0518]")
            && o.stderr.contains("1 of 1 tuned entries were measured on other code"),
        "{}",
        o.stderr
    );
    let header = std::fs::read_to_string(c_dir.join("row_sum.h")).expect("the header");
    assert!(
        header.contains("const row_sum_row_sum_config *row_sum_tuned_config(long long n_cols);"),
        "{header}"
    );
    assert!(header.contains("Tuned on: interpreter (0 key values)"), "{header}");
    let o = tritonc_in(
        &repo_root(),
        &["compile", kernel, "--signature", sig, "--emit", "ptx", "--tuned", d],
    );
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(o.stderr.contains("E0518") && o.stderr.contains("is for `--emit c`"), "{}", o.stderr);
    let _ = std::fs::remove_dir_all(&dir);
}
