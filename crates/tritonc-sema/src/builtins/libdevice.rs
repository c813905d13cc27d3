//! The libdevice functions of Triton 3.6 (`triton.language.extra.cuda.libdevice`): for each
//! function, whether its result is converted to `int1`, and its overloads — argument dtypes,
//! the `__nv_*` symbol and the result dtype. Transcribed from Triton 3.6's
//! `third_party/nvidia/language/cuda/libdevice.py`; the dtypes must match exactly.

use tritonc_ir::DType;
use tritonc_ir::DType::*;

/// One overload: argument dtypes, libdevice symbol, result dtype.
pub(super) type Overload = (&'static [DType], &'static str, DType);

/// Every libdevice function: name, result converted to `int1`, overloads.
pub(super) static LIBDEVICE: &[(&str, bool, &[Overload])] = &[
    (
        "clz",
        false,
        &[(&[I32], "__nv_clz", I32), (&[I64], "__nv_clzll", I32)],
    ),
    (
        "popc",
        false,
        &[(&[I32], "__nv_popc", I32), (&[I64], "__nv_popcll", I32)],
    ),
    (
        "byte_perm",
        false,
        &[(&[I32, I32, I32], "__nv_byte_perm", I32)],
    ),
    (
        "mulhi",
        false,
        &[
            (&[I32, I32], "__nv_mulhi", I32),
            (&[U32, U32], "__nv_umulhi", U32),
            (&[I64, I64], "__nv_mul64hi", I64),
            (&[U64, U64], "__nv_umul64hi", U64),
        ],
    ),
    (
        "mul24",
        false,
        &[
            (&[I32, I32], "__nv_mul24", I32),
            (&[U32, U32], "__nv_umul24", U32),
        ],
    ),
    (
        "brev",
        false,
        &[(&[I32], "__nv_brev", I32), (&[I64], "__nv_brevll", I64)],
    ),
    (
        "sad",
        false,
        &[
            (&[I32, I32, U32], "__nv_sad", I32),
            (&[U32, U32, U32], "__nv_usad", U32),
        ],
    ),
    (
        "abs",
        false,
        &[
            (&[I32], "__nv_abs", I32),
            (&[I64], "__nv_llabs", I64),
            (&[F32], "__nv_fabsf", F32),
            (&[F64], "__nv_fabs", F64),
        ],
    ),
    (
        "floor",
        false,
        &[(&[F32], "__nv_floorf", F32), (&[F64], "__nv_floor", F64)],
    ),
    ("rcp64h", false, &[(&[F64], "__nv_rcp64h", F64)]),
    (
        "rsqrt",
        false,
        &[(&[F32], "__nv_rsqrtf", F32), (&[F64], "__nv_rsqrt", F64)],
    ),
    (
        "ceil",
        false,
        &[(&[F64], "__nv_ceil", F64), (&[F32], "__nv_ceilf", F32)],
    ),
    (
        "trunc",
        false,
        &[(&[F64], "__nv_trunc", F64), (&[F32], "__nv_truncf", F32)],
    ),
    (
        "exp2",
        false,
        &[(&[F32], "__nv_exp2f", F32), (&[F64], "__nv_exp2", F64)],
    ),
    ("saturatef", false, &[(&[F32], "__nv_saturatef", F32)]),
    (
        "fma_rn",
        false,
        &[
            (&[F32, F32, F32], "__nv_fmaf_rn", F32),
            (&[F64, F64, F64], "__nv_fma_rn", F64),
        ],
    ),
    (
        "fma_rz",
        false,
        &[
            (&[F32, F32, F32], "__nv_fmaf_rz", F32),
            (&[F64, F64, F64], "__nv_fma_rz", F64),
        ],
    ),
    (
        "fma_rd",
        false,
        &[
            (&[F32, F32, F32], "__nv_fmaf_rd", F32),
            (&[F64, F64, F64], "__nv_fma_rd", F64),
        ],
    ),
    (
        "fma_ru",
        false,
        &[
            (&[F32, F32, F32], "__nv_fmaf_ru", F32),
            (&[F64, F64, F64], "__nv_fma_ru", F64),
        ],
    ),
    (
        "fast_dividef",
        false,
        &[(&[F32, F32], "__nv_fast_fdividef", F32)],
    ),
    (
        "div_rn",
        false,
        &[
            (&[F32, F32], "__nv_fdiv_rn", F32),
            (&[F64, F64], "__nv_ddiv_rn", F64),
        ],
    ),
    (
        "div_rz",
        false,
        &[
            (&[F32, F32], "__nv_fdiv_rz", F32),
            (&[F64, F64], "__nv_ddiv_rz", F64),
        ],
    ),
    (
        "div_rd",
        false,
        &[
            (&[F32, F32], "__nv_fdiv_rd", F32),
            (&[F64, F64], "__nv_ddiv_rd", F64),
        ],
    ),
    (
        "div_ru",
        false,
        &[
            (&[F32, F32], "__nv_fdiv_ru", F32),
            (&[F64, F64], "__nv_ddiv_ru", F64),
        ],
    ),
    (
        "rcp_rn",
        false,
        &[(&[F32], "__nv_frcp_rn", F32), (&[F64], "__nv_drcp_rn", F64)],
    ),
    (
        "rcp_rz",
        false,
        &[(&[F32], "__nv_frcp_rz", F32), (&[F64], "__nv_drcp_rz", F64)],
    ),
    (
        "rcp_rd",
        false,
        &[(&[F32], "__nv_frcp_rd", F32), (&[F64], "__nv_drcp_rd", F64)],
    ),
    (
        "rcp_ru",
        false,
        &[(&[F32], "__nv_frcp_ru", F32), (&[F64], "__nv_drcp_ru", F64)],
    ),
    (
        "sqrt_rn",
        false,
        &[
            (&[F32], "__nv_fsqrt_rn", F32),
            (&[F64], "__nv_dsqrt_rn", F64),
        ],
    ),
    (
        "sqrt_rz",
        false,
        &[
            (&[F32], "__nv_fsqrt_rz", F32),
            (&[F64], "__nv_dsqrt_rz", F64),
        ],
    ),
    (
        "sqrt_rd",
        false,
        &[
            (&[F32], "__nv_fsqrt_rd", F32),
            (&[F64], "__nv_dsqrt_rd", F64),
        ],
    ),
    (
        "sqrt_ru",
        false,
        &[
            (&[F32], "__nv_fsqrt_ru", F32),
            (&[F64], "__nv_dsqrt_ru", F64),
        ],
    ),
    (
        "sqrt",
        false,
        &[(&[F32], "__nv_sqrtf", F32), (&[F64], "__nv_sqrt", F64)],
    ),
    (
        "add_rn",
        false,
        &[
            (&[F64, F64], "__nv_dadd_rn", F64),
            (&[F32, F32], "__nv_fadd_rn", F32),
        ],
    ),
    (
        "add_rz",
        false,
        &[
            (&[F64, F64], "__nv_dadd_rz", F64),
            (&[F32, F32], "__nv_fadd_rz", F32),
        ],
    ),
    (
        "add_rd",
        false,
        &[
            (&[F64, F64], "__nv_dadd_rd", F64),
            (&[F32, F32], "__nv_fadd_rd", F32),
        ],
    ),
    (
        "add_ru",
        false,
        &[
            (&[F64, F64], "__nv_dadd_ru", F64),
            (&[F32, F32], "__nv_fadd_ru", F32),
        ],
    ),
    (
        "mul_rn",
        false,
        &[
            (&[F64, F64], "__nv_dmul_rn", F64),
            (&[F32, F32], "__nv_fmul_rn", F32),
        ],
    ),
    (
        "mul_rz",
        false,
        &[
            (&[F64, F64], "__nv_dmul_rz", F64),
            (&[F32, F32], "__nv_fmul_rz", F32),
        ],
    ),
    (
        "mul_rd",
        false,
        &[
            (&[F64, F64], "__nv_dmul_rd", F64),
            (&[F32, F32], "__nv_fmul_rd", F32),
        ],
    ),
    (
        "mul_ru",
        false,
        &[
            (&[F64, F64], "__nv_dmul_ru", F64),
            (&[F32, F32], "__nv_fmul_ru", F32),
        ],
    ),
    (
        "double2float_rn",
        false,
        &[(&[F64], "__nv_double2float_rn", F32)],
    ),
    (
        "double2float_rz",
        false,
        &[(&[F64], "__nv_double2float_rz", F32)],
    ),
    (
        "double2float_rd",
        false,
        &[(&[F64], "__nv_double2float_rd", F32)],
    ),
    (
        "double2float_ru",
        false,
        &[(&[F64], "__nv_double2float_ru", F32)],
    ),
    (
        "double2int_rn",
        false,
        &[(&[F64], "__nv_double2int_rn", I32)],
    ),
    (
        "double2int_rz",
        false,
        &[(&[F64], "__nv_double2int_rz", I32)],
    ),
    (
        "double2int_rd",
        false,
        &[(&[F64], "__nv_double2int_rd", I32)],
    ),
    (
        "double2int_ru",
        false,
        &[(&[F64], "__nv_double2int_ru", I32)],
    ),
    (
        "double2uint_rn",
        false,
        &[(&[F64], "__nv_double2uint_rn", I32)],
    ),
    (
        "double2uint_rz",
        false,
        &[(&[F64], "__nv_double2uint_rz", I32)],
    ),
    (
        "double2uint_rd",
        false,
        &[(&[F64], "__nv_double2uint_rd", I32)],
    ),
    (
        "double2uint_ru",
        false,
        &[(&[F64], "__nv_double2uint_ru", I32)],
    ),
    (
        "int2double_rn",
        false,
        &[(&[I32], "__nv_int2double_rn", F64)],
    ),
    (
        "uint2double_rn",
        false,
        &[(&[U32], "__nv_uint2double_rn", F64)],
    ),
    ("float2int_rn", false, &[(&[F32], "__nv_float2int_rn", I32)]),
    ("float2int_rz", false, &[(&[F32], "__nv_float2int_rz", I32)]),
    ("float2int_rd", false, &[(&[F32], "__nv_float2int_rd", I32)]),
    ("float2int_ru", false, &[(&[F32], "__nv_float2int_ru", I32)]),
    (
        "float2uint_rn",
        false,
        &[(&[F32], "__nv_float2uint_rn", I32)],
    ),
    (
        "float2uint_rz",
        false,
        &[(&[F32], "__nv_float2uint_rz", I32)],
    ),
    (
        "float2uint_rd",
        false,
        &[(&[F32], "__nv_float2uint_rd", I32)],
    ),
    (
        "float2uint_ru",
        false,
        &[(&[F32], "__nv_float2uint_ru", I32)],
    ),
    ("int2float_rn", false, &[(&[I32], "__nv_int2float_rn", F32)]),
    ("int2float_rz", false, &[(&[I32], "__nv_int2float_rz", F32)]),
    ("int2float_rd", false, &[(&[I32], "__nv_int2float_rd", F32)]),
    ("int2float_ru", false, &[(&[I32], "__nv_int2float_ru", F32)]),
    (
        "uint2float_rn",
        false,
        &[(&[U32], "__nv_uint2float_rn", F32)],
    ),
    (
        "uint2float_rz",
        false,
        &[(&[U32], "__nv_uint2float_rz", F32)],
    ),
    (
        "uint2float_rd",
        false,
        &[(&[U32], "__nv_uint2float_rd", F32)],
    ),
    (
        "uint2float_ru",
        false,
        &[(&[U32], "__nv_uint2float_ru", F32)],
    ),
    (
        "hiloint2double",
        false,
        &[(&[I32, I32], "__nv_hiloint2double", F64)],
    ),
    ("double2loint", false, &[(&[F64], "__nv_double2loint", I32)]),
    ("double2hiint", false, &[(&[F64], "__nv_double2hiint", I32)]),
    ("float2ll_rn", false, &[(&[F32], "__nv_float2ll_rn", I64)]),
    ("float2ll_rz", false, &[(&[F32], "__nv_float2ll_rz", I64)]),
    ("float2ll_rd", false, &[(&[F32], "__nv_float2ll_rd", I64)]),
    ("float2ll_ru", false, &[(&[F32], "__nv_float2ll_ru", I64)]),
    ("float2ull_rn", false, &[(&[F32], "__nv_float2ull_rn", I64)]),
    ("float2ull_rz", false, &[(&[F32], "__nv_float2ull_rz", I64)]),
    ("float2ull_rd", false, &[(&[F32], "__nv_float2ull_rd", I64)]),
    ("float2ull_ru", false, &[(&[F32], "__nv_float2ull_ru", I64)]),
    ("double2ll_rn", false, &[(&[F64], "__nv_double2ll_rn", I64)]),
    ("double2ll_rz", false, &[(&[F64], "__nv_double2ll_rz", I64)]),
    ("double2ll_rd", false, &[(&[F64], "__nv_double2ll_rd", I64)]),
    ("double2ll_ru", false, &[(&[F64], "__nv_double2ll_ru", I64)]),
    (
        "double2ull_rn",
        false,
        &[(&[F64], "__nv_double2ull_rn", I64)],
    ),
    (
        "double2ull_rz",
        false,
        &[(&[F64], "__nv_double2ull_rz", I64)],
    ),
    (
        "double2ull_rd",
        false,
        &[(&[F64], "__nv_double2ull_rd", I64)],
    ),
    (
        "double2ull_ru",
        false,
        &[(&[F64], "__nv_double2ull_ru", I64)],
    ),
    ("ll2float_rn", false, &[(&[I64], "__nv_ll2float_rn", F32)]),
    ("ll2float_rz", false, &[(&[I64], "__nv_ll2float_rz", F32)]),
    ("ll2float_rd", false, &[(&[I64], "__nv_ll2float_rd", F32)]),
    ("ll2float_ru", false, &[(&[I64], "__nv_ll2float_ru", F32)]),
    ("ull2float_rn", false, &[(&[U64], "__nv_ull2float_rn", F32)]),
    ("ull2float_rz", false, &[(&[U64], "__nv_ull2float_rz", F32)]),
    ("ull2float_rd", false, &[(&[U64], "__nv_ull2float_rd", F32)]),
    ("ull2float_ru", false, &[(&[U64], "__nv_ull2float_ru", F32)]),
    ("ll2double_rn", false, &[(&[I64], "__nv_ll2double_rn", F64)]),
    ("ll2double_rz", false, &[(&[I64], "__nv_ll2double_rz", F64)]),
    ("ll2double_rd", false, &[(&[I64], "__nv_ll2double_rd", F64)]),
    ("ll2double_ru", false, &[(&[I64], "__nv_ll2double_ru", F64)]),
    (
        "ull2double_rn",
        false,
        &[(&[U64], "__nv_ull2double_rn", F64)],
    ),
    (
        "ull2double_rz",
        false,
        &[(&[U64], "__nv_ull2double_rz", F64)],
    ),
    (
        "ull2double_rd",
        false,
        &[(&[U64], "__nv_ull2double_rd", F64)],
    ),
    (
        "ull2double_ru",
        false,
        &[(&[U64], "__nv_ull2double_ru", F64)],
    ),
    ("int_as_float", false, &[(&[I32], "__nv_int_as_float", F32)]),
    ("float_as_int", false, &[(&[F32], "__nv_float_as_int", I32)]),
    (
        "uint_as_float",
        false,
        &[(&[U32], "__nv_uint_as_float", F32)],
    ),
    (
        "float_as_uint",
        false,
        &[(&[F32], "__nv_float_as_uint", I32)],
    ),
    (
        "longlong_as_double",
        false,
        &[(&[I64], "__nv_longlong_as_double", F64)],
    ),
    (
        "double_as_longlong",
        false,
        &[(&[F64], "__nv_double_as_longlong", I64)],
    ),
    ("fast_sinf", false, &[(&[F32], "__nv_fast_sinf", F32)]),
    ("fast_cosf", false, &[(&[F32], "__nv_fast_cosf", F32)]),
    ("fast_log2f", false, &[(&[F32], "__nv_fast_log2f", F32)]),
    ("fast_logf", false, &[(&[F32], "__nv_fast_logf", F32)]),
    ("fast_expf", false, &[(&[F32], "__nv_fast_expf", F32)]),
    ("fast_tanf", false, &[(&[F32], "__nv_fast_tanf", F32)]),
    ("fast_exp10f", false, &[(&[F32], "__nv_fast_exp10f", F32)]),
    ("fast_log10f", false, &[(&[F32], "__nv_fast_log10f", F32)]),
    ("fast_powf", false, &[(&[F32, F32], "__nv_fast_powf", F32)]),
    (
        "hadd",
        false,
        &[
            (&[I32, I32], "__nv_hadd", I32),
            (&[U32, U32], "__nv_uhadd", U32),
        ],
    ),
    (
        "rhadd",
        false,
        &[
            (&[I32, I32], "__nv_rhadd", I32),
            (&[U32, U32], "__nv_urhadd", U32),
        ],
    ),
    (
        "sub_rn",
        false,
        &[
            (&[F32, F32], "__nv_fsub_rn", F32),
            (&[F64, F64], "__nv_dsub_rn", F64),
        ],
    ),
    (
        "sub_rz",
        false,
        &[
            (&[F32, F32], "__nv_fsub_rz", F32),
            (&[F64, F64], "__nv_dsub_rz", F64),
        ],
    ),
    (
        "sub_rd",
        false,
        &[
            (&[F32, F32], "__nv_fsub_rd", F32),
            (&[F64, F64], "__nv_dsub_rd", F64),
        ],
    ),
    (
        "sub_ru",
        false,
        &[
            (&[F32, F32], "__nv_fsub_ru", F32),
            (&[F64, F64], "__nv_dsub_ru", F64),
        ],
    ),
    ("rsqrt_rn", false, &[(&[F32], "__nv_frsqrt_rn", F32)]),
    (
        "ffs",
        false,
        &[(&[I32], "__nv_ffs", I32), (&[I64], "__nv_ffsll", I32)],
    ),
    (
        "rint",
        false,
        &[(&[F32], "__nv_rintf", F32), (&[F64], "__nv_rint", F64)],
    ),
    (
        "llrint",
        false,
        &[(&[F32], "__nv_llrintf", I64), (&[F64], "__nv_llrint", I64)],
    ),
    (
        "nearbyint",
        false,
        &[
            (&[F32], "__nv_nearbyintf", F32),
            (&[F64], "__nv_nearbyint", F64),
        ],
    ),
    (
        "isnan",
        true,
        &[(&[F32], "__nv_isnanf", I32), (&[F64], "__nv_isnand", I32)],
    ),
    (
        "signbit",
        false,
        &[
            (&[F32], "__nv_signbitf", I32),
            (&[F64], "__nv_signbitd", I32),
        ],
    ),
    (
        "copysign",
        false,
        &[
            (&[F32, F32], "__nv_copysignf", F32),
            (&[F64, F64], "__nv_copysign", F64),
        ],
    ),
    ("finitef", true, &[(&[F32], "__nv_finitef", I32)]),
    (
        "isinf",
        true,
        &[(&[F32], "__nv_isinff", I32), (&[F64], "__nv_isinfd", I32)],
    ),
    (
        "nextafter",
        false,
        &[
            (&[F32, F32], "__nv_nextafterf", F32),
            (&[F64, F64], "__nv_nextafter", F64),
        ],
    ),
    (
        "sin",
        false,
        &[(&[F32], "__nv_sinf", F32), (&[F64], "__nv_sin", F64)],
    ),
    (
        "cos",
        false,
        &[(&[F32], "__nv_cosf", F32), (&[F64], "__nv_cos", F64)],
    ),
    (
        "sinpi",
        false,
        &[(&[F32], "__nv_sinpif", F32), (&[F64], "__nv_sinpi", F64)],
    ),
    (
        "cospi",
        false,
        &[(&[F32], "__nv_cospif", F32), (&[F64], "__nv_cospi", F64)],
    ),
    (
        "tan",
        false,
        &[(&[F32], "__nv_tanf", F32), (&[F64], "__nv_tan", F64)],
    ),
    (
        "log2",
        false,
        &[(&[F32], "__nv_log2f", F32), (&[F64], "__nv_log2", F64)],
    ),
    (
        "exp",
        false,
        &[(&[F32], "__nv_expf", F32), (&[F64], "__nv_exp", F64)],
    ),
    (
        "exp10",
        false,
        &[(&[F32], "__nv_exp10f", F32), (&[F64], "__nv_exp10", F64)],
    ),
    (
        "cosh",
        false,
        &[(&[F32], "__nv_coshf", F32), (&[F64], "__nv_cosh", F64)],
    ),
    (
        "sinh",
        false,
        &[(&[F32], "__nv_sinhf", F32), (&[F64], "__nv_sinh", F64)],
    ),
    (
        "tanh",
        false,
        &[(&[F32], "__nv_tanhf", F32), (&[F64], "__nv_tanh", F64)],
    ),
    (
        "atan2",
        false,
        &[
            (&[F32, F32], "__nv_atan2f", F32),
            (&[F64, F64], "__nv_atan2", F64),
        ],
    ),
    (
        "atan",
        false,
        &[(&[F32], "__nv_atanf", F32), (&[F64], "__nv_atan", F64)],
    ),
    (
        "asin",
        false,
        &[(&[F32], "__nv_asinf", F32), (&[F64], "__nv_asin", F64)],
    ),
    (
        "acos",
        false,
        &[(&[F32], "__nv_acosf", F32), (&[F64], "__nv_acos", F64)],
    ),
    (
        "log",
        false,
        &[(&[F32], "__nv_logf", F32), (&[F64], "__nv_log", F64)],
    ),
    (
        "log10",
        false,
        &[(&[F32], "__nv_log10f", F32), (&[F64], "__nv_log10", F64)],
    ),
    (
        "log1p",
        false,
        &[(&[F32], "__nv_log1pf", F32), (&[F64], "__nv_log1p", F64)],
    ),
    (
        "acosh",
        false,
        &[(&[F32], "__nv_acoshf", F32), (&[F64], "__nv_acosh", F64)],
    ),
    (
        "asinh",
        false,
        &[(&[F32], "__nv_asinhf", F32), (&[F64], "__nv_asinh", F64)],
    ),
    (
        "atanh",
        false,
        &[(&[F32], "__nv_atanhf", F32), (&[F64], "__nv_atanh", F64)],
    ),
    (
        "expm1",
        false,
        &[(&[F32], "__nv_expm1f", F32), (&[F64], "__nv_expm1", F64)],
    ),
    (
        "hypot",
        false,
        &[
            (&[F32, F32], "__nv_hypotf", F32),
            (&[F64, F64], "__nv_hypot", F64),
        ],
    ),
    (
        "rhypot",
        false,
        &[
            (&[F32, F32], "__nv_rhypotf", F32),
            (&[F64, F64], "__nv_rhypot", F64),
        ],
    ),
    (
        "norm3d",
        false,
        &[
            (&[F32, F32, F32], "__nv_norm3df", F32),
            (&[F64, F64, F64], "__nv_norm3d", F64),
        ],
    ),
    (
        "rnorm3d",
        false,
        &[
            (&[F32, F32, F32], "__nv_rnorm3df", F32),
            (&[F64, F64, F64], "__nv_rnorm3d", F64),
        ],
    ),
    (
        "norm4d",
        false,
        &[
            (&[F32, F32, F32, F32], "__nv_norm4df", F32),
            (&[F64, F64, F64, F64], "__nv_norm4d", F64),
        ],
    ),
    (
        "rnorm4d",
        false,
        &[
            (&[F32, F32, F32, F32], "__nv_rnorm4df", F32),
            (&[F64, F64, F64, F64], "__nv_rnorm4d", F64),
        ],
    ),
    (
        "cbrt",
        false,
        &[(&[F32], "__nv_cbrtf", F32), (&[F64], "__nv_cbrt", F64)],
    ),
    (
        "rcbrt",
        false,
        &[(&[F32], "__nv_rcbrtf", F32), (&[F64], "__nv_rcbrt", F64)],
    ),
    (
        "j0",
        false,
        &[(&[F32], "__nv_j0f", F32), (&[F64], "__nv_j0", F64)],
    ),
    (
        "j1",
        false,
        &[(&[F32], "__nv_j1f", F32), (&[F64], "__nv_j1", F64)],
    ),
    (
        "y0",
        false,
        &[(&[F32], "__nv_y0f", F32), (&[F64], "__nv_y0", F64)],
    ),
    (
        "y1",
        false,
        &[(&[F32], "__nv_y1f", F32), (&[F64], "__nv_y1", F64)],
    ),
    (
        "yn",
        false,
        &[
            (&[I32, F32], "__nv_ynf", F32),
            (&[I32, F64], "__nv_yn", F64),
        ],
    ),
    (
        "jn",
        false,
        &[
            (&[I32, F32], "__nv_jnf", F32),
            (&[I32, F64], "__nv_jn", F64),
        ],
    ),
    (
        "cyl_bessel_i0",
        false,
        &[
            (&[F32], "__nv_cyl_bessel_i0f", F32),
            (&[F64], "__nv_cyl_bessel_i0", F64),
        ],
    ),
    (
        "cyl_bessel_i1",
        false,
        &[
            (&[F32], "__nv_cyl_bessel_i1f", F32),
            (&[F64], "__nv_cyl_bessel_i1", F64),
        ],
    ),
    (
        "erf",
        false,
        &[(&[F32], "__nv_erff", F32), (&[F64], "__nv_erf", F64)],
    ),
    (
        "erfinv",
        false,
        &[(&[F32], "__nv_erfinvf", F32), (&[F64], "__nv_erfinv", F64)],
    ),
    (
        "erfc",
        false,
        &[(&[F32], "__nv_erfcf", F32), (&[F64], "__nv_erfc", F64)],
    ),
    (
        "erfcx",
        false,
        &[(&[F32], "__nv_erfcxf", F32), (&[F64], "__nv_erfcx", F64)],
    ),
    (
        "erfcinv",
        false,
        &[
            (&[F32], "__nv_erfcinvf", F32),
            (&[F64], "__nv_erfcinv", F64),
        ],
    ),
    (
        "normcdfinv",
        false,
        &[
            (&[F32], "__nv_normcdfinvf", F32),
            (&[F64], "__nv_normcdfinv", F64),
        ],
    ),
    (
        "normcdf",
        false,
        &[
            (&[F32], "__nv_normcdff", F32),
            (&[F64], "__nv_normcdf", F64),
        ],
    ),
    (
        "lgamma",
        false,
        &[(&[F32], "__nv_lgammaf", F32), (&[F64], "__nv_lgamma", F64)],
    ),
    (
        "ldexp",
        false,
        &[
            (&[F32, I32], "__nv_ldexpf", F32),
            (&[F64, I32], "__nv_ldexp", F64),
        ],
    ),
    (
        "scalbn",
        false,
        &[
            (&[F32, I32], "__nv_scalbnf", F32),
            (&[F64, I32], "__nv_scalbn", F64),
        ],
    ),
    (
        "fmod",
        false,
        &[
            (&[F32, F32], "__nv_fmodf", F32),
            (&[F64, F64], "__nv_fmod", F64),
        ],
    ),
    (
        "remainder",
        false,
        &[
            (&[F32, F32], "__nv_remainderf", F32),
            (&[F64, F64], "__nv_remainder", F64),
        ],
    ),
    (
        "fma",
        false,
        &[
            (&[F32, F32, F32], "__nv_fmaf", F32),
            (&[F64, F64, F64], "__nv_fma", F64),
        ],
    ),
    (
        "pow",
        false,
        &[
            (&[F32, I32], "__nv_powif", F32),
            (&[F64, I32], "__nv_powi", F64),
            (&[F32, F32], "__nv_powf", F32),
            (&[F64, F64], "__nv_pow", F64),
        ],
    ),
    (
        "tgamma",
        false,
        &[(&[F32], "__nv_tgammaf", F32), (&[F64], "__nv_tgamma", F64)],
    ),
    (
        "round",
        false,
        &[(&[F32], "__nv_roundf", F32), (&[F64], "__nv_round", F64)],
    ),
    (
        "llround",
        false,
        &[
            (&[F32], "__nv_llroundf", I64),
            (&[F64], "__nv_llround", I64),
        ],
    ),
    (
        "fdim",
        false,
        &[
            (&[F32, F32], "__nv_fdimf", F32),
            (&[F64, F64], "__nv_fdim", F64),
        ],
    ),
    (
        "ilogb",
        false,
        &[(&[F32], "__nv_ilogbf", I32), (&[F64], "__nv_ilogb", I32)],
    ),
    (
        "logb",
        false,
        &[(&[F32], "__nv_logbf", F32), (&[F64], "__nv_logb", F64)],
    ),
    ("isfinited", true, &[(&[F64], "__nv_isfinited", I32)]),
];
