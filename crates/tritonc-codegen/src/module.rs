//! An MLIR module holding one `gpu.module` of kernels, as the NVIDIA and AMD pipelines
//! expect.

use melior::{
    ir::{
        attribute::{
            ArrayAttribute, DenseI32ArrayAttribute, DictionaryAttribute, IntegerAttribute,
            StringAttribute, TypeAttribute,
        },
        operation::{OperationBuilder, OperationLike, OperationMutLike},
        r#type::{FunctionType, IntegerType},
        Attribute, Block, BlockLike, BlockRef, Identifier, Location, Module, Region, RegionLike,
        Type, Value,
    },
    Context,
};

use crate::{body::BodyBuilder, error::CodegenError, target::Target};

/// One kernel parameter in the Triton-like ABI: pointers first, then scalars.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelParam {
    /// A pointer to global memory (`!llvm.ptr<1>`, PTX `.param .u64 .ptr .global`), with
    /// the byte alignment the caller guarantees (Triton's `tt.divisibility`), if any.
    GlobalPtr {
        /// Guaranteed alignment in bytes; becomes `.align N` on the PTX parameter.
        align: Option<u32>,
    },
    /// A 32-bit integer scalar (PTX `.param .u32`).
    I32,
    /// A 64-bit integer scalar (PTX `.param .u64`).
    I64,
    /// A 32-bit float scalar (PTX `.param .f32`).
    F32,
}

/// A `builtin.module` with one `gpu.module` into which kernels are built.
pub struct KernelModule<'c> {
    context: &'c Context,
    module: Module<'c>,
    name: String,
    target: Target,
}

impl<'c> KernelModule<'c> {
    /// An empty `gpu.module @name` inside a `gpu.container_module`, for NVIDIA.
    pub fn new(context: &'c Context, name: &str, location: Location<'c>) -> Self {
        Self::for_target(context, name, location, Target::nvidia(80))
    }

    /// An empty `gpu.module @name` inside a `gpu.container_module`, whose kernels are
    /// built for `target` (their bodies may name only its instructions).
    pub fn for_target(
        context: &'c Context,
        name: &str,
        location: Location<'c>,
        target: Target,
    ) -> Self {
        let mut module = Module::new(location);
        module
            .as_operation_mut()
            .set_attribute("gpu.container_module", Attribute::unit(context));
        let region = Region::new();
        region.append_block(Block::new(&[]));
        let gpu_module = OperationBuilder::new("gpu.module", location)
            .add_attributes(&[(
                Identifier::new(context, "sym_name"),
                StringAttribute::new(context, name).into(),
            )])
            .add_regions([region])
            .build()
            .expect("invariant: a gpu.module with a name and one empty block is valid");
        module.body().append_operation(gpu_module);
        Self {
            context,
            module,
            name: name.to_owned(),
            target,
        }
    }

