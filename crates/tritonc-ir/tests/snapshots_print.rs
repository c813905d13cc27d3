//! Snapshot tests of the printer on IR built with the builder.

mod fixtures;

use tritonc_ir::{print_module, PrintOptions};

#[test]
fn vector_add() {
    insta::assert_snapshot!(print_module(
        &fixtures::vector_add(),
        PrintOptions::default()
    ));
}

#[test]
fn vector_add_with_locations() {
    insta::assert_snapshot!(print_module(
        &fixtures::vector_add(),
        PrintOptions {
            with_locations: true
        }
    ));
}

#[test]
fn row_argmax() {
    insta::assert_snapshot!(print_module(
        &fixtures::row_argmax(),
        PrintOptions::default()
    ));
}

#[test]
fn loop_accumulate() {
    insta::assert_snapshot!(print_module(
        &fixtures::loop_accumulate(),
        PrintOptions::default()
    ));
}

#[test]
fn control_flow() {
    insta::assert_snapshot!(print_module(
        &fixtures::control_flow(),
        PrintOptions::default()
    ));
}
