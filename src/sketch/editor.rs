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
}

impl SketchEditor {
    pub fn new(sketch: Sketch) -> Self {
        Self {
            sketch,
            undo: Vec::new(),
            redo: Vec::new(),
        }
    }

    pub fn sketch(&self) -> &Sketch {
        &self.sketch
    }

    /// Applies `command`; a refused one changes nothing, the history included.
    pub fn apply(&mut self, command: &SketchCommand) -> Result<(), SketchError> {
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

    /// Goes back one edit; false when there is none.
    pub fn undo(&mut self) -> bool {
        let Some(previous) = self.undo.pop() else {
            return false;
        };
        self.redo
            .push(std::mem::replace(&mut self.sketch, previous));
        true
    }

    /// Applies again the edit last undone; false when there is none.
    pub fn redo(&mut self) -> bool {
        let Some(next) = self.redo.pop() else {
            return false;
        };
        self.undo.push(std::mem::replace(&mut self.sketch, next));
        true
    }
}
