//! How the store on disk names things, shared by the runtime that writes it and the `ompadapt`
//! command that reads it: file-name forms of names, and a region named on the command line.

/// The file-name form of a program or region name: ASCII letters, digits, `_`, `-` and `.`
/// kept, anything else `_`; never empty, never hidden.
pub fn file_name(s: &str) -> String {
    let t: String = s.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') { c } else { '_' }).collect();
    if t.is_empty() || t.starts_with('.') {
        format!("_{t}")
    } else {
        t
    }
}

/// A region named on the command line: `REGION` or `PROGRAM/REGION`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegionPath<'a> {
    /// The program (its name or its store folder), when given.
    pub program: Option<&'a str>,
    /// The region's name (or its store folder).
    pub region: &'a str,
}

impl<'a> RegionPath<'a> {
    /// Splits `PROGRAM/REGION` at its first `/` when what precedes it can be a program (a name
    /// in [`file_name`] form); otherwise the whole text is the region, so generated names
    /// such as `kernel@./kernels.h:12` keep their path.
    pub fn parse(s: &'a str) -> RegionPath<'a> {
        match s.split_once('/') {
            Some((p, r)) if !p.is_empty() && !r.is_empty() && file_name(p) == p => RegionPath { program: Some(p), region: r },
            _ => RegionPath { program: None, region: s },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(file_name("saxpy"), "saxpy");
        assert_eq!(file_name("f@a.c:12"), "f_a.c_12");
        assert_eq!(file_name(".x"), "_.x");
        assert_eq!(file_name(""), "_");
    }

    #[test]
    fn region_paths() {
        let p = |s| RegionPath::parse(s);
        assert_eq!(p("saxpy/mm"), RegionPath { program: Some("saxpy"), region: "mm" });
        assert_eq!(p("saxpy-00ff/f@./k.h:3"), RegionPath { program: Some("saxpy-00ff"), region: "f@./k.h:3" });
        assert_eq!(p("mm"), RegionPath { program: None, region: "mm" });
        assert_eq!(p("kernel@./kernels.h:12"), RegionPath { program: None, region: "kernel@./kernels.h:12" });
        assert_eq!(p("ns::f@src/a.cpp:9"), RegionPath { program: None, region: "ns::f@src/a.cpp:9" });
        assert_eq!(p("/x"), RegionPath { program: None, region: "/x" });
    }
}
