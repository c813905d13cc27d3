//! Per-thread code emission into one MLIR block: the ops a lowered tile op becomes.
//!
//! Every op is built generically (`OperationBuilder` with its MLIR name) so that the set
//! of dialects is not limited by what melior pre-generates; `nvvm` has no generated
//! builders at all. Integers are i32 and floats f32 unless a method says otherwise.

use melior::{
    ir::{
        attribute::{
            DenseI32ArrayAttribute, FlatSymbolRefAttribute, FloatAttribute, IntegerAttribute,
            StringAttribute, TypeAttribute,
        },
        operation::{OperationBuilder, OperationLike},
        r#type::IntegerType,
        Attribute, Block, BlockLike, BlockRef, Identifier, Location, Operation, Region, RegionLike,
        Type, Value, ValueLike,
    },
    Context,
};

use crate::error::CodegenError;
use crate::target::{Target, Vendor};

/// The address space of global memory in NVVM (`.global` in PTX).
pub const GLOBAL_ADDRESS_SPACE: u32 = 1;
/// The address space of shared memory in NVVM (`.shared` in PTX).
pub const SHARED_ADDRESS_SPACE: u32 = 3;

/// Signed and unsigned integer comparisons, with `arith.cmpi`'s predicate numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntPredicate {
    /// `==`.
    Eq = 0,
    /// `!=`.
    Ne = 1,
    /// Signed `<`.
    Slt = 2,
    /// Signed `<=`.
    Sle = 3,
    /// Signed `>`.
    Sgt = 4,
    /// Signed `>=`.
    Sge = 5,
    /// Unsigned `<`.
    Ult = 6,
}

/// Appends operations to one block at the current source location.
pub struct BodyBuilder<'c, 'a> {
    context: &'c Context,
    block: BlockRef<'c, 'a>,
    // The raw handle in a cell, so that lowering code holding `&BodyBuilder` can move the
    // location op by op; a `Cell<Location<'c>>` would make the builder invariant in `'c`.
    location: std::cell::Cell<mlir_sys::MlirLocation>,
    /// The vendor whose instructions the ops may name: on AMD, NVIDIA-only ops
    /// (`nvvm.*`, PTX inline assembly) are refused and NVVM intrinsics mapped
    /// ([`crate::amdgpu::intrinsics`]).
    vendor: Vendor,
    /// Lanes per warp (32 on NVIDIA, 64 on AMD).
    warp_size: u32,
}

impl<'c, 'a> BodyBuilder<'c, 'a> {
    /// A builder appending to `block`, tagging ops with `location`, for NVIDIA.
    pub fn new(context: &'c Context, block: &'a Block<'c>, location: Location<'c>) -> Self {
        Self::for_target(context, block, location, &Target::nvidia(80))
    }

    /// A builder appending to `block`, tagging ops with `location`, for `target`.
    pub fn for_target(
        context: &'c Context,
        block: &'a Block<'c>,
        location: Location<'c>,
        target: &Target,
    ) -> Self {
        Self {
            context,
            // SAFETY: `block` is a valid block borrowed for `'a`.
            block: unsafe { BlockRef::from_raw(block.to_raw()) },
            location: std::cell::Cell::new(location.to_raw()),
            vendor: target.vendor(),
            warp_size: target.warp_size(),
        }
    }

    /// Lanes per warp of the target.
    pub fn warp_size(&self) -> u32 {
        self.warp_size
    }

    /// Whether the ops are for an AMD GPU.
    pub fn is_amd(&self) -> bool {
        self.vendor == Vendor::Amd
    }

    /// A builder appending to `block`, a block of one of the ops this builder appended
    /// (see [`Self::region_op`]), at this builder's current location.
    pub fn nested(&self, block: BlockRef<'c, 'a>) -> BodyBuilder<'c, 'a> {
        BodyBuilder {
            context: self.context,
            block,
            location: std::cell::Cell::new(self.location.get()),
            vendor: self.vendor,
            warp_size: self.warp_size,
        }
    }

