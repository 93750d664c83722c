//! The mechanism canvas: the planar view (orthographic, pan with a drag, zoom about the cursor
//! with the wheel, opening on the scene's view hints, double-click or F to fit the current
//! pose, grid and scale bar) or the orbit view of spatial
//! scenes, and on it the motion trace, ground symbols, bars as solid rounded shapes with
//! their names, hinges, point masses, and the admissible motions as arrows (one colour per
//! column of `T`; at an event the continued columns solid, the new ones dashed, labelled).
//!
//! Everything is painted with egui's painter (anti-aliased fills, strokes and text in one
//! pass), so Bevy's renderer only needs to host egui. This module owns the view state, the
//! plugin and the canvas's input and layout; the painting is in the submodules: `projection`
//! (world to canvas), `backdrop` (grids), `mechanism` (planar bars, point masses),
//! `spatial` (rigid bodies, their joints, shadows on the floor) over `solids` (shaded
//! triangle meshes), `arrows` (admissible motions) and `overlay` (legend and time).

mod arrows;
mod backdrop;
mod ghost;
mod joint_labels;
mod mechanism;
mod overlay;
pub use overlay::MOTION_KEYS;
mod plates;
mod projection;
pub mod reactions;
mod shapes;
mod solids;
mod spatial;

use bevy::prelude::*;
use bevy_egui::egui::{self, Color32, Pos2, Sense, Shape, Stroke, Ui};
use nalgebra::DVector;
use std::collections::BTreeSet;

use super::SingulabSystems;
use super::actions::{PushControls, leave_buttons};
use super::commands::AppCommand;
use super::config::ViewConfig;
use super::simulation::{Live, SceneLoaded, SingularityReached};
use super::theme::Palette;
use crate::lesson::Way;
use crate::lesson::choices::{leave_direction, listed_motions};
use crate::live::framing;
use crate::live::motions::Motion;
use crate::live::{OrbitCamera, PlanarView};
use crate::model::Mechanism;
use crate::solver::BasisMode;

use arrows::{MotionArrows, draw_motions};
use backdrop::{draw_floor, draw_grid};
use mechanism::draw_mechanism;
use overlay::draw_overlay_text;
use projection::Projection;
use reactions::ReactionCache;
use spatial::{Floor, RigidView};

/// A step of the interface's size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Zoom {
    In,
    Out,
    Reset,
}

