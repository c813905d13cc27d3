//! Bounds-checked global memory: argument buffers in one flat address space.
//!
//! Buffer `i` starts at address `(i + 1) << 40`, so a pointer is a `u64` that encodes
//! (buffer id, byte offset); `tt.addptr`, `tt.ptr_to_int` and `tt.int_to_ptr` are plain
//! integer arithmetic and an offset that wraps negative lands in the gap before the buffer,
//! where the access is reported. Every access is checked against the buffer it falls in.

use half::{bf16, f16};
use tritonc_ir::{DType, OpId};

use crate::error::RuntimeErrorKind;

/// log2 of the address space each buffer owns.
pub const BUFFER_SHIFT: u32 = 40;

/// A buffer handle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BufferId(pub u32);

impl BufferId {
    /// The address of the buffer's first byte.
    pub fn base_address(self) -> u64 {
        (self.0 as u64 + 1) << BUFFER_SHIFT
    }
}

/// One argument allocation: bytes in little-endian element order.
#[derive(Debug, Clone, PartialEq)]
pub struct Buffer {
    /// The tensor's name, for messages.
    pub name: String,
    /// The element dtype (the storage may be viewed with other types through bitcasts).
    pub dtype: DType,
    /// The raw bytes.
    pub bytes: Vec<u8>,
}

/// All buffers of a launch.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Memory {
    buffers: Vec<Buffer>,
}

impl Memory {
    /// An empty memory.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a buffer and returns its id.
    pub fn add(&mut self, buffer: Buffer) -> BufferId {
        self.buffers.push(buffer);
        BufferId(self.buffers.len() as u32 - 1)
    }

    /// The buffer `id`.
    pub fn buffer(&self, id: BufferId) -> &Buffer {
        &self.buffers[id.0 as usize]
    }

    /// The buffer `id`, mutably.
    pub fn buffer_mut(&mut self, id: BufferId) -> &mut Buffer {
        &mut self.buffers[id.0 as usize]
    }

    /// Every buffer, by id.
    pub fn buffers(&self) -> &[Buffer] {
        &self.buffers
    }

    /// The buffer and byte offset of an access of `size` bytes at `addr`.
    pub fn resolve(&self, addr: u64, size: u32) -> Result<(usize, usize), RuntimeErrorKind> {
        let id = (addr >> BUFFER_SHIFT) as usize;
        let off = addr & ((1u64 << BUFFER_SHIFT) - 1);
        if id >= 1 && id <= self.buffers.len() {
            let b = &self.buffers[id - 1];
            if off + size as u64 <= b.bytes.len() as u64 {
                if off % size as u64 != 0 {
                    return Err(RuntimeErrorKind::Misaligned {
                        address: addr,
                        size,
                    });
                }
                return Ok((id - 1, off as usize));
            }
        }
        Err(RuntimeErrorKind::OutOfBounds {
            address: addr,
            size,
            detail: self.describe(addr),
        })
    }

    /// Where an address lies relative to the nearest buffer, for messages.
    pub fn describe(&self, addr: u64) -> String {
        let id = (addr >> BUFFER_SHIFT) as usize;
        let off = addr & ((1u64 << BUFFER_SHIFT) - 1);
        let half = 1u64 << (BUFFER_SHIFT - 1);
        if id >= 1 && id <= self.buffers.len() {
            let b = &self.buffers[id - 1];
            if off < half {
                return format!(
                    "{} bytes past the end of `{}` ({} bytes)",
                    off - b.bytes.len() as u64,
                    b.name,
                    b.bytes.len()
                );
            }
        }
        // The upper half of a slot belongs to the next buffer: a negative offset.
        if off >= half && id < self.buffers.len() {
            let b = &self.buffers[id];
            return format!(
                "{} bytes before the start of `{}`",
                (1u64 << BUFFER_SHIFT) - off,
                b.name
            );
        }
        "not in any buffer".to_string()
    }

    /// The range of addresses of buffer index `i`.
    fn range(&self, i: usize) -> (u64, u64) {
        let base = BufferId(i as u32).base_address();
        (base, base + self.buffers[i].bytes.len() as u64)
    }
}

