//! The sketch being edited with its undo and redo history.

use super::{Sketch, SketchCommand, SketchError};

/// Edits beyond this many are forgotten from the undo history (a sketch is small; this
/// bounds a long session's memory).
const HISTORY: usize = 500;

/// A sketch and the sketches before (undo) and after (redo) it.
#[derive(Clone, Debug, Default)]
pub struct SketchEditor {
    sketch: Sketch,
    undo: Vec<Sketch>,
    redo: Vec<Sketch>,
    /// A gesture (a point dragged) is under way and its start is on the undo history.
    continuing: bool,
}

impl SketchEditor {
    pub fn new(sketch: Sketch) -> Self {
        Self {
            sketch,
            undo: Vec::new(),
            redo: Vec::new(),
            continuing: false,
        }
    }

    pub fn sketch(&self) -> &Sketch {
        &self.sketch
    }

    /// Applies `command`; a refused one changes nothing, the history included.
    pub fn apply(&mut self, command: &SketchCommand) -> Result<(), SketchError> {
        self.continuing = false;
        self.apply_step(command)
    }

    /// Applies `command` as a step of a gesture: the gesture's steps undo together, back to
    /// the sketch before its first.
    pub fn apply_continuing(&mut self, command: &SketchCommand) -> Result<(), SketchError> {
        if !self.continuing {
            self.apply_step(command)?;
            self.continuing = true;
            return Ok(());
        }
        self.sketch = self.sketch.applied(command)?;
        Ok(())
    }

    /// The gesture is over: the next edit is an undo step of its own.
    pub fn end_gesture(&mut self) {
        self.continuing = false;
    }

    fn apply_step(&mut self, command: &SketchCommand) -> Result<(), SketchError> {
        let next = self.sketch.applied(command)?;
        if next == self.sketch {
            return Ok(());
        }
        self.undo.push(std::mem::replace(&mut self.sketch, next));
        if self.undo.len() > HISTORY {
            self.undo.remove(0);
        }
        self.redo.clear();
        Ok(())
    }

    /// Replaces the whole sketch (a new drawing), as an edit: undo brings the old one back.
    pub fn replace(&mut self, sketch: Sketch) {
        self.continuing = false;
        if sketch == self.sketch {
            return;
        }
        self.undo.push(std::mem::replace(&mut self.sketch, sketch));
        self.redo.clear();
    }

    /// Goes back one edit; false when there is none.
    pub fn undo(&mut self) -> bool {
        self.continuing = false;
        let Some(previous) = self.undo.pop() else {
            return false;
        };
        self.redo
            .push(std::mem::replace(&mut self.sketch, previous));
        true
    }

    /// Applies again the edit last undone; false when there is none.
    pub fn redo(&mut self) -> bool {
        self.continuing = false;
        let Some(next) = self.redo.pop() else {
            return false;
        };
        self.undo.push(std::mem::replace(&mut self.sketch, next));
        true
    }
}