/// Display choices: none of them touches the physics.
#[derive(Resource, Clone, Debug)]
pub struct ViewState {
    /// Basis whose `T`, `q`, `qd` are shown (both are always tracked).
    pub basis: BasisMode,
    /// Plot both bases at once (traditional dashed).
    pub compare_bases: bool,
    /// The canvas split in two, traditional basis on the left and continued on the right,
    /// each with its arrows and its `qd` plot underneath (the same mechanism twice: one
    /// simulation tracks both bases).
    pub side_by_side: bool,
    pub light: bool,
    pub show_motions: bool,
    /// The motions the user hid, by label ("new 1", "branch 2"): hidden in both halves of
    /// side by side and at every event until shown again.
    pub hidden_motions: BTreeSet<String>,
    /// At an event, every motion drawn (key 0), not only the chosen one (`push.motion`,
    /// keys 1 to 9): a flat pose with several motions is unreadable with all of them.
    pub all_motions: bool,
    /// The motion whose row the pointer is over in the panel: drawn as is, the others dimmed.
    pub highlighted_motion: Option<usize>,
    /// A drag on the canvas holds a body (not panning).
    pub grabbing: bool,
    /// The ghost preview of the highlighted motion's action, once computed.
    pub ghost: Option<ghost::Ghost>,
    /// Whether pointing at a motion's row shows its ghost (off while a class predicts).
    pub ghost_preview: bool,
    /// The [`Live::generation`] whose lesson's view was applied (a lesson sets the view once
    /// when it opens; then it is the user's).
    pub lesson_view_applied: Option<u64>,
    pub show_trace: bool,
    pub show_labels: bool,
    pub show_grid: bool,
    /// Each rigid body's axes from its centre of mass (spatial scenes).
    pub show_body_axes: bool,
    /// The joint reactions drawn (key J), and the self-stress mode drawn (0-based).
    pub show_reactions: bool,
    pub reaction_mode: Option<usize>,
    /// The reactions of the state shown, computed once per state.
    pub reactions: Option<ReactionCache>,
    pub planar: Option<PlanarView>,
    pub orbit: Option<OrbitCamera>,
    /// The scene the view was set up for (from its view hints) on loading.
    fitted_generation: Option<u64>,
    /// "Fit view" asked for: fit the current pose on the next frame.
    fit_requested: bool,
    /// A singular event was reached: if the pose runs off the canvas and the user has not
    /// panned or zoomed since the view was set up, fit it on the next frame.
    check_pose_visible: bool,
    /// The user panned or zoomed the planar view since it was last set up or fitted.
    moved_by_user: bool,
    /// The layout the view was set up for (side by side, presenting): turning either on or
    /// off goes back to the scene's view (a view panned or zoomed on the whole canvas may
    /// cut the mechanism off a half; presenting, the canvas changes its size and shape).
    fitted_layout: (bool, bool),
    /// How far down from the canvas' top the legend and the time reached in the last frame:
    /// "Fit view" places the mechanism below them.
    overlay_height: f32,
    /// Push controls: which motion, how much velocity, over how long.
    pub push: PushControls,
    /// The scene the motion choice was made on.
    motion_choice_generation: Option<u64>,
    /// Seconds of history visible in the plots while running.
    pub plot_window: f64,
    /// The picture of a video (`singulab record`): what a student should see, no controls,
    /// timeline, plot controls or key hints.
    pub video: bool,
    /// Presentation mode is on (set by the layout each frame): the canvas is for the class.
    pub presenting: bool,
    /// Where the canvas and its banner were on the window in the last frame, in physical
    /// pixels (x, y, width, height): what the app's Record button records.
    pub canvas_area: Option<[u32; 4]>,
    /// A video's frame: the box of every pose its run reaches, which the view fits once
    /// ([`framing::run_box`]) instead of the scene's view and the pose at each event.
    pub motion_box: Option<framing::PlaneBox>,
    /// Side panels shown (hiding them gives the mechanism the whole width on a projector).
    pub show_controls: bool,
    pub show_plots: bool,
    /// Interface scale to apply on the next frame (`--ui-scale`); egui keeps it afterwards
    /// (Ctrl + / Ctrl - / Ctrl 0 and the View menu change it).
    pub pending_ui_scale: Option<f32>,
    /// Ctrl + / Ctrl - / Ctrl 0 pressed: the interface one step larger, smaller, or 100 %.
    pub pending_zoom: Option<Zoom>,
    display_x: DVector<f64>,
}

impl Default for ViewState {
    fn default() -> Self {
        Self {
            basis: BasisMode::Continued,
            compare_bases: false,
            side_by_side: false,
            light: false,
            show_motions: false,
            hidden_motions: BTreeSet::new(),
            all_motions: false,
            highlighted_motion: None,
            grabbing: false,
            ghost: None,
            ghost_preview: true,
            lesson_view_applied: None,
            show_trace: true,
            show_labels: true,
            show_grid: true,
            show_body_axes: false,
            show_reactions: false,
            reaction_mode: None,
            reactions: None,
            planar: None,
            orbit: None,
            fitted_generation: None,
            fit_requested: false,
            check_pose_visible: false,
            moved_by_user: false,
            fitted_layout: (false, false),
            overlay_height: 0.0,
            push: PushControls::default(),
            motion_choice_generation: None,
            plot_window: 10.0,
            canvas_area: None,
            motion_box: None,
            video: false,
            presenting: false,
            show_controls: true,
            show_plots: true,
            pending_ui_scale: None,
            pending_zoom: None,
            display_x: DVector::zeros(0),
        }
    }
}

