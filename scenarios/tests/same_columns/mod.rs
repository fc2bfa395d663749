//! Bit-for-bit comparison of two simulations' vehicle columns.

use convoy::Sim;

/// Asserts every vehicle column of `one` equals `two`'s byte for byte,
/// naming the first that differs.
pub fn assert_same_columns(one: &Sim, two: &Sim) {
    let pairs = one
        .vehicles()
        .columns()
        .bytes()
        .zip(two.vehicles().columns().bytes());
    for ((name, a), (_, b)) in pairs {
        assert!(a == b, "column `{name}` differs between 1 and 2 threads");
    }
}
