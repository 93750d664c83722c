//! Locating the singular configurations passed in the last steps: the search of the kept
//! steps for minima of `rho` on the interpolated trajectory, and the event state and motions
//! at each new configuration.
//!
//! # The search
//!
//! A search starts when the detector's window holds a local minimum of `rho` below 0.25
//! (`REFINE_BELOW`), on the step after one that located an event, and on the last step of a
//! run that ends with `rho` falling (the 2x2's crossing 8e-4 s before t = 10 s at dt 1e-2 was
//! lost without it). `rho` is sampled ten times per step (`SEARCH_SAMPLES`) over the window and
//! back to three steps of the configured size before it (`SEARCH_SPAN`), on the cubic Hermite
//! interpolation of the accepted steps without projection: that is within O(h^4) of the
//! manifold (below 1e-8 m with steps of 1e-2 s), and each sample is one factorisation of `R`
//! alone. Each sampled local minimum is then refined by golden section down to the event
//! state's floor (`rho` 1e-7, a thousand rank tolerances: nearer, the running rank would drop
//! at the state the simulation resumes from).
//!
//! Two singular configurations can lie within two steps: the 2x3's stages are flat at 3.2171
//! and 3.2197 s, and with steps of 2e-3 s or more `rho` falls over three samples to one
//! minimum next to the second and rises over three after the first, so the three samples alone
//! see one. Hence the sampling within the steps, the step before the window and the step after
//! it. The reach of three configured steps is for Dopri5, which shortens its steps between two
//! close configurations: with three of its own steps searched, the 2x3 lost one at dt 1.75e-3,
//! 3e-3 and 7e-3. All ten flat poses of its first 4 s are one event each at dt 1e-3 to 1e-2
//! (`cargo test --test solver close_events`). A searched step costs nine factorisations
//! without `Q`, a refined minimum about 25 more (a sampled minimum too shallow to reach the
//! detection tolerance between its neighbours is not refined, `REACH_MARGIN`): over 10 s on the
//! 2x3, `singulab run` reports 14.5 thousand factorisations in all at dt 1e-3 (about 2.9
//! thousand of them in searches) and 4.0 thousand at dt 1e-2, and finds its 27 configurations
//! at both.
//!
//! # The event state
//!
//! The state handed to the user, which the app pauses at and resumes from, is the cubic Hermite
//! interpolation of the accepted steps around the minimum, projected onto the manifold:
//! integrating a partial step onto the singular configuration evaluates accelerations right
//! where the near-singular normals are truncated (a visible energy error at A02's events).
//! Projecting the interpolated velocity removes its component along the normal that is
//! vanishing there, which turns fast next to the singular configuration (kinetic energy lost
//! at the 2x3's first event; both measured in `docs/measurements.md`, *Alternatives
//! measured*), so the velocity is then scaled (it stays tangent) to the
//! energy of the two steps around the event, interpolated in time. Every event state of every
//! scene over 3 s is as close to the initial energy as those steps
//! (`event_states_conserve_energy` asserts it, within 1e-8 J of the steps around it). The
//! motions are named at the detection tolerance; the bases stored for a return are those at
//! the rank tolerance.

use nalgebra::DVector;

use super::leave::rescale_kinetic_energy;
use super::{KEPT_STATES, Simulation, turns};
use crate::solver::basis::StepEnd;
use crate::solver::error::SolverError;
use crate::solver::events::LocatedMinimum;
use crate::solver::indicator::rho;

impl Simulation {
    /// The smallest `rho` in the detector's window (its middle point when it reports).
    fn detector_sampled_minimum(&self) -> f64 {
        self.detector
            .window()
            .iter()
            .map(|&(_, rho)| rho)
            .fold(f64::INFINITY, f64::min)
    }