impl ViewState {
    pub fn from_args(args: &ViewConfig) -> Self {
        Self {
            basis: args.basis,
            light: args.light,
            side_by_side: args.side_by_side,
            show_reactions: args.reactions,
            reaction_mode: args.mode.map(|k| k - 1),
            pending_ui_scale: (args.ui_scale != 1.0).then_some(args.ui_scale),
            pending_zoom: None,
            video: args.video,
            show_plots: args.plots,
            ..Self::default()
        }
    }

    /// Fits the view to the mechanism's current pose on the next frame (F, double-click,
    /// the menus); a loaded scene starts from its view hints instead.
    pub fn refit(&mut self) {
        self.fit_requested = true;
    }

    /// Keeps the chosen motion one of those `listed` at an event: the first (the motion the
    /// mechanism had) on a newly opened scene, the last listed where the list is shorter
    /// than the choice (another event, another basis). Every frame, before anything reads it.
    pub fn settle_motion_choice(&mut self, generation: u64, listed: Option<usize>) {
        if self.motion_choice_generation != Some(generation) {
            self.motion_choice_generation = Some(generation);
            self.push.motion = 0;
        }
        if let Some(count) = listed {
            self.push.motion = self.push.motion.min(count.saturating_sub(1));
        }
    }

    /// Whether the user left `motion` shown (its box ticked).
    pub fn motion_shown(&self, motion: &Motion) -> bool {
        !self.hidden_motions.contains(&motion.label)
    }

    /// Whether motion `k` of a list is drawn: shown, and at an event the chosen one unless
    /// all are drawn.
    pub fn motion_drawn(&self, k: usize, motion: &Motion, at_event: bool) -> bool {
        self.motion_shown(motion) && (self.all_motions || !at_event || k == self.push.motion)
    }

    /// Hides or shows `motion`, wherever it is listed.
    pub fn set_motion_shown(&mut self, motion: &Motion, shown: bool) {
        if shown {
            self.hidden_motions.remove(&motion.label);
        } else {
            self.hidden_motions.insert(motion.label.clone());
        }
    }
}

/// Owns [`ViewState`] and the camera egui renders through; shows the motions at events.
pub struct DrawingPlugin;

impl Plugin for DrawingPlugin {
    fn build(&self, app: &mut App) {
        if !app.world().contains_resource::<ViewState>() {
            app.init_resource::<ViewState>();
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
    mut view: ResMut<ViewState>,
) {
    // The motions hidden and chosen stay the user's from one event to the next.
    for _ in reached.read() {
        view.check_pose_visible = true;
        view.show_motions = true;
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

/// The scene's initial view: its view hints, else twice the bounding box of its pose.
fn fit_planar(live: &Live) -> PlanarView {
    let scene = live.session.scene();
    let [lo, hi] = pose_box(live).unwrap_or([[0.0; 2]; 2]);
    let center = scene
        .view
        .center
        .map_or([0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1])], |c| {
            [c.0, c.1]
        });
    let width = scene
        .view
        .width
        .unwrap_or_else(|| 2.0 * (hi[0] - lo[0]).max(hi[1] - lo[1]).max(1.0));
    PlanarView { center, width }
}

/// Room (pixels) above and below the pose for the motions' arrows at an event: their
/// longest is this long (`arrows::draw_motions`). Without it a short canvas (a projector's
/// interface scale, side by side) drew them over the legend and the time.
fn arrow_room(live: &Live, size: egui::Vec2) -> f32 {
    if live.session.current_event().is_some() {
        0.16 * size.x.min(size.y)
    } else {
        0.0
    }
}

/// "Fit view": the current pose's bounding box fills the part of the canvas (`size` in
/// pixels) below the legend and the time (`top` pixels), less the arrows' room above and
/// below it, in whichever dimension it reaches first, with a margin of a tenth of that part
/// on every side (the labels need some room).
fn fit_pose(live: &Live, size: egui::Vec2, top: f32) -> PlanarView {
    match pose_box(live) {
        Some(pose) => fit_box(pose, size, top, arrow_room(live, size), WINDOW_FILL),
        None => fit_planar(live),
    }
}

/// The view in which `[lo, hi]` fills the canvas as [`fit_pose`] fills it with the pose,
/// `arrows` pixels left free above and below it, filling the fraction `fill` of the width or
/// the height it reaches first.
fn fit_box(
    [lo, hi]: framing::PlaneBox,
    size: egui::Vec2,
    top: f32,
    arrows: f32,
    fill: f64,
) -> PlanarView {
    let (w, h) = (hi[0] - lo[0], hi[1] - lo[1]);
    // The legend may fill most of a short canvas: then fit the whole canvas, under it.
    let top = if top < 0.5 * size.y { top } else { 0.0 };
    let arrows = arrows.min(0.25 * (size.y - top));
    let (canvas_w, free_h) = (
        f64::from(size.x),
        f64::from((size.y - top - 2.0 * arrows).max(1.0)),
    );
    // A single point (or a pose with no extent) still gets a sensible scale.
    let needed = w.max(h * canvas_w / free_h).max(1e-3);
    let width = needed / fill;
    // The free part's centre is `top / 2` pixels below the canvas centre.
    let below = 0.5 * f64::from(top) * width / canvas_w;
    PlanarView {
        center: [0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]) + below],
        width,
    }
}

