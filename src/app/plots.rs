//! The plots panel (egui_plot): generalized velocities `qd` and coordinates `q` of the shown
//! basis (or both), the `R` diagonal relative to its first entry on a log scale with the
//! detection tolerance, energy, and the constraint residual on a log scale. Time axes and
//! cursors are linked; while running the plots roll over the last seconds; when they stop
//! they show the last window of data, and can then be dragged, zoomed and read with the
//! cursor. Series are decimated to about two points
//! per pixel column from the bounded history. While the plots roll, the buckets lie on a grid
//! fixed in time (one pixel column's worth of the window each) and the decimated lines are
//! kept from frame to frame (`LineCache`): a frame decimates only the samples recorded since
//! the last one, plus the window's first bucket. Otherwise (paused, dragged, zoomed) the
//! buckets start at the window's start, so the picture of a paused window depends only on
//! the data in it (screenshots byte for byte). `singulab view SCENE --measure-frames N`
//! prints the interface's CPU time per frame; docs/measurements.md has the figures. The
//! axes' grid steps, labels and the pointer's readout are `axes`; the title rows `legend`.

use bevy::prelude::*;
use bevy_egui::egui::{self, Ui};
use egui_plot::{HLine, Line, LineStyle, Plot, PlotPoints, PlotUi};

use super::atlas_view::AtlasView;
use super::commands::AppCommand;
use super::drawing::ViewState;
use super::simulation::Live;
use super::theme::Palette;
use crate::live::history::{ChannelKind, Grid, LineCache};
use crate::live::{Channel, History, LiveSession};
use crate::solver::BasisMode;
use axes::{axes, label_axes, plotted_scale};
use configuration::{Look, show_configuration_plot};
use legend::LegendEntry;

mod axes;
mod configuration;
mod legend;

/// Smallest span of the energy axis, relative to the energy (at least 1 J): larger changes
/// fill the plot as usual, smaller ones (round-off, 1e-7 J at an event state on A02) stay
/// a visibly flat line.
const ENERGY_MIN_SPAN: f64 = 1e-6;

/// Floor of the `R` diagonal plot (relative to `|R_00|`): smaller entries, exact zeros
/// included (the redundant pendulum's redundant constraint), are drawn on it rather than
/// left out as a logarithm of zero.
pub(super) const R_FLOOR: f64 = 1e-16;

#[derive(Resource)]
pub struct PlotState {
    /// Seconds of history visible in the plots while running.
    pub window: f64,
    /// Keep rolling with the simulation even while paused.
    pub follow_when_paused: bool,
    /// The plots rolled in the last pass: when they stop, the time axis is set once.
    rolled: bool,
    /// The session's [`jump_epoch`](crate::live::LiveSession::jump_epoch) the time axis was
    /// last set for.
    epoch: Option<u64>,
    /// The plots shown in the last pass ([`PlotLayout`]): plots that were hidden kept the time
    /// axis they had when they were last shown.
    layout: Option<PlotLayout>,
    /// Time axis to set in this egui pass (kept through a discarded pass, so that the pass
    /// that is shown sets it too).
    set_time_axis: Option<[f64; 2]>,
    /// The decimated lines of the last passes.
    lines: LineCache,
}

impl Default for PlotState {
    fn default() -> Self {
        Self {
            window: 10.0,
            follow_when_paused: false,
            rolled: false,
            epoch: None,
            layout: None,
            set_time_axis: None,
            lines: LineCache::default(),
        }
    }
}

impl PlotState {
    /// Called once per egui pass before the plots. Rolling, the plots set their time axis
    /// every frame. When they stop rolling (a pause, an auto-pause at an event), or the
    /// history starts again or is cut back while paused (load, reset, "go to"), the time
    /// axis is set once to the last window of data; then it is the user's to drag and zoom.
    /// For `viewers` (presenting, a video) it stays the window it rolled in: a class comparing
    /// the bases' spikes sees them at one scale, not stretched at each pause.
    pub fn begin_pass(&mut self, live: &Live, layout: PlotLayout, viewers: bool) {
        let window = self.window;
        let session = &live.session;
        let rolling = !session.is_paused() || self.follow_when_paused;
        self.lines.sweep();
        let fresh = self.epoch != Some(session.jump_epoch()) || self.layout != Some(layout);
        self.epoch = Some(session.jump_epoch());
        self.layout = Some(layout);
        if rolling {
            self.rolled = true;
            self.set_time_axis = None;
        } else if self.rolled || fresh {
            self.rolled = false;
            let times = session.history().times();
            self.set_time_axis = Some(if viewers {
                rolled_window(times, session.time(), window)
            } else {
                data_window(times, session.time(), window)
            });
        }
    }

