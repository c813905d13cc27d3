//! Renderer tests: positions with non-ASCII text, labels in two files, the JSON schema,
//! and snapshots of the terminal form.

use tritonc_diagnostics::render::{github, json, resolve_span, short, sort_diagnostics};
use tritonc_diagnostics::{
    render, Code, Diagnostic, Fix, Format, SourceMap, Span, TerminalOptions, TextEdit,
};

const KERNEL: &str = "\
@triton.jit
def k(x_ptr, n):
    for i in range(n):
        break
";

/// Byte span of the first occurrence of `needle` in `text`.
fn find(file: tritonc_diagnostics::FileId, text: &str, needle: &str) -> Span {
    let start = text.find(needle).expect("needle must occur in the fixture") as u32;
    Span::new(file, start, start + needle.len() as u32)
}

fn break_diagnostic(sources: &mut SourceMap) -> Diagnostic {
    let file = sources.add("kernels/k.py", KERNEL);
    Diagnostic::error(Code("E0101"), "`break` is not supported in Triton kernels")
        .with_primary(find(file, KERNEL, "break"), "`break` here")
        .with_secondary(find(file, KERNEL, "for i in range(n):"), "inside this loop")
        .with_note("Triton loops lower to `scf.for`, which has no early exit")
        .with_help("fold the exit condition into a mask or a `while` condition")
}

#[test]
fn columns_count_utf8_bytes_and_utf16_units() {
    let mut sources = SourceMap::new();
    // "é" is 2 UTF-8 bytes and 1 UTF-16 unit; "𝄞" is 4 bytes and 2 units.
    let text = "x = 1\ns = \"é𝄞\" + bad\n";
    let file = sources.add("u.py", text);
    let span = find(file, text, "bad");
    let at = resolve_span(span, &sources).unwrap();
    assert_eq!((at.line, at.end_line), (2, 2));
    // `s = "` is 5 bytes, é𝄞 6 bytes, `" + ` 4 bytes: "bad" starts at byte 15 -> column 16.
    assert_eq!(at.column, 16);
    // 5 + 3 + 4 = 12 UTF-16 units before it -> column 13.
    assert_eq!(at.column_utf16, 13);
    assert_eq!(at.end_column, 19);
    assert_eq!(at.end_column_utf16, 16);

    let d = Diagnostic::error(Code("E0200"), "unknown name `bad`").with_primary(span, "");
    assert_eq!(
        short::render_short(&d, &sources),
        "u.py:2:16: error[E0200]: unknown name `bad`"
    );
}

#[test]
fn spans_past_the_end_clamp() {
    let mut sources = SourceMap::new();
    let file = sources.add("t.py", "ab\n");
    let at = resolve_span(Span::new(file, 2, 99), &sources).unwrap();
    assert_eq!((at.start, at.end), (2, 3));
    assert_eq!(
        (at.line, at.column, at.end_line, at.end_column),
        (1, 3, 2, 1)
    );
    assert!(resolve_span(Span::new(tritonc_diagnostics::FileId(7), 0, 1), &sources).is_none());
}

#[test]
fn json_has_every_field_in_order() {
    let mut sources = SourceMap::new();
    let d = break_diagnostic(&mut sources).with_fix(Fix {
        message: "replace `break` with `pass`".into(),
        edits: vec![TextEdit {
            span: Span::new(tritonc_diagnostics::FileId(0), 60, 65),
            replacement: "pass".into(),
        }],
    });
    assert_eq!(&KERNEL[60..65], "break");
    let text = json::render_json(std::slice::from_ref(&d), &sources);
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    let object = value.as_array().unwrap()[0].as_object().unwrap();
    let keys: Vec<&str> = object.keys().map(String::as_str).collect();
    // serde_json's map is sorted unless order is preserved; check the raw text for order.
    let order = [
        "\"code\"",
        "\"severity\"",
        "\"message\"",
        "\"file\"",
        "\"span\"",
        "\"labels\"",
        "\"notes\"",
        "\"help\"",
        "\"fix\"",
    ];
    let positions: Vec<usize> = order.iter().map(|k| text.find(k).unwrap()).collect();
    assert!(
        positions.windows(2).all(|w| w[0] < w[1]),
        "field order: {text}"
    );
    assert_eq!(keys.len(), order.len());

    assert_eq!(object["code"], "E0101");
    assert_eq!(object["severity"], "error");
    assert_eq!(object["file"], "kernels/k.py");
    let span = &object["span"];
    assert_eq!(
        (span["start"].as_u64(), span["end"].as_u64()),
        (Some(60), Some(65))
    );
    assert_eq!(
        (span["line"].as_u64(), span["column"].as_u64()),
        (Some(4), Some(9))
    );
    assert_eq!(span["column_utf16"], 9);
    assert_eq!(
        (span["end_line"].as_u64(), span["end_column"].as_u64()),
        (Some(4), Some(14))
    );
    let labels = object["labels"].as_array().unwrap();
    assert_eq!(labels.len(), 2);
    assert_eq!(labels[0]["primary"], true);
    assert_eq!(labels[1]["primary"], false);
    assert_eq!(labels[1]["message"], "inside this loop");
    assert_eq!(labels[1]["span"]["line"], 3);
    assert_eq!(
        object["notes"][0],
        "Triton loops lower to `scf.for`, which has no early exit"
    );
    assert_eq!(object["fix"]["edits"][0]["replacement"], "pass");
    assert_eq!(object["fix"]["edits"][0]["span"]["column"], 9);
}

