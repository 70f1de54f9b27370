//! The generator's program model, the same for both languages: a program is a list of blocks,
//! each one function (C) or internal subroutine (Fortran) holding one or two OpenMP regions and
//! owning the global variables it writes, so that dropping a block drops its variables too (the
//! reducer works on this model, not on text). Every block reads the shared input array `x`.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lang {
    C,
    Fortran,
}

impl Lang {
    pub fn name(self) -> &'static str {
        match self {
            Lang::C => "c",
            Lang::Fortran => "fortran",
        }
    }
    pub fn ext(self) -> &'static str {
        match self {
            Lang::C => "c",
            Lang::Fortran => "f90",
        }
    }
}

/// Length of the input array `x` (the largest trip count of any loop).
pub const INPUT_LEN: u32 = 64;

/// An integer expression of the loop indices `i` (and `j` in a nest), the input `x[i]` and
/// helpers; values stay small (below about 10^12) so that Fortran's signed arithmetic never
/// overflows, and C's is unsigned and wraps anyway.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    I,
    J,
    Const(u64),
    Input,
    Add(Box<Expr>, Box<Expr>),
    Mul(Box<Expr>, Box<Expr>),
    Xor(Box<Expr>, Box<Expr>),
    Rem(Box<Expr>, u64),
    Call(usize, Box<Expr>),
}

impl Expr {
    pub fn helpers(&self, out: &mut Vec<usize>) {
        match self {
            Expr::Add(a, b) | Expr::Mul(a, b) | Expr::Xor(a, b) => {
                a.helpers(out);
                b.helpers(out);
            }
            Expr::Rem(a, _) => a.helpers(out),
            Expr::Call(h, a) => {
                out.push(*h);
                a.helpers(out);
            }
            _ => {}
        }
    }
    pub fn uses_j(&self) -> bool {
        match self {
            Expr::J => true,
            Expr::Add(a, b) | Expr::Mul(a, b) | Expr::Xor(a, b) => a.uses_j() || b.uses_j(),
            Expr::Rem(a, _) | Expr::Call(_, a) => a.uses_j(),
            _ => false,
        }
    }
}

