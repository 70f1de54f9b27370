//! What flang-19's runtime functions (`_FortranA*`, libflang_rt) do with memory, from their
//! declarations in flang's runtime headers (`flang/Runtime/*.h`): flang declares them without
//! attributes, so LLVM knows nothing of them and they would count as code the compiler cannot
//! see. [`super::library::effects`] consults this table first.
//!
//! - [`Effect::Value`]: returns a value computed from its scalar arguments and the memory they
//!   point at (a source file's name for error messages), writes nothing (numeric.h: MOD, MODULO,
//!   EXPONENT, FLOOR, NINT, `**` to an integer power, ...; character comparisons and searches
//!   on plain strings; the clocks);
//! - [`Effect::Reads`]: returns a value computed from the arrays its descriptors describe,
//!   writes nothing (reduction.h's reductions to a scalar: SUM, MAXVAL, DOT_PRODUCT, COUNT, ...;
//!   inquiry.h's SIZE);
//! - [`Effect::WritesFirst`]: writes what its first argument points at and nothing else (the
//!   complex reductions' result, LBOUND/UBOUND/SHAPE into a buffer, padding a string);
//! - [`Effect::Writes`]: writes through descriptors (the memory they describe, which may be
//!   anyone's), allocates or frees what they describe (assignment, ALLOCATE, transformational
//!   intrinsics, reductions along a dimension, random numbers);
//! - [`Effect::Io`]: input and output (io-api.h's `_FortranAio*`), STOP and its kin.
//!
//! A `_FortranA*` name that is not in the table is code the compiler cannot see, as before.

/// What a flang runtime function does with memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    Value,
    Reads,
    WritesFirst,
    Writes,
    Io,
}

/// The prefix flang's runtime names carry (`RTNAME(x)` is `_FortranAx`).
pub const PREFIX: &str = "_FortranA";

/// Name patterns after [`PREFIX`]: `#` is one or more decimal digits (a kind), `*` ends a
/// pattern that takes any rest; anything else is literal. The first matching row decides.
const TABLE: &[(&str, Effect)] = &[
    // io-api.h
    ("io*", Effect::Io),
    // stop.h: the program stops (after output), or pauses for input
    ("StopStatement", Effect::Io),
    ("StopStatementText", Effect::Io),
    ("PauseStatement*", Effect::Io),
    ("FailImageStatement", Effect::Io),
    ("ProgramEndStatement", Effect::Io),
    ("Exit", Effect::Io),
    ("Abort", Effect::Io),
    ("ReportFatalUserError", Effect::Io),
    // numeric.h
    ("Ceiling#_#", Effect::Value),
    ("Floor#_#", Effect::Value),
    ("Nint#_#", Effect::Value),
    ("Exponent#_#", Effect::Value),
    ("Fraction#", Effect::Value),
    ("IsNaN#", Effect::Value),
    ("ModInteger#", Effect::Value),
    ("ModReal#", Effect::Value),
    ("ModuloInteger#", Effect::Value),
    ("ModuloReal#", Effect::Value),
    ("Nearest#", Effect::Value),
    ("RRSpacing#", Effect::Value),
    ("Scale#", Effect::Value),
    ("SetExponent#", Effect::Value),
    ("Spacing#", Effect::Value),
    ("ErfcScaled#", Effect::Value),
    ("FPow#i", Effect::Value),
    ("FPow#k", Effect::Value),
    ("SelectedIntKind", Effect::Value),
    ("SelectedRealKind", Effect::Value),
    ("SelectedCharKind", Effect::Value),
    ("SelectedLogicalKind", Effect::Value),
    // time-intrinsic.h (the clocks; DATE_AND_TIME and ETIME write their arguments' data)
    ("CpuTime", Effect::Value),
    ("SystemClockCount", Effect::Value),
    ("SystemClockCountRate", Effect::Value),
    ("SystemClockCountMax", Effect::Value),
    // character.h on plain strings (the descriptor forms allocate their result)
    ("CharacterCompareScalar#", Effect::Value),
    ("Index#", Effect::Value),
    ("Scan#", Effect::Value),
    ("Verify#", Effect::Value),
    ("LenTrim#", Effect::Value),
    ("CharacterCompareScalar", Effect::Reads),
    ("CharacterPad1", Effect::WritesFirst),
    ("CharacterAppend1", Effect::WritesFirst),
    // reduction.h to a scalar (along a dimension, or to an array, they allocate their result)
    ("SumInteger#", Effect::Reads),
    ("SumReal#", Effect::Reads),
    ("ProductInteger#", Effect::Reads),
    ("ProductReal#", Effect::Reads),
    ("MaxvalInteger#", Effect::Reads),
    ("MaxvalReal#", Effect::Reads),
    ("MinvalInteger#", Effect::Reads),
    ("MinvalReal#", Effect::Reads),
    ("IAll#", Effect::Reads),
    ("IAny#", Effect::Reads),
    ("IParity#", Effect::Reads),
    ("DotProductInteger#", Effect::Reads),
    ("DotProductReal#", Effect::Reads),
    ("DotProductLogical", Effect::Reads),
    ("Norm2_#", Effect::Reads),
    ("All", Effect::Reads),
    ("Any", Effect::Reads),
    ("Count", Effect::Reads),
    ("Parity", Effect::Reads),
    ("CppSumComplex#", Effect::WritesFirst),
    ("CppProductComplex#", Effect::WritesFirst),
    ("CppDotProductComplex#", Effect::WritesFirst),
    // inquiry.h
    ("Size", Effect::Reads),
    ("SizeDim", Effect::Reads),
    ("LboundDim", Effect::Reads),
    ("Lbound", Effect::WritesFirst),
    ("Ubound", Effect::WritesFirst),
    ("Shape", Effect::WritesFirst),
    // pointer.h, derived-api.h inquiries
    ("PointerIsAssociated", Effect::Reads),
    ("PointerIsAssociatedWith", Effect::Reads),
    ("ClassIs", Effect::Reads),
    ("SameTypeAs", Effect::Reads),
    ("ExtendsTypeOf", Effect::Reads),
    // assign.h, allocatable.h, pointer.h, derived-api.h: through descriptors
    ("Assign*", Effect::Writes),
    ("CopyInAssign", Effect::Writes),
    ("CopyOutAssign", Effect::Writes),
    ("Allocatable*", Effect::Writes),
    ("Pointer*", Effect::Writes),
    ("MoveAlloc", Effect::Writes),
    ("Initialize", Effect::Writes),
    ("Destroy*", Effect::Writes),
    ("Finalize", Effect::Writes),
    // results allocated through a descriptor
    ("*Dim", Effect::Writes),
    ("Maxloc*", Effect::Writes),
    ("Minloc*", Effect::Writes),
    ("Findloc*", Effect::Writes),
    ("MaxvalCharacter", Effect::Writes),
    ("MinvalCharacter", Effect::Writes),
    ("Character*", Effect::Writes),
    ("Adjustl", Effect::Writes),
    ("Adjustr", Effect::Writes),
    ("Repeat", Effect::Writes),
    ("Trim", Effect::Writes),
    ("Index", Effect::Writes),
    ("Scan", Effect::Writes),
    ("Verify", Effect::Writes),
    ("LenTrim", Effect::Writes),
    ("Transfer*", Effect::Writes),
    ("Matmul*", Effect::Writes),
    // transformational.h
    ("Cshift*", Effect::Writes),
    ("Eoshift*", Effect::Writes),
    ("Pack", Effect::Writes),
    ("Unpack", Effect::Writes),
    ("Reshape", Effect::Writes),
    ("Spread", Effect::Writes),
    ("Transpose", Effect::Writes),
    ("BesselJn*", Effect::Writes),
    ("BesselYn*", Effect::Writes),
    // random.h (the generator's state), time-intrinsic.h
    ("Random*", Effect::Writes),
    ("DateAndTime", Effect::Writes),
    ("Etime", Effect::Writes),
];

