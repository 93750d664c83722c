//! The mechanism canvas: the planar view (orthographic, pan with a drag, zoom about the cursor
//! with the wheel, opening on the scene's view hints, double-click or F to fit the current
//! pose, grid and scale bar) or the orbit view of spatial
//! scenes, and on it the motion trace, ground symbols, bars as solid rounded shapes with
//! their names, hinges, point masses, and the admissible motions as arrows (one colour per
//! column of `T`; at an event the continued columns solid, the new ones dashed, labelled).
//!
//! Everything is painted with egui's painter (anti-aliased fills, strokes and text in one
//! pass), so Bevy's renderer only needs to host egui. This module owns the plugin and the
//! canvas's input and layout; the view state is `view_state`, fitting the view `fit`, and
//! the painting is in the other submodules: `projection`
//! (world to canvas), `backdrop` (grids), `mechanism` (planar bars, point masses),
//! `spatial` (rigid bodies, their joints, shadows on the floor) over `solids` (shaded
//! triangle meshes), `arrows` (admissible motions) and `overlay` (legend and time).

mod arrows;
mod backdrop;
mod bar_names;
mod camera;
mod fit;
mod ghost;
mod ink;
mod joint_labels;
mod mechanism;
mod overlay;
pub use overlay::MOTION_KEYS;
mod plates;
mod projection;
mod reaction_scale;
pub mod reactions;
mod run_frame;
mod shapes;
mod sketch_overlay;
mod solids;
mod spatial;
mod traces;
mod view_state;

pub use camera::CanvasCamera;
pub use view_state::ViewState;

use bevy::prelude::*;
use bevy_egui::egui::{self, Pos2, Sense, Stroke, Ui};
use nalgebra::DVector;

use super::SingulabSystems;
use super::actions::leave_buttons;
use super::commands::AppCommand;
use super::simulation::{Live, SceneLoaded, SingularityReached};
use super::sketcher::state::Sketcher;
use super::theme::Palette;
use crate::lesson::Way;
use crate::lesson::choices::{leave_direction, listed_motions};
use crate::live::motions::Motion;
use crate::model::Mechanism;
use crate::solver::BasisMode;

use arrows::{MotionArrows, draw_motions};
use backdrop::{draw_floor, draw_grid};
use bar_names::Clearance;
use fit::{fit_orbit, fit_planar, fit_view};
use ink::Ink;
use mechanism::draw_mechanism;
use overlay::draw_overlay_text;
use projection::Projection;
use sketch_overlay::{SketchFrame, draw_sketch, sketch_input};
use spatial::{Floor, RigidView};

/// Owns [`ViewState`] and the camera egui renders through; shows the motions at events.
pub struct DrawingPlugin;

impl Plugin for DrawingPlugin {
    fn build(&self, app: &mut App) {
        if !app.world().contains_resource::<ViewState>() {
            app.init_resource::<ViewState>();
        }
        if !app.world().contains_resource::<CanvasCamera>() {
            app.init_resource::<CanvasCamera>();
        }
        app.add_systems(Startup, spawn_camera).add_systems(
            Update,
            follow_session_messages.in_set(SingulabSystems::Output),
        );
    }
}

fn spawn_camera(mut commands: Commands) {
    commands.spawn(Camera2d);
}

fn follow_session_messages(
    mut reached: MessageReader<SingularityReached>,
    mut loaded: MessageReader<SceneLoaded>,
    mut commands: MessageReader<AppCommand>,
    mut view: ResMut<ViewState>,
    mut camera: ResMut<CanvasCamera>,
) {
    // The motions hidden and chosen stay the user's from one event to the next.
    for _ in reached.read() {
        camera.check_pose_visible = true;
        view.show_motions = true;
    }
    // A pose chosen on the configuration-space plot or in the events list, or given back by
    // an undo, may lie anywhere: brought into sight as an event's is.
    if commands.read().any(|c| {
        matches!(
            c,
            AppCommand::PoseAt(_) | AppCommand::GotoEvent(_) | AppCommand::Undo
        )
    }) {
        camera.check_pose_visible = true;
    }
    // A new scene gets its own view from `draw_canvas` (its generation changed).
    for _ in loaded.read() {
        view.hidden_motions.clear();
    }
}

