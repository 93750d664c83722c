//! Decimated lines kept between frames, so that a frame decimates the samples recorded since
//! the last one rather than the whole window.
//!
//! Each line (a channel on a scale and a time grid) keeps a decimating [`Stream`] fed with
//! every sample up to the newest but one (the newest may still be written), and the chunks it
//! emitted: one per complete bucket. Buckets lie on a grid fixed in absolute time, so the
//! samples appended since the last frame change only the buckets at the end. The runs of a
//! window are then put together from three parts, equal to decimating the window from
//! scratch ([`decimate_on`]):
//!
//! - the head, decimated from scratch: the samples of the window in the bucket of its first
//!   sample (from scratch its first sample has no predecessor, the stream's had one);
//! - the kept chunks from the first sample of the next bucket on: there the stream and a
//!   decimation from scratch are in the same state, since what a sample adds depends only on
//!   its bucket's samples and on the sample before it;
//! - the tail: a copy of the stream fed the samples it has not taken yet.
//!
//! A line is rebuilt from the window's first sample when its history was rewritten
//! ([`History::epoch`]), when its window moves back before the samples it kept, and it is not
//! used for a window that ends before the newest sample (a paused plot dragged back): that is
//! decimated from scratch.

use std::collections::VecDeque;

use super::decimate::{Chunk, Grid, Scale, Stream, decimate_on, into_runs};
use super::{Channel, ChannelKind, History};

/// The decimated lines drawn in the last frames.
#[derive(Debug, Default)]
pub struct LineCache {
    lines: Vec<Line>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct Key {
    kind: ChannelKind,
    index: usize,
    scale: Scale,
    grid: Grid,
}

#[derive(Debug)]
struct Line {
    key: Key,
    /// Drawn since the last [`LineCache::sweep`].
    used: bool,
    epoch: u64,
    /// Serial number of the first sample fed to `stream` whose chunks are all in `chunks`.
    start: u64,
    /// Serial number of the next sample to feed.
    frontier: u64,
    stream: Stream,
    chunks: VecDeque<Chunk>,
}

impl Line {
    /// A line whose stream starts at the sample of serial number `start`.
    fn new(key: Key, epoch: u64, start: u64) -> Self {
        Self {
            key,
            used: true,
            epoch,
            start,
            frontier: start,
            stream: Stream::new(key.grid, key.scale),
            chunks: VecDeque::new(),
        }
    }

    /// Feeds the stream the samples up to the newest but one.
    fn advance(&mut self, history: &History, channel: &Channel) {
        let base = history.first_serial();
        let from = (self.frontier - base) as usize;
        let to = history.len().saturating_sub(1).max(from);
        self.stream.feed(
            history.times(),
            channel.series(),
            from..to,
            base,
            &mut self.chunks,
        );
        self.frontier = base + to as u64;
    }

    /// Forgets the chunks of buckets starting before serial number `serial`.
    fn drop_before(&mut self, serial: u64) {
        while self.chunks.front().is_some_and(|c| c.first < serial) {
            self.chunks.pop_front();
        }
        self.start = self.start.max(serial);
    }
}

impl LineCache {
    /// The runs of `channel` of `history` over `t_min ..= t_max` on `scale`, bucketed by
    /// `grid`: those of [`decimate_on`], most of them kept from earlier calls. For a window
    /// that moves forward (rolling plots), a grid fixed in time keeps the chunks valid.
    pub fn runs(
        &mut self,
        history: &History,
        channel: &Channel,
        t_min: f64,
        t_max: f64,
        grid: Grid,
        scale: Scale,
    ) -> Vec<Vec<[f64; 2]>> {
        let times = history.times();
        let first = times.partition_point(|&t| t < t_min);
        let last = times.partition_point(|&t| t <= t_max).max(first);
        let scratch = || decimate_on(times, channel.series(), t_min, t_max, grid, scale);
        if last < times.len() || first == last {
            return scratch();
        }
        // The first sample of the window's second bucket.
        let head_bucket = grid.bucket(times[first]);
        let second = times.partition_point(|&t| grid.bucket(t) <= head_bucket);
        let line = self.line(history, channel, first, grid, scale);
        let base = history.first_serial();
        let serial = |i: usize| base + i as u64;
        if second >= last || serial(second) >= line.frontier {
            // The window ends within a bucket or so of its start: nothing kept to use.
            return scratch();
        }
        let kept = line.chunks.partition_point(|c| c.first < serial(second));
        // Room for the head's chunks and the tail's too (a frame's new samples): no growing.
        let new = last - (line.frontier - base) as usize;
        let mut chunks = Vec::with_capacity(line.chunks.len() - kept + second - first + new + 2);
        let mut head = Stream::new(grid, scale);
        head.feed(times, channel.series(), first..second, base, &mut chunks);
        head.finish(&mut chunks);
        chunks.extend(line.chunks.range(kept..).copied());
        let mut tail = line.stream;
        let from = (line.frontier - base) as usize;
        tail.feed(times, channel.series(), from..last, base, &mut chunks);
        tail.finish(&mut chunks);
        into_runs(&chunks)
    }

