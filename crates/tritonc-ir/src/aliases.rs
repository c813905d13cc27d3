//! Encoding aliases in IR text: `#blocked1 = #ttg.blocked<{…}>` once at the top, then
//! `tensor<128xf32, #blocked1>` in the body, as Triton prints its TTGIR.
//!
//! [`alias_encodings`] rewrites printed text (outside string literals) so that every
//! distinct blocked, mma and shared layout is defined once, numbered in order of first use;
//! slices stay inline with their parent aliased. The parser reads the definitions back
//! (`parser::encoding`), so aliased and inline text parse to the same IR.

/// The alias kinds: the text an encoding starts with, and the names its aliases take.
const KINDS: [(&str, &str); 5] = [
    ("#ttg.blocked<{", "blocked"),
    ("#ttg.nvidia_mma<{", "mma"),
    ("#ttg.amd_mfma<{", "mma"),
    ("#ttg.swizzled_shared<{", "shared"),
    ("#ttg.padded_shared<[", "padded"),
];

/// `text` with blocked and shared encodings replaced by aliases defined at its top.
/// Text without encodings is returned unchanged.
pub fn alias_encodings(text: &str) -> String {
    let mut defined: Vec<(String, String)> = Vec::new();
    let mut counts = [0usize; KINDS.len()];
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut in_string = false;
    while !rest.is_empty() {
        if in_string {
            // Inside a literal: copy up to the closing quote, honouring `\\` escapes.
            let mut end = rest.len();
            let mut escaped = false;
            for (i, c) in rest.char_indices() {
                match c {
                    '\\' if !escaped => escaped = true,
                    '"' if !escaped => {
                        end = i + 1;
                        break;
                    }
                    _ => escaped = false,
                }
            }
            out.push_str(&rest[..end]);
            rest = &rest[end..];
            in_string = false;
            continue;
        }
        let next_quote = rest.find('"');
        let next_encoding = KINDS
            .iter()
            .enumerate()
            .filter_map(|(k, (start, _))| rest.find(start).map(|at| (at, k)))
            .min();
        match (next_quote, next_encoding) {
            (Some(q), Some((e, _))) if q < e => {
                out.push_str(&rest[..q]);
                rest = &rest[q..];
                out.push('"');
                rest = &rest[1..];
                in_string = true;
            }
            (_, Some((e, k))) => {
                let Some(len) = rest[e..].find("}>").map(|i| i + 2) else {
                    out.push_str(rest);
                    break;
                };
                out.push_str(&rest[..e]);
                let encoding = &rest[e..e + len];
                let name = match defined.iter().find(|(_, body)| body == encoding) {
                    Some((name, _)) => name.clone(),
                    None => {
                        let base = KINDS[k].1;
                        let name = match counts[k] {
                            0 => format!("#{base}"),
                            n => format!("#{base}{n}"),
                        };
                        counts[k] += 1;
                        defined.push((name.clone(), encoding.to_string()));
                        name
                    }
                };
                out.push_str(&name);
                rest = &rest[e + len..];
            }
            (Some(q), None) => {
                out.push_str(&rest[..q]);
                rest = &rest[q..];
                out.push('"');
                rest = &rest[1..];
                in_string = true;
            }
            (None, None) => {
                out.push_str(rest);
                break;
            }
        }
    }
    if defined.is_empty() {
        return out;
    }
    let mut head = String::new();
    for (name, body) in &defined {
        head.push_str(name);
        head.push_str(" = ");
        head.push_str(body);
        head.push('\n');
    }
    head + &out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distinct_encodings_get_numbered_aliases_strings_are_left_alone() {
        let b0 = "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>";
        let b1 = "#ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>";
        let text = format!(
            "a tensor<4xf32, {b0}> b tensor<4xf32, #ttg.slice<{{dim = 0, parent = {b1}}}>> c {{prefix = \"{b0}\"}} d tensor<4xf32, {b0}>\n"
        );
        let aliased = alias_encodings(&text);
        assert_eq!(
            aliased,
            format!(
                "#blocked = {b0}\n#blocked1 = {b1}\na tensor<4xf32, #blocked> b tensor<4xf32, #ttg.slice<{{dim = 0, parent = #blocked1}}>> c {{prefix = \"{b0}\"}} d tensor<4xf32, #blocked>\n"
            )
        );
        assert_eq!(alias_encodings("module {\n}\n"), "module {\n}\n");
    }
}