/// The motions to draw now in `basis`: at an event its admissible motions and branches,
/// otherwise the basis' columns when the user turned them on; each the way the mechanism
/// moves along it (at rest: downhill), as the panel lists them and a lesson counts them
/// ([`listed_motions`]).
pub fn shown_motions(live: &Live, view: &ViewState, basis: BasisMode) -> Vec<Motion> {
    let session = &live.session;
    if session.current_event().is_some() || view.show_motions {
        listed_motions(session, basis)
    } else {
        Vec::new()
    }
}

/// What the painting phases of one canvas share: where to paint, how the world maps onto
/// it, the colours, and the mechanism in the pose drawn.
struct Canvas<'a> {
    painter: &'a egui::Painter,
    projection: &'a Projection,
    rect: egui::Rect,
    palette: &'a Palette,
    mech: &'a Mechanism,
    /// The positions drawn (interpolated between solver steps).
    x: &'a DVector<f64>,
    /// The rigid bodies' solids in this pose (scenes with rigid bodies).
    rigid: Option<&'a RigidView>,
}

/// Paints the canvas, with the motions of `basis`, in the remaining space of `ui` and
/// handles its pan/zoom/orbit input (side by side, both canvases share the view).
pub fn draw_canvas(
    ui: &mut Ui,
    live: &Live,
    view: &mut ViewState,
    camera: &mut CanvasCamera,
    basis: BasisMode,
    overstep: f64,
    sketcher: &mut Sketcher,
    commands: &mut Vec<AppCommand>,
) {
    let palette = &Palette::for_canvas(view.light, view.for_viewers());
    let (response, painter) = ui.allocate_painter(ui.available_size(), Sense::click_and_drag());
    let rect = response.rect;
    painter.rect_filled(rect, 0.0, palette.background);
    let mech = &live.session.scene().mechanism;
    let spatial = mech.is_spatial();
    if response.double_clicked() {
        camera.refit();
    }
    fit_view(live, view, camera, rect, spatial);
    let sketching = sketcher.active && !spatial;
    let sketch_frame = |camera: &CanvasCamera| SketchFrame {
        view: camera.planar.unwrap_or_else(|| fit_planar(live)),
        rect,
    };
    let handled = if sketching {
        sketch_input(&response, &sketch_frame(camera), sketcher, commands)
    } else {
        !spatial && grab(&response, live, view, camera, commands)
    };
    if !handled {
        navigate(ui, &response, live, camera, spatial);
    }
    let projection = canvas_projection(live, camera, rect, spatial);
    let painter = painter.with_clip_rect(rect);
    let mut x = std::mem::take(&mut view.display_x);
    live.session.display_positions(overstep, &mut x);
    let rigid = mech
        .has_rigid_bodies()
        .then(|| RigidView::build(live, &x, palette));
    let canvas = Canvas {
        painter: &painter,
        projection: &projection,
        rect,
        palette,
        mech,
        x: &x,
        rigid: rigid.as_ref(),
    };
    let scale_bar = if view.show_grid {
        draw_backdrop(&canvas, live, fit::arrow_room(live, view, rect.size()))
    } else {
        None
    };
    // Edit mode before the first bar (or a sketch that does not load): the sketch alone.
    if !sketching || sketcher.shows_mechanism {
        let trace_labels = if view.show_trace {
            traces::draw_trace(&canvas, live, view.for_viewers())
        } else {
            Vec::new()
        };
        let last_overlay = std::mem::take(&mut camera.overlay);
        let mut drawn = draw_mechanism_and_motions(
            &canvas,
            live,
            view,
            basis,
            overstep,
            (scale_bar, &last_overlay),
        );
        camera.overlay_height = drawn.overlay_height;
        camera.overlay = std::mem::take(&mut drawn.overlay);
        // Over the bars (a label under a bar cannot be read), clear of the text already there.
        traces::paint_trace_labels(
            &painter,
            trace_labels,
            (&drawn.text, &drawn.ink, &drawn.plates),
            (palette.font(12.0), palette.background),
        );
        draw_spring(&canvas, live);
    }
    if sketching {
        // The reactions view (a self-stress mode shown) names the joints itself.
        let names_joints = view.show_reactions && sketcher.shows_mechanism;
        let frame = sketch_frame(camera);
        draw_sketch(
            &canvas,
            &frame,
            sketcher,
            !names_joints,
            response.hover_pos(),
        );
    }
    view.display_x = x;
    canvas_menu(&response, live, view, camera, commands);
}