/// An element type that can be read from and written to memory.
pub trait Pod: Copy + Send + Sync + 'static {
    /// Size in bytes.
    const SIZE: usize;
    /// Reads from little-endian bytes (`b.len() == SIZE`).
    fn read(b: &[u8]) -> Self;
    /// Writes as little-endian bytes.
    fn write(self, b: &mut [u8]);
}

macro_rules! pod_num {
    ($($t:ty),*) => {$(
        impl Pod for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            fn read(b: &[u8]) -> Self {
                <$t>::from_le_bytes(b.try_into().expect("slice length equals SIZE"))
            }
            fn write(self, b: &mut [u8]) {
                b.copy_from_slice(&self.to_le_bytes());
            }
        }
    )*};
}
pod_num!(i8, i16, i32, i64, u8, u64, f32, f64);

impl Pod for f16 {
    const SIZE: usize = 2;
    fn read(b: &[u8]) -> Self {
        f16::from_bits(u16::read(b))
    }
    fn write(self, b: &mut [u8]) {
        self.to_bits().write(b)
    }
}

impl Pod for bf16 {
    const SIZE: usize = 2;
    fn read(b: &[u8]) -> Self {
        bf16::from_bits(u16::read(b))
    }
    fn write(self, b: &mut [u8]) {
        self.to_bits().write(b)
    }
}

impl Pod for u16 {
    const SIZE: usize = 2;
    fn read(b: &[u8]) -> Self {
        u16::from_le_bytes([b[0], b[1]])
    }
    fn write(self, b: &mut [u8]) {
        b.copy_from_slice(&self.to_le_bytes());
    }
}

impl Pod for bool {
    const SIZE: usize = 1;
    fn read(b: &[u8]) -> Self {
        b[0] != 0
    }
    fn write(self, b: &mut [u8]) {
        b[0] = self as u8;
    }
}

/// A byte range one op of one program touched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Access {
    /// First address.
    pub start: u64,
    /// One past the last address.
    pub end: u64,
    /// Whether it was a write.
    pub write: bool,
    /// The op.
    pub op: OpId,
}

/// A program's accesses, with contiguous lanes coalesced into ranges.
#[derive(Debug, Clone, Default)]
pub struct AccessLog {
    /// The ranges, in program order.
    pub accesses: Vec<Access>,
}

impl AccessLog {
    fn record(&mut self, addrs: impl Iterator<Item = u64>, size: u64, write: bool, op: OpId) {
        let mut cur: Option<Access> = None;
        for a in addrs {
            match &mut cur {
                Some(c) if a >= c.start && a <= c.end => c.end = c.end.max(a + size),
                _ => {
                    if let Some(c) = cur.take() {
                        self.accesses.push(c);
                    }
                    cur = Some(Access {
                        start: a,
                        end: a + size,
                        write,
                        op,
                    });
                }
            }
        }
        if let Some(c) = cur {
            self.accesses.push(c);
        }
    }
}

/// Bytes a deferred-mode program wrote, starting at an address.
#[derive(Debug, Clone)]
pub struct WriteRun {
    /// The first address.
    pub start: u64,
    /// The bytes written.
    pub bytes: Vec<u8>,
}

/// How a program sees memory.
pub enum ProgramMemory<'m> {
    /// Reads and writes go straight to the launch's memory (sequential mode).
    Direct(&'m mut Memory),
    /// Reads see the memory as it was at launch plus this program's own writes, which are
    /// kept aside and applied after all programs ran (parallel mode).
    Deferred {
        /// The memory at launch.
        base: &'m Memory,
        /// This program's writes, in order.
        runs: Vec<WriteRun>,
        /// The hull of all runs (`start`, `end`), to skip the overlay check quickly.
        hull: Option<(u64, u64)>,
    },
}

/// A failed lane: its index and what went wrong.
pub type LaneError = (usize, RuntimeErrorKind);