    /// Whether this pass shows plots (its [`PlotLayout`] is not `Hidden`).
    pub fn shown(&self) -> bool {
        self.layout
            .is_some_and(|layout| layout != PlotLayout::Hidden)
    }

    /// Called at the end of the pass: a time axis set in a pass egui shows is not set again;
    /// `keep` when the pass is discarded or drew no plots.
    pub fn end_pass(&mut self, keep: bool) {
        if !keep {
            self.set_time_axis = None;
        }
    }
}

/// Which plots are on screen: the plots panel, the side-by-side `qd` plots, or none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlotLayout {
    Panel,
    SideBySide,
    Hidden,
}

/// The time axis showing the data when the plots stop rolling: the last `window` seconds up
/// to `t`, not before the first sample; `[0, window]` with fewer than two samples.
fn data_window(times: &std::collections::VecDeque<f64>, t: f64, window: f64) -> [f64; 2] {
    match (times.front(), times.len()) {
        (Some(&first), 2..) if t > first => [(t - window).max(first), t],
        _ => [0.0, window],
    }
}

/// The time axis the plots rolled in at `t`: `window` seconds from the last `window` of
/// data's start (the history's first sample while it is shorter).
fn rolled_window(times: &std::collections::VecDeque<f64>, t: f64, window: f64) -> [f64; 2] {
    let start = (t - window)
        .max(times.front().copied().unwrap_or(t))
        .max(0.0);
    [start, start + window]
}

pub struct PlotsPlugin;

impl Plugin for PlotsPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<PlotState>();
    }
}

/// One plot: which channels, how to transform values, and its title.
struct PlotSpec {
    id: &'static str,
    title: &'static str,
    kinds: Vec<ChannelKind>,
    log: bool,
    /// Label the time axis (the bottom plot of a stack).
    time_label: bool,
    /// Also link the value axis with the other plots of the link group, fitted to the data
    /// of all these channels (the side-by-side `qd` plots: one motion, one scale).
    shared_y: Vec<ChannelKind>,
}

/// Link group of the time axes of the plots panel.
const TIME_AXES: &str = "time";
/// Link group of both axes of the side-by-side `qd` plots.
const SIDE_BY_SIDE_AXES: &str = "side_by_side_axes";

pub fn show_plots(
    ui: &mut Ui,
    live: &Live,
    view: &mut ViewState,
    state: &mut PlotState,
    atlas: &mut AtlasView,
    commands: &mut Vec<AppCommand>,
) {
    if !view.video {
        plots_header(ui, live.session.history(), view, state, commands);
        ui.checkbox(
            &mut atlas.shown,
            "configuration space (the atlas of the scene)",
        );
    }
    let (qd, q) = basis_channels(view.basis);
    let specs = plot_specs(view);
    // Each title takes about 22 points, the time axis' label under the last plot 18. In a
    // short panel (1280 x 720 at a larger interface scale) the plots keep a readable height
    // and scroll.
    let height = ((ui.available_height() - 5.0 * 22.0 - 18.0) / 5.0).max(MIN_PLOT_HEIGHT);
    egui::ScrollArea::vertical().show(ui, |ui| {
        // The configuration space first, two plots tall: the global picture of the branches
        // beside the time plots of the run on them.
        if !view.video && atlas.shown {
            let look = Look {
                light: view.light,
                viewer: view.presenting || view.video,
            };
            show_configuration_plot(
                ui,
                live,
                atlas,
                2.0 * height,
                look,
                &mut view.atlas_ghost,
                commands,
            );
        }
        for spec in specs {
            show_plot(ui, live, view, state, &spec, [qd, q], height);
        }
    });
}

