//! The marker functions: what the frontend's lowering calls (defined `static inline` in the
//! header it injects, plugin/include/ompadapt_lowering.h) and the pass recognises and replaces.
//! One list, name and meaning, in the manner of LLVM's `OMPKinds.def`.
//!
//! In C a marker's symbol is its name. In C++ clang mangles a `static` function even inside
//! `extern "C"`: `_ZL<length><name><parameter types>` (`_Z` when not `static`), so the pass
//! matches that form too ([`Marker::names`]). The pass's tests compile the header as C and C++
//! and check that every marker here is recognised in both.

/// One marker function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Marker {
    /// The C name, as the header declares it.
    pub name: &'static str,
    /// What a call of it means, and what the pass does with it.
    pub doc: &'static str,
}

/// `__ompadapt_launch_site(use_host, num_teams, thread_limit, model)`, right before a target
/// construct of an adaptive region.
pub const LAUNCH_SITE: Marker = Marker {
    name: "__ompadapt_launch_site",
    doc: "Right before a target construct of an adaptive region. The pass turns the offload launch \
          that follows into a dispatch between the host version (non-zero use_host) and the \
          offload, sets a non-zero num_teams / thread_limit in the launch at run time, and \
          deletes the call. Without the pass, the runtime warns once when a variant needed it.",
};

/// `__ompadapt_host_guard(ctx, cpu, replacement, model)`, before the launch site of a region
/// with a `cpu` variant.
pub const HOST_GUARD: Marker = Marker {
    name: "__ompadapt_host_guard",
    doc: "Before the launch site of a region with a cpu variant. The pass calls the host-enter \
          function with its ctx, cpu and replacement and the launch's device and kernel \
          arguments on the dispatch's host path, the host-exit function after the host version, \
          and deletes the call.",
};

/// `__ompadapt_auto_features(out, cap, spec, model, loops)`: `features(auto)`.
pub const AUTO_FEATURES: Marker = Marker {
    name: "__ompadapt_auto_features",
    doc: "features(auto), before the region's begin. The pass replaces the call by the region's \
          automatic features computed at the call (trip counts, bytes_mapped, static features), \
          stored into out[0..K), with *spec pointing at a descriptor naming them and K as the \
          result. Without the pass it returns 0.",
};

/// `__ompadapt_host_enter(ctx, cpu, replacement, device, kernel_args, globals, nglobals)`.
pub const HOST_ENTER: Marker = Marker {
    name: "__ompadapt_host_enter",
    doc: "Not a marker the pass deletes but one it calls: on the dispatch's host path, before the \
          host version, with the launch's device and kernel arguments; the host version runs \
          only when it returns non-NULL. Emitted because the host guard's body calls it.",
};

/// `__ompadapt_host_exit(run)`.
pub const HOST_EXIT: Marker = Marker {
    name: "__ompadapt_host_exit",
    doc: "Not a marker the pass deletes but one it calls: after the host version, with what the \
          host-enter function returned. Emitted because the host guard's body calls it.",
};

/// `__ompadapt_team_invariant(model)`, before a host parallel region of zero-source-change mode.
pub const TEAM_INVARIANT: Marker = Marker {
    name: "__ompadapt_team_invariant",
    doc: "Before a host parallel region of zero-source-change mode; the generated code calls the \
          runtime's begin and end only where it returns non-zero. The pass replaces the call by 1 \
          where its analysis of the region's code (everything the parallel region runs) shows \
          that the code cannot observe its team (its variants then apply), else by 0 with a \
          remark saying why (the region runs as written). Without the pass it returns 0.",
};

/// Every marker function, in the order the lowering header defines them.
pub const MARKERS: [Marker; 6] = [LAUNCH_SITE, AUTO_FEATURES, TEAM_INVARIANT, HOST_ENTER, HOST_EXIT, HOST_GUARD];

/// The prefix of every name ompadapt's header and generated code define (`__ompadapt_`):
/// reserved identifiers, so a program's own function never carries it. The pass treats calls of
/// such functions as its own bookkeeping (they touch no user memory except through the runtime
/// entries below).
pub const RESERVED_PREFIX: &str = "__ompadapt_";

