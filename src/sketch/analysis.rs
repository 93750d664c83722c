//! The counts shown beside a sketch while it is drawn, from the scene file it saves as (so
//! what is shown is what will run): the analysis `singulab analyze` prints.

use super::{Sketch, SketchError, scene_text};
use crate::cli::analyze::analysis_of;
use crate::scene::{Scene, parse_scene};

/// The sketch's constraint counts at its pose.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SketchAnalysis {
    /// Coordinates (3 per bar).
    pub n: usize,
    /// Constraint rows (2 per pin and revolute joint).
    pub m: usize,
    pub rank: usize,
    /// `n - rank`: the motions the pose admits.
    pub dof: usize,
    /// Grübler's count `n - m` (negative when the rows outnumber the coordinates).
    pub grubler: i64,
    /// `m - rank`: rows the others already imply, each a self-stress mode.
    pub redundancy: usize,
    /// The self-stress modes: per mode, each joint row's share (`JOINT#k`, value), the rows
    /// that carry none left out.
    pub self_stress: Vec<Vec<(String, f64)>>,
    /// The rank at the detection tolerance falls below the generic rank: a singular pose.
    pub singular: bool,
}

/// Mode entries smaller than this are left out of [`SketchAnalysis::self_stress`].
const MODE_FLOOR: f64 = 1e-9;

/// The scene `sketch` saves as, loaded.
pub fn sketch_scene(sketch: &Sketch) -> Result<Scene, SketchError> {
    parse_scene("sketch.ron", &scene_text(sketch)).map_err(|e| SketchError::Scene(e.message))
}

/// The counts of `sketch` (all zero without a bar).
pub fn analyse(sketch: &Sketch) -> Result<SketchAnalysis, SketchError> {
    if sketch.bars.is_empty() {
        return Ok(SketchAnalysis::default());
    }
    analyse_scene(&sketch_scene(sketch)?)
}

/// The counts of a sketch's scene ([`sketch_scene`]), loaded once for the counts and the
/// window's session.
pub fn analyse_scene(scene: &Scene) -> Result<SketchAnalysis, SketchError> {
    let a = analysis_of(scene, None).map_err(|e| SketchError::Scene(e.to_string()))?;
    let self_stress = a
        .self_stress_modes
        .iter()
        .map(|mode| {
            a.row_names
                .iter()
                .zip(mode)
                .filter(|(_, v)| v.abs() > MODE_FLOOR)
                .map(|(name, v)| (name.clone(), *v))
                .collect()
        })
        .collect();
    Ok(SketchAnalysis {
        n: a.n,
        m: a.m,
        rank: a.rank,
        dof: a.dof,
        grubler: a.n as i64 - a.m as i64,
        redundancy: a.redundancy,
        self_stress,
        singular: a.deficiency > 0,
    })
}
