//! What an AMD bundle's code object must look like: an AMDGPU ELF for the HSA ABI, built
//! for the processor the metadata names.

/// `EM_AMDGPU`.
pub(crate) const EM_AMDGPU: u16 = 224;
/// `ELFOSABI_AMDGPU_HSA`: code objects the ROCm runtime loads.
const ELFOSABI_AMDGPU_HSA: u8 = 64;
/// The processor field of `e_flags` (`EF_AMDGPU_MACH`).
const EF_AMDGPU_MACH: u32 = 0xff;

/// `EF_AMDGPU_MACH` of processors whose value was read from code objects upstream Triton
/// 3.6 built for them. A processor not listed is not checked.
const MACH: &[(&str, u32)] = &[
    ("gfx908", 0x30),
    ("gfx90a", 0x3f),
    ("gfx942", 0x4c),
    ("gfx950", 0x4f),
    ("gfx1100", 0x41),
    ("gfx1201", 0x4e),
];

/// Checks that `code` is a 64-bit little-endian AMDGPU ELF for the HSA ABI and, where the
/// processor's `EF_AMDGPU_MACH` is known, that it was built for `processor`.
pub(crate) fn check_code_object(code: &[u8], processor: &str) -> Result<(), String> {
    if !code.starts_with(b"\x7fELF") {
        return Err("the code object is not an ELF file".into());
    }
    // e_ident[EI_CLASS] = ELFCLASS64, e_ident[EI_DATA] = little-endian, then the 64-bit
    // header up to e_flags (offset 48).
    if code.len() < 64 || code[4] != 2 || code[5] != 1 {
        return Err("the code object is not a 64-bit little-endian ELF file".into());
    }
    let machine = u16::from_le_bytes([code[18], code[19]]);
    if machine != EM_AMDGPU {
        return Err(format!(
            "the code object is an ELF file for machine {machine}, not AMDGPU ({EM_AMDGPU})"
        ));
    }
    if code[7] != ELFOSABI_AMDGPU_HSA {
        return Err(format!(
            "the code object's OS ABI is {}, not AMDGPU HSA ({ELFOSABI_AMDGPU_HSA})",
            code[7]
        ));
    }
    let flags = u32::from_le_bytes([code[48], code[49], code[50], code[51]]);
    let mach = flags & EF_AMDGPU_MACH;
    if let Some(&(_, expected)) = MACH.iter().find(|(p, _)| *p == processor) {
        if mach != expected {
            let built_for = MACH.iter().find(|(_, m)| *m == mach).map_or_else(
                || format!("EF_AMDGPU_MACH {mach:#x}"),
                |(p, _)| p.to_string(),
            );
            return Err(format!(
                "the metadata says `{processor}` but the code object was built for {built_for}"
            ));
        }
    }
    Ok(())
}