/// The configuration-space plot alone, filling `ui` (presenting, beside the canvas: key G).
pub fn show_configuration_beside(
    ui: &mut Ui,
    live: &Live,
    view: &mut ViewState,
    atlas: &mut AtlasView,
    commands: &mut Vec<AppCommand>,
) {
    let height = (ui.available_height() - 60.0).max(MIN_PLOT_HEIGHT);
    let look = Look {
        light: view.light,
        viewer: view.presenting || view.video,
    };
    show_configuration_plot(
        ui,
        live,
        atlas,
        height,
        look,
        &mut view.atlas_ghost,
        commands,
    );
}

/// The plots panel's controls and how much history it holds.
fn plots_header(
    ui: &mut Ui,
    history: &History,
    view: &mut ViewState,
    state: &mut PlotState,
    commands: &mut Vec<AppCommand>,
) {
    // Wraps in a narrow panel (1280 x 720 at a larger interface scale).
    ui.horizontal_wrapped(|ui| {
        window_control(ui, state);
        ui.checkbox(&mut view.compare_bases, "both bases");
        ui.checkbox(&mut state.follow_when_paused, "follow when paused");
        if ui.button("Export CSV…").clicked() {
            commands.push(AppCommand::ExportCsvDialog);
        }
    });
    ui.label(
        egui::RichText::new(format!(
            "{} samples kept (max {}); drag/zoom and read values while paused",
            history.len(),
            history.capacity()
        ))
        .small(),
    );
}

/// The plots of the panel, top to bottom: `qd` and `q` of the shown basis (with the other
/// basis' when comparing), the `R` diagonal, the energy and the constraint residual.
fn plot_specs(view: &ViewState) -> [PlotSpec; 5] {
    let (qd, q) = basis_channels(view.basis);
    let (qd_other, q_other) = basis_channels(other_basis(view.basis));
    let with_other = |main: ChannelKind, other: ChannelKind| {
        if view.compare_bases {
            vec![main, other]
        } else {
            vec![main]
        }
    };
    [
        PlotSpec {
            id: "plot_qd",
            title: "generalized velocities qd",
            kinds: with_other(qd, qd_other),
            log: false,
            time_label: false,
            shared_y: Vec::new(),
        },
        PlotSpec {
            id: "plot_q",
            title: "generalized coordinates q (each from 0 where its column of T starts)",
            kinds: with_other(q, q_other),
            log: false,
            time_label: false,
            shared_y: Vec::new(),
        },
        PlotSpec {
            id: "plot_r",
            title: "|R_ii| / |R_00|, log scale (dashed: detection tolerance; point to name one)",
            kinds: vec![ChannelKind::RDiagonal],
            log: true,
            time_label: false,
            shared_y: Vec::new(),
        },
        PlotSpec {
            id: "plot_energy",
            title: "energy (J), axis spans at least 1e-6 |E|",
            kinds: vec![ChannelKind::Energy],
            log: false,
            time_label: false,
            shared_y: Vec::new(),
        },
        PlotSpec {
            id: "plot_residual",
            title: "constraint residual |c| in m (log scale)",
            kinds: vec![ChannelKind::Residual],
            log: true,
            time_label: true,
            shared_y: Vec::new(),
        },
    ]
}

/// Smallest height of a plot (points): below it the plots panel scrolls.
const MIN_PLOT_HEIGHT: f32 = 90.0;

/// The seconds of history shown while running.
pub fn window_control(ui: &mut Ui, state: &mut PlotState) {
    ui.label("Window");
    ui.add(
        egui::DragValue::new(&mut state.window)
            .range(0.1..=600.0)
            .speed(0.1)
            .suffix(" s"),
    );
}

