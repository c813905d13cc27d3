//! Compiles `add_kernel` of `examples/vector_add.py` for sm_80 and sm_90, in two
//! specializations each, and generates its launch functions (docs/rust.md).

fn main() -> Result<(), tritonc_build::Error> {
    tritonc_build::Build::new()
        .target("sm_80")
        .target("sm_90")
        .kernel(
            tritonc_build::Kernel::new("../vector_add.py", "add_kernel")
                // 16-byte aligned tensors and a length divisible by 16 (what Triton's
                // launcher would specialize for), and any tensors and length.
                .signature("aligned", "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024")
                .signature("any", "*fp32, *fp32, *fp32, i32, 1024"),
        )
        .compile()?;
    Ok(())
}