/// How close (pixels) to a body the pointer must press for a drag to grab it rather than pan.
const GRAB_RADIUS: f64 = 12.0;

/// A drag that starts on a body of a planar scene grabs it: paused, the mechanism follows the
/// pointer along its constraints; running, a spring pulls the point to the pointer. Returns
/// whether the gesture is a grab (else the drag pans).
fn grab(
    response: &egui::Response,
    live: &Live,
    view: &mut ViewState,
    camera: &CanvasCamera,
    commands: &mut Vec<AppCommand>,
) -> bool {
    let Some(planar) = camera.planar else {
        return false;
    };
    let rect = response.rect;
    let (center, width) = (
        [f64::from(rect.center().x), f64::from(rect.center().y)],
        f64::from(rect.width()),
    );
    let pointer = response
        .interact_pointer_pos()
        .map(|p| planar.to_world([f64::from(p.x), f64::from(p.y)], center, width));
    // Where the button went down: the drag starts a few pixels later.
    let origin = response
        .ctx
        .input(|i| i.pointer.press_origin())
        .map(|p| planar.to_world([f64::from(p.x), f64::from(p.y)], center, width));
    if response.drag_started_by(egui::PointerButton::Primary)
        && let Some([x, y]) = origin
        && let Some((point, distance)) = live.session.pick([x, y, 0.0])
        && distance * planar.scale(width) <= GRAB_RADIUS
    {
        view.grabbing = true;
        commands.push(AppCommand::BeginDrag(point));
    }
    if !view.grabbing {
        return false;
    }
    if response.drag_stopped() || !response.dragged() {
        view.grabbing = false;
        commands.push(AppCommand::EndDrag);
    } else if let Some([x, y]) = pointer {
        let step = snap_step(1.0 / planar.scale(width));
        let snap = |v: f64| (v / step).round() * step;
        commands.push(AppCommand::DragTo([snap(x), snap(y), 0.0]));
    }
    true
}

/// The grid a dragged point's target snaps to, for `pixel` world units per pixel: the
/// smallest 1-2-5 step of at least two pixels. A pointer cannot hit a flat pose (on the
/// ground line, at round coordinates) to better than a pixel, about 5 mm in a four-bar's
/// default view, and the pose the constraints allow there is not singular to the detection
/// tolerance; snapped, the target is exactly on it.
fn snap_step(pixel: f64) -> f64 {
    let least = 2.0 * pixel;
    let decade = 10f64.powf(least.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|f| f * decade)
        .find(|&step| step >= least)
        .unwrap_or(10.0 * decade)
}

/// The spring of a drag while running: a line from the grabbed point to the pointer.
fn draw_spring(canvas: &Canvas, live: &Live) {
    let Some((point, target)) = live.session.drag_line() else {
        return;
    };
    let projection = canvas.projection;
    if let (Some(a), Some(b)) = (projection.to_screen(point), projection.to_screen(target)) {
        let color = canvas.palette.text;
        canvas
            .painter
            .line_segment([a, b], Stroke::new(2.0, color.gamma_multiply(0.8)));
        canvas
            .painter
            .circle_stroke(b, 5.0, Stroke::new(2.0, color));
    }
}

