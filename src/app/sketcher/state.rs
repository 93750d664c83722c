//! The [`Sketcher`] resource: the sketch being drawn with its history, the live counts and
//! what the pointer is doing, read by the canvas and the panels, changed by the requests
//! `super` applies.

use std::path::PathBuf;

use bevy::prelude::*;

use crate::sketch::{Sketch, SketchAnalysis, SketchEditor};

/// The sketch being edited and the edit mode's state.
#[derive(Resource)]
pub struct Sketcher {
    /// Edit mode is on.
    pub active: bool,
    pub editor: SketchEditor,
    /// The counts of the sketch as it is, or why there are none.
    pub analysis: Result<SketchAnalysis, String>,
    /// The session shows the sketch's scene (false without a bar, or when it does not
    /// load): the canvas then draws the sketch itself.
    pub shows_mechanism: bool,
    /// Why the last edit was refused.
    pub refusal: Option<String>,
    /// The point or bar selected (by name).
    pub selected: Option<String>,
    /// Points snap to a grid.
    pub snap: bool,
    /// Where the sketch was saved, or the scene it was made from.
    pub file: Option<PathBuf>,
    /// What the pointer is doing on the canvas.
    pub gesture: Option<Gesture>,
    /// The sketch changed since it was last saved (or opened): Ctrl+S saves it, also after
    /// Play.
    pub unsaved: bool,
    /// The reactions view was turned on to show a self-stress mode.
    pub(super) showing_mode: bool,
}

/// A gesture on the canvas in edit mode.
#[derive(Clone, Debug, PartialEq)]
pub enum Gesture {
    /// A bar being drawn from `from` (at `at` on the canvas' world).
    Bar {
        from: crate::sketch::Place,
        at: nalgebra::Vector2<f64>,
    },
    /// A point being moved.
    Move { point: String },
}

impl Default for Sketcher {
    fn default() -> Self {
        Self {
            active: false,
            editor: SketchEditor::default(),
            analysis: Ok(SketchAnalysis::default()),
            shows_mechanism: false,
            refusal: None,
            selected: None,
            snap: true,
            file: None,
            gesture: None,
            unsaved: false,
            showing_mode: false,
        }
    }
}

impl Sketcher {
    pub fn sketch(&self) -> &Sketch {
        self.editor.sketch()
    }
}
