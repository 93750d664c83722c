//! The egui layout, built by one system in the egui pass (egui 0.36 panels nest in one root
//! `Ui`): menu and transport bar on top, status line at the bottom, scene/solver/motion/event
//! panels on the left, plots on the right, the mechanism canvas in the centre. The panels only
//! read the session; what the user asks for is sent as [`AppCommand`]s.

mod catalog;
mod menu;
mod transport;

pub use catalog::SceneCatalog;
use events_panel::events_panel;
use motions_panel::motions_panel;
use reactions_panel::reactions_panel;
use scene_panel::scene_panel;
use solver_panel::solver_panel;
#[cfg(target_arch = "wasm32")]
pub(super) use status::says_behind;
use timeline_bar::timeline_bar;
pub use transport::speed_text;
use transport::transport;
mod banners;
mod events_panel;
mod motions_panel;
mod reactions_panel;
mod scene_panel;
mod solver_panel;
mod status;
mod timeline_bar;

use std::ops::RangeInclusive;

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy_egui::egui::{self, Ui};
use bevy_egui::{EguiContexts, EguiPrimaryContextPass};

use super::atlas_view::AtlasView;
use super::capture::CaptureMode;
use super::commands::AppCommand;
use super::cpu_clock::CpuClock;
use super::drawing::{self, CanvasCamera, ViewState};
use super::font_warmup::{Warmed, keep_font_atlas_warm, warm_captions};
use super::plots::{self, PlotLayout, PlotState};
use super::presentation::{self, Presentation};
use super::record::Recorder;
use super::simulation::{FrameBudget, FrameStats, Live};
use super::sketcher::panel::sketch_panel;
use super::sketcher::state::Sketcher;
use super::theme::canvas_text_scale;
use super::window_layout::{WindowLayout, Zoom};
use crate::solver::BasisMode;
use banners::{banner, brief_notice, lesson_caption};

use menu::menu_bar;
use status::status_line;

pub struct PanelsPlugin;

impl Plugin for PanelsPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<SceneCatalog>()
            .init_resource::<WindowLayout>()
            .add_systems(EguiPrimaryContextPass, layout);
    }
}

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

/// The plots panel's state: the time plots' and the configuration space's.
#[derive(SystemParam)]
struct PlotResources<'w> {
    state: ResMut<'w, PlotState>,
    atlas: ResMut<'w, AtlasView>,
}

/// What the File menu and edit mode work on: the scene catalogue and the sketch.
#[derive(SystemParam)]
struct Files<'w> {
    catalog: ResMut<'w, SceneCatalog>,
    sketcher: ResMut<'w, Sketcher>,
}