/// The `qd` plot of one basis alone (under its canvas in the side-by-side view), `height`
/// points high, on the time axis shared with the other plots.
pub fn show_velocity_plot(
    ui: &mut Ui,
    live: &Live,
    view: &ViewState,
    state: &mut PlotState,
    basis: BasisMode,
    height: f32,
) {
    let (qd, q) = basis_channels(basis);
    let viewer = view.presenting || view.video;
    let spec = PlotSpec {
        id: match basis {
            BasisMode::Traditional => "plot_qd_traditional",
            BasisMode::Continued => "plot_qd_continued",
        },
        // A narrow column (side by side beside the configuration space) keeps the title on
        // one row: wrapped, it would take most of the plot's height.
        title: match (basis, ui.available_width() < SHORT_TITLE_WIDTH) {
            (BasisMode::Traditional, false) => "generalized velocities qd, traditional QR",
            (BasisMode::Continued, false) => "generalized velocities qd, continued QR",
            (BasisMode::Traditional, true) => "qd, traditional QR",
            (BasisMode::Continued, true) => "qd, continued QR",
        },
        kinds: vec![qd],
        log: false,
        // A class sees a strip under each canvas: its height goes to the curve, the time
        // axis reads by its numbers.
        time_label: !viewer,
        // The traditional and the continued plot show the same y range.
        shared_y: vec![ChannelKind::QdTraditional, ChannelKind::QdContinued],
    };
    // The title's row, and the time axis' label's.
    let rows = if viewer { 22.0 } else { 40.0 };
    show_plot(ui, live, view, state, &spec, [qd, q], height - rows);
}

/// Column width (points) below which a `qd` plot has the short title.
const SHORT_TITLE_WIDTH: f32 = 380.0;

/// The `qd` and `q` channels of a basis.
fn basis_channels(basis: BasisMode) -> (ChannelKind, ChannelKind) {
    match basis {
        BasisMode::Continued => (ChannelKind::QdContinued, ChannelKind::QContinued),
        BasisMode::Traditional => (ChannelKind::QdTraditional, ChannelKind::QTraditional),
    }
}

fn other_basis(basis: BasisMode) -> BasisMode {
    match basis {
        BasisMode::Continued => BasisMode::Traditional,
        BasisMode::Traditional => BasisMode::Continued,
    }
}

/// Draws one plot under its title: `spec`'s channels, those of `main` (the shown basis'
/// `qd` and `q`) solid, the other basis' dashed.
fn show_plot(
    ui: &mut Ui,
    live: &Live,
    view: &ViewState,
    state: &mut PlotState,
    spec: &PlotSpec,
    main: [ChannelKind; 2],
    height: f32,
) {
    let session = &live.session;
    let rolling = !session.is_paused() || state.follow_when_paused;
    let series = PlotSeries {
        history: session.history(),
        palette: Palette::for_theme(view.light),
        spec,
        main,
    };
    // The series are named in the title row, never over the curves (in a plot's corner
    // the legend covered some, spikes of the traditional basis above all). The R diagonal
    // has one entry per constraint, named by hovering; the energy and the residual are
    // named by their titles.
    let entries = match spec.id {
        "plot_r" | "plot_energy" | "plot_residual" => Vec::new(),
        _ => series.legend_entries(),
    };
    let hidden_memory = egui::Id::new((spec.id, "hidden series"));
    let mut hidden: Vec<String> = ui.data(|d| d.get_temp(hidden_memory)).unwrap_or_default();
    let title_height = legend::title_row(ui, spec.title, &entries, &mut hidden);
    ui.data_mut(|d| d.insert_temp(hidden_memory, hidden.clone()));
    // A title row that wraps takes its extra lines from the plot: the plots keep their
    // place under it (side by side, the timeline bar's).
    let one_line = ui.text_style_height(&egui::TextStyle::Body);
    let height = (height - (title_height - one_line).max(0.0)).max(0.5 * height);
    // For viewers (presenting, a video) no readout follows the hidden pointer.
    let viewer = view.presenting || view.video;
    let mut plot = configure_plot(spec, height, rolling, session, series.palette.text);
    if viewer {
        plot = plot.label_formatter(|_| None).show_x(false).show_y(false);
    }
    plot.show(ui, |plot_ui| {
        let window = state.window;
        let (t_min, t_max, rolls) = time_span(plot_ui, state, rolling, session, window);
        let columns = plot_ui.response().rect.width().max(50.0) as usize;
        // Rolling, the buckets lie on a grid fixed in time, so that the decimated lines
        // are kept from frame to frame ([`LineCache`]) and do not shimmer as the window
        // moves; otherwise they start at the window's start.
        let grid = if rolls {
            Grid {
                origin: 0.0,
                width: window / columns as f64,
            }
        } else {
            Grid::over(t_min, t_max, columns)
        };
        let values = series.draw(plot_ui, &mut state.lines, [t_min, t_max], grid, &hidden);
        series.fit_flat_values(plot_ui, values, t_min, t_max);
        if spec.id == "plot_r" {
            let detection = session.settings().detection_tolerance;
            plot_ui.hline(
                HLine::new("detection tolerance", detection.log10())
                    .color(series.palette.text)
                    .style(LineStyle::dashed_dense()),
            );
        }
    });
}

