//! The status line: sizes, rank, dof, energy, residual, time and the speed kept.

use bevy::prelude::*;
use bevy_egui::egui::{self, Color32, RichText, Ui};

use super::transport::speed_text;
use crate::app::simulation::{FrameBudget, FrameStats, Live};
use crate::live::LiveSession;

pub(super) fn status_line(
    ui: &mut Ui,
    live: &Live,
    stats: &FrameStats,
    budget: &FrameBudget,
    frame_time: bool,
) {
    let session = &live.session;
    let sim = session.simulation();
    let residual = shown_residual(session);
    // A narrow window (1280 x 720, a larger interface scale) gets the short forms, so that
    // the line does not wrap.
    let narrow = ui.available_width() < STATUS_FULL_WIDTH;
    // Narrower still (a projector at 1.5 times the interface size), the line takes two rows,
    // always, so that the canvas above does not jump when the speed text grows or shrinks.
    if ui.available_width() < STATUS_ONE_ROW_WIDTH {
        ui.set_min_height(2.0 * ui.text_style_height(&egui::TextStyle::Monospace) + 6.0);
    }
    ui.horizontal_wrapped(|ui| {
        status_field(ui, rank_text(live, narrow)).on_hover_text(
            "rank: of A at the rank tolerance / generic rank (event: at the detection tolerance); \
             dof = n - rank; Grübler: n - m",
        );
        ui.separator();
        status_field(ui, format!("E {} J", fixed(sim.energy(), 6)));
        ui.separator();
        status_field(
            ui,
            match residual {
                Some(r) => format!("residual {r:.1e}"),
                None => "residual -".into(),
            },
        );
        ui.separator();
        status_field(ui, format!("t {:.4} s", session.time()));
        ui.separator();
        speed_field(ui, live, stats, budget);
        if !narrow && frame_time {
            ui.separator();
            // For developers: compact, with the breakdown on hover.
            status_field(ui, format!("{:.0} ms", stats.frame_ms)).on_hover_text(format!(
                "CPU time per frame: solver {:.1} ms, UI and plots {:.1} ms, whole frame {:.1} ms",
                stats.sim_ms, stats.ui_ms, stats.frame_ms
            ));
        }
    });
}

/// A field of the status line: one label that does not wrap inside, so that a field that
/// does not fit moves to the next row whole ("t 0.7144 s", not "t" and "0.7144 s").
pub(super) fn status_field(ui: &mut Ui, text: String) -> egui::Response {
    ui.add(egui::Label::new(RichText::new(text).monospace()).extend())
}

/// The sizes and ranks: the rank the dynamics use (rank tolerance); at an event also the
/// rank at the detection tolerance that the banner gives, and the dof that rank leaves.
pub(super) fn rank_text(live: &Live, narrow: bool) -> String {
    let sim = live.session.simulation();
    let mech = sim.mechanism();
    let (n, m) = (mech.n(), mech.m());
    let rank = sim.rank();
    let (at_event, dof_at_event) = live
        .session
        .current_event()
        .map(|e| {
            if narrow {
                // "(event 12)" after "rank 14/14" read as rank 14 (trial 17).
                (
                    format!(" ({} at event)", e.rank),
                    format!(" ({} at event)", n - e.rank),
                )
            } else {
                (
                    format!(", {} at the event", e.rank),
                    format!(" ({} at the event)", n - e.rank),
                )
            }
        })
        .unwrap_or_else(|| singular_here(live, narrow));
    let grubler = n as i64 - m as i64;
    if narrow {
        format!(
            "n {n}  m {m}  rank {rank}/{}{at_event}  dof {}{dof_at_event}  Grübler {grubler}",
            sim.generic_rank(),
            n - rank,
        )
    } else {
        format!(
            "n {n}  m {m}  rank {rank} (generic {}{at_event})  dof {}{dof_at_event}  Grübler n-m {grubler}",
            sim.generic_rank(),
            n - rank,
        )
    }
}

/// Away from an event, the rank at the detection tolerance where it is below the generic
/// rank: on a branch that stays singular (A02's branch 2 keeps its first loop flat, its `R`
/// entry near 1e-7) the rank at the rank tolerance is the generic one, and only this says
/// the mechanism is singular there. Empty elsewhere.
fn singular_here(live: &Live, narrow: bool) -> (String, String) {
    let sim = live.session.simulation();
    let n = sim.mechanism().n();
    let rank = live.session.rank_at_detection();
    if rank >= sim.generic_rank() {
        return Default::default();
    }
    if narrow {
        (
            format!(" (singular {rank})"),
            format!(" (singular {})", n - rank),
        )
    } else {
        (
            format!(", {rank} at the detection tolerance"),
            format!(" ({} there)", n - rank),
        )
    }
}

/// Achieved over requested speed below which the run is flagged as falling behind.
pub(super) const ON_PACE: f64 = 0.95;

/// What keeps the simulation from the requested speed, if anything.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Pace {
    Kept,
    /// The solver used its whole budget in a frame.
    SolverLimited,
    /// The solver kept up within its frames, and still the run is slower than asked: the
    /// frames are the limit.
    FrameRateLimited,
}

pub(super) fn pace(requested: f64, achieved: f64, solver_behind: bool) -> Pace {
    if solver_behind {
        Pace::SolverLimited
    } else if achieved.is_finite() && achieved < ON_PACE * requested {
        Pace::FrameRateLimited
    } else {
        Pace::Kept
    }
}