impl ProgramMemory<'_> {
    fn memory(&self) -> &Memory {
        match self {
            ProgramMemory::Direct(m) => m,
            ProgramMemory::Deferred { base, .. } => base,
        }
    }

    /// Loads one element per active lane; inactive lanes get `fill(lane)`.
    pub fn load<T: Pod + Default>(
        &self,
        ptrs: &[u64],
        mask: Option<&[bool]>,
        fill: impl Fn(usize) -> T,
        log: &mut AccessLog,
        op: OpId,
    ) -> Result<Vec<T>, LaneError> {
        let mem = self.memory();
        let size = T::SIZE as u64;
        let mut out = Vec::with_capacity(ptrs.len());
        // The last buffer hit: most blocks live in one buffer.
        let mut cur: Option<(u64, u64, usize)> = None;
        for (i, &a) in ptrs.iter().enumerate() {
            if mask.is_some_and(|m| !m[i]) {
                out.push(fill(i));
                continue;
            }
            let (lo, idx) = match cur {
                Some((lo, hi, idx)) if a >= lo && a + size <= hi && (a - lo) % size == 0 => {
                    (lo, idx)
                }
                _ => {
                    let (idx, _) = mem.resolve(a, size as u32).map_err(|e| (i, e))?;
                    let (lo, hi) = mem.range(idx);
                    cur = Some((lo, hi, idx));
                    (lo, idx)
                }
            };
            let off = (a - lo) as usize;
            out.push(T::read(&mem.buffers[idx].bytes[off..off + T::SIZE]));
        }
        let active = |i: &usize| mask.is_none_or(|m| m[*i]);
        log.record(
            (0..ptrs.len()).filter(active).map(|i| ptrs[i]),
            size,
            false,
            op,
        );
        if let ProgramMemory::Deferred {
            runs,
            hull: Some((hs, he)),
            ..
        } = self
        {
            self.patch_own_writes(ptrs, mask, &mut out, runs, (*hs, *he));
        }
        Ok(out)
    }

    /// Replaces loaded values with this program's own earlier (deferred) writes.
    fn patch_own_writes<T: Pod>(
        &self,
        ptrs: &[u64],
        mask: Option<&[bool]>,
        out: &mut [T],
        runs: &[WriteRun],
        hull: (u64, u64),
    ) {
        let size = T::SIZE as u64;
        for (i, &a) in ptrs.iter().enumerate() {
            if mask.is_some_and(|m| !m[i]) || a + size <= hull.0 || a >= hull.1 {
                continue;
            }
            // Latest write wins: scan runs backwards, byte by byte for partial overlaps.
            let mut bytes = [0u8; 8];
            let mut cur = vec![0u8; T::SIZE];
            let mut seen = 0u32;
            let mut patched = false;
            for run in runs.iter().rev() {
                let rs = run.start;
                let re = rs + run.bytes.len() as u64;
                if a + size <= rs || a >= re {
                    continue;
                }
                for b in 0..size {
                    let addr = a + b;
                    if seen & (1 << b) == 0 && addr >= rs && addr < re {
                        bytes[b as usize] = run.bytes[(addr - rs) as usize];
                        seen |= 1 << b;
                        patched = true;
                    }
                }
            }
            if patched {
                out[i].write(&mut cur);
                for b in 0..T::SIZE {
                    if seen & (1 << b) != 0 {
                        cur[b] = bytes[b];
                    }
                }
                out[i] = T::read(&cur);
            }
        }
    }

    /// Stores one element per active lane.
    pub fn store<T: Pod>(
        &mut self,
        ptrs: &[u64],
        vals: &[T],
        mask: Option<&[bool]>,
        log: &mut AccessLog,
        op: OpId,
    ) -> Result<(), LaneError> {
        let size = T::SIZE as u64;
        let active = |i: usize| mask.is_none_or(|m| m[i]);
        // Check every lane before writing anything, so a failed store has no effect.
        {
            let mem = self.memory();
            let mut cur: Option<(u64, u64)> = None;
            for (i, &a) in ptrs.iter().enumerate() {
                if !active(i) {
                    continue;
                }
                if let Some((lo, hi)) = cur {
                    if a >= lo && a + size <= hi && (a - lo) % size == 0 {
                        continue;
                    }
                }
                let (idx, _) = mem.resolve(a, size as u32).map_err(|e| (i, e))?;
                cur = Some(mem.range(idx));
            }
        }
        log.record(
            (0..ptrs.len()).filter(|&i| active(i)).map(|i| ptrs[i]),
            size,
            true,
            op,
        );
        match self {
            ProgramMemory::Direct(mem) => {
                for (i, &a) in ptrs.iter().enumerate() {
                    if !active(i) {
                        continue;
                    }
                    let (idx, off) = mem
                        .resolve(a, size as u32)
                        .expect("every active lane was bounds-checked above");
                    vals[i].write(&mut mem.buffers[idx].bytes[off..off + T::SIZE]);
                }
            }
            ProgramMemory::Deferred { runs, hull, .. } => {
                let mut buf = [0u8; 8];
                for (i, &a) in ptrs.iter().enumerate() {
                    if !active(i) {
                        continue;
                    }
                    vals[i].write(&mut buf[..T::SIZE]);
                    match runs.last_mut() {
                        Some(r) if r.start + r.bytes.len() as u64 == a => {
                            r.bytes.extend_from_slice(&buf[..T::SIZE])
                        }
                        _ => runs.push(WriteRun {
                            start: a,
                            bytes: buf[..T::SIZE].to_vec(),
                        }),
                    }
                    let (s, e) = hull.unwrap_or((a, a + size));
                    *hull = Some((s.min(a), e.max(a + size)));
                }
            }
        }
        Ok(())
    }

    /// Reads and writes one element at `addr` (atomics; sequential mode only).
    pub fn read_modify_write<T: Pod>(
        &mut self,
        addr: u64,
        f: impl FnOnce(T) -> T,
    ) -> Result<T, RuntimeErrorKind> {
        let ProgramMemory::Direct(mem) = self else {
            return Err(RuntimeErrorKind::Unsupported(
                "atomics outside sequential mode".into(),
            ));
        };
        let (idx, off) = mem.resolve(addr, T::SIZE as u32)?;
        let slot = &mut mem.buffers[idx].bytes[off..off + T::SIZE];
        let old = T::read(slot);
        f(old).write(slot);
        Ok(old)
    }

    /// The deferred writes, to apply after the launch (empty in direct mode).
    pub fn into_runs(self) -> Vec<WriteRun> {
        match self {
            ProgramMemory::Direct(_) => Vec::new(),
            ProgramMemory::Deferred { runs, .. } => runs,
        }
    }
}

