//! GIF video for a slide: one global palette and frame differencing.
//!
//! The pictures are flat backgrounds, thin coloured lines and text, and a few moving bars:
//! most pixels of a frame are those of the frame before. So each frame after the first holds
//! only the rectangle of pixels that changed, with the unchanged ones inside it written as
//! the transparent index (disposal `Keep`), which LZW compresses to almost nothing; and all
//! frames share one palette, trained once (NeuQuant, 255 colours, index 255 transparent) on
//! the first frame, with each colour's index cached. A changed rectangle whose colours the
//! palette matches badly (a colour new to the video: an arrow, a banner) gets a palette of
//! its own. Identical frames lengthen the delay of the one before. The size against one
//! palette per full frame, and the colours a viewer sees, are guarded by
//! `gif_video::tests::a_lesson_like_video_is_small_and_decodes_to_its_frames`.

use std::collections::HashMap;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use color_quant::NeuQuant;
use gif::{DisposalMethod, Encoder, Frame, Repeat};

/// Hundredths of a second the last frame shows at least: a looping video shows its end
/// before it starts again (one frame at 25 frames a second is 40 ms).
const LAST_HOLD: u16 = 200;

/// The index no colour uses: pixels of a frame that show the frame before.
const TRANSPARENT: u8 = 255;
/// Colours of a palette (the 256th index is the transparent one).
const COLOURS: usize = 255;
/// NeuQuant's sampling factor (1..30): every 10th pixel, the crate's balance of palette
/// quality and time.
const SAMPLING: i32 = 10;
/// A colour the palette gives back further than this (the largest channel difference) is
/// matched badly.
const BAD_MATCH: i32 = 24;
/// A rectangle with more than this share of its changed pixels matched badly gets its own
/// palette.
const BAD_SHARE: f64 = 0.002;

/// A GIF being written, frame by frame.
pub struct GifVideo {
    out: PathBuf,
    size: (u16, u16),
    delay: u16,
    encoder: Option<Encoder<BufWriter<File>>>,
    palette: Option<Palette>,
    /// The RGBA pixels of the last frame handed in, which the viewer sees now.
    shown: Vec<u8>,
    /// The frame encoded last is held until the next differs: its delay may grow.
    held: Option<Frame<'static>>,
}

/// A palette, the quantiser behind it, and the index each colour met so far maps to.
struct Palette {
    quantiser: NeuQuant,
    rgb: Vec<u8>,
    cache: HashMap<[u8; 3], (u8, bool)>,
}

impl Palette {
    fn train(rgba: &[u8]) -> Self {
        let quantiser = NeuQuant::new(SAMPLING, COLOURS, rgba);
        let mut rgb = quantiser.color_map_rgb();
        rgb.resize(3 * (COLOURS + 1), 0);
        Self {
            quantiser,
            rgb,
            cache: HashMap::new(),
        }
    }

    /// The index of colour `c`, and whether it is matched well.
    fn index(&mut self, c: [u8; 3]) -> (u8, bool) {
        if let Some(&hit) = self.cache.get(&c) {
            return hit;
        }
        let index = self.quantiser.index_of(&[c[0], c[1], c[2], 255]);
        let entry = &self.rgb[3 * index..3 * index + 3];
        let error = (0..3)
            .map(|k| (i32::from(entry[k]) - i32::from(c[k])).abs())
            .max()
            .unwrap_or(0);
        let hit = (index as u8, error <= BAD_MATCH);
        self.cache.insert(c, hit);
        hit
    }
}

/// The smallest rectangle (x, y, width, height) holding every pixel where `a` and `b` differ.
fn changed_rect(a: &[u8], b: &[u8], width: usize) -> Option<(usize, usize, usize, usize)> {
    let rows = a.len() / (4 * width);
    let row_differs =
        |y: usize| a[4 * width * y..4 * width * (y + 1)] != b[4 * width * y..4 * width * (y + 1)];
    let top = (0..rows).find(|&y| row_differs(y))?;
    let bottom = (top..rows).rev().find(|&y| row_differs(y))?;
    let column_differs = |x: usize| {
        (top..=bottom).any(|y| {
            let i = 4 * (width * y + x);
            a[i..i + 4] != b[i..i + 4]
        })
    };
    let left = (0..width).find(|&x| column_differs(x))?;
    let right = (left..width).rev().find(|&x| column_differs(x))?;
    Some((left, top, right - left + 1, bottom - top + 1))
}

