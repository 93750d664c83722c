//! The egui layout, built by one system in the egui pass (egui 0.36 panels nest in one root
//! `Ui`): menu and transport bar on top, status line at the bottom, scene/solver/motion/event
//! panels on the left, plots on the right, the mechanism canvas in the centre. The panels only
//! read the session; what the user asks for is sent as [`AppCommand`]s.

use std::ops::RangeInclusive;
use std::path::PathBuf;
use std::time::Instant;

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy_egui::egui::{self, Color32, RichText, Ui};
use bevy_egui::{EguiContexts, EguiPrimaryContextPass};

use super::capture::CaptureMode;
use super::commands::AppCommand;
use super::cpu_clock::CpuClock;
use super::drawing::{self, MOTION_KEYS, ViewState, shown_motions};
use super::font_warmup::{Warmed, keep_font_atlas_warm};
use super::lesson::LessonRun;
use super::plots::{self, PlotLayout, PlotState};
use super::presentation::{self, Presentation};
use super::record::{self, Recorder};
use super::simulation::{FrameBudget, FrameStats, Live};
use super::theme::Palette;
use crate::live::MarkKind;
use crate::live::motions::AT_REST;
use crate::live::{LiveSession, Motion, MotionRole, PauseReason, SPEEDS, TracePoint, motions};
use crate::solver::{BasisMode, Integrator, Predictor, Settings, SingularEvent};

/// Scene files offered in the Scene panel: the opened scene's folder and the shipped scenes.
#[derive(Resource, Default)]
pub struct SceneCatalog {
    pub files: Vec<PathBuf>,
    scanned: Option<Instant>,
}

impl SceneCatalog {
    /// The `.ron` files next to the opened scene, then the shipped scenes and lessons
    /// (`scenes/` and `scenes/lessons/` in the working directory, else in the source tree),
    /// each group sorted, none twice.
    fn rescan(&mut self, current: &std::path::Path) {
        let ron_files = |dir: &std::path::Path| -> Vec<PathBuf> {
            let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
                .into_iter()
                .flatten()
                .flatten()
                .map(|entry| entry.path())
                .filter(|path| path.extension().is_some_and(|e| e == "ron"))
                .map(|path| path.canonicalize().unwrap_or(path))
                .collect();
            found.sort();
            found
        };
        let beside = current
            .parent()
            .map(|p| {
                if p.as_os_str().is_empty() {
                    std::path::Path::new(".")
                } else {
                    p
                }
            })
            .map(ron_files)
            .unwrap_or_default();
        let shipped = [
            PathBuf::from("scenes"),
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenes"),
        ]
        .iter()
        .map(|dir| [ron_files(dir), ron_files(&dir.join("lessons"))].concat())
        .find(|files| !files.is_empty())
        .unwrap_or_default();
        let mut files = beside;
        for path in shipped {
            if !files.contains(&path) {
                files.push(path);
            }
        }
        self.files = files;
        self.scanned = Some(Instant::now());
    }
}

pub struct PanelsPlugin;

impl Plugin for PanelsPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<SceneCatalog>()
            .add_systems(EguiPrimaryContextPass, layout);
    }
}

const DT_CHOICES: [f64; 8] = [1e-2, 5e-3, 2e-3, 1e-3, 5e-4, 2e-4, 1e-4, 5e-5];

/// The frame's timing and mode, besides the session: what the status line shows, how far
/// the canvas interpolates between solver steps, whether a screenshot is being taken.
#[derive(SystemParam)]
struct FrameInfo<'w> {
    stats: ResMut<'w, FrameStats>,
    budget: Res<'w, FrameBudget>,
    fixed: Res<'w, Time<Fixed>>,
    capture: Res<'w, CaptureMode>,
    presentation: Res<'w, Presentation>,
    recorder: Res<'w, Recorder>,
}

/// The egui pass: the whole layout from one root `Ui`; what the user asked for is sent once
/// the pass is known to be shown.
fn layout(
    mut contexts: EguiContexts,
    live: Res<Live>,
    mut view: ResMut<ViewState>,
    mut plot_state: ResMut<PlotState>,
    mut catalog: ResMut<SceneCatalog>,
    mut frame: FrameInfo,
    mut writer: MessageWriter<AppCommand>,
    mut warmed: Local<Warmed>,
) -> Result {
    let started = CpuClock::start();
    let ctx = contexts.ctx_mut()?.clone();
    ctx.set_theme(if view.light {
        egui::Theme::Light
    } else {
        egui::Theme::Dark
    });
    keep_font_atlas_warm(&ctx, &mut warmed);
    super::lesson::apply_lesson_view(&live, &mut view);
    if catalog
        .scanned
        .is_none_or(|t| t.elapsed().as_secs_f64() > 3.0)
    {
        catalog.rescan(&live.path);
    }
    let mut commands: Vec<AppCommand> = Vec::new();
    let mut root = Ui::new(
        ctx.clone(),
        egui::Id::new("singulab_root"),
        egui::UiBuilder::new()
            .layer_id(egui::LayerId::background())
            .max_rect(ctx.viewport_rect()),
    );
    let view = &mut *view;
    if let Some(scale) = view.pending_ui_scale.take() {
        ctx.set_zoom_factor(scale);
    }
    // The keys are read with the others (egui's own reading of them missed key presses).
    ctx.options_mut(|o| o.zoom_with_keyboard = false);
    if let Some(zoom) = view.pending_zoom.take() {
        ctx.set_zoom_factor(super::input::zoomed(ctx.zoom_factor(), zoom));
    }
    let layout = match (view.show_plots, view.side_by_side) {
        (false, _) => PlotLayout::Hidden,
        (true, false) => PlotLayout::Panel,
        (true, true) => PlotLayout::SideBySide,
    };
    plot_state.begin_pass(&live, view.plot_window, layout);
    let panels = Panels {
        live: &live,
        catalog: &catalog,
        frame: &frame,
    };
    panels.show(&mut root, view, &mut plot_state, &mut commands);
    // egui may run this pass twice in a frame (a discarded layout pass): send once.
    // A time axis meant for plots that were hidden this pass waits until they are shown.
    plot_state.end_pass(ctx.will_discard() || !view.show_plots);
    if !ctx.will_discard() {
        for command in commands {
            writer.write(command);
        }
    }
    frame.stats.ui_this_frame += started.elapsed();
    if let Some(launched) = frame.stats.launched.take() {
        eprintln!(
            "singulab: first frame built {:.0} ms after launch",
            launched.elapsed().as_secs_f64() * 1e3
        );
    }
    Ok(())
}

/// What the panels read in one pass.
struct Panels<'a, 'w> {
    live: &'a Live,
    catalog: &'a SceneCatalog,
    frame: &'a FrameInfo<'w>,
}

