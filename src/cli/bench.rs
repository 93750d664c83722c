//! `singulab bench`: per scene, the sizes and ranks, the singular configurations passed, the
//! sign flips of both bases, the energy drift, and the run time at dt = 1e-3 and 1e-4 with the
//! time the QR factorisations of the same run take on their own. Without scene files it runs
//! the shipped scenes from `./scenes` (run it from the repository's root). Build with
//! `--release` before quoting its times.
//!
//! # The shipped scenes
//!
//! Nine linkages and pendulums with the parameters and initial conditions of their sources
//! (Zhou et al. 2023, sect. 3, for the pendulums; Masarati et al. 2023, sect. 3, and Quro
//! 2023, table 5.1, for the linkages): `planar_pendulum`, `redundant_pendulum` (the same
//! constraint written twice), `spatial_pendulum`, `four_bar`, `double_four_bar` (the IFToMM
//! benchmark A02), `modified_double_four_bar`, `modified_triple_four_bar`, `modified_2x2` and
//! `modified_2x3` (two stacked stages, two degrees of freedom). A tenth, `four_bar_stopping`, is the
//! experiment of Quro 2023, sect. 5.2.2: the four-bar launched from hanging down with just the
//! energy to reach its flat pose (crank rate `-sqrt(4 g / I)`, `I = 5/3`, checked in
//! `tests/solver/common.rs`), where it stops and can be pushed onto the fold.
//!
//! Two spatial scenes of rigid bodies in Euler parameters follow Zhou et al. 2023, with the
//! choices their `description`s state:
//! - `slider_crank`, the IFToMM spatial slider-crank (sect. 3.2). The slider's travel is the
//!   geometry's, 0.1849519 to 0.2901600 m. At the paper's step, dt = 1e-5
//!   (`singulab run scenes/slider_crank.ron --t-end 1.2 --dt 1e-5`), its extremes are
//!   0.2901600 m at 0.2729 s, 0.1849519 m at 0.5003 s, 0.2901600 m at 0.8518 s and
//!   0.1849519 m at 1.0792 s, against 0.290059, 0.184953, 0.290120 and 0.184955 m at 0.27,
//!   0.50, 0.85 and 1.08 s published for the benchmark: within 2e-4 m and 0.01 s (asserted,
//!   with our own one-degree-of-freedom reduction, in `tests/solver/rigid_dynamics.rs`). The
//!   published first maximum lies below the geometry's maximum, which the crank reaches on
//!   every turn. The traditional basis flips about one step in four: its one column is the
//!   last of a QR whose pivots change order as the crank turns (the paper's, with Matlab's
//!   QR, flips "occasionally").
//! - `spin_top` (sect. 3.4): energy, the vertical angular momentum about the origin and the
//!   body spin are conserved (asserted to 1e-8 relative over 10 s). With 0.3 rad/s of spin the
//!   top cannot stand: it falls over and its tip slides over the sphere.
//!
//! # What it measures
//!
//! `singulab bench` (10 s runs with RK4 and each scene's other settings) prints a Markdown
//! table; `--markdown docs/measurements.md` also writes it there, dated, between the lines
//! [`BENCH_BEGIN`] and [`BENCH_END`]. These columns do not depend on the machine:
//!
//! - *n*, *m*, *rank* (generic), *dof* and the *singular rank* are asserted by
//!   `cargo test --test solver ranks`. The singular rank is the rank at the events passed: for
//!   the stacked scenes, one stage flat and then both.
//! - *events* counts the singular configurations passed in 10 s at dt = 1e-3.
//! - *traditional flips* counts the sign flips of the traditional basis over the same run
//!   (why: `src/solver/basis.rs`); *continued flips* those of the continued basis, which has
//!   none (`cargo test --test solver continued_basis`).
//! - *drift* is the largest `|E - E0|` over the run. It is made at the crossings, unevenly, so
//!   it is a property of the run's length (`singulab run scenes/double_four_bar.ron --t-end
//!   20` for A02 over 20 s); benchmark A02 bounds it by 1e-4 E0 (3.6e-3 J).
//! - *factorisations per step* of `A^T`, at dt 1e-3 and 1e-4: the one at the step's end
//!   (Newton's corrections before it use the step start's factorisation away from singular
//!   configurations, `solver::projection`), the Runge-Kutta stages taken in the tangent space
//!   (one each, after simplified Newton) and the searches for events. About 1.1 to 1.5 on the
//!   planar scenes and the spatial pendulum, whose stages are taken in the range space away from
//!   singular configurations; about 4 on the rigid bodies (their stages always in the tangent
//!   space); 10 on the mobile robot, whose knife edges keep full Newton at the stages.
//! - *range-space stages per step*: Runge-Kutta stages whose accelerations come from a
//!   Cholesky factorisation of `A M^-1 A^T` at the stage state as it is, unprojected
//!   (`solver::range_space`): three per step (RK4's last three; the first reuses the state's
//!   factorisation) where every step of the run starts away from singular configurations,
//!   fewer where steps start next to one.
//!
//! The other columns depend on the machine and on what else it runs (`-` for a run too short
//! to time: the thread's CPU clock advances in scheduler ticks, and the continuation overhead
//! needs turns of 200 steps):
//! - *CPU s per simulated s* at dt 1e-3 and 1e-4: the CPU time of the run's thread (Linux:
//!   `/proc/thread-self/schedstat`; wall time elsewhere) over the 10 simulated seconds, and
//!   its inverse, *x real time*, how many times faster than real time the solver runs on one
//!   core;
//! - *continuation overhead*: the time of a run that brings the continued basis along (its
//!   predictor and corrector) over that of a run that tracks the traditional basis alone
//!   ([`Simulation::set_continued_tracking`]), minus 1, at dt 1e-3. The two runs take turns
//!   of 200 steps, each turn timed, and the median of the turns' ratios is given, so that what
//!   else the machine does falls on both runs alike (the motion is the same in both).
//!
//! Where a step's time goes on the largest scene is in docs/measurements.md too. The continued basis costs more than the traditional one alone by the
//! predictor's work per step: `J R1^-1` (about n^3 / 6) and six or seven products of the
//! n x n `Omega` with the basis.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::args::BenchArgs;
use super::error::{CliError, Stream};
use crate::scene::{SHIPPED_SCENES, Scene, load_scene};
use crate::solver::{BasisMode, Settings, Simulation};