    /// Locates the singular configurations passed in the last steps into `events` (time
    /// order): when the detector's window reports a local minimum of `rho` (`fitted`, the
    /// parabola's vertex there), on the step after one that located an event
    /// (`search_step`), and on a step that ends a run with `rho` falling (`closing`: no later
    /// step will put a point after a minimum in it).
    ///
    /// The fit only says whether to search (a minimum below `REFINE_BELOW`, fitted or
    /// sampled): it is rough with coarse steps (A02 at dt 1e-2: 1.6e-3 where the minimum is
    /// below 1e-6) and only as good as a parabola at dt 1e-3 (7e-7 .. 1.1e-6 s from A02's
    /// crossings); the search reaches the event state's floor. Two singular
    /// configurations can lie within two steps (the 2x3's at 3.2171 and 3.2198 s with steps of
    /// 2e-3 s): then `rho` can fall all the way over three steps to a sampled minimum next to
    /// the second one and rise over three after the first. So the search covers the window
    /// and the step before it, and the step after it once the next step is taken.
    pub(super) fn locate_events(
        &mut self,
        fitted: Option<LocatedMinimum>,
        search_step: bool,
        closing: bool,
    ) -> Result<(), SolverError> {
        let tolerance = self.settings.detection_tolerance;
        let mut searched = false;
        if let Some(fitted) = fitted
            && fitted.rho.min(self.detector_sampled_minimum()) < REFINE_BELOW
        {
            if self.window_is_kept() {
                self.search_kept(self.search_start());
                searched = true;
            } else {
                // Without the window to search (it cannot happen after three accepted
                // steps, but then) the fit decides.
                self.excursions.offer(fitted, tolerance);
            }
        }
        // The step before this one (searched already, it gives the minima at its end their
        // left side) and this one, unless the window's search covered them (two searches of
        // one range in one step would offer the last configuration again after a newer one).
        if (search_step || closing) && !searched && self.history_len >= 2 {
            self.search_kept(self.history_len - 2);
        }
        for slot in 0..self.excursions.found().len() {
            let minimum = self.excursions.found()[slot];
            self.locate_event(minimum, slot)?;
        }
        self.event_count = self.excursions.found().len();
        self.search_next_step = self.event_count > 0;
        Ok(())
    }

    /// The first kept state a search of the window starts from: the step before the window,
    /// and further back to `SEARCH_SPAN` steps of the configured size before the current
    /// state. Dopri5 shrinks its steps between two close configurations (`rho` stays just
    /// above the tolerance there), and three of its steps ended after the first one of the
    /// 2x3's pair (26 events of 27 at dt 1.75e-3, 3e-3 and 7e-3).
    fn search_start(&self) -> usize {
        let since = self.t - SEARCH_SPAN * self.settings.dt;
        let mut first = self.history_len.saturating_sub(3);
        while first > 0 && self.kept_time(first) > since {
            first -= 1;
        }
        first
    }

    /// Whether the detector's window is made of the last two kept states and the current one.
    fn window_is_kept(&self) -> bool {
        let window = self.detector.window();
        let len = self.history_len;
        window.len() == 3
            && len >= 2
            && window[0].0 == self.kept_time(len - 2)
            && window[1].0 == self.kept_time(len - 1)
            && window[2].0 == self.t
    }

    /// Time of kept state `i`: the `history_len` snapshots, oldest first, then the current
    /// state.
    fn kept_time(&self, i: usize) -> f64 {
        if i == self.history_len {
            self.t
        } else {
            self.history[KEPT_STATES - self.history_len + i].t
        }
    }

    fn kept_rho(&self, i: usize) -> f64 {
        if i == self.history_len {
            rho(&self.qr_state, self.watched.rank())
        } else {
            self.history[KEPT_STATES - self.history_len + i].rho
        }
    }

    /// Searches the trajectory between kept state `first` and the current state for minima
    /// of `rho` and hands them to `excursions`, which tells the new singular configurations.
    /// The trajectory is interpolated between the accepted steps (cubic Hermite, as the event
    /// state is); `rho` is sampled `SEARCH_SAMPLES` times per step, and each sampled local
    /// minimum below `REFINE_BELOW` is searched for between its neighbours, unless the last
    /// configuration lies there. Costs `SEARCH_SAMPLES - 1` factorisations without `Q` per
    /// step, and about 25 more per minimum searched for.
    fn search_kept(&mut self, first: usize) {
        const MOST: usize = KEPT_STATES * SEARCH_SAMPLES + 1;
        let mut samples = [(0.0, 0.0); MOST];
        let mut len = 0;
        for i in first..self.history_len {
            let (a, b) = (self.kept_time(i), self.kept_time(i + 1));
            samples[len] = (a, self.kept_rho(i));
            len += 1;
            for j in 1..SEARCH_SAMPLES {
                let t = a + (b - a) * j as f64 / SEARCH_SAMPLES as f64;
                samples[len] = (t, self.interpolated_rho(t));
                len += 1;
            }
        }
        samples[len] = (self.t, self.kept_rho(self.history_len));
        len += 1;
        let mut minima = [LocatedMinimum {
            t: f64::NAN,
            rho: f64::NAN,
        }; MOST];
        let mut count = 0;
        let tolerance = self.settings.detection_tolerance;
        for j in 1..len - 1 {
            let ((a, before), (_, here), (b, after)) = (samples[j - 1], samples[j], samples[j + 1]);
            if !(here <= before && here < after && here < REFINE_BELOW) {
                continue;
            }
            if here - REACH_MARGIN * (before - here).max(after - here) >= tolerance {
                // Too shallow to reach the tolerance between its neighbours.
                continue;
            }
            if self.excursions.last().is_some_and(|t| (a..=b).contains(&t)) {
                // The last configuration, found again by an overlapping search.
                continue;
            }
            if let Some(minimum) = self.golden_minimum(a, b, 1e-5 * (b - a)) {
                minima[count] = minimum;
                count += 1;
            }
        }
        let minima = &mut minima[..count];
        minima.sort_unstable_by(|a, b| a.t.total_cmp(&b.t));
        // In time order: a minimum is new if `rho` reached the tolerance before it.
        let mut next = 0;
        for &(t, rho) in &samples[..len] {
            while next < minima.len() && minima[next].t <= t {
                self.excursions.offer(minima[next], tolerance);
                next += 1;
            }
            self.excursions.observe(t, rho, tolerance);
        }
        for &minimum in &minima[next..] {
            self.excursions.offer(minimum, tolerance);
        }
    }

