//! Lowering of an adaptation region into calls of the ompadapt runtime (runtime/include/
//! ompadapt.h). The generated code reaches the runtime through `__ompadapt_api()`, defined in
//! the header the plugin injects (plugin/include/ompadapt_lowering.h), which loads the runtime
//! on first use unless the program links it.
//!
//! Generated names carry the region's number in the translation unit, so that several regions
//! (also nested ones, also with the same model) can share a scope.

use crate::clauses::Clauses;
use crate::session::Piece;
use crate::token::{spell, Tok};
use crate::variants::{format_value, VariantSet};

/// Names of the generated variables of region `id`.
pub fn ctx_var(id: u32) -> String {
    format!("__ompadapt_c{id}")
}

/// Escapes text for a C string literal.
pub fn c_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The region descriptor string read by the runtime (format in ompadapt.h).
pub fn spec(model: &str, location: &str, features: &[String], variants: &VariantSet, model_type: &str) -> String {
    let clean = |s: &str| s.replace([';', ','], " ");
    let names: Vec<String> = variants.variants.iter().map(|v| clean(&v.name)).collect();
    let values: Vec<String> = variants.variants.iter().map(|v| format_value(v.value)).collect();
    format!(
        "ompadapt1;model={};loc={};features={};variants={};values={};numeric={};model_type={}",
        clean(model),
        clean(location),
        features.iter().map(|f| clean(f)).collect::<Vec<_>>().join(","),
        names.join(","),
        values.join(","),
        u8::from(variants.numeric),
        model_type
    )
}

/// Code for the start of region `id`: declare the context, call begin, store model_output.
pub fn begin_region(id: u32, toks: &[Tok], c: &Clauses, variants: &VariantSet, location: &str) -> Vec<Piece> {
    let model = &c.model_name.as_ref().expect("checked by the caller").0;
    let features: Vec<String> = c.features.iter().map(|r| spell(&toks[r.clone()])).collect();
    // no model_type clause: the runtime chooses its model by cross-validated regret
    let model_type = c.model_type.as_ref().map_or("auto", |m| m.kind.spec_name());
    let spec = spec(model, location, &features, variants, model_type);
    let (h, cv, f) = (format!("__ompadapt_h{id}"), ctx_var(id), format!("__ompadapt_f{id}"));
    let mut p = vec![Piece::Text(format!(
        "static void *{h}; ompadapt_ctx {cv}; {{ const double {f}[{}] = {{",
        c.features.len().max(1)
    ))];
    if c.features.is_empty() {
        p.push(Piece::Text("0".into()));
    }
    for (i, r) in c.features.iter().enumerate() {
        if i > 0 {
            p.push(Piece::Text(",".into()));
        }
        p.push(Piece::TextAt("(double)(".into(), r.start));
        p.push(Piece::User(r.clone()));
        p.push(Piece::TextAt(")".into(), r.start));
    }
    p.push(Piece::Text(format!("}}; __ompadapt_api()->begin(&{h}, {}, ", c_string(&spec))));
    let params = c.model_type.as_ref().map(|m| m.params.clone()).unwrap_or_default();
    for arg in [c.min_train.clone(), params.first().cloned(), params.get(1).cloned()] {
        match arg {
            Some(r) => {
                p.push(Piece::TextAt("(long)(".into(), r.start));
                p.push(Piece::User(r.clone()));
                p.push(Piece::TextAt("), ".into(), r.start));
            }
            None => p.push(Piece::Text("-1L, ".into())),
        }
    }
    p.push(Piece::Text(format!("{f}, {}, &{cv}); }}", c.features.len())));
    if let Some(out) = c.model_output {
        p.push(Piece::User(out..out + 1));
        p.push(Piece::TextAt(format!(" = {cv}.value;"), out));
    }
    p
}

pub fn end_region(id: u32) -> Piece {
    Piece::Text(format!("__ompadapt_api()->end(&{});", ctx_var(id)))
}

/// Marker before a target construct whose host variant the pass dispatches to (pass/).
pub fn offload_site(id: u32, cpu_index: usize, model: &str) -> Piece {
    Piece::Text(format!(
        "__ompadapt_offload_site({}.variant == {cpu_index}, {});",
        ctx_var(id),
        c_string(model)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variants::Variant;

    #[test]
    fn spec_format() {
        let vs = VariantSet {
            numeric: true,
            variants: vec![
                Variant { name: "0.5".into(), value: 0.5, tok: 0 },
                Variant { name: "1".into(), value: 1.0, tok: 0 },
            ],
        };
        assert_eq!(
            spec("m", "a.c:3", &["f(a,b)".into()], &vs, "rfc"),
            "ompadapt1;model=m;loc=a.c:3;features=f(a b);variants=0.5,1;values=0.5,1;numeric=1;model_type=rfc"
        );
    }

    #[test]
    fn c_strings_are_escaped() {
        assert_eq!(c_string("a\"b\\c"), "\"a\\\"b\\\\c\"");
    }
}
