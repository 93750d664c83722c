//! Scene errors: every one names the file, the line and column, and the entry at fault.

use std::fmt;

/// A scene that cannot be loaded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SceneError {
    pub file: String,
    /// 1-based line and column.
    pub line: usize,
    pub column: usize,
    /// The body, joint, load or section at fault, e.g. `joint "B1"`.
    pub entity: Option<String>,
    pub message: String,
}

impl fmt::Display for SceneError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}: ", self.file, self.line, self.column)?;
        if let Some(entity) = &self.entity {
            write!(f, "{entity}: ")?;
        }
        write!(f, "{}", self.message)
    }
}

impl std::error::Error for SceneError {}