/// Measurements of one scene.
#[derive(Clone, Debug)]
pub struct SceneBench {
    pub name: String,
    pub n: usize,
    pub m: usize,
    pub rank: usize,
    pub dof: usize,
    pub events: usize,
    /// The ranks at the singular events passed, highest first.
    pub singular_ranks: Vec<usize>,
    pub traditional_flips: usize,
    pub continued_flips: usize,
    /// `None` for scenes with drivers, whose energy changes by their work.
    pub energy_drift: Option<f64>,
    /// CPU time of the runs at `STEP_SIZES`, per simulated second.
    pub cpu_per_second: [f64; 2],
    /// Factorisations of `A^T` per step of the same runs.
    pub factorizations_per_step: [f64; 2],
    /// Runge-Kutta stages taken in the range space per step of the same runs.
    pub range_space_stages_per_step: [f64; 2],
    /// CPU time with the continued basis over that with the traditional basis alone, minus 1
    /// (dt 1e-3: `continuation_overhead`); NaN for runs too short to measure it.
    pub continuation_overhead: f64,
}

const STEP_SIZES: [f64; 2] = [1e-3, 1e-4];
/// The two runs behind the continuation overhead (continued, traditional only) advance in
/// turns of this many steps each, timed on their own, so that a busy moment of the machine
/// falls on one pair of turns, which the median leaves out, rather than on the ratio.
const OVERHEAD_BLOCK: u64 = 200;

/// CPU time of the calling thread (Linux: `/proc/thread-self/schedstat`, in ns), or `None`
/// where it cannot be read.
fn thread_cpu_time() -> Option<Duration> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanos = text.split_whitespace().next()?.parse::<u64>().ok()?;
    Some(Duration::from_nanos(nanos))
}