/// Applies deferred writes to memory.
pub fn apply_runs(mem: &mut Memory, runs: &[WriteRun]) {
    for r in runs {
        // Runs were bounds-checked element by element when recorded; one run may span
        // only one buffer because buffers are 2^40 apart.
        if let Ok((idx, off)) = mem.resolve(r.start, 1) {
            mem.buffers[idx].bytes[off..off + r.bytes.len()].copy_from_slice(&r.bytes);
        }
    }
}

/// The name of the buffer holding `addr`, for messages.
pub fn buffer_name(mem: &Memory, addr: u64) -> String {
    match mem.resolve(addr, 1) {
        Ok((idx, _)) => mem.buffers[idx].name.clone(),
        Err(_) => "?".into(),
    }
}

/// Serializes elements to little-endian bytes (`i1` as one byte each).
pub fn encode(data: &crate::data::Data) -> Vec<u8> {
    use crate::data::Data;
    fn enc<T: Pod>(v: &[T]) -> Vec<u8> {
        let mut out = vec![0u8; v.len() * T::SIZE];
        for (x, chunk) in v.iter().zip(out.chunks_exact_mut(T::SIZE)) {
            x.write(chunk);
        }
        out
    }
    match data {
        Data::Bool(v) => enc(v),
        Data::I8(v) => enc(v),
        Data::I16(v) => enc(v),
        Data::I32(v) => enc(v),
        Data::I64(v) => enc(v),
        Data::F16(v) => enc(v),
        Data::BF16(v) => enc(v),
        Data::F32(v) => enc(v),
        Data::F64(v) => enc(v),
        Data::F8(_, v) => v.clone(),
        Data::Ptr(v) => enc(v),
    }
}

