//! End-to-end tests: run the `tritonc` binary on the fixtures under `tests/fixtures/` as
//! a user would, and check the exit status and the exact output.
//!
//! Snapshots hold the exit status, stdout and stderr together. Output is deterministic:
//! the streams are pipes (no colour, ASCII drawing) and `NO_COLOR` is set.

mod common;
use common::*;

/// Runs, checks the exit status and snapshots the transcript under `name`.
fn check(name: &str, args: &[&str], expected_exit: i32) -> Outcome {
    let outcome = tritonc(args);
    assert_eq!(
        outcome.code,
        expected_exit,
        "tritonc {}\n{}",
        args.join(" "),
        outcome.transcript()
    );
    insta::assert_snapshot!(name, outcome.transcript());
    outcome
}

/// Parses JSON output, failing the test with the text if it is not JSON.
fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}):\n{text}"))
}

// ---- lint: unsupported constructs, terminal and JSON ----

#[test]
fn lint_break() {
    check("lint_break", &["lint", "unsupported/break_in_loop.py"], 1);
    let out = check(
        "lint_break_json",
        &["lint", "unsupported/break_in_loop.py", "--format", "json"],
        1,
    );
    let value = json(&out.stdout);
    let d = &value[0];
    assert_eq!(d["code"], "E0101");
    assert_eq!(d["filename"], "unsupported/break_in_loop.py");
    // `break` is on line 11, after 12 spaces.
    assert_eq!(
        (
            d["location"]["row"].as_u64(),
            d["location"]["column"].as_u64()
        ),
        (Some(11), Some(13))
    );
    assert_eq!(d["end_location"]["column"], 18);
}

#[test]
fn lint_continue() {
    check(
        "lint_continue",
        &["lint", "unsupported/continue_in_loop.py"],
        1,
    );
}

#[test]
fn lint_lambda() {
    check("lint_lambda", &["lint", "unsupported/lambda_expr.py"], 1);
    check(
        "lint_lambda_json",
        &["lint", "unsupported/lambda_expr.py", "--format", "json"],
        1,
    );
}

#[test]
fn lint_try() {
    check("lint_try", &["lint", "unsupported/try_except.py"], 1);
}

#[test]
fn lint_nested_def() {
    check("lint_nested_def", &["lint", "unsupported/nested_def.py"], 1);
    check(
        "lint_nested_def_json",
        &["lint", "unsupported/nested_def.py", "--format", "json"],
        1,
    );
}

#[test]
fn lint_chained_comparison() {
    check(
        "lint_chained_comparison",
        &["lint", "unsupported/chained_comparison.py"],
        1,
    );
    check(
        "lint_chained_comparison_json",
        &[
            "lint",
            "unsupported/chained_comparison.py",
            "--format",
            "json",
        ],
        1,
    );
}

#[test]
fn lint_while_else() {
    check("lint_while_else", &["lint", "unsupported/while_else.py"], 1);
}

#[test]
fn lint_dict_raise_import() {
    check(
        "lint_dict_literal",
        &["lint", "unsupported/dict_literal.py"],
        1,
    );
    check("lint_raise", &["lint", "unsupported/raise_stmt.py"], 1);
    check(
        "lint_import_in_kernel",
        &["lint", "unsupported/import_in_kernel.py"],
        1,
    );
}

#[test]
fn lint_several_findings_short_and_github() {
    check("lint_several", &["lint", "unsupported/several.py"], 1);
    let out = check(
        "lint_several_short",
        &["lint", "unsupported/several.py", "--format", "short"],
        1,
    );
    // Sorted by position: line numbers never decrease.
    let lines: Vec<u32> = out
        .stdout
        .lines()
        .filter_map(|l| l.split(':').nth(1).and_then(|n| n.parse().ok()))
        .collect();
    assert_eq!(lines.len(), 5, "{}", out.stdout);
    assert!(lines.windows(2).all(|w| w[0] <= w[1]), "{lines:?}");
    check(
        "lint_several_github",
        &["lint", "unsupported/several.py", "--format", "github"],
        1,
    );
}

