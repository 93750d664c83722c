//! Scene errors: every one names the file, the line and column, and the entry at fault.

/// A scene that cannot be loaded; shown as `file:line:column: entity: message`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}:{column}: {}{message}", entity_prefix(.entity.as_deref()))]
pub struct SceneError {
    pub file: String,
    /// 1-based line and column.
    pub line: usize,
    pub column: usize,
    /// The body, joint, load or section at fault, e.g. `joint "B1"`.
    pub entity: Option<String>,
    pub message: String,
}

/// `entity: `, or nothing when the error is not inside an entry.
fn entity_prefix(entity: Option<&str>) -> String {
    entity.map_or_else(String::new, |entity| format!("{entity}: "))
}