/// A plot as `spec` asks, `height` points high: axes linked with the other plots, dragged
/// and zoomed only while not `rolling`, labelled in `text` and read as [`label_axes`] says,
/// and the value axis of the energy at least [`ENERGY_MIN_SPAN`] tall.
fn configure_plot<'a>(
    spec: &PlotSpec,
    height: f32,
    rolling: bool,
    session: &LiveSession,
    text: egui::Color32,
) -> Plot<'a> {
    let history = session.history();
    // The axes first: the main axes' width and label below are set on them.
    let mut plot = axes(Plot::new(spec.id).height(height), text);
    plot = if spec.shared_y.is_empty() {
        plot.link_axis(TIME_AXES, [true, false])
    } else {
        plot.link_axis(SIDE_BY_SIDE_AXES, [true, true])
    };
    plot = plot
        .link_cursor(TIME_AXES, [true, false])
        .allow_drag(!rolling)
        .allow_zoom(!rolling)
        .allow_scroll(!rolling)
        .allow_boxed_zoom(!rolling)
        // Wide enough for every label here ("126.72005", "3.2e-15"), so that the linked
        // time axes of the stacked plots line up.
        .y_axis_min_width(72.0)
        // Room above and below the data: a value label on the top or bottom grid line is
        // not cut by the frame.
        .set_margin_fraction(egui::vec2(0.05, 0.12));
    if spec.time_label {
        plot = plot.x_axis_label("t (s)");
    }
    plot = label_axes(plot, spec.log);
    if let (Some(&first), Some(&last)) = (history.times().front(), history.times().back()) {
        // Fitted to the data, every plot spans the whole history, also the residual
        // whose first sample (zero) has no logarithm: the linked time axes stay aligned.
        plot = plot.include_x(first).include_x(last);
    }
    if spec.id == "plot_energy" {
        // A conservative run's energy is flat to round-off; fitting the axis to 1e-9 J
        // would draw that round-off as a cliff. Show at least a band of relative width
        // ENERGY_MIN_SPAN around the current energy.
        let energy = session.simulation().energy();
        let half = 0.5 * ENERGY_MIN_SPAN * energy.abs().max(1.0);
        plot = plot.include_y(energy - half).include_y(energy + half);
    }
    plot
}

/// Sets the time axis when it is set this frame (rolling, or once when the plots stop) and
/// returns the span `(t_min, t_max)` to draw: that span, all of the history while the axis
/// fits itself to the data (paused from the start, or after a double-click reset), else the
/// axis as the user left it; and whether the span rolls (is the last `window` seconds).
fn time_span(
    plot_ui: &mut PlotUi<'_>,
    state: &PlotState,
    rolling: bool,
    session: &LiveSession,
    window: f64,
) -> (f64, f64, bool) {
    let history = session.history();
    // The time span set this frame, if any: `plot_bounds()` still returns the previous
    // frame's, which left the newest frame of data undrawn while rolling (about 1 s at
    // 8x with 145 ms frames).
    let mut span = None;
    if let Some([start, end]) = state.set_time_axis {
        plot_ui.set_plot_bounds_x(start..=end);
        plot_ui.set_auto_bounds([false, true]);
        span = Some((start, end));
    } else if rolling {
        // Until the history fills the window the curves grow from its left edge
        // (the axis starts where the history starts); then the window rolls.
        let t_now = session.time();
        let t_first = history.times().front().copied().unwrap_or(t_now);
        let start = (t_now - window).max(t_first);
        plot_ui.set_plot_bounds_x(start..=start + window);
        plot_ui.set_auto_bounds([false, true]);
        span = Some((start, start + window));
    }
    // Decimate over the visible window; while the time axis fits itself to the data
    // it must see all of it.
    let bounds = plot_ui.plot_bounds();
    if let Some((start, end)) = span {
        (start, end, state.set_time_axis.is_none())
    } else if plot_ui.auto_bounds().x {
        let times = history.times();
        (
            times.front().copied().unwrap_or(0.0),
            times.back().copied().unwrap_or(0.0),
            false,
        )
    } else {
        (bounds.min()[0], bounds.max()[0], false)
    }
}

