//! The byte lexer against rustpython's: the same tokens and ranges on every Python file of
//! the repository (and of the directories in `TRITONC_LEXER_CHECK_DIRS`, `:`-separated),
//! on damaged copies of them and on edge cases; `None` where rustpython reports an error.

use rustpython_parser::lexer::LexResult;
use rustpython_parser::Mode;

fn reference(text: &str) -> Vec<LexResult> {
    // Up to the first error: after some errors rustpython's lexer repeats them forever.
    let mut out = Vec::new();
    for t in rustpython_parser::lexer::lex(text, Mode::Module) {
        let error = t.is_err();
        out.push(t);
        if error {
            break;
        }
    }
    out
}

/// Checks that the byte lexer agrees with rustpython on `text`; returns whether it handled it.
fn agrees(text: &str) -> bool {
    let expected = reference(text);
    match super::lex(text) {
        Some(toks) => {
            assert!(
                expected.iter().all(Result::is_ok),
                "the byte lexer accepted text rustpython rejects: {text:?}"
            );
            let toks: Vec<LexResult> = toks.into_iter().map(Ok).collect();
            assert_eq!(toks, expected, "tokens differ on {text:?}");
            true
        }
        None => false,
    }
}

fn python_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name();
        if name == "target" || name == ".git" || name == ".tools" {
            continue;
        }
        if p.is_dir() {
            python_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "py") {
            out.push(p);
        }
    }
}

#[test]
fn agrees_on_every_python_file_of_the_repository() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    python_files(&root, &mut files);
    if let Ok(extra) = std::env::var("TRITONC_LEXER_CHECK_DIRS") {
        for d in extra.split(':').filter(|d| !d.is_empty()) {
            python_files(std::path::Path::new(d), &mut files);
        }
    }
    assert!(files.len() > 100, "only {} Python files found", files.len());
    let mut handled = 0;
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        if agrees(&text) {
            handled += 1;
        }
    }
    // Nearly every file is plain enough for the byte lexer.
    assert!(
        handled * 10 >= files.len() * 9,
        "{handled} of {}",
        files.len()
    );
}

#[test]
fn agrees_on_edge_cases() {
    let handled = [
        "",
        "x",
        "x = 1\n",
        "if a:\n    b\n  # comment at another depth\n    c\nd\n",
        "def f(\n    a,\n        b):\n    return a\n",
        "x = (1 +\n 2)\ny = [\n]\n",
        "s = 'a\\'b' \"c\\\"d\" '''e\n'f''' + \"\"\"\"\"\"\n",
        "s = rb'\\x00' Rb\"\" BR'' f'{x!r:>{w}}' fr'\\d' u'é\\é'\n",
        "n = 0 00 0_0 1_000 0x_1F 0o17 0b1_0 123456789012345678901234567890\n",
        "f = 1.5 1. .5 1e5 1E-5 1.5e+3 2j 1.5J 0j 1_0.0_1e1_0 1if x else 2\n",
        "a.b ... x[1:2, ::3] @ y\nz @= w\n",
        "a += 1; b -= 2; c *= 3; d /= 4; e //= 5; f %= 6; g **= 7\n",
        "h &= 1; i |= 2; j ^= 3; k <<= 4; l >>= 5; m = n != o <= p >= q == r < s > t\n",
        "def f(a, *, b) -> int: ...\nlambda: x\n(x := 1)\n~a\n",
        "x = 1 \\\n  + 2\n",
        "\tif x:\n\t\ty\n",
        "if x:\n\ty\n",
        "x = 1\n\x0c\ny = 2\n",
        "# only a comment",
        "x = 1  # trailing",
        "match = 1\nmatch x:\n    case 1: pass\n",
        "type = 2\ntype X = int\nx = type\nprint(type(x))\n",
        "case, y = 1, 2\nm = match(x)\nre.match(a, b)\n",
        "match(x)\nmatch x, y:\n    case _:\n        pass\n",
        "class C:\n    def f(self):\n        pass\n\n\n\nx = 1\n",
        "if a:\n    if b:\n        c\n",
        "s = '''\n  def f():\n'''\n",
    ];
    for text in handled {
        assert!(agrees(text), "not handled: {text:?}");
    }
    // Text the byte lexer leaves to rustpython (errors included).
    let left = [
        "x = 1\r\ny = 2\n",
        "\u{feff}x = 1\n",
        "é = 1\n",
        "x = 'unterminated\n",
        "x = '''unterminated",
        "x = (1\n",
        "x = 1)\n",
        "x = 1 ! 2\n",
        "x = $\n",
        "x = 01\n",
        "x = 0x\n",
        "x = 1._5\n",
        "x = 1.e\n",
        "x = 1 \\ y\n",
        "x = \\",
        "if x:\n    y\n  z\n",
        "if x:\n        y\n\tz\n",
        "x = 'a\\",
    ];
    for text in left {
        assert!(
            !agrees(text),
            "handled, but rustpython's lexer should: {text:?}"
        );
    }
}

#[test]
fn agrees_on_damaged_copies_of_the_repository_files() {
    // Truncations, and bytes that open or close strings, brackets and lines, inserted or
    // deleted at pseudo-random places (a fixed xorshift sequence): text near errors, where
    // the byte lexer must either agree with rustpython or leave the text to it.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    python_files(&root, &mut files);
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let noise: &[&str] = &[
        "'", "\"", "'''", "(", ")", "[", "]", "\n", "\\", "\t", "  ", "#", "0", "1_", ".", "e",
        "x", "match ", "type ", "f'", "é", "\r",
    ];
    let (mut checked, mut handled) = (0, 0);
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        for _ in 0..8 {
            let mut at = (next() % (text.len() as u64 + 1)) as usize;
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            let damaged = match next() % 3 {
                0 => text[..at].to_string(),
                1 => format!(
                    "{}{}{}",
                    &text[..at],
                    noise[next() as usize % noise.len()],
                    &text[at..]
                ),
                _ => {
                    let mut end = (at + 1 + (next() % 4) as usize).min(text.len());
                    while !text.is_char_boundary(end) {
                        end += 1;
                    }
                    format!("{}{}", &text[..at], &text[end..])
                }
            };
            checked += 1;
            if agrees(&damaged) {
                handled += 1;
            }
        }
    }
    assert!(
        checked > 800 && handled > checked / 4,
        "{handled} of {checked}"
    );
}