impl Panels<'_, '_> {
    /// Menu and transport on top, the status line at the bottom, the controls on the left,
    /// the plots on the right, the canvas (or the two side by side) in the centre.
    fn show(
        &self,
        root: &mut Ui,
        view: &mut ViewState,
        plot_state: &mut PlotState,
        commands: &mut Vec<AppCommand>,
    ) {
        let (live, frame) = (self.live, self.frame);
        // At an event the chosen motion is the one drawn: it must be one of those listed.
        let listed = live
            .session
            .current_event()
            .map(|_| drawing::shown_motions(live, view, view.basis).len());
        view.settle_motion_choice(live.generation, listed);
        let sizes = PanelSizes::for_width(root.ctx().content_rect().width());
        // Presentation: the canvas (and its plots side by side) and the captions alone.
        let presenting = frame.presentation.on;
        if presenting {
            presentation::captions(root, live);
        } else {
            egui::Panel::top("menu_and_transport").show(root, |ui| {
                menu_bar(ui, live, view, self.catalog, commands);
                transport(ui, live, view, &frame.recorder, commands);
            });
            egui::Panel::bottom("status").show(root, |ui| {
                let frame_time = !frame.capture.takes_screenshot();
                status_line(ui, live, &frame.stats, &frame.budget, frame_time);
            });
        }
        if view.show_controls && !presenting {
            egui::Panel::left("controls")
                .resizable(true)
                .default_size(sizes.controls_width)
                .size_range(sizes.controls_range)
                .show(root, |ui| self.controls(ui, view, commands));
        }
        // Side by side, each canvas has its own `qd` plot and the plots panel is left out (its
        // other plots are the same for both bases).
        if view.show_plots && !view.side_by_side && (!presenting || view.video) {
            egui::Panel::right("plots")
                .resizable(true)
                .default_size(sizes.plots_width)
                .size_range(sizes.plots_range)
                .show(root, |ui| {
                    plots::show_plots(ui, live, view, plot_state, commands);
                });
        }
        if !view.video {
            egui::Panel::bottom("timeline").show(root, |ui| {
                timeline_bar(ui, live, view, commands);
            });
        }
        egui::CentralPanel::no_frame().show(root, |ui| {
            let mut canvas = ui.max_rect();
            let pixels = ui.ctx().pixels_per_point();
            let area = canvas * pixels;
            view.canvas_area = Some(
                [area.min.x, area.min.y, area.width(), area.height()]
                    .map(|v| v.round().max(0.0) as u32),
            );
            // A screen recording is for viewers: no key hints in it, as presenting.
            let viewer = presenting || frame.recorder.status().is_some();
            banner(
                ui,
                live,
                viewer,
                view.video || frame.recorder.status().is_some(),
            );
            let overstep = frame.fixed.overstep_fraction_f64();
            if view.side_by_side {
                canvas.max.y = side_by_side(ui, live, view, plot_state, overstep, commands);
            } else {
                let basis = view.basis;
                drawing::draw_canvas(ui, live, view, basis, overstep, commands);
            }
            if !presenting {
                brief_notice(ui, live, canvas);
                // Presenting, the captions area shows it.
                lesson_caption(ui, live, canvas);
            }
        });
    }

    /// The scene, solver, motions and events panels, scrolling.
    fn controls(&self, ui: &mut Ui, view: &mut ViewState, commands: &mut Vec<AppCommand>) {
        let live = self.live;
        egui::ScrollArea::vertical().show(ui, |ui| {
            // The panel is capped by clipping: its content is laid out wider than
            // what shows (seen: 232 points for 188 at a projector's scale), so rows
            // and texts wrap at the visible edge instead.
            let visible = ui.clip_rect().right() - ui.max_rect().left() - 4.0;
            ui.set_max_width(visible.min(ui.available_width()));
            scene_panel(ui, live, self.catalog, commands);
            solver_panel(ui, live, view, commands);
            motions_panel(ui, live, view, commands);
            reactions_panel(ui, live, view);
            events_panel(ui, live, commands);
        });
    }
}

/// The side panels' sizes (points) in a window `width` points wide. The canvas keeps about
/// half the width, also on a projector (1280 x 720 at a larger interface scale is some 850
/// points wide). egui remembers a panel's width and widens it to fit content that does not
/// wrap, so a default size alone is not enough: the range caps the panels every frame
/// (wider content is clipped, dragging stops at the cap).
struct PanelSizes {
    controls_range: RangeInclusive<f32>,
    plots_range: RangeInclusive<f32>,
    controls_width: f32,
    plots_width: f32,
}

impl PanelSizes {
    fn for_width(width: f32) -> Self {
        let controls_max = 0.22 * width;
        let plots_max = 0.28 * width;
        Self {
            controls_range: controls_max.min(120.0)..=controls_max,
            plots_range: plots_max.min(160.0)..=plots_max,
            controls_width: (0.2 * width).min(290.0),
            plots_width: plots_max.min(470.0),
        }
    }
}

/// The traditional basis on the left, the continued one on the right: each column the
/// mechanism with that basis' arrows over that basis' `qd` plot (the plots panel's
/// "plots" checkbox hides the plots here too).
/// Draws the two halves; returns where their canvases end (above the plots).
fn side_by_side(
    ui: &mut Ui,
    live: &Live,
    view: &mut ViewState,
    plot_state: &mut PlotState,
    overstep: f64,
    commands: &mut Vec<AppCommand>,
) -> f32 {
    // The central panel has no fill of its own: the gaps and the plots get the panels' one.
    let area = ui.available_rect_before_wrap();
    ui.painter().rect_filled(area, 0.0, ui.visuals().panel_fill);
    let plot_height = if view.show_plots {
        (0.36 * ui.available_height()).clamp(120.0, 320.0)
    } else {
        0.0
    };
    let mut canvas_bottom = area.bottom();
    ui.columns(2, |columns| {
        for (ui, basis) in columns
            .iter_mut()
            .zip([BasisMode::Traditional, BasisMode::Continued])
        {
            // A window shorter than the plots' least height leaves the canvas none, not less.
            let canvas = egui::vec2(
                ui.available_width(),
                (ui.available_height() - plot_height).max(0.0),
            );
            let drawn = ui.allocate_ui(canvas, |ui| {
                drawing::draw_canvas(ui, live, view, basis, overstep, commands);
            });
            canvas_bottom = drawn.response.rect.bottom();
            if view.show_plots && !view.video {
                // The plots panel's controls, split over the two columns (one row each, so
                // the plots stay level).
                ui.horizontal(|ui| match basis {
                    BasisMode::Traditional => {
                        plots::window_control(ui, view);
                        ui.checkbox(&mut plot_state.follow_when_paused, "follow when paused");
                    }
                    BasisMode::Continued => {
                        if ui.button("Export CSV…").clicked() {
                            commands.push(AppCommand::ExportCsvDialog);
                        }
                    }
                });
            }
            if view.show_plots {
                plots::show_velocity_plot(ui, live, view, plot_state, basis, plot_height);
            }
        }
    });
    canvas_bottom
}

fn menu_bar(
    ui: &mut Ui,
    live: &Live,
    view: &mut ViewState,
    catalog: &SceneCatalog,
    commands: &mut Vec<AppCommand>,
) {
    egui::MenuBar::new().ui(ui, |ui| {
        ui.menu_button("File", |ui| file_menu(ui, live, catalog, commands));
        ui.menu_button("View", |ui| view_menu(ui, view));
        ui.menu_button("Help", |ui| {
            ui.label(SHORTCUTS);
        });
        ui.separator();
        ui.label(RichText::new(&live.session.scene().title).strong());
        ui.label(
            RichText::new(live.path.display().to_string())
                .small()
                .color(ui.visuals().weak_text_color()),
        );
    });
}

