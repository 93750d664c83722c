//! Where Ctrl+R puts its videos: a folder the user sees among their own files, not the
//! working directory (which may be the project). `$XDG_VIDEOS_DIR/singulab` when that variable
//! names an absolute folder, else `~/Videos/singulab`; created if missing. `singulab record`
//! writes where `--out` says and does not use it.

use std::path::{Path, PathBuf};

/// The folder for in-app recordings, from `$XDG_VIDEOS_DIR` and `$HOME` (none: neither set).
pub fn video_folder(xdg_videos: Option<&Path>, home: Option<&Path>) -> Option<PathBuf> {
    let base = match (xdg_videos, home) {
        (Some(videos), _) if videos.is_absolute() => videos.to_path_buf(),
        (_, Some(home)) if home.is_absolute() => home.join("Videos"),
        _ => return None,
    };
    Some(base.join("singulab"))
}

/// The folder for this user, created if missing; the error says which folder could not be made.
pub fn ensure_video_folder() -> Result<PathBuf, String> {
    let xdg = std::env::var_os("XDG_VIDEOS_DIR").map(PathBuf::from);
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let folder = video_folder(xdg.as_deref(), home.as_deref())
        .ok_or("no folder for videos: neither XDG_VIDEOS_DIR nor HOME is set")?;
    std::fs::create_dir_all(&folder)
        .map_err(|e| format!("cannot create the videos folder {}: {e}", folder.display()))?;
    Ok(folder)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_xdg_videos_folder_comes_first_then_the_home_videos_folder() {
        let home = Path::new("/home/ada");
        assert_eq!(
            video_folder(Some(Path::new("/data/films")), Some(home)),
            Some(PathBuf::from("/data/films/singulab"))
        );
        assert_eq!(
            video_folder(None, Some(home)),
            Some(PathBuf::from("/home/ada/Videos/singulab"))
        );
        // A relative XDG value would land in the working directory again.
        assert_eq!(
            video_folder(Some(Path::new("films")), Some(home)),
            Some(PathBuf::from("/home/ada/Videos/singulab"))
        );
        assert_eq!(video_folder(None, None), None);
    }
}
