//! Functions as arenas of values, ops, blocks and regions, with use lists.
//!
//! Ids ([`Value`], [`OpId`], [`BlockId`], [`RegionId`]) are small `Copy` indices into the
//! arenas of one [`Function`]; they mean nothing in another function. Erased ops stay in
//! the arena as tombstones (so ids stay stable) but are unlinked from their block and
//! from the use lists of their operands.

use smallvec::SmallVec;

use crate::location::Location;
use crate::ops::OpKind;
use crate::types::Type;

macro_rules! id_type {
    ($(#[$m:meta])* $name:ident) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(u32);

        impl $name {
            /// The arena index.
            pub fn index(self) -> usize {
                self.0 as usize
            }

            fn from_index(i: usize) -> Self {
                $name(u32::try_from(i).expect("arena holds fewer than 2^32 entries"))
            }
        }
    };
}

id_type!(
    /// An SSA value: an op result or a block argument.
    Value
);
id_type!(
    /// An op in a function.
    OpId
);
id_type!(
    /// A block in a function.
    BlockId
);
id_type!(
    /// A region in a function.
    RegionId
);

/// What defines a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ValueDef {
    /// Result `index` of `op`.
    OpResult {
        /// The defining op.
        op: OpId,
        /// Which result.
        index: u32,
    },
    /// Argument `index` of `block`.
    BlockArg {
        /// The block.
        block: BlockId,
        /// Which argument.
        index: u32,
    },
}

/// One use of a value: operand `operand` of `op`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Use {
    /// The using op.
    pub op: OpId,
    /// The operand index.
    pub operand: u32,
}

/// A value's type, definition and uses.
#[derive(Debug, Clone)]
pub struct ValueData {
    ty: Type,
    def: ValueDef,
    uses: Vec<Use>,
}

/// An op: kind, operands, results, regions, location and parent block.
#[derive(Debug, Clone)]
pub struct OpData {
    /// What the op does, with attributes.
    pub kind: OpKind,
    /// Where the op came from.
    pub loc: Location,
    operands: SmallVec<[Value; 3]>,
    results: SmallVec<[Value; 1]>,
    regions: SmallVec<[RegionId; 2]>,
    parent: Option<BlockId>,
    erased: bool,
}

impl OpData {
    /// The operands.
    pub fn operands(&self) -> &[Value] {
        &self.operands
    }

    /// The results.
    pub fn results(&self) -> &[Value] {
        &self.results
    }

    /// The regions.
    pub fn regions(&self) -> &[RegionId] {
        &self.regions
    }

    /// The block holding the op (`None` while detached or after erasure).
    pub fn parent(&self) -> Option<BlockId> {
        self.parent
    }

    /// Whether the op was erased.
    pub fn is_erased(&self) -> bool {
        self.erased
    }
}

/// A block: arguments and an op list.
#[derive(Debug, Clone)]
pub struct BlockData {
    args: Vec<Value>,
    ops: Vec<OpId>,
    parent: RegionId,
}

impl BlockData {
    /// The block arguments.
    pub fn args(&self) -> &[Value] {
        &self.args
    }

    /// The ops, in order.
    pub fn ops(&self) -> &[OpId] {
        &self.ops
    }

    /// The region holding the block.
    pub fn parent(&self) -> RegionId {
        self.parent
    }
}

/// A region: a list of blocks (structured ops use exactly one).
#[derive(Debug, Clone)]
pub struct RegionData {
    blocks: Vec<BlockId>,
    parent: Option<OpId>,
}

impl RegionData {
    /// The blocks; the first is the entry.
    pub fn blocks(&self) -> &[BlockId] {
        &self.blocks
    }

    /// The op owning the region (`None` for a function body).
    pub fn parent(&self) -> Option<OpId> {
        self.parent
    }
}

/// Attributes of a function argument (launch specialization facts).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct ArgAttrs {
    /// `tt.divisibility`: the argument (an int, or a pointer's address) is a multiple of this.
    pub divisibility: Option<u32>,
}

