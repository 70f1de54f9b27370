//! Random programs, deterministic from (seed, case): the case's generator is ChaCha8 seeded
//! from both, so case `i` of seed `s` is the same program whatever ran before it.

mod host;
mod target;

use crate::ast::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The random source and what the program being generated allows.
pub struct Gen {
    pub rng: ChaCha8Rng,
    pub lang: Lang,
    pub helpers: usize,
    pub openmp52: bool,
    /// The program has an offload block (decided before the blocks, so that every block knows).
    pub target: bool,
}

impl Gen {
    pub fn chance(&mut self, p: f64) -> bool {
        self.rng.random_bool(p)
    }
    pub fn below(&mut self, n: u32) -> u32 {
        self.rng.random_range(0..n)
    }
    pub fn range(&mut self, lo: u32, hi: u32) -> u32 {
        self.rng.random_range(lo..=hi)
    }
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.rng.random_range(0..items.len())]
    }

    fn leaf(&mut self, inner: bool, calls: bool) -> Expr {
        match self.below(if inner { 5 } else { 4 }) {
            0 => Expr::I,
            1 => Expr::Input,
            2 if calls && self.helpers > 0 => Expr::Call(self.below(self.helpers as u32) as usize, Box::new(Expr::I)),
            2 | 3 => Expr::Const(self.range(1, 49) as u64),
            _ => Expr::J,
        }
    }

    fn small(&mut self, inner: bool, calls: bool) -> Expr {
        let (a, b) = (self.leaf(inner, calls), self.leaf(inner, calls));
        match self.below(5) {
            0 => a,
            1 => Expr::Add(Box::new(a), Box::new(b)),
            2 => Expr::Mul(Box::new(a), Box::new(b)),
            3 => Expr::Xor(Box::new(a), Box::new(b)),
            _ => Expr::Rem(Box::new(Expr::Add(Box::new(a), Box::new(b))), self.range(2, 97) as u64),
        }
    }

    /// An expression of depth at most two over the leaves: below about 10^12 in value.
    pub fn expr(&mut self, inner: bool, calls: bool) -> Expr {
        let a = self.small(inner, calls);
        if self.chance(0.5) {
            return a;
        }
        let b = self.small(inner, calls);
        match self.below(3) {
            0 => Expr::Add(Box::new(a), Box::new(b)),
            1 => Expr::Mul(Box::new(a), Box::new(b)),
            _ => Expr::Xor(Box::new(a), Box::new(b)),
        }
    }

    pub fn schedule(&mut self, deterministic: bool) -> Schedule {
        let all = [
            Schedule::Default,
            Schedule::Static,
            Schedule::StaticChunk(self.range(1, 9)),
            Schedule::Dynamic(self.range(1, 8)),
            Schedule::Guided,
            Schedule::Auto,
            Schedule::Runtime,
        ];
        let choices: Vec<Schedule> = all.into_iter().filter(|s| !deterministic || s.deterministic()).collect();
        self.pick(&choices)
    }

    pub fn team(&mut self) -> Team {
        let num_threads = match self.below(6) {
            0 => Some(NumThreads::Const(self.range(1, 3))),
            1 => Some(NumThreads::Var(self.range(1, 3))),
            _ => None,
        };
        let if_threshold = self.chance(0.2).then(|| self.pick(&[10, 100]));
        Team { num_threads, if_threshold }
    }
}

/// Case `case` of seed `seed` in `lang`.
pub fn program(lang: Lang, seed: u64, case: u64) -> Program {
    let stream = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ case.wrapping_mul(0xD1B5_4A32_D192_ED03) ^ (lang as u64);
    let mut g = Gen { rng: ChaCha8Rng::seed_from_u64(stream), lang, helpers: 0, openmp52: false, target: false };
    let helpers: Vec<Helper> =
        (0..g.below(4)).map(|_| Helper { mul: g.range(2, 9) as u64, add: g.range(0, 40) as u64, second_unit: g.chance(0.4) }).collect();
    g.helpers = helpers.len();
    g.openmp52 = lang == Lang::C && g.chance(0.25);
    let count = g.range(2, 6) as usize;
    let target_weight = if lang == Lang::C { 0.24 } else { 0.12 };
    let targets: Vec<bool> = (0..count).map(|_| g.chance(target_weight)).collect();
    g.target = targets.contains(&true);
    let blocks = (0..count).map(|id| Block { id, kind: block_kind(&mut g, id, targets[id]) }).collect();
    Program { lang, seed, case, helpers, blocks, openmp52: g.openmp52 }
}

fn block_kind(g: &mut Gen, id: usize, target: bool) -> BlockKind {
    if target {
        return BlockKind::Target(target::target_block(g));
    }
    match g.below(100) {
        45..=71 => BlockKind::Team(host::team_block(g)),
        // flang-19's explicit tasks print a different array in every run (even with the index
        // copied to a variable of its own): no Fortran tasks
        72..=87 if g.lang == Lang::C => BlockKind::Tasks(host::task_block(g)),
        // clang-19 cannot link a threadprivate variable's TLS wrapper into an offload image
        88.. if !g.target => BlockKind::Threadprivate(host::threadprivate_block(g)),
        _ => BlockKind::Loop(host::loop_block(g, id)),
    }
}