    /// The MLIR context.
    pub fn context(&self) -> &'c Context {
        self.context
    }

    /// The `gpu.module` symbol name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The whole module, e.g. to print it or run passes on it.
    pub fn module(&self) -> &Module<'c> {
        &self.module
    }

    /// The whole module, mutably (passes rewrite it in place).
    pub fn module_mut(&mut self) -> &mut Module<'c> {
        &mut self.module
    }

    fn gpu_module_body(&self) -> BlockRef<'c, '_> {
        self.module
            .body()
            .first_operation()
            .and_then(|op| op.region(0).ok())
            .and_then(|region| region.first_block())
            .expect("invariant: `new` put a gpu.module with one block first in the module")
    }

    /// Declares a statically sized shared-memory array `@name: [element; len]` (16-byte aligned).
    pub fn add_shared_array(
        &self,
        name: &str,
        element: Type<'c>,
        len: u32,
        location: Location<'c>,
    ) -> Result<(), CodegenError> {
        let array = melior::dialect::llvm::r#type::array(element, len);
        self.add_shared_global(name, array, "internal", location)
    }

    /// Declares the external function `@name(args) -> result` (`llvm.func`, no body),
    /// e.g. a libdevice function the kernels call.
    pub fn declare_function(
        &self,
        name: &str,
        args: &[Type<'c>],
        result: Type<'c>,
        location: Location<'c>,
    ) -> Result<(), CodegenError> {
        let ctx = self.context;
        let list: Vec<String> = args.iter().map(|t| t.to_string()).collect();
        let text = format!("!llvm.func<{result} ({})>", list.join(", "));
        let function_type =
            Type::parse(ctx, &text).ok_or_else(|| CodegenError::OperationBuild {
                op: "llvm.func".to_owned(),
                reason: format!("cannot form `{text}`"),
            })?;
        let linkage = Attribute::parse(ctx, "#llvm.linkage<external>")
            .expect("invariant: `#llvm.linkage<external>` is valid LLVM dialect syntax");
        let attributes = [
            ("sym_name", StringAttribute::new(ctx, name).into()),
            ("function_type", TypeAttribute::new(function_type).into()),
            ("linkage", linkage),
        ];
        let func = OperationBuilder::new("llvm.func", location)
            .add_attributes(&named(ctx, &attributes))
            .add_regions([Region::new()])
            .build()
            .map_err(|error| CodegenError::OperationBuild {
                op: "llvm.func".to_owned(),
                reason: error.to_string(),
            })?;
        self.gpu_module_body().append_operation(func);
        Ok(())
    }

    /// Declares the dynamically sized shared-memory array `@name` (`.extern .shared
    /// .align 16 .b8 name[]` in PTX): its size is the dynamic shared memory passed at
    /// launch, which may exceed the 48 KiB static arrays are limited to.
    pub fn add_dynamic_shared_array(
        &self,
        name: &str,
        location: Location<'c>,
    ) -> Result<(), CodegenError> {
        let bytes: Type<'c> = IntegerType::new(self.context, 8).into();
        let array = melior::dialect::llvm::r#type::array(bytes, 0);
        self.add_shared_global(name, array, "external", location)
    }

    /// Appends `llvm.mlir.global` `@name` of type `array` in shared memory (address space
    /// 3), 16-byte aligned, with the given LLVM linkage.
    fn add_shared_global(
        &self,
        name: &str,
        array: Type<'c>,
        linkage: &str,
        location: Location<'c>,
    ) -> Result<(), CodegenError> {
        let ctx = self.context;
        let i32_type: Type<'c> = IntegerType::new(ctx, 32).into();
        let i64_type: Type<'c> = IntegerType::new(ctx, 64).into();
        let linkage = Attribute::parse(ctx, &format!("#llvm.linkage<{linkage}>"))
            .expect("invariant: internal/external are valid LLVM linkages");
        let attributes = [
            ("sym_name", StringAttribute::new(ctx, name).into()),
            ("global_type", TypeAttribute::new(array).into()),
            ("linkage", linkage),
            ("addr_space", IntegerAttribute::new(i32_type, 3).into()),
            ("alignment", IntegerAttribute::new(i64_type, 16).into()),
        ];
        let global = OperationBuilder::new("llvm.mlir.global", location)
            .add_attributes(&named(ctx, &attributes))
            .add_regions([Region::new()])
            .build()
            .map_err(|error| CodegenError::OperationBuild {
                op: "llvm.mlir.global".to_owned(),
                reason: error.to_string(),
            })?;
        self.gpu_module_body().append_operation(global);
        Ok(())
    }

    /// Builds `gpu.func @name(params) kernel`; `body` emits its code given the parameters.
    ///
    /// `block_size` is the launch's threads per block when known at compile time; it
    /// becomes `.maxntid` in PTX, which lets ptxas budget registers for it.
    pub fn add_kernel<Body>(
        &self,
        name: &str,
        params: &[KernelParam],
        block_size: Option<u32>,
        location: Location<'c>,
        body: Body,
    ) -> Result<(), CodegenError>
    where
        Body: for<'b> FnOnce(&BodyBuilder<'c, 'b>, &[Value<'c, 'b>]) -> Result<(), CodegenError>,
    {
        let ctx = self.context;
        let types: Vec<Type<'c>> = params.iter().map(|param| param_type(ctx, *param)).collect();
        let entry = Block::new(&types.iter().map(|ty| (*ty, location)).collect::<Vec<_>>());
        {
            let builder = BodyBuilder::for_target(ctx, &entry, location, &self.target);
            let args: Vec<Value<'c, '_>> = (0..entry.argument_count())
                .map(|i| {
                    entry
                        .argument(i)
                        .expect("invariant: i < argument_count")
                        .into()
                })
                .collect();
            body(&builder, &args)?;
            builder.effect("gpu.return", &[], &[])?;
        }
        let region = Region::new();
        region.append_block(entry);

        let function_type = FunctionType::new(ctx, &types, &[]).into();
        let arg_attrs: Vec<Attribute<'c>> = params
            .iter()
            .map(|param| param_attributes(ctx, *param))
            .collect();
        let mut attributes = vec![
            ("sym_name", StringAttribute::new(ctx, name).into()),
            ("function_type", TypeAttribute::new(function_type).into()),
            ("gpu.kernel", Attribute::unit(ctx)),
            ("arg_attrs", ArrayAttribute::new(ctx, &arg_attrs).into()),
        ];
        if let Some(threads) = block_size {
            let threads = i32::try_from(threads).unwrap_or(i32::MAX);
            attributes.push((
                "known_block_size",
                DenseI32ArrayAttribute::new(ctx, &[threads, 1, 1]).into(),
            ));
        }
        let func = OperationBuilder::new("gpu.func", location)
            .add_attributes(&named(ctx, &attributes))
            .add_regions([region])
            .build()
            .map_err(|error| CodegenError::OperationBuild {
                op: "gpu.func".to_owned(),
                reason: error.to_string(),
            })?;
        self.gpu_module_body().append_operation(func);
        Ok(())
    }
}

fn named<'c>(
    ctx: &'c Context,
    attributes: &[(&str, Attribute<'c>)],
) -> Vec<(Identifier<'c>, Attribute<'c>)> {
    attributes
        .iter()
        .map(|(key, value)| (Identifier::new(ctx, key), *value))
        .collect()
}

fn param_type(ctx: &Context, param: KernelParam) -> Type<'_> {
    match param {
        KernelParam::GlobalPtr { .. } => melior::dialect::llvm::r#type::pointer(ctx, 1),
        KernelParam::I32 => IntegerType::new(ctx, 32).into(),
        KernelParam::I64 => IntegerType::new(ctx, 64).into(),
        KernelParam::F32 => Type::float32(ctx),
    }
}

/// The LLVM argument attributes of a parameter: `noalias` is not claimed (Triton does
/// not either), only the alignment the caller promised.
fn param_attributes(ctx: &Context, param: KernelParam) -> Attribute<'_> {
    let mut entries = Vec::new();
    if let KernelParam::GlobalPtr { align: Some(align) } = param {
        let i64_type = IntegerType::new(ctx, 64).into();
        entries.push((
            Identifier::new(ctx, "llvm.align"),
            IntegerAttribute::new(i64_type, i64::from(align)).into(),
        ));
    }
    DictionaryAttribute::new(ctx, &entries).into()
}
