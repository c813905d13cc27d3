//! End-to-end tests of `tritonc lint`'s rules through the CLI: every output format
//! (snapshotted), SARIF's structure as GitHub code scanning requires it, fixes on temporary
//! copies of a fixture, configuration discovery and the selection options.

use std::path::PathBuf;

mod common;
use common::*;

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}):\n{text}"))
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tritonc-lint-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("the temp dir is writable");
    dir
}

const KERNELS: &str = "lint/kernels.py";

// ---- every output format ----

fn format_snapshot(name: &str, format: &str) -> Outcome {
    let out = tritonc(&["lint", KERNELS, "--output-format", format]);
    assert_eq!(out.code, 1, "{}", out.transcript());
    // SARIF names the working directory as the source root; keep the snapshot portable.
    let root = fixtures().display().to_string();
    let transcript = out.transcript().replace(&root, "[FIXTURES]");
    insta::assert_snapshot!(name, transcript);
    out
}

#[test]
fn format_full() {
    let out = format_snapshot("lint_format_full", "full");
    assert!(out.stdout.contains("warning[TRI101]"));
    // `--format terminal` is the same output.
    let alias = tritonc(&["lint", KERNELS, "--format", "terminal"]);
    assert_eq!(alias.stdout, out.stdout);
}

#[test]
fn format_concise() {
    let out = format_snapshot("lint_format_concise", "concise");
    // One line per finding; safe fixes carry `[*]`; then the summary.
    assert_eq!(out.stdout.lines().count(), 5, "{}", out.stdout);
    assert!(out.stdout.ends_with(
        "Found 3 warnings in 1 file\n[*] 1 fixable with `--fix` (2 more with `--unsafe-fixes`)\n"
    ));
    assert!(out
        .stdout
        .contains("lint/kernels.py:25:56: TRI002 [*] unused suppression"));
    let alias = tritonc(&["lint", KERNELS, "--format", "short"]);
    assert_eq!(alias.stdout, out.stdout);
}

#[test]
fn format_json_is_ruffs_shape() {
    let out = format_snapshot("lint_format_json", "json");
    let rows = json(&out.stdout);
    let rows = rows.as_array().expect("a JSON array");
    assert_eq!(rows.len(), 3);
    for r in rows {
        for key in [
            "code",
            "message",
            "filename",
            "location",
            "end_location",
            "url",
            "fix",
            "noqa_row",
        ] {
            assert!(r.get(key).is_some(), "missing {key} in {r}");
        }
    }
    let tri101 = &rows[0];
    assert_eq!(tri101["code"], "TRI101");
    assert_eq!(
        tri101["location"],
        serde_json::json!({"row": 9, "column": 9})
    );
    assert_eq!(tri101["fix"]["applicability"], "unsafe");
    assert_eq!(tri101["fix"]["edits"][0]["content"], ", mask=mask");
    // `--format json` is an alias.
    let alias = tritonc(&["lint", KERNELS, "--format", "json"]);
    assert_eq!(alias.stdout, out.stdout);
    // The summary goes to stderr so stdout stays parseable.
    assert!(out.stderr.starts_with("Found 3 warnings"), "{}", out.stderr);
}

#[test]
fn format_github() {
    let out = format_snapshot("lint_format_github", "github");
    assert!(out
        .stdout
        .lines()
        .all(|l| l.starts_with("::warning file=lint/kernels.py,line=")));
}

#[test]
fn format_pylint() {
    let out = format_snapshot("lint_format_pylint", "pylint");
    assert!(out
        .stdout
        .lines()
        .all(|l| l.starts_with("lint/kernels.py:") && l.contains(": [TRI")));
}

#[test]
fn format_azure() {
    let out = format_snapshot("lint_format_azure", "azure");
    assert!(out.stdout.lines().all(|l| l
        .starts_with("##vso[task.logissue type=warning;sourcepath=lint/kernels.py;linenumber=")));
}

#[test]
fn format_grouped() {
    let out = format_snapshot("lint_format_grouped", "grouped");
    let mut lines = out.stdout.lines();
    assert_eq!(lines.next(), Some("lint/kernels.py:"));
    assert!(lines.next().is_some_and(|l| l.starts_with("  9:9 TRI101 ")));
}