impl GifVideo {
    /// A GIF of `size` pixels at `delay` hundredths of a second a video frame, written to
    /// `out` once the first frame comes.
    pub fn create(out: &Path, size: (u32, u32), delay: u16) -> Result<Self, String> {
        let too_large = || format!("a GIF is at most 65535 pixels a side, not {size:?}");
        let width = u16::try_from(size.0).map_err(|_| too_large())?;
        let height = u16::try_from(size.1).map_err(|_| too_large())?;
        Ok(Self {
            out: out.to_path_buf(),
            size: (width, height),
            delay,
            encoder: None,
            palette: None,
            shown: Vec::new(),
            held: None,
        })
    }

    /// One frame of RGBA pixels standing for `copies` video frames.
    pub fn write(&mut self, rgba: &[u8], copies: u32) -> Result<(), String> {
        let (width, height) = (usize::from(self.size.0), usize::from(self.size.1));
        if rgba.len() != 4 * width * height {
            return Err(format!(
                "a frame of {} bytes is not {width}x{height} RGBA",
                rgba.len()
            ));
        }
        let delay = self
            .delay
            .saturating_mul(u16::try_from(copies.max(1)).unwrap_or(u16::MAX));
        if self.encoder.is_none() {
            self.start(rgba)?;
        }
        let rect = if self.shown.is_empty() {
            Some((0, 0, width, height))
        } else {
            changed_rect(&self.shown, rgba, width)
        };
        let Some(rect) = rect else {
            // The same picture: the frame before stays up longer.
            if let Some(held) = self.held.as_mut() {
                held.delay = held.delay.saturating_add(delay);
            }
            return Ok(());
        };
        let mut frame = self.frame_of(rgba, rect);
        frame.delay = delay;
        self.flush_held()?;
        self.held = Some(frame);
        self.shown.clear();
        self.shown.extend_from_slice(rgba);
        Ok(())
    }

    /// Writes the frame held, at least [`LAST_HOLD`] long, and flushes the file to disk.
    pub fn finish(mut self) -> Result<(), String> {
        if let Some(held) = self.held.as_mut() {
            held.delay = held.delay.max(LAST_HOLD);
        }
        self.flush_held()?;
        let Some(encoder) = self.encoder.take() else {
            return Err(format!("no frame was written to {}", self.out.display()));
        };
        let writer = encoder
            .into_inner()
            .map_err(|e| format!("cannot write the GIF: {e}"))?;
        writer
            .into_inner()
            .map_err(|e| format!("cannot write the GIF: {e}"))?
            .sync_all()
            .map_err(|e| format!("cannot write the GIF: {e}"))
    }

    /// Trains the palette on the first frame and opens the file with it.
    fn start(&mut self, rgba: &[u8]) -> Result<(), String> {
        let palette = Palette::train(rgba);
        let file = File::create(&self.out)
            .map_err(|e| format!("cannot create {}: {e}", self.out.display()))?;
        let mut encoder =
            Encoder::new(BufWriter::new(file), self.size.0, self.size.1, &palette.rgb)
                .map_err(|e| format!("cannot write {}: {e}", self.out.display()))?;
        encoder
            .set_repeat(Repeat::Infinite)
            .map_err(|e| format!("cannot write {}: {e}", self.out.display()))?;
        self.encoder = Some(encoder);
        self.palette = Some(palette);
        Ok(())
    }

    fn flush_held(&mut self) -> Result<(), String> {
        let (Some(frame), Some(encoder)) = (self.held.take(), self.encoder.as_mut()) else {
            return Ok(());
        };
        encoder
            .write_frame(&frame)
            .map_err(|e| format!("cannot write the GIF: {e}"))
    }

