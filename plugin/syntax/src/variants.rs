//! The `variants(...)` clause: categorical identifiers, or numbers and `[BEGIN:END:STEP]`
//! ranges (END inclusive, integer or floating point), expanded at compile time so that the
//! host and every device compilation agree on the variant list.

use crate::diag::{Diagnostic, Diags};
use crate::token::{Tok, TokKind};
use std::ops::Range;

#[derive(Clone, Debug, PartialEq)]
pub struct Variant {
    /// Name used in selectors, reports and the region descriptor (`cpu`, `64`, `0.3`).
    pub name: String,
    /// Value stored into `model_output`: the number itself, or the index if categorical.
    pub value: f64,
    /// Token that introduced the variant (for diagnostics).
    pub tok: usize,
}

#[derive(Clone, Debug, PartialEq)]
pub struct VariantSet {
    pub numeric: bool,
    pub variants: Vec<Variant>,
}

impl VariantSet {
    pub fn index_of_name(&self, name: &str) -> Option<usize> {
        self.variants.iter().position(|v| v.name == name)
    }
    pub fn index_of_value(&self, value: f64) -> Option<usize> {
        let tol = 1e-9 * value.abs().max(1.0);
        self.variants.iter().position(|v| (v.value - value).abs() <= tol)
    }
    pub fn names(&self) -> Vec<&str> {
        self.variants.iter().map(|v| v.name.as_str()).collect()
    }
}

/// A parsed C numeric literal.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Number {
    pub value: f64,
    pub is_float: bool,
}

/// Parses a C numeric literal: decimal, hexadecimal, octal, floating, with u/l/f suffixes.
pub fn parse_number(text: &str) -> Option<Number> {
    let t = text.replace('\'', "");
    let lower = t.to_ascii_lowercase();
    if let Some(hex) = lower.strip_prefix("0x") {
        let digits = hex.trim_end_matches(['u', 'l']);
        return u64::from_str_radix(digits, 16).ok().map(|v| Number { value: v as f64, is_float: false });
    }
    let is_float = lower.contains('.') || lower.contains('e');
    if is_float {
        let digits = lower.trim_end_matches(['f', 'l']);
        return digits.parse::<f64>().ok().map(|value| Number { value, is_float: true });
    }
    let digits = lower.trim_end_matches(['u', 'l']);
    let v = if digits.len() > 1 && digits.starts_with('0') {
        u64::from_str_radix(&digits[1..], 8).ok()?
    } else {
        digits.parse::<u64>().ok()?
    };
    Some(Number { value: v as f64, is_float: false })
}

/// Rounds away the binary noise of `BEGIN + i*STEP` (0.30000000000000004 -> 0.3).
fn tidy(v: f64) -> f64 {
    format!("{:.12e}", v).parse().unwrap_or(v)
}

pub fn format_value(v: f64) -> String {
    if v == v.trunc() && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{}", v)
    }
}

/// Splits `toks[range]` at commas that are not nested in (), [] or {}.
pub fn split_top_level(toks: &[Tok], range: Range<usize>) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = range.start;
    for i in range.clone() {
        let t = &toks[i];
        if t.kind == TokKind::Punct {
            match t.text.as_str() {
                "(" | "[" | "{" => depth += 1,
                ")" | "]" | "}" => depth -= 1,
                "," if depth == 0 => {
                    out.push(start..i);
                    start = i + 1;
                }
                _ => {}
            }
        }
    }
    out.push(start..range.end);
    out
}

/// Reads an optionally signed numeric literal at `toks[r]`; the range must be exactly that.
fn signed_number(toks: &[Tok], r: Range<usize>) -> Option<Number> {
    let (neg, i) = match toks.get(r.start) {
        Some(t) if t.is_punct("-") => (true, r.start + 1),
        Some(t) if t.is_punct("+") => (false, r.start + 1),
        _ => (false, r.start),
    };
    if i + 1 != r.end || toks[i].kind != TokKind::Number {
        return None;
    }
    let n = parse_number(&toks[i].text)?;
    Some(Number { value: if neg { -n.value } else { n.value }, ..n })
}