    /// Golden-section search for the minimum of `rho` over `[a, b]` (inside the kept
    /// steps) on the interpolated trajectory, down to a bracket of `precision`.
    ///
    /// The point returned is the closest one to the minimum whose `rho` stays above
    /// `EVENT_RHO_FLOOR` times the rank tolerance (at most a tenth of the detection
    /// tolerance), else the closest of all: the event state is resumed from, and there the
    /// dynamics must still see the generic rank. `None` if `rho` was nowhere finite.
    fn golden_minimum(&mut self, mut a: f64, mut b: f64, precision: f64) -> Option<LocatedMinimum> {
        const INVERSE_PHI: f64 = 0.618_033_988_749_894_9;
        let mut c = b - INVERSE_PHI * (b - a);
        let mut d = a + INVERSE_PHI * (b - a);
        // The floor stays below the detection tolerance whatever the rank tolerance (a push
        // sets it to the detection tolerance).
        let floor = (EVENT_RHO_FLOOR * self.settings.rank_tolerance)
            .min(0.1 * self.settings.detection_tolerance);
        let (mut best, mut nearest): (Option<LocatedMinimum>, Option<LocatedMinimum>) =
            (None, None);
        let mut keep = |t: f64, rho: f64| {
            if !rho.is_finite() {
                return;
            }
            if rho >= floor && best.is_none_or(|m| rho < m.rho) {
                best = Some(LocatedMinimum { t, rho });
            }
            if nearest.is_none_or(|m| rho < m.rho) {
                nearest = Some(LocatedMinimum { t, rho });
            }
        };
        let (mut fc, mut fd) = (self.interpolated_rho(c), self.interpolated_rho(d));
        keep(c, fc);
        keep(d, fd);
        // Each reduction shrinks the bracket by 0.618; 40 of them reach 1e-8 of it.
        for _ in 0..40 {
            if b - a <= precision {
                break;
            }
            if fc < fd {
                b = d;
                d = c;
                fd = fc;
                c = b - INVERSE_PHI * (b - a);
                fc = self.interpolated_rho(c);
                keep(c, fc);
            } else {
                a = c;
                c = d;
                fc = fd;
                d = a + INVERSE_PHI * (b - a);
                fd = self.interpolated_rho(d);
                keep(d, fd);
            }
        }
        best.or(nearest)
    }

    /// `rho` at the state interpolated at `t` (inside the kept steps), infinite if not
    /// finite; uses the step's scratch storage. The cubic Hermite interpolant is within
    /// O(h^4) of the constraint manifold (below 1e-8 m with steps of 1e-2 s), and `rho` is
    /// as close to its value at the projected state: no projection is needed to compare it
    /// with the detection tolerance, and `R` alone (no `Q`) gives it, a third of the work of
    /// projecting (1 factorisation without `Q` against about 2.5 with it).
    fn interpolated_rho(&mut self, t: f64) -> f64 {
        self.interpolate_kept(t);
        self.mechanism.jacobian(&self.x_next, &mut self.a_next);
        self.qr_next.factorize_without_q(&self.a_next);
        self.counters.factorizations += 1;
        let rho = rho(&self.qr_next, self.watched.rank());
        if rho.is_finite() { rho } else { f64::INFINITY }
    }