/// Reads little-endian bytes as elements of `dtype` (trailing partial elements ignored).
pub fn decode(dtype: DType, bytes: &[u8]) -> crate::data::Data {
    use crate::data::{storage_of, Data, Storage};
    fn dec<T: Pod>(b: &[u8]) -> Vec<T> {
        b.chunks_exact(T::SIZE).map(T::read).collect()
    }
    match storage_of(dtype) {
        Storage::Bool => Data::Bool(dec(bytes)),
        Storage::I8 => Data::I8(dec(bytes)),
        Storage::I16 => Data::I16(dec(bytes)),
        Storage::I32 => Data::I32(dec(bytes)),
        Storage::I64 => Data::I64(dec(bytes)),
        Storage::F16 => Data::F16(dec(bytes)),
        Storage::BF16 => Data::BF16(dec(bytes)),
        Storage::F32 => Data::F32(dec(bytes)),
        Storage::F64 => Data::F64(dec(bytes)),
        Storage::F8(k) => Data::F8(k, bytes.to_vec()),
    }
}

impl Buffer {
    /// A buffer holding `data` as elements of `dtype`.
    pub fn from_data(name: &str, dtype: DType, data: &crate::data::Data) -> Self {
        Buffer {
            name: name.to_string(),
            dtype,
            bytes: encode(data),
        }
    }

    /// An f32 buffer.
    pub fn from_f32(name: &str, v: &[f32]) -> Self {
        Self::from_data(name, DType::F32, &crate::data::Data::F32(v.to_vec()))
    }

    /// A buffer of `n` zero elements of `dtype`.
    pub fn zeros(name: &str, dtype: DType, n: usize) -> Self {
        Buffer {
            name: name.to_string(),
            dtype,
            bytes: vec![0; n * dtype.size_bytes().unwrap_or(1) as usize],
        }
    }

    /// A buffer of `values` rounded to `dtype` (nearest even; ints wrap, unsigned types
    /// take the low bits).
    pub fn from_f64(name: &str, dtype: DType, values: &[f64]) -> Self {
        use crate::data::{storage_of, Data, Storage};
        let data = match storage_of(dtype) {
            Storage::Bool => Data::Bool(values.iter().map(|&v| v != 0.0).collect()),
            Storage::I8 => Data::I8(values.iter().map(|&v| v as i64 as i8).collect()),
            Storage::I16 => Data::I16(values.iter().map(|&v| v as i64 as i16).collect()),
            Storage::I32 => Data::I32(values.iter().map(|&v| v as i64 as i32).collect()),
            Storage::I64 => Data::I64(values.iter().map(|&v| v as i64).collect()),
            _ => crate::elementwise::float_from_f64_vec(
                values,
                dtype,
                tritonc_ir::RoundingMode::Rtne,
            )
            .expect("every float dtype has an f64 conversion"),
        };
        Self::from_data(name, dtype, &data)
    }

    /// The elements as typed data.
    pub fn data(&self) -> crate::data::Data {
        decode(self.dtype, &self.bytes)
    }

    /// The elements widened to f64 (unsigned ints by their unsigned value).
    pub fn to_f64_vec(&self) -> Vec<f64> {
        use rayon::prelude::*;
        let d = self.data();
        let unsigned = self.dtype.is_unsigned();
        (0..d.len())
            .into_par_iter()
            .with_min_len(1 << 14)
            .map(|i| {
                if unsigned {
                    let bits = self.dtype.bitwidth().unwrap_or(64);
                    let v = d.get_i64(i) as u64;
                    let mask = if bits == 64 {
                        u64::MAX
                    } else {
                        (1u64 << bits) - 1
                    };
                    (v & mask) as f64
                } else {
                    d.get_f64(i)
                }
            })
            .collect()
    }
}
