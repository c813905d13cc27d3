//! One cache entry on disk:
//!
//! ```text
//! tritonc-cache-entry\n
//! {header JSON}\n
//! PTX bytes, then cubin bytes (lengths in the header)
//! 32 bytes: BLAKE3 of everything above
//! ```
//!
//! The trailing checksum covers the header too, so any damage (a truncated write, a
//! flipped bit, an edited file) makes the entry unreadable rather than wrong.

use serde::{Deserialize, Serialize};
use tritonc_bundle::PtxasReport;

const MAGIC: &[u8] = b"tritonc-cache-entry\n";
const CHECKSUM_BYTES: usize = 32;

/// What the back end produced for one kernel variant: everything a bundle needs beyond
/// what the specialization says.
#[derive(Debug, Clone, PartialEq)]
pub struct CachedCode {
    /// The `.entry` name.
    pub entry: String,
    /// The PTX text, as the bundle carries it.
    pub ptx: String,
    /// Warps per program the code was generated for.
    pub num_warps: u32,
    /// Shared memory in bytes.
    pub shared_bytes: u32,
    /// Whether the shared memory is dynamic.
    pub dynamic_shared: bool,
    /// ptxas's output, when a cubin was assembled.
    pub cubin: Option<Vec<u8>>,
    /// ptxas's `-v` report, with the cubin.
    pub ptxas: Option<PtxasReport>,
    /// The order of every reduction and scan in the code (`tritonc_codegen::combine_orders`),
    /// for the bundle's `reduction_layouts`.
    pub combine_orders: Option<serde_json::Value>,
}

#[derive(Serialize, Deserialize)]
struct Header {
    key: String,
    entry: String,
    num_warps: u32,
    shared_bytes: u32,
    dynamic_shared: bool,
    ptx_bytes: u64,
    cubin_bytes: Option<u64>,
    ptxas: Option<PtxasReport>,
    #[serde(default)]
    combine_orders: Option<serde_json::Value>,
}

/// The bytes of the entry for `code` under `key`.
pub fn encode(key: &str, code: &CachedCode) -> Vec<u8> {
    let header = Header {
        key: key.to_string(),
        entry: code.entry.clone(),
        num_warps: code.num_warps,
        shared_bytes: code.shared_bytes,
        dynamic_shared: code.dynamic_shared,
        ptx_bytes: code.ptx.len() as u64,
        cubin_bytes: code.cubin.as_ref().map(|c| c.len() as u64),
        ptxas: code.ptxas.clone(),
        combine_orders: code.combine_orders.clone(),
    };
    // Serializing a struct of strings and numbers into memory cannot fail.
    let header = serde_json::to_string(&header).expect("a cache header serializes to JSON");
    let mut bytes = Vec::with_capacity(
        MAGIC.len() + header.len() + 1 + code.ptx.len() + code.cubin.as_ref().map_or(0, Vec::len),
    );
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(header.as_bytes());
    bytes.push(b'\n');
    bytes.extend_from_slice(code.ptx.as_bytes());
    if let Some(cubin) = &code.cubin {
        bytes.extend_from_slice(cubin);
    }
    let checksum = blake3::hash(&bytes);
    bytes.extend_from_slice(checksum.as_bytes());
    bytes
}

/// The code stored in `bytes`, if they are an intact entry for `key`; why not otherwise.
pub fn decode(key: &str, bytes: &[u8]) -> Result<CachedCode, String> {
    let body_len = bytes
        .len()
        .checked_sub(CHECKSUM_BYTES)
        .filter(|&n| n >= MAGIC.len())
        .ok_or("the entry is truncated")?;
    let (body, checksum) = bytes.split_at(body_len);
    if blake3::hash(body).as_bytes() != checksum {
        return Err("the entry's checksum does not match its contents".into());
    }
    let rest = body.strip_prefix(MAGIC).ok_or("the entry has no header")?;
    let newline = rest
        .iter()
        .position(|&b| b == b'\n')
        .ok_or("the entry's header is not terminated")?;
    let header: Header = serde_json::from_slice(&rest[..newline])
        .map_err(|e| format!("the entry's header is unreadable: {e}"))?;
    if header.key != key {
        return Err("the entry belongs to another key".into());
    }
    let payload = &rest[newline + 1..];
    let ptx_len = usize::try_from(header.ptx_bytes).map_err(|_| "the PTX length overflows")?;
    let cubin_len = match header.cubin_bytes {
        Some(n) => usize::try_from(n).map_err(|_| "the cubin length overflows")?,
        None => 0,
    };
    if ptx_len.checked_add(cubin_len) != Some(payload.len()) {
        return Err("the entry's lengths do not match its contents".into());
    }
    let (ptx, cubin) = payload.split_at(ptx_len);
    let ptx = String::from_utf8(ptx.to_vec()).map_err(|_| "the PTX is not UTF-8")?;
    Ok(CachedCode {
        entry: header.entry,
        ptx,
        num_warps: header.num_warps,
        shared_bytes: header.shared_bytes,
        dynamic_shared: header.dynamic_shared,
        cubin: header.cubin_bytes.map(|_| cubin.to_vec()),
        ptxas: header.ptxas,
        combine_orders: header.combine_orders,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code() -> CachedCode {
        CachedCode {
            entry: "add_kernel".into(),
            ptx: ".version 8.0\n.target sm_90\n".into(),
            num_warps: 4,
            shared_bytes: 0,
            dynamic_shared: false,
            cubin: Some(vec![0x7f, b'E', b'L', b'F', 0, 1, 2]),
            ptxas: Some(PtxasReport {
                registers: 12,
                ..PtxasReport::default()
            }),
            combine_orders: Some(serde_json::json!({"target": "sm_90", "reductions": []})),
        }
    }

    #[test]
    fn an_entry_round_trips() {
        let bytes = encode("abc", &code());
        assert_eq!(decode("abc", &bytes), Ok(code()));
        let ptx_only = CachedCode {
            cubin: None,
            ptxas: None,
            ..code()
        };
        assert_eq!(decode("abc", &encode("abc", &ptx_only)), Ok(ptx_only));
    }

    #[test]
    fn any_damage_is_detected() {
        let bytes = encode("abc", &code());
        for i in 0..bytes.len() {
            let mut damaged = bytes.clone();
            damaged[i] ^= 0x01;
            assert!(
                decode("abc", &damaged).is_err(),
                "flipped byte {i} went unnoticed"
            );
        }
        for n in 0..bytes.len() {
            assert!(
                decode("abc", &bytes[..n]).is_err(),
                "truncated to {n} bytes"
            );
        }
        assert!(decode("abd", &bytes).is_err());
    }
}
