//! Return addresses to source locations, with addr2line (gimli) on the module's DWARF.
//!
//! OMPT reports the return address of the call into the OpenMP runtime; the call instruction
//! — and so the construct's line and column — is at `ra - 1`. The module holding an address and
//! its load bias come from `dl_iterate_phdr`; each module's debug information is loaded once,
//! and only when a report is written.

use std::collections::HashMap;
use std::ffi::CStr;
use std::path::PathBuf;

/// A source location, as far as the binary tells.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Location {
    /// The executable or shared library holding the code.
    pub module: String,
    /// The function the construct is written in (the innermost inlined one).
    pub function: Option<String>,
    /// The source file (relative to the working directory when it is below it).
    pub file: Option<String>,
    /// 0: unknown (no debug information).
    pub line: u32,
    /// 0: unknown.
    pub column: u32,
    /// The call of the construct's function: where it was inlined into its caller, else where
    /// the stack showed it called from (the report fills that in).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub caller: Option<Caller>,
}

/// The call of a function, in its caller.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Caller {
    /// The calling function.
    pub function: Option<String>,
    /// Its source file.
    pub file: String,
    /// The line of the call.
    pub line: u32,
}

impl Location {
    /// `file:line:column`, or what is known of it.
    pub fn short(&self) -> String {
        match &self.file {
            Some(f) if self.line > 0 && self.column > 0 => format!("{f}:{}:{}", self.line, self.column),
            Some(f) if self.line > 0 => format!("{f}:{}", self.line),
            _ => match &self.function {
                Some(func) => format!("{func} ({})", base_name(&self.module)),
                None => format!("? ({})", base_name(&self.module)),
            },
        }
    }
}

/// Functions clang generates around OpenMP constructs (`.omp_outlined.`, `.omp_task_entry.`,
/// `__omp_offloading_..._l12`).
pub fn generated(name: &str) -> bool {
    name.starts_with('.') || name.starts_with("__omp_offloading_") || name.contains(".omp_outlined")
}

/// The function and line a kernel's offload entry symbol names
/// (`[.]__omp_offloading_<dev>_<file>_<function>_l<line>[.region_id]`).
pub fn offload_entry(symbol: &str) -> Option<(String, u32)> {
    let s = symbol.strip_prefix('.').unwrap_or(symbol);
    let s = s.strip_suffix(".region_id").unwrap_or(s);
    let s = s.strip_prefix("__omp_offloading_")?;
    let mut parts = s.splitn(3, '_');
    let (_dev, _file, rest) = (parts.next()?, parts.next()?, parts.next()?);
    let (func, line) = rest.rsplit_once("_l")?;
    let line = line.parse().ok()?;
    Some((addr2line::demangle_auto(func.into(), None).into_owned(), line))
}

/// A function's name without its return type, parameters, template arguments and scope:
/// `scale` for `void ns::scale<float>(float*, int)`.
pub fn plain_name(f: &str) -> &str {
    // The name ends at the parameter list: the first `(` outside template arguments.
    let mut depth = 0i32;
    let end = f
        .char_indices()
        .find(|&(_, c)| {
            match c {
                '<' => depth += 1,
                '>' => depth -= 1,
                _ => {}
            }
            c == '(' && depth == 0
        })
        .map_or(f.len(), |(i, _)| i);
    let mut head = &f[..end];
    // Its own template arguments go.
    if head.ends_with('>') {
        let mut depth = 0i32;
        for (i, c) in head.char_indices().rev() {
            depth += match c {
                '>' => 1,
                '<' => -1,
                _ => 0,
            };
            if depth == 0 {
                head = &head[..i];
                break;
            }
        }
    }
    let start = head.rfind([' ', ':', '*', '&']).map_or(0, |i| i + 1);
    &head[start..]
}

fn base_name(p: &str) -> &str {
    p.rsplit('/').next().unwrap_or(p)
}

/// File, line and column.
type FileLine = (String, u32, u32);

struct Module {
    path: PathBuf,
    bias: u64,
    segments: Vec<(u64, u64)>,
}

/// Return addresses to source locations: the process's loaded modules and their debug information.
pub struct Symbolizer {
    modules: Vec<Module>,
    loaders: HashMap<PathBuf, Option<addr2line::Loader>>,
    cwd: Option<String>,
}

impl Default for Symbolizer {
    fn default() -> Self {
        Self::new()
    }
}

impl Symbolizer {
    /// A symbolizer over the modules loaded now.
    pub fn new() -> Self {
        let mut modules: Vec<Module> = Vec::new();
        unsafe extern "C" fn each(info: *mut libc::dl_phdr_info, _size: usize, data: *mut libc::c_void) -> libc::c_int {
            let modules = &mut *(data as *mut Vec<Module>);
            let info = &*info;
            let name = if info.dlpi_name.is_null() { "" } else { CStr::from_ptr(info.dlpi_name).to_str().unwrap_or("") };
            let path = if name.is_empty() {
                // The main program: the kernel knows its path.
                std::fs::read_link("/proc/self/exe").unwrap_or_default()
            } else {
                PathBuf::from(name)
            };
            let mut segments = Vec::new();
            for i in 0..info.dlpi_phnum as usize {
                let ph = &*info.dlpi_phdr.add(i);
                if ph.p_type == libc::PT_LOAD {
                    let start = info.dlpi_addr + ph.p_vaddr;
                    segments.push((start, start + ph.p_memsz));
                }
            }
            modules.push(Module { path, bias: info.dlpi_addr, segments });
            0
        }
        // SAFETY: the callback only reads what dl_iterate_phdr hands it, during the call.
        unsafe { libc::dl_iterate_phdr(Some(each), &mut modules as *mut Vec<Module> as *mut libc::c_void) };
        let cwd = std::env::current_dir().ok().map(|d| format!("{}/", d.display()));
        Symbolizer { modules, loaders: HashMap::new(), cwd }
    }