/// Whether the current pose lies on the canvas `rect` under `planar`, below the legend
/// (`top` pixels) and clear of the edges by a tenth of the canvas' smaller side, and at an
/// event of the top and bottom by its arrows' room too.
fn pose_on_canvas(live: &Live, planar: &PlanarView, rect: egui::Rect, top: f32) -> bool {
    let Some([lo, hi]) = pose_box(live) else {
        return true;
    };
    let margin = 0.1 * f64::from(rect.width().min(rect.height()));
    let arrows = f64::from(arrow_room(live, rect.size()));
    let center = [f64::from(rect.center().x), f64::from(rect.center().y)];
    let width = f64::from(rect.width());
    let [left, upper] = planar.to_screen([lo[0], hi[1]], center, width);
    let [right, lower] = planar.to_screen([hi[0], lo[1]], center, width);
    left >= f64::from(rect.left()) + margin
        && right <= f64::from(rect.right()) - margin
        && upper >= f64::from(rect.top() + top.min(0.5 * rect.height())) + margin + arrows
        && lower <= f64::from(rect.bottom()) - margin - arrows
}

/// The bounding box (`[lo, hi]` in the plane) of the current pose ([`framing::pose_box`]).
fn pose_box(live: &Live) -> Option<[[f64; 2]; 2]> {
    framing::pose_box(
        &live.session.scene().mechanism,
        live.session.simulation().positions(),
    )
}

/// The orbit camera of a spatial scene: framing the current pose of rigid bodies, or the
/// scene's view width about the origin.
fn fit_orbit(live: &Live) -> OrbitCamera {
    let scene = live.session.scene();
    if scene.mechanism.has_rigid_bodies() {
        let palette = Palette::for_theme(false);
        return spatial::fit_camera(live, live.session.simulation().positions(), palette);
    }
    let size = scene.view.width.unwrap_or(1.0);
    let mut camera = OrbitCamera::looking_at([0.0, 0.0, 0.0], 1.6 * size);
    camera.target = [0.0, 0.0, -0.25 * size];
    camera
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
    basis: BasisMode,
    overstep: f64,
    commands: &mut Vec<AppCommand>,
) {
    let palette = Palette::for_theme(view.light);
    let (response, painter) = ui.allocate_painter(ui.available_size(), Sense::click_and_drag());
    let rect = response.rect;
    painter.rect_filled(rect, 0.0, palette.background);
    let mech = &live.session.scene().mechanism;
    let spatial = mech.is_spatial();
    if response.double_clicked() {
        view.refit();
    }
    fit_view(live, view, rect, spatial);
    if spatial || !grab(&response, live, view, commands) {
        navigate(ui, &response, live, view, spatial);
    }
    let projection = canvas_projection(live, view, rect, spatial);
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
        draw_backdrop(&canvas, live)
    } else {
        None
    };
    let trace_labels = if view.show_trace {
        draw_trace(&canvas, live)
    } else {
        Vec::new()
    };
    draw_mechanism_and_motions(&canvas, live, view, basis, overstep, scale_bar);
    // Over the bars: a label under a bar cannot be read.
    for (at, name, colour) in trace_labels {
        let font = egui::FontId::proportional(12.0);
        painter.text(at, egui::Align2::LEFT_BOTTOM, name, font, colour);
    }
    draw_spring(&canvas, live);
    view.display_x = x;
    canvas_menu(&response, live, view, commands);
}

