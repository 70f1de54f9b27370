//! Pass-only mode: which kinds the pass gives the OpenMP regions of a module that the frontend
//! plugin did not see.
//!
//! The pass makes regions adaptive on its own wherever the ompadapt frontend did not compile the
//! translation unit (`clang-19 -fpass-plugin=libompadapt_pass.so`, `flang-new-19
//! -fpass-plugin=...`, `opt-19 -passes=ompadapt`). Where the frontend did, it left
//! [`FRONTEND_MARK`] in the module: its own lowering (explicit directives, and with
//! `-fplugin-arg-ompadapt-auto` every region) is what the user asked for, and the pass only
//! finishes it.
//!
//! The kinds, in order of precedence:
//! 1. the pass parameter: `opt -passes='ompadapt<auto=serial;threads[0.5:1:0.5]>'` (kinds
//!    separated by `;`: LLVM's pipeline text splits passes at commas), or `ompadapt<no-auto>`;
//! 2. the environment variable `OMPADAPT_AUTO`, read when the pass runs (at compile time, and at
//!    link time under LTO): a list of kinds, `default`, or `off`;
//! 3. `default`: [`ompadapt_abi::kinds::DEFAULT_HOST_KINDS`] for host parallel regions,
//!    [`ompadapt_abi::kinds::DEFAULT_TARGET_KINDS`] for offload launches.
//!
//! The kinds that set a host region's team (`serial`, `threads[...]`, `num_threads[...]`) apply
//! to a `__kmpc_fork_call`; `cpu`, `gpu`, `thread_limit[...]`, `num_teams[...]` to a
//! `__tgt_target_kernel` launch with a host fallback; the others (schedules, `coschedule`) are
//! said once in a remark.

use ompadapt_abi::kinds::{self, Kind};

/// The global the frontend plugin defines in every host translation unit it compiles (its value:
/// 1 with `-fplugin-arg-ompadapt-auto`, else 0); the pass reads and deletes it.
pub const FRONTEND_MARK: &str = ompadapt_abi::markers::FRONTEND_MARK;

/// The environment variable read when no pass parameter says.
pub const ENV: &str = "OMPADAPT_AUTO";

/// What pass-only mode applies.
#[derive(Clone, Debug, PartialEq)]
pub struct AutoKinds {
    /// The kinds of a host parallel region (those that set its team).
    pub host: Vec<Kind>,
    /// The kinds of an offload launch (`cpu`, `gpu`, `thread_limit`, `num_teams`); empty: launches
    /// stay as written. Always with `gpu` (the offload as written, what runs without a runtime).
    pub target: Vec<Kind>,
    /// The kinds of the list that no region of this mode takes (said in a remark).
    pub unused: Vec<Kind>,
}

/// Parses `auto=` text (a list, `default`, `off`); `Ok(None)`: off.
pub fn parse(text: &str) -> Result<Option<AutoKinds>, String> {
    let text = text.trim();
    if matches!(text, "off" | "0" | "none" | "no") {
        return Ok(None);
    }
    let list = if text.is_empty() { "default" } else { text };
    let all = kinds::parse_list(list)?;
    let (host, rest): (Vec<Kind>, Vec<Kind>) = all.into_iter().partition(Kind::sets_team_size);
    let (mut target, unused): (Vec<Kind>, Vec<Kind>) = rest.into_iter().partition(Kind::applies_to_ir);
    if !target.is_empty() && !target.contains(&Kind::Gpu) {
        // the offload as written: what runs before the runtime decides, and without one
        target.insert(0, Kind::Gpu);
    }
    if host.is_empty() && target.is_empty() {
        return Err(format!(
            "'{text}' has no kind pass-only mode applies: serial, threads[B:E:S], num_threads[B:E:S] (host parallel regions), cpu, gpu, thread_limit[B:E:S], num_teams[B:E:S] (offload launches)"
        ));
    }
    Ok(Some(AutoKinds { host, target, unused }))
}

/// What the pass parameter of `ompadapt<...>` says: `auto=LIST` or `no-auto`; `Ok(None)` for no
/// parameter.
pub fn parse_parameter(params: &str) -> Result<Option<String>, String> {
    let params = params.trim();
    if params.is_empty() {
        return Ok(None);
    }
    if params == "no-auto" {
        return Ok(Some("off".into()));
    }
    // LLVM's pipeline text splits passes at commas, so the list separates kinds with ';' there.
    match params.strip_prefix("auto=") {
        Some(list) => {
            let list = list.replace(';', ",");
            parse(&list).map(|_| Some(list))
        }
        None => Err(format!("unknown parameter '{params}' of pass 'ompadapt': it takes auto=<kinds> or no-auto")),
    }
}

/// The kinds to apply: from `parameter` (the pass parameter's list), else [`ENV`], else the
/// default; `Err` says why an environment variable's value is not used.
pub fn resolve(parameter: Option<&str>) -> Result<Option<AutoKinds>, String> {
    if let Some(p) = parameter {
        return parse(p);
    }
    match std::env::var(ENV) {
        Ok(v) => parse(&v).map_err(|why| format!("{ENV}='{v}': {why}; no region was made adaptive in pass-only mode")),
        Err(_) => parse("default"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_the_host_kinds() {
        let k = parse("default").unwrap().unwrap();
        assert_eq!(k.host.len(), 5);
        assert_eq!(k.target, vec![Kind::Cpu, Kind::Gpu]);
        assert!(k.unused.is_empty());
        assert_eq!(parse("").unwrap().unwrap().host.len(), 5);
        assert_eq!(parse("off").unwrap(), None);
    }

    #[test]
    fn lists_keep_the_team_kinds() {
        let k = parse("serial,num_threads[1:2:1],schedule(dynamic)").unwrap().unwrap();
        assert_eq!(k.host, vec![Kind::Serial, Kind::NumThreads(1), Kind::NumThreads(2)]);
        assert!(k.target.is_empty());
        assert_eq!(k.unused, vec![Kind::Schedule(2, 0)]);
        let t = parse("cpu,thread_limit[64:128:64],coschedule[0.5:0.5:1]").unwrap().unwrap();
        assert_eq!(t.target, vec![Kind::Gpu, Kind::Cpu, Kind::ThreadLimit(64), Kind::ThreadLimit(128)]);
        assert_eq!(t.unused, vec![Kind::Coschedule(0.5)]);
        assert!(parse("schedule(static)").unwrap_err().contains("no kind pass-only mode applies"));
        assert!(parse("serail").unwrap_err().contains("did you mean 'serial'"));
    }

    #[test]
    fn parameters() {
        assert_eq!(parse_parameter("").unwrap(), None);
        assert_eq!(parse_parameter("no-auto").unwrap().as_deref(), Some("off"));
        assert_eq!(parse_parameter("auto=serial").unwrap().as_deref(), Some("serial"));
        assert_eq!(parse_parameter("auto=serial;threads[0.5:1:0.5]").unwrap().as_deref(), Some("serial,threads[0.5:1:0.5]"));
        assert!(parse_parameter("auto=bogus").is_err());
        assert!(parse_parameter("fast").unwrap_err().contains("auto=<kinds>"));
    }
}
