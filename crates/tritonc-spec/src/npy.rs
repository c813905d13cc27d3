//! `.npy` files (NumPy format versions 1–3): little-endian C-order arrays.
//!
//! Supported dtypes: `b1`, `i1`–`i8`, `u1`–`u8`, `f2`, `f4`, `f8`. bfloat16 and fp8 have no
//! NumPy dtype: they are written as `<u2` / `|u1` raw bits, with the Triton dtype in an
//! extra `'tritonc_dtype'` header key that [`read`] honours.

use tritonc_ir::DType;

/// An array read from or written to a `.npy` file.
#[derive(Debug, Clone, PartialEq)]
pub struct NpyArray {
    /// The element dtype.
    pub dtype: DType,
    /// The shape (empty for a 0-d array).
    pub shape: Vec<usize>,
    /// Little-endian element bytes in C order.
    pub bytes: Vec<u8>,
}

fn descr_of(d: DType) -> &'static str {
    use DType::*;
    match d {
        I1 => "|b1",
        I8 => "|i1",
        I16 => "<i2",
        I32 => "<i4",
        I64 => "<i8",
        U8 => "|u1",
        U16 => "<u2",
        U32 => "<u4",
        U64 => "<u8",
        F16 => "<f2",
        F32 => "<f4",
        F64 => "<f8",
        BF16 => "<u2",
        _ => "|u1",
    }
}

fn dtype_of(descr: &str) -> Option<DType> {
    use DType::*;
    let d = descr.trim_start_matches(['<', '|', '=']);
    Some(match d {
        "b1" | "?" => I1,
        "i1" => I8,
        "i2" => I16,
        "i4" => I32,
        "i8" => I64,
        "u1" => U8,
        "u2" => U16,
        "u4" => U32,
        "u8" => U64,
        "f2" => F16,
        "f4" => F32,
        "f8" => F64,
        _ => return None,
    })
}

/// Serializes an array as `.npy` version 1.0 bytes.
pub fn write(a: &NpyArray) -> Vec<u8> {
    let shape = match a.shape.len() {
        0 => "()".to_string(),
        1 => format!("({},)", a.shape[0]),
        _ => format!(
            "({})",
            a.shape
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let extra = match a.dtype {
        DType::BF16
        | DType::F8E4M3FN
        | DType::F8E5M2
        | DType::F8E4M3FNUZ
        | DType::F8E5M2FNUZ
        | DType::F8E4M3B11FNUZ => format!(
            "'tritonc_dtype': '{}', ",
            a.dtype.triton_name().unwrap_or("?")
        ),
        _ => String::new(),
    };
    let mut header = format!(
        "{{'descr': '{}', 'fortran_order': False, 'shape': {shape}, {extra}}}",
        descr_of(a.dtype)
    );
    // Magic (6) + version (2) + length (2) + header + '\n', padded to 64 bytes.
    let unpadded = 10 + header.len() + 1;
    header.push_str(&" ".repeat(unpadded.next_multiple_of(64) - unpadded));
    header.push('\n');
    let mut out = Vec::with_capacity(10 + header.len() + a.bytes.len());
    out.extend_from_slice(b"\x93NUMPY\x01\x00");
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(&a.bytes);
    out
}

/// The value of `'key': ...` in a header dict, as raw text up to the next top-level comma.
fn header_field<'h>(header: &'h str, key: &str) -> Option<&'h str> {
    let pat = format!("'{key}':");
    let start = header.find(&pat)? + pat.len();
    let rest = header[start..].trim_start();
    let mut depth = 0i32;
    for (i, c) in rest.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' | '}' if depth == 0 => return Some(rest[..i].trim()),
            _ => {}
        }
    }
    Some(rest.trim())
}

/// Parses `.npy` bytes.
pub fn read(bytes: &[u8]) -> Result<NpyArray, String> {
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err("not a .npy file (bad magic)".into());
    }
    let (hlen, hstart) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 if bytes.len() >= 12 => (
            u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
            12,
        ),
        v => return Err(format!("unsupported .npy version {v}")),
    };
    let header = bytes
        .get(hstart..hstart + hlen)
        .and_then(|h| std::str::from_utf8(h).ok())
        .ok_or("truncated or non-text .npy header")?;
    let descr = header_field(header, "descr")
        .ok_or("the header has no 'descr'")?
        .trim_matches(['\'', '"']);
    let mut dtype = dtype_of(descr).ok_or_else(|| format!("unsupported dtype `{descr}`"))?;
    if descr.starts_with('>') && dtype.bitwidth().unwrap_or(8) > 8 {
        return Err("big-endian arrays are not supported".into());
    }
    if let Some(t) = header_field(header, "tritonc_dtype") {
        dtype = DType::from_triton_name(t.trim_matches(['\'', '"']))
            .ok_or_else(|| format!("unknown tritonc_dtype `{t}`"))?;
    }
    if header_field(header, "fortran_order") == Some("True") {
        return Err("Fortran-order arrays are not supported; save with C order".into());
    }
    let shape_text = header_field(header, "shape").ok_or("the header has no 'shape'")?;
    let shape: Vec<usize> = shape_text
        .trim_matches(['(', ')'])
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse::<usize>()
                .map_err(|_| format!("bad shape `{shape_text}`"))
        })
        .collect::<Result<_, _>>()?;
    let n: usize = shape.iter().product();
    let size = dtype.size_bytes().unwrap_or(1) as usize;
    let data = &bytes[hstart + hlen..];
    if data.len() < n * size {
        return Err(format!(
            "the file holds {} bytes of data but shape {shape:?} needs {}",
            data.len(),
            n * size
        ));
    }
    Ok(NpyArray {
        dtype,
        shape,
        bytes: data[..n * size].to_vec(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_header_alignment() {
        let a = NpyArray {
            dtype: DType::F32,
            shape: vec![2, 3],
            bytes: (0..6).flat_map(|i| (i as f32).to_le_bytes()).collect(),
        };
        let b = write(&a);
        let hlen = u16::from_le_bytes([b[8], b[9]]) as usize;
        assert_eq!((10 + hlen) % 64, 0);
        assert_eq!(read(&b).unwrap(), a);
        let bf = NpyArray {
            dtype: DType::BF16,
            shape: vec![1],
            bytes: vec![0x80, 0x3f],
        };
        assert_eq!(read(&write(&bf)).unwrap(), bf);
    }

    #[test]
    fn reads_numpy_written_header() {
        // The exact bytes numpy 2.x writes for np.arange(3, dtype='<i4').
        let mut b =
            b"\x93NUMPY\x01\x00v\x00{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }"
                .to_vec();
        while b.len() < 127 {
            b.push(b' ');
        }
        b.push(b'\n');
        b.extend([0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0]);
        let a = read(&b).unwrap();
        assert_eq!(a.dtype, DType::I32);
        assert_eq!(a.shape, vec![3]);
        assert_eq!(a.bytes[4], 1);
        assert!(read(b"nonsense").is_err());
    }
}
