//! A deterministic stand-in for fuzzing on stable Rust: thousands of mutated inputs
//! (truncations, byte flips, splices, token insertions) from the fixture kernels must
//! parse, convert, discover and check without panicking, with spans inside the text.

use tritonc_diagnostics::FileId;
use tritonc_syntax::{check_kernel_subset, discover, parse_module};

/// xorshift64*: a fixed-seed generator, so every run checks the same inputs.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const TOKENS: &[&str] = &[
    "(",
    ")",
    "[",
    "]",
    ":",
    "\n",
    "    ",
    "@triton.jit\n",
    "lambda",
    "*",
    "**",
    ",",
    "=",
    ":=",
    "'",
    "\"",
    "f\"{",
    "}",
    "\\",
    "def ",
    "\t",
    "é",
    "𝄞",
    "0x",
    "1e",
    "...",
    "\r\n",
];

fn corpus() -> Vec<String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in [
        root.join("tests/fixtures/subset"),
        root.join("../../examples"),
    ] {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().and_then(|e| e.to_str()) == Some("py") {
                files.push(std::fs::read_to_string(path).unwrap());
            }
        }
    }
    files.sort();
    files
}

fn mutate(rng: &mut Rng, corpus: &[String]) -> Vec<u8> {
    let mut bytes = corpus[rng.below(corpus.len())].as_bytes().to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(bytes.len() + 1);
        match rng.below(5) {
            0 => bytes.truncate(at),
            1 if !bytes.is_empty() => {
                let i = at.min(bytes.len() - 1);
                bytes[i] ^= 1 << rng.below(8);
            }
            2 => {
                let other = corpus[rng.below(corpus.len())].as_bytes();
                let from = rng.below(other.len());
                let len = rng.below(other.len() - from + 1).min(400);
                bytes.splice(at..at, other[from..from + len].iter().copied());
            }
            3 => {
                let tok = TOKENS[rng.below(TOKENS.len())].as_bytes();
                bytes.splice(at..at, tok.iter().copied());
            }
            _ => {
                let end = (at + rng.below(40)).min(bytes.len());
                bytes.drain(at..end);
            }
        }
    }
    bytes
}

#[test]
fn mutated_inputs_never_panic() {
    let corpus = corpus();
    assert!(!corpus.is_empty());
    let mut rng = Rng(0x7472_6974_6f6e_6321);
    for _ in 0..2000 {
        let bytes = mutate(&mut rng, &corpus);
        let text = String::from_utf8_lossy(&bytes);
        let parsed = parse_module(FileId(0), &text);
        for d in &parsed.diagnostics {
            let span = d
                .primary_span()
                .expect("every diagnostic has a primary span");
            assert!(span.end as usize <= text.len() && span.start <= span.end);
        }
        let index = discover(&parsed.module);
        for k in &index.kernels {
            for d in check_kernel_subset(&k.def) {
                let span = d
                    .primary_span()
                    .expect("every diagnostic has a primary span");
                assert!(span.end as usize <= text.len());
                assert!(text.is_char_boundary(span.start as usize));
                assert!(text.is_char_boundary(span.end as usize));
            }
        }
    }
}

#[test]
fn deeply_nested_input_is_an_error_not_a_crash() {
    let chain = format!("x = {}1\n", "1 + ".repeat(50_000));
    let calls = format!("x = {}1{}\n", "f(".repeat(5_000), ")".repeat(5_000));
    for (src, message) in [
        (chain, "operator chain is too long (over 2000 operators)"),
        (calls, "code is nested too deeply"),
    ] {
        let parsed = parse_module(FileId(0), &src);
        assert_eq!(parsed.diagnostics.len(), 1, "{:?}", parsed.diagnostics);
        assert_eq!(parsed.diagnostics[0].code.0, "E0001");
        assert_eq!(parsed.diagnostics[0].message, message);
    }
    // Redundant parentheses build no nodes, so they nest freely.
    let parens = format!("x = {}1{}\n", "(".repeat(5_000), ")".repeat(5_000));
    let parsed = parse_module(FileId(0), &parens);
    assert!(parsed.diagnostics.is_empty());
    assert_eq!(parsed.module.body.len(), 1);
}

#[test]
fn a_long_operator_chain_is_one_level_of_nesting() {
    // A 1,000-term sum nests to the left 999 times but is one expression deep: it parses,
    // inside a deeply nested statement too.
    let terms: Vec<String> = (0..1000).map(|i| format!("x{i}")).collect();
    let sum = terms.join(" + ");
    let src = format!("def f():\n    if a:\n        y = g(h({sum}))\n");
    let parsed = parse_module(FileId(0), &src);
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    // Nesting that is real still counts: 600 nested calls with a sum inside.
    let deep = format!("y = {}{sum}{}\n", "f(".repeat(600), ")".repeat(600));
    let parsed = parse_module(FileId(0), &deep);
    assert_eq!(parsed.diagnostics[0].message, "code is nested too deeply");
}

#[test]
fn large_files_of_short_statements_parse() {
    // Over 1 MiB of short statements, whose comments and strings hold unbalanced
    // brackets and quotes: no statement is long.
    let mut src = String::new();
    while src.len() < (1 << 20) + 4096 {
        src.push_str("x = [1, 2]  # a half-open interval [0, 1) and a quote '\n");
        src.push_str("s = \"(\" + '[' + \"\"\"{\n\"\"\"  # ((\n");
        src.push_str("t = \"it's\"\n");
    }
    let parsed = parse_module(FileId(0), &src);
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    assert!(parsed.module.body.len() > 10_000);
    // One statement over 1 MiB is still refused before parsing.
    let long = format!("x = [{}]\n", "1, ".repeat(400_000));
    let parsed = parse_module(FileId(0), &long);
    assert_eq!(
        parsed.diagnostics[0].message,
        "statement is too long to parse (over 1 MiB)"
    );
}