/// What the flang runtime function `name` does, if the table knows it.
pub fn classify(name: &str) -> Option<Effect> {
    let rest = name.strip_prefix(PREFIX)?;
    TABLE.iter().find(|(pattern, _)| matches(pattern.as_bytes(), rest.as_bytes())).map(|(_, e)| *e)
}

/// Whether `name` matches `pattern` (`#`: one or more digits; `*`: any rest, also at the start
/// for a suffix).
fn matches(pattern: &[u8], name: &[u8]) -> bool {
    match pattern.split_first() {
        None => name.is_empty(),
        Some((b'*', [])) => true,
        Some((b'*', suffix)) => name.len() >= suffix.len() && matches(suffix, &name[name.len() - suffix.len()..]),
        Some((b'#', rest)) => {
            let digits = name.iter().take_while(|c| c.is_ascii_digit()).count();
            (1..=digits).any(|k| matches(rest, &name[k..]))
        }
        Some((c, rest)) => name.first() == Some(c) && matches(rest, &name[1..]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_from_flangs_headers() {
        assert_eq!(classify("_FortranAModInteger4"), Some(Effect::Value));
        assert_eq!(classify("_FortranAModuloReal8"), Some(Effect::Value));
        assert_eq!(classify("_FortranAExponent8_4"), Some(Effect::Value));
        assert_eq!(classify("_FortranAFPow8i"), Some(Effect::Value));
        assert_eq!(classify("_FortranASumReal8"), Some(Effect::Reads));
        assert_eq!(classify("_FortranASumDim"), Some(Effect::Writes));
        assert_eq!(classify("_FortranACppSumComplex8"), Some(Effect::WritesFirst));
        assert_eq!(classify("_FortranAMaxlocReal8"), Some(Effect::Writes));
        assert_eq!(classify("_FortranAioBeginExternalListOutput"), Some(Effect::Io));
        assert_eq!(classify("_FortranAioOutputReal64"), Some(Effect::Io));
        assert_eq!(classify("_FortranAAssign"), Some(Effect::Writes));
        assert_eq!(classify("_FortranAAllocatableAllocate"), Some(Effect::Writes));
        assert_eq!(classify("_FortranAPointerIsAssociated"), Some(Effect::Reads));
        assert_eq!(classify("_FortranAIndex1"), Some(Effect::Value));
        assert_eq!(classify("_FortranAIndex"), Some(Effect::Writes));
        assert_eq!(classify("_FortranAStopStatement"), Some(Effect::Io));
        // unknown, or not the runtime's
        assert_eq!(classify("_FortranASomethingNew"), None);
        assert_eq!(classify("_FortranAModInteger"), None);
        assert_eq!(classify("_FortranAExponent8"), None);
        assert_eq!(classify("ModInteger4"), None);
        assert_eq!(classify("_FortranAReduceReal8Ref"), None);
    }
}