#[test]
fn lint_syntax_error() {
    check("lint_syntax_error", &["lint", "syntax_error.py"], 1);
    check(
        "lint_syntax_error_json",
        &["lint", "syntax_error.py", "--format", "json"],
        1,
    );
}

#[test]
fn lint_json_lines_is_one_object_per_line() {
    let out = tritonc(&["lint", "unsupported", "--format", "json-lines"]);
    assert_eq!(out.code, 1);
    let objects: Vec<serde_json::Value> = out.stdout.lines().map(json).collect();
    assert!(objects.len() >= 11, "{}", out.stdout);
    assert!(objects
        .iter()
        .all(|o| o["code"].as_str().is_some_and(|c| c.starts_with("E01"))));
    // The summary goes to stderr so stdout stays machine-readable.
    assert!(out.stderr.starts_with("Found "), "{}", out.stderr);
}

// ---- lint: walking, clean runs, input errors ----

#[test]
fn lint_clean_project_walks_directories() {
    let out = check("lint_clean_project", &["lint", "project"], 0);
    // helper.py uses `from triton import jit`; notes.txt is not Python.
    assert!(
        out.stdout.contains("2 kernels in 2 files"),
        "{}",
        out.stdout
    );
}

#[test]
fn lint_clean_json_is_an_empty_array() {
    let out = tritonc(&["lint", "add.py", "--format", "json"]);
    assert_eq!(out.code, 0);
    assert_eq!(json(&out.stdout), serde_json::json!([]));
    assert_eq!(out.stderr, "All checks passed: 1 kernel in 1 file\n");
    let quiet = tritonc(&["lint", "add.py", "--format", "json", "-q"]);
    assert_eq!(quiet.stderr, "");
}

#[test]
fn lint_nonexistent_path_still_checks_the_others() {
    check(
        "lint_nonexistent_path",
        &["lint", "missing_dir", "add.py"],
        2,
    );
    let out = check(
        "lint_nonexistent_path_json",
        &["lint", "missing.py", "--format", "json"],
        2,
    );
    let value = json(&out.stdout);
    assert_eq!(value[0]["code"], "E0501");
    assert!(value[0]["filename"].is_null() && value[0]["location"].is_null());
}

#[test]
fn lint_non_utf8_file() {
    check("lint_non_utf8", &["lint", "latin1.py"], 2);
    let out = tritonc(&["lint", "latin1.py", "--format", "json"]);
    let d = &json(&out.stdout)[0];
    assert_eq!(d["code"], "E0504");
    // "# caf" is 5 bytes: the bad byte is at line 2, column 6.
    assert_eq!(
        (
            d["location"]["row"].as_u64(),
            d["location"]["column"].as_u64()
        ),
        (Some(2), Some(6))
    );
}