    /// The rectangle `rect` of `rgba` as a frame: unchanged pixels transparent, the others
    /// in the global palette, or in a palette of their own where it matches them badly.
    fn frame_of(
        &mut self,
        rgba: &[u8],
        (x0, y0, w, h): (usize, usize, usize, usize),
    ) -> Frame<'static> {
        let width = usize::from(self.size.0);
        let first = self.shown.is_empty();
        let mut changed = Vec::with_capacity(4 * w * h);
        let mut keep = Vec::with_capacity(w * h);
        for y in y0..y0 + h {
            for x in x0..x0 + w {
                let i = 4 * (width * y + x);
                let same = !first && self.shown[i..i + 3] == rgba[i..i + 3];
                keep.push(same);
                changed.extend_from_slice(&[rgba[i], rgba[i + 1], rgba[i + 2], 255]);
            }
        }
        let palette = self.palette.as_mut().expect("trained on the first frame");
        let mut indices = Vec::with_capacity(w * h);
        let mut bad = 0usize;
        for (pixel, &same) in changed.chunks_exact(4).zip(&keep) {
            if same {
                indices.push(TRANSPARENT);
                continue;
            }
            let (index, good) = palette.index([pixel[0], pixel[1], pixel[2]]);
            bad += usize::from(!good);
            indices.push(index);
        }
        let moved = keep.iter().filter(|&&same| !same).count().max(1);
        let (w16, h16) = (w as u16, h as u16);
        let mut frame = if (bad as f64) > BAD_SHARE * moved as f64 {
            // Colours new to the video: this rectangle's own palette.
            let mut own = Palette::train(&changed);
            for (index, (pixel, &same)) in
                indices.iter_mut().zip(changed.chunks_exact(4).zip(&keep))
            {
                if !same {
                    *index = own.index([pixel[0], pixel[1], pixel[2]]).0;
                }
            }
            Frame::from_palette_pixels(
                w16,
                h16,
                indices,
                std::mem::take(&mut own.rgb),
                Some(TRANSPARENT),
            )
        } else {
            Frame::from_indexed_pixels(w16, h16, indices, Some(TRANSPARENT))
        };
        frame.left = x0 as u16;
        frame.top = y0 as u16;
        frame.dispose = DisposalMethod::Keep;
        frame
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const W: usize = 640;
    const H: usize = 360;

    /// A picture like the app's: a dark background with a faint grid, static text-like
    /// noise in a corner, a legend, three bars turning by `k` and an arrow.
    fn picture(k: usize) -> Vec<u8> {
        let mut rgba = vec![0u8; 4 * W * H];
        let mut put = |x: i64, y: i64, c: [u8; 3]| {
            if (0..W as i64).contains(&x) && (0..H as i64).contains(&y) {
                let i = 4 * (W * y as usize + x as usize);
                rgba[i..i + 4].copy_from_slice(&[c[0], c[1], c[2], 255]);
            }
        };
        for y in 0..H as i64 {
            for x in 0..W as i64 {
                let grid = x % 80 == 0 || y % 80 == 0;
                put(x, y, if grid { [40, 44, 52] } else { [22, 24, 30] });
            }
        }
        // Antialiased-looking text: a fixed pattern of greys.
        for y in 10..40 {
            for x in 10..200 {
                if (x * 7 + y * 13) % 5 < 2 {
                    let g = (120 + (x * 31 + y * 17) % 120) as u8;
                    put(x, y, [g, g, g]);
                }
            }
        }
        let angle = 0.02 * k as f64;
        for bar in 0..3 {
            let (cx, cy) = (160.0 + 150.0 * bar as f64, 200.0);
            let a = angle * (1.0 + bar as f64 * 0.5);
            for s in -60..=60 {
                for t in -4i32..=4 {
                    let (x, y) = (
                        cx + f64::from(s) * a.cos() - f64::from(t) * a.sin(),
                        cy + f64::from(s) * a.sin() + f64::from(t) * a.cos(),
                    );
                    let edge = t.abs() == 4;
                    put(
                        x as i64,
                        y as i64,
                        if edge {
                            [200, 220, 255]
                        } else {
                            [86, 132, 196]
                        },
                    );
                }
            }
        }
        // An orange arrow from the first bar's end, shown from frame 100 on (a colour new
        // to the video).
        if k >= 100 {
            for s in 0..50 {
                for t in -1..=1 {
                    put(220 + s, 140 + t, [255, 150, 40]);
                }
            }
        }
        rgba
    }

