//! The writing end of a recording, on a thread of its own so that encoding never holds up a
//! frame: captured frames arrive on a bounded channel as (index, copies, RGBA pixels), are
//! put back in the order they were asked for (screenshots may land out of order), and go to
//! one sink:
//!
//! - MP4: raw RGBA piped to `ffmpeg` (H.264, `yuv420p`, padded to even sizes, as players
//!   need), which must be on `PATH`;
//! - GIF: [`GifVideo`] (one palette, only what changed each frame), delays in hundredths of a
//!   second, looping;
//! - a folder of `frame_00000.png`, ... (the image crate).
//!
//! A frame's `copies` is how many video frames it stands for (a paused stretch of an
//! interactive recording follows the wall clock): the GIF lengthens its delay, the others
//! repeat it; an MP4 holds its last frame [`MP4_LAST_HOLD`] seconds. Every frame takes the
//! first frame's size (a window resized while recording is scaled back to it). The progress
//! bar on stderr counts video frames written.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::JoinHandle;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::gif_video::GifVideo;
use crate::live::recording::{NO_FFMPEG, OutputKind, RecordPlan, gif_delay};

/// One captured frame.
pub struct CapturedFrame {
    /// Order in which the frames were asked for, from 0.
    pub index: u64,
    /// Video frames it stands for (at least 1).
    pub copies: u32,
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
}

/// What was written, for the closing line.
#[derive(Clone, Debug)]
pub struct EncodeSummary {
    pub video_frames: u64,
    pub width: u32,
    pub height: u32,
    pub out: PathBuf,
}

/// The encoder thread and the channel to it.
pub struct Encoder {
    sender: Option<SyncSender<CapturedFrame>>,
    thread: Option<JoinHandle<Result<EncodeSummary, String>>>,
}

/// Frames waiting for the encoder: a few, so that a slow encoder slows the capture instead
/// of filling the memory (a 1920x1080 frame is 8 MB).
const QUEUE: usize = 4;

impl Encoder {
    /// Starts the thread writing `plan.out`; `expected` video frames draw a progress bar
    /// (none: no bar).
    pub fn start(plan: &RecordPlan, expected: Option<u64>) -> Self {
        let (sender, receiver) = sync_channel(QUEUE);
        let progress = expected.map(progress_bar);
        let plan = plan.clone();
        let thread = std::thread::Builder::new()
            .name("singulab-encoder".into())
            .spawn(move || encode_all(&plan, &receiver, progress))
            .ok();
        Self {
            sender: Some(sender),
            thread,
        }
    }

    /// Hands a frame over; blocks while the queue is full. An error means the encoder
    /// stopped (its reason comes from [`Encoder::finish`]).
    pub fn send(&self, frame: CapturedFrame) -> Result<(), ()> {
        match (&self.sender, &self.thread) {
            (Some(sender), Some(_)) => sender.send(frame).map_err(|_| ()),
            _ => Err(()),
        }
    }

    /// No more frames: waits for the encoder to write the rest and close the file.
    pub fn finish(mut self) -> Result<EncodeSummary, String> {
        self.sender = None;
        match self.thread.take() {
            Some(thread) => thread
                .join()
                .unwrap_or_else(|_| Err("the encoder thread failed".into())),
            None => Err("the encoder thread could not be started".into()),
        }
    }
}

fn progress_bar(frames: u64) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(frames), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template(
        "singulab: recording {bar:40} {pos}/{len} frames, {per_sec}, {eta} left",
    ) {
        bar.set_style(style);
    }
    bar
}

/// The thread's body: frames in order to the sink until the channel closes.
fn encode_all(
    plan: &RecordPlan,
    frames: &Receiver<CapturedFrame>,
    progress: Option<ProgressBar>,
) -> Result<EncodeSummary, String> {
    let mut sink: Option<Sink> = None;
    let mut pending = BTreeMap::new();
    let mut next = 0;
    let mut written = 0;
    let mut write = |frame: CapturedFrame| -> Result<(), String> {
        let sink = match &mut sink {
            Some(sink) => sink,
            None => sink.insert(Sink::open(plan, frame.width, frame.height)?),
        };
        sink.write(frame)
    };
    for frame in frames {
        pending.insert(frame.index, frame);
        while let Some(frame) = pending.remove(&next) {
            next += 1;
            let copies = u64::from(frame.copies.max(1));
            write(frame)?;
            written += copies;
            if let Some(bar) = &progress {
                bar.inc(copies);
            }
        }
    }
    // Frames after a lost one: written in their order.
    for (_, frame) in std::mem::take(&mut pending) {
        written += u64::from(frame.copies.max(1));
        write(frame)?;
    }
    if let Some(bar) = &progress {
        bar.finish_and_clear();
    }
    let sink = sink.ok_or("no frame was captured")?;
    let (width, height) = sink.size();
    sink.close()?;
    Ok(EncodeSummary {
        video_frames: written,
        width,
        height,
        out: plan.out.clone(),
    })
}