/// Sets the view up for a new scene or a change to or from side by side or presenting, fits the pose
/// when asked, and after a singular event when the pose ran off the canvas.
fn fit_view(live: &Live, view: &mut ViewState, rect: egui::Rect, spatial: bool) {
    if let Some(motion) = view.motion_box {
        fit_video(live, view, motion, rect);
        return;
    }
    let layout = (view.side_by_side, view.presenting);
    if view.fitted_generation != Some(live.generation) {
        view.planar = Some(fit_planar(live));
        view.orbit = Some(fit_orbit(live));
        view.fitted_generation = Some(live.generation);
        view.fitted_layout = layout;
        view.moved_by_user = false;
    } else if view.fitted_layout != layout {
        view.planar = Some(fit_planar(live));
        view.orbit = Some(fit_orbit(live));
        view.fitted_layout = layout;
        view.moved_by_user = false;
    } else if std::mem::take(&mut view.fit_requested) {
        // The orbit camera of a spatial scene goes back to its start: the pendulum swings
        // about its pivot, which that view centres.
        view.planar = Some(fit_pose(live, rect.size(), view.overlay_height));
        view.orbit = Some(fit_orbit(live));
        view.moved_by_user = false;
    } else if std::mem::take(&mut view.check_pose_visible)
        && !spatial
        && !view.moved_by_user
        && view
            .planar
            .is_some_and(|planar| !pose_on_canvas(live, &planar, rect, view.overlay_height))
    {
        // The motions at a singular event are drawn on the whole pose: the 2x2's stacked
        // stage leans past its view hint's right edge at its first event.
        view.planar = Some(fit_pose(live, rect.size(), view.overlay_height));
    }
}

/// A video's view, on every frame: the box of its whole motion fitted below room for the
/// time and an event's legend (a fifth of the canvas) and with some room for the arrows of
/// a pose at its edge (the arrows reach a sixth of the canvas), the same
/// for the whole video while the canvas keeps its size (the window's first frames have
/// another).
fn fit_video(live: &Live, view: &mut ViewState, motion: framing::PlaneBox, rect: egui::Rect) {
    if view.fitted_generation != Some(live.generation) {
        view.orbit = Some(fit_orbit(live));
        view.fitted_generation = Some(live.generation);
    }
    let size = rect.size();
    let arrows = 0.08 * size.x.min(size.y);
    view.planar = Some(fit_box(motion, size, 0.2 * size.y, arrows, VIDEO_FILL));
}

/// The fraction of the canvas a fitted pose fills in the window: a tenth of it free on each
/// side, for the labels and for the pose to move in before the view refits.
const WINDOW_FILL: f64 = 0.8;
/// The fraction of the canvas a video's whole motion fills: it never leaves that box, so
/// only its names and its arrows at the edge need the margin.
const VIDEO_FILL: f64 = 0.88;

/// How close (pixels) to a body the pointer must press for a drag to grab it rather than pan.
const GRAB_RADIUS: f64 = 12.0;

