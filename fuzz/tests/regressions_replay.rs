//! Every seed and every saved finding of every target loads without a
//! panic and without a non-finite output.

use convoy_fuzz::targets::{TARGETS, Target};

#[test]
fn every_seed_and_regression_input_is_harmless() {
    for name in TARGETS {
        let mut target = Target::new(name).unwrap_or_else(|error| panic!("{error}"));
        let mut inputs: Vec<(String, Vec<u8>)> = target
            .seeds()
            .iter()
            .enumerate()
            .map(|(k, seed)| (format!("seed {k}"), seed.clone()))
            .collect();
        if let Ok(entries) = std::fs::read_dir(convoy_fuzz::regressions(name)) {
            for entry in entries.flatten() {
                let bytes = std::fs::read(entry.path()).unwrap_or_default();
                inputs.push((entry.path().display().to_string(), bytes));
            }
        }
        for (what, input) in inputs {
            if let Err(finding) = convoy_fuzz::execute(&mut target, &input) {
                panic!("{name} {what}: {finding}");
            }
        }
    }
}