/// A helper function `hf<k>(v) = (v * mul + add) mod 1009`: in the main file, or in the second
/// translation unit (which the analysis cannot see).
#[derive(Clone, Debug, PartialEq)]
pub struct Helper {
    pub mul: u64,
    pub add: u64,
    pub second_unit: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    U64,
    Bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeclareTarget {
    To,
    Link,
    Enter,
}

/// A global variable a block owns: a scalar or an array of `len` elements.
#[derive(Clone, Debug, PartialEq)]
pub struct Global {
    pub name: String,
    pub ty: Ty,
    pub len: Option<u32>,
    pub init: u64,
    pub threadprivate: bool,
    pub declare_target: Option<DeclareTarget>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Schedule {
    Default,
    Static,
    StaticChunk(u32),
    Dynamic(u32),
    Guided,
    Auto,
    Runtime,
}

impl Schedule {
    /// Whether libomp assigns the iterations to threads the same way in every run (static, and
    /// runtime with OMP_SCHEDULE unset, are static): what a thread number or a per-thread
    /// partial result may depend on in a deterministic program. Not `auto`: libomp runs it as
    /// a guided schedule, whose division depends on timing (seed 4103 case 50: a wrongly updated
    /// reduction under `schedule(auto)`, left as written, printed 19 in one run where stock
    /// printed 13).
    pub fn deterministic(self) -> bool {
        matches!(self, Schedule::Default | Schedule::Static | Schedule::StaticChunk(_) | Schedule::Runtime)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RedOp {
    Add,
    Mul,
    Max,
    Min,
    And,
    Or,
    Xor,
    LogAnd,
    LogOr,
}

impl RedOp {
    pub fn logical(self) -> bool {
        matches!(self, RedOp::LogAnd | RedOp::LogOr)
    }
}

/// How the loop body updates a reduction variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Update {
    /// `r = r op e` (`r = max(r, e)`, `r = r .and. c`).
    Assign,
    /// `r op= e` (C; Fortran writes `Assign`).
    Compound,
    /// `if (e > r) r = e` for max, `<` for min.
    Conditional,
    /// The wrong operator: `if (e > r) r = e` under `reduction(+)`, `r = r + e` under any other
    /// operator. The result depends on how the iterations are split: the analysis must see it.
    Wrong,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Reduction {
    pub var: String,
    pub op: RedOp,
    pub update: Update,
    pub expr: Expr,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Query {
    ThreadNum,
    NumThreads,
    MaxThreads,
    Level,
    InParallel,
}

#[derive(Clone, Debug, PartialEq)]
pub enum NumThreads {
    Const(u32),
    /// From the global variable `nt_<block>`, set to this value before the region.
    Var(u32),
}

/// The clauses that decide a parallel construct's team.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Team {
    pub num_threads: Option<NumThreads>,
    /// `if(<trip> > <threshold>)`: true or false at run time.
    pub if_threshold: Option<u32>,
}

/// `parallel for` / `parallel do`.
#[derive(Clone, Debug, PartialEq)]
pub struct LoopBlock {
    pub trip: u32,
    /// An inner loop of this many iterations, `collapse(2)` or not.
    pub inner: Option<(u32, bool)>,
    pub schedule: Schedule,
    pub team: Team,
    pub reductions: Vec<Reduction>,
    /// `a[i] = e` into the block's array.
    pub store: Option<Expr>,
    /// `firstprivate(f)`: `f` feeds a `+` reduction `fp`.
    pub firstprivate: Option<u64>,
    /// `lastprivate(l)`: `l = e` each iteration, printed after.
    pub lastprivate: Option<Expr>,
    /// `linear(k: step)` (C): `a2[i] = k` each iteration.
    pub linear: Option<u64>,
    /// A thread query summed into a reduction (thread numbers only with static schedules).
    pub query: Option<Query>,
    /// `ordered` hash `h = h * 31 + e` in iteration order.
    pub ordered: Option<Expr>,
    /// `atomic update` / `atomic capture` of a shared counter per iteration.
    pub atomic: Option<Atomic>,
    /// `critical` sum `c = c + e`.
    pub critical: Option<Expr>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Atomic {
    Update,
    /// `{ old = c; c = c + 1; }`, the captured values summed: order-independent.
    Capture,
}

/// What a `parallel` construct runs.
#[derive(Clone, Debug, PartialEq)]
pub enum TeamItem {
    /// `for nowait` writing the block's array, `barrier`, then a `for` reading it reversed.
    NowaitPair {
        nowait: bool,
        expr: Expr,
    },
    /// `for` with a `+` reduction on the parallel construct's variable.
    ForReduction(Expr),
    Single(u64),
    Master(u64),
    Masked(u64),
    /// Every thread adds to a counter: the result counts the threads.
    CriticalEvery(u64),
    AtomicEvery(u64),
    /// `reduction(+: s)` on the parallel construct, every thread adds: counts the threads.
    ReductionEvery(u64),
    Sections(Vec<u64>),
    /// A thread query stored by one thread.
    QueryInSingle(Query),
}

#[derive(Clone, Debug, PartialEq)]
pub struct TeamBlock {
    pub team: Team,
    pub items: Vec<TeamItem>,
}

/// `parallel` + `single`: tasks writing the block's array, an optional taskloop (C), taskwait.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskBlock {
    pub tasks: u32,
    pub expr: Expr,
    pub taskloop: Option<TaskloopGrain>,
    pub taskwait: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskloopGrain {
    Grainsize(u32),
    NumTasks(u32),
}

/// A threadprivate variable set on the initial thread, then read by a parallel loop.
#[derive(Clone, Debug, PartialEq)]
pub struct ThreadprivateBlock {
    pub value: u64,
    pub copyin: bool,
    pub expr: Expr,
    pub schedule: Schedule,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapType {
    To,
    From,
    ToFrom,
    Alloc,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetConstruct {
    Target,
    TargetParallelFor,
    TargetTeamsDistributeParallelFor,
}

/// How the block's output array reaches the device around its kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataEnv {
    /// Each kernel maps it itself.
    None,
    /// `target data map(tofrom: o)` around the kernels.
    Data,
    /// `target enter data map(to: o)` before, `target exit data map(from: o)` after.
    EnterExit,
}

/// One or two offload kernels over the block's output array `o`.
#[derive(Clone, Debug, PartialEq)]
pub struct TargetBlock {
    pub construct: TargetConstruct,
    pub kernels: u32,
    /// How the kernel maps `o`: `from` writes every element, `tofrom` updates them.
    pub out_map: MapType,
    /// `x` mapped `to` (or `tofrom`).
    pub input_tofrom: bool,
    /// A scratch array mapped `alloc`, written then read in the same iteration.
    pub scratch: bool,
    pub expr: Expr,
    pub env: DataEnv,
    /// `target update from(o)` inside the data environment, then a host read of `o[0]`.
    pub update_inside: bool,
    /// A `+` reduction over the kernel's loop (parallel constructs only).
    pub reduction: Option<Expr>,
    /// A declare-target global the kernel (plain `target` only) adds to, and whether
    /// `target update from` brings the device copy back.
    pub global: Option<(DeclareTarget, u64, bool)>,
    /// The kernel calls a declare-target function that reads a declare-target global.
    pub dt_call: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub enum BlockKind {
    Loop(LoopBlock),
    Team(TeamBlock),
    Tasks(TaskBlock),
    Threadprivate(ThreadprivateBlock),
    Target(TargetBlock),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    pub id: usize,
    pub kind: BlockKind,
}

impl Block {
    pub fn name(&self) -> String {
        format!("block{}", self.id)
    }
    /// Regions the block has: host parallel constructs and offload kernels.
    pub fn regions(&self) -> u32 {
        match &self.kind {
            BlockKind::Target(t) => t.kernels,
            _ => 1,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    pub lang: Lang,
    pub seed: u64,
    pub case: u64,
    pub helpers: Vec<Helper>,
    pub blocks: Vec<Block>,
    /// `declare target enter` needs OpenMP 5.2 in clang-19, which then refuses `to`.
    pub openmp52: bool,
}

impl Program {
    pub fn has_target(&self) -> bool {
        self.blocks.iter().any(|b| matches!(b.kind, BlockKind::Target(_)))
    }
    pub fn regions(&self) -> u32 {
        self.blocks.iter().map(Block::regions).sum()
    }
    pub fn has_second_unit(&self) -> bool {
        self.helpers.iter().enumerate().any(|(k, h)| h.second_unit && self.uses_helper(k))
    }
    pub fn uses_helper(&self, k: usize) -> bool {
        let mut used = Vec::new();
        for b in &self.blocks {
            exprs_of(b, &mut |e| e.helpers(&mut used));
        }
        used.contains(&k)
    }
}

/// Calls `f` on every expression of a block.
pub fn exprs_of(b: &Block, f: &mut dyn FnMut(&Expr)) {
    match &b.kind {
        BlockKind::Loop(l) => {
            l.reductions.iter().for_each(|r| f(&r.expr));
            [&l.store, &l.lastprivate, &l.ordered, &l.critical].into_iter().flatten().for_each(|e| f(e));
        }
        BlockKind::Team(t) => t.items.iter().for_each(|i| match i {
            TeamItem::NowaitPair { expr, .. } | TeamItem::ForReduction(expr) => f(expr),
            _ => {}
        }),
        BlockKind::Tasks(t) => f(&t.expr),
        BlockKind::Threadprivate(t) => f(&t.expr),
        BlockKind::Target(t) => {
            f(&t.expr);
            t.reduction.iter().for_each(|e| f(e));
        }
    }
}
