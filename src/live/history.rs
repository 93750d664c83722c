//! Bounded history of the quantities the plots show: one ring of sample times and, per named
//! channel, rings of the values at those times (NaN where the channel did not exist, e.g. a
//! column of `T` that appears only at a singularity) and of their extremes over the solver
//! steps since the previous sample, so that what happens between samples (a sign flip of the
//! traditional basis lasting one step, the dip of the `R` diagonal) is still drawn, and of the
//! identity of the basis column behind each value: when the continued basis shrinks, the
//! column that survives at an index may be another one than before (its own `q` started at
//! its own event), and the drawn line breaks there instead of joining the two. Also the CSV
//! export of what is kept; the decimation that keeps drawing cheap with minutes of history is
//! in `history::decimate`, the decimated lines kept between frames in `history::cache`: for them a
//! history has an [`epoch`](History::epoch) and serial numbers for its samples.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::number_text::push_csv_number;

mod cache;
mod decimate;

pub use cache::LineCache;
pub use decimate::{Grid, Scale, decimate_on};

/// What a channel measures; the plots group channels by kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChannelKind {
    /// Generalized velocity `qd_k` in the continued basis.
    QdContinued,
    /// Generalized velocity `qd_k` in the traditional basis.
    QdTraditional,
    /// Generalized coordinate `q_k` in the continued basis.
    QContinued,
    /// Generalized coordinate `q_k` in the traditional basis.
    QTraditional,
    /// `|R_ii| / |R_00|` of the pivoted QR of `A^T`.
    RDiagonal,
    /// Total mechanical energy.
    Energy,
    /// Norm of the constraint residual after projection.
    Residual,
}

/// One named series sharing the history's time axis.
#[derive(Clone, Debug)]
pub struct Channel {
    pub name: String,
    pub kind: ChannelKind,
    /// Index within its kind (column of `T`, diagonal entry of `R`).
    pub index: usize,
    values: VecDeque<f64>,
    /// Smallest and largest value over the steps since the previous sample, this one's
    /// included.
    low: VecDeque<f64>,
    high: VecDeque<f64>,
    /// Identity of the basis column the value belongs to ([`NO_COLUMN`] for channels whose
    /// index always means the same thing).
    columns: VecDeque<u32>,
}

/// The column identity of a value that has none (see [`History::set_with_range`]).
pub const NO_COLUMN: u32 = u32::MAX;

impl Channel {
    pub fn values(&self) -> &VecDeque<f64> {
        &self.values
    }

    /// The values with their extremes between samples, for [`decimate_on`].
    pub fn series(&self) -> Series<'_> {
        Series {
            values: &self.values,
            low: &self.low,
            high: &self.high,
            columns: Some(&self.columns),
        }
    }

    fn push_back(&mut self, value: f64, low: f64, high: f64, column: u32) {
        self.values.push_back(value);
        self.low.push_back(low);
        self.high.push_back(high);
        self.columns.push_back(column);
    }

    fn pop_front(&mut self) {
        self.values.pop_front();
        self.low.pop_front();
        self.high.pop_front();
        self.columns.pop_front();
    }

    fn pop_back(&mut self) {
        self.values.pop_back();
        self.low.pop_back();
        self.high.pop_back();
        self.columns.pop_back();
    }
}

/// A channel's samples as [`decimate_on`] reads them: the value at each sample time, the
/// range the value covered since the previous sample (equal to the value when nothing was
/// observed in between) and, if known, the identity of the column each value belongs to (a
/// change of identity between two samples breaks the line).
#[derive(Clone, Copy, Debug)]
pub struct Series<'a> {
    pub values: &'a VecDeque<f64>,
    pub low: &'a VecDeque<f64>,
    pub high: &'a VecDeque<f64>,
    pub columns: Option<&'a VecDeque<u32>>,
}

impl<'a> Series<'a> {
    /// Values with no extremes between samples, all of one column.
    pub fn points(values: &'a VecDeque<f64>) -> Self {
        Self {
            values,
            low: values,
            high: values,
            columns: None,
        }
    }
}

/// Ring buffers of samples with a fixed capacity; the oldest samples are dropped first.
#[derive(Debug)]
pub struct History {
    capacity: usize,
    times: VecDeque<f64>,
    channels: Vec<Channel>,
    /// Per channel, whether the sample being recorded has set it.
    pending: Vec<bool>,
    /// See [`History::epoch`].
    epoch: u64,
    /// Samples dropped from the front since the epoch began.
    dropped: u64,
}