/// Parses the arguments of `variants(...)`: `clause` is the index of the `variants` token,
/// `args` the tokens between the parentheses.
pub fn parse_variants(toks: &[Tok], clause: usize, args: Range<usize>, diags: &mut Diags) -> Option<VariantSet> {
    if args.is_empty() {
        diags.push(Diagnostic::error(clause, args.end + 1, "'variants' clause needs at least one variant"));
        return None;
    }
    let mut out: Vec<Variant> = Vec::new();
    let mut categorical_at: Option<usize> = None;
    let mut numeric_at: Option<usize> = None;
    let mut ok = true;
    for item in split_top_level(toks, args.clone()) {
        if item.is_empty() {
            diags.push(Diagnostic::error(item.start, item.start, "expected a variant"));
            ok = false;
            continue;
        }
        let first = &toks[item.start];
        if first.is_punct("[") {
            numeric_at.get_or_insert(item.start);
            match parse_range(toks, item.clone(), diags) {
                Some(vals) => out.extend(vals.into_iter().map(|v| Variant {
                    name: format_value(v),
                    value: v,
                    tok: item.start,
                })),
                None => ok = false,
            }
        } else if first.kind == TokKind::Ident && item.len() == 1 {
            categorical_at.get_or_insert(item.start);
            let value = out.len() as f64;
            out.push(Variant { name: first.text.clone(), value, tok: item.start });
        } else if let Some(n) = signed_number(toks, item.clone()) {
            numeric_at.get_or_insert(item.start);
            out.push(Variant { name: format_value(n.value), value: n.value, tok: item.start });
        } else {
            diags.push(Diagnostic::error(
                item.start,
                item.end,
                "a variant is an identifier, a numeric constant or a range [BEGIN:END:STEP]",
            ));
            ok = false;
        }
    }
    if let (Some(c), Some(n)) = (categorical_at, numeric_at) {
        let at = c.max(n);
        diags.push(Diagnostic::error(at, at + 1, "variants cannot mix identifiers and numbers"));
        return None;
    }
    for (i, v) in out.iter().enumerate() {
        if let Some(prev) = out[..i].iter().find(|p| p.name == v.name) {
            diags.push(Diagnostic::error(v.tok, v.tok + 1, format!("duplicate variant '{}'", v.name)));
            if prev.tok != v.tok {
                diags.push(Diagnostic::note(prev.tok, prev.tok + 1, "first listed here"));
            }
            ok = false;
            break;
        }
    }
    if !ok {
        return None;
    }
    if out.is_empty() {
        diags.push(Diagnostic::error(clause, args.end + 1, "'variants' clause needs at least one variant"));
        return None;
    }
    let numeric = numeric_at.is_some();
    if numeric {
        for (i, v) in out.iter_mut().enumerate() {
            let _ = i;
            v.value = tidy(v.value);
        }
    }
    Some(VariantSet { numeric, variants: out })
}

