//! probe
use crate::common::{SCENES, scene};
use singulab::solver::BasisMode;

#[test]
fn probe() {
    for name in SCENES {
        let sc = scene(name);
        let mut sim = sc.simulation().unwrap();
        let n = sc.mechanism.n();
        let t0 = std::time::Instant::now();
        let t_end = if name == "spatial_pendulum" { 1.0 } else { 3.0 };
        let mut maxjh: f64 = 0.0;
        let mut events = vec![];
        let mut steps = 0;
        while sim.time() < t_end - 1e-9 {
            let pre = sim.basis(BasisMode::Continued).columns().clone_owned();
            let r = sim.step_until(t_end).unwrap();
            steps += 1;
            maxjh = maxjh.max(r.continued.jump / r.h);
            if let Some(ev) = r.event {
                let c = &ev.continued;
                let cos: Vec<f64> = (0..c.ncols().min(pre.ncols()))
                    .map(|j| c.column(j).dot(&pre.column(j)))
                    .collect();
                events.push((
                    ev.t,
                    ev.rank,
                    ev.deficiency,
                    ev.continued.ncols(),
                    ev.new.ncols(),
                    ev.rho_min,
                    cos,
                    r.rank,
                    r.continued.dimension_changed,
                ));
            }
        }
        eprintln!(
            "{name}: n={n} m={} gr={} steps={steps} {:?} maxjump/h={maxjh:.3} trad flips={} cont flips={}",
            sc.mechanism.m(),
            sim.generic_rank(),
            t0.elapsed(),
            sim.basis(BasisMode::Traditional).total_sign_flips(),
            sim.basis(BasisMode::Continued).total_sign_flips()
        );
        for e in events {
            eprintln!("   {:?}", e);
        }
    }
}