/// The lowering header's way to the runtime's table of entry points (`__ompadapt_api()`).
pub const RUNTIME_API: &str = "__ompadapt_api";
/// The lowering header's begin of an execution (`__ompadapt_begin`), where the loader is not
/// precompiled ([`SUPPORT_BEGIN`] where it is).
pub const RUNTIME_BEGIN: &str = "__ompadapt_begin";
/// The lowering header's end of an execution (`__ompadapt_end`); see [`RUNTIME_BEGIN`].
pub const RUNTIME_END: &str = "__ompadapt_end";
/// The header's ways into the runtime: what they are given (the context, the features) may be
/// kept by the runtime, unlike what the markers are given.
pub const RUNTIME_ENTRIES: [&str; 3] = [RUNTIME_API, RUNTIME_BEGIN, RUNTIME_END];

/// The global the frontend plugin defines in every host translation unit it compiles (`char`,
/// 1 with `-fplugin-arg-ompadapt-auto`, else 0). The pass reads and deletes it: where it is, the
/// frontend's lowering is what the user asked for and the pass only finishes it; where it is not
/// (`-fpass-plugin` alone, flang, `opt`), the pass makes regions adaptive on its own (pass-only
/// mode).
pub const FRONTEND_MARK: &str = "__ompadapt_frontend_mark";

/// The global that holds a translation unit's summary, in its ELF note (see [`crate::summary`]).
pub const SUMMARY_NOTE: &str = "__ompadapt_summary";

/// The global that holds a translation unit's decisions, in its ELF note (see [`crate::decisions`]).
pub const DECISIONS_NOTE: &str = "__ompadapt_decisions";

/// The annotation (`__attribute__((annotate))`, in `@llvm.global.annotations`) the frontend gives
/// every function defined after a `declare variant`, `begin declare variant` or `metadirective`
/// with a `device` or `target_device` selector outside system headers: from there on the device
/// compilation may run other code than the host's for the same call, so a kernel reaching such a
/// function cannot run as its host version (the pass drops `cpu`; docs/soundness.md).
pub const DEVICE_SPECIALISED: &str = "ompadapt.device_specialised";

/// The names of the support functions the pass calls in the code it builds in pass-only mode
/// (precompiled, as the generated code of the frontend calls them): begin, end, and a host
/// region's [`SUPPORT_ENTER_TEAM`].
pub const SUPPORT_BEGIN: &str = "__ompadapt_v6_begin";
/// See [`SUPPORT_BEGIN`].
pub const SUPPORT_END: &str = "__ompadapt_v6_end";
/// The precompiled form of [`RUNTIME_API`]: the table the host-run functions the pass defines
/// call through.
pub const SUPPORT_API: &str = "__ompadapt_v6_api";
/// Everything a host parallel region of pass-only mode runs before its fork, in one call:
/// `__ompadapt_v6_enter_team(region, spec, features, nfeatures, ctx, loc, program, ...)` — begin,
/// the team of the chosen variant from the region's table, and libomp's push of it (the lowering
/// header's `__ompadapt_enter_team`; features that change as doubles after `program` where
/// `features` is null).
pub const SUPPORT_ENTER_TEAM: &str = "__ompadapt_v6_enter_team";
/// [`SUPPORT_ENTER_TEAM`]'s `program` where the region has no `num_threads` clause: the team is
/// then a share of `omp_get_max_threads()`.
pub const NO_NUM_THREADS_CLAUSE: i32 = i32::MIN;
/// The weak pointer to the runtime the loader loads by default (see the lowering header).
pub const SUPPORT_DEFAULT_RUNTIME: &str = "__ompadapt_v6_default_runtime";

/// The runtime loader's symbol (`__ompadapt_api_load` of the lowering header), with the API
/// version in it so that objects of different ompadapt versions never share one. Where it is
/// precompiled (see [`PRECOMPILED_LOADER_ARCHES`]) the header only declares it and what the
/// generated code calls, and the pass adds the code.
pub const RUNTIME_LOADER: &str = "__ompadapt_v6_load_runtime";

/// The prefix of every symbol of the precompiled support code: the loader, its helpers, and the
/// begin, end and team-size functions the generated code calls where the loader is precompiled.
pub const SUPPORT_PREFIX: &str = "__ompadapt_v6_";