/// A drag pans the planar view (orbits the spatial one, which a middle or Shift drag pans);
/// the wheel or a pinch zooms, the planar view about the cursor.
fn navigate(
    ui: &Ui,
    response: &egui::Response,
    live: &Live,
    camera: &mut CanvasCamera,
    spatial: bool,
) {
    let rect = response.rect;
    let width = f64::from(rect.width());
    let center = [f64::from(rect.center().x), f64::from(rect.center().y)];
    let (scroll, pinch) = ui
        .ctx()
        .input(|i| (i.smooth_scroll_delta.y, i.zoom_delta()));
    let zoom = f64::from(pinch) * (f64::from(scroll) * 0.0025).exp();
    if spatial {
        let orbit = camera.orbit.get_or_insert_with(|| fit_orbit(live));
        let shift = ui.ctx().input(|i| i.modifiers.shift);
        if response.dragged_by(egui::PointerButton::Middle)
            || (shift && response.dragged_by(egui::PointerButton::Primary))
        {
            spatial::pan_camera(orbit, response.drag_delta(), rect.height());
        } else if response.dragged() {
            let d = response.drag_delta();
            orbit.orbit(-f64::from(d.x) * 0.01, f64::from(d.y) * 0.01);
        }
        if response.hovered() && zoom != 1.0 {
            orbit.zoom(zoom);
        }
    } else {
        let planar = camera.planar.get_or_insert_with(|| fit_planar(live));
        if response.dragged() {
            let d = response.drag_delta();
            planar.pan([f64::from(d.x), f64::from(d.y)], width);
            camera.moved_by_user = true;
        }
        if response.hovered()
            && zoom != 1.0
            && let Some(cursor) = response.hover_pos()
        {
            camera.moved_by_user = true;
            planar.zoom_about(
                zoom,
                [f64::from(cursor.x), f64::from(cursor.y)],
                center,
                width,
            );
        }
    }
}

/// The map from the world onto the canvas `rect`: the orbit camera of a spatial scene, the
/// planar view otherwise.
fn canvas_projection(
    live: &Live,
    camera: &CanvasCamera,
    rect: egui::Rect,
    spatial: bool,
) -> Projection {
    if spatial {
        Projection::Orbit {
            camera: camera.orbit.unwrap_or_else(|| fit_orbit(live)),
            center: rect.center(),
            half_height: 0.5 * f64::from(rect.height()),
        }
    } else {
        Projection::Planar {
            view: camera.planar.unwrap_or_else(|| fit_planar(live)),
            center: [f64::from(rect.center().x), f64::from(rect.center().y)],
            width: f64::from(rect.width()),
        }
    }
}

/// The grid of the planar view, returning its scale bar's area (in the bottom corner clear
/// of the mechanism and of its motions' arrows, which reach `arrows` pixels from it), or the
/// floor of the spatial one.
fn draw_backdrop(canvas: &Canvas, live: &Live, arrows: f32) -> Option<egui::Rect> {
    match canvas.projection {
        Projection::Orbit { .. } => {
            let size = live.session.scene().view.width.unwrap_or(1.0);
            let floor = canvas.rigid.map_or(Floor::of_view(size), |r| r.floor);
            let (painter, projection) = (canvas.painter, canvas.projection);
            draw_floor(
                painter,
                projection,
                live,
                canvas.palette,
                &floor,
                canvas.rigid.is_some(),
            );
            if let Some(rigid) = canvas.rigid {
                rigid.draw_on_floor(canvas);
            }
            None
        }
        Projection::Planar {
            view,
            center,
            width,
        } => {
            // The mechanism's box on the screen, with its ground symbols under the pivots.
            let pose = crate::live::framing::pose_box(canvas.mech, canvas.x).map(|[lo, hi]| {
                let a = view.to_screen(lo, *center, *width);
                let b = view.to_screen(hi, *center, *width);
                let corners = egui::Rect::from_two_pos(
                    egui::pos2(a[0] as f32, a[1] as f32),
                    egui::pos2(b[0] as f32, b[1] as f32),
                );
                // The hatching under a ground pivot reaches further down than to the sides.
                egui::Rect::from_min_max(
                    corners.min - egui::vec2(16.0, 16.0),
                    corners.max + egui::vec2(16.0, 32.0),
                )
                .expand(arrows)
            });
            Some(draw_grid(
                canvas.painter,
                canvas.rect,
                view,
                *center,
                *width,
                canvas.palette,
                pose,
            ))
        }
    }
}

