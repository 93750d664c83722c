//! Decimation of a channel's samples for drawing: each bucket of a time grid keeps its
//! lowest and highest point, so spikes survive (those between samples included) while the
//! points drawn stay about two per pixel column however much history is kept.
//!
//! The samples go through a [`Stream`] one at a time; it emits one [`Chunk`] (one or two
//! points) per bucket, and starts a new run (a line of its own) where a value has no drawn
//! value or the basis column behind the values changes. What the stream emits for a sample
//! depends only on the samples of its bucket and on the sample just before it, which is
//! what lets [`super::cache::LineCache`] keep the chunks of complete buckets between frames.

use std::collections::VecDeque;

use super::Series;

/// How a channel's values are drawn: as they are, or as their base-10 logarithm (zero and
/// negative values have none: a gap), optionally with everything below a positive floor
/// drawn on the floor (the `R` diagonal's exact zeros). A missing sample (NaN) is a gap on
/// every scale.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scale {
    Linear,
    Log,
    LogFloor(f64),
}

impl Scale {
    /// The drawn value of `v`; not finite where nothing is drawn.
    pub fn apply(self, v: f64) -> f64 {
        match self.key(v) {
            Some(key) => self.drawn_key(key),
            None if v.is_nan() => v,
            None => match self {
                Scale::Linear => v,
                _ => v.log10(),
            },
        }
    }

    /// `v` in the order of its drawn value, without the logarithm (the floor applied), or
    /// `None` where nothing is drawn. The logarithm is increasing, so decimation compares
    /// keys and takes logarithms only of the points it keeps.
    fn key(self, v: f64) -> Option<f64> {
        match self {
            Scale::Linear => v.is_finite().then_some(v),
            Scale::Log => (v > 0.0 && v < f64::INFINITY).then_some(v),
            Scale::LogFloor(floor) => (v < f64::INFINITY).then(|| v.max(floor)),
        }
    }

    /// The drawn value of a key.
    fn drawn_key(self, key: f64) -> f64 {
        match self {
            Scale::Linear => key,
            Scale::Log | Scale::LogFloor(_) => key.log10(),
        }
    }
}

/// Where the buckets of a decimation lie: bucket `k` holds the samples with
/// `origin + k width <= t < origin + (k + 1) width` (up to the rounding of the division).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Grid {
    pub origin: f64,
    pub width: f64,
}

impl Grid {
    /// `buckets` buckets over `t_min ..= t_max`, the first starting at `t_min`.
    pub fn over(t_min: f64, t_max: f64, buckets: usize) -> Self {
        Self {
            origin: t_min,
            width: (t_max - t_min).max(f64::MIN_POSITIVE) / buckets.max(1) as f64,
        }
    }

    pub(super) fn bucket(self, t: f64) -> i64 {
        ((t - self.origin) / self.width).floor() as i64
    }
}

/// What a [`Stream`] emits for one bucket (or the part of it in one run): its extremes as
/// drawn values, in the order they are drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Chunk {
    /// Serial number of the bucket's first sample in the run (see [`Stream::push`]).
    pub first: u64,
    /// The line broke before this chunk: it starts a new run.
    pub new_run: bool,
    len: u8,
    points: [[f64; 2]; 2],
}

impl Chunk {
    pub fn points(&self) -> &[[f64; 2]] {
        &self.points[..usize::from(self.len)]
    }
}

/// Splits emitted chunks into runs, each drawn as its own line (each run allocated once: a
/// run growing by doubling took a seventh of the plots' time).
pub(super) fn into_runs(chunks: &[Chunk]) -> Vec<Vec<[f64; 2]>> {
    let mut runs: Vec<Vec<[f64; 2]>> = Vec::new();
    let mut rest = chunks;
    while let Some(first) = rest.first() {
        let len = rest[1..]
            .iter()
            .position(|c| c.new_run)
            .map_or(rest.len(), |n| n + 1);
        let (run, after) = rest.split_at(len);
        let mut points = Vec::with_capacity(run.iter().map(|c| usize::from(c.len)).sum());
        points.extend_from_slice(first.points());
        for chunk in &run[1..] {
            points.extend_from_slice(chunk.points());
        }
        runs.push(points);
        rest = after;
    }
    runs
}

/// Reduces the samples with `t_min <= t <= t_max` to at most two points per bucket of `grid`
/// in each unbroken run, keeping each bucket's minimum and maximum in time order so spikes survive,
/// those between samples included. A sample's extremes are placed at its time, the one
/// nearer to its value last, so a smooth curve stays a line and a spike goes out and back.
/// Values are drawn on `scale` (the extremes compare as their drawn values do, up to
/// values whose logarithms round to the same number). A value with no drawn value splits
/// the series, and so does a change of column identity (the new column's first sample
/// starts a run of its own, its bucket holding nothing from before): each returned run is
/// drawn as its own line. Only the samples inside the window are visited (times are
/// increasing), and each once. The buckets are `grid`'s ([`Grid::over`] the window for
/// buckets of their own): the first and the last bucket may lie partly outside the window.
pub fn decimate_on(
    times: &VecDeque<f64>,
    series: Series<'_>,
    t_min: f64,
    t_max: f64,
    grid: Grid,
    scale: Scale,
) -> Vec<Vec<[f64; 2]>> {
    let first = times.partition_point(|&t| t < t_min);
    let last = times.partition_point(|&t| t <= t_max).max(first);
    let mut chunks = Vec::new();
    let mut stream = Stream::new(grid, scale);
    stream.feed(times, series, first..last, 0, &mut chunks);
    stream.finish(&mut chunks);
    into_runs(&chunks)
}

