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