/// Where the frames go.
enum Sink {
    Mp4(Mp4Sink),
    Gif(Box<GifVideo>, (u32, u32)),
    Png(PngSink),
}

impl Sink {
    fn open(plan: &RecordPlan, width: u32, height: u32) -> Result<Self, String> {
        let size = (width, height);
        Ok(match plan.kind {
            OutputKind::Mp4 => Self::Mp4(Mp4Sink::open(&plan.out, size, plan.fps)?),
            OutputKind::Gif => {
                let video = GifVideo::create(&plan.out, size, gif_delay(plan.fps))?;
                Self::Gif(Box::new(video), size)
            }
            OutputKind::PngFolder => Self::Png(PngSink {
                dir: plan.out.clone(),
                next: 0,
                size,
            }),
        })
    }

    fn size(&self) -> (u32, u32) {
        match self {
            Self::Mp4(sink) => sink.size,
            Self::Gif(_, size) => *size,
            Self::Png(sink) => sink.size,
        }
    }

    fn write(&mut self, mut frame: CapturedFrame) -> Result<(), String> {
        fit(&mut frame, self.size())?;
        match self {
            Self::Mp4(sink) => sink.write(&frame),
            Self::Gif(video, _) => video.write(&frame.rgba, frame.copies.max(1)),
            Self::Png(sink) => sink.write(&frame),
        }
    }

    fn close(self) -> Result<(), String> {
        match self {
            Self::Mp4(sink) => sink.close(),
            Self::Gif(video, _) => video.finish(),
            Self::Png(_) => Ok(()),
        }
    }
}

/// Fits a frame of another size (the window was resized, the canvas' layout changed) into
/// the recording's: scaled as large as fits with its proportions kept, centred on the
/// frame's own background (its bottom-left pixel), so nothing in it is stretched.
fn fit(frame: &mut CapturedFrame, (width, height): (u32, u32)) -> Result<(), String> {
    if (frame.width, frame.height) == (width, height) {
        return Ok(());
    }
    let pixels = std::mem::take(&mut frame.rgba);
    let image = image::RgbaImage::from_raw(frame.width, frame.height, pixels)
        .ok_or("a captured frame has fewer pixels than its size")?;
    let background = *image.get_pixel(0, frame.height.saturating_sub(1));
    let scale = (f64::from(width) / f64::from(frame.width))
        .min(f64::from(height) / f64::from(frame.height));
    let (w, h) = (
        ((f64::from(frame.width) * scale).round() as u32).clamp(1, width),
        ((f64::from(frame.height) * scale).round() as u32).clamp(1, height),
    );
    let scaled = image::imageops::resize(&image, w, h, image::imageops::FilterType::Triangle);
    let mut fitted = image::RgbaImage::from_pixel(width, height, background);
    image::imageops::overlay(
        &mut fitted,
        &scaled,
        i64::from((width - w) / 2),
        i64::from((height - h) / 2),
    );
    frame.rgba = fitted.into_raw();
    (frame.width, frame.height) = (width, height);
    Ok(())
}

struct Mp4Sink {
    child: Child,
    stdin: Option<ChildStdin>,
    size: (u32, u32),
    out: PathBuf,
    fps: u32,
    /// The last frame's pixels, held at the end.
    last: Vec<u8>,
}

/// Seconds an MP4 shows its last frame after the run's end, as a GIF does: a video that
/// stopped on its last frame ended abruptly (trial 16).
pub const MP4_LAST_HOLD: u32 = 2;

