//! The edits of a sketch, as data: the window turns gestures into these, a test or a lesson
//! writes them.

use serde::{Deserialize, Serialize};

/// Where an edit puts or finds a point.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
pub enum Place {
    /// The existing point of that name.
    Point(String),
    /// A new point there (m).
    At(f64, f64),
    /// A new point on bar `bar`, `along` metres from its start.
    OnBar { bar: String, along: f64 },
}

/// One edit. Each is applied whole or refused with a [`super::SketchError`].
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
pub enum SketchCommand {
    /// A new ground point (a pivot), named `O1`, `O2`, ...
    GroundPivot { at: (f64, f64) },
    /// A bar from one place to another (`bar1`, `bar2`, ... unless named); its length is the
    /// distance between them.
    Bar {
        from: Place,
        to: Place,
        #[serde(default)]
        name: Option<String>,
    },
    /// Fixes a point to the ground, or frees it.
    Ground { point: String, ground: bool },
    /// Makes a point slide in the slot of bar `bar` (a pin in a slot: it stays on the bar's
    /// axis, free to turn), or no longer (`None`); the mechanism re-assembles.
    SlideInBar { point: String, bar: Option<String> },
    /// Puts a point mass (kg) on a point of a bar, or takes it off (`None`).
    PointMass { point: String, mass: Option<f64> },
    /// Makes a point slide on a straight ground guide through where it is, at `angle` (rad
    /// from +x), or no longer (`None`); a ground point is freed to slide.
    Slide { point: String, angle: Option<f64> },
    /// Moves a point there exactly; the mechanism re-assembles around it (a ground point
    /// moves its pivot), or the move is refused naming the joint that would open.
    Move { point: String, to: (f64, f64) },
    /// Pulls a point toward a place, as a drag does: it goes as near as the bars let it,
    /// the mechanism assembled all along (a ground point moves its pivot there).
    Drag { point: String, toward: (f64, f64) },
    /// Changes a bar's length, its start point held; the mechanism re-assembles.
    Length { bar: String, length: f64 },
    /// Changes a bar's mass (kg).
    Mass { bar: String, mass: f64 },
    /// Sets (or clears) a bar's initial angular velocity (rad/s).
    Omega { bar: String, omega: Option<f64> },
    /// Gives a point or a bar another name.
    Rename { from: String, to: String },
    /// Deletes a point (with the bars through its ends) or a bar (with the points only it
    /// held).
    Delete { name: String },
    /// The scene's title.
    Title { title: String },
}