/// `[BEGIN:END:STEP]`, END inclusive.
fn parse_range(toks: &[Tok], item: Range<usize>, diags: &mut Diags) -> Option<Vec<f64>> {
    let close = item.end - 1;
    if !toks[close].is_punct("]") {
        diags.push(Diagnostic::error(item.start, item.end, "expected ']' to close the range [BEGIN:END:STEP]"));
        return None;
    }
    // Split the inside at ':' tokens.
    let mut parts = Vec::new();
    let mut s = item.start + 1;
    for i in item.start + 1..close {
        if toks[i].is_punct(":") {
            parts.push(s..i);
            s = i + 1;
        }
    }
    parts.push(s..close);
    if parts.len() != 3 {
        diags.push(Diagnostic::error(item.start, item.end, "a range is written [BEGIN:END:STEP]"));
        return None;
    }
    let mut nums = Vec::new();
    for (p, what) in parts.iter().zip(["BEGIN", "END", "STEP"]) {
        match signed_number(toks, p.clone()) {
            Some(n) => nums.push(n),
            None => {
                let at = if p.is_empty() { p.start } else { p.start };
                diags.push(Diagnostic::error(
                    at,
                    p.end.max(at + 1),
                    format!("range {what} must be a numeric constant"),
                ));
                return None;
            }
        }
    }
    let (b, e, st) = (nums[0], nums[1], nums[2]);
    if st.value <= 0.0 {
        let p = parts[2].clone();
        diags.push(Diagnostic::error(p.start, p.end, "range STEP must be positive"));
        return None;
    }
    if e.value < b.value {
        diags.push(Diagnostic::error(item.start, item.end, "range END is smaller than BEGIN: the range is empty"));
        return None;
    }
    let float = b.is_float || e.is_float || st.is_float;
    let count = if float {
        ((e.value - b.value) / st.value + 1e-9).floor() as u64 + 1
    } else {
        ((e.value - b.value) / st.value).floor() as u64 + 1
    };
    const MAX_VARIANTS: u64 = 4096;
    if count > MAX_VARIANTS {
        diags.push(Diagnostic::error(
            item.start,
            item.end,
            format!("range has {count} variants; at most {MAX_VARIANTS} are supported"),
        ));
        return None;
    }
    Some((0..count).map(|i| tidy(b.value + i as f64 * st.value)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::token::lex;

    fn variants(src: &str) -> (Option<VariantSet>, Diags) {
        let toks = lex(src);
        let mut d = Vec::new();
        let v = parse_variants(&toks, 0, 0..toks.len(), &mut d);
        (v, d)
    }

    #[test]
    fn integer_range_is_inclusive() {
        let (v, d) = variants("[10:20:2]");
        assert!(d.is_empty());
        let v = v.unwrap();
        assert!(v.numeric);
        assert_eq!(v.names(), vec!["10", "12", "14", "16", "18", "20"]);
        let (v, _) = variants("[64:1024:64]");
        assert_eq!(v.unwrap().variants.len(), 16);
    }

    #[test]
    fn float_range_has_clean_values() {
        let (v, d) = variants("[0.0:1.0:0.1]");
        assert!(d.is_empty(), "{d:?}");
        let v = v.unwrap();
        assert_eq!(v.variants.len(), 11);
        assert_eq!(v.variants[3].value, 0.3);
        assert_eq!(v.variants[3].name, "0.3");
        assert_eq!(v.variants[10].value, 1.0);
    }

    #[test]
    fn categorical_values_are_indices() {
        let (v, _) = variants("cpu, gpu");
        let v = v.unwrap();
        assert!(!v.numeric);
        assert_eq!(v.variants[1].value, 1.0);
        assert_eq!(v.index_of_name("gpu"), Some(1));
    }

    #[test]
    fn numbers_ranges_and_signs_mix() {
        let (v, d) = variants("-1, 4, [8:16:8]");
        assert!(d.is_empty());
        assert_eq!(v.unwrap().names(), vec!["-1", "4", "8", "16"]);
    }

    #[test]
    fn errors() {
        for (src, msg) in [
            ("[0:N:1]", "range END must be a numeric constant"),
            ("[0:8:0]", "range STEP must be positive"),
            ("[0:8:-2]", "range STEP must be positive"),
            ("[8:0:1]", "range END is smaller than BEGIN: the range is empty"),
            ("[0:8]", "a range is written [BEGIN:END:STEP]"),
            ("cpu, 4", "variants cannot mix identifiers and numbers"),
            ("cpu, cpu", "duplicate variant 'cpu'"),
            ("a+b", "a variant is an identifier, a numeric constant or a range [BEGIN:END:STEP]"),
        ] {
            let (v, d) = variants(src);
            assert!(v.is_none(), "{src}");
            assert_eq!(d[0].message, msg, "{src}");
        }
    }

    #[test]
    fn number_literals() {
        assert_eq!(parse_number("0x40").unwrap().value, 64.0);
        assert_eq!(parse_number("010").unwrap().value, 8.0);
        assert_eq!(parse_number("1e3").unwrap(), Number { value: 1000.0, is_float: true });
        assert_eq!(parse_number("2.5f").unwrap().value, 2.5);
        assert_eq!(parse_number("64u").unwrap().value, 64.0);
    }
}
