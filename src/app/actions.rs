//! What acting on an admissible motion does: the push controls, the command for the chosen
//! motion (the panel's button, Enter), advice for a push that will not change branch, and the
//! "leave on" / "leave back" buttons of the panel and of the canvas' menu.

use bevy_egui::egui::Ui;

use super::commands::AppCommand;
use super::simulation::Live;
use crate::live::motions::AT_REST;
use crate::live::{Motion, MotionRole, motions};

/// Which motion a push or leave acts on, how much velocity it gives, over how long.
#[derive(Clone, Debug, PartialEq)]
pub struct PushControls {
    /// The chosen motion's index in the list shown.
    pub motion: usize,
    pub delta: f64,
    pub duration: f64,
}

impl Default for PushControls {
    fn default() -> Self {
        Self {
            motion: 0,
            delta: 1.0,
            duration: 0.05,
        }
    }
}

/// What acting on the chosen motion does (the panel's button, Enter; `reverse`: Shift+Enter):
/// a push along it by the Δ velocity (reversed: by minus it), or on a branch a leave the way
/// its arrows are drawn (reversed: back), at the Δ velocity where the mechanism is at rest.
pub fn chosen_action(
    live: &Live,
    push: &PushControls,
    shown: &[Motion],
    reverse: bool,
) -> Option<AppCommand> {
    let motion = shown.get(push.motion.min(shown.len().checked_sub(1)?))?;
    let sign = if reverse { -1.0 } else { 1.0 };
    Some(if motion.role == MotionRole::Branch {
        let at_rest = live.session.simulation().velocities().amax() < AT_REST;
        AppCommand::Leave {
            label: leave_label(&motion.label, reverse),
            direction: &motion.column * sign,
            speed: at_rest.then_some(push.delta.abs().max(0.1)),
        }
    } else {
        let delta = sign * push.delta;
        AppCommand::Push {
            label: motion.label.clone(),
            column: motion.column.clone(),
            delta,
            duration: push.duration,
            note: push_note(live, motion, delta),
        }
    })
}

/// Advice for a push along a motion that is new at the singular configuration while the
/// mechanism moves faster than the push's Δ velocity: such a motion is admissible to first order only, so unless
/// the push is large next to the speed the constraints take its velocity back as the mechanism moves
/// off the configuration, and it keeps its branch (A02 at Δv 1: only the energy changes).
fn push_note(live: &Live, motion: &Motion, delta: f64) -> Option<String> {
    let sim = live.session.simulation();
    let speed = motions::mass_speed(
        &live.session.scene().mechanism,
        sim.positions(),
        sim.velocities(),
    );
    (motion.role == MotionRole::New && speed > delta.abs().max(AT_REST)).then(|| {
        format!(
            "Pushing along {} (Δv {delta:.2}) at speed ({speed:.2} in the same units): a new motion is admissible to first order only, so a push small next to the motion usually leaves the mechanism on its branch. To change branch at speed, leave along a branch.",
            motion.label
        )
    })
}

/// "leave on" and "leave back" along a branch listed as `direction` (oriented the way the
/// mechanism moves, downhill at rest: [`crate::lesson::choices::leave_direction`]).
pub fn leave_buttons(
    ui: &mut Ui,
    live: &Live,
    delta: f64,
    (label, direction): (&str, &nalgebra::DVector<f64>),
    commands: &mut Vec<AppCommand>,
) {
    // At rest for a lecture's purposes: four_bar_stopping arrives at its flat pose with
    // about 1e-5 m/s left (it is launched 1e-10 short of the energy to get there).
    let at_rest = live.session.simulation().velocities().amax() < AT_REST;
    let speed = at_rest.then_some(delta.abs().max(0.1));
    let (how, on) = if at_rest {
        let how = format!(
            "at {:.2} (the Δ velocity below): the mechanism is at rest here",
            delta.abs().max(0.1)
        );
        (how, "downhill (as drawn: the mechanism is at rest)")
    } else {
        let how = "with the kinetic energy it has here".to_owned();
        (how, "on the way it came, as drawn")
    };
    for (text, back, way) in [
        ("leave on", false, on),
        ("leave back", true, "against the arrow"),
    ] {
        let sign = if back { -1.0 } else { 1.0 };
        if ui
            .small_button(text)
            .on_hover_text(format!(
                "Sends the mechanism along this branch, {way}, {how}."
            ))
            .clicked()
        {
            commands.push(AppCommand::Leave {
                label: leave_label(label, back),
                direction: direction * sign,
                speed,
            });
        }
    }
}

/// A leave's name for the banner: the branch's, and "(back)" against its arrows, as a
/// lesson's leave back is named (`lesson::player`).
fn leave_label(branch: &str, back: bool) -> String {
    if back {
        format!("{branch} (back)")
    } else {
        branch.to_owned()
    }
}
