//! Compile-time numbers: C numeric literals, and constant arithmetic over them (`+ - * / %`,
//! unary signs, parentheses). Directive arguments that the host and every device compilation
//! must agree on (variant ranges, feature ranges, sample counts) are evaluated here; macros
//! have already been expanded by Clang, so `[WARP:MAXT:WARP]` works.

use crate::brackets::Brackets;
use crate::token::{Tok, TokKind};
use std::ops::Range;

/// A parsed C numeric literal or constant expression.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Number {
    /// The value (integers too are held as an f64).
    pub value: f64,
    /// A floating literal, or computed from one: `/` then divides without truncating and `%` is
    /// refused, as in C.
    pub is_float: bool,
}

/// Parses a C numeric literal: decimal, hexadecimal, octal, binary, floating (also hex
/// floats), digit separators, u/l/f suffixes.
pub fn parse_number(text: &str) -> Option<Number> {
    let t = text.replace('\'', "");
    let lower = t.to_ascii_lowercase();
    if let Some(hex) = lower.strip_prefix("0x") {
        if hex.contains('.') || hex.contains('p') {
            return parse_hex_float(hex);
        }
        let digits = hex.trim_end_matches(['u', 'l', 'z']);
        return u64::from_str_radix(digits, 16).ok().map(|v| Number { value: v as f64, is_float: false });
    }
    if let Some(bin) = lower.strip_prefix("0b") {
        let digits = bin.trim_end_matches(['u', 'l', 'z']);
        return u64::from_str_radix(digits, 2).ok().map(|v| Number { value: v as f64, is_float: false });
    }
    let is_float = lower.contains('.') || lower.contains('e');
    if is_float {
        let digits = lower.trim_end_matches(['f', 'l']);
        let digits = digits.strip_suffix("f16").unwrap_or(digits);
        return digits.parse::<f64>().ok().filter(|v| v.is_finite()).map(|value| Number { value, is_float: true });
    }
    let digits = lower.trim_end_matches(['u', 'l', 'z']);
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let v = if digits.len() > 1 && digits.starts_with('0') {
        u64::from_str_radix(&digits[1..], 8).ok()?
    } else {
        digits.parse::<u64>().ok()?
    };
    Some(Number { value: v as f64, is_float: false })
}

fn parse_hex_float(hex: &str) -> Option<Number> {
    let body = hex.trim_end_matches(['f', 'l']);
    let (mantissa, exp) = body.split_once('p')?;
    let exp: i32 = exp.parse().ok()?;
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let mut v = 0f64;
    for c in int.chars() {
        v = v * 16.0 + f64::from(c.to_digit(16)?);
    }
    let mut scale = 1.0 / 16.0;
    for c in frac.chars() {
        v += f64::from(c.to_digit(16)?) * scale;
        scale /= 16.0;
    }
    let value = v * 2f64.powi(exp);
    value.is_finite().then_some(Number { value, is_float: true })
}

/// The reason given when a token cannot start or continue a constant.
pub const EXPECTED: &str = "expected a numeric constant";

/// Why a range of tokens is not a constant: the offending token and a message.
#[derive(Clone, Debug, PartialEq)]
pub struct NotConstant {
    /// Index of the offending token.
    pub tok: usize,
    /// What is wrong there, for the diagnostic.
    pub message: String,
}

/// Evaluates `toks[r]` as a constant arithmetic expression. `brackets` must come from the same
/// tokens (it bounds the recursion: nesting is at most `MAX_NESTING`).
pub fn evaluate(toks: &[Tok], r: Range<usize>, brackets: &Brackets) -> Result<Number, NotConstant> {
    if r.is_empty() {
        return Err(NotConstant { tok: r.start, message: "expected a constant".into() });
    }
    let mut e = Eval { toks, pos: r.start, end: r.end, brackets };
    let n = e.sum()?;
    if e.pos != e.end {
        return Err(NotConstant { tok: e.pos, message: EXPECTED.into() });
    }
    Ok(n)
}

struct Eval<'a> {
    toks: &'a [Tok],
    pos: usize,
    end: usize,
    brackets: &'a Brackets,
}

