//! `singulab bench`: the per-scene numbers of README.md (sizes, ranks, traditional sign
//! flips, energy drift, wall time at dt = 1e-3 and 1e-4, and the time the QR factorisations
//! of the same run take on their own). Build with `--release` before quoting its numbers.

use std::io::{self, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use nalgebra::DMatrix;

use super::args::BenchArgs;
use super::error::{CliError, Stream};
use crate::linalg::PivotedQr;
use crate::scene::{SHIPPED_SCENES, Scene, load_scene};
use crate::solver::Settings;

/// Measurements of one scene.
#[derive(Clone, Debug)]
pub struct SceneBench {
    pub name: String,
    pub n: usize,
    pub m: usize,
    pub rank: usize,
    pub dof: usize,
    pub events: usize,
    pub traditional_flips: usize,
    pub continued_flips: usize,
    pub energy_drift: f64,
    pub wall: [Duration; 2],
    pub qr_only: [Duration; 2],
    pub factorizations: [u64; 2],
}

const STEP_SIZES: [f64; 2] = [1e-3, 1e-4];
/// Jacobians sampled along a run to time the factorisations on their own.
const SAMPLES: usize = 512;

fn bench_scene(scene: &Scene, t_end: f64) -> Result<SceneBench, CliError> {
    let mechanism = &scene.mechanism;
    let mut result = SceneBench {
        name: scene.title.clone(),
        n: mechanism.n(),
        m: mechanism.m(),
        rank: 0,
        dof: 0,
        events: 0,
        traditional_flips: 0,
        continued_flips: 0,
        energy_drift: 0.0,
        wall: [Duration::ZERO; 2],
        qr_only: [Duration::ZERO; 2],
        factorizations: [0; 2],
    };
    for (slot, &dt) in STEP_SIZES.iter().enumerate() {
        let settings = Settings {
            dt,
            ..scene.settings.clone()
        };
        let mut sim = scene
            .simulation_with(settings)
            .map_err(|e| CliError::solver(&scene.file, e))?;
        let e0 = sim.energy();
        let mut drift: f64 = 0.0;
        let mut events = 0;
        let mut jacobians = Vec::with_capacity(SAMPLES);
        let expected_steps = (t_end / dt).ceil() as u64;
        let sample_every = (expected_steps / SAMPLES as u64).max(1);
        let start = Instant::now();
        while sim.time() < t_end - 1e-9 * dt {
            let report = sim
                .step_until(t_end)
                .map_err(|e| CliError::solver(&scene.file, e))?;
            drift = drift.max((report.energy - e0).abs());
            events += report.events;
            if jacobians.len() < SAMPLES && sim.counters().steps % sample_every == 0 {
                let mut a = DMatrix::zeros(mechanism.m(), mechanism.n());
                mechanism.jacobian(sim.positions(), &mut a);
                jacobians.push(a);
            }
        }
        result.wall[slot] = start.elapsed();
        let count = sim.counters().factorizations;
        result.factorizations[slot] = count;
        // The same number of factorisations, cycling over Jacobians met along the run.
        let mut qr = PivotedQr::new(mechanism.n(), mechanism.m());
        let start = Instant::now();
        for i in 0..count as usize {
            qr.factorize_transposed(&jacobians[i % jacobians.len()]);
        }
        result.qr_only[slot] = start.elapsed();
        std::hint::black_box(qr.r_diag_abs(0));
        if slot == 0 {
            result.rank = sim.generic_rank();
            result.dof = mechanism.n() - sim.generic_rank();
            result.events = events;
            result.traditional_flips = sim
                .basis(crate::solver::BasisMode::Traditional)
                .total_sign_flips();
            result.continued_flips = sim
                .basis(crate::solver::BasisMode::Continued)
                .total_sign_flips();
            result.energy_drift = drift;
        }
    }
    Ok(result)
}

/// The shipped scenes and `four_bar_stopping` (the README's table), from `./scenes`.
fn default_scenes() -> Result<Vec<PathBuf>, CliError> {
    let scenes: Vec<PathBuf> = SHIPPED_SCENES
        .iter()
        .chain(&["four_bar_stopping"])
        .map(|name| PathBuf::from(format!("scenes/{name}.ron")))
        .collect();
    if !scenes[0].is_file() {
        return Err(CliError::NoShippedScenes);
    }
    Ok(scenes)
}

/// Runs the benchmark and prints a Markdown table on stdout.
pub fn bench(args: &BenchArgs) -> Result<(), CliError> {
    // The runs at dt 1e-4 take t_end / 1e-4 steps: as `run`, at most 1e9.
    if args.t_end > 1e5 {
        return Err(CliError::BenchTooLong { t_end: args.t_end });
    }
    let paths = if args.scenes.is_empty() {
        default_scenes()?
    } else {
        args.scenes.clone()
    };
    // Every scene loads before the table starts, so a bad one leaves no half table.
    let scenes = paths
        .iter()
        .map(|path| load_scene(path).map_err(CliError::from))
        .collect::<Result<Vec<_>, _>>()?;
    // Each row as soon as it is measured; a reader that closes stdout ends the bench quietly.
    let mut out = io::stdout().lock();
    let table_error = |e| CliError::write(Stream::Table, e);
    writeln!(
        out,
        "| scene | n | m | rank | dof | events ({t} s, dt 1e-3) | traditional flips | continued flips | max energy drift (J) | wall dt=1e-3 (s) | QR only (s) | wall dt=1e-4 (s) | QR only (s) |",
        t = args.t_end
    )
    .map_err(table_error)?;
    writeln!(out, "|---|---|---|---|---|---|---|---|---|---|---|---|---|").map_err(table_error)?;
    for (path, scene) in paths.iter().zip(&scenes) {
        let b = bench_scene(scene, args.t_end)?;
        writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {:.2e} | {:.3} | {:.3} | {:.3} | {:.3} |",
            path.file_stem().and_then(|s| s.to_str()).unwrap_or("?"),
            b.n,
            b.m,
            b.rank,
            b.dof,
            b.events,
            b.traditional_flips,
            b.continued_flips,
            b.energy_drift,
            b.wall[0].as_secs_f64(),
            b.qr_only[0].as_secs_f64(),
            b.wall[1].as_secs_f64(),
            b.qr_only[1].as_secs_f64(),
        )
        .map_err(table_error)?;
    }
    Ok(())
}