/// Time spent by the calling thread from its start: CPU time where the system gives it (the
/// machine's other work then counts less), wall time otherwise.
pub(super) struct Clock {
    cpu: Option<Duration>,
    wall: Instant,
}

impl Clock {
    pub(super) fn start() -> Self {
        Self {
            cpu: thread_cpu_time(),
            wall: Instant::now(),
        }
    }

    pub(super) fn elapsed(&self) -> Duration {
        match (self.cpu, thread_cpu_time()) {
            (Some(start), Some(now)) => now.saturating_sub(start),
            _ => self.wall.elapsed(),
        }
    }
}

/// What one run to `t_end` measured.
struct Run {
    time: Duration,
    steps: u64,
    factorizations: u64,
    range_space_stages: u64,
    events: usize,
    /// The ranks at the events, highest first.
    singular_ranks: Vec<usize>,
    drift: f64,
    sim: Simulation,
}

/// Runs `scene` with `settings` to `t_end`, the continued basis tracked or not.
fn run(scene: &Scene, settings: Settings, t_end: f64, continued: bool) -> Result<Run, CliError> {
    let mut sim = scene
        .simulation_with(settings)
        .map_err(|e| CliError::solver(scene, e))?;
    sim.set_continued_tracking(continued);
    let dt = sim.settings().dt;
    let e0 = sim.energy();
    let (mut drift, mut events) = (0.0_f64, 0);
    let mut ranks = std::collections::BTreeSet::new();
    let clock = Clock::start();
    while sim.time() < t_end - 1e-9 * dt {
        let report = sim
            .step_until(t_end)
            .map_err(|e| CliError::solver(scene, e))?;
        drift = drift.max((report.energy - e0).abs());
        events += report.events;
        ranks.extend(sim.step_events().iter().map(|e| e.rank));
    }
    let time = clock.elapsed();
    let counters = sim.counters();
    Ok(Run {
        time,
        steps: counters.steps,
        factorizations: counters.factorizations,
        range_space_stages: counters.range_space_stages,
        events,
        singular_ranks: ranks.into_iter().rev().collect(),
        drift,
        sim,
    })
}

/// The continuation overhead at `settings`: a run to `t_end` with the continued basis and one
/// with the traditional basis alone advance in turns of `OVERHEAD_BLOCK` steps (which goes
/// first alternates), and the median over the turns of the ratio of their (wall) times,
/// minus 1.
fn continuation_overhead(scene: &Scene, settings: Settings, t_end: f64) -> Result<f64, CliError> {
    let dt = settings.dt;
    let make = |continued| -> Result<Simulation, CliError> {
        let mut sim = scene
            .simulation_with(settings.clone())
            .map_err(|e| CliError::solver(scene, e))?;
        sim.set_continued_tracking(continued);
        Ok(sim)
    };
    let mut sims = [make(true)?, make(false)?];
    let mut ratios = Vec::new();
    for turn in 0.. {
        let mut times = [Duration::ZERO; 2];
        let mut steps = 0;
        for k in [turn % 2, 1 - turn % 2] {
            let sim = &mut sims[k];
            // Wall time: the thread's CPU time advances in scheduler ticks (ms), longer than a
            // turn of a small scene; a turn the scheduler interrupts is an outlier, which the
            // median leaves out.
            let clock = Instant::now();
            for _ in 0..OVERHEAD_BLOCK {
                if sim.time() >= t_end - 1e-9 * dt {
                    break;
                }
                sim.step_until(t_end)
                    .map_err(|e| CliError::solver(scene, e))?;
                steps += 1;
            }
            times[k] = clock.elapsed();
        }
        if steps < 2 * OVERHEAD_BLOCK {
            break;
        }
        ratios.push(times[0].as_secs_f64() / times[1].as_secs_f64());
    }
    ratios.sort_by(f64::total_cmp);
    Ok(ratios
        .get(ratios.len() / 2)
        .map_or(f64::NAN, |ratio| ratio - 1.0))
}