fn file_menu(ui: &mut Ui, live: &Live, catalog: &SceneCatalog, commands: &mut Vec<AppCommand>) {
    if ui.button("Open scene or lesson…  (Ctrl+O)").clicked() {
        commands.push(AppCommand::OpenDialog);
        ui.close();
    }
    if ui.button("Reload  (F5)").clicked() {
        commands.push(AppCommand::ReloadScene);
        ui.close();
    }
    ui.menu_button("Shipped scenes", |ui| {
        for path in &catalog.files {
            let name = path
                .file_stem()
                .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
            if ui.button(name).clicked() {
                commands.push(AppCommand::OpenScene(path.clone()));
                ui.close();
            }
        }
    });
    ui.separator();
    if ui
        .button("Save lesson…")
        .on_hover_text(
            "What you did since the scene was opened or reset, as a lesson that replays it.",
        )
        .clicked()
    {
        commands.push(AppCommand::SaveLessonDialog);
        ui.close();
    }
    if ui
        .button("Save lesson here")
        .on_hover_text(
            "Writes <scene>_lesson.ron next to the scene's lessons (scenes/lessons/ for a shipped \
             scene, else beside the scene file), no dialog; never over an earlier one.",
        )
        .clicked()
    {
        commands.push(AppCommand::SaveLesson(super::lesson::lesson_path_here(
            live,
        )));
        ui.close();
    }
    ui.separator();
    if ui.button("Export plotted history to CSV…").clicked() {
        commands.push(AppCommand::ExportCsvDialog);
        ui.close();
    }
    if ui
        .button("Export plotted history here")
        .on_hover_text("Writes singulab_<scene>_history.csv in the working directory, no dialog.")
        .clicked()
    {
        commands.push(AppCommand::ExportCsvHere);
        ui.close();
    }
    if ui.button("Save screenshot  (F12)").clicked() {
        commands.push(AppCommand::SaveScreenshot);
        ui.close();
    }
}

fn view_menu(ui: &mut Ui, view: &mut ViewState) {
    ui.checkbox(&mut view.light, "Light theme  (L)");
    ui.checkbox(&mut view.show_grid, "Grid");
    ui.checkbox(&mut view.show_labels, "Body names");
    ui.checkbox(&mut view.show_trace, "Motion trace");
    ui.checkbox(&mut view.show_body_axes, "Body axes (rigid bodies)  (A)");
    ui.checkbox(&mut view.show_motions, "Columns of T  (M)");
    ui.checkbox(&mut view.compare_bases, "Plot both bases");
    ui.checkbox(
        &mut view.side_by_side,
        "Side by side: traditional | continued  (C)",
    );
    ui.separator();
    ui.checkbox(&mut view.show_controls, "Controls panel");
    ui.checkbox(&mut view.show_plots, "Plots panel");
    ui.label("Interface size (for projectors):");
    egui::gui_zoom::zoom_menu_buttons(ui);
    ui.label(format!("{:.0} %", 100.0 * ui.ctx().zoom_factor()));
    ui.separator();
    if ui.button("Fit view  (F / double-click)").clicked() {
        view.refit();
        ui.close();
    }
}

pub const SHORTCUTS: &str = "\
Space  play / pause
.  (period)  one solver step
R  reset to the initial state
[ and ]  slower / faster (1/64x to 64x)
B  switch traditional / continued basis
C  side by side: traditional | continued
M  show / hide the columns of T
L  light / dark theme
P  presentation (no panels, large type, captions)
Ctrl+R  record the window to a video (again: stop)
F  fit the view
Ctrl+O  open a scene,  F5  reload
F12  save a screenshot
Drag: pan (orbit in 3D), wheel: zoom, right-click: menu";

fn transport(
    ui: &mut Ui,
    live: &Live,
    view: &mut ViewState,
    recorder: &Recorder,
    commands: &mut Vec<AppCommand>,
) {
    let session = &live.session;
    // Wraps onto a second row in a narrow window (1024 points at a projector's scale).
    ui.horizontal_wrapped(|ui| {
        let playing = !session.is_paused();
        let label = if playing { "⏸ Pause" } else { "▶ Play" };
        if ui
            .button(RichText::new(label).size(16.0))
            .on_hover_text("Space")
            .clicked()
        {
            commands.push(AppCommand::TogglePlay);
        }
        if ui
            .button("Step")
            .on_hover_text("One solver step (.)")
            .clicked()
        {
            commands.push(AppCommand::SingleStep);
        }
        if ui.button("Reset").on_hover_text("R").clicked() {
            commands.push(AppCommand::Reset);
        }
        ui.separator();
        ui.label("Speed");
        let current = SPEEDS
            .iter()
            .position(|s| (s - session.speed()).abs() < 1e-12)
            .unwrap_or(6);
        let mut chosen = current;
        egui::ComboBox::from_id_salt("speed")
            .selected_text(speed_text(SPEEDS[current]))
            .show_ui(ui, |ui| {
                for (i, s) in SPEEDS.iter().enumerate() {
                    ui.selectable_value(&mut chosen, i, speed_text(*s));
                }
            });
        if chosen != current {
            commands.push(AppCommand::SetSpeedIndex(chosen));
        }
        ui.separator();
        ui.label("Basis");
        ui.selectable_value(&mut view.basis, BasisMode::Continued, "continued");
        ui.selectable_value(&mut view.basis, BasisMode::Traditional, "traditional");
        ui.separator();
        let mut auto = session.auto_pause;
        if ui.checkbox(&mut auto, "pause at singularities").changed() {
            commands.push(AppCommand::SetAutoPause(auto));
        }
        ui.checkbox(&mut view.show_motions, "show T");
        record::record_button(ui, recorder, commands);
    });
}

fn speed_text(speed: f64) -> String {
    if speed >= 1.0 {
        format!("{speed}x")
    } else {
        format!("1/{}x", (1.0 / speed).round())
    }
}

fn status_line(
    ui: &mut Ui,
    live: &Live,
    stats: &FrameStats,
    budget: &FrameBudget,
    frame_time: bool,
) {
    let session = &live.session;
    let sim = session.simulation();
    let residual = session.last_report().map(|r| r.residual);
    // A narrow window (1280 x 720, a larger interface scale) gets the short forms, so that
    // the line does not wrap.
    let narrow = ui.available_width() < STATUS_FULL_WIDTH;
    // Narrower still (a projector at 1.5 times the interface size), the line takes two rows,
    // always, so that the canvas above does not jump when the speed text grows or shrinks.
    if ui.available_width() < STATUS_ONE_ROW_WIDTH {
        ui.set_min_height(2.0 * ui.text_style_height(&egui::TextStyle::Monospace) + 6.0);
    }
    ui.horizontal_wrapped(|ui| {
        status_field(ui, rank_text(live, narrow)).on_hover_text(
            "rank: of A at the rank tolerance / generic rank (event: at the detection tolerance); \
             dof = n - rank; Grübler: n - m",
        );
        ui.separator();
        status_field(ui, format!("E {} J", fixed(sim.energy(), 6)));
        ui.separator();
        status_field(
            ui,
            match residual {
                Some(r) => format!("residual {r:.1e}"),
                None => "residual -".into(),
            },
        );
        ui.separator();
        status_field(ui, format!("t {:.4} s", session.time()));
        ui.separator();
        speed_field(ui, live, stats, budget);
        if !narrow && frame_time {
            ui.separator();
            // For developers: compact, with the breakdown on hover.
            status_field(ui, format!("{:.0} ms", stats.frame_ms)).on_hover_text(format!(
                "CPU time per frame: solver {:.1} ms, UI and plots {:.1} ms, whole frame {:.1} ms",
                stats.sim_ms, stats.ui_ms, stats.frame_ms
            ));
        }
    });
}

