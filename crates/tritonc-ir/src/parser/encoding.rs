//! The GPU IR's pieces of type syntax: block encodings (`#ttg.blocked<…>`,
//! `#ttg.slice<…>`), shared buffers (`!ttg.memdesc<…>`) and async tokens.

use super::cursor::{Cursor, PResult};
use crate::layout::{BlockedLayout, Layout, SliceLayout};
use crate::shared_layout::{MemDescType, SharedLayout};
use crate::types::Type;

/// What an alias at the top of the text stands for.
#[derive(Debug, Clone)]
pub(super) enum Alias {
    /// A distributed layout.
    Distributed(Layout),
    /// A shared-memory layout.
    Shared(SharedLayout),
}

/// Deepest `#ttg.slice` nesting accepted (keeps garbage input off the stack).
const MAX_SLICE_DEPTH: usize = 8;

impl Cursor<'_> {
    /// `#name = <encoding>` lines before the module.
    pub(super) fn alias_definitions(&mut self) -> PResult<()> {
        loop {
            self.skip_ws();
            if self.peek() != Some(b'#') {
                return Ok(());
            }
            let at = self.pos;
            let name = self.alias_name()?;
            self.expect("=")?;
            let alias = if self.looking_at("#ttg.swizzled_shared<")
                || self.looking_at("#ttg.padded_shared<")
                || self.looking_at("#ttg.nvmma_shared<")
            {
                Alias::Shared(self.shared_layout()?)
            } else {
                Alias::Distributed(self.layout()?)
            };
            if self.aliases.insert(name.clone(), alias).is_some() {
                return self.error_at(at, format!("alias `{name}` is defined twice"));
            }
        }
    }

    /// `#name` (not `#ttg.…`), if next; consumes nothing otherwise.
    fn alias_use(&mut self) -> PResult<Option<(usize, String)>> {
        self.skip_ws();
        if self.peek() != Some(b'#') || self.rest().starts_with("#ttg.") {
            return Ok(None);
        }
        let at = self.pos;
        Ok(Some((at, self.alias_name()?)))
    }

    fn alias_name(&mut self) -> PResult<String> {
        self.skip_ws();
        let start = self.pos;
        self.pos += 1;
        while self
            .peek()
            .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
        {
            self.pos += 1;
        }
        if self.pos == start + 1 {
            return self.error_at(start, "expected an alias name after `#`");
        }
        Ok(self.text[start..self.pos].to_string())
    }

    /// `[1, 2, 3]`.
    fn u32_list(&mut self) -> PResult<Vec<u32>> {
        self.expect("[")?;
        let mut out = Vec::new();
        if self.eat("]") {
            return Ok(out);
        }
        loop {
            out.push(self.u32()?);
            if self.eat("]") {
                return Ok(out);
            }
            self.expect(",")?;
        }
    }

    /// `key = [..]` or `key = N`, in the order given.
    fn field_list(&mut self, key: &str) -> PResult<Vec<u32>> {
        self.expect(key)?;
        self.expect("=")?;
        self.u32_list()
    }

    fn field_u32(&mut self, key: &str) -> PResult<u32> {
        self.expect(key)?;
        self.expect("=")?;
        self.u32()
    }

    /// A distributed encoding: `#ttg.blocked<{…}>` or `#ttg.slice<{dim = D, parent = …}>`.
    pub(super) fn layout(&mut self) -> PResult<Layout> {
        self.layout_at_depth(0)
    }

    fn layout_at_depth(&mut self, depth: usize) -> PResult<Layout> {
        if let Some((at, name)) = self.alias_use()? {
            return match self.aliases.get(&name) {
                Some(Alias::Distributed(l)) => Ok(l.clone()),
                Some(Alias::Shared(_)) => self.error_at(
                    at,
                    format!("`{name}` is a shared layout, not a distributed one"),
                ),
                None => self.error_at(at, format!("undefined alias `{name}`")),
            };
        }
        let at = self.pos;
        if self.eat("#ttg.blocked<{") {
            let size_per_thread = self.field_list("sizePerThread")?;
            self.expect(",")?;
            let threads_per_warp = self.field_list("threadsPerWarp")?;
            self.expect(",")?;
            let warps_per_cta = self.field_list("warpsPerCTA")?;
            self.expect(",")?;
            let order = self.field_list("order")?;
            self.expect("}>")?;
            let rank = order.len();
            if [&size_per_thread, &threads_per_warp, &warps_per_cta]
                .iter()
                .any(|l| l.len() != rank)
            {
                return self.error_at(at, "the lists of a blocked layout differ in length");
            }
            return Ok(Layout::Blocked(BlockedLayout {
                size_per_thread,
                threads_per_warp,
                warps_per_cta,
                order,
            }));
        }
        if self.eat("#ttg.nvidia_mma<{") {
            let version_major = self.field_u32("versionMajor")?;
            self.expect(",")?;
            let version_minor = self.field_u32("versionMinor")?;
            self.expect(",")?;
            let warps_per_cta = self.field_list("warpsPerCTA")?;
            self.expect(",")?;
            let instr_shape = self.field_list("instrShape")?;
            self.expect("}>")?;
            let layout = crate::MmaLayout {
                version_major,
                warps_per_cta,
                instr_shape,
            };
            let smallest: [u64; 2] = if version_major == 3 { [64, 8] } else { [16, 8] };
            if !matches!(version_major, 2 | 3) || version_minor != 0 || layout.to_linear(&smallest).is_err() {
                return self.error_at(
                    at,
                    "an mma layout is version 2.0 (rank 2, instrShape = [16, 8]) or 3.0 (instrShape = [16, N, K], warpsPerCTA[0] a multiple of 4), with warps in powers of two",
                );
            }
            return Ok(Layout::Mma(layout));
        }
        if self.eat("#ttg.amd_mfma<{") {
            let version = self.field_u32("version")?;
            self.expect(",")?;
            let warps_per_cta = self.field_list("warpsPerCTA")?;
            self.expect(",")?;
            let instr_shape = self.field_list("instrShape")?;
            self.expect(",")?;
            self.expect("isTransposed")?;
            self.expect("=")?;
            let is_transposed = if self.eat_word("true") {
                true
            } else if self.eat_word("false") {
                false
            } else {
                return self.error("expected `true` or `false`");
            };
            self.expect("}>")?;
            let layout = crate::MfmaLayout {
                version,
                warps_per_cta,
                instr_shape,
                is_transposed,
            };
            if let Err(e) = layout.to_linear(&[64, 64]) {
                return self.error_at(at, e.to_string());
            }
            return Ok(Layout::AmdMfma(layout));
        }
        if self.eat("#ttg.slice<{") {
            if depth >= MAX_SLICE_DEPTH {
                return self.error_at(at, "slice layouts nested too deeply");
            }
            let dim = self.field_u32("dim")?;
            self.expect(",")?;
            self.expect("parent")?;
            self.expect("=")?;
            let parent = self.layout_at_depth(depth + 1)?;
            self.expect("}>")?;
            if dim as usize >= parent.rank() {
                return self.error_at(at, format!("slice dim {dim} is outside its parent"));
            }
            return Ok(Layout::Slice(SliceLayout {
                dim,
                parent: Box::new(parent),
            }));
        }
        self.error("expected a layout (`#ttg.blocked<…>`, `#ttg.slice<…>` or `#ttg.nvidia_mma<…>`)")
    }

    /// `#ttg.swizzled_shared<{vec = V, perPhase = P, maxPhase = M, order = [..]}>` or
    /// `#ttg.padded_shared<[I:+P] {order = [..]}>`.
    fn shared_layout(&mut self) -> PResult<SharedLayout> {
        if let Some((at, name)) = self.alias_use()? {
            return match self.aliases.get(&name) {
                Some(Alias::Shared(l)) => Ok(l.clone()),
                Some(Alias::Distributed(_)) => self.error_at(
                    at,
                    format!("`{name}` is a distributed layout, not a shared one"),
                ),
                None => self.error_at(at, format!("undefined alias `{name}`")),
            };
        }
        if self.eat("#ttg.padded_shared<[") {
            let interval = self.u32()?;
            self.expect(":")?;
            self.expect("+")?;
            let pad = self.u32()?;
            self.expect("]")?;
            self.expect("{")?;
            let order = self.field_list("order")?;
            self.expect("}>")?;
            return Ok(SharedLayout::padded(order, interval, pad));
        }
        if self.eat("#ttg.nvmma_shared<{") {
            let swizzle = self.field_u32("swizzlingByteWidth")?;
            self.expect(",")?;
            self.expect("transposed")?;
            self.expect("=")?;
            let transposed = if self.eat("true") {
                true
            } else {
                self.expect("false")?;
                false
            };
            self.expect(",")?;
            let bits = self.field_u32("elementBitWidth")?;
            self.expect("}>")?;
            return Ok(SharedLayout::nvmma(swizzle, transposed, bits));
        }
        self.expect("#ttg.swizzled_shared<{")?;
        let vec = self.field_u32("vec")?;
        self.expect(",")?;
        let per_phase = self.field_u32("perPhase")?;
        self.expect(",")?;
        let max_phase = self.field_u32("maxPhase")?;
        self.expect(",")?;
        let order = self.field_list("order")?;
        self.expect("}>")?;
        Ok(SharedLayout {
            vec,
            per_phase,
            max_phase,
            order,
            padding: None,
            nvmma: None,
        })
    }

    /// A GPU-IR handle type (`!ttg.memdesc<…>`, `!ttg.async.token`), if one is next.
    pub(super) fn gpu_handle_type(&mut self) -> PResult<Option<Type>> {
        if self.eat("!ttg.async.token") {
            return Ok(Some(Type::AsyncToken));
        }
        if !self.eat("!ttg.memdesc<") {
            return Ok(None);
        }
        let mut shape = Vec::new();
        loop {
            self.skip_ws();
            if !self.peek().is_some_and(|b| b.is_ascii_digit()) {
                break;
            }
            shape.push(u64::from(self.u32()?));
            self.expect("x")?;
        }
        if shape.is_empty() {
            return self.error("a shared buffer needs at least one dimension");
        }
        let elem = self.dtype()?;
        self.expect(",")?;
        let at = self.pos;
        let layout = self.shared_layout()?;
        if layout.rank() > shape.len() {
            return self.error_at(at, "the shared layout has more dims than the buffer");
        }
        let mutable = if self.eat(",") {
            self.expect("mutable")?;
            true
        } else {
            false
        };
        self.expect(">")?;
        Ok(Some(Type::MemDesc(MemDescType {
            shape,
            elem,
            layout,
            mutable,
        })))
    }
}
