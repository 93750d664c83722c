//! `singulab analyze`: the redundancy of a scene's constraints at its start (or at a time of its
//! run), its self-stress modes and which joint reactions the rigid model determines
//! (`solver::reactions` says how), as text or as one JSON object (`singulab analyze --help`
//! documents both).

use std::io::{self, Write};

use nalgebra::DMatrix;
use serde::Serialize;

use super::args::AnalyzeArgs;
use super::error::{CliError, FileSite, Stream};
use super::run_limits::MAX_STEPS;
use crate::linalg::PivotedQr;
use crate::model::Mechanism;
use crate::number_text::number_text;
use crate::scene::{Scene, load_scene};
use crate::solver::{Reactions, SOLVABILITY_TOLERANCE, Simulation, solvability};

/// Self-stress mode entries smaller than this are left out of the text form.
const MODE_PRINT_FLOOR: f64 = 1e-9;

/// What `analyze` reports (its JSON form).
#[derive(Clone, Debug, Serialize)]
pub struct Analysis {
    pub scene: String,
    pub t: f64,
    pub n: usize,
    pub m: usize,
    pub position_rows: usize,
    pub velocity_rows: usize,
    pub rank_position: usize,
    pub rank_velocity: usize,
    pub rank: usize,
    pub redundancy: usize,
    pub dof: usize,
    /// The relative tolerance of the ranks above (the dynamics' `rank_tolerance`).
    pub rank_tolerance: f64,
    /// The rank of all rows at the scene's `detection_tolerance`, the one `run --events`
    /// reports, and its deficiency from the generic rank (a singular configuration when > 0).
    pub detection_tolerance: f64,
    pub rank_detection: usize,
    pub deficiency: usize,
    pub tolerance: f64,
    pub row_names: Vec<String>,
    pub self_stress_modes: Vec<Vec<f64>>,
    pub joints: Vec<JointReport>,
}

#[derive(Clone, Debug, Serialize)]
pub struct JointReport {
    pub name: String,
    pub unique: bool,
    pub components: Vec<ComponentReport>,
}

#[derive(Clone, Debug, Serialize)]
pub struct ComponentReport {
    pub name: String,
    pub value: f64,
    pub unique: bool,
    pub largest_change: f64,
}

/// Runs `singulab analyze`, printing to stdout.
pub fn analyze(args: &AnalyzeArgs) -> Result<(), CliError> {
    let scene = load_scene(&args.scene)?;
    let analysis = analysis_of(&scene, args.time)?;
    let mut out = io::stdout().lock();
    let text = if args.json {
        serde_json::to_string_pretty(&analysis).expect("numbers and strings serialise")
    } else {
        analysis.text()
    };
    writeln!(out, "{text}").map_err(|e| CliError::write(Stream::Table, e))
}

/// The analysis of `scene` at its start, or after running it to `time`.
pub fn analysis_of(scene: &Scene, time: Option<f64>) -> Result<Analysis, CliError> {
    let mut sim = simulation_at(scene, time.unwrap_or(0.0))?;
    let mechanism = sim.mechanism().clone();
    let mut reactions = Reactions::new(&mechanism);
    sim.solve_reactions(&mut reactions)
        .map_err(|e| CliError::solver(scene, e))?;
    let x = sim.positions().clone();
    let mut a = DMatrix::zeros(mechanism.m(), mechanism.n());
    mechanism.jacobian(&x, &mut a);
    let tolerance = sim.settings().rank_tolerance;
    let (rank_position, rank_velocity) = level_ranks(&mechanism, &a, tolerance);
    let detection_tolerance = sim.settings().detection_tolerance;
    let rank_detection = rank_of(&a, detection_tolerance);
    let verdict = solvability(&mechanism, &x, &a, &reactions);
    let mut values = [0.0; 6];
    let joints = verdict
        .iter()
        .map(|joint| {
            mechanism.joint_reaction(joint.joint, &x, &a, reactions.lambda(), &mut values);
            JointReport {
                name: mechanism.joints()[joint.joint].name.clone(),
                unique: joint.unique(),
                components: joint
                    .components
                    .iter()
                    .zip(values)
                    .map(|(c, value)| ComponentReport {
                        name: c.name.to_string(),
                        value,
                        unique: c.unique,
                        largest_change: c.largest_change,
                    })
                    .collect(),
            }
        })
        .collect();
    let velocity_rows = mechanism
        .joints()
        .iter()
        .filter(|j| j.is_velocity_level())
        .map(|j| j.rows())
        .sum();
    Ok(Analysis {
        scene: scene.file.clone(),
        t: sim.time(),
        n: mechanism.n(),
        m: mechanism.m(),
        position_rows: mechanism.m() - velocity_rows,
        velocity_rows,
        rank_position,
        rank_velocity,
        rank: mechanism.m() - reactions.redundancy(),
        redundancy: reactions.redundancy(),
        dof: mechanism.n() + reactions.redundancy() - mechanism.m(),
        rank_tolerance: tolerance,
        detection_tolerance,
        rank_detection,
        deficiency: sim.generic_rank().saturating_sub(rank_detection),
        tolerance: SOLVABILITY_TOLERANCE,
        row_names: row_names(&mechanism),
        self_stress_modes: (0..reactions.redundancy())
            .map(|k| reactions.mode(k).iter().copied().collect())
            .collect(),
        joints,
    })
}