/// The egui pass: the whole layout from one root `Ui`; what the user asked for is sent once
/// the pass is known to be shown.
fn layout(
    mut contexts: EguiContexts,
    live: Res<Live>,
    mut view: ResMut<ViewState>,
    mut camera: ResMut<CanvasCamera>,
    mut window: ResMut<WindowLayout>,
    mut plots: PlotResources,
    files: Files,
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
    if let Some(run) = &live.lesson {
        warm_captions(
            &ctx,
            &mut warmed,
            live.generation,
            run.player.caption_texts(),
        );
    }
    apply_lesson_view(&live, &mut view);
    let Files {
        mut catalog,
        mut sketcher,
    } = files;
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
    if let Some(scale) = window.pending_ui_scale.take() {
        ctx.set_zoom_factor(scale);
    }
    // The keys are read with the others (egui's own reading of them missed key presses).
    ctx.options_mut(|o| o.zoom_with_keyboard = false);
    if let Some(zoom) = window.pending_zoom.take() {
        // Presenting, Ctrl+0 goes back to the room's size, not to the desk's.
        let height = ctx.content_rect().height() * ctx.pixels_per_point();
        let next = match zoom {
            Zoom::Reset if frame.presentation.on => presentation::presenting_zoom(height),
            _ if frame.presentation.on => super::input::zoomed(ctx.zoom_factor(), zoom)
                .min(presentation::largest_presenting_zoom(height)),
            _ => super::input::zoomed(ctx.zoom_factor(), zoom),
        };
        ctx.set_zoom_factor(next);
    }
    // A side-by-side video shows each half's `qd` plot: while the mechanism moves, the halves
    // differ there only.
    let plotted = window.show_plots || (view.video && view.side_by_side);
    let layout = match (plotted, view.side_by_side) {
        (false, _) => PlotLayout::Hidden,
        (true, false) => PlotLayout::Panel,
        (true, true) => PlotLayout::SideBySide,
    };
    plots
        .state
        .begin_pass(&live, layout, view.presenting || view.video);
    let panels = Panels {
        live: &live,
        catalog: &catalog,
        frame: &frame,
    };
    panels.show(
        &mut root,
        view,
        &mut camera,
        &mut window,
        &mut plots.state,
        &mut plots.atlas,
        &mut sketcher,
        &mut commands,
    );
    // egui may run this pass twice in a frame (a discarded layout pass): send once.
    // A time axis meant for plots that were hidden this pass waits until they are shown.
    plots
        .state
        .end_pass(ctx.will_discard() || !window.show_plots);
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
        camera: &mut CanvasCamera,
        window: &mut WindowLayout,
        plot_state: &mut PlotState,
        atlas: &mut AtlasView,
        sketcher: &mut Sketcher,
        commands: &mut Vec<AppCommand>,
    ) {
        let (live, frame) = (self.live, self.frame);
        // Edit mode draws on one canvas, the plots and the timeline put away.
        let editing = sketcher.active;
        if editing {
            view.side_by_side = false;
        }
        // At an event the chosen motion is the one drawn: it must be one of those listed.
        let listed = live
            .session
            .current_event()
            .map(|_| drawing::shown_motions(live, view, view.basis).len());
        view.settle_motion_choice(live.generation, listed);
        // The configuration-space plot sets it again while it is pointed at.
        view.atlas_ghost = None;
        let sizes = PanelSizes::for_width(root.ctx().content_rect().width());
        // Presentation: the canvas (and its plots side by side) and the captions alone.
        let presenting = frame.presentation.on;
        view.presenting = presenting;
        view.recording = frame.recorder.status().is_some();
        view.achieved_when_behind = status::says_behind(live, &frame.stats)
            .then_some(frame.stats.achieved_speed)
            .filter(|speed| speed.is_finite());
        let mut captions = None;
        if presenting {
            captions = Some(presentation::captions(
                root,
                live,
                view.recording && !view.video,
            ));
        } else {
            egui::Panel::top("menu_and_transport").show(root, |ui| {
                menu_bar(
                    ui,
                    live,
                    view,
                    camera,
                    window,
                    self.catalog,
                    sketcher,
                    commands,
                );
                transport(ui, live, view, &frame.recorder, commands);
            });
            egui::Panel::bottom("status").show(root, |ui| {
                let frame_time = !frame.capture.takes_screenshot();
                if editing && !sketcher.shows_mechanism {
                    ui.label("Edit mode: no bar drawn yet.");
                } else {
                    status_line(ui, live, &frame.stats, &frame.budget, frame_time);
                }
            });
        }
        if window.show_controls && !presenting {
            egui::Panel::left("controls")
                .resizable(true)
                .default_size(sizes.controls_width)
                .size_range(sizes.controls_range)
                .show(root, |ui| {
                    if editing {
                        sketch_panel(ui, live, sketcher, commands);
                    } else {
                        self.controls(ui, view, commands);
                    }
                });
        }
        // Presenting, key G puts the configuration space beside the canvas (not at a hall's
        // type: it would run off the window and leave the canvas no room).
        let hall = presentation::at_hall_size(root.ctx().content_rect().height());
        if presenting && view.atlas_beside && !hall {
            egui::Panel::right("configuration_space")
                .resizable(false)
                .exact_size(0.32 * root.available_width())
                .show(root, |ui| {
                    plots::show_configuration_beside(ui, live, view, atlas, commands);
                });
        }
        // Side by side, each canvas has its own `qd` plot and the plots panel is left out (its
        // other plots are the same for both bases).
        if window.show_plots && !view.side_by_side && (!presenting || view.video) && !editing {
            egui::Panel::right("plots")
                .resizable(true)
                .default_size(sizes.plots_width)
                .size_range(sizes.plots_range)
                .show(root, |ui| {
                    plots::show_plots(ui, live, view, plot_state, atlas, commands);
                });
        }
        // Presenting, the cursor is hidden: the timeline and its Undo are keys (Ctrl+Z).
        if !view.video && !presenting && !editing {
            egui::Panel::bottom("timeline").show(root, |ui| {
                timeline_bar(ui, live, view, commands);
            });
        }
        egui::CentralPanel::no_frame().show(root, |ui| {
            let mut canvas = ui.max_rect();
            let pixels = ui.ctx().pixels_per_point();
            // Presenting, a recording takes the captions under the canvas too.
            let area = captions.map_or(canvas, |rows| canvas.union(rows)) * pixels;
            window.canvas_area = Some(
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
                frame.recorder.video_end(),
                editing.then(|| super::sketcher::panel::edit_banner_text(sketcher)),
                canvas_text_scale(view.for_viewers()),
            );
            let overstep = frame.fixed.overstep_fraction_f64();
            if view.side_by_side {
                canvas.max.y = side_by_side(
                    ui, live, view, camera, plot_state, overstep, sketcher, commands,
                );
            } else {
                let basis = view.basis;
                drawing::draw_canvas(ui, live, view, camera, basis, overstep, sketcher, commands);
            }
            if !presenting {
                // Advice and file notes are the operator's, not the video's.
                if !view.recording {
                    brief_notice(ui, live, canvas);
                }
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
    camera: &mut CanvasCamera,
    plot_state: &mut PlotState,
    overstep: f64,
    sketcher: &mut Sketcher,
    commands: &mut Vec<AppCommand>,
) -> f32 {
    // The central panel has no fill of its own: the gaps and the plots get the panels' one.
    let area = ui.available_rect_before_wrap();
    ui.painter().rect_filled(area, 0.0, ui.visuals().panel_fill);
    // Presenting, the mechanism is what the room looks at: its plots take less room.
    let hall = view.presenting && presentation::at_hall_size(ui.ctx().content_rect().height());
    if hall && plot_state.shown() {
        let basis = view.basis;
        return hall_side_by_side(ui, |ui, part| match part {
            HallPart::Canvas => {
                drawing::draw_canvas(ui, live, view, camera, basis, overstep, sketcher, commands);
            }
            HallPart::Plot(basis, height) => {
                plots::show_velocity_plot(ui, live, view, plot_state, basis, height);
            }
        });
    }
    let plot_height = if !plot_state.shown() || hall {
        0.0
    } else if view.presenting {
        let height = (0.34 * ui.available_height()).clamp(100.0, 240.0);
        // A picture too short for both (a small video) keeps its canvases.
        if ui.available_height() >= 2.5 * height {
            height
        } else {
            0.0
        }
    } else {
        (0.36 * ui.available_height()).clamp(120.0, 320.0)
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
                drawing::draw_canvas(ui, live, view, camera, basis, overstep, sketcher, commands);
            });
            canvas_bottom = drawn.response.rect.bottom();
            if plot_state.shown() && !view.video && !view.presenting {
                // The plots panel's controls, split over the two columns (one row each, so
                // the plots stay level).
                ui.horizontal(|ui| match basis {
                    BasisMode::Traditional => {
                        plots::window_control(ui, plot_state);
                        ui.checkbox(&mut plot_state.follow_when_paused, "follow when paused");
                    }
                    BasisMode::Continued => {
                        if ui.button("Export CSV…").clicked() {
                            commands.push(AppCommand::ExportCsvDialog);
                        }
                    }
                });
            }
            if plot_height > 0.0 {
                plots::show_velocity_plot(ui, live, view, plot_state, basis, plot_height);
            }
        }
    });
    canvas_bottom
}