/// The mechanism, the legend and the time, the names, the motions' arrows, then their labels
/// on top; the names keep off the arrows where they can, the labels off the legend, the
/// names and the scale bar; the reactions' numbers off `last_overlay`, the legend and the
/// time of the last frame (painted after them). Returns how far down the legend and the time
/// reach (fitting the view keeps the mechanism below them).
fn draw_mechanism_and_motions(
    canvas: &Canvas,
    live: &Live,
    view: &mut ViewState,
    basis: BasisMode,
    overstep: f64,
    (scale_bar, last_overlay): (Option<egui::Rect>, &[egui::Rect]),
) -> Drawn {
    let shown = shown_motions(live, view, basis);
    // This canvas shows the basis the panel lists: pointing at a row there dims the others
    // and shows its ghost here.
    let listed_half = !view.side_by_side || basis == view.basis;
    let at_event = live.session.current_event().is_some();
    let arrows = MotionArrows::lay_out(canvas, &shown, view, at_event);
    let footprint = arrows.footprint();
    let (rigid_names, mut drawn) = match canvas.rigid {
        Some(rigid) => (
            rigid.draw(canvas, live, view.show_labels, view.show_body_axes),
            None,
        ),
        None => (Vec::new(), Some(draw_mechanism(canvas, view.show_labels))),
    };
    let mut ink = drawn
        .as_mut()
        .map_or_else(Ink::default, |drawn| std::mem::take(&mut drawn.ink));
    let plates = drawn
        .as_mut()
        .map_or_else(Vec::new, |drawn| std::mem::take(&mut drawn.plates));
    ink.extend(footprint.iter().copied());
    let reaction_text = if view.show_reactions {
        reactions::update_reactions(view, live);
        let body_names: Vec<_> = rigid_names.iter().map(|name| name.area()).collect();
        reactions::draw_reactions(canvas, view, &body_names, scale_bar, last_overlay)
    } else {
        Vec::new()
    };
    let t_shown = live.session.display_time(overstep);
    let mut overlay = draw_overlay_text(canvas, t_shown, live, view, basis, &shown);
    // Fit keeps the mechanism below the legend and the time (not below the names, which
    // follow the mechanism).
    let overlay_height = overlay
        .iter()
        .map(|r| r.bottom() - canvas.rect.top())
        .fold(0.0, f32::max);
    let legend_and_time = overlay.clone();
    // The bars' names keep off the legend and the time (a name under the legend, which is
    // painted over it, was lost at A02's fold), the scale bar and the reactions' names.
    let names = match drawn.filter(|_| view.show_labels) {
        Some(drawn) => {
            let text: Vec<_> = overlay
                .iter()
                .chain(&scale_bar)
                .chain(&reaction_text)
                .copied()
                .collect();
            let clear = Clearance {
                arrows: &footprint,
                text: &text,
            };
            let spots = &mut view.name_spots[usize::from(basis == BasisMode::Traditional)];
            drawn.place_names(canvas, &clear, spots)
        }
        // A rigid body's name under the time or the legend is left out rather than written
        // over them.
        None => rigid_names
            .into_iter()
            .filter(|name| {
                !overlay
                    .iter()
                    .any(|r| r.expand(4.0).intersects(name.area()))
            })
            .collect(),
    };
    // The motions' labels keep off the body names and the scale bar too.
    overlay.extend(names.iter().map(|name| name.area()));
    overlay.extend(scale_bar);
    overlay.extend(reaction_text);
    if listed_half && canvas.rigid.is_none() {
        ghost::draw_ghost(canvas, &live.session, &shown, view);
        ghost::draw_atlas_ghost(canvas, view);
    }
    // The arrows over the names: a name that found no place clear of them (a folded loop)
    // may be crossed by a shaft, but hides no arrow.
    bar_names::paint_names(canvas.painter, &names, canvas.palette);
    let half = usize::from(basis == BasisMode::Traditional);
    let mut last_labels = std::mem::take(&mut view.label_spots[half]);
    let labels = draw_motions(
        canvas,
        &shown,
        arrows,
        view,
        (&overlay, &ink),
        listed_half,
        &mut last_labels,
    );
    view.label_spots[half] = last_labels;
    bar_names::paint_names_over_arrows(canvas.painter, &names, canvas.palette);
    let label_rects: Vec<_> = labels.iter().map(|label| label.rect).collect();
    arrows::paint_labels(canvas.painter, labels, &overlay, canvas.palette);
    overlay.extend(label_rects);
    Drawn {
        overlay_height,
        overlay: legend_and_time,
        text: overlay,
        ink: ink.into_pieces(),
        plates,
    }
}

