//! What the reactions view shows at the session's state: each joint's reaction (force on its
//! first body at the joint's point, minimum-norm multipliers), whether it is unique, the
//! redundancy `p` here and generically, and each self-stress mode as the forces it puts on
//! the joints (`solver::reactions` says how they are found). At a singular event the rank is
//! the event's (at the detection tolerance), so the larger left null space shows there.

use nalgebra::{DMatrix, DVector};

use super::LiveSession;
use crate::model::Mechanism;
use crate::solver::{Reactions, SolverError, solvability};

/// One joint's force at its point, and whether the rigid model determines it.
#[derive(Clone, Debug, PartialEq)]
pub struct ReactionArrow {
    pub joint: usize,
    pub point: [f64; 3],
    pub force: [f64; 3],
    /// Every component unique.
    pub unique: bool,
    /// Each component's name (`fx`, `fy`, `mz`, ...) and whether it is unique.
    pub components: Vec<(&'static str, bool)>,
    /// The moment about the point, for joints that carry one (N m; planar `z` only).
    pub moment: Option<[f64; 3]>,
}

/// The reactions and the redundancy at one state.
#[derive(Clone, Debug, PartialEq)]
pub struct ReactionDisplay {
    pub t: f64,
    pub redundancy: usize,
    /// `m` minus the generic rank: the redundancy away from singular configurations.
    pub generic_redundancy: usize,
    pub arrows: Vec<ReactionArrow>,
    /// Per self-stress mode, the forces it puts on the joints (unit mode; same joints as
    /// `arrows`).
    pub modes: Vec<Vec<ReactionArrow>>,
}

impl ReactionArrow {
    /// Whether its reaction is determined: "unique", "not determined", or per component
    /// where it is mixed ("fx unique, fy not determined").
    pub fn verdict(&self) -> String {
        if self.unique {
            return "unique".into();
        }
        if self.components.iter().all(|&(_, unique)| !unique) {
            return "not determined".into();
        }
        let parts: Vec<String> = self
            .components
            .iter()
            .map(|&(name, unique)| {
                format!(
                    "{name} {}",
                    if unique { "unique" } else { "not determined" }
                )
            })
            .collect();
        parts.join(", ")
    }
}

impl ReactionDisplay {
    /// The reactions at the session's current state (allocates: once per state shown).
    pub fn of(session: &LiveSession) -> Result<Self, SolverError> {
        let sim = session.simulation();
        let mechanism = sim.mechanism().as_ref();
        let (x, xd) = (sim.positions(), sim.velocities());
        let xdd = sim.accelerations_with_tangent(None)?;
        let rank = session
            .current_event()
            .map_or(sim.rank(), |event| event.rank.min(sim.rank()));
        let mut reactions = Reactions::new(mechanism);
        reactions.solve(
            mechanism,
            sim.factorization(),
            rank,
            sim.time(),
            x,
            xd,
            &xdd,
            sim.extra_loads(),
        );
        let mut a = DMatrix::zeros(mechanism.m(), mechanism.n());
        mechanism.jacobian(x, &mut a);
        let verdict = solvability(mechanism, x, &a, &reactions);
        let arrows_of = |lambda: &DVector<f64>| -> Vec<ReactionArrow> {
            verdict
                .iter()
                .filter_map(|j| {
                    let components = j.components.iter().map(|c| (c.name, c.unique)).collect();
                    arrow(mechanism, j.joint, x, &a, lambda, components)
                })
                .collect()
        };
        let modes = (0..reactions.redundancy())
            .map(|k| arrows_of(&reactions.mode(k).into_owned()))
            .collect();
        Ok(Self {
            t: sim.time(),
            redundancy: reactions.redundancy(),
            generic_redundancy: mechanism.m().saturating_sub(sim.generic_rank()),
            arrows: arrows_of(reactions.lambda()),
            modes,
        })
    }

    /// `p`, with the generic value where this configuration's is larger.
    pub fn redundancy_text(&self) -> String {
        if self.redundancy == self.generic_redundancy {
            format!("redundancy p = {}", self.redundancy)
        } else {
            format!(
                "redundancy p = {} at this configuration (generically {}): more reactions undetermined",
                self.redundancy, self.generic_redundancy
            )
        }
    }

