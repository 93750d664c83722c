//! The scene's configuration-space atlas ([`crate::atlas`]), computed on a thread of its own
//! when a scene loads (the frames go on meanwhile; a new scene cancels it; a scene opened again
//! with the same text takes it from a cache), and what its plot
//! (`plots::configuration`) shows: the axes and the run's path. Presenting, key G puts the
//! plot beside the canvas; recordings (`singulab record`) do not show it yet.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use bevy::prelude::*;

use super::drawing::ViewState;
use super::simulation::Live;
use super::sketcher::state::Sketcher;
use crate::atlas::{Atlas, AtlasSettings, angle_coordinates, default_holds, trace_atlas};
use crate::model::Mechanism;

/// Points traced at most for the window's plot (the mobile robot's free platform stops there).
const MAX_POINTS: usize = 20_000;
/// Samples of the run's path kept for the plot.
pub(in crate::app) const PATH_SAMPLES: usize = 4000;

/// The atlas of the open scene, the job computing it, and what the plot shows.
#[derive(Resource)]
pub struct AtlasView {
    /// The plot is shown (the plots panel's checkbox).
    pub shown: bool,
    generation: Option<u64>,
    job: Option<Job>,
    pub(in crate::app) atlas: Option<Result<Arc<Atlas>, String>>,
    /// The coordinates on the plot's axes.
    pub(in crate::app) axes: Option<[usize; 2]>,
    /// The run's path on the plot's axes since the scene loaded or the run jumped.
    pub(in crate::app) path: VecDeque<[f64; 2]>,
    pub(in crate::app) path_key: Option<(u64, u64, [usize; 2])>,
    /// The atlases traced, by the text of their scene file: opening a scene again (or a
    /// lesson on it) shows its atlas at once; an edited file is traced anew.
    cache: HashMap<Arc<str>, Arc<Atlas>>,
}

impl Default for AtlasView {
    fn default() -> Self {
        Self {
            shown: true,
            generation: None,
            job: None,
            atlas: None,
            axes: None,
            path: VecDeque::new(),
            path_key: None,
            cache: HashMap::new(),
        }
    }
}

impl AtlasView {
    /// Whether the open scene's atlas was traced (`Some(false)`: it failed), `None` while
    /// its job runs.
    pub fn traced(&self) -> Option<bool> {
        self.atlas.as_ref().map(Result::is_ok)
    }
}

struct Job {
    /// The scene file's text, the cache's key.
    key: Arc<str>,
    cancel: Arc<AtomicBool>,
    out: Arc<Mutex<Option<Result<Atlas, String>>>>,
}

pub struct AtlasViewPlugin;

impl Plugin for AtlasViewPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<AtlasView>()
            // After the commands: a scene opened this frame gets its atlas view before the
            // egui pass draws the plot with it.
            .add_systems(
                Update,
                (start_on_load, collect)
                    .chain()
                    .after(super::SingulabSystems::Commands),
            );
    }
}

