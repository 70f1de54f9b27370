use ompadapt_rt::evaluate::synthetic::{self, Noise, Shape};
use ompadapt_rt::model::{select, ModelChoice};
use ompadapt_rt::model::rng::XorShift;
fn main() {
    let s = synthetic::generate(Shape::Categorical, 40, Noise::NONE, 2);
    let mut rng = XorShift::new(5);
    for _ in 0..6 {
        let mut idx: Vec<usize> = (0..40).collect();
        for i in (1..40).rev() { idx.swap(i, rng.below(i + 1)); }
        let train = s.measured.subset(&idx[..20]);
        let (w, _e, all) = select::select(ModelChoice::Auto, &train, 1);
        println!("winner {}", w.describe());
        for (c, e) in all.iter().take(9) { print!("{:.2} ", e.mean_regret * 100.0); let _ = c; }
        println!();
        let mut cats: Vec<usize> = vec![0; 4];
        for i in 0..20 { cats[train.row(i)[1] as usize] += 1; }
        println!("{cats:?}");
    }
}