/// The bucket being filled: its index, the serial number of its first sample, its lowest
/// and highest points and the last value in it (as [`Scale`] keys).
#[derive(Clone, Copy, Debug)]
struct Bucket {
    index: i64,
    first: u64,
    lo: [f64; 2],
    hi: [f64; 2],
    last: f64,
}

/// The decimation's state between two samples: the bucket being filled, the key of the
/// previous sample of the run, the previous sample's column, and whether the run ended since
/// the last chunk.
#[derive(Clone, Copy, Debug)]
pub(super) struct Stream {
    grid: Grid,
    scale: Scale,
    bucket: Option<Bucket>,
    previous: Option<f64>,
    column_before: Option<u32>,
    run_ended: bool,
}

impl Stream {
    pub fn new(grid: Grid, scale: Scale) -> Self {
        Self {
            grid,
            scale,
            bucket: None,
            previous: None,
            column_before: None,
            run_ended: false,
        }
    }

    /// Pushes the samples `range` of the history, whose first sample has serial number
    /// `serial_base`, onto `out` (as far as the channel has values).
    pub fn feed(
        &mut self,
        times: &VecDeque<f64>,
        series: Series<'_>,
        range: std::ops::Range<usize>,
        serial_base: u64,
        out: &mut impl Extend<Chunk>,
    ) {
        // As far as every ring has samples (a channel's values end one short while its
        // newest sample is being written).
        let end = [
            times.len(),
            series.values.len(),
            series.low.len(),
            series.high.len(),
        ]
        .into_iter()
        .chain(series.columns.map(VecDeque::len))
        .fold(range.end, usize::min);
        let range = range.start.min(end)..end;
        let samples = times
            .range(range.clone())
            .zip(series.values.range(range.clone()))
            .zip(
                series
                    .low
                    .range(range.clone())
                    .zip(series.high.range(range.clone())),
            );
        let mut columns = series.columns.map(|c| c.range(range.clone()));
        let serials = serial_base + range.start as u64..;
        for (serial, ((&t, &v), (&low, &high))) in serials.zip(samples) {
            let column = columns.as_mut().and_then(Iterator::next).copied();
            self.push(serial, t, v, [low, high], column, out);
        }
    }

    /// Adds the sample of serial number `serial` (any increasing numbering) at `t`, of value
    /// `v` with the extremes `low ..= high` since the previous sample, in basis column
    /// `column`.
    fn push(
        &mut self,
        serial: u64,
        t: f64,
        v: f64,
        [low, high]: [f64; 2],
        column: Option<u32>,
        out: &mut impl Extend<Chunk>,
    ) {
        // A change of column at the stream's first sample breaks nothing: no run has begun.
        let breaks = self.column_before.is_some() && column != self.column_before;
        self.column_before = column;
        let v = self.scale.key(v);
        if v.is_none() || breaks {
            self.end_run(out);
        }
        if let Some(v) = v {
            self.add(serial, t, v, low, high, out);
        }
    }

    /// Adds the sample of key `v` at `t`, with the extremes `low` and `high` (raw values,
    /// maybe NaN) it reached since the previous sample.
    fn add(
        &mut self,
        serial: u64,
        t: f64,
        v: f64,
        low: f64,
        high: f64,
        out: &mut impl Extend<Chunk>,
    ) {
        // Extremes inside the span of the line from the previous sample add nothing (a
        // smooth curve sampled coarsely); neither does one with no drawn value (log10 of a
        // zero residual).
        let (span_low, span_high) = self.previous.map_or((v, v), |p: f64| (p.min(v), p.max(v)));
        let scale = self.scale;
        let low = scale.key(low).filter(|&x| x < span_low).unwrap_or(v);
        let high = scale.key(high).filter(|&x| x > span_high).unwrap_or(v);
        self.previous = Some(v);
        let index = self.grid.bucket(t);
        match &mut self.bucket {
            Some(bucket) if bucket.index == index => {
                if low < bucket.lo[1] {
                    bucket.lo = [t, low];
                }
                if high > bucket.hi[1] {
                    bucket.hi = [t, high];
                }
                bucket.last = v;
            }
            _ => {
                self.flush(out);
                self.bucket = Some(Bucket {
                    index,
                    first: serial,
                    lo: [t, low],
                    hi: [t, high],
                    last: v,
                });
            }
        }
    }

    /// Emits the current bucket's points as drawn values: its extremes in time order, and at
    /// one time the one nearer to the last value last.
    fn flush(&mut self, out: &mut impl Extend<Chunk>) {
        if let Some(Bucket {
            first,
            lo,
            hi,
            last,
            ..
        }) = self.bucket.take()
        {
            let scale = self.scale;
            let (lo, hi) = (
                [lo[0], scale.drawn_key(lo[1])],
                [hi[0], scale.drawn_key(hi[1])],
            );
            let low_first = if lo[0] == hi[0] {
                let last = scale.drawn_key(last);
                (last - lo[1]).abs() >= (hi[1] - last).abs()
            } else {
                lo[0] < hi[0]
            };
            let (len, points) = if lo == hi {
                (1, [lo, lo])
            } else if low_first {
                (2, [lo, hi])
            } else {
                (2, [hi, lo])
            };
            out.extend([Chunk {
                first,
                new_run: std::mem::take(&mut self.run_ended),
                len,
                points,
            }]);
        }
    }

    /// The line ends at the previous sample.
    fn end_run(&mut self, out: &mut impl Extend<Chunk>) {
        self.previous = None;
        self.flush(out);
        self.run_ended = true;
    }

    /// Emits the bucket being filled.
    pub fn finish(mut self, out: &mut impl Extend<Chunk>) {
        self.flush(out);
    }
}
