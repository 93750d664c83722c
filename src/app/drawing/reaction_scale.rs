//! The reactions' arrows' scale: the largest force of the run, so that one force is drawn at
//! one length from the start of the run to its end and arrows compare across it (a scale of
//! the last second changed tenfold within 0.1 s on the mobile robot, trial 16). The run's
//! largest force is known ahead: traced on a thread from the scene's start (before the user
//! acted) or from the state the user last acted in, to one scene length (20 s at most) past
//! the state shown, sampling the reactions every [`SAMPLE_STEPS`]
//! steps, and raised by every state shown (a push or a drag the trace did not foresee). A
//! reset, a seek or an undo starts afresh. In a browser (no threads) the states shown alone
//! set it. Rounded up to 1, 2, 3 or 5 times a power of ten; forces under [`NO_FORCE`] are
//! rounding and set none.

use std::thread::JoinHandle;

use super::run_frame::{TracedFor, traced_for};
use crate::app::simulation::Live;
use crate::live::{LiveSession, ReactionArrow, ReactionDisplay};

/// Forces under this (newtons) are rounding, not loads: the mobile robot before its driver
/// moves has reactions of 1e-16 N, which no arrow stands for.
pub(super) const NO_FORCE: f64 = 1e-9;

/// Solver steps between the states whose reactions the trace ahead computes (a hundredth of
/// a second at the robot's step: its forces rise and fall over tenths).
const SAMPLE_STEPS: usize = 10;

/// The most simulated seconds the trace runs ahead.
const LONGEST_AHEAD: f64 = 20.0;

/// A force and the joint (index) that carried it.
pub(super) type Peak = (f64, usize);

/// The largest force of the run: traced ahead, and of the states shown.
#[derive(Debug, Default)]
pub(super) struct RunPeak {
    traced_for: Option<TracedFor>,
    /// A trace under way, and what it traces for.
    tracing: Option<(TracedFor, JoinHandle<Option<Peak>>)>,
    peak: Option<Peak>,
    /// The scene's own run's peak (traced from its start, before any action), and the
    /// scene generation it is of.
    own_run: Option<(u64, Peak)>,
}

/// Whether two keys are of one run: one scene, no jump between them.
fn same_run(a: TracedFor, b: TracedFor) -> bool {
    (a.0, a.1) == (b.0, b.1)
}

impl Clone for RunPeak {
    /// A copy holds the peak, not its tracing.
    fn clone(&self) -> Self {
        Self {
            traced_for: None,
            tracing: None,
            peak: self.peak,
            own_run: self.own_run,
        }
    }
}

impl RunPeak {
    /// Brings the peak up to `live`'s state and `shown`, the reactions of the state shown:
    /// starts afresh after a new scene or a jump, traces ahead after the user acted, takes a
    /// finished trace.
    pub(super) fn update(&mut self, live: &Live, shown: Option<&ReactionDisplay>) {
        let key = traced_for(live);
        if self.traced_for.is_some_and(|traced| !same_run(traced, key)) {
            // A trace under way finishes (a seek dragged along would pile up threads) but is
            // not taken.
            self.traced_for = None;
            self.peak = None;
        }
        self.take_trace(key);
        // Before any push, leave or drag the run is the scene's own from its start, whose
        // peak is known once traced: after R the scale is the first run's at once (trial 17:
        // 0.1 N, then 0.3 N a second later, while the trace ran again).
        if self.traced_for.is_none()
            && key.2 == 0
            && let Some((generation, peak)) = self.own_run
            && generation == key.0
        {
            self.raise(Some(peak));
            self.traced_for = Some(key);
        }
        if !cfg!(target_arch = "wasm32") && self.tracing.is_none() && self.traced_for != Some(key) {
            self.start_trace(live, key);
        }
        self.raise(shown.and_then(|display| largest(&display.arrows)));
    }

    /// Takes a finished trace: its peak raises the run's if it traced this run, and is the
    /// scene's own run's if it started before any action.
    fn take_trace(&mut self, key: TracedFor) {
        if !self
            .tracing
            .as_ref()
            .is_some_and(|(_, handle)| handle.is_finished())
        {
            return;
        }
        let Some((traced_for, handle)) = self.tracing.take() else {
            return;
        };
        let peak = handle.join().ok().flatten();
        if traced_for.2 == 0
            && let Some(peak) = peak
        {
            self.own_run = Some((traced_for.0, peak));
        }
        if same_run(traced_for, key) {
            self.raise(peak);
        }
    }

    fn start_trace(&mut self, live: &Live, key: TracedFor) {
        let mut session = live.session.clone();
        let horizon = session.time() + session.scene().t_end.min(LONGEST_AHEAD);
        // Before any push, leave or drag the run shown is the scene's own from its start
        // (`view --time` stepped to its state before the first frame): the scale is that
        // whole run's, as a window played from the start shows it.
        if key.2 == 0 && session.reset().is_err() {
            session = live.session.clone();
        }
        let handle = std::thread::spawn(move || peak_ahead(session, horizon));
        self.tracing = Some((key, handle));
        self.traced_for = Some(key);
    }

    fn raise(&mut self, peak: Option<Peak>) {
        if let Some(peak) = peak
            && self.peak.is_none_or(|(force, _)| peak.0 > force)
        {
            self.peak = Some(peak);
        }
    }

    /// The run's largest force so far, and its joint.
    pub(super) fn peak(&self) -> Option<Peak> {
        self.peak
    }

    /// Whether the trace ahead is done for `live`'s state (a screenshot waits for it: the
    /// scale is then the one a live run shows).
    pub(super) fn is_settled(&self, live: &Live) -> bool {
        cfg!(target_arch = "wasm32")
            || (self.tracing.is_none() && self.traced_for == Some(traced_for(live)))
    }
}