/// A field of the status line: one label that does not wrap inside, so that a field that
/// does not fit moves to the next row whole ("t 0.7144 s", not "t" and "0.7144 s").
fn status_field(ui: &mut Ui, text: String) -> egui::Response {
    ui.add(egui::Label::new(RichText::new(text).monospace()).extend())
}

/// The sizes and ranks: the rank the dynamics use (rank tolerance); at an event also the
/// rank at the detection tolerance that the banner gives, and the dof that rank leaves.
fn rank_text(live: &Live, narrow: bool) -> String {
    let sim = live.session.simulation();
    let mech = sim.mechanism();
    let (n, m) = (mech.n(), mech.m());
    let rank = sim.rank();
    let (at_event, dof_at_event) = live
        .session
        .current_event()
        .map(|e| {
            if narrow {
                (
                    format!(" (event {})", e.rank),
                    format!(" (event {})", n - e.rank),
                )
            } else {
                (
                    format!(", {} at the event", e.rank),
                    format!(" ({} at the event)", n - e.rank),
                )
            }
        })
        .unwrap_or_default();
    let grubler = n as i64 - m as i64;
    if narrow {
        format!(
            "n {n}  m {m}  rank {rank}/{}{at_event}  dof {}{dof_at_event}  Grübler {grubler}",
            sim.generic_rank(),
            n - rank,
        )
    } else {
        format!(
            "n {n}  m {m}  rank {rank} (generic {}{at_event})  dof {}{dof_at_event}  Grübler n-m {grubler}",
            sim.generic_rank(),
            n - rank,
        )
    }
}

/// Achieved over requested speed below which the run is flagged as falling behind.
const ON_PACE: f64 = 0.95;

/// What keeps the simulation from the requested speed, if anything.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pace {
    Kept,
    /// The solver used its whole budget in a frame.
    SolverLimited,
    /// The solver kept up within its frames, and still the run is slower than asked: the
    /// frames are the limit.
    FrameRateLimited,
}

fn pace(requested: f64, achieved: f64, solver_behind: bool) -> Pace {
    if solver_behind {
        Pace::SolverLimited
    } else if achieved.is_finite() && achieved < ON_PACE * requested {
        Pace::FrameRateLimited
    } else {
        Pace::Kept
    }
}

/// The speed asked for and the speed achieved, or that the run falls behind and why.
fn speed_field(ui: &mut Ui, live: &Live, stats: &FrameStats, budget: &FrameBudget) {
    let session = &live.session;
    let requested = speed_text(session.speed());
    let limit = pace(session.speed(), stats.achieved_speed, session.is_behind());
    if session.is_paused() {
        status_field(ui, format!("paused (speed {requested})"));
    } else if limit != Pace::Kept {
        let why = if limit == Pace::SolverLimited {
            format!(
                "The solver needs more than its {:.0} ms per frame for the requested speed.",
                budget.budget.as_secs_f64() * 1e3
            )
        } else {
            format!(
                "The solver keeps up within its budget; the window's frames ({:.0} ms each) \
                 hold the simulation back.",
                stats.frame_ms
            )
        };
        ui.colored_label(
            Color32::from_rgb(230, 140, 40),
            format!(
                "behind: {requested} requested, {} achieved",
                achieved_text(stats.achieved_speed)
            ),
        )
        .on_hover_text(why);
    } else {
        status_field(
            ui,
            format!(
                "speed {requested}, achieved {}",
                achieved_text(stats.achieved_speed)
            ),
        );
    }
}

/// The achieved speed, or a dash while it is being measured (just after resuming).
fn achieved_text(speed: f64) -> String {
    if speed.is_finite() {
        format!("{speed:.3}x")
    } else {
        "-".into()
    }
}

/// Below this width (points) the status line takes two rows.
const STATUS_ONE_ROW_WIDTH: f32 = 1000.0;
/// Width (points) from which the status line has room for its long forms and the frame time.
const STATUS_FULL_WIDTH: f32 = 1400.0;

/// `value` with `decimals` decimals, without the sign of a value that rounds to zero
/// ("0.000000", not "-0.000000").
fn fixed(value: f64, decimals: usize) -> String {
    let text = format!("{value:.decimals$}");
    match text.strip_prefix('-') {
        Some(magnitude) if magnitude.chars().all(|c| c == '0' || c == '.') => magnitude.to_owned(),
        _ => text,
    }
}

/// The banners over the canvas; for a `viewer` (presenting, recording) without the keys and
/// panels to use, and in a `video` the idle line names what it shows.
fn banner(ui: &mut Ui, live: &Live, viewer: bool, video: bool) {
    let palette = Palette::for_theme(!ui.visuals().dark_mode);
    let mut banners = notice_and_pause_banners(live, palette, viewer);
    if banners.is_empty() {
        // The slot stays, with what the simulation is doing.
        // Opaque: `faint_bg_color` is additive and would show the dark window behind the
        // canvas on the light theme.
        let text = match &live.lesson {
            // A video names what it shows, not the keys of the window; a class sees the
            // title and how far the lesson is.
            _ if video => video_banner_text(live),
            Some(run) if viewer => format!("{}: {}", video_banner_text(live), run.progress()),
            None if viewer => video_banner_text(live),
            Some(run) => lesson_banner_text(run, &live.session),
            None => idle_banner_text(&live.session),
        };
        banners.push((text, ui.visuals().widgets.noninteractive.bg_fill));
    }
    // At most three rows, ending in "…" with the whole text on hover: on a narrow canvas
    // (a projector at a large interface scale) a wrapped banner would cover the mechanism.
    for (text, fill) in banners {
        egui::Frame::new()
            .fill(fill)
            .inner_margin(8.0)
            .show(ui, |ui| {
                ui.set_width(ui.available_width());
                // The palette's text, not egui's grey: at least 7:1 on every banner fill.
                ui.visuals_mut().override_text_color = Some(palette.text);
                // Two rows at least, as most banners take: the canvas below does not jump
                // when an event's banner replaces the idle line (screen recordings).
                ui.set_min_height(2.0 * ui.text_style_height(&egui::TextStyle::Body) + 4.0);
                at_most_three_rows(ui, &text);
            });
    }
}

/// The banners over the canvas, with their fill: a lasting notice, and why the session
/// paused (a solver failure, a singular event, the time asked for).
fn notice_and_pause_banners(
    live: &Live,
    palette: &Palette,
    presenting: bool,
) -> Vec<(String, Color32)> {
    let session = &live.session;
    let mut banners: Vec<(String, Color32)> = Vec::new();
    if let Some(notice) = live.notice.as_ref().filter(|n| n.shown_until.is_none()) {
        let fill = if notice.error {
            palette.banner_error
        } else {
            palette.banner_event
        };
        banners.push((notice.text.clone(), fill));
    }
    match session.pause_reason() {
        Some(PauseReason::Failed(message)) => banners.push((
            format!(
                "Solver stopped: {message}. Press R to reset, or change the solver settings and reset."
            ),
            palette.banner_error,
        )),
        Some(PauseReason::Event) => {
            if let Some(event) = session.current_event() {
                banners.push((
                    event_banner_text(session, event, presenting),
                    palette.banner_event,
                ));
            }
        }
        // A lesson's stops are the player's business, not the viewer's.
        Some(PauseReason::TimeReached) if live.lesson.is_none() => banners.push((
            format!("Stopped at t = {:.4} s as requested.", session.time()),
            palette.banner_event,
        )),
        _ => {}
    }
    banners
}