/// The fields GitLab's Code Quality widget reads
/// (https://docs.gitlab.com/ci/testing/code_quality/#code-quality-report-format).
#[test]
fn format_gitlab_is_a_code_quality_report() {
    let out = format_snapshot("lint_format_gitlab", "gitlab");
    let issues = json(&out.stdout);
    let issues = issues.as_array().expect("an array of issues");
    assert_eq!(issues.len(), 3);
    let mut fingerprints = Vec::new();
    for i in issues {
        assert!(i["description"]
            .as_str()
            .is_some_and(|d| d.starts_with("TRI")));
        assert!(i["check_name"]
            .as_str()
            .is_some_and(|c| c.starts_with("TRI")));
        assert!(["info", "minor", "major", "critical", "blocker"]
            .contains(&i["severity"].as_str().unwrap()));
        assert_eq!(i["location"]["path"], "lint/kernels.py");
        assert!(i["location"]["lines"]["begin"]
            .as_u64()
            .is_some_and(|b| b >= 1));
        fingerprints.push(i["fingerprint"].as_str().unwrap().to_string());
    }
    fingerprints.sort();
    fingerprints.dedup();
    assert_eq!(fingerprints.len(), 3, "fingerprints are unique");
}

/// JUnit as ruff writes it: a suite per file, a failing case `org.tritonc.CODE` per
/// finding with its line and column.
#[test]
fn format_junit() {
    let out = format_snapshot("lint_format_junit", "junit");
    assert!(out
        .stdout
        .starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"));
    assert!(out
        .stdout
        .contains("<testsuites name=\"tritonc\" tests=\"3\" failures=\"3\" errors=\"0\">"));
    assert_eq!(
        out.stdout
            .matches("<testcase name=\"org.tritonc.TRI")
            .count(),
        3
    );
    assert!(out.stdout.contains("classname=\"lint/kernels\""));
    // No findings: one passing case.
    let clean = tritonc(&[
        "lint",
        "--select",
        "TRI204",
        KERNELS,
        "--output-format",
        "junit",
    ]);
    assert_eq!(clean.code, 0, "{}", clean.transcript());
    assert!(clean
        .stdout
        .contains("<testcase name=\"No errors found\" classname=\"tritonc\">"));
}

/// rdjson as reviewdog reads it (and ruff writes it): `source`, `severity` and one
/// diagnostic per finding with its range, code and, for a fix, suggestions.
#[test]
fn format_rdjson() {
    let out = format_snapshot("lint_format_rdjson", "rdjson");
    let v = json(&out.stdout);
    assert_eq!(v["source"]["name"], "tritonc");
    assert_eq!(v["severity"], "WARNING");
    let ds = v["diagnostics"].as_array().expect("diagnostics");
    assert_eq!(ds.len(), 3);
    for d in ds {
        assert_eq!(d["location"]["path"], "lint/kernels.py");
        assert!(d["location"]["range"]["start"]["line"]
            .as_u64()
            .is_some_and(|l| l >= 1));
        assert!(d["code"]["value"]
            .as_str()
            .is_some_and(|c| c.starts_with("TRI")));
    }
    // The findings with a fix carry it as suggestions.
    assert!(ds
        .iter()
        .any(|d| d["suggestions"].as_array().is_some_and(|s| !s.is_empty())));
}

#[test]
fn format_sarif() {
    format_snapshot("lint_format_sarif", "sarif");
}

/// The properties GitHub code scanning requires of an upload, checked one by one
/// (https://docs.github.com/en/code-security/code-scanning/integrating-with-code-scanning/sarif-support-for-code-scanning).
#[test]
fn sarif_has_what_github_requires() {
    let out = tritonc(&["lint", KERNELS, "--output-format", "sarif"]);
    let log = json(&out.stdout);
    assert_eq!(log["version"], "2.1.0");
    assert!(log["$schema"].as_str().unwrap().contains("sarif-2.1.0"));
    let runs = log["runs"].as_array().expect("runs is an array");
    assert_eq!(runs.len(), 1);
    let run = &runs[0];
    let driver = &run["tool"]["driver"];
    assert_eq!(driver["name"], "tritonc");
    assert!(driver["version"].is_string());
    let rules = driver["rules"].as_array().expect("rules is an array");
    // Every lint rule is listed, each with GitHub's descriptor fields.
    for code in ["TRI101", "TRI102", "TRI103", "TRI201", "TRI304"] {
        assert!(rules.iter().any(|r| r["id"] == code), "{code} not listed");
    }
    for r in rules {
        for key in ["id", "name"] {
            assert!(r[key].as_str().is_some_and(|s| !s.is_empty()), "{key}: {r}");
        }
        for key in ["shortDescription", "fullDescription", "help"] {
            assert!(
                r[key]["text"].as_str().is_some_and(|s| !s.is_empty()),
                "{key}: {r}"
            );
        }
        assert!(r["helpUri"]
            .as_str()
            .is_some_and(|u| u.starts_with("https://")));
    }
    let results = run["results"].as_array().expect("results is an array");
    assert_eq!(results.len(), 3);
    let mut fingerprints = std::collections::BTreeSet::new();
    for res in results {
        let id = res["ruleId"].as_str().expect("ruleId");
        let index = res["ruleIndex"].as_u64().expect("ruleIndex") as usize;
        assert_eq!(rules[index]["id"], id, "ruleIndex points at the rule");
        assert!(["error", "warning", "note"].contains(&res["level"].as_str().unwrap()));
        assert!(res["message"]["text"]
            .as_str()
            .is_some_and(|t| !t.is_empty()));
        let loc = &res["locations"][0]["physicalLocation"];
        let uri = loc["artifactLocation"]["uri"].as_str().expect("uri");
        assert_eq!(uri, "lint/kernels.py", "relative to the source root");
        let region = &loc["region"];
        for key in ["startLine", "startColumn", "endLine", "endColumn"] {
            assert!(
                region[key].as_u64().is_some_and(|n| n >= 1),
                "{key}: {region}"
            );
        }
        let fp = res["partialFingerprints"]["primaryLocationLineHash"]
            .as_str()
            .expect("a line-hash fingerprint");
        assert!(
            fingerprints.insert(fp.to_string()),
            "fingerprints are distinct"
        );
    }
    // Fixes carry the edit as a replacement of a region.
    let tri101 = results.iter().find(|r| r["ruleId"] == "TRI101").unwrap();
    let change = &tri101["fixes"][0]["artifactChanges"][0];
    assert_eq!(change["artifactLocation"]["uri"], "lint/kernels.py");
    assert_eq!(
        change["replacements"][0]["insertedContent"]["text"],
        ", mask=mask"
    );
    assert_eq!(change["replacements"][0]["deletedRegion"]["startLine"], 9);
}

#[test]
fn sarif_fingerprints_survive_edits_elsewhere() {
    let dir = scratch("fingerprint");
    let text = std::fs::read_to_string(fixtures().join(KERNELS)).unwrap();
    std::fs::write(dir.join("k.py"), &text).unwrap();
    let before = json(&tritonc_in(&dir, &["lint", "k.py", "--output-format", "sarif"]).stdout);
    // Two blank lines at the top move every finding down.
    std::fs::write(dir.join("k.py"), format!("\n\n{text}")).unwrap();
    let after = json(&tritonc_in(&dir, &["lint", "k.py", "--output-format", "sarif"]).stdout);
    let prints = |log: &serde_json::Value| -> Vec<(String, u64)> {
        log["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["partialFingerprints"]["primaryLocationLineHash"]
                        .as_str()
                        .unwrap()
                        .to_string(),
                    r["locations"][0]["physicalLocation"]["region"]["startLine"]
                        .as_u64()
                        .unwrap(),
                )
            })
            .collect()
    };
    let (b, a) = (prints(&before), prints(&after));
    assert_eq!(b.len(), a.len());
    for ((fb, lb), (fa, la)) in b.iter().zip(&a) {
        assert_eq!(fb, fa);
        assert_eq!(*la, lb + 2);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

// ---- fixes ----

const FIXED_SAFE_LINE: &str = "    tl.store(x_ptr + offs, x * 2, mask=offs < n_cols)\n";

#[test]
fn fix_applies_safe_fixes_only_and_relint_is_clean_of_them() {
    let dir = scratch("fix");
    let original = std::fs::read_to_string(fixtures().join(KERNELS)).unwrap();
    std::fs::write(dir.join("k.py"), &original).unwrap();
    let out = tritonc_in(
        &dir,
        &["lint", "k.py", "--fix", "--output-format", "concise"],
    );
    // The two unsafe findings remain.
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert_eq!(out.stdout.matches(": TRI").count(), 2, "{}", out.stdout);
    assert!(
        out.stdout
            .ends_with("Found 2 warnings in 1 file (1 fixed)\n"),
        "{}",
        out.stdout
    );
    let fixed = std::fs::read_to_string(dir.join("k.py")).unwrap();
    let want = original.replace(
        "    tl.store(x_ptr + offs, x * 2, mask=offs < n_cols)  # noqa: TRI101\n",
        FIXED_SAFE_LINE,
    );
    assert_ne!(want, original);
    assert_eq!(fixed, want);
    let again = tritonc_in(&dir, &["lint", "k.py", "--output-format", "concise"]);
    assert!(!again.stdout.contains("TRI002"), "{}", again.stdout);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn unsafe_fixes_rewrite_masks_and_fills_and_relint_is_clean() {
    let dir = scratch("unsafe");
    let original = std::fs::read_to_string(fixtures().join(KERNELS)).unwrap();
    std::fs::write(dir.join("k.py"), &original).unwrap();
    let out = tritonc_in(&dir, &["lint", "k.py", "--fix", "--unsafe-fixes"]);
    assert_eq!(out.code, 0, "{}", out.transcript());
    assert_eq!(out.stdout, "Found 3 findings (3 fixed, 0 remaining)\n");
    let fixed = std::fs::read_to_string(dir.join("k.py")).unwrap();
    let want = original
        .replace(
            "    x = tl.load(x_ptr + offs)\n",
            "    x = tl.load(x_ptr + offs, mask=mask)\n",
        )
        .replace(
            "    x = tl.load(x_ptr + cols, mask=cols < n, other=0.0)\n",
            "    x = tl.load(x_ptr + cols, mask=cols < n, other=float('-inf'))\n",
        )
        .replace(
            "    tl.store(x_ptr + offs, x * 2, mask=offs < n_cols)  # noqa: TRI101\n",
            FIXED_SAFE_LINE,
        );
    assert_eq!(fixed, want);
    let again = tritonc_in(&dir, &["lint", "k.py"]);
    assert_eq!(again.code, 0, "{}", again.transcript());
    assert_eq!(again.stdout, "All checks passed: 3 kernels in 1 file\n");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn diff_shows_fixes_without_writing() {
    let dir = scratch("diff");
    let original = std::fs::read_to_string(fixtures().join(KERNELS)).unwrap();
    std::fs::write(dir.join("k.py"), &original).unwrap();
    let safe = tritonc_in(&dir, &["lint", "k.py", "--diff"]);
    assert_eq!(safe.code, 1, "{}", safe.transcript());
    assert_eq!(
        safe.stdout,
        "--- a/k.py\n+++ b/k.py\n@@ -22,4 +22,4 @@\n \
         def scale(x_ptr, n_cols, BLOCK: tl.constexpr):\n \
         \x20   offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n \
         \x20   x = tl.load(x_ptr + offs, mask=offs < n_cols, other=0.0)\n\
         -    tl.store(x_ptr + offs, x * 2, mask=offs < n_cols)  # noqa: TRI101\n\
         +    tl.store(x_ptr + offs, x * 2, mask=offs < n_cols)\n"
    );
    assert_eq!(safe.stderr, "Would fix 1 finding\n");
    let all = tritonc_in(&dir, &["lint", "k.py", "--diff", "--unsafe-fixes"]);
    assert_eq!(all.code, 1);
    insta::assert_snapshot!("lint_diff_unsafe", all.transcript());
    assert_eq!(std::fs::read_to_string(dir.join("k.py")).unwrap(), original);
    // Nothing to fix: exit 0.
    let clean = tritonc_in(&fixtures(), &["lint", "add.py", "--diff"]);
    assert_eq!((clean.code, clean.stdout.as_str()), (0, ""));
    let _ = std::fs::remove_dir_all(&dir);
}

// ---- configuration and selection ----

#[test]
fn configuration_is_found_per_file() {
    let dir = scratch("config");
    let kernel = std::fs::read_to_string(fixtures().join(KERNELS)).unwrap();
    for sub in ["a", "b"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
        std::fs::write(dir.join(sub).join("k.py"), &kernel).unwrap();
    }
    // `a` ignores TRI103 in tritonc.toml; `b` has a pyproject.toml without a tritonc
    // table (skipped), so the root pyproject.toml applies, which ignores TRI101.
    std::fs::write(
        dir.join("a/tritonc.toml"),
        "[lint]\nignore = [\"TRI103\"]\n",
    )
    .unwrap();
    std::fs::write(dir.join("b/pyproject.toml"), "[tool.ruff]\n").unwrap();
    std::fs::write(
        dir.join("pyproject.toml"),
        "[tool.tritonc.lint]\nignore = [\"TRI101\"]\n",
    )
    .unwrap();
    let out = tritonc_in(&dir, &["lint", ".", "--output-format", "concise", "-q"]);
    let codes: Vec<&str> = out
        .stdout
        .lines()
        .map(|l| l.split(": ").nth(1).unwrap().split(' ').next().unwrap())
        .collect();
    let a_codes: Vec<&str> = out
        .stdout
        .lines()
        .filter(|l| l.starts_with("a/"))
        .map(|l| l.split(": ").nth(1).unwrap().split(' ').next().unwrap())
        .collect();
    assert_eq!(a_codes, ["TRI101", "TRI002"], "{}", out.stdout);
    assert_eq!(codes.len(), 4, "{}", out.stdout);
    assert!(out.stdout.contains("b/k.py:16:9: TRI103"), "{}", out.stdout);
    assert!(!out.stdout.contains("b/k.py:9:9: TRI101"), "{}", out.stdout);

    // `--config` replaces discovery for every file.
    std::fs::write(dir.join("only.toml"), "[lint]\nselect = [\"TRI103\"]\n").unwrap();
    let out = tritonc_in(
        &dir,
        &[
            "lint",
            ".",
            "--config",
            "only.toml",
            "--output-format",
            "concise",
            "-q",
        ],
    );
    assert_eq!(out.stdout.lines().count(), 2, "{}", out.stdout);
    assert!(out.stdout.lines().all(|l| l.contains("TRI103")));

    // A broken configuration is an input error (2), reported once.
    std::fs::write(dir.join("a/tritonc.toml"), "[lint\n").unwrap();
    let out = tritonc_in(&dir, &["lint", "a", "--output-format", "concise"]);
    assert_eq!(out.code, 2, "{}", out.transcript());
    assert_eq!(out.stdout.matches("E0503").count(), 1, "{}", out.stdout);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn select_and_ignore_override_the_configuration() {
    let dir = scratch("select");
    let kernel = std::fs::read_to_string(fixtures().join(KERNELS)).unwrap();
    std::fs::write(dir.join("k.py"), &kernel).unwrap();
    std::fs::write(dir.join("tritonc.toml"), "[lint]\nignore = [\"TRI1\"]\n").unwrap();
    let concise = |args: &[&str]| {
        let mut all = vec!["lint", "k.py", "--output-format", "concise", "-q"];
        all.extend_from_slice(args);
        let out = tritonc_in(&dir, &all);
        out.stdout
            .lines()
            .map(|l| {
                l.split(": ")
                    .nth(1)
                    .unwrap()
                    .split(' ')
                    .next()
                    .unwrap()
                    .to_string()
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(concise(&[]), ["TRI002"]);
    // `--select` replaces the configured selection and its ignores.
    assert_eq!(concise(&["--select", "TRI1"]), ["TRI101", "TRI103"]);
    assert_eq!(
        concise(&["--select", "tri101,TRI002"]),
        ["TRI101", "TRI002"]
    );
    // `--ignore` adds to the configured ignores.
    assert_eq!(concise(&["--ignore", "TRI002"]), Vec::<String>::new());
    // `--extend-select` adds to the configured selection, overriding its ignores as a
    // later layer does in ruff.
    assert_eq!(
        concise(&["--extend-select", "TRI103"]),
        ["TRI103", "TRI002"]
    );
    assert_eq!(
        concise(&["--extend-select", "TRI1", "--extend-ignore", "TRI002"]),
        ["TRI101", "TRI103"]
    );
    // `ALL` is every rule; within one layer the more specific selector wins.
    assert_eq!(
        concise(&["--select", "ALL", "--ignore", "TRI1"]),
        ["TRI002"]
    );
    assert_eq!(
        concise(&["--select", "TRI101", "--ignore", "TRI1"]),
        ["TRI101"]
    );
    // In the configuration too.
    std::fs::write(
        dir.join("tritonc.toml"),
        "[lint]\nignore = [\"TRI1\"]\nextend-select = [\"TRI103\"]\n",
    )
    .unwrap();
    assert_eq!(concise(&[]), ["TRI103", "TRI002"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn unknown_rule_codes_on_the_command_line_are_usage_errors() {
    let out = tritonc(&["lint", KERNELS, "--select", "TRI1,TRI999"]);
    assert_eq!(out.code, 2, "{}", out.transcript());
    insta::assert_snapshot!("lint_select_unknown_code", out.transcript());
    // Nothing was linted.
    assert_eq!(out.stdout, "");
    for option in ["--select", "--extend-select", "--ignore", "--extend-ignore"] {
        for bad in ["TRI999", "E0101", "unmasked-block-access", "TRI1O1"] {
            let out = tritonc(&["lint", KERNELS, option, bad]);
            assert_eq!(out.code, 2, "{option} {bad}: {}", out.transcript());
            assert!(
                out.stderr
                    .contains(&format!("unknown rule selector `{bad}`")),
                "{}",
                out.stderr
            );
            assert!(
                out.stderr.contains("TRI001, TRI002, TRI101"),
                "{}",
                out.stderr
            );
        }
    }
    // Known codes and prefixes in any case are accepted.
    assert_eq!(tritonc(&["lint", KERNELS, "--ignore", "tri,all"]).code, 0);
}

#[test]
fn unknown_configuration_keys_and_codes_are_configuration_errors() {
    let dir = scratch("config-typo");
    let kernel = std::fs::read_to_string(fixtures().join(KERNELS)).unwrap();
    std::fs::write(dir.join("k.py"), &kernel).unwrap();
    let run = |config: &str| {
        std::fs::write(dir.join("pyproject.toml"), config).unwrap();
        let out = tritonc_in(&dir, &["lint", "k.py", "--output-format", "concise"]);
        assert_eq!(out.code, 2, "{}", out.transcript());
        let root = std::fs::canonicalize(&dir).unwrap().display().to_string();
        out.transcript().replace(&root, "[DIR]")
    };
    insta::assert_snapshot!(
        "lint_config_unknown_key",
        run("[tool.tritonc.lint]\nselect = [\"TRI1\"]\nignroe = [\"TRI101\"]\n")
    );
    insta::assert_snapshot!(
        "lint_config_unknown_code",
        run("[tool.tritonc.lint]\nper-file-ignores = { \"k.py\" = [\"TRI011\"] }\n")
    );
    // A configuration in a subdirectory, first read while linting, is reported too,
    // once, also with `--diff`.
    std::fs::write(dir.join("pyproject.toml"), "[tool.tritonc.lint]\n").unwrap();
    for sub in ["sub", "sub/deeper"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
        std::fs::write(dir.join(sub).join("k.py"), &kernel).unwrap();
    }
    std::fs::write(
        dir.join("sub/tritonc.toml"),
        "[lint]\nignore = [\"TRI1O1\"]\n",
    )
    .unwrap();
    for extra in [&[][..], &["--diff"][..]] {
        let mut args = vec!["lint", ".", "--output-format", "concise"];
        args.extend_from_slice(extra);
        let out = tritonc_in(&dir, &args);
        assert_eq!(out.code, 2, "{}", out.transcript());
        let all = format!("{}{}", out.stdout, out.stderr);
        assert_eq!(
            all.matches("unknown rule selector `TRI1O1`").count(),
            1,
            "{all}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

// ---- exit codes and statistics ----

#[test]
fn exit_codes() {
    assert_eq!(tritonc(&["lint", "add.py"]).code, 0);
    assert_eq!(tritonc(&["lint", KERNELS]).code, 1);
    let usage = tritonc(&["lint", KERNELS, "--output-format", "xml"]);
    assert_eq!(usage.code, 2, "{}", usage.transcript());
    assert_eq!(tritonc(&["lint", "missing.py", KERNELS]).code, 2);
    assert_eq!(
        tritonc(&["lint", KERNELS, "--config", "no-such.toml"]).code,
        2
    );
}

#[test]
fn exit_zero_reports_findings_and_exits_0() {
    let plain = tritonc(&["lint", KERNELS, "--output-format", "concise"]);
    assert_eq!(plain.code, 1);
    let zero = tritonc(&["lint", KERNELS, "--output-format", "concise", "--exit-zero"]);
    assert_eq!(zero.code, 0, "{}", zero.transcript());
    // The findings and the summary are printed as without it.
    assert_eq!(zero.stdout, plain.stdout);
    assert!(zero.stdout.contains("Found 3 warnings in 1 file"));
    let dir = scratch("exit-zero");
    let text = std::fs::read_to_string(fixtures().join(KERNELS)).unwrap();
    std::fs::write(dir.join("k.py"), &text).unwrap();
    let diff = tritonc_in(&dir, &["lint", "k.py", "--diff", "--exit-zero"]);
    assert_eq!(diff.code, 0, "{}", diff.transcript());
    assert!(diff.stdout.starts_with("--- a/k.py"), "{}", diff.stdout);
    let _ = std::fs::remove_dir_all(&dir);
    // Input errors still exit 2.
    assert_eq!(
        tritonc(&["lint", "missing.py", KERNELS, "--exit-zero"]).code,
        2
    );
}

#[test]
fn statistics_in_json() {
    let out = tritonc(&["lint", KERNELS, "--statistics", "--output-format", "json"]);
    assert_eq!(out.code, 1, "{}", out.transcript());
    insta::assert_snapshot!("lint_statistics_json", out.transcript());
    assert_eq!(
        json(&out.stdout),
        serde_json::json!([
            {"code": "TRI002", "name": "unused-suppression", "count": 1, "fixable": true},
            {"code": "TRI101", "name": "unmasked-block-access", "count": 1, "fixable": false},
            {"code": "TRI103", "name": "wrong-fill-value", "count": 1, "fixable": false},
        ])
    );
    // `--format json` is the same; the summary stays on stderr.
    let alias = tritonc(&["lint", KERNELS, "--statistics", "--format", "json"]);
    assert_eq!(alias.stdout, out.stdout);
    assert!(out.stderr.starts_with("Found 3 warnings"), "{}", out.stderr);
    // JSON Lines: one object per line.
    let lines = tritonc(&[
        "lint",
        KERNELS,
        "--statistics",
        "--output-format",
        "json-lines",
        "--unsafe-fixes",
    ]);
    let rows: Vec<serde_json::Value> = lines.stdout.lines().map(json).collect();
    assert_eq!(rows.len(), 3, "{}", lines.stdout);
    assert_eq!(rows[1]["code"], "TRI101");
    assert_eq!(
        rows[1]["fixable"], true,
        "unsafe fixes count with --unsafe-fixes"
    );
    // A clean run is an empty array.
    let clean = tritonc(&["lint", "add.py", "--statistics", "--output-format", "json"]);
    assert_eq!((clean.code, clean.stdout.as_str()), (0, "[]\n"));
}

#[test]
fn statistics_count_codes() {
    let out = tritonc(&["lint", KERNELS, "--statistics"]);
    assert_eq!(out.code, 1);
    assert_eq!(
        out.stdout,
        "    1\tTRI002 \t[*] unused-suppression\n\
         \x20   1\tTRI101 \t[ ] unmasked-block-access\n\
         \x20   1\tTRI103 \t[ ] wrong-fill-value\n"
    );
}
