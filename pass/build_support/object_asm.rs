//! The precompiled loader's object file written back as compact module-level assembly: each
//! section's bytes as `.ascii` strings, with one data directive per relocation and the symbol
//! directives. The assembler clang runs over module-level assembly costs some 7 k instructions
//! per statement, and an instruction or a CFI directive is one statement each: the loader as
//! clang writes it (~780 statements, its unwind information as `.cfi_*` directives) cost ~8 M
//! instructions in every translation unit with a region, this form (~300, the unwind
//! information as the bytes of its `.eh_frame`) a fraction of that. x86-64 ELF only; anything
//! this does not know makes it give up (`None`), and the build keeps clang's text.
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;

use object::elf;
use object::read::elf::{ElfFile64, FileHeader, SectionHeader};
use object::{
    LittleEndian as LE, Object, ObjectComdat, ObjectSection, ObjectSymbol, RelocationFlags, RelocationTarget, SectionIndex, SymbolIndex,
    SymbolSection,
};

/// Where a section's bytes go: a COMDAT group of the object's own, the shared `.eh_frame`, or
/// (mergeable constants) the pool at `offset`, one group for all of them.
#[derive(Clone, Copy)]
enum Place {
    Group,
    Unwind,
    Pool(u64),
}

/// The assembly for the x86-64 ELF object `data`; local labels start with `label_prefix`
/// (`.L__ompadapt_loader.`), the constant pool's group is named from `pool_prefix` and a hash of
/// its bytes (two builds of ompadapt with other strings never share a pool).
pub fn object_to_asm(data: &[u8], label_prefix: &str, pool_prefix: &str) -> Option<String> {
    let file = ElfFile64::<LE>::parse(data).ok()?;
    if file.elf_header().e_machine(LE) != elf::EM_X86_64 {
        return None;
    }
    let groups: HashMap<SectionIndex, String> = file
        .comdats()
        .filter_map(|c| Some((c.name().ok()?.to_string(), c.sections().collect::<Vec<_>>())))
        .flat_map(|(name, sections)| sections.into_iter().map(move |s| (s, name.clone())))
        .collect();
    let (places, pool, pool_align) = places(&file, &groups)?;
    let pool_name = format!("{pool_prefix}{:016x}", fnv(&pool));
    let referenced = file
        .sections()
        .flat_map(|s| s.relocations().collect::<Vec<_>>())
        .filter_map(|(_, r)| match r.target() {
            RelocationTarget::Symbol(i) => {
                file.symbol_by_index(i).ok().filter(|s| s.kind() == object::SymbolKind::Section)?.section_index()
            }
            _ => None,
        })
        .collect();
    let w = Writer { file: &file, label_prefix, pool_name: &pool_name, places: &places, referenced };
    let mut out = String::from("\t.pushsection .text\n");
    w.undefined(&mut out);
    if !pool.is_empty() {
        // (aligned as its most aligned constant: a 16-byte mask read by an SSE instruction
        // faults where it is not)
        let _ =
            writeln!(out, "\t.section .rodata.{pool_name},\"aG\",@progbits,{pool_name},comdat\n\t.p2align {}", pool_align.trailing_zeros());
        let _ = writeln!(out, "\t.weak {pool_name}\n\t.hidden {pool_name}\n\t.type {pool_name},@object\n{pool_name}:");
        ascii(&mut out, &pool);
    }
    for section in file.sections() {
        match places.get(&section.index()) {
            Some(Place::Group) => w.section(&mut out, &section, Some(groups.get(&section.index())?))?,
            Some(Place::Unwind) => w.section(&mut out, &section, None)?,
            _ => {}
        }
    }
    out.push_str("\t.popsection\n");
    Some(out)
}

/// Each allocated section's place, the pool's bytes and their alignment (the largest of the
/// sections in it); `None` for a section of a kind this does not place (code or data outside a
/// group: it would be emitted once per translation unit).
#[allow(clippy::type_complexity)]
fn places(file: &ElfFile64<LE>, groups: &HashMap<SectionIndex, String>) -> Option<(HashMap<SectionIndex, Place>, Vec<u8>, u64)> {
    let mut places = HashMap::new();
    let mut pool = Vec::new();
    let mut pool_align = 8u64;
    for section in file.sections() {
        let header = section.elf_section_header();
        let flags = header.sh_flags(LE);
        let kind = header.sh_type(LE);
        if flags.0 & elf::SHF_ALLOC.0 == 0 || section.size() == 0 || kind == elf::SHT_NOTE {
            continue;
        }
        let place = if groups.contains_key(&section.index()) {
            Place::Group
        } else if kind == elf::SHT_X86_64_UNWIND {
            Place::Unwind
        } else if flags.0 & elf::SHF_MERGE.0 != 0 && kind == elf::SHT_PROGBITS && section.relocations().next().is_none() {
            let align = section.align().max(1) as usize;
            pool_align = pool_align.max(align as u64);
            pool.resize(pool.len().div_ceil(align) * align, 0);
            let at = pool.len() as u64;
            pool.extend_from_slice(section.data().ok()?);
            Place::Pool(at)
        } else {
            return None;
        };
        places.insert(section.index(), place);
    }
    Some((places, pool, pool_align))
}

