//! Offload blocks. C gets every construct, map type and declare-target form; Fortran only
//! `!$omp target` with a sequential loop (flang-19 rejects the composite constructs) and no
//! declare-target function.

use super::Gen;
use crate::ast::*;

pub fn target_block(g: &mut Gen) -> TargetBlock {
    let c = g.lang == Lang::C;
    let construct = if c {
        g.pick(&[TargetConstruct::Target, TargetConstruct::TargetParallelFor, TargetConstruct::TargetTeamsDistributeParallelFor])
    } else {
        TargetConstruct::Target
    };
    let plain = construct == TargetConstruct::Target;
    let env = g.pick(&[DataEnv::None, DataEnv::Data, DataEnv::EnterExit]);
    let global = (plain && g.chance(0.5)).then(|| {
        let forms: &[DeclareTarget] =
            if g.openmp52 { &[DeclareTarget::Enter, DeclareTarget::Link] } else { &[DeclareTarget::To, DeclareTarget::Link] };
        (g.pick(forms), g.range(1, 20) as u64, g.chance(0.7))
    });
    TargetBlock {
        construct,
        kernels: g.range(1, 2),
        out_map: g.pick(&[MapType::To, MapType::From, MapType::ToFrom, MapType::Alloc]),
        input_tofrom: g.chance(0.3),
        scratch: g.chance(0.3),
        expr: g.expr(false, false),
        env,
        update_inside: g.chance(0.5),
        reduction: g.chance(0.4).then(|| g.expr(false, false)),
        global,
        dt_call: c && g.chance(0.3),
    }
}