#[test]
fn lint_respects_gitignore_but_not_for_explicit_files() {
    let dir = std::env::temp_dir().join(format!("tritonc-gitignore-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(".gitignore"), "generated.py\n").unwrap();
    std::fs::write(dir.join("generated.py"), "def broken(:\n").unwrap();
    std::fs::write(dir.join("fine.py"), "x = 1\n").unwrap();

    let walked = tritonc_in(&dir, &["lint", "."]);
    assert_eq!(walked.code, 0, "{}", walked.transcript());
    assert_eq!(walked.stdout, "All checks passed: 0 kernels in 1 file\n");

    let explicit = tritonc_in(&dir, &["lint", ".", "generated.py", "--format", "short"]);
    assert_eq!(explicit.code, 1, "{}", explicit.transcript());
    assert!(
        explicit.stdout.starts_with("generated.py:1:"),
        "{}",
        explicit.stdout
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn lint_directory_without_python_warns() {
    let dir = std::env::temp_dir().join(format!("tritonc-nopy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("README.md"), "# docs\n").unwrap();
    let out = tritonc_in(&dir, &["lint", "."]);
    assert_eq!(out.code, 0, "{}", out.transcript());
    assert!(out.stdout.contains("warning[E0513]"), "{}", out.stdout);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn colour_is_on_only_when_asked() {
    let plain = tritonc(&["lint", "unsupported/lambda_expr.py"]);
    assert!(!plain.stdout.contains('\u{1b}'));
    let coloured = tritonc(&["lint", "unsupported/lambda_expr.py", "--color", "always"]);
    assert!(coloured.stdout.contains('\u{1b}'), "{}", coloured.stdout);
}

// ---- compile: kernel selection and option validation ----

#[test]
fn compile_unknown_kernel() {
    check(
        "compile_unknown_kernel",
        &["compile", "two_kernels.py", "--kernel", "scale"],
        2,
    );
    check(
        "compile_unknown_kernel_json",
        &[
            "compile",
            "two_kernels.py",
            "--kernel",
            "scale",
            "--format",
            "json",
        ],
        2,
    );
}

#[test]
fn compile_ambiguous_kernel() {
    check(
        "compile_ambiguous_kernel",
        &["compile", "two_kernels.py"],
        2,
    );
}

#[test]
fn compile_bad_num_warps() {
    check(
        "compile_bad_num_warps",
        &["compile", "add.py", "--num-warps", "6"],
        2,
    );
    check(
        "compile_bad_num_warps_json",
        &["compile", "add.py", "--num-warps", "64", "--format", "json"],
        2,
    );
}

#[test]
fn compile_bad_target_and_stage_reported_together() {
    check(
        "compile_bad_target",
        &["compile", "add.py", "--target", "h100"],
        2,
    );
    check(
        "compile_bad_options_together",
        &[
            "compile",
            "add.py",
            "--num-warps",
            "3",
            "--target",
            "sm_75",
            "--emit",
            "ttir,ir",
        ],
        2,
    );
}

#[test]
fn compile_input_errors() {
    check("compile_nonexistent_file", &["compile", "nope.py"], 2);
    check("compile_directory", &["compile", "project"], 2);
    check("compile_empty_file", &["compile", "empty.py"], 2);
    check("compile_no_kernels", &["compile", "no_kernels.py"], 2);
    check("compile_non_utf8", &["compile", "latin1.py"], 2);
    check("compile_syntax_error", &["compile", "syntax_error.py"], 2);
    check(
        "compile_unsupported_construct",
        &["compile", "unsupported/lambda_expr.py"],
        2,
    );
}

// ---- run, verify ----

#[test]
fn verify_reports_a_missing_spec() {
    check("verify_missing_spec", &["verify", "missing.toml"], 2);
}

// ---- rule ----

#[test]
fn rule_explains_a_code() {
    let out = check("rule_e0507", &["rule", "E0507"], 0);
    assert!(out.stdout.contains("## Example") && out.stdout.contains("## Use instead"));
    let lower = tritonc(&["rule", "e0507"]);
    assert_eq!(lower.stdout, out.stdout);
}

#[test]
fn rule_explains_syntax_codes() {
    let out = tritonc(&["rule", "E0101", "--format", "json"]);
    assert_eq!(out.code, 0, "{}", out.transcript());
    let value = json(&out.stdout);
    assert_eq!(value["code"], "E0101");
    assert_eq!(value["stage"], "syntax");
    assert!(value["explanation"]
        .as_str()
        .is_some_and(|e| e.contains("## Example")));
}

#[test]
fn rule_accepts_rule_names() {
    let by_code = tritonc(&["rule", "TRI101"]);
    assert_eq!(by_code.code, 0, "{}", by_code.transcript());
    assert!(by_code
        .stdout
        .starts_with("# TRI101 (unmasked-block-access)\n"));
    for name in ["unmasked-block-access", "Unmasked-Block-Access"] {
        let by_name = tritonc(&["rule", name]);
        assert_eq!(by_name.code, 0, "{}", by_name.transcript());
        assert_eq!(by_name.stdout, by_code.stdout);
    }
    // Front-end codes have names too.
    let json_out = tritonc(&["rule", "unused-suppression", "--format", "json"]);
    assert_eq!(json(&json_out.stdout)["code"], "TRI002");
    // A misspelt name is an unknown code.
    check("rule_unknown_name", &["rule", "unmasked-block-acess"], 2);
}

#[test]
fn rule_names_are_unique() {
    let rows = json(&tritonc(&["rule", "--all", "--format", "json"]).stdout);
    let mut names = std::collections::BTreeMap::new();
    for r in rows.as_array().unwrap() {
        let name = r["name"].as_str().unwrap();
        if let Some(other) = names.insert(name.to_string(), r["code"].clone()) {
            panic!("`{name}` names both {other} and {}", r["code"]);
        }
    }
}

#[test]
fn rule_unknown_code() {
    check("rule_unknown_code", &["rule", "E0599"], 2);
    check(
        "rule_unknown_code_json",
        &["rule", "X1", "--format", "json"],
        2,
    );
}

#[test]
fn rule_all_lists_every_registry() {
    let out = tritonc(&["rule", "--all", "--format", "json"]);
    assert_eq!(out.code, 0);
    let rows = json(&out.stdout);
    let codes: Vec<&str> = rows
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["code"].as_str())
        .collect();
    for expected in ["E0001", "E0101", "E0501", "E0507", "E0590"] {
        assert!(
            codes.contains(&expected),
            "{expected} missing from {codes:?}"
        );
    }
    let mut sorted = codes.clone();
    sorted.sort();
    assert_eq!(codes, sorted, "codes are listed in order");
    let text = tritonc(&["rule", "--all"]);
    assert_eq!(text.stdout.lines().count(), codes.len());
}

// ---- usage ----

#[test]
fn usage_errors_exit_2_and_help_exits_0() {
    check("usage_unknown_flag", &["lint", "--bogus"], 2);
    assert_eq!(tritonc(&["compile"]).code, 2);
    assert_eq!(
        tritonc(&["compile", "add.py", "--num-warps", "four"]).code,
        2
    );
    assert_eq!(tritonc(&["lint", "--format", "xml"]).code, 2);
    assert_eq!(tritonc(&["rule"]).code, 2);
    assert_eq!(tritonc(&[]).code, 2);
    assert_eq!(tritonc(&["--help"]).code, 0);
    assert_eq!(tritonc(&["compile", "--help"]).code, 0);
    let version = tritonc(&["--version"]);
    assert_eq!(version.code, 0);
    assert_eq!(
        version.stdout,
        format!("tritonc {}\n", env!("CARGO_PKG_VERSION"))
    );
}

// ---- compile: signatures ----

#[test]
fn compile_checks_the_signature_before_emitting() {
    check(
        "compile_bad_signature_dtype",
        &[
            "compile",
            "add.py",
            "--signature",
            "*fp32:16, *fp99, *fp32, i32, 1024",
            "--emit",
            "ttir",
        ],
        2,
    );
    let good = tritonc(&[
        "compile",
        "add.py",
        "--signature",
        "*fp32:16, *fp32:16, *fp32:16, i32, 1024",
        "--emit",
        "ttir",
    ]);
    assert_eq!(good.code, 0, "{}", good.transcript());
    assert!(
        good.stdout.contains("tt.func public @add_kernel("),
        "{}",
        good.stdout
    );
}

// ---- the Triton version from the environment ----

/// A fake Python environment at `root` with `packages` (name, release) installed, as pip
/// leaves their metadata.
fn fake_env(root: &std::path::Path, packages: &[(&str, &str)]) {
    let site = root.join("lib/python3.12/site-packages");
    for (name, release) in packages {
        let info = site.join(format!("{name}-{release}.dist-info"));
        std::fs::create_dir_all(&info).unwrap();
        std::fs::write(
            info.join("METADATA"),
            format!("Metadata-Version: 2.1\nName: {name}\nVersion: {release}\n"),
        )
        .unwrap();
    }
}

/// The `triton-version:` line of `tritonc compile FILE --show-settings` run in `dir`.
fn shown_version(
    dir: &std::path::Path,
    extra: &[&str],
    env: &[(&str, &std::path::Path)],
) -> String {
    let mut args = vec!["compile", "k.py", "--show-settings"];
    args.extend_from_slice(extra);
    let out = tritonc_with_env(dir, &args, env);
    assert_eq!(out.code, 0, "{}", out.transcript());
    out.stdout
        .lines()
        .find_map(|l| l.strip_prefix("triton-version: "))
        .unwrap_or_else(|| panic!("no triton-version line:\n{}", out.stdout))
        .to_string()
}

#[test]
fn the_triton_version_comes_from_the_environment() {
    let dir = std::env::temp_dir().join(format!("tritonc-venv-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // The versions fixture's block-pointer kernel: Triton 3.9 removed block pointers.
    std::fs::write(
        dir.join("k.py"),
        "import triton\nimport triton.language as tl\n\n@triton.jit\n\
         def kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):\n    \
         p = tl.make_block_ptr(x_ptr, shape=(n,), strides=(1,), offsets=(0,), block_shape=(BLOCK,), order=(0,))\n    \
         x = tl.load(p, boundary_check=(0,))\n    \
         tl.store(y_ptr + tl.arange(0, BLOCK), x)\n",
    )
    .unwrap();
    // Nothing installed: the default.
    assert_eq!(shown_version(&dir, &[], &[]), "3.6 (from the default)");
    // `./.venv` with torch 2.14 alone: the Triton it pins.
    fake_env(&dir.join(".venv"), &[("torch", "2.14.0+cu128")]);
    let canonical = std::fs::canonicalize(&dir).unwrap();
    let shown = shown_version(&dir, &[], &[]);
    assert!(
        shown.starts_with("3.8 (from the Triton torch 2.14.0+cu128 pins, installed in "),
        "{shown}"
    );
    // A `triton` package there wins over torch's pin.
    fake_env(&dir.join(".venv"), &[("triton", "3.9.0")]);
    assert!(shown_version(&dir, &[], &[]).starts_with("3.9 (from triton 3.9.0 installed in "));
    // `$VIRTUAL_ENV` wins over `./.venv`.
    let active = dir.join("active");
    fake_env(&active, &[("torch", "2.12.1")]);
    let shown = shown_version(&dir, &[], &[("VIRTUAL_ENV", active.as_path())]);
    assert_eq!(
        shown,
        format!(
            "3.7 (from the Triton torch 2.12.1 pins, installed in {})",
            active.display()
        )
    );
    // The environment's 3.9 applies to the compile: block pointers are gone.
    let out = tritonc_in(
        &dir,
        &[
            "compile",
            "k.py",
            "--signature",
            "*fp32, *fp32, i32, 64",
            "--emit",
            "ttir",
        ],
    );
    assert_eq!(out.code, 2, "{}", out.transcript());
    assert!(out.stderr.contains("E0301"), "{}", out.stderr);
    // The configuration wins over the environment, the command line over both.
    std::fs::write(dir.join("tritonc.toml"), "triton-version = \"3.6\"\n").unwrap();
    let shown = shown_version(&dir, &[], &[]);
    assert!(shown.starts_with("3.6 (from triton-version in "), "{shown}");
    let out = tritonc_in(
        &dir,
        &[
            "compile",
            "k.py",
            "--signature",
            "*fp32, *fp32, i32, 64",
            "--emit",
            "ttir",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.transcript());
    assert_eq!(
        shown_version(&dir, &["--triton-version", "3.8"], &[]),
        "3.8 (from --triton-version)"
    );
    let _ = canonical;
    std::fs::remove_dir_all(&dir).unwrap();
}