/// Whether the status line says the run falls behind the requested speed (running, not
/// recording); the browser's page publishes it too (`web::publish_state`).
pub(in crate::app) fn says_behind(live: &Live, stats: &FrameStats) -> bool {
    let session = &live.session;
    !session.is_paused()
        && stats.recording_speed.is_none()
        && pace(session.speed(), stats.achieved_speed, session.is_behind()) != Pace::Kept
}

/// The speed asked for and the speed achieved, or that the run falls behind and why.
pub(super) fn speed_field(ui: &mut Ui, live: &Live, stats: &FrameStats, budget: &FrameBudget) {
    let session = &live.session;
    let requested = speed_text(session.speed());
    let limit = pace(session.speed(), stats.achieved_speed, session.is_behind());
    if session.is_paused() {
        status_field(ui, format!("paused (speed {requested})"));
    } else if let Some(video) = stats.recording_speed {
        // Encoding the frames slows the window, not the video.
        status_field(
            ui,
            format!(
                "recording at {} ({} live)",
                speed_text(video),
                achieved_text(stats.achieved_speed)
            ),
        );
    } else if says_behind(live, stats) {
        let why = if limit == Pace::SolverLimited {
            format!(
                "The solver needs more than its {:.0} ms per frame for the requested speed.",
                budget.budget.as_secs_f64() * 1e3
            )
        } else {
            format!(
                "The solver keeps up within its budget; the window's frames ({:.0} ms each) \
                 hold the simulation back.",
                stats.frame_ms
            )
        };
        ui.colored_label(
            Color32::from_rgb(230, 140, 40),
            format!(
                "behind: {requested} requested, {} achieved",
                achieved_text(stats.achieved_speed)
            ),
        )
        .on_hover_text(why);
    } else {
        status_field(
            ui,
            format!(
                "speed {requested}, achieved {}",
                achieved_text(stats.achieved_speed)
            ),
        );
    }
}

/// The achieved speed, or a dash while it is being measured (just after resuming).
pub(super) fn achieved_text(speed: f64) -> String {
    if speed.is_finite() {
        format!("{speed:.3}x")
    } else {
        "-".into()
    }
}

/// Below this width (points) the status line takes two rows.
pub(super) const STATUS_ONE_ROW_WIDTH: f32 = 1000.0;
/// Width (points) from which the status line has room for its long forms and the frame time.
pub(super) const STATUS_FULL_WIDTH: f32 = 1400.0;

/// `value` with `decimals` decimals, without the sign of a value that rounds to zero
/// ("0.000000", not "-0.000000").
pub(super) fn fixed(value: f64, decimals: usize) -> String {
    let text = format!("{value:.decimals$}");
    match text.strip_prefix('-') {
        Some(magnitude) if magnitude.chars().all(|c| c == '0' || c == '.') => magnitude.to_owned(),
        _ => text,
    }
}

/// `|c|_inf` of the state shown (position-level rows; none without constraints): the same
/// at an event however it was reached (the last step's report may be the step that passed
/// it, or one replayed to reach it).
fn shown_residual(session: &LiveSession) -> Option<f64> {
    let mechanism = &session.scene().mechanism;
    let sim = session.simulation();
    let mut c = nalgebra::DVector::zeros(mechanism.m());
    mechanism.residual(sim.time(), sim.positions(), &mut c);
    (mechanism.m() > 0).then(|| c.amax())
}

#[cfg(test)]
mod tests {
    use super::{Pace, fixed, pace, shown_residual};
    use crate::live::LiveSession;
    use crate::scene::load_scene;

    /// A02's first flat pose shows one residual, on arriving and after going back to it from
    /// the next event (the replay ends on another step than the one that located it).
    #[test]
    fn an_event_shows_the_same_residual_however_it_is_reached() {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/double_four_bar.ron");
        let mut session = LiveSession::new(load_scene(&path).unwrap()).unwrap();
        session.run_until_paused(100_000);
        let first = shown_residual(&session).unwrap();
        session.play();
        session.run_until_paused(100_000);
        assert!(session.time() > 1.0, "t {}", session.time());
        session.goto_event(0).unwrap();
        assert_eq!(shown_residual(&session), Some(first));
        assert!(first < 1e-9, "{first}");
    }

    /// A02 at 1x, 0.72x achieved with the solver inside its budget (frames of the software
    /// renderer): flagged, with the frames as the cause.
    #[test]
    fn a_slow_run_is_flagged_whatever_limits_it() {
        assert_eq!(pace(1.0, 0.72, false), Pace::FrameRateLimited);
        assert_eq!(pace(1.0, 0.72, true), Pace::SolverLimited);
        assert_eq!(pace(8.0, 7.9, false), Pace::Kept);
        // Just after resuming the achieved speed is not measured yet.
        assert_eq!(pace(1.0, f64::NAN, false), Pace::Kept);
    }

    #[test]
    fn no_negative_zero() {
        assert_eq!(fixed(-1e-9, 6), "0.000000");
        assert_eq!(fixed(-0.0, 6), "0.000000");
        assert_eq!(fixed(-1.5e-6, 6), "-0.000002");
        assert_eq!(fixed(35.835, 6), "35.835000");
    }
}
