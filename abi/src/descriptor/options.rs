//! The runtime's options a descriptor may carry (`explore=`, `repeats=`, `coarse=`), typed.
//!
//! A value the runtime cannot use is no malformed descriptor: the runtime warns once and ignores
//! it (a newer writer's spelling, a typo in a hand-written descriptor). So each option is a
//! [`Setting`]: the text as written, which prints back unchanged, and what it reads as.

use std::fmt;

/// An option as written and what it reads as: the value, or why it is none.
#[derive(Clone, Debug, PartialEq)]
pub struct Setting<T> {
    /// The text after `key=`, unescaped (printed back as it is).
    pub written: String,
    /// The value, or why the text names none (the runtime's warning says it).
    pub value: Result<T, String>,
}

/// A value an option takes: its spelling in a descriptor, and how its text reads.
pub trait OptionValue: Sized {
    /// Reads the text after `key=`; Err says why it is no value of this option.
    fn read(text: &str) -> Result<Self, String>;
    /// The spelling [`Setting::of`] writes.
    fn spelling(&self) -> String;
}

impl<T: OptionValue> Setting<T> {
    /// The option as a descriptor's text gives it.
    pub fn read(written: String) -> Setting<T> {
        let value = T::read(&written);
        Setting { written, value }
    }

    /// The option set to `value`, in its usual spelling.
    pub fn of(value: T) -> Setting<T> {
        Setting { written: value.spelling(), value: Ok(value) }
    }
}

impl<T> fmt::Display for Setting<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.written)
    }
}

/// `explore=`: how an exploring execution picks among the variants still wanted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Explore {
    /// `roundrobin`: the wanted variants in turn (Apollo's order).
    RoundRobin,
    /// `random`: a uniformly random wanted variant.
    Random,
    /// `elimination`: successive elimination of clearly slower variants.
    Elimination,
}

impl Explore {
    /// Parses `roundrobin`, `random` or `elimination` (and a few spellings of each).
    pub fn parse(s: &str) -> Result<Explore, String> {
        match s.trim().to_ascii_lowercase().replace(['-', '_'], "").as_str() {
            "roundrobin" | "rr" => Ok(Explore::RoundRobin),
            "random" => Ok(Explore::Random),
            "elimination" | "successiveelimination" | "se" => Ok(Explore::Elimination),
            _ => Err(format!("unknown exploration strategy '{s}' (expected roundrobin, random or elimination)")),
        }
    }

    /// The spelling used in descriptors, reports and files.
    pub fn name(self) -> &'static str {
        match self {
            Explore::RoundRobin => "roundrobin",
            Explore::Random => "random",
            Explore::Elimination => "elimination",
        }
    }
}

impl OptionValue for Explore {
    fn read(text: &str) -> Result<Explore, String> {
        Explore::parse(text)
    }
    fn spelling(&self) -> String {
        self.name().to_owned()
    }
}

/// `repeats=`: measurements per (feature vector, variant) pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Repeats {
    /// `auto`: adaptive repetition (measure again while the times leave the choice in doubt).
    Adaptive,
    /// A fixed positive count, as written (the runtime caps it).
    Count(u32),
}

impl OptionValue for Repeats {
    fn read(text: &str) -> Result<Repeats, String> {
        match text.parse::<u32>() {
            Ok(n) if n >= 1 => Ok(Repeats::Count(n)),
            _ if text.eq_ignore_ascii_case("auto") => Ok(Repeats::Adaptive),
            _ => Err("not auto or a positive integer".into()),
        }
    }
    fn spelling(&self) -> String {
        match self {
            Repeats::Adaptive => "auto".into(),
            Repeats::Count(n) => n.to_string(),
        }
    }
}

/// `coarse=`: `1`, one variant per feature vector for a whole run; `0`, not.
impl OptionValue for bool {
    fn read(text: &str) -> Result<bool, String> {
        match text {
            "1" => Ok(true),
            "0" => Ok(false),
            _ => Err("expected 0 or 1".into()),
        }
    }
    fn spelling(&self) -> String {
        u8::from(*self).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_read_as_the_runtime_reads_them() {
        assert_eq!(Setting::<Explore>::read("Round-Robin".into()).value, Ok(Explore::RoundRobin));
        assert!(Setting::<Explore>::read("greedy".into()).value.unwrap_err().contains("'greedy'"));
        assert_eq!(Setting::<Repeats>::read("AUTO".into()).value, Ok(Repeats::Adaptive));
        assert_eq!(Setting::<Repeats>::read("300".into()).value, Ok(Repeats::Count(300)));
        assert!(Setting::<Repeats>::read("0".into()).value.is_err());
        assert_eq!(Setting::<bool>::read("1".into()).value, Ok(true));
        assert!(Setting::<bool>::read("yes".into()).value.is_err());
        let s = Setting::of(Explore::Elimination);
        assert_eq!((s.to_string().as_str(), Setting::<Explore>::read(s.written.clone())), ("elimination", s));
    }
}