struct Writer<'a> {
    file: &'a ElfFile64<'a, LE>,
    label_prefix: &'a str,
    pool_name: &'a str,
    places: &'a HashMap<SectionIndex, Place>,
    /// The sections that relocations name by their section symbol (they get a label).
    referenced: std::collections::HashSet<SectionIndex>,
}

impl Writer<'_> {
    /// Binding and visibility of the symbols the object uses without defining (weak references,
    /// hidden ones); a plain undefined symbol needs no directive.
    fn undefined(&self, out: &mut String) {
        for sym in self.file.symbols().filter(|s| s.is_undefined()) {
            let Ok(name) = sym.name() else { continue };
            if name.is_empty() {
                continue;
            }
            if sym.is_weak() {
                let _ = writeln!(out, "\t.weak {name}");
            }
            if let Some(v) = visibility(&sym) {
                let _ = writeln!(out, "\t{v} {name}");
            }
            // (`_TLS_MODULE_BASE_` of the thread-local memo's accesses: named by `.reloc`,
            // which does not type the symbol as an instruction's `@tlsdesc` does)
            if sym.kind() == object::SymbolKind::Tls {
                let _ = writeln!(out, "\t.type {name},@tls_object");
            }
        }
    }

    /// One section: its directive (`group`: its COMDAT group), alignment, a label at its start
    /// (relocations against the section point there), then its bytes, symbols and relocations
    /// in order of offset.
    fn section(&self, out: &mut String, section: &object::read::elf::ElfSection64<'_, '_, LE>, group: Option<&String>) -> Option<()> {
        let header = section.elf_section_header();
        let name = section.name().ok()?;
        let kind = header.sh_type(LE);
        let flags = header.sh_flags(LE);
        let mut f = String::from("a");
        if flags.0 & elf::SHF_WRITE.0 != 0 {
            f.push('w');
        }
        if flags.0 & elf::SHF_EXECINSTR.0 != 0 {
            f.push('x');
        }
        if flags.0 & elf::SHF_TLS.0 != 0 {
            f.push('T');
        }
        let ty = match kind {
            elf::SHT_PROGBITS => "@progbits",
            elf::SHT_NOBITS => "@nobits",
            elf::SHT_X86_64_UNWIND => "@unwind",
            _ => return None,
        };
        match group {
            Some(g) => {
                let _ = writeln!(out, "\t.section {name},\"{f}G\",{ty},{g},comdat");
            }
            None => {
                let _ = writeln!(out, "\t.section {name},\"{f}\",{ty}");
            }
        }
        if section.align() > 1 {
            let _ = writeln!(out, "\t.p2align {}", section.align().trailing_zeros());
        }
        if self.referenced.contains(&section.index()) {
            let _ = writeln!(out, "{}s{}:", self.label_prefix, section.index().0);
        }
        if kind == elf::SHT_NOBITS {
            self.symbols_at(out, section.index(), 0, u64::MAX);
            let _ = writeln!(out, "\t.zero {}", section.size());
            return Some(());
        }
        self.contents(out, section)
    }

    /// The bytes of `section` with its symbols and relocations.
    fn contents(&self, out: &mut String, section: &object::read::elf::ElfSection64<'_, '_, LE>) -> Option<()> {
        let bytes = section.data().ok()?;
        let relocations: BTreeMap<u64, object::Relocation> = section.relocations().collect();
        let mut at = 0u64;
        let mut stops: Vec<u64> = relocations.keys().copied().collect();
        stops.extend(self.symbol_offsets(section.index()));
        stops.push(bytes.len() as u64);
        stops.sort_unstable();
        stops.dedup();
        for stop in stops {
            if stop < at {
                return None; // a symbol inside a relocated field
            }
            ascii(out, &bytes[at as usize..stop as usize]);
            at = stop;
            self.symbols_at(out, section.index(), at, at + 1);
            if let Some(r) = relocations.get(&at) {
                at += self.relocation(out, r)?;
            }
        }
        Some(())
    }

    /// The offsets in `section` where a symbol of the object is defined.
    fn symbol_offsets(&self, section: SectionIndex) -> Vec<u64> {
        self.file.symbols().filter(|s| s.section() == SymbolSection::Section(section) && named(s)).map(|s| s.address()).collect()
    }

    /// The directives and labels of the symbols defined in `[from, to)` of `section`.
    fn symbols_at(&self, out: &mut String, section: SectionIndex, from: u64, to: u64) {
        for sym in self.file.symbols() {
            if sym.section() != SymbolSection::Section(section) || !named(&sym) || sym.address() < from || sym.address() >= to {
                continue;
            }
            let Ok(name) = sym.name() else { continue };
            if sym.is_weak() {
                let _ = writeln!(out, "\t.weak {name}");
            } else if sym.is_global() {
                let _ = writeln!(out, "\t.globl {name}");
            }
            if let Some(v) = visibility(&sym) {
                let _ = writeln!(out, "\t{v} {name}");
            }
            let ty = match sym.kind() {
                object::SymbolKind::Text => "@function",
                object::SymbolKind::Tls => "@tls_object",
                _ => "@object",
            };
            let _ = writeln!(out, "\t.type {name},{ty}\n\t.size {name}, {}\n{name}:", sym.size());
        }
    }

    /// The data directive that makes the assembler write relocation `r` (its field's size).
    fn relocation(&self, out: &mut String, r: &object::Relocation) -> Option<u64> {
        let RelocationFlags::Elf { r_type } = r.flags() else { return None };
        let RelocationTarget::Symbol(index) = r.target() else { return None };
        let (target, addend) = self.target(index, r.addend())?;
        let sum = |a: i64| if a == 0 { String::new() } else { format!("{a:+}") };
        let a = sum(addend);
        // the directive and the size of the field it fills
        let (directive, size) = match r_type {
            elf::R_X86_64_64 => (format!(".quad {target}{a}"), 8),
            elf::R_X86_64_PC32 => (format!(".long {target}{a}-."), 4),
            elf::R_X86_64_PLT32 if addend == -4 => (format!(".long {target}@PLT-.-4"), 4),
            // the thread-local memo (API version 6), local-dynamic through TLS descriptors: the
            // instruction bytes stay as compiled, so the linker's relaxations still match them
            elf::R_X86_64_GOTPC32_TLSDESC => (format!(".reloc ., R_X86_64_GOTPC32_TLSDESC, {target}{a}\n\t.zero 4"), 4),
            // a marker on the call instruction: no field of its own
            elf::R_X86_64_TLSDESC_CALL => (format!(".reloc ., R_X86_64_TLSDESC_CALL, {target}{a}"), 0),
            elf::R_X86_64_DTPOFF32 => (format!(".long {target}@DTPOFF{a}"), 4),
            // (the relaxable kinds only come from instructions; the plain one is as correct)
            elf::R_X86_64_GOTPCREL | elf::R_X86_64_GOTPCRELX | elf::R_X86_64_REX_GOTPCRELX => (format!(".long {target}@GOTPCREL{a}"), 4),
            _ => return None,
        };
        let _ = writeln!(out, "\t{directive}");
        Some(size)
    }

    /// What a relocation against symbol `index` with `addend` names: a symbol, or a section's
    /// label, or the pool's symbol, and the addend from there.
    fn target(&self, index: SymbolIndex, addend: i64) -> Option<(String, i64)> {
        let sym = self.file.symbol_by_index(index).ok()?;
        let place = match sym.section() {
            SymbolSection::Section(s) => Some((s, *self.places.get(&s)?)),
            _ => None,
        };
        match place {
            // (a string's own local symbol, `.L.str`, as clang keeps for mergeable sections)
            Some((_, Place::Pool(at))) => Some((self.pool_name.to_string(), addend + at as i64 + sym.address() as i64)),
            _ if named(&sym) || sym.is_undefined() => Some((sym.name().ok()?.to_string(), addend)),
            Some((s, _)) => Some((format!("{}s{}", self.label_prefix, s.0), addend + sym.address() as i64)),
            None => None,
        }
    }
}

