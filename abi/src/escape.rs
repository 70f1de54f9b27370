//! Percent-encoding of the descriptor's names and source text: fields are separated by `;`,
//! list items by `,`, so those (and `%` itself, control characters, and white space at either
//! end, which the parser trims) are written `%XX`.

/// Encodes `s` for a descriptor field or list item.
pub fn escape(s: &str) -> String {
    let last = s.chars().count().saturating_sub(1);
    let mut out = String::with_capacity(s.len());
    for (i, ch) in s.chars().enumerate() {
        let edge_space = ch.is_whitespace() && (i == 0 || i == last);
        match ch {
            '%' | ';' | ',' => push_hex(&mut out, ch),
            c if (c as u32) < 0x20 || c == '\u{7f}' || edge_space => push_hex(&mut out, c),
            c => out.push(c),
        }
    }
    out
}

/// Encodes a whole descriptor nested in a field: also `=`, so that it stays one value.
pub fn escape_nested(s: &str) -> String {
    escape(s).replace('=', "%3D")
}

/// `%XX` for each UTF-8 byte of `c`.
fn push_hex(out: &mut String, c: char) {
    let mut buf = [0u8; 4];
    for b in c.encode_utf8(&mut buf).bytes() {
        out.push_str(&format!("%{b:02X}"));
    }
}

/// Undoes [`escape`]; a `%` not followed by two hex digits is kept as it is.
pub fn unescape(s: &str) -> String {
    if !s.contains('%') {
        return s.to_owned();
    }
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 3 <= b.len() {
            if let Some(v) = s.get(i + 1..i + 3).and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn separators_and_edges() {
        assert_eq!(escape("a;b%c\n"), "a%3Bb%25c%0A");
        assert_eq!(escape("f(a, b)"), "f(a%2C b)");
        assert_eq!(escape(" x "), "%20x%20");
        assert_eq!(escape("\u{200a}x"), "%E2%80%8Ax");
        assert_eq!(unescape("100%25%zz%2"), "100%%zz%2");
        assert_eq!(unescape(&escape(" a;b, c% ")), " a;b, c% ");
        assert_eq!(escape_nested("ompadapt1;model=p"), "ompadapt1%3Bmodel%3Dp");
    }
}
