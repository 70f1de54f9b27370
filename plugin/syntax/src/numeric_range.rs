//! Numeric ranges `[BEGIN:END:STEP]` (END inclusive, integer or floating point, constant
//! expressions), as `variants(...)` and the variant kinds (`thread_limit[64:256:64]`) write
//! them, and the limit on the number of variants they may expand to.

use crate::brackets::Brackets;
use crate::clauses::constant;
use crate::constant::Number;
use crate::diag::{Diagnostic, Diags};
use crate::limits::MAX_VARIANTS;
use crate::token::Tok;
use std::ops::Range;

/// How the descriptor writes a number (a variant's name when it is a value).
pub use ompadapt_abi::descriptor::format_number as format_value;

/// Rounds away the binary noise of `BEGIN + i*STEP` (0.30000000000000004 -> 0.3).
pub fn tidy(v: f64) -> f64 {
    format!("{v:.12e}").parse().unwrap_or(v)
}

/// "N variants, at most MAX_VARIANTS are supported" at `r`.
pub fn too_many(r: Range<usize>, count: f64, diags: &mut Diags) {
    diags.push(Diagnostic::error(
        r.start,
        r.end,
        format!(
            "this gives {} variants; a region has at most {MAX_VARIANTS} (the runtime's limit)",
            if count < 1e15 { format!("{}", count as u64) } else { "too many".to_string() }
        ),
    ));
}

/// `[BEGIN:END:STEP]`, END inclusive; at most `room` values.
pub fn parse_range(toks: &[Tok], item: Range<usize>, brackets: &Brackets, room: usize, diags: &mut Diags) -> Option<Vec<f64>> {
    let close = item.end - 1;
    // Split the inside at ':' tokens outside nested brackets.
    let parts = brackets.split_top_level(toks, item.start + 1..close, ":");
    if parts.len() != 3 {
        diags.push(Diagnostic::error(item.start, item.end, "a range is written [BEGIN:END:STEP]"));
        return None;
    }
    let mut nums: Vec<Number> = Vec::new();
    for (p, what) in parts.iter().zip(["range BEGIN", "range END", "range STEP"]) {
        nums.push(constant(toks, p.clone(), brackets, what, diags)?);
    }
    let (begin, end, step) = (nums[0], nums[1], nums[2]);
    if step.value <= 0.0 {
        let p = parts[2].clone();
        diags.push(Diagnostic::error(p.start, p.end, "range STEP must be positive"));
        return None;
    }
    if end.value < begin.value {
        diags.push(Diagnostic::error(item.start, item.end, "range END is smaller than BEGIN: the range is empty"));
        return None;
    }
    let float = begin.is_float || end.is_float || step.is_float;
    let slack = if float { 1e-9 } else { 0.0 };
    let count = ((end.value - begin.value) / step.value + slack).floor() + 1.0;
    // NaN cannot occur (finite operands, positive step); `>` also catches infinity.
    if count > room as f64 {
        too_many(item, count, diags);
        return None;
    }
    Some((0..count as u64).map(|i| tidy(begin.value + i as f64 * step.value)).collect())
}