/// A scene loaded: the job of the scene before is cancelled and one for this one starts; a
/// video that shows the plot traces it at once, so that its first frame shows it as every
/// other does (the video stays the same however fast the machine).
fn start_on_load(
    live: Res<Live>,
    shown: Res<ViewState>,
    sketcher: Option<Res<Sketcher>>,
    mut view: ResMut<AtlasView>,
) {
    // Edit mode rebuilds the session at every edit (every frame of a drag) and shows no
    // plot: the drawn mechanism is traced once it is played or left.
    if view.generation == Some(live.generation) || sketcher.is_some_and(|s| s.active) {
        return;
    }
    if let Some(job) = view.job.take() {
        job.cancel.store(true, Ordering::Relaxed);
    }
    view.start(live.generation);
    let scene = live.session.scene();
    let mechanism: Arc<Mechanism> = scene.mechanism.clone();
    let key = scene.source.clone();
    if let Some(atlas) = view.cache.get(&key).cloned() {
        view.show(Ok(atlas), &mechanism, None);
        return;
    }
    let x0 = scene.x0.clone();
    let settings = AtlasSettings {
        max_points: MAX_POINTS,
        detection_tolerance: scene.settings.detection_tolerance,
        rank_tolerance: scene.settings.rank_tolerance,
        normal_truncation: scene.settings.normal_truncation,
        newton_tolerance: scene.settings.newton_tolerance,
        holds: default_holds(&mechanism, &x0, scene.settings.rank_tolerance),
    };
    // A video traces before its first frame; a browser has no threads to trace on (the page
    // waits for the trace once, as a video does).
    if (shown.video && shown.atlas_beside) || cfg!(target_arch = "wasm32") {
        let result = trace_atlas(&mechanism, &x0, &settings, &AtomicBool::new(false));
        view.show(result.map_err(|e| e.to_string()), &mechanism, Some(key));
        return;
    }
    let cancel = Arc::new(AtomicBool::new(false));
    let out = Arc::new(Mutex::new(None));
    let (job_cancel, job_out) = (cancel.clone(), out.clone());
    std::thread::spawn(move || {
        let result =
            trace_atlas(&mechanism, &x0, &settings, &job_cancel).map_err(|e| e.to_string());
        if let Ok(mut slot) = job_out.lock() {
            *slot = Some(result);
        }
    });
    view.job = Some(Job { key, cancel, out });
}

impl AtlasView {
    /// Whether what it shows is of the scene loaded as `generation` (a scene opened this
    /// frame has not been seen yet).
    pub fn is_of(&self, generation: u64) -> bool {
        self.generation == Some(generation)
    }

    /// Forgets what was shown for the scene before (not the cache, not the checkbox).
    fn start(&mut self, generation: u64) {
        *self = AtlasView {
            shown: self.shown,
            generation: Some(generation),
            cache: std::mem::take(&mut self.cache),
            ..AtlasView::default()
        };
    }

    /// Shows a traced atlas (or why there is none) on its default axes, kept in the cache
    /// under `key` when given.
    fn show(
        &mut self,
        result: Result<impl Into<Arc<Atlas>>, String>,
        mechanism: &Mechanism,
        key: Option<Arc<str>>,
    ) {
        let result = result.map(Into::into);
        self.axes = result
            .as_ref()
            .ok()
            .map(|atlas| default_axes(atlas, mechanism));
        if let (Some(key), Ok(atlas)) = (key, &result) {
            self.cache.insert(key, atlas.clone());
        }
        self.atlas = Some(result);
    }
}

/// Takes the job's atlas when it is done.
fn collect(live: Res<Live>, mut view: ResMut<AtlasView>) {
    let done = view
        .job
        .as_ref()
        .and_then(|job| job.out.lock().ok().and_then(|mut slot| slot.take()));
    if let Some(result) = done
        && let Some(job) = view.job.take()
    {
        view.show(result, &live.session.scene().mechanism, Some(job.key));
    }
}

/// The plot's default axes: the first and the last planar angle that move along the curves
/// (a linkage's first and last crank: the four-bar's input-output plane, A02's two loops);
/// without two of them, the two coordinates the curves spread most over (a pendulum's bob).
fn default_axes(atlas: &Atlas, mechanism: &Mechanism) -> [usize; 2] {
    let n = mechanism.n();
    let mut range = vec![(f64::INFINITY, f64::NEG_INFINITY); n];
    for curve in &atlas.curves {
        for k in 0..curve.len() {
            for (r, &v) in range.iter_mut().zip(curve.point(k)) {
                *r = (r.0.min(v), r.1.max(v));
            }
        }
    }
    let spread = |i: usize| range[i].1 - range[i].0;
    let angles = angle_coordinates(mechanism);
    let moving_angles: Vec<usize> = (0..n).filter(|&i| angles[i] && spread(i) > 1e-3).collect();
    if let (Some(&first), Some(&last)) = (moving_angles.first(), moving_angles.last())
        && first != last
    {
        return [first, last];
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&i, &j| spread(j).total_cmp(&spread(i)).then(i.cmp(&j)));
    let first = order.first().copied().unwrap_or(0);
    let second = order.get(1).copied().unwrap_or(first);
    [first.min(second), first.max(second)]
}
