//! The scenes and lessons the Scene panel and the File menu list.

use std::path::PathBuf;
use web_time::Instant;

use bevy::prelude::*;

/// Scene files offered in the Scene panel: the opened scene's folder and the shipped scenes.
#[derive(Resource, Default)]
pub struct SceneCatalog {
    pub files: Vec<PathBuf>,
    pub(super) scanned: Option<Instant>,
}

impl SceneCatalog {
    /// The `.ron` files next to the opened scene, then the shipped scenes and lessons
    /// (`scenes/` and `scenes/lessons/` in the working directory, else in the source tree),
    /// each group sorted, none twice.
    pub(super) fn rescan(&mut self, current: &std::path::Path) {
        let ron_files = |dir: &std::path::Path| -> Vec<PathBuf> {
            let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
                .into_iter()
                .flatten()
                .flatten()
                .map(|entry| entry.path())
                .filter(|path| path.extension().is_some_and(|e| e == "ron"))
                .map(|path| path.canonicalize().unwrap_or(path))
                .collect();
            found.sort();
            found
        };
        let beside = current
            .parent()
            .map(|p| {
                if p.as_os_str().is_empty() {
                    std::path::Path::new(".")
                } else {
                    p
                }
            })
            .map(ron_files)
            .unwrap_or_default();
        let shipped = [
            PathBuf::from("scenes"),
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenes"),
        ]
        .iter()
        .map(|dir| [ron_files(dir), ron_files(&dir.join("lessons"))].concat())
        .find(|files| !files.is_empty())
        .unwrap_or_default();
        let mut files = beside;
        // A browser has no folders to read: the shipped scenes and lessons compiled in.
        let shipped = if cfg!(target_arch = "wasm32") {
            crate::source::SHIPPED
                .iter()
                .map(|(path, _)| PathBuf::from(path))
                .collect()
        } else {
            shipped
        };
        for path in shipped {
            if !files.contains(&path) {
                files.push(path);
            }
        }
        self.files = files;
        self.scanned = Some(Instant::now());
    }
}