/// The channels one plot draws from the history, and their colours.
struct PlotSeries<'a> {
    history: &'a History,
    palette: &'a Palette,
    spec: &'a PlotSpec,
    /// The shown basis' `qd` and `q` (solid; the other basis' dashed).
    main: [ChannelKind; 2],
}

impl PlotSeries<'_> {
    /// The plot's channels in drawing order, and whether they are of both bases: then the
    /// traditional series (spiky) go under the continued ones (smooth), in a paler shade of
    /// their column's colour.
    fn channels(&self) -> (Vec<&Channel>, bool) {
        let kinds = &self.spec.kinds;
        let both_bases =
            kinds.iter().any(|&k| is_traditional(k)) && kinds.iter().any(|&k| !is_traditional(k));
        let mut channels: Vec<_> = self
            .history
            .channels()
            .iter()
            .filter(|channel| kinds.contains(&channel.kind))
            .collect();
        channels.sort_by_key(|channel| !is_traditional(channel.kind));
        (channels, both_bases)
    }

    /// The series' names, colours and dashes, each name once.
    fn legend_entries(&self) -> Vec<LegendEntry> {
        let (channels, both_bases) = self.channels();
        let mut entries: Vec<LegendEntry> = Vec::new();
        for channel in channels {
            let (name, color, dashed) = self.style(channel, both_bases);
            if entries.iter().all(|e| e.name != name) {
                entries.push(LegendEntry {
                    name,
                    color,
                    dashed,
                });
            }
        }
        entries
    }

    /// Draws the channels not `hidden` (by name) decimated over `t_min ..= t_max` in the
    /// buckets of `grid` (about one per pixel column, two points each), kept in `lines`;
    /// returns the range of the values drawn (after the log transform).
    fn draw(
        &self,
        plot_ui: &mut PlotUi<'_>,
        lines: &mut LineCache,
        [t_min, t_max]: [f64; 2],
        grid: Grid,
        hidden: &[String],
    ) -> Option<[f64; 2]> {
        let (spec, history) = (self.spec, self.history);
        let mut values: Option<[f64; 2]> = None;
        let (channels, both_bases) = self.channels();
        for channel in channels {
            let (name, color, secondary) = self.style(channel, both_bases);
            if hidden.contains(&name) {
                continue;
            }
            let scale = plotted_scale(spec.log, channel.kind == ChannelKind::RDiagonal);
            for run in lines.runs(history, channel, t_min, t_max, grid, scale) {
                for &[_, y] in &run {
                    let [lo, hi] = values.get_or_insert([y, y]);
                    *lo = lo.min(y);
                    *hi = hi.max(y);
                }
                let mut line = Line::new(name.clone(), PlotPoints::from(run))
                    .color(color)
                    .width(1.5);
                if secondary {
                    line = line.style(LineStyle::dashed_loose());
                }
                plot_ui.line(line);
            }
        }
        values
    }

    /// A channel's name in the legend, its colour, and whether it is the other basis'
    /// (`secondary`, dashed).
    fn style(&self, channel: &Channel, both_bases: bool) -> (String, egui::Color32, bool) {
        let [main_kind, main_q] = self.main;
        let palette = self.palette;
        let secondary = channel.kind != main_kind
            && channel.kind != main_q
            && !self.spec.log
            && matches!(
                channel.kind,
                ChannelKind::QdContinued
                    | ChannelKind::QdTraditional
                    | ChannelKind::QContinued
                    | ChannelKind::QTraditional
            );
        let color = match channel.kind {
            ChannelKind::Energy => palette.motions[3],
            ChannelKind::Residual => palette.motions[5],
            _ => palette.motions[channel.index % palette.motions.len()],
        };
        let color = if both_bases && is_traditional(channel.kind) {
            traditional_shade(color, palette.text)
        } else {
            color
        };
        // The legend tells the other basis' (dashed) series from the shown one's.
        let name = if secondary {
            format!("{} (dashed)", channel.name)
        } else {
            channel.name.clone()
        };
        (name, color, secondary)
    }

    /// Fitting its value axis to its own data, each linked plot would still draw its own
    /// range: an invisible item spanning the shared channels' values in the window makes
    /// both fit the same data. A fresh history (one sample after loading or Reset) or a
    /// mechanism at rest has flat data, for which egui_plot makes the value axis as tall as
    /// the time axis is wide (10 s: -14 to -4 around qd = -9, which looks like the previous
    /// scene's range kept): fit a span about the values instead (the energy plot has its
    /// own).
    fn fit_flat_values(
        &self,
        plot_ui: &mut PlotUi<'_>,
        drawn_y: Option<[f64; 2]>,
        t_min: f64,
        t_max: f64,
    ) {
        let spec = self.spec;
        let shared = value_range(self.history, &spec.shared_y, t_min, t_max);
        let flat = match drawn_y.or(shared) {
            Some([low, high]) if spec.id != "plot_energy" => {
                flat_span(low, high, spec.log).map(|[l, h]| [l.min(low), h.max(high)])
            }
            _ => None,
        };
        if plot_ui.auto_bounds().y
            && let Some([low, high]) = flat.or(shared)
        {
            plot_ui.line(
                Line::new("", PlotPoints::from(vec![[t_min, low], [t_min, high]]))
                    .color(egui::Color32::TRANSPARENT)
                    .allow_hover(false),
            );
        }
    }
}