    /// The line of `channel` on `grid` and `scale`, valid for a window starting at sample
    /// `first` and fed up to the newest sample but one.
    fn line(
        &mut self,
        history: &History,
        channel: &Channel,
        first: usize,
        grid: Grid,
        scale: Scale,
    ) -> &mut Line {
        let key = Key {
            kind: channel.kind,
            index: channel.index,
            scale,
            grid,
        };
        let (epoch, base) = (history.epoch(), history.first_serial());
        let start = base + first as u64;
        let slot = match self.lines.iter().position(|l| l.key == key) {
            Some(slot) => slot,
            None => {
                self.lines.push(Line::new(key, epoch, start));
                self.lines.len() - 1
            }
        };
        let line = &mut self.lines[slot];
        // The stream must have taken the window's first sample and what follows, and the
        // chunks after it must all be kept.
        if line.epoch != epoch || line.start > start || line.frontier < start {
            *line = Line::new(key, epoch, start);
        }
        line.used = true;
        line.drop_before(start);
        line.advance(history, channel);
        line
    }

    /// Forgets the lines not drawn since the last sweep (hidden plots and series, grids of
    /// earlier plot sizes).
    pub fn sweep(&mut self) {
        self.lines.retain(|l| l.used);
        for line in &mut self.lines {
            line.used = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A value with spikes between samples, zeros, negative values, missing samples and
    /// changes of column, by sample number.
    fn sample(i: u32) -> (f64, [f64; 2], Option<u32>) {
        let t = f64::from(i) * 1e-3;
        let column = Some(i / 900);
        let value = match i % 1000 {
            100..=120 => 0.0,
            300..=305 => -1.0,
            500 | 510 => f64::NAN,
            _ => 1.0 + 0.999 * (7.0 * t).sin() + 1e-3 * f64::from(i % 13),
        };
        let range = match i % 17 {
            3 => [value * 1e-6, value],
            5 => [value, value * 40.0],
            7 => [0.0, value],
            _ => [value, value],
        };
        (value, range, column)
    }

    /// Appends sample `i`, written in two goes: first a provisional value, then the final
    /// one; the cache sees the sample begun with no value yet, and the provisional value.
    fn record(h: &mut History, cache: &mut LineCache, i: u32, windows: &[(f64, usize)]) {
        let (value, [low, high], column) = sample(i);
        h.begin(f64::from(i) * 1e-3);
        if !h.channels().is_empty() {
            check(h, cache, windows);
        }
        h.set(ChannelKind::RDiagonal, 0, -value);
        check(h, cache, windows);
        h.set_with_range(ChannelKind::RDiagonal, 0, column, value, low, high);
        check(h, cache, windows);
    }

    /// The cached runs of rolling windows (`window` seconds over `columns` buckets, on a grid
    /// from t = 0) against decimating each window from scratch.
    fn check(h: &History, cache: &mut LineCache, windows: &[(f64, usize)]) {
        let channel = &h.channels()[0];
        let t_now = h.last_time().unwrap_or(0.0);
        for &(window, columns) in windows {
            for scale in [Scale::Linear, Scale::Log, Scale::LogFloor(1e-2)] {
                let t_min = (t_now - window).max(h.times()[0]);
                let grid = Grid {
                    origin: 0.0,
                    width: window / columns as f64,
                };
                let expected = decimate_on(h.times(), channel.series(), t_min, t_now, grid, scale);
                let got = cache.runs(h, channel, t_min, t_now, grid, scale);
                assert_eq!(got, expected, "{scale:?}, {window} s at t = {t_now}");
            }
        }
        cache.sweep();
    }

    #[test]
    fn kept_lines_equal_decimating_from_scratch() {
        // A ring smaller than the run, so the oldest samples are dropped on the way.
        let mut h = History::new(2500);
        let mut cache = LineCache::default();
        let windows = [(0.8, 97), (2.0, 300), (0.01, 50)];
        for i in 0..4000 {
            record(&mut h, &mut cache, i, &windows);
        }
        assert!(
            cache.lines.iter().any(|l| l.chunks.len() > 50),
            "nothing kept"
        );
        // Back to an earlier time, and on from there with other values.
        h.truncate_after(3.2);
        check(&h, &mut cache, &windows);
        for i in 3300..3700 {
            record(&mut h, &mut cache, i + 7, &windows);
        }
        // Other windows: one ending before the newest sample, one reaching back before the
        // samples kept, a grid not starting at zero.
        let channel = &h.channels()[0];
        let times = h.times();
        let t_last = times[times.len() - 1];
        for (t_min, t_max, grid) in [
            (2.5, 3.0, Grid::over(2.5, 3.0, 200)),
            (times[0], t_last, Grid::over(times[0], t_last, 400)),
            (3.4, t_last, Grid::over(3.4, t_last, 200)),
        ] {
            for _ in 0..2 {
                let expected =
                    decimate_on(times, channel.series(), t_min, t_max, grid, Scale::Linear);
                let got = cache.runs(&h, channel, t_min, t_max, grid, Scale::Linear);
                assert_eq!(got, expected, "{t_min} ..= {t_max}");
            }
        }
        // A new history (a scene loaded) starts over.
        h.clear();
        for i in 0..600 {
            record(&mut h, &mut cache, i, &windows);
        }
    }
}
