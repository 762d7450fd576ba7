//! The macros' compile-time contract.
//!
//! - Every case under `ui/fail` must fail to compile with exactly the
//!   diagnostic beside it (`*.stderr`). `TRYBUILD=overwrite cargo test -p
//!   mcp-light-ui-tests` rewrites the `.stderr` files after a deliberate
//!   change.
//! - Every case under `ui/pass` must compile and run to a successful exit.
//!   Each is a binary of this package (one tool registry per program), so
//!   cargo builds them with the rest of the workspace; this test runs them.

use std::path::Path;
use std::process::Command;

/// The pass cases run first: the fail cases' check sets environment
/// variables, which no other thread (a process being spawned) may read
/// meanwhile, so the two run one after the other in one test.
#[test]
fn ui() {
    run_pass_cases();
    check_fail_cases();
}

/// trybuild's check of the cases under `ui/fail`.
fn check_fail_cases() {
    // trybuild checks the cases, and every dependency again, in a target
    // directory of its own. Nothing there is ever debugged, so it is built
    // without debug info.
    //
    // It checks the dependencies first with its rustflags, then the cases
    // with one flag more (`--diagnostic-width=140`): as rustflags are part
    // of what cargo keys a build on, a cold run checked every dependency
    // twice. `CARGO_ENCODED_RUSTFLAGS` takes precedence over the flags
    // trybuild passes as configuration, so both steps get its case flags
    // (trybuild's own, in its order) and the dependencies are checked once.
    // Should trybuild's flags change, the `.stderr` comparisons say so.
    //
    // Its intermediate artifacts go to the workspace's build directory
    // (`CARGO_BUILD_BUILD_DIR`), its final ones stay under
    // `target/tests/trybuild`: the proc macros and build scripts, built for
    // the host without rustflags, are then the very ones the workspace's
    // build compiled, and cargo reuses every one whose features match
    // instead of compiling syn and each derive a second time. What the
    // cases check is built for the target, under a directory of its own
    // (`--target`), so nothing there is shared or overwritten.
    let build_dir = workspace_build_dir();
    // SAFETY: called by the only test of this binary once the pass cases'
    // processes have ended: no other thread reads the environment.
    unsafe {
        std::env::set_var("CARGO_BUILD_BUILD_DIR", &build_dir);
        std::env::set_var("CARGO_PROFILE_DEV_DEBUG", "false");
        std::env::set_var(
            "CARGO_ENCODED_RUSTFLAGS",
            [
                "--cfg",
                "trybuild",
                "--verbose",
                "-A",
                "dead_code",
                "--diagnostic-width=140",
            ]
            .join("\x1f"),
        );
    }
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/fail/*.rs");
}

/// The workspace's build directory, as cargo reports it (wherever
/// `CARGO_TARGET_DIR`, `build.build-dir` or the default put it).
fn workspace_build_dir() -> String {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .output()
        .expect("cargo metadata runs");
    assert!(
        output.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("cargo metadata prints JSON");
    metadata["build_directory"]
        .as_str()
        .or_else(|| metadata["target_directory"].as_str())
        .expect("cargo metadata names the build directory")
        .to_owned()
}

/// Each case under `ui/pass` and the binary cargo built from it.
macro_rules! pass_cases {
    ($($case:ident),* $(,)?) => {
        [$((stringify!($case), env!(concat!("CARGO_BIN_EXE_", stringify!($case))))),*]
    };
}

const PASS: [(&str, &str); 14] = pass_cases![
    crate_path,
    crud,
    duplicate_names,
    extractors,
    heavy_and_light,
    heavy_streams,
    light_key,
    methods,
    named_like_a_module,
    param_attributes,
    result_roles,
    scopes,
    tasks_and_schema_as_written,
    views,
];

/// Runs every case under `ui/pass`, after checking that each file there is
/// one of `PASS`.
fn run_pass_cases() {
    let mut on_disk: Vec<String> = std::fs::read_dir("tests/ui/pass")
        .expect("tests/ui/pass is readable")
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "rs"))
        .map(|path| path.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    on_disk.sort();
    let listed: Vec<&str> = PASS.iter().map(|(case, _)| *case).collect();
    assert_eq!(
        on_disk, listed,
        "every file under tests/ui/pass is a [[bin]] in ui-tests/Cargo.toml and a name in PASS"
    );

    let failed: Vec<String> = PASS
        .iter()
        .filter_map(|(case, exe)| {
            let output = Command::new(Path::new(exe))
                .output()
                .unwrap_or_else(|e| panic!("cannot run the `{case}` case ({exe}): {e}"));
            (!output.status.success()).then(|| {
                format!(
                    "tests/ui/pass/{case}.rs exited with {}:\n{}{}",
                    output.status,
                    String::from_utf8_lossy(&output.stdout),
                    String::from_utf8_lossy(&output.stderr)
                )
            })
        })
        .collect();
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}
