//! The bounds of a binary the GPU driver is given by address alone (`cuModuleLoadData`,
//! `hipModuleLoadData` take no length): a cubin or code object whose headers, sections or
//! segments point past its end would be read out of bounds by the driver, so it is
//! refused here, with the rest of a bundle's checks.

use object::read::elf::{ElfFile64, FileHeader};
use object::{Endianness, Object, ObjectSection, ObjectSegment};

/// `EM_CUDA`, the machine of every cubin.
pub(crate) const EM_CUDA: u16 = 190;

/// Checks that `code` is a 64-bit ELF file for `machine` whose every section and segment
/// lies inside it. `what` names it in messages (`the cubin`).
pub(crate) fn check_bounds(code: &[u8], machine: u16, what: &str) -> Result<(), String> {
    let file = ElfFile64::<Endianness>::parse(code)
        .map_err(|e| format!("{what} is not a well-formed 64-bit ELF file: {e}"))?;
    let found = file.elf_header().e_machine(file.endian()).0;
    if found != machine {
        return Err(format!(
            "{what} is an ELF file for machine {found}, expected {machine}"
        ));
    }
    for section in file.sections() {
        section.data().map_err(|e| {
            format!(
                "{what}'s section `{}` lies outside the file: {e}",
                section.name().unwrap_or("?")
            )
        })?;
    }
    for segment in file.segments() {
        segment
            .data()
            .map_err(|e| format!("{what}'s segment lies outside the file: {e}"))?;
    }
    Ok(())
}