/// What the session found at a singular event, and (unless `presenting`: the panels are
/// hidden) what the user can do there.
fn event_banner_text(session: &LiveSession, event: &SingularEvent, presenting: bool) -> String {
    let facts = format!(
        "Singular at t = {:.4} s: rank {} of {} (deficiency {}); {} admissible motions ({} continued, {} new); {}.",
        event.t,
        event.rank,
        event.rank + event.deficiency,
        event.deficiency,
        event.motion_count(),
        event.continued().ncols(),
        event.new_motions().ncols(),
        match session.branches().len() {
            _ if session.branch_families() => {
                "branches in continuous families (not listed)".to_owned()
            }
            0 => "no other branch (the new motions are first order only)".to_owned(),
            1 => "1 other branch".to_owned(),
            b => format!("{b} other branches"),
        },
    );
    if presenting {
        return facts;
    }
    let leave = if session.branches().is_empty() {
        ""
    } else {
        " or leave along a branch"
    };
    format!("{facts} Space continues; push along a motion{leave} in the Admissible motions panel.")
}

/// The run's timeline under the canvas: its span, the singular events and the user's
/// pushes, leaves and drags marked, the instant shown; pressing or dragging on it shows the
/// mechanism at that instant (replayed exactly), and Undo takes back the last action.
fn timeline_bar(ui: &mut Ui, live: &Live, view: &ViewState, commands: &mut Vec<AppCommand>) {
    let session = &live.session;
    let palette = Palette::for_theme(view.light);
    let (start, end) = session.timeline_span();
    ui.horizontal(|ui| {
        let undo = ui
            .add_enabled(session.can_undo(), egui::Button::new("Undo"))
            .on_hover_text("Ctrl+Z: takes back the last push, leave or drag, exactly");
        if undo.clicked() {
            commands.push(AppCommand::Undo);
        }
        ui.label(format!("{start:.2} s"));
        let width = (ui.available_width() - 70.0).max(40.0);
        let (rect, response) =
            ui.allocate_exact_size(egui::vec2(width, 20.0), egui::Sense::click_and_drag());
        let span = (end - start).max(1e-9);
        let x_of =
            |t: f64| rect.left() + ((t - start) / span).clamp(0.0, 1.0) as f32 * rect.width();
        let painter = ui.painter_at(rect.expand(4.0));
        let track = egui::Rect::from_min_max(
            egui::pos2(rect.left(), rect.center().y - 3.0),
            egui::pos2(rect.right(), rect.center().y + 3.0),
        );
        painter.rect_filled(track, 3.0, ui.visuals().widgets.inactive.bg_fill);
        for mark in session.marks() {
            let color = mark_color(mark.kind, palette);
            let x = x_of(mark.t);
            painter.line_segment(
                [egui::pos2(x, rect.top()), egui::pos2(x, rect.bottom())],
                egui::Stroke::new(2.0, color),
            );
        }
        let now = x_of(session.time());
        painter.circle_filled(egui::pos2(now, rect.center().y), 6.0, palette.text);
        let response = response.on_hover_text(
            "The whole run: singular events (orange), pushes (pink), leaves (blue), drags \
             (green). Press or drag to see the mechanism at that instant, exactly; Space goes \
             on from there (what came later is dropped).",
        );
        if (response.dragged() || response.clicked())
            && let Some(p) = response.interact_pointer_pos()
        {
            let t = start + f64::from((p.x - rect.left()) / rect.width()).clamp(0.0, 1.0) * span;
            if (t - session.time()).abs() > 1e-9 {
                commands.push(AppCommand::Seek(t));
            }
        }
        ui.label(format!("{end:.2} s"));
    });
}

/// The colour of a mark on the timeline.
fn mark_color(kind: MarkKind, palette: &Palette) -> Color32 {
    match kind {
        MarkKind::Event => Color32::from_rgb(230, 140, 40),
        MarkKind::Push => palette.motion(1),
        MarkKind::Leave => palette.motion(3),
        MarkKind::Drag => palette.motion(2),
    }
}

/// A video's banner between events: the lesson's title, or the scene's.
fn video_banner_text(live: &Live) -> String {
    match &live.lesson {
        Some(run) if !run.player.lesson().spec.title.is_empty() => {
            run.player.lesson().spec.title.clone()
        }
        _ => live.session.scene().title.clone(),
    }
}

/// Where the open lesson is, and what Space does to it.
fn lesson_banner_text(run: &LessonRun, session: &LiveSession) -> String {
    let name = run.path.file_name().unwrap_or_default().to_string_lossy();
    let what = if run.player.is_finished() {
        "done; R plays it again from the start".to_owned()
    } else if run.running {
        format!("{}, playing; Space pauses it", run.progress())
    } else {
        format!("{}, waiting; Space plays it", run.progress())
    };
    format!(
        "Lesson {name} at t = {:.4} s: {what}. Stepping, pushing, leaving or going to an event takes over from it.",
        session.time()
    )
}

/// The lesson's caption at the bottom of the canvas, in large type (for the projector and
/// the recording): the mechanism sits in the middle, and on a 960x540 recording a caption
/// higher up covered it at the event.
fn lesson_caption(ui: &mut Ui, live: &Live, canvas: egui::Rect) {
    let Some(caption) = live.lesson.as_ref().and_then(|run| run.player.caption()) else {
        return;
    };
    canvas_popup(ui, canvas, 900.0, 8.0, |ui| {
        ui.label(RichText::new(&caption.text).heading());
    });
}

/// A popup frame centred over the bottom of the canvas, at most `max_width` wide, its
/// bottom `lift` points above the canvas' bottom.
fn canvas_popup(
    ui: &mut Ui,
    canvas: egui::Rect,
    max_width: f32,
    lift: f32,
    content: impl FnOnce(&mut Ui),
) {
    let width = (canvas.width() - 40.0).clamp(100.0, max_width);
    let rect = egui::Rect::from_min_max(
        egui::pos2(canvas.center().x - 0.5 * width, canvas.top()),
        // A canvas shorter than the lift (side by side in a small window) gets an empty
        // rectangle, never an inverted one: egui's layout asserts on negative sizes.
        egui::pos2(
            canvas.center().x + 0.5 * width,
            (canvas.bottom() - lift).max(canvas.top()),
        ),
    );
    ui.scope_builder(
        egui::UiBuilder::new()
            .max_rect(rect)
            .layout(egui::Layout::bottom_up(egui::Align::Center)),
        |ui| {
            egui::Frame::popup(ui.style()).show(ui, |ui| {
                ui.set_max_width(width - 24.0);
                content(ui);
            });
        },
    );
}

/// What the simulation is doing when nothing else is to be said.
fn idle_banner_text(session: &LiveSession) -> String {
    let pauses = if session.auto_pause {
        "pauses at each singular configuration"
    } else {
        "runs through singular configurations (pause at singularities is off)"
    };
    if session.is_paused() {
        format!(
            "Paused at t = {:.4} s. Space plays; the simulation {pauses}.",
            session.time()
        )
    } else {
        format!("Running; the simulation {pauses}. Space pauses.")
    }
}