/// Side by side at a hall's type: one canvas, of the basis chosen (B, C), beside both `qd`
/// plots, one over the other. Two canvases over their plots would leave each mechanism a
/// strip; they move alike in both bases, and what differs shows in the plots over the
/// whole run (and in the arrows at an event, B shows the other basis').
fn hall_side_by_side(ui: &mut Ui, mut draw: impl FnMut(&mut Ui, HallPart)) -> f32 {
    let size = ui.available_size();
    let mut canvas_bottom = ui.max_rect().bottom();
    ui.horizontal_top(|ui| {
        let canvas = egui::vec2(HALL_CANVAS_WIDTH * size.x, size.y);
        let drawn = ui.allocate_ui(canvas, |ui| draw(ui, HallPart::Canvas));
        canvas_bottom = drawn.response.rect.bottom();
        ui.vertical(|ui| {
            let height = 0.5 * (size.y - ui.spacing().item_spacing.y);
            for plot in [BasisMode::Traditional, BasisMode::Continued] {
                draw(ui, HallPart::Plot(plot, height));
            }
        });
    });
    canvas_bottom
}

/// What [`hall_side_by_side`] asks drawn: the canvas, or a basis' `qd` plot so many points
/// tall.
enum HallPart {
    Canvas,
    Plot(BasisMode, f32),
}

/// The fraction of the width the canvas takes at a hall's type side by side.
const HALL_CANVAS_WIDTH: f32 = 0.58;

/// Sets the view the open lesson asks for, once per opening; while it plays, at an event its
/// next push or leave's motion is the one drawn (a class sees the branch before it is taken).
fn apply_lesson_view(live: &Live, view: &mut ViewState) {
    let Some(run) = &live.lesson else {
        return;
    };
    if run.running
        && let Some(k) = run.player.motion_ahead(&live.session)
    {
        view.push.motion = k;
        view.all_motions = false;
    }
    if view.lesson_view_applied == Some(live.generation) {
        return;
    }
    view.lesson_view_applied = Some(live.generation);
    let wanted = &run.player.lesson().spec;
    view.side_by_side = wanted.view.side_by_side;
    view.show_reactions = wanted.view.reactions;
    view.basis = wanted.basis;
}