    /// The trajectory at `t` interpolated between the kept states around it (the first or
    /// the last step's polynomial outside them), into `x_next` and `xd_next`.
    fn interpolate_kept(&mut self, t: f64) {
        let len = self.history_len;
        let kept = &self.history[KEPT_STATES - len..];
        if kept.is_empty() {
            self.x_next.copy_from(&self.x);
            self.xd_next.copy_from(&self.xd);
            return;
        }
        // The last snapshot at or before t (the first if none is).
        let i = kept.iter().rposition(|s| s.t <= t).unwrap_or(0);
        let start = &kept[i];
        let end = match kept.get(i + 1) {
            Some(s) => (s.t, &s.x, &s.xd),
            None => (self.t, &self.x, &self.xd),
        };
        hermite(
            (start.t, &start.x, &start.xd),
            end,
            t,
            &mut self.x_next,
            &mut self.xd_next,
        );
    }

    /// Describes the configuration at the located minimum (interpolated between the accepted
    /// steps around it, then projected) at the detection tolerance, into `events[slot]`.
    fn locate_event(&mut self, minimum: LocatedMinimum, slot: usize) -> Result<(), SolverError> {
        // The latest kept snapshot not after the minimum (the current state if the minimum
        // is at it).
        let kept = &self.history[KEPT_STATES - self.history_len..];
        let source = if minimum.t < self.t {
            kept.iter().rposition(|s| s.t <= minimum.t)
        } else {
            None
        };
        let energy_target = self.interpolate_event_state(minimum.t, source);
        self.velocity.project(
            &mut self.projector,
            &self.mechanism,
            &self.settings,
            minimum.t,
            &mut self.x_next,
            &mut self.xd_next,
            None,
            &mut self.qr_next,
        )?;
        // Projecting the interpolated velocity removes its component along the normal that
        // is vanishing here, which turns fast next to the singular configuration: on the 2x3
        // at its first event that took 1.3e-3 J of kinetic energy. Scaling the velocity (it
        // stays tangent) gives back the energy of the steps around the event.
        rescale_kinetic_energy(
            &self.mechanism,
            &self.x_next,
            &mut self.xd_next,
            energy_target,
        );
        self.describe_event(minimum.t, source, slot);
        Ok(())
    }

    /// The event state at `t` into `x_next` and `xd_next`, unprojected, from the kept
    /// snapshot `source` (the current state if `None`) and the state after it; returns the
    /// energy the event state should have: that of those two states, interpolated linearly
    /// in time.
    ///
    /// The event state is interpolated between the accepted steps around the minimum (cubic
    /// Hermite in x and xd, error O(h^4) in x and O(h^3) in xd), then projected. Integrating
    /// a partial step onto the singular configuration instead would evaluate accelerations
    /// right where the near-singular normals are truncated, and the state handed to the
    /// user (and resumed from) would carry that error: 1.2e-3 J of energy on A02.
    fn interpolate_event_state(&mut self, t: f64, source: Option<usize>) -> f64 {
        let kept = &self.history[KEPT_STATES - self.history_len..];
        let (t0, x0, xd0) = match source {
            Some(i) => (kept[i].t, &kept[i].x, &kept[i].xd),
            None => (self.t, &self.x, &self.xd),
        };
        let end = source.map(|i| match kept.get(i + 1) {
            Some(s) => (s.t, &s.x, &s.xd),
            None => (self.t, &self.x, &self.xd),
        });
        match end {
            Some((t1, x1, xd1)) if t1 > t0 && t > t0 => {
                hermite(
                    (t0, x0, xd0),
                    (t1, x1, xd1),
                    t.min(t1),
                    &mut self.x_next,
                    &mut self.xd_next,
                );
            }
            _ => {
                self.x_next.copy_from(x0);
                self.xd_next.copy_from(xd0);
            }
        }
        match end {
            Some((t1, x1, xd1)) if t1 > t0 => {
                let (e0, e1) = (
                    self.mechanism.energy(x0, xd0),
                    self.mechanism.energy(x1, xd1),
                );
                let s = ((t - t0) / (t1 - t0)).clamp(0.0, 1.0);
                e0 + s * (e1 - e0)
            }
            _ => self.mechanism.energy(x0, xd0),
        }
    }

