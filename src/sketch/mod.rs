//! The sketcher's model: a planar mechanism drawn as points and bars, edited by commands,
//! written as a scene file and analysed live. Bevy-free, so the whole editor is tested
//! headless (`tests/session/sketch.rs`) and the window only turns mouse gestures into
//! [`SketchCommand`]s.
//!
//! A sketch is **points** (each at a place; a ground point is fixed) and **bars** between
//! two points, with any number of points along them. What the scene file holds follows from
//! that: a bar is a `Bar` body, a ground point pins every bar through it (`Pin`), and any
//! other point shared by bars joins them (`Revolute`, the first bar with each of the others;
//! cranks, the bars through a ground point, come first). A point may slide on a straight
//! ground guide instead of being fixed (`Slider`: a slider-crank's block), and carry a point
//! mass (a `Point` body hinged to the first bar through it), or slide in the slot of another
//! bar (`Slot`: a crank and slotted lever). Points are named as a lecturer
//! names them on the board (`O1`, `O2`, ... on the ground, `A`, `B`, ... elsewhere) and the
//! joints take their point's names, so the saved file reads like the shipped ones
//! ([`scene_text`]).
//!
//! Every edit keeps the sketch **consistent**: each bar is as long as its stored length, so
//! the pose written is assembled already. Drawing a bar stores the distance it spans; moving
//! a point or changing a length re-assembles the mechanism around the change
//! (`assemble`), and an edit that cannot be assembled is refused with the joint that
//! would open, leaving the sketch as it was. [`SketchEditor`] keeps the undo and redo
//! history; [`analyse`] gives the counts a lecturer wants beside the drawing (n, m, rank,
//! dof, Grübler's count, the redundancy `p` and its self-stress modes).

mod analysis;
mod apply;
mod assemble;
mod command;
mod editor;
mod import;
mod write;

pub use analysis::{SketchAnalysis, analyse, analyse_scene, sketch_scene};
pub use command::{Place, SketchCommand};
pub use editor::SketchEditor;
pub use import::{ImportError, sketch_of_scene};
pub use write::scene_text;

use nalgebra::Vector2;
use thiserror::Error;

/// A point of the sketch: where it is, whether the ground holds it, or whether it slides on
/// a ground guide.
#[derive(Clone, Debug, PartialEq)]
pub struct SketchPoint {
    pub name: String,
    pub at: Vector2<f64>,
    pub ground: bool,
    pub guide: Option<Guide>,
    /// A point mass carried there (kg), hinged to the first bar through the point.
    pub mass: Option<f64>,
    /// The bar (by name) in whose slot the point slides: it stays on that bar's axis, free to
    /// turn (a pin in a slot, `Slot`).
    pub slot: Option<String>,
}

/// A straight ground guide a point slides on (a slider): the line through `origin` at
/// `angle` (rad from +x).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Guide {
    pub origin: Vector2<f64>,
    pub angle: f64,
}

impl Guide {
    pub fn axis(&self) -> Vector2<f64> {
        Vector2::new(self.angle.cos(), self.angle.sin())
    }
}

/// A bar from point `start` to point `end` (indices into [`Sketch::points`]), with the points
/// it carries between them at `along` metres from its start.
#[derive(Clone, Debug, PartialEq)]
pub struct SketchBar {
    pub name: String,
    pub start: usize,
    pub end: usize,
    pub length: f64,
    pub mass: f64,
    /// Points along the bar: the point's index and its distance from the start (m).
    pub along: Vec<(usize, f64)>,
    /// The bar's initial angular velocity (rad/s), when the user set one; the others are
    /// completed consistently, as for any scene file.
    pub omega: Option<f64>,
}

impl SketchBar {
    /// Every point of the bar with its distance from the start.
    pub fn points(&self) -> impl Iterator<Item = (usize, f64)> + '_ {
        [(self.start, 0.0), (self.end, self.length)]
            .into_iter()
            .chain(self.along.iter().copied())
    }

    /// Whether `point` is on the bar (an end or along it).
    pub fn carries(&self, point: usize) -> bool {
        self.points().any(|(p, _)| p == point)
    }
}