    /// The raw symbol-table name of the object or function at `addr`.
    pub fn symbol(&mut self, addr: u64) -> Option<String> {
        let m = self.modules.iter().find(|m| m.segments.iter().any(|&(s, e)| addr >= s && addr < e))?;
        let loader = self.loaders.entry(m.path.clone()).or_insert_with(|| addr2line::Loader::new(&m.path).ok());
        loader.as_ref()?.find_symbol(addr - m.bias).map(str::to_owned)
    }

    /// The source location of the call whose return address is `ra`.
    pub fn locate(&mut self, ra: u64) -> Location {
        let Some(m) = self.modules.iter().find(|m| m.segments.iter().any(|&(s, e)| ra > s && ra <= e)) else {
            return Location { module: "?".into(), ..Default::default() };
        };
        let module = m.path.display().to_string();
        let probe = ra - 1 - m.bias;
        let loader = self.loaders.entry(m.path.clone()).or_insert_with(|| addr2line::Loader::new(&m.path).ok());
        let mut loc = Location { module, ..Default::default() };
        let Some(loader) = loader.as_ref() else { return loc };
        let mut frames: Vec<(Option<String>, Option<FileLine>)> = Vec::new();
        if let Ok(mut it) = loader.find_frames(probe) {
            while let Ok(Some(f)) = it.next() {
                let name = f.function.as_ref().and_then(|n| n.demangle().ok()).map(|n| n.into_owned());
                let at = f.location.map(|l| (l.file.unwrap_or("").to_owned(), l.line.unwrap_or(0), l.column.unwrap_or(0)));
                frames.push((name, at));
            }
        }
        // The innermost frame with a line: clang gives the runtime call of a construct an
        // artificial line 0 in the helpers it generates (task entries, privates maps), whose
        // callers carry the construct's line.
        let mut at = frames.iter().filter_map(|(_, a)| a.clone()).find(|a| a.1 > 0);
        if at.is_none() {
            // Line 0 all the way out (optimised code): the construct's line follows the call.
            if let Ok(rows) = loader.find_location_range(probe + 1, probe + 64) {
                for (_, _, l) in rows {
                    if let (Some(f), Some(line)) = (l.file, l.line) {
                        if line > 0 {
                            at = Some((f.to_owned(), line, l.column.unwrap_or(0)));
                            break;
                        }
                    }
                }
            }
        }
        if let Some((file, line, column)) = at {
            loc.file = Some(file).filter(|f| !f.is_empty());
            loc.line = line;
            loc.column = column;
        }
        // The function as the programmer wrote it: the innermost frame that is not a helper
        // the compiler generated for the construct; the frame after it, its caller when it was
        // inlined.
        let own = frames.iter().position(|(n, _)| n.as_deref().is_some_and(|n| !generated(n)));
        loc.function = own.and_then(|i| frames[i].0.clone()).or_else(|| frames.first().and_then(|(n, _)| n.clone()));
        if loc.function.is_none() {
            loc.function = loader.find_symbol(probe).map(|s| addr2line::demangle_auto(s.into(), None).into_owned());
        }
        loc.caller = own.and_then(|i| frames.get(i + 1)).and_then(|(function, at)| match at {
            Some((file, line, _)) if *line > 0 && !file.is_empty() => {
                Some(Caller { function: function.clone(), file: file.clone(), line: *line })
            }
            _ => None,
        });
        if let Some(f) = loc.file.take() {
            loc.file = Some(self.relative(f));
        }
        if let Some(mut c) = loc.caller.take() {
            c.file = self.relative(c.file);
            loc.caller = Some(c);
        }
        loc
    }

    /// `file` relative to the working directory when it is below it.
    pub fn relative(&self, file: String) -> String {
        match self.cwd.as_deref().and_then(|cwd| file.strip_prefix(cwd)) {
            Some(rel) => rel.to_owned(),
            None => file,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[inline(never)]
    fn here() -> u64 {
        // A return address inside this test binary: the address after a call.
        let f: fn() -> u64 = || 0;
        std::hint::black_box(f)();
        here as fn() -> u64 as usize as u64 + 1
    }

    #[test]
    fn locates_code_of_this_binary() {
        let mut s = Symbolizer::new();
        let loc = s.locate(here());
        assert!(loc.module.contains("ompadapt_dataperf"), "{loc:?}");
        assert!(loc.function.as_deref().unwrap_or("").contains("here"), "{loc:?}");
        assert!(loc.file.as_deref().unwrap_or("").ends_with("symbolize.rs"), "{loc:?}");
        assert!(loc.line > 0);
        let unknown = s.locate(8);
        assert_eq!(offload_entry(".__omp_offloading_fe00_98c0ce_main_l23.region_id"), Some(("main".into(), 23)));
        assert_eq!(offload_entry("__omp_offloading_10302_2a_my_func_l7"), Some(("my_func".into(), 7)));
        assert_eq!(offload_entry("__omp_offloading_1_2__Z3fooi_l9").map(|e| e.0), Some("foo(int)".into()));
        assert_eq!(offload_entry("main"), None);
        assert!(generated(".omp_task_privates_map.") && !generated("main"));
        assert_eq!(plain_name("void scale<float>(float*, float const*, int, float)"), "scale");
        assert_eq!(plain_name("int ns::Grid<2>::step(int) const"), "step");
        assert_eq!(plain_name("main"), "main");
        assert_eq!(unknown.module, "?");
    }
}