/// A brief notice (a file saved, advice on a push) over the bottom of the canvas (both
/// halves side by side, above their plots), so that the canvas does not move when it comes
/// and goes (screen recordings); at most three rows, the whole text on hover.
fn brief_notice(ui: &mut Ui, live: &Live, canvas: egui::Rect) {
    let Some(notice) = live
        .notice
        .as_ref()
        .filter(|n| n.shown_until.is_some() && n.is_shown())
    else {
        return;
    };
    canvas_popup(ui, canvas, 720.0, 40.0, |ui| {
        at_most_three_rows(ui, &notice.text)
    });
}

/// A banner's or notice's text: at most three rows, ending in "…", the whole text on hover
/// (a wrapped text on a narrow canvas would cover the mechanism).
fn at_most_three_rows(ui: &mut Ui, text: &str) {
    let mut job = egui::text::LayoutJob::single_section(
        text.to_owned(),
        egui::TextFormat::simple(egui::FontId::proportional(15.0), ui.visuals().text_color()),
    );
    job.wrap.max_rows = 3;
    job.wrap.overflow_character = Some('…');
    ui.add(egui::Label::new(job).wrap())
        .on_hover_text(RichText::new(text).size(15.0));
}

fn scene_panel(ui: &mut Ui, live: &Live, catalog: &SceneCatalog, commands: &mut Vec<AppCommand>) {
    egui::CollapsingHeader::new("Scene")
        .default_open(true)
        .show(ui, |ui| {
            let scene = live.session.scene();
            if !scene.description.is_empty() {
                // A long description (the robot's 17 lines) scrolls rather than pushing
                // the panels below it off the screen.
                egui::ScrollArea::vertical()
                    .id_salt("scene_description")
                    .max_height(6.0 * ui.text_style_height(&egui::TextStyle::Body))
                    .show(ui, |ui| {
                        ui.label(RichText::new(&scene.description).italics());
                    });
            }
            let current = live.path.canonicalize().ok();
            for path in &catalog.files {
                let name = path
                    .file_stem()
                    .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
                let selected = current.as_ref() == Some(path);
                if ui.selectable_label(selected, name).clicked() && !selected {
                    commands.push(AppCommand::OpenScene(path.clone()));
                }
            }
            trace_controls(ui, live, commands);
            ui.horizontal(|ui| {
                if ui.button("Open…").clicked() {
                    commands.push(AppCommand::OpenDialog);
                }
                if ui.button("Reload").clicked() {
                    commands.push(AppCommand::ReloadScene);
                }
            });
            ui.label(
                RichText::new(
                    "Drop a .ron file on the window to open it; edits on disk reload it.",
                )
                .small(),
            );
        });
}

fn solver_panel(ui: &mut Ui, live: &Live, view: &mut ViewState, commands: &mut Vec<AppCommand>) {
    egui::CollapsingHeader::new("Solver")
        .default_open(true)
        .show(ui, |ui| {
            let before = live.session.settings().clone();
            let mut s: Settings = before.clone();
            // Narrower than egui's default so the panel fits narrow windows.
            ui.spacing_mut().slider_width = 70.0;
            // A grid where the panel is wide enough; in a narrow one (a projector) each
            // setting is a row that wraps, so that nothing is cut off at the panel's edge.
            let narrow = ui.available_width() < 260.0;
            let mut rows = |ui: &mut Ui| {
                setting_row(ui, narrow, |ui| ui.label("Basis shown"), |ui| {
                    ui.selectable_value(&mut view.basis, BasisMode::Continued, "continued");
                    ui.selectable_value(&mut view.basis, BasisMode::Traditional, "traditional");
                });
                setting_row(ui, narrow, |ui| ui.label("Predictor"), |ui| {
                    ui.selectable_value(&mut s.predictor, Predictor::Omega, "omega");
                    ui.selectable_value(&mut s.predictor, Predictor::Zeroth, "zeroth");
                });
                setting_row(ui, narrow, |ui| ui.label("Integrator"), |ui| {
                    ui.selectable_value(&mut s.integrator, Integrator::Rk4, "RK4");
                    ui.selectable_value(&mut s.integrator, Integrator::Dopri5, "DOPRI5");
                });
                setting_row(ui, narrow, |ui| ui.label("dt"), |ui| {
                    egui::ComboBox::from_id_salt("dt")
                        .selected_text(format!("{:e} s", s.dt))
                        .show_ui(ui, |ui| {
                            for dt in DT_CHOICES {
                                ui.selectable_value(&mut s.dt, dt, format!("{dt:e} s"));
                            }
                        });
                });
                setting_row(
                    ui,
                    narrow,
                    |ui| {
                        ui.label("Rank tol.").on_hover_text(
                            "Rank tolerance of the dynamics, relative to |R_00| (far below the detection tolerance)",
                        )
                    },
                    |ui| log_slider(ui, &mut s.rank_tolerance, 1e-12, 1e-4),
                );
                setting_row(
                    ui,
                    narrow,
                    |ui| {
                        ui.label("Detection tol.").on_hover_text(
                            "A located minimum of |R_ii| / |R_00| below this is a singular event",
                        )
                    },
                    |ui| log_slider(ui, &mut s.detection_tolerance, 1e-6, 1e-1),
                );
            };
            if narrow {
                rows(ui);
            } else {
                egui::Grid::new("solver_grid").num_columns(2).show(ui, rows);
            }
            // The rank tolerance stays at or below the detection tolerance.
            s.rank_tolerance = s.rank_tolerance.min(s.detection_tolerance);
            if s != before {
                commands.push(AppCommand::SetSettings(Box::new(s)));
            }
            ui.label(
                RichText::new(
                    "Both bases are tracked every step from the same factorisation: switching the basis never changes the motion.",
                )
                .small(),
            );
        });
}

/// One setting of the Solver panel: in a two-column grid, or (`narrow`) as a row that wraps.
fn setting_row(
    ui: &mut Ui,
    narrow: bool,
    label: impl FnOnce(&mut Ui) -> egui::Response,
    contents: impl FnOnce(&mut Ui),
) {
    if narrow {
        ui.horizontal_wrapped(|ui| {
            label(ui);
            contents(ui);
        });
    } else {
        label(ui);
        ui.horizontal(contents);
        ui.end_row();
    }
}

fn log_slider(ui: &mut Ui, value: &mut f64, lo: f64, hi: f64) {
    // A slider with its value box is one `horizontal` that a wrapping row does not move to
    // the next line by itself: where it does not fit it would widen the whole panel's
    // content past its visible edge. (Outside a wrapping row `end_row` does nothing.)
    if ui.available_size_before_wrap().x < ui.spacing().slider_width + 60.0 {
        ui.end_row();
    }
    let mut exponent = value.log10();
    let response = ui.add(
        egui::Slider::new(&mut exponent, lo.log10()..=hi.log10())
            .step_by(0.5)
            .custom_formatter(|e, _| format!("1e{e}"))
            .custom_parser(|text| {
                text.trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|v| *v > 0.0)
                    .map(f64::log10)
            }),
    );
    if response.changed() {
        *value = 10f64.powf(exponent);
    }
}