/// Whether `sym` is a symbol of the program (not a section's or the file's).
fn named(sym: &object::read::elf::ElfSymbol64<'_, '_, LE>) -> bool {
    !matches!(sym.kind(), object::SymbolKind::Section | object::SymbolKind::File) && sym.name().is_ok_and(|n| !n.is_empty())
}

/// The visibility directive of `sym`, if not the default.
fn visibility(sym: &object::read::elf::ElfSymbol64<'_, '_, LE>) -> Option<&'static str> {
    match sym.elf_symbol().st_visibility() {
        elf::STV_HIDDEN => Some(".hidden"),
        elf::STV_PROTECTED => Some(".protected"),
        elf::STV_INTERNAL => Some(".internal"),
        _ => None,
    }
}

/// `bytes` as `.ascii` lines (escapes of three octal digits, so that no digit after one joins
/// it), 256 bytes a line.
fn ascii(out: &mut String, bytes: &[u8]) {
    for chunk in bytes.chunks(256) {
        out.push_str("\t.ascii \"");
        for &b in chunk {
            if (b' '..=b'~').contains(&b) && b != b'"' && b != b'\\' {
                out.push(b as char);
            } else {
                let _ = write!(out, "\\{b:03o}");
            }
        }
        out.push_str("\"\n");
    }
}

/// FNV-1a of `bytes`.
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf29ce484222325u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x100000001b3))
}