impl Mp4Sink {
    fn open(out: &Path, size: (u32, u32), fps: u32) -> Result<Self, String> {
        let mut child = Command::new("ffmpeg")
            .args(["-hide_banner", "-loglevel", "error", "-nostdin", "-y"])
            .args(["-f", "rawvideo", "-pix_fmt", "rgba"])
            .args(["-video_size", &format!("{}x{}", size.0, size.1)])
            .args(["-framerate", &fps.to_string(), "-i", "-"])
            // yuv420p halves the chroma resolution: players need even sizes.
            .args(["-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2"])
            .args(["-c:v", "libx264", "-pix_fmt", "yuv420p", "-crf", "18"])
            .args(["-movflags", "+faststart"])
            .arg(out)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start ffmpeg: {e}; {}", NO_FFMPEG))?;
        let stdin = child.stdin.take();
        Ok(Self {
            child,
            stdin,
            size,
            out: out.to_path_buf(),
            fps,
            last: Vec::new(),
        })
    }

    fn write(&mut self, frame: &CapturedFrame) -> Result<(), String> {
        let Some(stdin) = self.stdin.as_mut() else {
            return Err("ffmpeg's input is closed".into());
        };
        for _ in 0..frame.copies.max(1) {
            if stdin.write_all(&frame.rgba).is_err() {
                // ffmpeg went away: its own message says why.
                self.stdin = None;
                return Err(self.ffmpeg_error());
            }
        }
        self.last.clone_from(&frame.rgba);
        Ok(())
    }

    fn ffmpeg_error(&mut self) -> String {
        let mut text = String::new();
        if let Some(stderr) = self.child.stderr.as_mut() {
            let _ = stderr.read_to_string(&mut text);
        }
        let _ = self.child.wait();
        format!(
            "ffmpeg could not write {}: {}",
            self.out.display(),
            text.trim()
        )
    }

    fn close(mut self) -> Result<(), String> {
        let last = std::mem::take(&mut self.last);
        let hold = CapturedFrame {
            index: 0,
            copies: MP4_LAST_HOLD * self.fps,
            width: self.size.0,
            height: self.size.1,
            rgba: last,
        };
        if !hold.rgba.is_empty() {
            self.write(&hold)?;
        }
        // Closing its input ends ffmpeg.
        self.stdin = None;
        let mut text = String::new();
        if let Some(stderr) = self.child.stderr.as_mut() {
            let _ = stderr.read_to_string(&mut text);
        }
        match self.child.wait() {
            Ok(status) if status.success() => Ok(()),
            Ok(status) => Err(format!(
                "ffmpeg could not write {} ({status}): {}",
                self.out.display(),
                text.trim()
            )),
            Err(e) => Err(format!("ffmpeg: {e}")),
        }
    }
}

struct PngSink {
    dir: PathBuf,
    next: u64,
    size: (u32, u32),
}

impl PngSink {
    fn write(&mut self, frame: &CapturedFrame) -> Result<(), String> {
        let image = image::RgbaImage::from_raw(frame.width, frame.height, frame.rgba.clone())
            .ok_or("a captured frame has fewer pixels than its size")?;
        for _ in 0..frame.copies.max(1) {
            let path = self.dir.join(format!("frame_{:05}.png", self.next));
            image
                .save_with_format(&path, image::ImageFormat::Png)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            self.next += 1;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 200 x 100 frame (a red 20 x 20 square in its middle on grey) put into a 200 x 200
    /// recording: the square stays square (scaled by 1, not stretched to 20 x 40), centred,
    /// with the frame's grey above and below.
    #[test]
    fn a_frame_of_another_shape_is_letterboxed_not_stretched() {
        let (grey, red) = ([40, 40, 40, 255], [255, 0, 0, 255]);
        let image = image::RgbaImage::from_fn(200, 100, |x, y| {
            image::Rgba(if (90..110).contains(&x) && (40..60).contains(&y) {
                red
            } else {
                grey
            })
        });
        let mut frame = CapturedFrame {
            index: 0,
            copies: 1,
            width: 200,
            height: 100,
            rgba: image.into_raw(),
        };
        fit(&mut frame, (200, 200)).unwrap();
        let out = image::RgbaImage::from_raw(200, 200, frame.rgba).unwrap();
        let red_rows = (0..200).filter(|&y| out.get_pixel(100, y).0 == red).count();
        let red_columns = (0..200).filter(|&x| out.get_pixel(x, 100).0 == red).count();
        assert!((19..=21).contains(&red_rows), "{red_rows} rows");
        assert!((19..=21).contains(&red_columns), "{red_columns} columns");
        assert_eq!(out.get_pixel(100, 10).0, grey);
        assert_eq!(out.get_pixel(100, 190).0, grey);
    }
}