#[test]
fn json_lines_is_one_object_per_line_and_locationless_is_null() {
    let mut sources = SourceMap::new();
    let a = break_diagnostic(&mut sources);
    let b = Diagnostic::error(Code("E0501"), "cannot read `x.py`: no such file");
    let text = json::render_json_lines(&[a, b], &sources);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2);
    let second: serde_json::Value = serde_json::from_str(lines[1]).unwrap();
    assert!(second["file"].is_null() && second["span"].is_null() && second["help"].is_null());
    assert_eq!(second["labels"].as_array().unwrap().len(), 0);
    assert_eq!(
        render(Format::Json, &[], &sources, &TerminalOptions::plain(80)),
        "[]\n"
    );
}

#[test]
fn github_annotations_escape_and_locate() {
    let mut sources = SourceMap::new();
    let d = break_diagnostic(&mut sources);
    assert_eq!(
        github::render_github(&d, &sources),
        "::error file=kernels/k.py,line=4,col=9,endColumn=14,title=E0101::`break` is not \
         supported in Triton kernels%0Ahelp: fold the exit condition into a mask or a `while` \
         condition"
    );
    let w = Diagnostic::warning(Code("TRI101"), "50% of lanes, masked: a,b");
    assert_eq!(
        github::render_github(&w, &sources),
        "::warning title=TRI101::50%25 of lanes, masked: a,b"
    );
}

#[test]
fn sorting_is_by_path_then_offset() {
    let mut sources = SourceMap::new();
    let b = sources.add("b.py", "xxxx");
    let a = sources.add("a.py", "xxxx");
    let mut diags = vec![
        Diagnostic::error(Code("E1"), "b2").with_primary(Span::new(b, 2, 3), ""),
        Diagnostic::error(Code("E1"), "a3").with_primary(Span::new(a, 3, 4), ""),
        Diagnostic::error(Code("E1"), "b0").with_primary(Span::new(b, 0, 1), ""),
        Diagnostic::error(Code("E2"), "none"),
        Diagnostic::error(Code("E0"), "a1").with_primary(Span::new(a, 1, 2), ""),
    ];
    sort_diagnostics(&mut diags, &sources);
    let order: Vec<&str> = diags.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(order, ["none", "a1", "a3", "b0", "b2"]);
}

#[test]
fn terminal_header_is_rustc_style() {
    let mut sources = SourceMap::new();
    let d = break_diagnostic(&mut sources);
    let text = render(
        Format::Terminal,
        &[d],
        &sources,
        &TerminalOptions::plain(100),
    );
    assert!(
        text.starts_with("  error[E0101]: `break` is not supported"),
        "{text}"
    );
    assert!(!text.contains('\u{1b}'), "no colour in plain output");
    insta::assert_snapshot!("terminal_break", text);
}

#[test]
fn terminal_colour_is_opt_in() {
    let mut sources = SourceMap::new();
    let d = break_diagnostic(&mut sources);
    let options = TerminalOptions {
        color: true,
        unicode: true,
        width: 100,
    };
    let text = render(Format::Terminal, &[d], &sources, &options);
    assert!(text.contains('\u{1b}'));
    assert!(text.contains('╭'));
}

#[test]
fn terminal_shows_labels_in_other_files() {
    let mut sources = SourceMap::new();
    let helper_text = "@triton.jit\ndef helper(x):\n    return x.to(tl.float64)\n";
    let kernel_text = "@triton.jit\ndef k(p):\n    y = helper(tl.load(p))\n";
    let helper = sources.add("lib/helpers.py", helper_text);
    let kernel = sources.add("kernels/main.py", kernel_text);
    let d = Diagnostic::error(Code("E0201"), "`float64` is not supported on this target")
        .with_primary(find(helper, helper_text, "tl.float64"), "requested here")
        .with_secondary(
            find(kernel, kernel_text, "helper(tl.load(p))"),
            "called from this kernel",
        );
    let text = render(
        Format::Terminal,
        &[d],
        &sources,
        &TerminalOptions::plain(100),
    );
    assert!(text.contains("lib/helpers.py:3:17"), "{text}");
    assert!(text.contains("kernels/main.py:3:9"), "{text}");
    assert!(text.contains("note: called from this kernel"), "{text}");
    insta::assert_snapshot!("terminal_two_files", text);
}

#[test]
fn terminal_without_location_and_non_ascii_source() {
    let mut sources = SourceMap::new();
    let text = "# ünïcødé comment\nx = \"𝄞\" +\n";
    let file = sources.add("u.py", text);
    let end = text.len() as u32;
    let d = Diagnostic::error(Code("E0001"), "expected an expression").with_primary(
        Span::new(file, end - 1, end - 1),
        "the expression ends here",
    );
    let bare = Diagnostic::error(Code("E0501"), "cannot read `missing.py`: no such file")
        .with_help("check the path");
    let out = render(
        Format::Terminal,
        &[d, bare],
        &sources,
        &TerminalOptions::plain(100),
    );
    insta::assert_snapshot!("terminal_eof_and_bare", out);
}