/// The last epoch handed out ([`History::epoch`]).
static EPOCHS: AtomicU64 = AtomicU64::new(0);

fn next_epoch() -> u64 {
    EPOCHS.fetch_add(1, Ordering::Relaxed) + 1
}

/// A copy is another history: it gets an epoch of its own.
impl Clone for History {
    fn clone(&self) -> Self {
        Self {
            capacity: self.capacity,
            times: self.times.clone(),
            channels: self.channels.clone(),
            pending: self.pending.clone(),
            epoch: next_epoch(),
            dropped: self.dropped,
        }
    }
}

impl History {
    pub fn new(capacity: usize) -> Self {
        Self {
            capacity: capacity.max(2),
            times: VecDeque::with_capacity(capacity.max(2)),
            channels: Vec::new(),
            pending: Vec::new(),
            epoch: next_epoch(),
            dropped: 0,
        }
    }

    /// Names this history's samples for what keeps results derived from them
    /// ([`LineCache`]): two histories never share an epoch, and one gets a new epoch whenever
    /// samples it kept change other than by appending a sample, dropping the oldest or
    /// setting the values of the newest (see [`History::first_serial`]).
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// The serial number of the oldest sample kept: within an epoch, the `i`-th sample kept
    /// has serial number `first_serial() + i`, and a serial number always means the same
    /// sample.
    pub fn first_serial(&self) -> u64 {
        self.dropped
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    pub fn len(&self) -> usize {
        self.times.len()
    }

    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }

    pub fn times(&self) -> &VecDeque<f64> {
        &self.times
    }

    pub fn channels(&self) -> &[Channel] {
        &self.channels
    }

    pub fn clear(&mut self) {
        self.times.clear();
        self.channels.clear();
        self.pending.clear();
        self.epoch = next_epoch();
        self.dropped = 0;
    }

    /// Latest sample time, if any.
    pub fn last_time(&self) -> Option<f64> {
        self.times.back().copied()
    }

    /// Starts a sample at time `t`; set its values with [`History::set`]. Channels not set
    /// before the next `begin` (or [`History::finish`]) hold NaN at this time.
    pub fn begin(&mut self, t: f64) {
        self.finish();
        if self.times.len() == self.capacity {
            self.times.pop_front();
            for channel in &mut self.channels {
                channel.pop_front();
            }
            self.dropped += 1;
        }
        self.times.push_back(t);
        self.pending.iter_mut().for_each(|p| *p = true);
    }

    /// Sets the value of a channel in the sample begun last, creating the channel if needed.
    pub fn set(&mut self, kind: ChannelKind, index: usize, value: f64) {
        self.set_with_range(kind, index, None, value, value, value);
    }

    /// [`History::set`] with the identity of the basis column the value belongs to (`None`
    /// when the index always means the same column) and the range `low ..= high` the value
    /// covered since the previous sample (NaN bounds are ignored; the value itself is always
    /// inside). Where the column changes from one sample to the next, the drawn line breaks;
    /// the range must then cover the new column's values only.
    pub fn set_with_range(
        &mut self,
        kind: ChannelKind,
        index: usize,
        column: Option<u32>,
        value: f64,
        low: f64,
        high: f64,
    ) {
        let column = column.unwrap_or(NO_COLUMN);
        let (low, high) = (low.min(value), high.max(value));
        let slot = match self
            .channels
            .iter()
            .position(|c| c.kind == kind && c.index == index)
        {
            Some(slot) => slot,
            None => {
                // Earlier samples did not have this channel.
                let earlier = self.times.len().saturating_sub(1);
                let missing = || {
                    let mut ring = VecDeque::with_capacity(self.capacity);
                    ring.extend(std::iter::repeat_n(f64::NAN, earlier));
                    ring
                };
                let mut columns = VecDeque::with_capacity(self.capacity);
                columns.extend(std::iter::repeat_n(NO_COLUMN, earlier));
                self.channels.push(Channel {
                    name: channel_name(kind, index),
                    kind,
                    index,
                    values: missing(),
                    low: missing(),
                    high: missing(),
                    columns,
                });
                self.pending.push(true);
                self.channels.len() - 1
            }
        };
        let channel = &mut self.channels[slot];
        if self.pending[slot] {
            channel.push_back(value, low, high, column);
            self.pending[slot] = false;
        } else if let (Some(v), Some(l), Some(h), Some(c)) = (
            channel.values.back_mut(),
            channel.low.back_mut(),
            channel.high.back_mut(),
            channel.columns.back_mut(),
        ) {
            (*v, *l, *h, *c) = (value, low, high, column);
        }
    }