fn bench_scene(scene: &Scene, t_end: f64) -> Result<SceneBench, CliError> {
    let mechanism = &scene.mechanism;
    let at = |dt| Settings {
        dt,
        ..scene.settings.clone()
    };
    let runs = STEP_SIZES
        .iter()
        .map(|&dt| run(scene, at(dt), t_end, true))
        .collect::<Result<Vec<_>, _>>()?;
    let first = &runs[0];
    let sim = &first.sim;
    Ok(SceneBench {
        name: scene.title.clone(),
        n: mechanism.n(),
        m: mechanism.m(),
        rank: sim.generic_rank(),
        dof: mechanism.n() - sim.generic_rank(),
        events: first.events,
        singular_ranks: first.singular_ranks.clone(),
        traditional_flips: sim.basis(BasisMode::Traditional).total_sign_flips(),
        continued_flips: sim.basis(BasisMode::Continued).total_sign_flips(),
        energy_drift: (!mechanism.is_rheonomic()).then_some(first.drift),
        cpu_per_second: [0, 1].map(|i| runs[i].time.as_secs_f64() / t_end),
        factorizations_per_step: [0, 1]
            .map(|i| runs[i].factorizations as f64 / runs[i].steps.max(1) as f64),
        range_space_stages_per_step: [0, 1]
            .map(|i| runs[i].range_space_stages as f64 / runs[i].steps.max(1) as f64),
        continuation_overhead: continuation_overhead(scene, at(STEP_SIZES[0]), t_end)?,
    })
}

/// The shipped scenes and `four_bar_stopping` (the table in docs/measurements.md), from `./scenes`.
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

/// A time measured, or `-` for a run too short to time: the thread's CPU clock advances in
/// scheduler ticks, so a short run may read 0 s (and its speed infinite).
fn timed(value: f64, format: impl Fn(f64) -> String) -> String {
    if value.is_finite() && value > 0.0 {
        format(value)
    } else {
        "-".to_string()
    }
}

/// The continuation overhead in percent, or `-` for a run too short for one pair of turns.
fn timed_overhead(overhead: f64) -> String {
    if overhead.is_finite() {
        format!("{:+.1} %", 100.0 * overhead)
    } else {
        "-".to_string()
    }
}

/// The line of a Markdown file after which `--markdown` writes the table.
pub const BENCH_BEGIN: &str = "<!-- singulab bench -->";
/// The line before which it ends.
pub const BENCH_END: &str = "<!-- /singulab bench -->";

/// Runs the benchmark and prints a Markdown table on stdout, each row as soon as it is
/// measured; with `--markdown FILE`, also writes it into FILE.
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
    // Every scene loads, and the Markdown file has its markers, before the table starts, so
    // a bad one leaves no half table.
    let scenes = paths
        .iter()
        .map(|path| load_scene(path).map_err(CliError::from))
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(path) = &args.markdown {
        splice_table(path, &read_markdown(path)?, &[])?;
    }
    // A reader that closes stdout ends the bench quietly.
    let mut out = io::stdout().lock();
    let mut table = vec![table_header(args.t_end), TABLE_RULE.to_string()];
    for line in &table {
        writeln!(out, "{line}").map_err(|e| CliError::write(Stream::Table, e))?;
    }
    for (path, scene) in paths.iter().zip(&scenes) {
        let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or("?");
        let row = table_row(name, &bench_scene(scene, args.t_end)?);
        writeln!(out, "{row}").map_err(|e| CliError::write(Stream::Table, e))?;
        table.push(row);
    }
    if let Some(path) = &args.markdown {
        let text = read_markdown(path)?;
        let dated = format!(
            "Measured by `singulab bench --markdown` on {} (UTC), {} s runs:",
            utc_date(std::time::SystemTime::now()),
            args.t_end
        );
        let mut lines = vec![dated, String::new()];
        lines.extend(table);
        let updated = splice_table(path, &text, &lines)?;
        std::fs::write(path, updated).map_err(|source| CliError::Markdown {
            path: path.clone(),
            source,
        })?;
    }
    Ok(())
}

/// The table's header line: the columns the docs explain, in order.
fn table_header(t_end: f64) -> String {
    format!(
        "| scene | n | m | rank | dof | singular rank | events ({t_end} s, dt 1e-3) | traditional flips | continued flips | max energy drift (J) | CPU s per simulated s, dt 1e-3 | x real time | CPU s per simulated s, dt 1e-4 | x real time | factorisations per step, dt 1e-3 / 1e-4 | range-space stages per step, dt 1e-3 / 1e-4 | continuation overhead |"
    )
}

