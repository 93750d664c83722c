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
mod tests;