    /// Adds a sample at `t` with every channel NaN: the drawn lines break there (the state
    /// jumped ahead, to a later event).
    pub fn break_at(&mut self, t: f64) {
        self.begin(t);
        self.finish();
    }

    /// Drops the samples after time `t` (the state went back, e.g. to a located event).
    pub fn truncate_after(&mut self, t: f64) {
        self.finish();
        while self.times.back().is_some_and(|&last| last > t) {
            self.times.pop_back();
            for channel in &mut self.channels {
                channel.pop_back();
            }
            self.epoch = next_epoch();
        }
    }

    /// Completes the current sample: channels it did not set get NaN.
    pub fn finish(&mut self) {
        for (channel, pending) in self.channels.iter_mut().zip(&mut self.pending) {
            if *pending && channel.values.len() < self.times.len() {
                channel.push_back(f64::NAN, f64::NAN, f64::NAN, NO_COLUMN);
            }
            *pending = false;
        }
    }

    /// The history as CSV: a `t` column and one column per channel with its value at each
    /// sample time (not the extremes in between), empty cells for NaN. Numbers are in shortest
    /// round-trip form, as `singulab run` writes them.
    pub fn to_csv(&self) -> String {
        let mut writer = csv::Writer::from_writer(Vec::new());
        let mut record = csv::StringRecord::new();
        record.push_field("t");
        for channel in &self.channels {
            record.push_field(&crate::number_text::csv_header_cell(&channel.name));
        }
        writer
            .write_record(&record)
            .expect("writing to memory cannot fail");
        let mut text = String::new();
        for (row, &t) in self.times.iter().enumerate() {
            record.clear();
            text.clear();
            push_csv_number(&mut text, t);
            record.push_field(&text);
            for channel in &self.channels {
                text.clear();
                if let Some(&v) = channel.values.get(row).filter(|v| v.is_finite()) {
                    push_csv_number(&mut text, v);
                }
                record.push_field(&text);
            }
            writer
                .write_record(&record)
                .expect("writing to memory cannot fail");
        }
        let bytes = writer.into_inner().expect("writing to memory cannot fail");
        String::from_utf8(bytes).expect("names and numbers are UTF-8")
    }
}

/// Running extremes of each value over the solver steps since the last sample. Values are
/// observed in the same order every step; a slot whose channel or column identity changes (a
/// column of `T` appears or goes, another column moves to its index) starts over, so the
/// range of a sample where the line breaks covers the new column only. Allocates only when
/// the number of values grows.
#[derive(Clone, Debug, Default)]
pub struct Extremes {
    slots: Vec<Extreme>,
}

#[derive(Clone, Copy, Debug)]
struct Extreme {
    kind: ChannelKind,
    index: usize,
    column: Option<u32>,
    low: f64,
    high: f64,
}

impl Extremes {
    /// Widens slot `slot`'s range by `value` of channel `kind`, `index` in basis column
    /// `column` (NaN is ignored).
    pub fn observe(
        &mut self,
        slot: usize,
        kind: ChannelKind,
        index: usize,
        column: Option<u32>,
        value: f64,
    ) {
        let fresh = Extreme {
            kind,
            index,
            column,
            low: value,
            high: value,
        };
        match self.slots.get_mut(slot) {
            Some(e) if e.kind == kind && e.index == index && e.column == column => {
                // f64::min and max return the other operand when one is NaN.
                e.low = e.low.min(value);
                e.high = e.high.max(value);
            }
            Some(e) => *e = fresh,
            None => {
                // Slots are observed in order; a gap cannot happen, but never index past the end.
                self.slots.truncate(slot);
                self.slots.push(fresh);
            }
        }
    }

    /// The range of slot `slot` if it holds that channel and column, else NaN bounds.
    pub fn range(
        &self,
        slot: usize,
        kind: ChannelKind,
        index: usize,
        column: Option<u32>,
    ) -> (f64, f64) {
        match self.slots.get(slot) {
            Some(e) if e.kind == kind && e.index == index && e.column == column => (e.low, e.high),
            _ => (f64::NAN, f64::NAN),
        }
    }

    /// Forgets every range (after a sample, or when the state jumps).
    pub fn clear(&mut self) {
        for e in &mut self.slots {
            e.low = f64::NAN;
            e.high = f64::NAN;
        }
    }
}