impl Eval<'_> {
    fn peek_punct(&self) -> Option<&str> {
        (self.pos < self.end && self.toks[self.pos].kind == TokKind::Punct).then(|| self.toks[self.pos].text.as_str())
    }

    fn sum(&mut self) -> Result<Number, NotConstant> {
        let mut a = self.product()?;
        while let Some(op @ ("+" | "-")) = self.peek_punct() {
            let op = op.to_string();
            self.pos += 1;
            let b = self.product()?;
            a = Number { value: if op == "+" { a.value + b.value } else { a.value - b.value }, is_float: a.is_float || b.is_float };
        }
        finite(a, self.pos)
    }

    fn product(&mut self) -> Result<Number, NotConstant> {
        let mut a = self.unary()?;
        while let Some(op @ ("*" | "/" | "%")) = self.peek_punct() {
            let op = op.to_string();
            let at = self.pos;
            self.pos += 1;
            let b = self.unary()?;
            let is_float = a.is_float || b.is_float;
            let value = match op.as_str() {
                "*" => a.value * b.value,
                _ if b.value == 0.0 => return Err(NotConstant { tok: at, message: "division by zero".into() }),
                "/" if is_float => a.value / b.value,
                "/" => (a.value / b.value).trunc(),
                _ if is_float => {
                    return Err(NotConstant { tok: at, message: "'%' needs integer operands".into() });
                }
                _ => a.value % b.value,
            };
            a = Number { value, is_float };
        }
        finite(a, self.pos)
    }

    fn unary(&mut self) -> Result<Number, NotConstant> {
        // Signs are folded iteratively: `- - - 1` needs no recursion.
        let mut negate = false;
        while let Some(op @ ("+" | "-")) = self.peek_punct() {
            negate ^= op == "-";
            self.pos += 1;
        }
        let n = self.primary()?;
        Ok(Number { value: if negate { -n.value } else { n.value }, ..n })
    }

    fn primary(&mut self) -> Result<Number, NotConstant> {
        let at = self.pos;
        if at >= self.end {
            return Err(NotConstant { tok: at, message: EXPECTED.into() });
        }
        let t = &self.toks[at];
        if t.is_punct("(") {
            let close = self.brackets.close_of(at).filter(|&c| c < self.end);
            let Some(close) = close else {
                return Err(NotConstant { tok: at, message: "expected ')'".into() });
            };
            let inner_end = std::mem::replace(&mut self.end, close);
            self.pos = at + 1;
            let n = self.sum()?;
            if self.pos != close {
                return Err(NotConstant { tok: self.pos, message: "expected ')'".into() });
            }
            self.end = inner_end;
            self.pos = close + 1;
            return Ok(n);
        }
        if t.kind == TokKind::Number {
            self.pos += 1;
            return parse_number(&t.text).ok_or_else(|| NotConstant { tok: at, message: format!("'{}' is not a valid number", t.text) });
        }
        Err(NotConstant { tok: at, message: EXPECTED.into() })
    }
}

fn finite(n: Number, at: usize) -> Result<Number, NotConstant> {
    if n.value.is_finite() {
        Ok(n)
    } else {
        Err(NotConstant { tok: at.saturating_sub(1), message: "constant out of range".into() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::token::lex;

    fn eval(src: &str) -> Result<Number, NotConstant> {
        let t = lex(src);
        let b = Brackets::new(&t, &mut Vec::new()).unwrap();
        evaluate(&t, 0..t.len(), &b)
    }

    #[test]
    fn literals() {
        assert_eq!(parse_number("0x40").unwrap().value, 64.0);
        assert_eq!(parse_number("010").unwrap().value, 8.0);
        assert_eq!(parse_number("0b101").unwrap().value, 5.0);
        assert_eq!(parse_number("1e3").unwrap(), Number { value: 1000.0, is_float: true });
        assert_eq!(parse_number("2.5f").unwrap().value, 2.5);
        assert_eq!(parse_number("64u").unwrap().value, 64.0);
        assert_eq!(parse_number("1'000").unwrap().value, 1000.0);
        assert_eq!(parse_number("0x1p4").unwrap().value, 16.0);
        assert!(parse_number("09").is_none());
        assert!(parse_number("1e999").is_none());
        assert!(parse_number("12abc").is_none());
    }

    #[test]
    fn arithmetic() {
        assert_eq!(eval("32*32").unwrap().value, 1024.0);
        assert_eq!(eval("-(4 + 4) / 3").unwrap(), Number { value: -2.0, is_float: false });
        assert_eq!(eval("1 / 4.0").unwrap(), Number { value: 0.25, is_float: true });
        assert_eq!(eval("- - -1").unwrap().value, -1.0);
        assert_eq!(eval("7 % 4").unwrap().value, 3.0);
        assert_eq!(eval("1/0").unwrap_err().message, "division by zero");
        assert_eq!(eval("n+1").unwrap_err().tok, 0);
        assert_eq!(eval("1 2").unwrap_err().tok, 1);
        assert!(eval("1e300*1e300").is_err());
    }
}