/// A drag that starts on a body of a planar scene grabs it: paused, the mechanism follows the
/// pointer along its constraints; running, a spring pulls the point to the pointer. Returns
/// whether the gesture is a grab (else the drag pans).
fn grab(
    response: &egui::Response,
    live: &Live,
    view: &mut ViewState,
    commands: &mut Vec<AppCommand>,
) -> bool {
    let Some(planar) = view.planar else {
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
fn navigate(ui: &Ui, response: &egui::Response, live: &Live, view: &mut ViewState, spatial: bool) {
    let rect = response.rect;
    let width = f64::from(rect.width());
    let center = [f64::from(rect.center().x), f64::from(rect.center().y)];
    let (scroll, pinch) = ui
        .ctx()
        .input(|i| (i.smooth_scroll_delta.y, i.zoom_delta()));
    let zoom = f64::from(pinch) * (f64::from(scroll) * 0.0025).exp();
    if spatial {
        let camera = view.orbit.get_or_insert_with(|| fit_orbit(live));
        let shift = ui.ctx().input(|i| i.modifiers.shift);
        if response.dragged_by(egui::PointerButton::Middle)
            || (shift && response.dragged_by(egui::PointerButton::Primary))
        {
            spatial::pan_camera(camera, response.drag_delta(), rect.height());
        } else if response.dragged() {
            let d = response.drag_delta();
            camera.orbit(-f64::from(d.x) * 0.01, f64::from(d.y) * 0.01);
        }
        if response.hovered() && zoom != 1.0 {
            camera.zoom(zoom);
        }
    } else {
        let planar = view.planar.get_or_insert_with(|| fit_planar(live));
        if response.dragged() {
            let d = response.drag_delta();
            planar.pan([f64::from(d.x), f64::from(d.y)], width);
            view.moved_by_user = true;
        }
        if response.hovered()
            && zoom != 1.0
            && let Some(cursor) = response.hover_pos()
        {
            view.moved_by_user = true;
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
fn canvas_projection(live: &Live, view: &ViewState, rect: egui::Rect, spatial: bool) -> Projection {
    if spatial {
        Projection::Orbit {
            camera: view.orbit.unwrap_or_else(|| fit_orbit(live)),
            center: rect.center(),
            half_height: 0.5 * f64::from(rect.height()),
        }
    } else {
        Projection::Planar {
            view: view.planar.unwrap_or_else(|| fit_planar(live)),
            center: [f64::from(rect.center().x), f64::from(rect.center().y)],
            width: f64::from(rect.width()),
        }
    }
}

/// The grid of the planar view, returning its scale bar's area, or the floor of the
/// spatial one.
fn draw_backdrop(canvas: &Canvas, live: &Live) -> Option<egui::Rect> {
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
        } => Some(draw_grid(
            canvas.painter,
            canvas.rect,
            view,
            *center,
            *width,
            canvas.palette,
        )),
    }
}

/// The paths of the traced point and of the rigid bodies' traced points; when there are
/// several, the label of each (where, what, its colour) to paint over the mechanism.
fn draw_trace(canvas: &Canvas, live: &Live) -> Vec<(Pos2, String, Color32)> {
    let paths: Vec<Vec<Pos2>> = live
        .session
        .shown_traces()
        .map(|path| {
            path.filter_map(|p| canvas.projection.to_screen(*p))
                .collect()
        })
        .collect();
    // Several traces are told apart by a label; one needs none (the Scene panel names it).
    let several = paths.iter().filter(|path| path.len() > 1).count() > 1;
    let mut labels = Vec::new();
    for (k, points) in paths.into_iter().enumerate() {
        if points.len() > 1 {
            let colour = canvas.palette.trace_colour(k).gamma_multiply(0.8);
            let end = points[points.len() - 1];
            canvas
                .painter
                .add(Shape::line(points, Stroke::new(1.5, colour)));
            // Each trace says which point it follows, at its newest end, in its colour.
            if let Some(name) = trace_name(live, k).filter(|_| several) {
                labels.push((end + egui::vec2(6.0, -6.0), name, colour));
            }
        }
    }
    labels
}

/// The point trace `k` follows (0: the trace chosen in the Scene panel, then the scene's
/// traced points): the body's name and which of its points.
fn trace_name(live: &Live, k: usize) -> Option<String> {
    let session = &live.session;
    let bodies = session.scene().mechanism.bodies();
    if k == 0 {
        let point = session.trace_point()?;
        let which = match point.along {
            0.5 => "centre".to_owned(),
            0.0 => "start".to_owned(),
            1.0 => "end".to_owned(),
            along => format!("at {along:.2}"),
        };
        return Some(format!("{} {which}", bodies.get(point.body)?.name));
    }
    let trace = session.point_traces().get(k - 1)?;
    // The names the Scene panel gives the points: the centre, and the look's named points.
    let named = session
        .scene()
        .looks
        .iter()
        .filter(|look| look.body == trace.body)
        .flat_map(|look| look.points.iter())
        .find(|&(_, p)| *p == trace.local)
        .map(|(name, _)| name.clone());
    let which = match named {
        _ if trace.local.norm() == 0.0 => "centre".to_owned(),
        Some(name) => name,
        None => {
            let p = trace.local;
            format!("({:.2}, {:.2}, {:.2})", p.x, p.y, p.z)
        }
    };
    Some(format!("{} {which}", bodies.get(trace.body)?.name))
}

/// The mechanism, the legend and the time, the names, the motions' arrows, then their labels
/// on top; the names keep off the arrows where they can, the labels off the legend, the
/// names and the scale bar.
fn draw_mechanism_and_motions(
    canvas: &Canvas,
    live: &Live,
    view: &mut ViewState,
    basis: BasisMode,
    overstep: f64,
    scale_bar: Option<egui::Rect>,
) {
    let shown = shown_motions(live, view, basis);
    // This canvas shows the basis the panel lists: pointing at a row there dims the others
    // and shows its ghost here.
    let listed_half = !view.side_by_side || basis == view.basis;
    let at_event = live.session.current_event().is_some();
    let arrows = MotionArrows::lay_out(canvas, &shown, view, at_event);
    let names = match canvas.rigid {
        Some(rigid) => rigid.draw(canvas, live, view.show_labels, view.show_body_axes),
        None => draw_mechanism(canvas, view.show_labels, &arrows.footprint()),
    };
    let legend = if view.show_reactions {
        reactions::update_reactions(view, live);
        reactions::draw_reactions(canvas, view)
    } else {
        None
    };
    let t_shown = live.session.display_time(overstep);
    let mut overlay = draw_overlay_text(canvas, t_shown, live, view, basis, &shown);
    // Fit keeps the mechanism below the legend and the time (not below the names, which
    // follow the mechanism).
    view.overlay_height = overlay
        .iter()
        .map(|r| r.bottom() - canvas.rect.top())
        .fold(0.0, f32::max);
    // A name under the time or the legend (a loop folded up into the corner) is left out
    // rather than written over them.
    let names: Vec<_> = names
        .into_iter()
        .filter(|name| !overlay.iter().any(|r| r.intersects(name.area())))
        .collect();
    // The motions' labels keep off the body names and the scale bar too.
    overlay.extend(names.iter().map(|name| name.area()));
    overlay.extend(scale_bar);
    overlay.extend(legend);
    if listed_half && canvas.rigid.is_none() {
        ghost::draw_ghost(canvas, &live.session, &shown, view);
    }
    // The arrows over the names: a name that found no place clear of them (a folded loop)
    // may be crossed by a shaft, but hides no arrow.
    mechanism::paint_names(canvas.painter, names, canvas.palette);
    let labels = draw_motions(canvas, &shown, arrows, view, &overlay, listed_half);
    arrows::paint_labels(canvas.painter, labels, canvas.palette);
}

/// The canvas' right-click menu.
fn canvas_menu(
    response: &egui::Response,
    live: &Live,
    view: &mut ViewState,
    commands: &mut Vec<AppCommand>,
) {
    response.context_menu(|ui| {
        if ui.button("Fit view").clicked() {
            view.refit();
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
                    ui.label(format!("branch {k}"));
                    leave_buttons(ui, live, view.push.delta, &direction, commands);
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