/// Reactions and redundancy: the toggle, `p` (here and generically), the self-stress mode
/// drawn, and per joint whether its reaction is unique.
fn reactions_panel(ui: &mut Ui, live: &Live, view: &mut ViewState) {
    egui::CollapsingHeader::new("Reactions and redundancy")
        .default_open(false)
        .show(ui, |ui| {
            ui.checkbox(&mut view.show_reactions, "Show reactions (J)");
            drawing::reactions::update_reactions(view, live);
            let Some(cache) = view.reactions.as_ref() else {
                return;
            };
            let display = match &cache.display {
                Ok(display) => display.clone(),
                Err(message) => {
                    ui.label(RichText::new(message).small());
                    return;
                }
            };
            ui.label(display.redundancy_text());
            if !display.modes.is_empty() {
                ui.horizontal_wrapped(|ui| {
                    ui.label("Self-stress mode:");
                    ui.selectable_value(&mut view.reaction_mode, None, "none");
                    for k in 0..display.modes.len() {
                        ui.selectable_value(&mut view.reaction_mode, Some(k), format!("{}", k + 1));
                    }
                });
            }
            let mech = &live.session.scene().mechanism;
            for arrow in &display.arrows {
                let force = arrow.force.iter().map(|c| c * c).sum::<f64>().sqrt();
                ui.label(RichText::new(format!(
                    "{}: {}, |F| {force:.3e} N",
                    mech.joints()[arrow.joint].name,
                    arrow.verdict()
                )));
            }
        });
}

fn motions_panel(ui: &mut Ui, live: &Live, view: &mut ViewState, commands: &mut Vec<AppCommand>) {
    egui::CollapsingHeader::new("Admissible motions")
        .default_open(true)
        .show(ui, |ui| {
            ui.checkbox(&mut view.show_motions, "Show the columns of T");
            ui.checkbox(&mut view.ghost_preview, "Ghost of a motion's push on pointing")
                .on_hover_text("Off while a class predicts what a push will do");
            let shown = shown_motions(live, view, view.basis);
            if shown.is_empty() {
                ui.label(RichText::new("Shown automatically at singular events.").small());
                return;
            }
            motion_rows(ui, live, view, &shown, commands);
            if live.session.current_event().is_some()
                && live.session.branches().is_empty()
                && !live.session.branch_families()
            {
                ui.label(
                    RichText::new(
                        "No branch but the continuation: the new motions are admissible to first order only.",
                    )
                    .small(),
                );
            }
            push_controls(ui, live, view, &shown, commands);
        });
}

/// A row per motion: its colour, the push choice, a check box to show it, and for a branch
/// the buttons to leave along it. Rows wrap in a narrow panel (a projector's scale) instead
/// of running past its edge, where egui clips them.
fn motion_rows(
    ui: &mut Ui,
    live: &Live,
    view: &mut ViewState,
    shown: &[Motion],
    commands: &mut Vec<AppCommand>,
) {
    let palette = Palette::for_theme(view.light);
    view.highlighted_motion = None;
    for (k, motion) in shown.iter().enumerate() {
        let row = ui.horizontal_wrapped(|ui| {
            let color = palette.motion(k);
            let (rect, _) = ui.allocate_exact_size(egui::vec2(16.0, 10.0), egui::Sense::hover());
            ui.painter().rect_filled(rect, 2.0, color);
            // The choice first, without text: a row that wraps in a narrow panel does not
            // leave it on a line of its own, between two motions.
            let key = if k < 9 {
                format!(" (key {})", k + 1)
            } else {
                String::new()
            };
            ui.radio_value(&mut view.push_motion, k, "").on_hover_text(format!(
                "Choose this motion{key}: at an event it alone is drawn unless all are (key 0), and the button below acts on it (Enter)"
            ));
            let mut visible = view.motion_shown(motion);
            // The event's motions are labelled "T1 continued", "new 1", "branch 1" already.
            let role = if motion.role == MotionRole::Basis(BasisMode::Traditional) {
                " (traditional)"
            } else {
                ""
            };
            // The box alone shows or hides the motion: its name is a label, so a click
            // meant for the row (or the leave buttons next to it) does not hide it.
            if ui
                .checkbox(&mut visible, "")
                .on_hover_text("Draw this motion on the canvas (key H hides or shows the chosen one)")
                .changed()
            {
                view.set_motion_shown(motion, visible);
            }
            ui.label(format!("{}{role}", motion.label));
            if motion.role == MotionRole::Branch {
                leave_buttons(ui, live, view, &motion.column, commands);
            }
        });
        if ui.rect_contains_pointer(row.response.rect) {
            view.highlighted_motion = Some(k);
        }
    }
}

/// The push along the chosen motion: how much velocity over how long, and the button.
fn push_controls(
    ui: &mut Ui,
    live: &Live,
    view: &mut ViewState,
    shown: &[Motion],
    commands: &mut Vec<AppCommand>,
) {
    ui.horizontal_wrapped(|ui| {
        ui.label("Δ velocity");
        ui.add(
            egui::DragValue::new(&mut view.push_delta)
                .speed(0.05)
                .range(-20.0..=20.0),
        );
        ui.label("over");
        ui.add(
            egui::DragValue::new(&mut view.push_duration)
                .speed(0.005)
                .range(0.005..=1.0)
                .suffix(" s"),
        );
    });
    let index = view.push_motion.min(shown.len() - 1);
    let (label, hover) = if shown[index].role == MotionRole::Branch {
        (
            format!("Leave on {}", shown[index].label),
            "Sends the mechanism along the chosen branch the way its arrows are drawn (Enter; Shift+Enter: back).",
        )
    } else {
        (
            format!("Push along {}", shown[index].label),
            "Applies the generalized force M t a for the given time along the motion t (unit length in the mass metric, oriented the way its arrows are drawn; a = Δv / time). Δv is a speed in sqrt(J): from rest along a free motion the push gives Δv²/2 J. At a singular event the dynamics see the enlarged tangent space while it lasts. Enter; Shift+Enter pushes by -Δv.",
        )
    };
    if ui.button(label).on_hover_text(hover).clicked()
        && let Some(command) = chosen_action(live, view, shown, false)
    {
        commands.push(command);
    }
    ui.label(RichText::new(MOTION_KEYS).small());
    if live.session.is_pushing() {
        ui.label("pushing…");
    }
}

/// What acting on the chosen motion does (the panel's button, Enter; `reverse`: Shift+Enter):
/// a push along it by the Δ velocity (reversed: by minus it), or on a branch a leave the way
/// its arrows are drawn (reversed: back), at the Δ velocity where the mechanism is at rest.
pub(super) fn chosen_action(
    live: &Live,
    view: &ViewState,
    shown: &[Motion],
    reverse: bool,
) -> Option<AppCommand> {
    let motion = shown.get(view.push_motion.min(shown.len().checked_sub(1)?))?;
    let sign = if reverse { -1.0 } else { 1.0 };
    Some(if motion.role == MotionRole::Branch {
        let at_rest = live.session.simulation().velocities().amax() < AT_REST;
        AppCommand::Leave {
            direction: &motion.column * sign,
            speed: at_rest.then_some(view.push_delta.abs().max(0.1)),
        }
    } else {
        let delta = sign * view.push_delta;
        AppCommand::Push {
            column: motion.column.clone(),
            delta,
            duration: view.push_duration,
            note: push_note(live, motion, delta),
        }
    })
}