/// A function: signature, body region and the arenas everything lives in.
#[derive(Debug, Clone)]
pub struct Function {
    /// The symbol name.
    pub name: String,
    /// Whether the function is a public kernel entry (printed `public`).
    pub public: bool,
    /// Per-argument attributes, one entry per argument.
    pub arg_attrs: Vec<ArgAttrs>,
    /// Types `tt.return` must return (empty for kernels).
    pub result_types: Vec<Type>,
    /// Where the function was defined.
    pub loc: Location,
    body: RegionId,
    values: Vec<ValueData>,
    ops: Vec<OpData>,
    blocks: Vec<BlockData>,
    regions: Vec<RegionData>,
}

impl Function {
    /// A public function whose body is one empty entry block with arguments of `arg_types`.
    pub fn new(name: impl Into<String>, arg_types: Vec<Type>, result_types: Vec<Type>) -> Self {
        let mut f = Function {
            name: name.into(),
            public: true,
            arg_attrs: vec![ArgAttrs::default(); arg_types.len()],
            result_types,
            loc: Location::unknown(),
            body: RegionId(0),
            values: Vec::new(),
            ops: Vec::new(),
            blocks: Vec::new(),
            regions: Vec::new(),
        };
        f.body = f.new_region(None);
        let entry = f.new_block(f.body);
        for ty in arg_types {
            f.add_block_arg(entry, ty);
        }
        f
    }

    // ----- navigation -----

    /// The body region.
    pub fn body(&self) -> RegionId {
        self.body
    }

    /// The body's entry block.
    pub fn entry_block(&self) -> BlockId {
        self.regions[self.body.index()].blocks[0]
    }

    /// The function arguments (the entry block's arguments).
    pub fn args(&self) -> &[Value] {
        self.block(self.entry_block()).args()
    }

    /// The op data.
    pub fn op(&self, op: OpId) -> &OpData {
        &self.ops[op.index()]
    }

    /// The op's kind.
    pub fn kind(&self, op: OpId) -> &OpKind {
        &self.ops[op.index()].kind
    }

    /// Mutable access to the op's kind (attributes); operands and results go through the
    /// methods that keep use lists right.
    pub fn kind_mut(&mut self, op: OpId) -> &mut OpKind {
        &mut self.ops[op.index()].kind
    }

    /// Sets the op's location.
    pub fn set_loc(&mut self, op: OpId, loc: Location) {
        self.ops[op.index()].loc = loc;
    }

    /// The block data.
    pub fn block(&self, block: BlockId) -> &BlockData {
        &self.blocks[block.index()]
    }

    /// The region data.
    pub fn region(&self, region: RegionId) -> &RegionData {
        &self.regions[region.index()]
    }

    /// The entry block of region `index` of `op`.
    pub fn region_entry(&self, op: OpId, index: usize) -> Option<BlockId> {
        let r = *self.op(op).regions.get(index)?;
        self.region(r).blocks.first().copied()
    }

    /// The value's type.
    pub fn value_type(&self, v: Value) -> &Type {
        &self.values[v.index()].ty
    }

    /// Changes a value's type (for passes that refine types; the verifier checks the result).
    pub fn set_value_type(&mut self, v: Value, ty: Type) {
        self.values[v.index()].ty = ty;
    }

    /// What defines the value.
    pub fn value_def(&self, v: Value) -> ValueDef {
        self.values[v.index()].def
    }

    /// The op defining the value, if it is an op result.
    pub fn defining_op(&self, v: Value) -> Option<OpId> {
        match self.value_def(v) {
            ValueDef::OpResult { op, .. } => Some(op),
            ValueDef::BlockArg { .. } => None,
        }
    }

    /// The value's uses, in no particular order.
    pub fn uses(&self, v: Value) -> &[Use] {
        &self.values[v.index()].uses
    }

    /// Whether anything uses the value.
    pub fn has_uses(&self, v: Value) -> bool {
        !self.values[v.index()].uses.is_empty()
    }

    /// The op whose region holds `block` (`None` for the function body).
    pub fn block_parent_op(&self, block: BlockId) -> Option<OpId> {
        self.region(self.block(block).parent).parent
    }

    /// The op enclosing `op` (`None` at the top level or when detached).
    pub fn parent_op(&self, op: OpId) -> Option<OpId> {
        self.block_parent_op(self.op(op).parent?)
    }