    /// Appends `name(operands) -> results` with one region per entry of `region_args`,
    /// each holding one empty block with those argument types (`scf.for`, `scf.if`,
    /// `scf.while`). Returns the results and the blocks, to be filled (each ending in its
    /// terminator) through [`Self::nested`] builders.
    pub fn region_op(
        &self,
        name: &str,
        operands: &[Value<'c, '_>],
        results: &[Type<'c>],
        region_args: &[Vec<Type<'c>>],
    ) -> Result<(Vec<Value<'c, 'a>>, Vec<BlockRef<'c, 'a>>), CodegenError> {
        let location = self.location();
        let mut regions = Vec::new();
        let mut raw_blocks = Vec::new();
        for args in region_args {
            let args: Vec<(Type<'c>, Location<'c>)> = args.iter().map(|&t| (t, location)).collect();
            let block = Block::new(&args);
            raw_blocks.push(block.to_raw());
            let region = Region::new();
            region.append_block(block);
            regions.push(region);
        }
        let builder = OperationBuilder::new(name, location)
            .add_operands(operands)
            .add_results(results);
        let builder = match <[Region<'c>; 1]>::try_from(regions) {
            Ok(one) => builder.add_regions(one),
            Err(regions) => match <[Region<'c>; 2]>::try_from(regions) {
                Ok(two) => builder.add_regions(two),
                Err(_) => {
                    return Err(CodegenError::OperationBuild {
                        op: name.to_owned(),
                        reason: "one or two regions are supported".into(),
                    })
                }
            },
        };
        let op = builder
            .build()
            .map_err(|error| CodegenError::OperationBuild {
                op: name.to_owned(),
                reason: error.to_string(),
            })?;
        let op = self.block.append_operation(op);
        let values = op.results().map(Into::into).collect();
        // SAFETY: each block is owned by a region of `op`, which is now owned by
        // `self.block`; so the blocks live as long as `self.block` (`'a`).
        let blocks = raw_blocks
            .into_iter()
            .map(|raw| unsafe { BlockRef::from_raw(raw) })
            .collect();
        Ok((values, blocks))
    }

    /// The MLIR context.
    pub fn context(&self) -> &'c Context {
        self.context
    }

    /// Sets the source location given to the ops built from now on.
    pub fn set_location(&self, location: Location<'c>) {
        self.location.set(location.to_raw());
    }

    /// The source location given to new ops.
    pub fn location(&self) -> Location<'c> {
        // SAFETY: the cell only ever holds locations of `self.context` (set in `new` and
        // `set_location` from `Location<'c>` values), which live as long as `'c`.
        unsafe { Location::from_raw(self.location.get()) }
    }