/// Advice for a push along a motion that is new at the singular configuration while the
/// mechanism moves faster than the push's Δ velocity: such a motion is admissible to first order only, so unless the push is
/// large next to the speed the constraints take its velocity back as the mechanism moves
/// off the configuration, and it keeps its branch (A02 at Δv 1: only the energy changes).
fn push_note(live: &Live, motion: &Motion, delta: f64) -> Option<String> {
    let sim = live.session.simulation();
    let speed = motions::mass_speed(
        &live.session.scene().mechanism,
        sim.positions(),
        sim.velocities(),
    );
    (motion.role == MotionRole::New && speed > delta.abs().max(AT_REST)).then(|| {
        format!(
            "Pushing along {} (Δv {delta:.2}) at speed ({speed:.2} in the same units): a new motion is admissible to first order only, so a push small next to the motion usually leaves the mechanism on its branch. To change branch at speed, leave along a branch.",
            motion.label
        )
    })
}

/// "leave on" and "leave back" along a branch listed as `direction` (oriented the way the
/// mechanism moves, downhill at rest: [`crate::lesson::choices::leave_direction`]).
pub(super) fn leave_buttons(
    ui: &mut Ui,
    live: &Live,
    view: &ViewState,
    direction: &nalgebra::DVector<f64>,
    commands: &mut Vec<AppCommand>,
) {
    // At rest for a lecture's purposes: four_bar_stopping arrives at its flat pose with
    // about 1e-5 m/s left (it is launched 1e-10 short of the energy to get there).
    let at_rest = live.session.simulation().velocities().amax() < AT_REST;
    let speed = at_rest.then_some(view.push_delta.abs().max(0.1));
    let (how, on) = if at_rest {
        let how = format!(
            "at {:.2} (the Δ velocity below): the mechanism is at rest here",
            view.push_delta.abs().max(0.1)
        );
        (how, "downhill (as drawn: the mechanism is at rest)")
    } else {
        let how = "with the kinetic energy it has here".to_owned();
        (how, "on the way it came, as drawn")
    };
    for (text, sign, way) in [
        ("leave on", 1.0, on),
        ("leave back", -1.0, "against the arrow"),
    ] {
        if ui
            .small_button(text)
            .on_hover_text(format!(
                "Sends the mechanism along this branch, {way}, {how}."
            ))
            .clicked()
        {
            commands.push(AppCommand::Leave {
                direction: direction * sign,
                speed,
            });
        }
    }
}

fn events_panel(ui: &mut Ui, live: &Live, commands: &mut Vec<AppCommand>) {
    let events = live.session.events();
    egui::CollapsingHeader::new(format!("Singular events ({})", events.len()))
        .default_open(true)
        .show(ui, |ui| {
            if events.is_empty() {
                ui.label(RichText::new("None yet.").small());
            }
            for (i, event) in events.iter().enumerate().rev().take(50) {
                // The button first: a long time (10 s and more) must not push it out of a
                // narrow panel.
                ui.horizontal_wrapped(|ui| {
                    if ui.small_button("go to").clicked() {
                        commands.push(AppCommand::GotoEvent(i));
                    }
                    let text = RichText::new(format!(
                        "t {:.4} s  rank {} (-{})  {} motions",
                        event.t,
                        event.rank,
                        event.deficiency,
                        event.motion_count()
                    ))
                    .monospace();
                    if live.session.current_event_index() == Some(i) {
                        ui.label(text.strong())
                            .on_hover_text("The state is at this event");
                    } else {
                        ui.label(text);
                    }
                });
            }
        });
}

/// The point that leaves the motion trace: a body, and along a bar its start, centre, end or
/// any fraction of its length (coupler curves of a four-bar come from its coupler's points).
fn trace_controls(ui: &mut Ui, live: &Live, commands: &mut Vec<AppCommand>) {
    if live.session.scene().mechanism.has_rigid_bodies() {
        traced_point_controls(ui, live, commands);
        return;
    }
    let bodies = live.session.scene().mechanism.bodies();
    let current = live.session.trace_point();
    let mut chosen = current;
    ui.horizontal(|ui| {
        ui.label("Trace");
        egui::ComboBox::from_id_salt("trace_body")
            .selected_text(current.map_or("none", |p| bodies[p.body].name.as_str()))
            .show_ui(ui, |ui| {
                ui.selectable_value(&mut chosen, None, "none");
                for (i, body) in bodies.iter().enumerate() {
                    let keep_along = chosen.map_or(0.5, |p| p.along);
                    let point = TracePoint {
                        body: i,
                        along: keep_along,
                    };
                    if ui
                        .selectable_label(chosen.map(|p| p.body) == Some(i), &body.name)
                        .clicked()
                    {
                        chosen = Some(point);
                    }
                }
            });
    });
    if let Some(point) = chosen.as_mut()
        && bodies[point.body].is_bar()
    {
        ui.horizontal_wrapped(|ui| {
            ui.label("at");
            for (name, along) in [("start", 0.0), ("centre", 0.5), ("end", 1.0)] {
                if ui.selectable_label(point.along == along, name).clicked() {
                    point.along = along;
                }
            }
            ui.add(
                egui::DragValue::new(&mut point.along)
                    .speed(0.01)
                    .range(0.0..=1.0)
                    .max_decimals(3),
            )
            .on_hover_text("fraction of the bar's length from its start end");
        });
    }
    if chosen != current {
        commands.push(AppCommand::SetTrace(chosen));
    }
}

/// The points of rigid bodies whose paths are traced, any number at once: each body's centre
/// and the named points of its look, toggled on and off.
fn traced_point_controls(ui: &mut Ui, live: &Live, commands: &mut Vec<AppCommand>) {
    let scene = live.session.scene();
    let current = live.session.traced_points();
    let mut chosen = current.clone();
    ui.label("Trace points");
    for (index, body) in scene.mechanism.bodies().iter().enumerate() {
        if !body.is_rigid() {
            continue;
        }
        let named = scene
            .looks
            .iter()
            .filter(|look| look.body == index)
            .flat_map(|look| look.points.iter().map(|(name, p)| (name.as_str(), *p)));
        ui.horizontal_wrapped(|ui| {
            ui.label(format!("{}:", body.name));
            for (name, local) in
                std::iter::once(("centre", nalgebra::Vector3::zeros())).chain(named)
            {
                let at = chosen.iter().position(|&(b, p)| b == index && p == local);
                if ui.selectable_label(at.is_some(), name).clicked() {
                    match at {
                        Some(k) => {
                            chosen.remove(k);
                        }
                        None => chosen.push((index, local)),
                    }
                }
            }
        });
    }
    if chosen != current {
        commands.push(AppCommand::SetTracedPoints(chosen));
    }
}

#[cfg(test)]
mod tests {
    use super::{Pace, fixed, pace};

    /// A02 at 1x, 0.72x achieved with the solver inside its budget (frames of the software
    /// renderer): flagged, with the frames as the cause.
    #[test]
    fn a_slow_run_is_flagged_whatever_limits_it() {
        assert_eq!(pace(1.0, 0.72, false), Pace::FrameRateLimited);
        assert_eq!(pace(1.0, 0.72, true), Pace::SolverLimited);
        assert_eq!(pace(8.0, 7.9, false), Pace::Kept);
        // Just after resuming the achieved speed is not measured yet.
        assert_eq!(pace(1.0, f64::NAN, false), Pace::Kept);
    }

    #[test]
    fn no_negative_zero() {
        assert_eq!(fixed(-1e-9, 6), "0.000000");
        assert_eq!(fixed(-0.0, 6), "0.000000");
        assert_eq!(fixed(-1.5e-6, 6), "-0.000002");
        assert_eq!(fixed(35.835, 6), "35.835000");
    }
}
