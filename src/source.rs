//! Where scene and lesson text comes from and where saved files go: the file system on the
//! desktop; in a browser, which has none, the shipped scenes and lessons compiled into the
//! program ([`SHIPPED`]) and the files the user opened or saved there ([`remember`]), a save
//! being offered as a download. The loaders read through [`read_at_most`] and the window's
//! saves go through [`write()`], so both work the same way in either.

use std::collections::HashMap;
use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};
use std::sync::{Mutex, OnceLock};

macro_rules! shipped {
    ($path:literal) => {
        (
            $path,
            include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/", $path)),
        )
    };
}

/// Every scene and lesson of `scenes/`, by its path from the project's root (a test checks
/// that none is missing).
pub const SHIPPED: &[(&str, &str)] = &[
    shipped!("scenes/double_four_bar.ron"),
    shipped!("scenes/four_bar.ron"),
    shipped!("scenes/four_bar_stopping.ron"),
    shipped!("scenes/mobile_robot.ron"),
    shipped!("scenes/modified_2x2.ron"),
    shipped!("scenes/modified_2x3.ron"),
    shipped!("scenes/modified_double_four_bar.ron"),
    shipped!("scenes/modified_triple_four_bar.ron"),
    shipped!("scenes/planar_pendulum.ron"),
    shipped!("scenes/redundant_pendulum.ron"),
    shipped!("scenes/slider_crank.ron"),
    shipped!("scenes/spatial_pendulum.ron"),
    shipped!("scenes/spin_top.ron"),
    shipped!("scenes/lessons/a02_branches.ron"),
    shipped!("scenes/lessons/four_bar_fold.ron"),
    shipped!("scenes/lessons/four_bar_stopping_push.ron"),
];

/// The text of the shipped file at `path` (`scenes/...` from the project's root, or any path
/// ending so, `..` and `.` resolved), if it is one.
pub fn shipped(path: &Path) -> Option<&'static str> {
    let key = normalised(path);
    SHIPPED
        .iter()
        .find(|(name, _)| key.ends_with(name))
        .map(|(_, text)| *text)
}

/// `path` with `.` and `..` resolved lexically (the browser has no directories to follow).
fn normalised(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Files the user opened in the browser (through its file picker or dropped on the page),
/// by the name they are shown under.
fn opened() -> &'static Mutex<HashMap<PathBuf, Vec<u8>>> {
    static OPENED: OnceLock<Mutex<HashMap<PathBuf, Vec<u8>>>> = OnceLock::new();
    OPENED.get_or_init(Mutex::default)
}

/// Keeps a file the user opened in the browser, to be read at `path`.
pub fn remember(path: &Path, bytes: Vec<u8>) {
    if let Ok(mut files) = opened().lock() {
        files.insert(normalised(path), bytes);
    }
}

/// Writes `bytes` to the file at `path`: on the desktop `std::fs::write`; in a browser the
/// page keeps them (a scene saved there opens again) and offers them as a download named
/// after the file.
pub fn write(path: &Path, bytes: &[u8]) -> io::Result<()> {
    #[cfg(target_arch = "wasm32")]
    {
        remember(path, bytes.to_vec());
        let name = path.file_name().map_or_else(
            || "singulab".to_owned(),
            |n| n.to_string_lossy().into_owned(),
        );
        download(&name, bytes).map_err(|e| io::Error::other(format!("{e:?}")))
    }
    #[cfg(not(target_arch = "wasm32"))]
    std::fs::write(path, bytes)
}

/// Offers `bytes` as a download named `name` (a link to a blob of them, clicked).
#[cfg(target_arch = "wasm32")]
fn download(name: &str, bytes: &[u8]) -> Result<(), wasm_bindgen::JsValue> {
    use wasm_bindgen::JsCast;
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes));
    let blob = web_sys::Blob::new_with_u8_array_sequence(&parts)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob)?;
    let document = web_sys::window()
        .and_then(|window| window.document())
        .ok_or("no document")?;
    let link: web_sys::HtmlAnchorElement = document.create_element("a")?.dyn_into()?;
    link.set_href(&url);
    link.set_download(name);
    link.click();
    web_sys::Url::revoke_object_url(&url)
}

/// The bytes of the file at `path`, at most `limit + 1` of them (so a caller can tell a file
/// larger than `limit`).
pub fn read_at_most(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    if cfg!(target_arch = "wasm32") {
        let key = normalised(path);
        let remembered = opened()
            .lock()
            .ok()
            .and_then(|files| files.get(&key).cloned());
        let found = remembered.or_else(|| shipped(&key).map(|text| text.as_bytes().to_vec()));
        let Some(found) = found else {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                "not a shipped scene or lesson, nor a file opened in this page",
            ));
        };
        found.as_slice().take(limit + 1).read_to_end(&mut bytes)?;
    } else {
        std::fs::File::open(path)?
            .take(limit + 1)
            .read_to_end(&mut bytes)?;
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `.ron` file of `scenes/` and `scenes/lessons/` is compiled in, with the text on
    /// disk, and found by the paths a lesson names its scene with.
    #[test]
    fn every_shipped_scene_and_lesson_is_compiled_in() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut on_disk = Vec::new();
        for dir in ["scenes", "scenes/lessons"] {
            for entry in std::fs::read_dir(root.join(dir)).unwrap() {
                let path = entry.unwrap().path();
                if path.extension().is_some_and(|e| e == "ron") {
                    on_disk.push(format!(
                        "{dir}/{}",
                        path.file_name().unwrap().to_string_lossy()
                    ));
                }
            }
        }
        on_disk.sort();
        let mut compiled: Vec<String> = SHIPPED.iter().map(|(p, _)| (*p).to_owned()).collect();
        compiled.sort();
        assert_eq!(compiled, on_disk);
        for (path, text) in SHIPPED {
            assert_eq!(
                *text,
                std::fs::read_to_string(root.join(path)).unwrap(),
                "{path}"
            );
        }
        let a02 = shipped(Path::new("scenes/lessons/../double_four_bar.ron")).unwrap();
        assert!(a02.contains("IFToMM A02"));
        assert!(shipped(Path::new("./scenes/four_bar.ron")).is_some());
        assert!(shipped(Path::new("/work/singulab/scenes/lessons/a02_branches.ron")).is_some());
        assert!(shipped(Path::new("scenes/nothing.ron")).is_none());
    }
}