    /// The frames, with runs of identical ones (a pause).
    fn frames() -> Vec<(usize, u32)> {
        let mut frames: Vec<(usize, u32)> = (0..160)
            .map(|k| (k, if k % 40 == 39 { 10 } else { 1 }))
            .collect();
        // The same picture handed in twice: one frame shown three frames long.
        frames.insert(51, (50, 2));
        frames
    }

    /// Decodes `path`, compositing each frame on the one before (disposal Keep,
    /// transparency): the pictures a viewer sees and their delays.
    fn decode(path: &Path) -> Vec<(Vec<u8>, u16)> {
        let mut options = gif::DecodeOptions::new();
        options.set_color_output(gif::ColorOutput::RGBA);
        let mut decoder = options.read_info(File::open(path).unwrap()).unwrap();
        let mut canvas = vec![0u8; 4 * W * H];
        let mut out = Vec::new();
        while let Some(frame) = decoder.read_next_frame().unwrap() {
            let (left, top) = (usize::from(frame.left), usize::from(frame.top));
            for y in 0..usize::from(frame.height) {
                for x in 0..usize::from(frame.width) {
                    let src = 4 * (usize::from(frame.width) * y + x);
                    if frame.buffer[src + 3] == 0 {
                        continue;
                    }
                    let dst = 4 * (W * (top + y) + left + x);
                    canvas[dst..dst + 4].copy_from_slice(&frame.buffer[src..src + 4]);
                }
            }
            out.push((canvas.clone(), frame.delay));
        }
        out
    }

    /// What one NeuQuant palette per full frame writes for the same frames (identical
    /// frames merged into delays, as the recorder did): the reference size.
    fn per_frame_size(path: &Path) -> u64 {
        let file = File::create(path).unwrap();
        let mut encoder = Encoder::new(BufWriter::new(file), W as u16, H as u16, &[]).unwrap();
        let mut previous: Option<usize> = None;
        for (k, _) in frames() {
            if previous == Some(k) {
                continue;
            }
            previous = Some(k);
            let mut rgba = picture(k);
            let frame = Frame::from_rgba_speed(W as u16, H as u16, &mut rgba, SAMPLING);
            encoder.write_frame(&frame).unwrap();
        }
        drop(encoder);
        std::fs::metadata(path).unwrap().len()
    }

    #[test]
    fn a_lesson_like_video_is_small_and_decodes_to_its_frames() {
        let dir = std::env::temp_dir().join(format!("singulab-gif-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("video.gif");
        let mut video = GifVideo::create(&path, (W as u32, H as u32), 4).unwrap();
        let started = web_time::Instant::now();
        for (k, copies) in frames() {
            video.write(&picture(k), copies).unwrap();
        }
        video.finish().unwrap();
        let per_frame = started.elapsed().as_secs_f64() / frames().len() as f64;
        let size = std::fs::metadata(&path).unwrap().len();
        let reference = per_frame_size(&dir.join("reference.gif"));
        println!(
            "{size} bytes, one palette per full frame {reference}; {:.1} ms a frame",
            1e3 * per_frame
        );
        assert!(size * 5 <= reference, "{size} bytes against {reference}");
        // Every picture decodes to its frame within the palette's error, with the delays
        // the copies call for.
        let decoded = decode(&path);
        let mut k = 0;
        let mut worst = 0;
        for (picture_shown, delay) in &decoded {
            let want = picture(k);
            for (a, b) in picture_shown.chunks_exact(4).zip(want.chunks_exact(4)) {
                for c in 0..3 {
                    worst = worst.max((i32::from(a[c]) - i32::from(b[c])).abs());
                }
            }
            let copies: u32 = frames()
                .iter()
                .filter(|(j, _)| *j == k)
                .map(|(_, c)| c)
                .sum();
            // The last frame is held at least two seconds.
            let want_delay = if k == 159 {
                (4 * copies).max(200)
            } else {
                4 * copies
            };
            assert_eq!(u32::from(*delay), want_delay, "frame {k}");
            k += 1;
        }
        println!("largest channel error {worst}");
        assert_eq!(k, 160);
        assert!(worst <= BAD_MATCH, "a channel {worst} off");
    }
}
