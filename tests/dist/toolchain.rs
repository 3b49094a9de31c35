//! The toolchain README.md and `rust-version` state is one that builds the locked tree: no
//! locked package may need a newer Rust than the workspace says it needs.

use std::process::Command;

/// `1.95` → (1, 95); a patch number is kept when given.
fn version(text: &str) -> Vec<u64> {
    text.split('.').map(|p| p.parse().unwrap_or_else(|_| panic!("version `{text}`"))).collect()
}

#[test]
fn rust_version_is_at_least_every_locked_packages() {
    let root = env!("CARGO_MANIFEST_DIR");
    let out = Command::new(env!("CARGO"))
        .args(["metadata", "--locked", "--offline", "--format-version", "1"])
        .current_dir(root)
        .output()
        .expect("cargo metadata runs");
    assert!(out.status.success(), "cargo metadata: {}", String::from_utf8_lossy(&out.stderr));
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let packages = meta["packages"].as_array().unwrap();
    let ours = packages
        .iter()
        .find(|p| p["name"] == "driftlint")
        .and_then(|p| p["rust_version"].as_str())
        .expect("driftlint states a rust-version");
    let needs: Vec<(Vec<u64>, String)> = packages
        .iter()
        .filter_map(|p| {
            let v = p["rust_version"].as_str()?;
            (version(v) > version(ours)).then(|| (version(v), format!("{} {} needs {v}", p["name"], p["version"])))
        })
        .collect();
    assert!(needs.is_empty(), "rust-version {ours} is below what locked packages need: {needs:?}");
    // README says the same version.
    let readme = std::fs::read_to_string(format!("{root}/README.md")).unwrap();
    assert!(readme.contains(&format!("(Rust {ours} or newer)")), "README.md does not state Rust {ours}");
}