/// The ranks of the position-level rows and of the velocity-level rows of `a`, at the relative
/// rank tolerance `tolerance` (each relative to its own largest `R` entry).
fn level_ranks(mechanism: &Mechanism, a: &DMatrix<f64>, tolerance: f64) -> (usize, usize) {
    let (n, m) = (mechanism.n(), mechanism.m());
    let mut qr = PivotedQr::new(n, m);
    let mut position = a.clone();
    mechanism.clear_velocity_rows(&mut position);
    qr.factorize_without_q(&position);
    let rank_position = qr.rank(tolerance);
    let velocity = a - &position;
    qr.factorize_without_q(&velocity);
    (rank_position, qr.rank(tolerance))
}

/// The rank of all rows of `a` at the relative tolerance `tolerance`.
fn rank_of(a: &DMatrix<f64>, tolerance: f64) -> usize {
    let mut qr = PivotedQr::new(a.ncols(), a.nrows());
    qr.factorize_without_q(a);
    qr.rank(tolerance)
}

/// `JOINT#k` for the k-th row of each joint (1-based).
fn row_names(mechanism: &Mechanism) -> Vec<String> {
    mechanism
        .joints()
        .iter()
        .flat_map(|j| (1..=j.rows()).map(move |k| format!("{}#{k}", j.name)))
        .collect()
}

impl Analysis {
    /// The rank at the detection tolerance, and whether it makes a singular configuration.
    fn detection_text(&self) -> String {
        let verdict = if self.deficiency > 0 {
            format!(
                "a singular configuration, deficiency {}, redundancy p = {}",
                self.deficiency,
                self.m - self.rank_detection
            )
        } else {
            "not a singular configuration".to_string()
        };
        format!(
            "all rows {} at the detection tolerance {} (the rank run --events reports): {verdict}",
            self.rank_detection,
            number_text(self.detection_tolerance)
        )
    }

    /// The text form.
    pub fn text(&self) -> String {
        let mut s = format!(
            "scene {} at t = {} s\n\
             coordinates n = {}, constraint rows m = {} ({} position-level, {} velocity-level)\n\
             rank: position-level rows {}, velocity-level rows {}, all rows {}; {}\n\
             redundancy p = {}, degrees of freedom {} (at the dynamics' rank tolerance {}, as the modes and reactions below)\n",
            self.scene,
            self.t,
            self.n,
            self.m,
            self.position_rows,
            self.velocity_rows,
            self.rank_position,
            self.rank_velocity,
            self.rank,
            self.detection_text(),
            self.redundancy,
            self.dof,
            number_text(self.rank_tolerance)
        );
        for (k, mode) in self.self_stress_modes.iter().enumerate() {
            let entries: Vec<String> = mode
                .iter()
                .zip(&self.row_names)
                .filter(|(v, _)| v.abs() > MODE_PRINT_FLOOR)
                .map(|(v, name)| format!("{name} {v:+.4}"))
                .collect();
            s += &format!("self-stress mode {}: {}\n", k + 1, entries.join(", "));
        }
        s += "reactions on each joint's first body, global axes (N, N m), minimum-norm values; \
              \"not unique\": the rigid model does not determine it\n";
        for joint in &self.joints {
            let parts: Vec<String> = joint
                .components
                .iter()
                .map(|c| {
                    let verdict = if c.unique { "unique" } else { "not unique" };
                    format!("{} {:+.6e} ({verdict})", c.name, c.value)
                })
                .collect();
            s += &format!("  {}: {}\n", joint.name, parts.join(", "));
        }
        let names = |unique: bool| {
            let list: Vec<&str> = self
                .joints
                .iter()
                .filter(|j| j.unique == unique)
                .map(|j| j.name.as_str())
                .collect();
            if list.is_empty() {
                "none".to_string()
            } else {
                list.join(", ")
            }
        };
        s += &format!("unique reactions: {}\n", names(true));
        s += &format!("not unique: {}", names(false));
        s
    }
}

/// The scene's simulation run to `time` (its start for 0); refused up front, as `run` refuses
/// it, when that is more than [`MAX_STEPS`] steps.
fn simulation_at(scene: &Scene, time: f64) -> Result<Simulation, CliError> {
    let mut sim = scene.simulation().map_err(|e| CliError::solver(scene, e))?;
    let dt = sim.settings().dt;
    if time / dt > MAX_STEPS {
        return Err(CliError::TooManySteps {
            site: Box::new(FileSite::file(&scene.file)),
            time: "--time",
            advice: "use an earlier --time",
            from_arguments: true,
            t_end: time,
            dt,
            steps: time / dt,
            limit: MAX_STEPS,
        });
    }
    while sim.time() < time * (1.0 - 1e-12) {
        sim.step_until(time)
            .map_err(|e| CliError::solver(scene, e))?;
    }
    Ok(sim)
}
