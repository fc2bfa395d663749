//! `include/convoy.h` is what cbindgen generates from the crate now: a
//! changed signature or doc comment without a regenerated header fails
//! here. `CONVOY_BLESS=1` rewrites the header instead.

use std::path::Path;

#[test]
fn the_committed_header_is_what_cbindgen_generates() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml"))
        .unwrap_or_else(|error| panic!("ffi/cbindgen.toml: {error}"));
    let bindings = cbindgen::Builder::new()
        .with_crate(crate_dir)
        .with_config(config)
        .generate()
        .unwrap_or_else(|error| panic!("cbindgen cannot read the crate: {error}"));
    let mut generated = Vec::new();
    bindings.write(&mut generated);
    let generated = String::from_utf8(generated).expect("cbindgen writes UTF-8");
    let header = crate_dir.join("include/convoy.h");
    if std::env::var_os("CONVOY_BLESS").is_some() {
        std::fs::write(&header, &generated).expect("include/convoy.h is writable");
    }
    let committed = std::fs::read_to_string(&header).unwrap_or_default();
    assert!(
        committed == generated,
        "ffi/include/convoy.h is out of date: run \
         CONVOY_BLESS=1 cargo test -p convoy-ffi --test header_is_current"
    );
}