/// Column header of a channel, e.g. `qd2_continued` or `R_diag_3`.
pub fn channel_name(kind: ChannelKind, index: usize) -> String {
    let k = index + 1;
    match kind {
        ChannelKind::QdContinued => format!("qd{k}_continued"),
        ChannelKind::QdTraditional => format!("qd{k}_traditional"),
        ChannelKind::QContinued => format!("q{k}_continued"),
        ChannelKind::QTraditional => format!("q{k}_traditional"),
        ChannelKind::RDiagonal => format!("R_diag_{index}"),
        ChannelKind::Energy => "energy".into(),
        ChannelKind::Residual => "residual".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`decimate_on`] with buckets of the window's own, as the plots use while paused.
    fn decimate(
        times: &VecDeque<f64>,
        series: Series<'_>,
        t_min: f64,
        t_max: f64,
        buckets: usize,
        scale: Scale,
    ) -> Vec<Vec<[f64; 2]>> {
        decimate_on(
            times,
            series,
            t_min,
            t_max,
            Grid::over(t_min, t_max, buckets),
            scale,
        )
    }

    #[test]
    fn ring_drops_oldest_and_keeps_channels_aligned() {
        let mut h = History::new(3);
        for i in 0..5 {
            h.begin(i as f64);
            h.set(ChannelKind::Energy, 0, 10.0 * i as f64);
            if i >= 3 {
                h.set(ChannelKind::QdContinued, 1, i as f64);
            }
        }
        h.finish();
        assert_eq!(
            h.times().iter().copied().collect::<Vec<_>>(),
            [2.0, 3.0, 4.0]
        );
        let energy = &h.channels()[0];
        assert_eq!(
            energy.values().iter().copied().collect::<Vec<_>>(),
            [20.0, 30.0, 40.0]
        );
        let qd = &h.channels()[1];
        assert_eq!(qd.values().len(), 3);
        assert!(qd.values()[0].is_nan());
        assert_eq!(qd.values()[2], 4.0);
    }

    #[test]
    fn channel_missing_from_a_sample_gets_nan() {
        let mut h = History::new(10);
        h.begin(0.0);
        h.set(ChannelKind::QdContinued, 0, 1.0);
        h.set(ChannelKind::QdContinued, 1, 2.0);
        h.begin(1.0);
        h.set(ChannelKind::QdContinued, 0, 3.0);
        h.finish();
        let second = &h.channels()[1];
        assert_eq!(second.values().len(), 2);
        assert!(second.values()[1].is_nan());
        let csv = h.to_csv();
        assert_eq!(
            csv, "t,qd1_continued,qd2_continued\n0.0,1.0,2.0\n1.0,3.0,\n",
            "empty cell for the missing value"
        );
    }

    #[test]
    fn decimation_bounds_points_and_keeps_extremes() {
        let n = 100_000;
        let times: VecDeque<f64> = (0..n).map(|i| i as f64 * 1e-3).collect();
        // A smooth wave with one narrow spike that a stride-based thinning would miss.
        let values: VecDeque<f64> = times
            .iter()
            .enumerate()
            .map(|(i, t)| if i == 54_321 { 7.0 } else { t.sin() })
            .collect();
        let runs = decimate(
            &times,
            Series::points(&values),
            0.0,
            100.0,
            500,
            Scale::Linear,
        );
        assert_eq!(runs.len(), 1);
        let points = &runs[0];
        assert!(points.len() <= 1000, "{} points", points.len());
        assert!(points.iter().any(|p| p[1] == 7.0), "the spike was lost");
        let min = points.iter().map(|p| p[1]).fold(f64::INFINITY, f64::min);
        assert!(
            (min + 1.0).abs() < 1e-6,
            "the minimum of the wave was lost: {min}"
        );
        assert!(
            points.windows(2).all(|w| w[0][0] <= w[1][0]),
            "not in time order"
        );
    }

    #[test]
    fn decimation_splits_at_nan_and_clips_to_the_window() {
        let times: VecDeque<f64> = (0..10).map(f64::from).collect();
        let values: VecDeque<f64> = [1.0, 2.0, f64::NAN, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0]
            .into_iter()
            .collect();
        let runs = decimate(
            &times,
            Series::points(&values),
            0.0,
            6.0,
            100,
            Scale::Linear,
        );
        assert_eq!(runs.len(), 2);
        assert_eq!(runs[0], vec![[0.0, 1.0], [1.0, 2.0]]);
        assert_eq!(runs[1].last(), Some(&[6.0, 7.0]));
        // A window starting inside the history skips the earlier samples.
        let late = decimate(
            &times,
            Series::points(&values),
            4.5,
            9.0,
            100,
            Scale::Linear,
        );
        assert_eq!(
            late,
            vec![vec![
                [5.0, 6.0],
                [6.0, 7.0],
                [7.0, 8.0],
                [8.0, 9.0],
                [9.0, 10.0]
            ]]
        );
        // On a log scale a non-positive value is a gap.
        let shifted: VecDeque<f64> = values.iter().map(|v| v - 1.5).collect();
        let logs = decimate(&times, Series::points(&shifted), 0.0, 1.0, 100, Scale::Log);
        assert_eq!(logs, vec![vec![[1.0, 0.5f64.log10()]]]);
    }

    #[test]
    fn extremes_between_samples_are_drawn_and_not_exported() {
        let mut h = History::new(10);
        h.begin(0.0);
        h.set(ChannelKind::QdTraditional, 0, -3.0);
        // One step in between flipped the sign: +3 was seen, the next sample is back at -3.1.
        h.begin(1.0);
        h.set_with_range(ChannelKind::QdTraditional, 0, None, -3.1, -3.05, 3.0);
        h.begin(2.0);
        h.set_with_range(
            ChannelKind::QdTraditional,
            0,
            None,
            -3.2,
            f64::NAN,
            f64::NAN,
        );
        h.finish();
        let channel = &h.channels()[0];
        assert_eq!(
            channel.series().low[1],
            -3.1,
            "the value bounds its own range"
        );
        let runs = decimate(h.times(), channel.series(), 0.0, 2.0, 100, Scale::Linear);
        assert_eq!(
            runs,
            // Out to the flip and back to the sample's value.
            vec![vec![[0.0, -3.0], [1.0, 3.0], [1.0, -3.1], [2.0, -3.2]]]
        );
        assert_eq!(
            h.to_csv(),
            "t,qd1_traditional\n0.0,-3.0\n1.0,-3.1\n2.0,-3.2\n"
        );
        // A falling curve sampled every other step: the steps in between lie on the line
        // between samples, so the drawn line is just the samples.
        let mut ramp = History::new(10);
        for i in 0..4 {
            let t = f64::from(i);
            ramp.begin(t);
            // The step half-way since the previous sample was at 0.5 - t.
            let between = if i == 0 { -t } else { 0.5 - t };
            ramp.set_with_range(ChannelKind::QContinued, 0, Some(0), -t, -t, between);
        }
        let line = &decimate(
            ramp.times(),
            ramp.channels()[0].series(),
            0.0,
            3.0,
            100,
            Scale::Linear,
        )[0];
        assert_eq!(
            line,
            &vec![[0.0, 0.0], [1.0, -1.0], [2.0, -2.0], [3.0, -3.0]]
        );
        // Dropping samples drops their extremes with them.
        h.truncate_after(0.5);
        assert_eq!(h.channels()[0].series().high.len(), 1);
    }

    #[test]
    fn another_column_at_the_same_index_starts_a_new_line() {
        // After a push onto a new branch the continued basis shrinks back to one column, and
        // the one left at index 0 is the new one (id 1), whose q started at the event: the
        // line of q1 must not join -3 to 0 as if the coordinate jumped.
        let mut extremes = Extremes::default();
        let mut h = History::new(10);
        let samples = [
            (0.0, 0, -2.8),
            (1.0, 0, -2.9),
            (2.0, 0, -3.0),
            (3.0, 1, 0.01),
            (4.0, 1, 0.02),
        ];
        for (t, column, q) in samples {
            // A step of the old column between the samples (at -3.05), then the sample.
            if t == 3.0 {
                extremes.observe(0, ChannelKind::QContinued, 0, Some(0), -3.05);
            }
            extremes.observe(0, ChannelKind::QContinued, 0, Some(column), q);
            let (low, high) = extremes.range(0, ChannelKind::QContinued, 0, Some(column));
            h.begin(t);
            h.set_with_range(ChannelKind::QContinued, 0, Some(column), q, low, high);
            extremes.clear();
        }
        h.finish();
        let channel = &h.channels()[0];
        assert_eq!(
            (channel.series().low[3], channel.series().high[3]),
            (0.01, 0.01),
            "the old column's steps before the change are not the new column's range"
        );
        let runs = decimate(h.times(), channel.series(), 0.0, 4.0, 100, Scale::Linear);
        assert_eq!(
            runs,
            vec![
                vec![[0.0, -2.8], [1.0, -2.9], [2.0, -3.0]],
                vec![[3.0, 0.01], [4.0, 0.02]],
            ]
        );
        // One bucket over everything: its extremes stay on their side of the change.
        let coarse = decimate(h.times(), channel.series(), 0.0, 4.0, 1, Scale::Linear);
        assert_eq!(
            coarse,
            vec![
                vec![[0.0, -2.8], [2.0, -3.0]],
                vec![[3.0, 0.01], [4.0, 0.02]]
            ]
        );
        // A window starting at the change draws the new column alone.
        let late = decimate(h.times(), channel.series(), 2.5, 4.0, 100, Scale::Linear);
        assert_eq!(late, vec![vec![[3.0, 0.01], [4.0, 0.02]]]);
        // The export is the values as they were.
        assert_eq!(
            h.to_csv(),
            "t,q1_continued\n0.0,-2.8\n1.0,-2.9\n2.0,-3.0\n3.0,0.01\n4.0,0.02\n"
        );
        // Going back before the change and on with the old column: one line again.
        h.truncate_after(2.0);
        h.begin(3.0);
        h.set_with_range(ChannelKind::QContinued, 0, Some(0), -3.1, -3.1, -3.1);
        h.finish();
        let again = decimate(
            h.times(),
            h.channels()[0].series(),
            0.0,
            4.0,
            100,
            Scale::Linear,
        );
        assert_eq!(again.len(), 1);
    }

    /// A wavy series with spikes between samples, zeros, negative values, missing samples
    /// and a change of column, for the scale tests.
    fn awkward_history() -> History {
        let mut h = History::new(5000);
        for i in 0..4000 {
            let t = f64::from(i) * 1e-3;
            h.begin(t);
            let column = if i < 2500 { 0 } else { 1 };
            let value = match i {
                700..=720 => 0.0,
                900..=905 => -1.0,
                1500 => f64::NAN,
                _ => 1.0 + (7.0 * t).sin() * 0.999 + 1e-3 * f64::from(i % 13),
            };
            // Every 17th sample a step in between went far up or down (or to zero).
            let (low, high) = match i % 17 {
                3 => (value * 1e-6, value),
                5 => (value, value * 40.0),
                7 => (0.0, value),
                _ => (value, value),
            };
            h.set_with_range(ChannelKind::RDiagonal, 0, Some(column), value, low, high);
        }
        h.finish();
        h
    }

    #[test]
    fn log_scales_decimate_as_the_logarithms_of_the_values_would() {
        // The reference: the drawn values computed first, sample by sample, then decimated
        // on a linear scale (log10 of zero is -inf, of a negative value NaN: both gaps).
        let h = awkward_history();
        let channel = &h.channels()[0];
        for scale in [Scale::Log, Scale::LogFloor(1e-2)] {
            let drawn = |ring: &VecDeque<f64>| -> VecDeque<f64> {
                ring.iter()
                    .map(|&v| match scale {
                        _ if v.is_nan() => v,
                        Scale::LogFloor(floor) => v.max(floor).log10(),
                        _ => v.log10(),
                    })
                    .collect()
            };
            let series = channel.series();
            let (values, low, high) = (drawn(series.values), drawn(series.low), drawn(series.high));
            let reference = Series {
                values: &values,
                low: &low,
                high: &high,
                columns: series.columns,
            };
            for (t_min, t_max, buckets) in [(0.0, 4.0, 700), (0.3, 3.1, 97), (1.4, 1.6, 1000)] {
                let expected = decimate(h.times(), reference, t_min, t_max, buckets, Scale::Linear);
                let got = decimate(h.times(), series, t_min, t_max, buckets, scale);
                assert_eq!(
                    got, expected,
                    "{scale:?} over {t_min} ..= {t_max}, {buckets} buckets"
                );
                assert!(got.len() >= 2, "the test should cross gaps");
            }
        }
        // Zeros are drawn on the floor, not left out.
        let floored = decimate(
            h.times(),
            channel.series(),
            0.69,
            0.73,
            1000,
            Scale::LogFloor(1e-2),
        );
        assert!(floored.iter().flatten().any(|p| p[1] == -2.0));
        assert_eq!(Scale::LogFloor(1e-16).apply(0.0), -16.0);
        assert!(Scale::LogFloor(1e-16).apply(f64::NAN).is_nan());
        assert!(!Scale::Log.apply(0.0).is_finite());
    }
}
