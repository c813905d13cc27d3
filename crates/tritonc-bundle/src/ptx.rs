//! Reading the `.entry` parameter list out of PTX text, to check a bundle's metadata
//! against the code it describes.

use crate::meta::{BundleMeta, PtxParamKind};

/// One parameter of a PTX `.entry`, as declared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PtxEntryParam {
    /// The declared name (`vector_add_param_0`).
    pub name: String,
    /// The state-space type: `.u64`, `.u32`, `.f32`, `.b16`, …
    pub ty: String,
    /// Whether the parameter carries `.ptr` (a pointer with an address space).
    pub is_ptr: bool,
    /// The `.align N` of a `.ptr` parameter.
    pub align: Option<u32>,
}

impl PtxEntryParam {
    /// The parameter's width in bytes, from its type suffix (`.u32` → 4).
    pub fn size_bytes(&self) -> Option<u32> {
        let bits: u32 = self.ty.get(2..)?.parse().ok()?;
        Some(bits / 8)
    }
}

/// The `.entry` names in a PTX module, in order.
pub fn entry_names(ptx: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = ptx;
    while let Some(at) = rest.find(".entry") {
        let after = &rest[at + ".entry".len()..];
        let name: String = after
            .trim_start()
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.'))
            .collect();
        if !name.is_empty() {
            out.push(name);
        }
        rest = after;
    }
    out
}

/// The parameters of `.entry NAME(...)`, or `None` when the PTX has no such entry.
pub fn entry_params(ptx: &str, entry: &str) -> Option<Vec<PtxEntryParam>> {
    let mut rest = ptx;
    let list = loop {
        let at = rest.find(".entry")?;
        let after = rest[at + ".entry".len()..].trim_start();
        if let Some(tail) = after.strip_prefix(entry) {
            let tail = tail.trim_start();
            if let Some(body) = tail.strip_prefix('(') {
                break &body[..body.find(')')?];
            }
            if tail.starts_with('{') {
                break "";
            }
        }
        rest = &rest[at + ".entry".len()..];
    };
    let mut params = Vec::new();
    for decl in list.split(',') {
        let tokens: Vec<&str> = decl.split_whitespace().collect();
        if tokens.first() != Some(&".param") {
            continue;
        }
        let mut p = PtxEntryParam {
            name: tokens.last().unwrap_or(&"").to_string(),
            ty: String::new(),
            is_ptr: false,
            align: None,
        };
        let mut i = 1;
        while i < tokens.len() - 1 {
            match tokens[i] {
                ".ptr" => p.is_ptr = true,
                ".align" => {
                    p.align = tokens.get(i + 1).and_then(|a| a.parse().ok());
                    i += 1;
                }
                ".global" | ".shared" | ".const" | ".local" => {}
                t if t.starts_with('.') && p.ty.is_empty() => p.ty = t.to_string(),
                _ => {}
            }
            i += 1;
        }
        params.push(p);
    }
    Some(params)
}

/// Checks that the PTX declares `meta.entry` with exactly the parameters the metadata
/// says, in order. Returns a description of the first mismatch.
pub fn check_entry_abi(ptx: &str, meta: &BundleMeta) -> Result<(), String> {
    let Some(declared) = entry_params(ptx, &meta.entry) else {
        let names = entry_names(ptx);
        return Err(format!(
            "the PTX has no `.entry {}` (entries: {})",
            meta.entry,
            if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            }
        ));
    };
    let expected = meta.ptx_params();
    if declared.len() != expected.len() {
        return Err(format!(
            "`.entry {}` declares {} parameter(s) but the metadata passes {}",
            meta.entry,
            declared.len(),
            expected.len()
        ));
    }
    for (pos, ((index, kind), decl)) in expected.iter().zip(&declared).enumerate() {
        if *index as usize != pos {
            return Err(format!(
                "PTX parameter indices must be 0..{} without gaps; found {index} at position {pos}",
                expected.len()
            ));
        }
        let size = decl.size_bytes();
        let ok = match kind {
            PtxParamKind::Pointer { align, .. } => {
                size == Some(8) && (!decl.is_ptr || decl.align.unwrap_or(1) == *align)
            }
            PtxParamKind::Scalar { .. } => !decl.is_ptr && size == Some(kind.size_bytes()),
        };
        if !ok {
            return Err(format!(
                "PTX parameter {pos} (`{}`) is declared `{}{}{}` but the metadata expects `{kind}`",
                decl.name,
                decl.ty,
                if decl.is_ptr { " .ptr" } else { "" },
                decl.align
                    .map(|a| format!(" .align {a}"))
                    .unwrap_or_default(),
            ));
        }
    }
    Ok(())
}