    /// `i32`.
    pub fn i32_type(&self) -> Type<'c> {
        IntegerType::new(self.context, 32).into()
    }

    /// `f32`.
    pub fn f32_type(&self) -> Type<'c> {
        Type::float32(self.context)
    }

    /// `!llvm.ptr<space>`.
    pub fn ptr_type(&self, address_space: u32) -> Type<'c> {
        melior::dialect::llvm::r#type::pointer(self.context, address_space)
    }

    fn identifier(&self, name: &str) -> Identifier<'c> {
        Identifier::new(self.context, name)
    }

    /// Builds `name(operands) {attributes} -> results`, not yet placed in any block.
    pub fn build_op(
        &self,
        name: &str,
        operands: &[Value<'c, '_>],
        results: &[Type<'c>],
        attributes: &[(&str, Attribute<'c>)],
    ) -> Result<Operation<'c>, CodegenError> {
        if self.vendor == Vendor::Amd && (name.starts_with("nvvm.") || name == "llvm.inline_asm")
        {
            let what = match name {
                "llvm.inline_asm" => "PTX inline assembly".to_string(),
                other => format!("the NVIDIA instruction `{other}`"),
            };
            return Err(CodegenError::OperationBuild {
                op: name.to_owned(),
                reason: format!("{what} has no AMD lowering yet"),
            });
        }
        let attributes: Vec<_> = attributes
            .iter()
            .map(|(key, value)| (self.identifier(key), *value))
            .collect();
        OperationBuilder::new(name, self.location())
            .add_operands(operands)
            .add_results(results)
            .add_attributes(&attributes)
            .build()
            .map_err(|error| CodegenError::OperationBuild {
                op: name.to_owned(),
                reason: error.to_string(),
            })
    }

    /// Appends an op with exactly one result and returns that result.
    pub fn value(
        &self,
        name: &str,
        operands: &[Value<'c, '_>],
        result: Type<'c>,
        attributes: &[(&str, Attribute<'c>)],
    ) -> Result<Value<'c, 'a>, CodegenError> {
        let op = self.build_op(name, operands, &[result], attributes)?;
        let op = self.block.append_operation(op);
        Ok(op
            .result(0)
            .expect("invariant: the op was built with one result")
            .into())
    }

    /// Appends an op without results.
    pub fn effect(
        &self,
        name: &str,
        operands: &[Value<'c, '_>],
        attributes: &[(&str, Attribute<'c>)],
    ) -> Result<(), CodegenError> {
        let op = self.build_op(name, operands, &[], attributes)?;
        self.block.append_operation(op);
        Ok(())
    }

    /// An `i32` constant.
    pub fn const_i32(&self, value: i32) -> Result<Value<'c, 'a>, CodegenError> {
        let ty = self.i32_type();
        let attr = IntegerAttribute::new(ty, i64::from(value)).into();
        self.value("arith.constant", &[], ty, &[("value", attr)])
    }

    /// An `f32` constant.
    pub fn const_f32(&self, value: f32) -> Result<Value<'c, 'a>, CodegenError> {
        let ty = self.f32_type();
        let attr = FloatAttribute::new(self.context, ty, f64::from(value)).into();
        self.value("arith.constant", &[], ty, &[("value", attr)])
    }

    /// A binary arith op whose result has the type of its operands (`arith.addi`, `arith.mulf`, …).
    pub fn binary(
        &self,
        name: &str,
        lhs: Value<'c, '_>,
        rhs: Value<'c, '_>,
    ) -> Result<Value<'c, 'a>, CodegenError> {
        self.value(name, &[lhs, rhs], lhs.r#type(), &[])
    }

    /// `arith.cmpi` with `predicate`.
    pub fn cmpi(
        &self,
        predicate: IntPredicate,
        lhs: Value<'c, '_>,
        rhs: Value<'c, '_>,
    ) -> Result<Value<'c, 'a>, CodegenError> {
        let i64_type = IntegerType::new(self.context, 64).into();
        let predicate = IntegerAttribute::new(i64_type, predicate as i64).into();
        let i1 = IntegerType::new(self.context, 1).into();
        self.value("arith.cmpi", &[lhs, rhs], i1, &[("predicate", predicate)])
    }

    /// `arith.select`.
    pub fn select(
        &self,
        condition: Value<'c, '_>,
        if_true: Value<'c, '_>,
        if_false: Value<'c, '_>,
    ) -> Result<Value<'c, 'a>, CodegenError> {
        self.value(
            "arith.select",
            &[condition, if_true, if_false],
            if_true.r#type(),
            &[],
        )
    }

    /// A `gpu.thread_id`/`gpu.block_id`/`gpu.block_dim`/`gpu.grid_dim` along dim `axis`
    /// (0, 1, 2 for x, y, z), as an `i32`.
    pub fn gpu_index(&self, name: &str, axis: u32) -> Result<Value<'c, 'a>, CodegenError> {
        let text = match axis {
            0 => "#gpu<dim x>",
            1 => "#gpu<dim y>",
            _ => "#gpu<dim z>",
        };
        let dimension = Attribute::parse(self.context, text)
            .expect("invariant: `#gpu<dim x|y|z>` is valid GPU dialect syntax");
        let index = self.value(
            name,
            &[],
            Type::index(self.context),
            &[("dimension", dimension)],
        )?;
        self.value("arith.index_cast", &[index], self.i32_type(), &[])
    }

    fn gpu_index_x(&self, name: &str) -> Result<Value<'c, 'a>, CodegenError> {
        self.gpu_index(name, 0)
    }

    /// The thread's index in its block along x (`%tid.x`).
    pub fn thread_id_x(&self) -> Result<Value<'c, 'a>, CodegenError> {
        self.gpu_index_x("gpu.thread_id")
    }

    /// The block's index in the grid along x (`%ctaid.x`), Triton's `program_id(0)`.
    pub fn block_id_x(&self) -> Result<Value<'c, 'a>, CodegenError> {
        self.gpu_index_x("gpu.block_id")
    }

    /// The number of threads of a block along x (`%ntid.x`).
    pub fn block_dim_x(&self) -> Result<Value<'c, 'a>, CodegenError> {
        self.gpu_index_x("gpu.block_dim")
    }

    /// `&base[index]` for elements of `element` type (`llvm.getelementptr`, i32 index).
    pub fn element_ptr(
        &self,
        base: Value<'c, '_>,
        index: Value<'c, '_>,
        element: Type<'c>,
    ) -> Result<Value<'c, 'a>, CodegenError> {
        // i32::MIN marks the index as dynamic (an operand), as in `llvm.getelementptr`'s syntax.
        let raw_indices = DenseI32ArrayAttribute::new(self.context, &[i32::MIN]).into();
        self.value(
            "llvm.getelementptr",
            &[base, index],
            base.r#type(),
            &[
                ("rawConstantIndices", raw_indices),
                ("elem_type", TypeAttribute::new(element).into()),
            ],
        )
    }

    /// A load of one `ty` value through `ptr` (any address space).
    pub fn load(&self, ptr: Value<'c, '_>, ty: Type<'c>) -> Result<Value<'c, 'a>, CodegenError> {
        self.value("llvm.load", &[ptr], ty, &[])
    }

    /// A store of `value` through `ptr` (any address space).
    pub fn store(&self, value: Value<'c, '_>, ptr: Value<'c, '_>) -> Result<(), CodegenError> {
        self.effect("llvm.store", &[value, ptr], &[])
    }

    /// The address of the module-level global `name` in `address_space`.
    pub fn address_of(
        &self,
        name: &str,
        address_space: u32,
    ) -> Result<Value<'c, 'a>, CodegenError> {
        let symbol = FlatSymbolRefAttribute::new(self.context, name).into();
        self.value(
            "llvm.mlir.addressof",
            &[],
            self.ptr_type(address_space),
            &[("global_name", symbol)],
        )
    }

    /// A call of the LLVM intrinsic `intrinsic` (e.g. `llvm.nvvm.ex2.approx.f32`).
    pub fn call_intrinsic(
        &self,
        intrinsic: &str,
        arguments: &[Value<'c, '_>],
        result: Type<'c>,
    ) -> Result<Value<'c, 'a>, CodegenError> {
        if self.vendor == Vendor::Amd {
            use crate::amdgpu::intrinsics::{amdgpu_equivalent, AmdgpuEquivalent};
            let equivalent = amdgpu_equivalent(intrinsic).map_err(|reason| {
                CodegenError::OperationBuild {
                    op: "llvm.call_intrinsic".to_owned(),
                    reason,
                }
            })?;
            match equivalent {
                None => {}
                Some(AmdgpuEquivalent::Intrinsic(name)) => {
                    return self.plain_intrinsic(name, arguments, result)
                }
                Some(AmdgpuEquivalent::DivF) => {
                    return self.value("arith.divf", arguments, result, &[])
                }
                Some(AmdgpuEquivalent::MulHiU) => return self.mul_hi_unsigned(arguments, result),
            }
        }
        self.plain_intrinsic(intrinsic, arguments, result)
    }

    /// The high half of the double-width product of two unsigned integers of type
    /// `result` (NVIDIA's `mul.hi.u32`): widened, multiplied, shifted, truncated.
    fn mul_hi_unsigned(
        &self,
        arguments: &[Value<'c, '_>],
        result: Type<'c>,
    ) -> Result<Value<'c, 'a>, CodegenError> {
        let bits = IntegerType::try_from(result)
            .map(|t| t.width())
            .map_err(|_| CodegenError::OperationBuild {
                op: "umulhi".to_owned(),
                reason: "umulhi takes integers".to_owned(),
            })?;
        let wide: Type<'c> = IntegerType::new(self.context, 2 * bits).into();
        let a = self.value("arith.extui", &arguments[..1], wide, &[])?;
        let b = self.value("arith.extui", &arguments[1..2], wide, &[])?;
        let product = self.value("arith.muli", &[a, b], wide, &[])?;
        let shift = IntegerAttribute::new(wide, i64::from(bits)).into();
        let shift = self.value("arith.constant", &[], wide, &[("value", shift)])?;
        let high = self.value("arith.shrui", &[product, shift], wide, &[])?;
        self.value("arith.trunci", &[high], result, &[])
    }

    /// `llvm.call_intrinsic` of `intrinsic` as named.
    fn plain_intrinsic(
        &self,
        intrinsic: &str,
        arguments: &[Value<'c, '_>],
        result: Type<'c>,
    ) -> Result<Value<'c, 'a>, CodegenError> {
        let segments = i32::try_from(arguments.len())
            .expect("invariant: an intrinsic call has far fewer than 2^31 arguments");
        // `llvm.call_intrinsic` takes its arguments plus operand bundles (none here).
        self.value(
            "llvm.call_intrinsic",
            arguments,
            result,
            &[
                (
                    "intrin",
                    StringAttribute::new(self.context, intrinsic).into(),
                ),
                (
                    "operandSegmentSizes",
                    DenseI32ArrayAttribute::new(self.context, &[segments, 0]).into(),
                ),
                (
                    "op_bundle_sizes",
                    DenseI32ArrayAttribute::new(self.context, &[]).into(),
                ),
            ],
        )
    }

    /// A call of the function `@callee` (declared in the module) with one result.
    pub fn call(
        &self,
        callee: &str,
        arguments: &[Value<'c, '_>],
        result: Type<'c>,
    ) -> Result<Value<'c, 'a>, CodegenError> {
        let segments = i32::try_from(arguments.len())
            .expect("invariant: a call has far fewer than 2^31 arguments");
        self.value(
            "llvm.call",
            arguments,
            result,
            &[
                (
                    "callee",
                    FlatSymbolRefAttribute::new(self.context, callee).into(),
                ),
                (
                    "operandSegmentSizes",
                    DenseI32ArrayAttribute::new(self.context, &[segments, 0]).into(),
                ),
                (
                    "op_bundle_sizes",
                    DenseI32ArrayAttribute::new(self.context, &[]).into(),
                ),
            ],
        )
    }

    /// `value` from the lane `lane ^ lane_mask` of the warp (`shfl.sync.bfly`, full mask,
    /// on NVIDIA; `gpu.shuffle xor` over the 64 lanes of a wave on AMD, which
    /// `convert-gpu-to-rocdl` lowers to `ds_bpermute_b32`). 32-bit values only.
    pub fn shuffle_xor(
        &self,
        value: Value<'c, '_>,
        lane_mask: i32,
    ) -> Result<Value<'c, 'a>, CodegenError> {
        if self.vendor == Vendor::Amd {
            let offset = self.const_i32(lane_mask)?;
            let width = self.const_i32(self.warp_size as i32)?;
            let mode = Attribute::parse(self.context, "#gpu<shuffle_mode xor>")
                .expect("invariant: `#gpu<shuffle_mode xor>` is valid GPU dialect syntax");
            let i1: Type<'c> = IntegerType::new(self.context, 1).into();
            let op = self.build_op(
                "gpu.shuffle",
                &[value, offset, width],
                &[value.r#type(), i1],
                &[("mode", mode)],
            )?;
            let op = self.block.append_operation(op);
            return Ok(op
                .result(0)
                .expect("invariant: gpu.shuffle has two results")
                .into());
        }
        let all_lanes = self.const_i32(-1)?;
        let offset = self.const_i32(lane_mask)?;
        // 0x1f: the whole warp is one segment, lanes clamp at 31.
        let clamp = self.const_i32(0x1f)?;
        let kind = Attribute::parse(self.context, "#nvvm<shfl_kind bfly>")
            .expect("invariant: `#nvvm<shfl_kind bfly>` is valid NVVM dialect syntax");
        self.value(
            "nvvm.shfl.sync",
            &[all_lanes, value, offset, clamp],
            value.r#type(),
            &[("kind", kind)],
        )
    }

    /// `value` from another lane of the warp, 32-bit values only: on NVIDIA
    /// `shfl.sync.up` (`mode` "up": from `lane − offset`, clamped at lane 0), `.down`
    /// (`lane + offset`) or `.idx` (lane `offset`); on AMD only "idx" (`gpu.shuffle
    /// idx`).
    pub fn shuffle(
        &self,
        value: Value<'c, '_>,
        mode: &str,
        offset: Value<'c, '_>,
    ) -> Result<Value<'c, 'a>, CodegenError> {
        if self.vendor == Vendor::Amd {
            assert_eq!(mode, "idx", "invariant: AMD shuffles read a computed lane");
            let width = self.const_i32(self.warp_size as i32)?;
            let mode = Attribute::parse(self.context, "#gpu<shuffle_mode idx>")
                .expect("invariant: `#gpu<shuffle_mode idx>` is valid GPU dialect syntax");
            let i1: Type<'c> = IntegerType::new(self.context, 1).into();
            let op = self.build_op(
                "gpu.shuffle",
                &[value, offset, width],
                &[value.r#type(), i1],
                &[("mode", mode)],
            )?;
            let op = self.block.append_operation(op);
            return Ok(op
                .result(0)
                .expect("invariant: gpu.shuffle has two results")
                .into());
        }
        let all_lanes = self.const_i32(-1)?;
        // `shfl.up` clamps at lane 0 (c = 0); the others at lane 31 (c = 0x1f).
        let clamp = self.const_i32(if mode == "up" { 0 } else { 0x1f })?;
        let kind = Attribute::parse(self.context, &format!("#nvvm<shfl_kind {mode}>"))
            .ok_or_else(|| CodegenError::OperationBuild {
                op: "nvvm.shfl.sync".to_owned(),
                reason: format!("unknown shuffle kind `{mode}`"),
            })?;
        self.value(
            "nvvm.shfl.sync",
            &[all_lanes, value, offset, clamp],
            value.r#type(),
            &[("kind", kind)],
        )
    }

    /// A barrier over all threads of the block (`bar.sync 0`).
    pub fn barrier(&self) -> Result<(), CodegenError> {
        self.effect("gpu.barrier", &[], &[])
    }

    /// `scf.if condition { then } else { otherwise }` yielding values of `result_types`.
    ///
    /// Each branch is built by a closure on a builder for its own block and returns the
    /// values to yield.
    pub fn if_else<Then, Else>(
        &self,
        condition: Value<'c, '_>,
        result_types: &[Type<'c>],
        then: Then,
        otherwise: Else,
    ) -> Result<Vec<Value<'c, 'a>>, CodegenError>
    where
        Then: for<'b> FnOnce(&BodyBuilder<'c, 'b>) -> Result<Vec<Value<'c, 'b>>, CodegenError>,
        Else: for<'b> FnOnce(&BodyBuilder<'c, 'b>) -> Result<Vec<Value<'c, 'b>>, CodegenError>,
    {
        let then_region = self.branch_region(then)?;
        let else_region = self.branch_region(otherwise)?;
        let op = OperationBuilder::new("scf.if", self.location())
            .add_operands(&[condition])
            .add_results(result_types)
            .add_regions([then_region, else_region])
            .build()
            .map_err(|error| CodegenError::OperationBuild {
                op: "scf.if".to_owned(),
                reason: error.to_string(),
            })?;
        let op = self.block.append_operation(op);
        Ok(op.results().map(Into::into).collect())
    }

    fn branch_region<Branch>(&self, branch: Branch) -> Result<Region<'c>, CodegenError>
    where
        Branch: for<'b> FnOnce(&BodyBuilder<'c, 'b>) -> Result<Vec<Value<'c, 'b>>, CodegenError>,
    {
        let block = Block::new(&[]);
        {
            let builder = BodyBuilder {
                context: self.context,
                // SAFETY: `block` is a valid block borrowed for the builder's lifetime.
                block: unsafe { BlockRef::from_raw(block.to_raw()) },
                location: std::cell::Cell::new(self.location.get()),
                vendor: self.vendor,
                warp_size: self.warp_size,
            };
            let yielded = branch(&builder)?;
            builder.effect("scf.yield", &yielded, &[])?;
        }
        let region = Region::new();
        region.append_block(block);
        Ok(region)
    }
}
