mod common;
#[test]
#[ignore]
fn dump_examples() {
    for entry in std::fs::read_dir("../../examples").unwrap() {
        let p = entry.unwrap().path();
        if p.extension().is_none_or(|e| e != "py") {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap();
        let (f, s) = common::lint_text(
            p.to_str().unwrap(),
            &text,
            &tritonc_lint::Settings::default(),
        );
        println!("== {} {:?}", p.display(), common::codes_and_lines(&f, &s));
        println!("{}", common::render(&f, &s));
    }
}
