//! tritonc-sema