/// The host architectures (the triple's first component, on Linux) for which the loader is
/// compiled when ompadapt is built (pass/build.rs) and the pass adds it to modules as assembly.
pub const PRECOMPILED_LOADER_ARCHES: [&str; 2] = ["x86_64", "aarch64"];

/// Whether `triple`'s modules get the precompiled loader.
pub fn has_precompiled_loader(triple: &str) -> bool {
    let mut parts = triple.split('-');
    let arch = parts.next().unwrap_or_default();
    PRECOMPILED_LOADER_ARCHES.contains(&arch) && triple.contains("-linux")
}

impl Marker {
    /// The Itanium-mangled prefixes of the name in C++: `_ZL<length><name>` (a `static`
    /// function) and `_Z<length><name>`; the parameter types follow.
    pub fn mangled_prefixes(&self) -> [String; 2] {
        let n = self.name.len();
        [format!("_ZL{n}{}", self.name), format!("_Z{n}{}", self.name)]
    }

    /// Whether `symbol` is this function: its C name, or a C++ mangling of it (a mangled prefix
    /// followed by a non-empty list of parameter types).
    pub fn names(&self, symbol: &[u8]) -> bool {
        if symbol == self.name.as_bytes() {
            return true;
        }
        // `_ZL<length><name>` or `_Z<length><name>` and parameter types, read without building
        // the prefixes (the pass asks this of every call of a module)
        let Some(rest) = symbol.strip_prefix(b"_Z") else { return false };
        let rest = rest.strip_prefix(b"L").unwrap_or(rest);
        let digits = rest.iter().take_while(|c| c.is_ascii_digit()).count();
        let length = std::str::from_utf8(&rest[..digits]).ok().and_then(|d| d.parse::<usize>().ok());
        length == Some(self.name.len())
            && rest[digits..]
                .strip_prefix(self.name.as_bytes())
                .is_some_and(|types| !types.is_empty() && types.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_'))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mangled_forms_are_derived_from_the_name() {
        assert_eq!(AUTO_FEATURES.mangled_prefixes(), ["_ZL24__ompadapt_auto_features", "_Z24__ompadapt_auto_features"]);
        assert!(AUTO_FEATURES.names(b"__ompadapt_auto_features"));
        assert!(AUTO_FEATURES.names(b"_ZL24__ompadapt_auto_featuresPdiPPKcS1_S1_"));
        assert!(LAUNCH_SITE.names(b"_ZL22__ompadapt_launch_siteiiiPKc"));
        assert!(LAUNCH_SITE.names(b"_Z22__ompadapt_launch_siteiiiPKc"));
        // no parameter list, another length, a longer name, a suffix clang adds to a copy
        assert!(!LAUNCH_SITE.names(b"_ZL22__ompadapt_launch_site"));
        assert!(!LAUNCH_SITE.names(b"_ZL23__ompadapt_launch_siteiiiPKc"));
        assert!(!LAUNCH_SITE.names(b"__ompadapt_launch_site2"));
        assert!(!LAUNCH_SITE.names(b"_ZL22__ompadapt_launch_siteiiiPKc.1"));
    }

    #[test]
    fn the_precompiled_loader_is_for_linux_hosts_it_was_built_for() {
        assert!(has_precompiled_loader("x86_64-pc-linux-gnu"));
        assert!(has_precompiled_loader("x86_64-unknown-linux-gnu"));
        assert!(has_precompiled_loader("aarch64-unknown-linux-gnu"));
        assert!(!has_precompiled_loader("x86_64-apple-darwin"));
        assert!(!has_precompiled_loader("powerpc64le-unknown-linux-gnu"));
        assert!(!has_precompiled_loader("nvptx64-nvidia-cuda"));
        assert!(!has_precompiled_loader(""));
    }

    #[test]
    fn names_are_distinct_and_reserved() {
        for (i, a) in MARKERS.iter().enumerate() {
            assert!(a.name.starts_with("__ompadapt_"), "{}", a.name);
            assert!(!a.doc.is_empty());
            for b in &MARKERS[i + 1..] {
                assert_ne!(a.name, b.name);
                assert!(!a.names(b.name.as_bytes()) && !b.names(a.name.as_bytes()));
            }
        }
    }
}
