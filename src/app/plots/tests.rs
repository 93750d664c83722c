use approx::{abs_diff_eq, assert_abs_diff_eq};

use egui_plot::{GridInput, HoverPosition};

use super::axes::*;
use super::*;

#[test]
fn stopping_shows_the_last_window_of_data() {
    let times: std::collections::VecDeque<f64> = (0..=714).map(|k| k as f64 * 1e-3).collect();
    assert_eq!(data_window(&times, 0.714, 10.0), [0.0, 0.714]);
    assert_eq!(data_window(&times, 0.714, 0.5), [0.714 - 0.5, 0.714]);
    // After a reset: one sample at t = 0.
    let one: std::collections::VecDeque<f64> = [0.0].into_iter().collect();
    assert_eq!(data_window(&one, 0.0, 10.0), [0.0, 10.0]);
    assert_eq!(data_window(&Default::default(), 0.0, 10.0), [0.0, 10.0]);
}

/// Rolling, the time axis at t spans `[max(t - window, first sample), that + window]`
/// (`time_span`); paused for a class it keeps that span, at the first event as later.
#[test]
fn a_pause_for_viewers_keeps_the_window_the_plots_rolled_in() {
    let times: std::collections::VecDeque<f64> = (0..=714).map(|k| k as f64 * 1e-3).collect();
    assert_eq!(rolled_window(&times, 0.714, 10.0), [0.0, 10.0]);
    let long: std::collections::VecDeque<f64> = (0..=14_000).map(|k| k as f64 * 1e-3).collect();
    let [start, end] = rolled_window(&long, 14.0, 10.0);
    assert_abs_diff_eq!(start, 4.0, epsilon = 1e-9);
    assert_abs_diff_eq!(end, 14.0, epsilon = 1e-9);
}

#[test]
fn labelled_steps_are_1_2_5_and_at_least_the_requested_spacing_apart() {
    // 0.7 s over 360 px: 8 px span 0.7 / 45 s, labels at least 70 px apart need 0.136 s.
    let input = GridInput {
        bounds: (0.0, 0.7),
        base_step_size: 0.7 / 45.0,
    };
    let [fine, label, coarse] = nice_grid_steps(input, 70.0);
    assert!(
        abs_diff_eq!(label, 0.2, epsilon = 1e-12),
        "label step {label}"
    );
    assert_abs_diff_eq!(fine, 0.04, epsilon = 1e-12);
    assert_abs_diff_eq!(coarse, 1.0, epsilon = 1e-12);
    let input = GridInput {
        bounds: (0.0, 10.0),
        base_step_size: 0.08,
    };
    assert_eq!(nice_grid_steps(input, 70.0)[1], 1.0);
}

#[test]
fn labels_carry_the_decimals_of_their_step() {
    assert_eq!(step_label(126.72005, 5e-5), "126.72005");
    assert_eq!(step_label(126.71995, 5e-5), "126.71995");
    assert_eq!(step_label(0.4, 0.2), "0.4");
    assert_eq!(step_label(-20.0, 20.0), "-20");
    assert_eq!(step_label(-0.0, 1.0), "0");
    // The energy axis of a mechanism at rest (E = 0, spanning 1e-6 J).
    assert_eq!(step_label(5e-7, 5e-7), "5e-7");
    assert_eq!(step_label(-5e-7, 5e-7), "-5e-7");
    assert_eq!(step_label(1.5e-6, 5e-7), "1.5e-6");
    assert_eq!(step_label(1e-6, 2e-7), "1.0e-6");
    assert_eq!(step_label(3e-22, 5e-7), "0");
    assert_eq!(step_label(0.0005, 0.0001), "0.0005");
}

#[test]
fn log_axes_label_whole_decades_as_powers_of_ten() {
    // 15 decades over 120 px: 8 px span one decade, labels 24 px apart need 3 decades.
    let input = GridInput {
        bounds: (-15.0, 0.0),
        base_step_size: 1.0,
    };
    assert_eq!(log_grid_steps(input, 24.0), [1.0, 5.0, 25.0]);
    assert_eq!(log_step_label(-3.0, 1.0), "1e-3");
    assert_eq!(log_step_label(0.0, 2.0), "1");
    assert_eq!(log_step_label(2.0, 1.0), "1e2");
    // A fraction of a decade: exponent steps of 0.1, labelled as values.
    let input = GridInput {
        bounds: (-0.5, 0.0),
        base_step_size: 0.02,
    };
    let [fine, label, _] = log_grid_steps(input, 24.0);
    assert!(
        abs_diff_eq!(label, 0.1, epsilon = 1e-12) && fine < label,
        "{fine} {label}"
    );
    assert_eq!(log_step_label(-0.5, 0.1), "3.2e-1");
    assert_eq!(log_step_label(-1.0, 0.1), "1e-1");
}

#[test]
fn missing_samples_stay_gaps_on_every_plot() {
    for (log, floor) in [(false, false), (true, false), (true, true)] {
        assert!(plotted_scale(log, floor).apply(f64::NAN).is_nan());
    }
    assert_eq!(plotted_scale(true, true).apply(0.0), -16.0);
    assert!(!plotted_scale(true, false).apply(0.0).is_finite());
    assert_eq!(plotted_scale(true, false).apply(1e-3), -3.0);
    assert_eq!(plotted_scale(false, false).apply(-2.5), -2.5);
}

#[test]
fn cursor_readout_keeps_nine_significant_digits() {
    assert_eq!(significant(35.8350003, 9), "35.8350003");
    assert_eq!(significant(-0.0123456789, 3), "-0.0123");
    assert_eq!(significant(3.2e-13, 2), "3.2e-13");
    assert_eq!(significant(0.0, 3), "0.00");
    let position = HoverPosition::NearDataPoint {
        plot_name: "residual",
        position: egui_plot::PlotPoint::new(0.71444, -13.0),
        index: 0,
    };
    assert_eq!(
        cursor_readout(&position, true, 1.0),
        "residual\nt = 0.7144 s\n1.00000000e-13"
    );
    let away = HoverPosition::Elsewhere {
        position: egui_plot::PlotPoint::new(4.46, -3.873),
    };
    assert_eq!(
        cursor_readout(&away, false, 0.5),
        "pointer at\nt = 4.4600 s\ny = -3.873"
    );
    // An energy axis spanning 35.8340 ..= 35.8350, labelled every 2e-4 J: the pointer
    // reads to 2e-6, not to the four digits of 35.83.
    let on_energy = HoverPosition::Elsewhere {
        position: egui_plot::PlotPoint::new(1.0, 35.8345123),
    };
    assert_eq!(
        cursor_readout(&on_energy, false, 2e-4),
        "pointer at\nt = 1.0000 s\ny = 35.834512"
    );
}

#[test]
fn flat_data_get_a_value_axis_of_their_own_scale() {
    assert_eq!(flat_span(-9.0, -9.0, false), Some([-10.0, -8.0]));
    assert_eq!(flat_span(-20.0, -20.0, false), Some([-22.0, -18.0]));
    assert_eq!(flat_span(0.0, 0.0, false), Some([-1.0, 1.0]));
    assert_eq!(flat_span(-3.0, -3.0, true), Some([-4.0, -2.0]));
    assert_eq!(flat_span(-1.0, 1.0, false), None);
}