    /// Number of entries in the value arena (erased ops' results included).
    pub fn num_values(&self) -> usize {
        self.values.len()
    }

    /// Every entry of the value arena, in index order (erased ops' results included).
    pub fn values(&self) -> impl Iterator<Item = Value> {
        (0..self.values.len()).map(Value::from_index)
    }

    /// Number of entries in the op arena (tombstones included).
    pub fn num_ops(&self) -> usize {
        self.ops.len()
    }

    /// Every live op in the body, in pre-order (an op before the ops in its regions).
    pub fn walk(&self) -> Vec<OpId> {
        let mut out = Vec::new();
        self.walk_region_into(self.body, &mut out);
        out
    }

    /// Every op nested in `op`'s regions, in pre-order (`op` excluded).
    pub fn walk_nested(&self, op: OpId) -> Vec<OpId> {
        let mut out = Vec::new();
        for &r in self.op(op).regions.iter() {
            self.walk_region_into(r, &mut out);
        }
        out
    }

    fn walk_region_into(&self, region: RegionId, out: &mut Vec<OpId>) {
        // An explicit stack keeps deep nesting from overflowing the call stack.
        let mut stack: Vec<OpId> = Vec::new();
        for &b in self.region(region).blocks.iter().rev() {
            stack.extend(self.block(b).ops.iter().rev());
        }
        while let Some(op) = stack.pop() {
            out.push(op);
            for &r in self.op(op).regions.iter().rev() {
                for &b in self.region(r).blocks.iter().rev() {
                    stack.extend(self.block(b).ops.iter().rev());
                }
            }
        }
    }

    // ----- construction -----

    fn new_value(&mut self, ty: Type, def: ValueDef) -> Value {
        self.values.push(ValueData {
            ty,
            def,
            uses: Vec::new(),
        });
        Value::from_index(self.values.len() - 1)
    }

    fn new_region(&mut self, parent: Option<OpId>) -> RegionId {
        self.regions.push(RegionData {
            blocks: Vec::new(),
            parent,
        });
        RegionId::from_index(self.regions.len() - 1)
    }

    /// Appends a new region without blocks to `op` (for parsers and cloners; the
    /// builder's ops come with their regions already).
    pub fn add_region(&mut self, op: OpId) -> RegionId {
        let r = self.new_region(Some(op));
        self.ops[op.index()].regions.push(r);
        r
    }

    /// Appends a new empty block to `region`.
    pub fn new_block(&mut self, region: RegionId) -> BlockId {
        self.blocks.push(BlockData {
            args: Vec::new(),
            ops: Vec::new(),
            parent: region,
        });
        let b = BlockId::from_index(self.blocks.len() - 1);
        self.regions[region.index()].blocks.push(b);
        b
    }

    /// Appends an argument of type `ty` to `block`.
    pub fn add_block_arg(&mut self, block: BlockId, ty: Type) -> Value {
        let index = self.blocks[block.index()].args.len() as u32;
        let v = self.new_value(ty, ValueDef::BlockArg { block, index });
        self.blocks[block.index()].args.push(v);
        if block == self.entry_block() && self.regions[self.body.index()].parent.is_none() {
            self.arg_attrs
                .resize(self.blocks[block.index()].args.len(), ArgAttrs::default());
        }
        v
    }

    /// Creates a detached op with the given operands and result types, and `regions` new
    /// regions, each holding one empty entry block.
    pub fn create_op(
        &mut self,
        kind: OpKind,
        operands: &[Value],
        result_types: Vec<Type>,
        regions: usize,
        loc: Location,
    ) -> OpId {
        let op = OpId::from_index(self.ops.len());
        self.ops.push(OpData {
            kind,
            loc,
            operands: SmallVec::new(),
            results: SmallVec::new(),
            regions: SmallVec::new(),
            parent: None,
            erased: false,
        });
        for &v in operands {
            self.push_operand(op, v);
        }
        for ty in result_types {
            self.add_result(op, ty);
        }
        for _ in 0..regions {
            let r = self.new_region(Some(op));
            self.new_block(r);
            self.ops[op.index()].regions.push(r);
        }
        op
    }