fn is_traditional(kind: ChannelKind) -> bool {
    matches!(kind, ChannelKind::QdTraditional | ChannelKind::QTraditional)
}

/// The colour of a traditional series plotted with the continued one of the same column:
/// a third of the way to the theme's text colour, so paler on the dark theme and darker on
/// the light one, keeping its contrast with the plot's background and its hue (half-way
/// made the light theme's shades nearly black and hard to tell apart).
fn traditional_shade(color: egui::Color32, text: egui::Color32) -> egui::Color32 {
    let mix = |a: u8, b: u8| ((2 * u16::from(a) + u16::from(b)) / 3) as u8;
    egui::Color32::from_rgb(
        mix(color.r(), text.r()),
        mix(color.g(), text.g()),
        mix(color.b(), text.b()),
    )
}

/// The value axis for data spanning only `low ..= high` when that is (about) a single value:
/// a decade either side on a log axis, otherwise a tenth of the value, at least 1.
fn flat_span(low: f64, high: f64, log: bool) -> Option<[f64; 2]> {
    let centre = 0.5 * (low + high);
    let half = if log {
        1.0
    } else {
        (0.1 * centre.abs()).max(1.0)
    };
    (high - low <= 1e-9 * half).then_some([centre - half, centre + half])
}

/// The smallest and largest value (extremes between samples included) of the channels of
/// `kinds` at the samples with `t_min <= t <= t_max`, if any is finite.
fn value_range(
    history: &History,
    kinds: &[ChannelKind],
    t_min: f64,
    t_max: f64,
) -> Option<[f64; 2]> {
    let times = history.times();
    let first = times.partition_point(|&t| t < t_min);
    let last = times.partition_point(|&t| t <= t_max);
    let mut range: Option<[f64; 2]> = None;
    for channel in history.channels() {
        if !kinds.contains(&channel.kind) {
            continue;
        }
        let series = channel.series();
        for i in first..last {
            let (low, high) = (series.low[i], series.high[i]);
            if low.is_finite() && high.is_finite() {
                let [lo, hi] = range.get_or_insert([low, high]);
                *lo = lo.min(low);
                *hi = hi.max(high);
            }
        }
    }
    range
}

#[cfg(test)]
mod tests;