    /// Fills `events[slot]` from the projected event state at `t` in `x_next`, `xd_next`
    /// and `qr_next`: its motions at the detection tolerance, and both bases carried from
    /// the kept snapshot `source` (the current state if `None`) to the event, as over a step.
    pub(super) fn describe_event(&mut self, t: f64, source: Option<usize>, slot: usize) {
        let n = self.mechanism.n();
        let kept = &self.history[KEPT_STATES - self.history_len..];
        let (t0, traditional0, basis0) = match source {
            Some(i) => (kept[i].t, &kept[i].traditional, &kept[i].continued),
            None => (self.t, &self.traditional, &self.continued),
        };
        // q of both bases is carried from t0 to the event (trapezoidal, as in a step).
        let h = t - t0;
        let rank = self.qr_next.rank(self.settings.detection_tolerance);
        let at_detection = StepEnd {
            t_hat: self.qr_next.q().columns(rank, n - rank),
            xd: &self.xd_next,
            h,
            t,
        };
        let pred = basis0.columns();
        self.event_basis.copy_from(basis0);
        self.updater.update_continued(
            &mut self.event_basis,
            &pred,
            self.mechanism.motion_weights(),
            &at_detection,
        );
        let event = &mut self.events[slot];
        event.set_motions(&self.event_basis, &at_detection.t_hat, t);
        // The bases the event hands back on restore: both at the event state and the rank
        // tolerance (the detection tolerance only names the motions).
        let rank_running = self.qr_next.rank(self.settings.rank_tolerance);
        let at_running = StepEnd {
            t_hat: self.qr_next.q().columns(rank_running, n - rank_running),
            ..at_detection
        };
        event.basis.copy_from(basis0);
        self.updater.update_continued(
            &mut event.basis,
            &pred,
            self.mechanism.motion_weights(),
            &at_running,
        );
        event.traditional_basis.copy_from(traditional0);
        self.updater
            .update_traditional(&mut event.traditional_basis, &at_running);
        event.t = t;
        // The located state's own `rho` (the search's value, or the fit's when it decided).
        event.rho_min = rho(&self.qr_next, self.watched.rank());
        event.rank = rank;
        event.deficiency = self.generic_rank.saturating_sub(rank);
        event.x.copy_from(&self.x_next);
        turns::add_turns(&self.mechanism, &self.turns, &mut event.x);
        event.xd.copy_from(&self.xd_next);
    }
}

/// A local minimum of `rho` is searched for on the interpolated trajectory when its sampled
/// or fitted value is below this (relative `R` entry): even a minimum that shallow may hide a
/// singular configuration between coarse steps. Costs a search of the window
/// (`search_kept`).
const REFINE_BELOW: f64 = 0.25;

/// A search of the window reaches back this many steps of the configured size (when kept).
const SEARCH_SPAN: f64 = 3.0;

/// A sampled minimum `here` between samples `before` and `after` (a tenth of a step apart) is
/// refined by golden section only if `here - REACH_MARGIN * max(before - here, after - here)`
/// is below the detection tolerance. Towards a singular configuration `rho` falls linearly (a
/// V), so a neighbour on the same side is a whole sample's fall above `here` and the bound with
/// margin 1 is already at or below the minimum; the margin covers a V that steepens within a
/// sample. On the 2x3 over 10 s at dt 1e-3 this skips 37 of 64 refinements, each about 25
/// factorisations, at minima of 0.08 to 0.25 whose neighbours are within 5e-3 of them.
const REACH_MARGIN: f64 = 4.0;

/// Samples of `rho` per step when the kept steps are searched for its minima: two singular
/// configurations further apart than two samples (a fifth of a step) are told apart.
const SEARCH_SAMPLES: usize = 10;

/// A refined event state keeps `rho` at least this many rank tolerances (1e-7 by default):
/// nearer, the running rank would drop at the state the simulation resumes from.
const EVENT_RHO_FLOOR: f64 = 1e3;

/// Cubic Hermite interpolation of positions and velocities between two states at `t`.
fn hermite(
    (t0, x0, xd0): (f64, &DVector<f64>, &DVector<f64>),
    (t1, x1, xd1): (f64, &DVector<f64>, &DVector<f64>),
    t: f64,
    x: &mut DVector<f64>,
    xd: &mut DVector<f64>,
) {
    let h = t1 - t0;
    let s = (t - t0) / h;
    let (s2, s3) = (s * s, s * s * s);
    let (h00, h10, h01, h11) = (
        2.0 * s3 - 3.0 * s2 + 1.0,
        s3 - 2.0 * s2 + s,
        -2.0 * s3 + 3.0 * s2,
        s3 - s2,
    );
    let (d00, d10, d01, d11) = (
        6.0 * s2 - 6.0 * s,
        3.0 * s2 - 4.0 * s + 1.0,
        -6.0 * s2 + 6.0 * s,
        3.0 * s2 - 2.0 * s,
    );
    for i in 0..x.len() {
        x[i] = h00 * x0[i] + h10 * h * xd0[i] + h01 * x1[i] + h11 * h * xd1[i];
        xd[i] = (d00 * x0[i] + d01 * x1[i]) / h + d10 * xd0[i] + d11 * xd1[i];
    }
}