/// What [`draw_mechanism_and_motions`] leaves on the canvas for the labels painted after it.
struct Drawn {
    /// How far down from the canvas' top the legend and the time reach.
    overlay_height: f32,
    /// The legend's and the time's areas.
    overlay: Vec<egui::Rect>,
    /// The areas of every text painted: the legend, the time, the names, the motions' and
    /// the reactions' labels.
    text: Vec<egui::Rect>,
    /// The mechanism's and the motions' ink ([`Ink`]'s pieces).
    ink: Vec<egui::Rect>,
    /// The plates' hulls.
    plates: Vec<Vec<Pos2>>,
}

/// The canvas' right-click menu.
fn canvas_menu(
    response: &egui::Response,
    live: &Live,
    view: &ViewState,
    camera: &mut CanvasCamera,
    commands: &mut Vec<AppCommand>,
) {
    response.context_menu(|ui| {
        if ui.button("Fit view").clicked() {
            camera.refit();
            ui.close();
        }
        if ui.button("Clear trace").clicked() {
            commands.push(AppCommand::ClearTrace);
            ui.close();
        }
        // The branches can be left from here too, with the side panels hidden (projector).
        if live.session.current_event().is_some() {
            for k in 1..=live.session.branches().len() {
                let Some(direction) = leave_direction(&live.session, k, Way::Forward) else {
                    continue;
                };
                ui.horizontal(|ui| {
                    let label = format!("branch {k}");
                    ui.label(&label);
                    leave_buttons(ui, live, view.push.delta, (&label, &direction), commands);
                });
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::snap_step;

    /// The four-bar's default view: 1 m is 192 pixels, so a pixel is 5.2 mm and the target
    /// snaps to 2 cm; the coupler's centre near (1.497, 0) goes to (1.5, 0), its flat pose.
    #[test]
    fn drag_targets_snap_to_a_1_2_5_grid_of_two_pixels() {
        assert_eq!(snap_step(1.0 / 192.0), 0.02);
        assert!((snap_step(1e-3) - 2e-3).abs() < 1e-15);
        assert!((snap_step(0.3) - 1.0).abs() < 1e-15);
        let step = snap_step(1.0 / 192.0);
        assert_eq!((1.497 / step).round() * step, 1.5);
    }
}