/// A drawn mechanism.
#[derive(Clone, Debug, PartialEq)]
pub struct Sketch {
    pub title: String,
    pub points: Vec<SketchPoint>,
    pub bars: Vec<SketchBar>,
}

impl Default for Sketch {
    fn default() -> Self {
        Self {
            title: "Drawn mechanism".to_owned(),
            points: Vec::new(),
            bars: Vec::new(),
        }
    }
}

/// Kilograms per metre of a bar drawn without a stated mass (the shipped linkages' 1 kg,
/// 1 m bars).
pub const MASS_PER_METRE: f64 = 1.0;

/// Points closer than this (m) are one point: a bar cannot be shorter.
pub const SAME_POINT: f64 = 1e-9;

impl Sketch {
    pub fn point_index(&self, name: &str) -> Option<usize> {
        self.points.iter().position(|p| p.name == name)
    }

    pub fn bar_index(&self, name: &str) -> Option<usize> {
        self.bars.iter().position(|b| b.name == name)
    }

    /// The bars through `point`, cranks (bars through a ground point) first, then in the
    /// order they were drawn: the first is the `a` side of the point's revolute joints.
    pub fn bars_at(&self, point: usize) -> Vec<usize> {
        let mut bars: Vec<usize> = (0..self.bars.len())
            .filter(|&b| self.bars[b].carries(point))
            .collect();
        bars.sort_by_key(|&b| !self.is_crank(b));
        bars
    }

    /// Whether bar `bar` goes through a ground point.
    pub fn is_crank(&self, bar: usize) -> bool {
        self.bars[bar].points().any(|(p, _)| self.points[p].ground)
    }

    /// The first free name of the form `prefix1`, `prefix2`, ... (`O1` for ground pivots,
    /// `bar1` for bars).
    fn numbered_name(&self, prefix: &str) -> String {
        (1..)
            .map(|k| format!("{prefix}{k}"))
            .find(|name| !self.name_taken(name))
            .expect("some number is free")
    }

    /// The first free capital letter, then `A1`, `B1`, ...: the names of moving points.
    fn letter_name(&self) -> String {
        let letters = || ('A'..='Z').filter(|c| *c != 'O');
        letters()
            .map(String::from)
            .chain((1..).flat_map(move |k| letters().map(move |c| format!("{c}{k}"))))
            .find(|name| !self.name_taken(name))
            .expect("some name is free")
    }

    /// Whether a point or a bar has `name`.
    pub fn name_taken(&self, name: &str) -> bool {
        self.points.iter().any(|p| p.name == name) || self.bars.iter().any(|b| b.name == name)
    }
}

/// Why an edit was refused; the sketch is left as it was.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum SketchError {
    #[error("no point is named \"{0}\"")]
    UnknownPoint(String),
    #[error("no bar is named \"{0}\"")]
    UnknownBar(String),
    #[error("nothing is named \"{0}\"")]
    UnknownName(String),
    #[error("the name \"{0}\" is taken")]
    NameTaken(String),
    #[error("a name needs a letter or digit and no quote, backslash or line break: \"{0}\"")]
    BadName(String),
    #[error("{0} must be a finite number{1}")]
    BadNumber(&'static str, &'static str),
    #[error("a bar needs two different points (these are {0:.3e} m apart)")]
    ZeroLength(f64),
    #[error("{along} m is not on bar \"{bar}\" (0 to {length} m from its start)")]
    OffBar {
        bar: String,
        along: f64,
        length: f64,
    },
    #[error("a point mass goes on a point of a bar: no bar goes through \"{0}\"")]
    NoBar(String),
    #[error("\"{point}\" cannot slide in bar \"{bar}\": {why}")]
    BadSlot {
        point: String,
        bar: String,
        why: &'static str,
    },
    #[error("bar \"{0}\" already joins these points")]
    DuplicateBar(String),
    #[error("{what}: joint \"{joint}\" would open by {gap:.3e} m; the sketch keeps its last pose")]
    CannotAssemble {
        what: String,
        joint: String,
        gap: f64,
    },
    #[error("the sketch does not load as a scene: {0}")]
    Scene(String),
}