const TABLE_RULE: &str = "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|";

/// One scene's row of the table.
fn table_row(name: &str, b: &SceneBench) -> String {
    let [cpu_coarse, cpu_fine] = b.cpu_per_second;
    let [fact_coarse, fact_fine] = b.factorizations_per_step;
    let [range_coarse, range_fine] = b.range_space_stages_per_step;
    let singular_ranks = if b.singular_ranks.is_empty() {
        "-".to_string()
    } else {
        let ranks: Vec<String> = b.singular_ranks.iter().map(usize::to_string).collect();
        ranks.join(" / ")
    };
    format!(
        "| {name} | {} | {} | {} | {} | {singular_ranks} | {} | {} | {} | {} | {} | {} | {} | {} | {fact_coarse:.2} / {fact_fine:.2} | {range_coarse:.2} / {range_fine:.2} | {} |",
        b.n,
        b.m,
        b.rank,
        b.dof,
        b.events,
        b.traditional_flips,
        b.continued_flips,
        b.energy_drift
            .map_or_else(|| "driven".to_string(), |d| format!("{d:.2e}")),
        timed(cpu_coarse, |v| format!("{v:.4}")),
        timed(1.0 / cpu_coarse, |v| format!("{v:.1}")),
        timed(cpu_fine, |v| format!("{v:.3}")),
        timed(1.0 / cpu_fine, |v| format!("{v:.2}")),
        timed_overhead(b.continuation_overhead),
    )
}

fn read_markdown(path: &Path) -> Result<String, CliError> {
    std::fs::read_to_string(path).map_err(|source| CliError::Markdown {
        path: path.to_path_buf(),
        source,
    })
}

/// `text` with the lines between its [`BENCH_BEGIN`] and [`BENCH_END`] lines replaced by
/// `lines`.
fn splice_table(path: &Path, text: &str, lines: &[String]) -> Result<String, CliError> {
    let all: Vec<&str> = text.lines().collect();
    let begin = all.iter().position(|l| l.trim() == BENCH_BEGIN);
    let end = begin.and_then(|b| {
        all[b..]
            .iter()
            .position(|l| l.trim() == BENCH_END)
            .map(|e| b + e)
    });
    let (Some(begin), Some(end)) = (begin, end) else {
        return Err(CliError::MarkdownMarkers {
            path: path.to_path_buf(),
            begin: BENCH_BEGIN,
            end: BENCH_END,
        });
    };
    let mut out: Vec<&str> = all[..=begin].to_vec();
    out.extend(lines.iter().map(String::as_str));
    out.extend(&all[end..]);
    Ok(out.join("\n") + "\n")
}

/// The UTC date of `time` as YYYY-MM-DD (the civil calendar from days since 1970, after
/// Howard Hinnant's `civil_from_days`).
fn utc_date(time: std::time::SystemTime) -> String {
    let seconds = time
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let z = (seconds / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    #[test]
    fn dates_are_the_civil_calendars() {
        // Known dates: the epoch, a leap day, and the day this test was written.
        let at = |s: u64| utc_date(UNIX_EPOCH + Duration::from_secs(s));
        assert_eq!(at(0), "1970-01-01");
        assert_eq!(at(951_782_400), "2000-02-29");
        assert_eq!(at(1_795_914_000), "2026-11-29");
    }

    #[test]
    fn the_table_goes_between_the_markers_and_the_rest_stays() {
        let path = Path::new("m.md");
        let text = format!("intro\n{BENCH_BEGIN}\nold\nrows\n{BENCH_END}\nafter\n");
        let new = splice_table(path, &text, &["| a |".to_string()]).unwrap();
        assert_eq!(
            new,
            format!("intro\n{BENCH_BEGIN}\n| a |\n{BENCH_END}\nafter\n")
        );
        assert!(matches!(
            splice_table(path, "no markers\n", &[]),
            Err(CliError::MarkdownMarkers { .. })
        ));
    }
}
