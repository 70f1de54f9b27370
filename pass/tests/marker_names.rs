//! The marker names of the contract crate (`ompadapt_abi::markers`) against what clang-19
//! emits for the lowering header the plugin injects (plugin/include/ompadapt_lowering.h), in C
//! and in C++ (where clang mangles the `static` markers even inside `extern "C"`): every marker
//! is one function of the module, and the pass finds it.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{have_clang, parse, run_ok, scratch, CLANG, CLANGXX};
use inkwell::context::Context;
use inkwell::module::Module;
use ompadapt_abi::markers::{Marker, AUTO_FEATURES, HOST_GUARD, LAUNCH_SITE, MARKERS, TEAM_INVARIANT};
use ompadapt_pass::auto_features::is_auto_marker_name;
use ompadapt_pass::launch_site::{host_run_functions, is_guard_call, is_marker_call, marker_functions};

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// A translation unit that includes the injected headers and calls the markers the way the
/// frontend's lowering does.
const USES: &str = r#"#include "ompadapt.h"
#include "ompadapt_lowering.h"
static double out[4];
static const char *spec = "";
void uses(ompadapt_ctx *ctx) {
  int k = __ompadapt_auto_features(out, 4, &spec, "m", "i");
  k += __ompadapt_team_invariant("m");
  __ompadapt_host_guard(ctx, 0, -1, "m");
  __ompadapt_launch_site(k, 0, 0, "m");
}
"#;

fn emit_ir(driver: &str, language: &str, dir: &Path) -> PathBuf {
    let source = dir.join(format!("uses.{language}"));
    std::fs::write(&source, USES).unwrap();
    let ll = dir.join(format!("uses.{language}.ll"));
    let root = repository();
    run_ok(
        Command::new(driver)
            .args(["-O0", "-S", "-emit-llvm", "-x", language])
            .arg("-I")
            .arg(root.join("runtime/include"))
            .arg("-I")
            .arg(root.join("plugin/include"))
            .arg(&source)
            .arg("-o")
            .arg(&ll),
    );
    ll
}

fn function_names(module: &Module<'_>) -> Vec<String> {
    module.get_functions().map(|f| f.get_name().to_string_lossy().into_owned()).collect()
}

/// The one function of `names` that `marker` names.
fn the_function<'a>(marker: &Marker, names: &'a [String], language: &str) -> &'a str {
    let found: Vec<&String> = names.iter().filter(|n| marker.names(n.as_bytes())).collect();
    assert_eq!(found.len(), 1, "{language}: {} names {found:?} among {names:?}", marker.name);
    found[0]
}

#[test]
fn markers_in_the_header_are_what_the_pass_recognises() {
    if !have_clang("markers_in_the_header_are_what_the_pass_recognises") {
        return;
    }
    let dir = scratch("marker_names");
    for (driver, language) in [(CLANG, "c"), (CLANGXX, "c++")] {
        let context = Context::create();
        let module = parse(&context, &emit_ir(driver, language, &dir));
        let names = function_names(&module);
        for marker in &MARKERS {
            let symbol = the_function(marker, &names, language);
            if language == "c" {
                assert_eq!(symbol, marker.name);
            } else {
                // static inside extern "C": `_ZL<length><name><parameters>`
                assert!(symbol.starts_with(&marker.mangled_prefixes()[0]), "{symbol}");
            }
        }
        // The pass's own lookups find them.
        let launch = marker_functions(&module);
        assert_eq!(launch.len(), 1, "{language}");
        assert_eq!(launch[0].get_name().to_str().unwrap(), the_function(&LAUNCH_SITE, &names, language));
        assert!(host_run_functions(&module).is_some(), "{language}: host enter/exit");
        assert!(is_auto_marker_name(the_function(&AUTO_FEATURES, &names, language)), "{language}");
        let calls: Vec<_> = module
            .get_function("uses")
            .or_else(|| module.get_function("_Z4usesP12ompadapt_ctx"))
            .expect("the function calling the markers")
            .get_basic_blocks()
            .into_iter()
            .flat_map(|b| b.get_instructions())
            .collect();
        assert_eq!(calls.iter().filter(|i| is_marker_call(**i)).count(), 1, "{language}: the launch-site call");
        assert_eq!(calls.iter().filter(|i| is_guard_call(**i)).count(), 1, "{language}: the {} call", HOST_GUARD.name);
    }
}

/// Every marker is defined in the lowering header, and the frontend writes the ones it calls,
/// spelt from this same list (`markers::LAUNCH_SITE.name`, ...: plugin/syntax's
/// tests/generated_names.rs keeps the literals out).
#[test]
fn markers_are_defined_in_the_header_and_written_by_the_frontend() {
    let root = repository();
    let header = std::fs::read_to_string(root.join("plugin/include/ompadapt_lowering.h")).unwrap();
    for marker in &MARKERS {
        assert!(header.contains(&format!("{}(", marker.name)), "{} is not in the lowering header", marker.name);
    }
    let frontend = rust_sources(&root.join("plugin/syntax/src"));
    for (constant, marker) in
        [("LAUNCH_SITE", LAUNCH_SITE), ("HOST_GUARD", HOST_GUARD), ("AUTO_FEATURES", AUTO_FEATURES), ("TEAM_INVARIANT", TEAM_INVARIANT)]
    {
        assert!(frontend.contains(&format!("markers::{constant}.name")), "the frontend does not write {}", marker.name);
    }
}

/// The text of every Rust file under `dir`.
fn rust_sources(dir: &Path) -> String {
    let mut text = String::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            text += &rust_sources(&path);
        } else if path.extension().is_some_and(|e| e == "rs") {
            text += &std::fs::read_to_string(&path).unwrap();
        }
    }
    text
}
