//! The arithmetic of a recording, without a window: which simulated instant each video frame
//! shows, how many frames a run to `t_end` takes, what kind of output a path names, and file
//! names that never overwrite an earlier one.
//!
//! A recording shows a fixed simulated time per frame: frame `k` of a run at `speed` recorded
//! at `fps` frames per second shows `t0 + k * speed / fps`, computed from `k` each time (not
//! by adding a step per frame, which would drift by rounding), so the video plays at `speed`
//! however long each frame took to draw. A pause (a lesson's, the user's) or a change of speed
//! starts a new segment from the instant it happened: [`FrameClock::restart`].
//! `singulab record --t-end` runs frames `0..=K` with `K = floor((t_end - t0) * fps / speed)`:
//! the first shows `t0`, the last `t_end` itself when the frames fall on it.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// What `singulab record` (or the app's Record button) writes, and at which pace.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordPlan {
    pub out: PathBuf,
    pub kind: OutputKind,
    /// Frames per second of the video.
    pub fps: u32,
    /// Simulated seconds per second of video.
    pub speed: f64,
    /// Simulated time of the last frame; `None`: the scene's `t_end` (the app's Record
    /// button: until the user stops).
    pub t_end: Option<f64>,
}

/// Which simulated instant each frame shows.
#[derive(Clone, Debug, PartialEq)]
pub struct FrameClock {
    fps: f64,
    speed: f64,
    /// The segment began at frame `origin_frame`, showing `origin_t`.
    origin_t: f64,
    origin_frame: u64,
}

impl FrameClock {
    /// A clock whose frame 0 shows `t0`.
    pub fn new(t0: f64, speed: f64, fps: f64) -> Self {
        Self {
            fps,
            speed,
            origin_t: t0,
            origin_frame: 0,
        }
    }

    pub fn fps(&self) -> f64 {
        self.fps
    }

    pub fn speed(&self) -> f64 {
        self.speed
    }

    /// The simulated time frame `k` shows: `origin_t + (k - origin_frame) * speed / fps`.
    pub fn time_of(&self, frame: u64) -> f64 {
        let frames = frame.saturating_sub(self.origin_frame) as f64;
        self.origin_t + frames * self.speed / self.fps
    }

    /// A new segment: frame `frame` shows `t` (where a pause left the session), and later
    /// frames run at `speed`.
    pub fn restart(&mut self, frame: u64, t: f64, speed: f64) {
        self.origin_frame = frame;
        self.origin_t = t;
        self.speed = speed;
    }
}

/// Frames of a run from `t0` to `t_end` at `speed` and `fps`: the first shows `t0`, the last
/// the latest frame instant at or before `t_end` (with a relative allowance of 1e-9 of a
/// frame, so that `t_end = 2, fps = 60` ends on the frame at 2 s despite rounding).
pub fn frame_count(t0: f64, t_end: f64, speed: f64, fps: f64) -> u64 {
    let intervals = ((t_end - t0) * fps / speed).max(0.0);
    (intervals + 1e-9).floor() as u64 + 1
}

/// What a recording writes, from the name given to `--out`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OutputKind {
    /// H.264 in an MP4 file, through ffmpeg.
    Mp4,
    /// An animated GIF, by a Rust encoder.
    Gif,
    /// `frame_00000.png`, ... in a folder.
    PngFolder,
}

impl OutputKind {
    /// `.mp4` and `.gif` files (any case), folders: a name ending in `/`, an existing
    /// folder, or a name without an extension. Any other extension is an error naming it.
    pub fn of(path: &Path) -> Result<Self, String> {
        let text = path.as_os_str().to_string_lossy();
        if text.ends_with('/') || text.ends_with(std::path::MAIN_SEPARATOR) || path.is_dir() {
            return Ok(Self::PngFolder);
        }
        let extension = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase());
        match extension.as_deref() {
            Some("mp4") => Ok(Self::Mp4),
            Some("gif") => Ok(Self::Gif),
            None => Ok(Self::PngFolder),
            Some(other) => Err(format!(
                "unknown extension .{other}: use FILE.mp4 (H.264 through ffmpeg), FILE.gif or \
                 DIR/ (a PNG per frame)"
            )),
        }
    }

    /// Frames per second when `--fps` is not given: GIF frame delays are whole hundredths of
    /// a second, so 25 there; 60 otherwise.
    pub fn default_fps(&self) -> u32 {
        match self {
            Self::Gif => 25,
            _ => 60,
        }
    }
}

/// GIF frame delays are whole hundredths of a second, and browsers show delays below 2
/// hundredths as 10: the frame rates a GIF plays exactly at.
pub const GIF_FPS: [u32; 8] = [1, 2, 4, 5, 10, 20, 25, 50];

