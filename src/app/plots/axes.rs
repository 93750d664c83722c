//! The plots' axes: grid steps of 1, 2 or 5 times a power of ten (whole decades on a log
//! axis) at least a label's size apart, every label of an axis with the decimals of its step,
//! and the pointer's readout.

use std::cell::Cell;
use std::rc::Rc;

use bevy_egui::egui;
use egui_plot::{AxisHints, GridInput, HoverPosition, Plot, uniform_grid_spacer};

use super::R_FLOOR;
use crate::live::history::Scale;

/// Least points between two labels of a value axis: a line of text and a little, so that a
/// short plot (side by side, presenting) still labels two values.
pub(super) const Y_LABEL_SPACING: f64 = 16.0;

/// Least points between two labels of the time axis: room for "12.35".
const X_LABEL_SPACING: f64 = 70.0;

/// The plot's axes, labelled in `text`: egui_plot would paint its labels in the theme's
/// weak text colour, fading those less than 30 points (time: 80) apart and leaving out those
/// less than 20 (60) apart; here every label of the step the spacer chose is painted at full
/// strength (a projector's back row reads them), the finer steps' are not.
pub(super) fn axes(plot: Plot<'_>, text: egui::Color32) -> Plot<'_> {
    let spacing = |px: f64| (0.8 * px) as f32..=px as f32;
    plot.custom_x_axes(vec![
        AxisHints::new_x()
            .label_spacing(spacing(X_LABEL_SPACING))
            .tick_label_color(text),
    ])
    .custom_y_axes(vec![
        AxisHints::new_y()
            .label_spacing(spacing(Y_LABEL_SPACING))
            .tick_label_color(text),
    ])
}

/// Grid steps, tick labels and the cursor's readout of a plot, `log` for a log10 value axis.
/// Every label of an axis carries the decimals of the labelled step the spacer chose (a mark
/// on a coarser step would print fewer: 179.6025 beside 179.602).
pub(super) fn label_axes(plot: Plot<'_>, log: bool) -> Plot<'_> {
    let (x_step, y_step) = (LabelStep::default(), LabelStep::default());
    let (x_set, x_get) = (x_step.clone(), x_step);
    let plot = plot
        .x_grid_spacer(uniform_grid_spacer(move |input| {
            x_set.chose(nice_grid_steps(input, X_LABEL_SPACING))
        }))
        .x_axis_formatter(move |mark, _range| step_label(mark.value, x_get.or(mark.step_size)));
    let y_read = y_step.clone();
    let (y_set, y_get) = (y_step.clone(), y_step);
    let plot = if log {
        plot.y_grid_spacer(uniform_grid_spacer(move |input| {
            y_set.chose(log_grid_steps(input, 24.0))
        }))
        .y_axis_formatter(move |mark, _range| log_step_label(mark.value, y_get.or(mark.step_size)))
    } else {
        plot.y_grid_spacer(uniform_grid_spacer(move |input| {
            y_set.chose(nice_grid_steps(input, Y_LABEL_SPACING))
        }))
        .y_axis_formatter(move |mark, _range| step_label(mark.value, y_get.or(mark.step_size)))
    };
    plot.label_formatter(move |position| Some(cursor_readout(position, log, y_read.or(0.0))))
}

/// The labelled grid step an axis' spacer chose, read by its formatter in the same frame.
#[derive(Clone, Default)]
pub(super) struct LabelStep(Rc<Cell<f64>>);

/// Grid steps for a linear axis: the smallest 1-2-5 step whose marks are at least
/// `label_px` pixels apart carries the labels (egui_plot hides x labels closer than 60 px and
/// y labels closer than 20), with a finer and a coarser step around it. egui_plot's default
/// powers of ten leave, say, 0.7 s of history on a 360 px plot with a single time label.
pub(super) fn nice_grid_steps(input: GridInput, label_px: f64) -> [f64; 3] {
    // egui_plot passes the plot units spanned by 8 px as the base step.
    let label_min = input.base_step_size * label_px / 8.0;
    let decade = 10f64.powf(label_min.log10().floor());
    let label = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|f| f * decade)
        .find(|&step| step >= label_min)
        .unwrap_or(10.0 * decade);
    [label / 5.0, label, label * 5.0]
}

/// A tick label with as many decimals as its grid step needs (egui_plot's default formatter
/// counts them for powers of ten and repeats labels on a 2 or 5 step); values below 1e-4 in
/// exponent form with the digits the step needs (`5e-7`, `1.5e-6`, not `0.0000005`).
pub(super) fn step_label(value: f64, step: f64) -> String {
    let magnitude = value.abs();
    if magnitude < 0.5 * step {
        // A mark at zero, up to round-off.
        return "0".to_owned();
    }
    if magnitude < 1e-4 {
        let digits = (magnitude.log10().floor() - (step.log10() + 1e-9).floor()).clamp(0.0, 12.0);
        return format!("{:.*e}", digits as usize, value);
    }
    let decimals = (-step.log10() - 1e-9).ceil().clamp(0.0, 12.0) as usize;
    // Adding 0.0 turns -0.0 into 0.0.
    format!("{:.*}", decimals, value + 0.0)
}

/// Grid steps for a log10 axis, in decades: whole decades (1, 2, 5, 10 ... of them) when
/// the axis spans enough of them, otherwise the linear 1-2-5 steps of the exponent, so that
/// a plot spanning a fraction of a decade still has labels.
pub(super) fn log_grid_steps(input: GridInput, label_px: f64) -> [f64; 3] {
    let [fine, label, coarse] = nice_grid_steps(input, label_px);
    if label >= 1.0 {
        [fine.max(1.0), label, coarse]
    } else {
        [fine, label, coarse]
    }
}

/// A tick label on a log10 axis, as the value itself: `1e-3`, `1`, `1e2` on whole decades,
/// two significant digits in between (`3.2e-5`).
pub(super) fn log_step_label(exponent: f64, step: f64) -> String {
    let rounded = exponent.round();
    if step >= 1.0 - 1e-9 || (exponent - rounded).abs() < 1e-9 {
        match rounded as i32 {
            0 => "1".to_owned(),
            k => format!("1e{k}"),
        }
    } else {
        format!("{:.1e}", 10f64.powf(exponent))
    }
}

/// How a plot draws its values: log10 of them on a log plot, where zero or a negative value
/// is a gap in the line, except with `floor` (the R diagonal), whose zeros are drawn on
/// `R_FLOOR`. A missing sample (NaN: a channel not yet there, a jump to a later event) stays
/// a gap, also with the floor.
pub(super) fn plotted_scale(log: bool, floor: bool) -> Scale {
    match (log, floor) {
        (true, true) => Scale::LogFloor(R_FLOOR),
        (true, false) => Scale::Log,
        (false, _) => Scale::Linear,
    }
}

/// The cursor readout: near a data point its series, time to 0.1 ms and value with nine
/// significant digits (the energy's drift is in its sixth digit), taken back from log10 on
/// the log plots; elsewhere the pointer's coordinates, labelled as such, the value to a
/// hundredth of the value axis' labelled step `y_step` (0 before the axis was laid out).
pub(super) fn cursor_readout(position: &HoverPosition<'_>, log: bool, y_step: f64) -> String {
    let value = |y: f64| if log { 10f64.powf(y) } else { y };
    match position {
        HoverPosition::NearDataPoint {
            plot_name,
            position,
            ..
        } => format!(
            "{plot_name}\nt = {:.4} s\n{}",
            position.x,
            significant(value(position.y), 9)
        ),
        // Away from the data: the pointer's coordinates, named as such.
        HoverPosition::Elsewhere { position } => {
            let y = if log || y_step <= 0.0 {
                significant(value(position.y), 4)
            } else {
                step_label(position.y, 0.01 * y_step)
            };
            format!("pointer at\nt = {:.4} s\ny = {y}", position.x)
        }
    }
}

/// `value` with `digits` significant digits, in exponent form outside 1e-3 ..= 1e6.
pub(super) fn significant(value: f64, digits: usize) -> String {
    let magnitude = value.abs();
    if magnitude != 0.0 && !(1e-3..1e6).contains(&magnitude) {
        return format!("{:.*e}", digits - 1, value);
    }
    let integer_digits = if magnitude < 1.0 {
        1
    } else {
        magnitude.log10().floor() as usize + 1
    };
    let decimals = if magnitude < 1.0 && magnitude != 0.0 {
        digits + (-magnitude.log10()).floor() as usize
    } else {
        digits.saturating_sub(integer_digits)
    };
    format!("{:.*}", decimals, value)
}

impl LabelStep {
    /// Remembers the labelled (middle) step of `steps` and passes them on.
    fn chose(&self, steps: [f64; 3]) -> [f64; 3] {
        self.0.set(steps[1]);
        steps
    }

    /// The remembered step, or `fallback` before the spacer ran.
    fn or(&self, fallback: f64) -> f64 {
        let step = self.0.get();
        if step > 0.0 { step } else { fallback }
    }
}

/// An angle axis (`x` or y) marked at multiples of pi/2, labelled "pi/2", "pi", "3pi/2" ...:
/// the flat and folded poses of the linkages lie there, and "3.1" reads as nothing.
pub(super) fn angle_axis(plot: Plot<'_>, x: bool) -> Plot<'_> {
    use std::f64::consts::{FRAC_PI_2, PI, TAU};
    let spacer = uniform_grid_spacer(|_| [FRAC_PI_2, PI, TAU]);
    let label = |mark: egui_plot::GridMark, _: &std::ops::RangeInclusive<f64>| pi_label(mark.value);
    if x {
        plot.x_grid_spacer(spacer).x_axis_formatter(label)
    } else {
        plot.y_grid_spacer(spacer).y_axis_formatter(label)
    }
}

/// `value` as a multiple of pi/2 ("0", "pi/2", "-pi", "3pi/2", "2pi"), or nothing between.
fn pi_label(value: f64) -> String {
    let halves = (value / std::f64::consts::FRAC_PI_2).round();
    if (value - halves * std::f64::consts::FRAC_PI_2).abs() > 1e-9 {
        return String::new();
    }
    let k = halves as i64;
    let sign = if k < 0 { "−" } else { "" };
    match k.abs() {
        0 => "0".into(),
        1 => format!("{sign}π/2"),
        2 => format!("{sign}π"),
        n if n % 2 == 0 => format!("{sign}{}π", n / 2),
        n => format!("{sign}{n}π/2"),
    }
}

#[cfg(test)]
mod angle_tests {
    use super::pi_label;
    use std::f64::consts::PI;

    #[test]
    fn angle_marks_read_as_multiples_of_pi() {
        let labels: Vec<String> = [-PI, -0.5 * PI, 0.0, 0.5 * PI, PI, 1.5 * PI, 2.0 * PI, 1.0]
            .into_iter()
            .map(pi_label)
            .collect();
        assert_eq!(labels, ["−π", "−π/2", "0", "π/2", "π", "3π/2", "2π", ""]);
    }
}
