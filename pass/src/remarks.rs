//! Optional remarks: what the pass decided and why, one stderr line each
//! (`ompadapt: remark: <file:line or function>: region '<model>': ...`), printed when the
//! environment has `OMPADAPT_REMARKS=1` or the plugin called [`set_remarks`] (through the
//! exported `ompadapt_pass_set_remarks`, for `-fplugin-arg-ompadapt-remarks`).

use std::sync::atomic::{AtomicU8, Ordering};

/// Prefix of every remark.
pub const REMARK_PREFIX: &str = "ompadapt: remark: ";

/// 0: follow the environment; 1: on; 2: off.
static REMARKS: AtomicU8 = AtomicU8::new(0);

pub fn set_remarks(on: bool) {
    REMARKS.store(if on { 1 } else { 2 }, Ordering::Relaxed);
}

pub fn remarks_enabled() -> bool {
    match REMARKS.load(Ordering::Relaxed) {
        1 => true,
        2 => false,
        _ => std::env::var("OMPADAPT_REMARKS").is_ok_and(|v| !v.is_empty() && v != "0"),
    }
}

/// `ompadapt: remark: <where>: region '<model>': <what>`.
pub fn remark(place: &str, model: &str, what: &str) -> String {
    format!("{REMARK_PREFIX}{place}: region '{model}': {what}")
}