/// Checks `fps` for the output kind: a GIF plays at the requested speed only at
/// [`GIF_FPS`].
pub fn check_fps(kind: &OutputKind, fps: u32) -> Result<(), String> {
    if *kind == OutputKind::Gif && !GIF_FPS.contains(&fps) {
        return Err(format!(
            "a GIF plays at {fps} frames per second only approximately (its frame delays are \
             whole hundredths of a second, at least 2): use --fps 50, 25, 20 or 10, or an MP4"
        ));
    }
    Ok(())
}

/// The GIF frame delay for `fps`, in hundredths of a second (`fps` from [`GIF_FPS`]).
pub fn gif_delay(fps: u32) -> u16 {
    (100 / fps.max(1)) as u16
}

/// File names handed out in this run (screenshots, recordings) and not necessarily on disk
/// yet: a screenshot is written a frame or more after it was asked for.
#[derive(Clone, Debug, Default)]
pub struct TakenNames {
    names: HashSet<PathBuf>,
}

impl TakenNames {
    /// `dir/stem.extension`, or `dir/stem_2.extension`, `_3`, ... when that name was handed
    /// out before or a file or folder has it; the name returned is then taken.
    pub fn unique(&mut self, dir: &Path, stem: &str, extension: Option<&str>) -> PathBuf {
        let name = |n: u32| {
            let stem = if n == 1 {
                stem.to_string()
            } else {
                format!("{stem}_{n}")
            };
            match extension {
                Some(extension) => dir.join(format!("{stem}.{extension}")),
                None => dir.join(stem),
            }
        };
        let path = (1..=u32::MAX)
            .map(name)
            .find(|path| !self.names.contains(path) && std::fs::symlink_metadata(path).is_err())
            .unwrap_or_else(|| name(u32::MAX));
        self.names.insert(path.clone());
        path
    }
}

/// Parses a speed: a positive number or a fraction (`0.25`, `1/16`), from 1/64 to 64 (the
/// app's speeds).
pub fn parse_speed(text: &str) -> Result<f64, &'static str> {
    let value = match text.split_once('/') {
        Some((a, b)) => match (a.trim().parse::<f64>(), b.trim().parse::<f64>()) {
            (Ok(a), Ok(b)) if b != 0.0 => a / b,
            _ => f64::NAN,
        },
        None => text.trim().parse::<f64>().unwrap_or(f64::NAN),
    };
    if value.is_finite() && (1.0 / 64.0..=64.0).contains(&value) {
        Ok(value)
    } else {
        Err("expected a speed from 1/64 to 64, e.g. 1, 0.25 or 1/16")
    }
}

/// What to do without ffmpeg.
pub const NO_FFMPEG: &str = "an MP4 needs ffmpeg on PATH (Debian and Ubuntu: apt-get install \
    ffmpeg); without it, record to FILE.gif, or to DIR/ for a PNG per frame";

/// Whether `ffmpeg` runs from `PATH`.
pub fn ffmpeg_on_path() -> bool {
    std::process::Command::new("ffmpeg")
        .arg("-version")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

/// Checks before the window opens that the recording can be written: ffmpeg for an MP4, the
/// file open for writing for an MP4 or a GIF, the folder created for PNG frames and holding
/// none yet (frames of an earlier recording would mix with these).
pub fn prepare_output(plan: &RecordPlan) -> Result<(), String> {
    let out = &plan.out;
    match plan.kind {
        OutputKind::Mp4 | OutputKind::Gif => {
            if plan.kind == OutputKind::Mp4 && !ffmpeg_on_path() {
                return Err(format!("ffmpeg is not on PATH: {NO_FFMPEG}"));
            }
            // Opened without emptying it, and removed again if it was not there: nothing is
            // lost or left behind if the recording cannot start.
            let existed = std::fs::symlink_metadata(out).is_ok();
            std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(false)
                .open(out)
                .map_err(|e| format!("cannot write {}: {e}", out.display()))?;
            if !existed {
                let _ = std::fs::remove_file(out);
            }
            Ok(())
        }
        OutputKind::PngFolder => {
            std::fs::create_dir_all(out)
                .map_err(|e| format!("cannot create the folder {}: {e}", out.display()))?;
            let first = out.join("frame_00000.png");
            if first.exists() {
                return Err(format!(
                    "{} already holds frames ({}): choose another folder or remove them",
                    out.display(),
                    first.display()
                ));
            }
            // A folder that exists may still refuse files.
            let probe = out.join(".singulab_write_test");
            std::fs::write(&probe, b"")
                .and_then(|()| std::fs::remove_file(&probe))
                .map_err(|e| format!("cannot write in {}: {e}", out.display()))
        }
    }
}