/// The largest force of `arrows` of [`NO_FORCE`] or more, and its joint.
fn largest(arrows: &[ReactionArrow]) -> Option<Peak> {
    arrows
        .iter()
        .map(|arrow| (force_length(arrow), arrow.joint))
        .filter(|&(force, _)| force >= NO_FORCE)
        .max_by(|a, b| a.0.total_cmp(&b.0))
}

pub(super) fn force_length(arrow: &ReactionArrow) -> f64 {
    arrow.force.iter().map(|c| c * c).sum::<f64>().sqrt()
}

/// The largest reaction of `session`'s run to `horizon`, through its events, sampled every
/// [`SAMPLE_STEPS`] steps.
pub(super) fn peak_ahead(mut run: LiveSession, horizon: f64) -> Option<Peak> {
    run.auto_pause = false;
    run.set_stop_time(Some(horizon));
    let mut peak: Option<Peak> = None;
    let budget = 2_000_000usize;
    let mut steps = 0;
    loop {
        let here = ReactionDisplay::of(&run)
            .ok()
            .and_then(|display| largest(&display.arrows));
        if let Some(here) = here
            && peak.is_none_or(|(force, _)| here.0 > force)
        {
            peak = Some(here);
        }
        if (run.is_paused() && steps > 0) || steps >= budget {
            return peak;
        }
        steps += run.run_until_paused(SAMPLE_STEPS).steps.max(1);
    }
}

/// The force `f` rounded up to 1, 2, 3 or 5 times a power of ten: the arrows' scale is a
/// round number, and the largest arrow at least half its length (the robot's 0.27 N to 0.3 N,
/// not 0.5 N, which left its wheels' forces stubs).
pub(super) fn round_scale(f: f64) -> f64 {
    let decade = 10f64.powf(f.log10().floor());
    [1.0, 2.0, 3.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * decade)
        .find(|&step| f <= step * (1.0 + 1e-9))
        .unwrap_or(10.0 * decade)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Scales are round numbers: 1, 2, 3 or 5 times a power of ten, the least not under the
    /// force.
    #[test]
    fn a_scale_is_rounded_up_to_one_two_three_or_five() {
        for (force, scale) in [
            (0.263, 0.3),
            (0.31, 0.5),
            (2.5, 3.0),
            (0.034, 0.05),
            (0.01, 0.01),
            (0.0101, 0.02),
            (1.7, 2.0),
            (5.0, 5.0),
            (7.0, 10.0),
        ] {
            let rounded = round_scale(force);
            assert!((rounded / scale - 1.0).abs() < 1e-12, "{force}: {rounded}");
        }
    }

    /// The peak only grows, and rounding (1.7e-16 N before the robot's driver moves: trial
    /// 15 read "1/5 canvas = 1.7e-16 N") sets none.
    #[test]
    fn the_runs_peak_only_grows_and_rounding_is_no_force() {
        let mut peak = RunPeak::default();
        peak.raise(None);
        assert_eq!(peak.peak(), None);
        peak.raise(Some((0.1, 3)));
        peak.raise(Some((0.05, 4)));
        assert_eq!(peak.peak(), Some((0.1, 3)));
        peak.raise(Some((0.2, 5)));
        assert_eq!(peak.peak(), Some((0.2, 5)));
        let arrow = |force: f64| ReactionArrow {
            joint: 0,
            point: [0.0; 3],
            force: [force, 0.0, 0.0],
            unique: true,
            components: Vec::new(),
            moment: None,
        };
        assert_eq!(largest(&[arrow(1.7e-16)]), None);
        assert_eq!(largest(&[arrow(1.7e-16), arrow(-0.3)]), Some((0.3, 0)));
    }

    /// The mobile robot's run traced ahead from its start has the largest force the command
    /// line reports for it (`singulab run scenes/mobile_robot.ron --reactions R.csv`: 0.269 N
    /// at H.driver, near t = 1.2 s and 4.2 s, the largest of any joint in any row over 12 s),
    /// within the sampling's one step in ten: the window's scale is 0.3 N from t = 0 on.
    #[test]
    fn the_robots_run_ahead_peaks_where_the_command_lines_reactions_do() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/mobile_robot.ron");
        let scene = crate::scene::load_scene(&path).unwrap();
        let joint = scene
            .mechanism
            .joints()
            .iter()
            .position(|j| j.name == "H.driver")
            .unwrap();
        let session = LiveSession::new(scene).unwrap();
        let (force, at) = peak_ahead(session, 12.0).unwrap();
        assert_eq!(at, joint);
        assert!((0.26..=0.2695).contains(&force), "{force}");
        assert!((round_scale(force) - 0.3).abs() < 1e-12);
    }

    /// After R the scale is the first run's at once, not the reactions seen since while the
    /// run is traced again (trial 17: 0.1 N at t = 1.04 s, then 0.3 N at 1.6 s).
    #[test]
    fn a_reset_keeps_the_scenes_own_runs_scale() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/mobile_robot.ron");
        let scene = crate::scene::load_scene(&path).unwrap();
        let mut live = Live::new(LiveSession::new(scene).unwrap(), path);
        let mut peak = RunPeak::default();
        let start = std::time::Instant::now();
        while !peak.is_settled(&live) || peak.peak().is_none() {
            assert!(start.elapsed().as_secs() < 300, "the trace never finished");
            std::thread::sleep(std::time::Duration::from_millis(20));
            peak.update(&live, None);
        }
        let first = peak.peak().unwrap();
        live.session.reset().unwrap();
        peak.update(&live, None);
        assert!(peak.is_settled(&live), "no second trace");
        assert_eq!(peak.peak(), Some(first));
    }
}