    /// Appends an operand to `op`.
    pub fn push_operand(&mut self, op: OpId, v: Value) {
        let operand = self.ops[op.index()].operands.len() as u32;
        self.ops[op.index()].operands.push(v);
        self.values[v.index()].uses.push(Use { op, operand });
    }

    /// Appends a result of type `ty` to `op` (e.g. once an `scf.if`'s yields are known).
    pub fn add_result(&mut self, op: OpId, ty: Type) -> Value {
        let index = self.ops[op.index()].results.len() as u32;
        let v = self.new_value(ty, ValueDef::OpResult { op, index });
        self.ops[op.index()].results.push(v);
        v
    }

    /// Replaces operand `index` of `op` with `v`.
    pub fn set_operand(&mut self, op: OpId, index: usize, v: Value) {
        let old = self.ops[op.index()].operands[index];
        self.remove_use(
            old,
            Use {
                op,
                operand: index as u32,
            },
        );
        self.ops[op.index()].operands[index] = v;
        self.values[v.index()].uses.push(Use {
            op,
            operand: index as u32,
        });
    }

    fn remove_use(&mut self, v: Value, u: Use) {
        let uses = &mut self.values[v.index()].uses;
        if let Some(i) = uses.iter().position(|x| *x == u) {
            uses.swap_remove(i);
        }
    }

    /// Makes every use of `old` a use of `new`.
    pub fn replace_all_uses(&mut self, old: Value, new: Value) {
        if old == new {
            return;
        }
        let uses = std::mem::take(&mut self.values[old.index()].uses);
        for u in &uses {
            self.ops[u.op.index()].operands[u.operand as usize] = new;
        }
        self.values[new.index()].uses.extend(uses);
    }

    /// Appends a detached op to `block`.
    pub fn append_op(&mut self, block: BlockId, op: OpId) {
        let at = self.blocks[block.index()].ops.len();
        self.insert_op(block, at, op);
    }

    /// Inserts a detached op into `block` at position `index` (clamped to the end).
    pub fn insert_op(&mut self, block: BlockId, index: usize, op: OpId) {
        assert!(
            self.ops[op.index()].parent.is_none(),
            "only a detached op can be inserted"
        );
        let ops = &mut self.blocks[block.index()].ops;
        let index = index.min(ops.len());
        ops.insert(index, op);
        self.ops[op.index()].parent = Some(block);
    }

    /// The position of `op` in its block.
    pub fn position_in_block(&self, op: OpId) -> Option<usize> {
        let block = self.op(op).parent?;
        self.block(block).ops.iter().position(|&o| o == op)
    }

    /// Unlinks `op` from its block, keeping it and its uses (to re-insert elsewhere).
    pub fn detach_op(&mut self, op: OpId) {
        if let Some(block) = self.ops[op.index()].parent.take() {
            self.blocks[block.index()].ops.retain(|&o| o != op);
        }
    }

    /// Erases `op` and everything in its regions. Its results must be unused outside it.
    pub fn erase_op(&mut self, op: OpId) {
        let mut doomed = vec![op];
        doomed.extend(self.walk_nested(op));
        // Drop operand uses first so results used only inside the erased tree count as unused.
        for &o in &doomed {
            let operands = self.ops[o.index()].operands.clone();
            for (i, v) in operands.into_iter().enumerate() {
                self.remove_use(
                    v,
                    Use {
                        op: o,
                        operand: i as u32,
                    },
                );
            }
        }
        for &o in &doomed {
            debug_assert!(
                self.ops[o.index()]
                    .results
                    .iter()
                    .all(|&r| !self.has_uses(r)),
                "erased op results must be unused"
            );
            self.ops[o.index()].erased = true;
        }
        self.detach_op(op);
        for &o in &doomed {
            self.ops[o.index()].parent = None;
        }
    }
}

/// A compilation unit: functions (kernels, and helpers when not inlined).
#[derive(Debug, Clone, Default)]
pub struct Module {
    /// The functions, in definition order.
    pub functions: Vec<Function>,
}

impl Module {
    /// An empty module.
    pub fn new() -> Self {
        Module::default()
    }

    /// The function named `name`.
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.iter().find(|f| f.name == name)
    }
}