    /// The largest force among the joints' reactions (N).
    pub fn largest_force(&self) -> f64 {
        self.arrows
            .iter()
            .map(|a| norm(&a.force))
            .fold(0.0, f64::max)
    }
}

fn norm(v: &[f64; 3]) -> f64 {
    v.iter().map(|c| c * c).sum::<f64>().sqrt()
}

/// Joint `joint`'s reaction from `lambda` as an arrow at its point.
fn arrow(
    mechanism: &Mechanism,
    joint: usize,
    x: &DVector<f64>,
    a: &DMatrix<f64>,
    lambda: &DVector<f64>,
    components: Vec<(&'static str, bool)>,
) -> Option<ReactionArrow> {
    let point = mechanism.reaction_point(joint, x)?;
    let mut values = [0.0; 6];
    let count = mechanism.joint_reaction(joint, x, a, lambda, &mut values);
    let names = mechanism.reaction_components(joint);
    let spatial = names.contains(&"fz");
    let (force, moment) = if spatial {
        let force = [values[0], values[1], values[2]];
        let moment = (count == 6).then(|| [values[3], values[4], values[5]]);
        (force, moment)
    } else {
        let force = [values[0], values[1], 0.0];
        let moment = (count == 3).then(|| [0.0, 0.0, values[2]]);
        (force, moment)
    };
    Some(ReactionArrow {
        joint,
        point: [point.x, point.y, point.z],
        force,
        unique: components.iter().all(|&(_, unique)| unique),
        components,
        moment,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::load_scene;

    fn session(name: &str) -> LiveSession {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("scenes")
            .join(format!("{name}.ron"));
        LiveSession::new(load_scene(&path).expect("shipped scene")).expect("session")
    }

    #[test]
    fn a_joint_with_one_component_determined_says_which() {
        // The modified double four-bar's one self-stress mode loads the crank tips
        // vertically only (see the test below): their horizontal reactions are unique, the
        // vertical ones are not, as `singulab analyze` reports per component.
        let display = ReactionDisplay::of(&session("modified_double_four_bar")).expect("solved");
        let verdicts: Vec<String> = display.arrows.iter().map(ReactionArrow::verdict).collect();
        println!("{verdicts:?}");
        assert!(
            verdicts.iter().any(|v| v == "fx unique, fy not determined"),
            "{verdicts:?}"
        );
        assert!(verdicts.iter().all(|v| v != "unique"), "{verdicts:?}");
    }

    #[test]
    fn the_modified_double_four_bar_shows_one_mode_and_no_unique_joint() {
        // One redundant constraint (m = n = 12, rank 11): one mode, which loads the three
        // crank tips vertically in the pattern (1, -2, 1) (the pins' forces along the cranks).
        let display = ReactionDisplay::of(&session("modified_double_four_bar")).expect("solved");
        assert_eq!((display.redundancy, display.generic_redundancy), (1, 1));
        assert_eq!(display.arrows.len(), 6);
        assert!(display.arrows.iter().all(|a| !a.unique));
        let mode = &display.modes[0];
        let tip = |name: &str| {
            let joint = session("modified_double_four_bar")
                .scene()
                .mechanism
                .joints()
                .iter()
                .position(|j| j.name == name)
                .unwrap();
            mode.iter().find(|a| a.joint == joint).unwrap().force
        };
        let (a1, a2, a3) = (tip("A1"), tip("A2"), tip("A3"));
        assert!(a1[0].abs() < 1e-12 && a2[0].abs() < 1e-12 && a3[0].abs() < 1e-12);
        assert!((a2[1] / a1[1] + 2.0).abs() < 1e-9 && (a3[1] / a1[1] - 1.0).abs() < 1e-9);
    }

    #[test]
    fn the_redundant_pendulum_shows_its_two_links_at_the_bob() {
        // The link written twice (m = 2, rank 1): one mode, and neither link's force unique;
        // both act at the bob, released at (1, 0).
        let display = ReactionDisplay::of(&session("redundant_pendulum")).expect("solved");
        assert_eq!((display.redundancy, display.generic_redundancy), (1, 1));
        assert_eq!(display.arrows.len(), 2);
        for arrow in &display.arrows {
            assert!(!arrow.unique);
            assert_eq!(arrow.point, [1.0, 0.0, 0.0]);
        }
        assert_eq!(display.modes.len(), 1);
    }

    #[test]
    fn the_four_bar_shows_unique_reactions_and_no_mode() {
        let display = ReactionDisplay::of(&session("four_bar")).expect("solved");
        assert_eq!(display.redundancy, 0);
        assert!(display.modes.is_empty());
        assert!(display.arrows.iter().all(|a| a.unique));
        // Joint A at t = 0 carries (0, (16 - 9.81) / 2) N on crank1 (the coupler's balance,
        // see tests/cli/reaction_cli.rs).
        assert!((display.largest_force() - 3.095).abs() < 1e-9);
    }
}
