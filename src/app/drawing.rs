//! The mechanism canvas: the planar view (orthographic, pan with a drag, zoom about the cursor
//! with the wheel, double-click to re-fit, grid and scale bar) or the orbit view of spatial
//! scenes, and on it the motion trace, ground symbols, bars as solid rounded shapes with
//! their names, hinges, point masses, and the admissible motions as arrows (one colour per
//! column of `T`; at an event the continued columns solid, the new ones dashed, labelled).
//!
//! Everything is painted with egui's painter (anti-aliased fills, strokes and text in one
//! pass), so Bevy's renderer only needs to host egui.

use bevy::prelude::*;
use bevy_egui::egui::{self, Align2, Color32, FontId, Pos2, Sense, Shape, Stroke, Ui, pos2, vec2};
use nalgebra::DVector;

use super::SingulabSet;
use super::commands::AppCommand;
use super::simulation::{Live, SceneLoaded, SingularityReached};
use super::theme::Palette;
use crate::cli::args::ViewArgs;
use crate::live::motions::{self, Motion, MotionRole};
use crate::live::{OrbitCamera, PlanarView};
use crate::model::{BodyKind, JointKind, Mechanism};
use crate::solver::BasisMode;

/// Display choices: none of them touches the physics.
#[derive(Resource, Clone, Debug)]
pub struct ViewState {
    /// Basis whose `T`, `q`, `qd` are shown (both are always tracked).
    pub basis: BasisMode,
    /// Plot both bases at once (traditional dashed).
    pub compare_bases: bool,
    pub light: bool,
    pub show_motions: bool,
    pub hidden_motions: Vec<bool>,
    pub show_trace: bool,
    pub show_labels: bool,
    pub show_grid: bool,
    pub planar: Option<PlanarView>,
    pub orbit: Option<OrbitCamera>,
    fitted_generation: Option<u64>,
    /// Push controls: which motion, how much velocity, over how long.
    pub push_motion: usize,
    pub push_delta: f64,
    pub push_duration: f64,
    /// Seconds of history visible in the plots while running.
    pub plot_window: f64,
    display_x: DVector<f64>,
}

impl Default for ViewState {
    fn default() -> Self {
        Self {
            basis: BasisMode::Continued,
            compare_bases: false,
            light: false,
            show_motions: false,
            hidden_motions: Vec::new(),
            show_trace: true,
            show_labels: true,
            show_grid: true,
            planar: None,
            orbit: None,
            fitted_generation: None,
            push_motion: 0,
            push_delta: 1.0,
            push_duration: 0.05,
            plot_window: 10.0,
            display_x: DVector::zeros(0),
        }
    }
}

impl ViewState {
    pub fn from_args(args: &ViewArgs) -> Self {
        Self {
            basis: args.basis,
            light: args.light,
            ..Self::default()
        }
    }

    pub fn refit(&mut self) {
        self.fitted_generation = None;
    }

    pub fn motion_visible(&self, index: usize) -> bool {
        !self.hidden_motions.get(index).copied().unwrap_or(false)
    }
}

/// Owns [`ViewState`] and the camera egui renders through; shows the motions at events.
pub struct DrawingPlugin;

impl Plugin for DrawingPlugin {
    fn build(&self, app: &mut App) {
        if !app.world().contains_resource::<ViewState>() {
            app.init_resource::<ViewState>();
        }
        app.add_systems(Startup, spawn_camera)
            .add_systems(Update, follow_session_messages.in_set(SingulabSet::Output));
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
    for _ in reached.read() {
        view.show_motions = true;
        view.hidden_motions.clear();
        view.push_motion = 0;
    }
    for _ in loaded.read() {
        view.refit();
        view.hidden_motions.clear();
    }
}

/// The motions to draw now: at an event its admissible motions in the displayed basis
/// (continued and new columns, or the traditional QR's), otherwise the displayed basis'
/// columns when the user turned them on.
pub fn shown_motions(live: &Live, view: &ViewState) -> Vec<Motion> {
    let session = &live.session;
    if let Some(event) = session.current_event() {
        return motions::event_motions(event, view.basis);
    }
    if view.show_motions {
        return motions::basis_motions(session.simulation().basis(view.basis), view.basis);
    }
    Vec::new()
}

/// Maps world points to the canvas.
enum Projection {
    Planar {
        view: PlanarView,
        center: [f64; 2],
        width: f64,
    },
    Orbit {
        camera: OrbitCamera,
        center: Pos2,
        half_height: f64,
    },
}

impl Projection {
    fn to_screen(&self, p: [f64; 3]) -> Option<Pos2> {
        match self {
            Projection::Planar {
                view,
                center,
                width,
            } => {
                let q = view.to_screen([p[0], p[1]], *center, *width);
                Some(pos2(q[0] as f32, q[1] as f32))
            }
            Projection::Orbit {
                camera,
                center,
                half_height,
            } => camera.project(p).map(|q| {
                pos2(
                    center.x + (q.x * half_height) as f32,
                    center.y - (q.y * half_height) as f32,
                )
            }),
        }
    }

    /// Pixels per metre at a world point.
    fn scale_at(&self, p: [f64; 3]) -> f64 {
        match self {
            Projection::Planar { view, width, .. } => view.scale(*width),
            Projection::Orbit {
                camera,
                half_height,
                ..
            } => camera.project(p).map_or(0.0, |q| {
                half_height / (0.5 * camera.fov_y).tan() / q.depth.max(1e-9)
            }),
        }
    }
}

/// A reasonable view of the scene: its view hints, else the bounding box of its bodies.
fn fit_planar(live: &Live) -> PlanarView {
    let scene = live.session.scene();
    let x = live.session.simulation().positions();
    let mech = &scene.mechanism;
    let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
    for body in mech.bodies() {
        let half = match body.kind {
            BodyKind::Bar { length } => 0.5 * length,
            _ => 0.0,
        };
        let o = body.offset;
        for k in 0..2 {
            lo[k] = lo[k].min(x[o + k] - half);
            hi[k] = hi[k].max(x[o + k] + half);
        }
    }
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

fn fit_orbit(live: &Live) -> OrbitCamera {
    let scene = live.session.scene();
    let size = scene.view.width.unwrap_or(1.0);
    let mut camera = OrbitCamera::looking_at([0.0, 0.0, 0.0], 1.6 * size);
    camera.target = [0.0, 0.0, -0.25 * size];
    camera
}

/// Paints the canvas in the remaining space of `ui` and handles its pan/zoom/orbit input.
pub fn draw_canvas(
    ui: &mut Ui,
    live: &Live,
    view: &mut ViewState,
    overstep: f64,
    commands: &mut Vec<AppCommand>,
) {
    let palette = Palette::for_theme(view.light);
    let (response, painter) = ui.allocate_painter(ui.available_size(), Sense::click_and_drag());
    let rect = response.rect;
    painter.rect_filled(rect, 0.0, palette.background);
    let session = &live.session;
    let mech = session.scene().mechanism.clone();
    let spatial = mech.is_spatial();

    if view.fitted_generation != Some(live.generation) {
        view.planar = Some(fit_planar(live));
        view.orbit = Some(fit_orbit(live));
        view.fitted_generation = Some(live.generation);
    }
    if response.double_clicked() {
        view.refit();
    }
    let width = f64::from(rect.width());
    let center = [f64::from(rect.center().x), f64::from(rect.center().y)];
    let (scroll, pinch) = ui
        .ctx()
        .input(|i| (i.smooth_scroll_delta.y, i.zoom_delta()));
    let zoom = f64::from(pinch) * (f64::from(scroll) * 0.0025).exp();
    if spatial {
        let camera = view.orbit.get_or_insert_with(|| fit_orbit(live));
        if response.dragged() {
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
        }
        if response.hovered()
            && zoom != 1.0
            && let Some(cursor) = response.hover_pos()
        {
            planar.zoom_about(
                zoom,
                [f64::from(cursor.x), f64::from(cursor.y)],
                center,
                width,
            );
        }
    }
    let projection = if spatial {
        Projection::Orbit {
            camera: view.orbit.unwrap_or_else(|| fit_orbit(live)),
            center: rect.center(),
            half_height: 0.5 * f64::from(rect.height()),
        }
    } else {
        Projection::Planar {
            view: view.planar.unwrap_or_else(|| fit_planar(live)),
            center,
            width,
        }
    };
    let painter = painter.with_clip_rect(rect);

    if view.show_grid {
        if spatial {
            draw_floor(&painter, &projection, live, palette);
        } else if let Projection::Planar { view: pv, .. } = &projection {
            draw_grid(&painter, rect, pv, center, width, palette);
        }
    }

    let mut x = std::mem::take(&mut view.display_x);
    session.display_positions(overstep, &mut x);

    if view.show_trace {
        let points: Vec<Pos2> = session
            .trace()
            .iter()
            .filter_map(|p| projection.to_screen(*p))
            .collect();
        if points.len() > 1 {
            painter.add(Shape::line(
                points,
                Stroke::new(1.5, palette.trace.gamma_multiply(0.8)),
            ));
        }
    }

    draw_mechanism(&painter, &projection, &mech, &x, view.show_labels, palette);

    let shown = shown_motions(live, view);
    if view.hidden_motions.len() < shown.len() {
        view.hidden_motions.resize(shown.len(), false);
    }
    draw_motions(
        &painter,
        &projection,
        &mech,
        &x,
        &shown,
        view,
        rect,
        palette,
    );
    view.display_x = x;

    let t_shown = session.display_time(overstep);
    draw_overlay_text(&painter, rect, t_shown, live, view, &shown, palette);
    response.context_menu(|ui| {
        if ui.button("Fit view").clicked() {
            view.refit();
            ui.close();
        }
        if ui.button("Clear trace").clicked() {
            commands.push(AppCommand::ClearTrace);
            ui.close();
        }
    });
}

fn draw_grid(
    painter: &egui::Painter,
    rect: egui::Rect,
    view: &PlanarView,
    center: [f64; 2],
    width: f64,
    palette: &Palette,
) {
    let step = view.grid_step(width, 70.0);
    let lo = view.to_world(
        [f64::from(rect.left()), f64::from(rect.bottom())],
        center,
        width,
    );
    let hi = view.to_world(
        [f64::from(rect.right()), f64::from(rect.top())],
        center,
        width,
    );
    let grid = Stroke::new(1.0, palette.grid);
    let axis = Stroke::new(1.5, palette.axis);
    let mut k = (lo[0] / step).floor() as i64;
    while (k as f64) * step <= hi[0] && k < (lo[0] / step).floor() as i64 + 500 {
        let wx = k as f64 * step;
        let sx = view.to_screen([wx, 0.0], center, width)[0] as f32;
        painter.line_segment(
            [pos2(sx, rect.top()), pos2(sx, rect.bottom())],
            if k == 0 { axis } else { grid },
        );
        k += 1;
    }
    let mut k = (lo[1] / step).floor() as i64;
    while (k as f64) * step <= hi[1] && k < (lo[1] / step).floor() as i64 + 500 {
        let wy = k as f64 * step;
        let sy = view.to_screen([0.0, wy], center, width)[1] as f32;
        painter.line_segment(
            [pos2(rect.left(), sy), pos2(rect.right(), sy)],
            if k == 0 { axis } else { grid },
        );
        k += 1;
    }
    // Scale bar, bottom left.
    let px = (step * view.scale(width)) as f32;
    let a = pos2(rect.left() + 16.0, rect.bottom() - 18.0);
    let b = a + vec2(px, 0.0);
    let s = Stroke::new(2.0, palette.text);
    painter.line_segment([a, b], s);
    painter.line_segment([a - vec2(0.0, 5.0), a + vec2(0.0, 5.0)], s);
    painter.line_segment([b - vec2(0.0, 5.0), b + vec2(0.0, 5.0)], s);
    painter.text(
        a + vec2(0.5 * px, -8.0),
        Align2::CENTER_BOTTOM,
        format_length(step),
        FontId::proportional(13.0),
        palette.text,
    );
}

fn format_length(metres: f64) -> String {
    if metres >= 1.0 {
        format!("{metres} m")
    } else if metres >= 0.01 {
        format!("{} cm", (metres * 100.0 * 1e6).round() / 1e6)
    } else {
        format!("{} mm", (metres * 1000.0 * 1e6).round() / 1e6)
    }
}

fn draw_floor(painter: &egui::Painter, projection: &Projection, live: &Live, palette: &Palette) {
    let size = live.session.scene().view.width.unwrap_or(1.0);
    let half = 0.5 * size;
    let z = -0.5 * size;
    let n = 8;
    let grid = Stroke::new(1.0, palette.grid);
    for i in 0..=n {
        let s = -half + size * i as f64 / n as f64;
        for (a, b) in [([s, -half, z], [s, half, z]), ([-half, s, z], [half, s, z])] {
            if let (Some(p), Some(q)) = (projection.to_screen(a), projection.to_screen(b)) {
                painter.line_segment([p, q], grid);
            }
        }
    }
    // Axes from the origin: x, y, z.
    let o = projection.to_screen([0.0, 0.0, 0.0]);
    let axes = [
        ([0.3 * size, 0.0, 0.0], "x", palette.motions[5]),
        ([0.0, 0.3 * size, 0.0], "y", palette.motions[2]),
        ([0.0, 0.0, 0.3 * size], "z", palette.motions[3]),
    ];
    for (tip, name, color) in axes {
        if let (Some(o), Some(t)) = (o, projection.to_screen(tip)) {
            painter.line_segment([o, t], Stroke::new(1.5, color.gamma_multiply(0.7)));
            painter.text(
                t,
                Align2::LEFT_BOTTOM,
                name,
                FontId::proportional(13.0),
                color,
            );
        }
    }
}

/// A bar as a convex "stadium": two half discs joined by straight sides.
fn stadium(a: Pos2, b: Pos2, radius: f32) -> Vec<Pos2> {
    let d = b - a;
    let angle = d.y.atan2(d.x);
    let segments = 10;
    let mut points = Vec::with_capacity(2 * segments + 2);
    for (end, start_angle) in [
        (b, angle - 0.5 * std::f32::consts::PI),
        (a, angle + 0.5 * std::f32::consts::PI),
    ] {
        for k in 0..=segments {
            let t = start_angle + std::f32::consts::PI * k as f32 / segments as f32;
            points.push(end + radius * vec2(t.cos(), t.sin()));
        }
    }
    points
}

fn ground_symbol(painter: &egui::Painter, p: Pos2, size: f32, palette: &Palette) {
    let stroke = Stroke::new(1.5, palette.ground);
    let base_y = p.y + size;
    let left = pos2(p.x - 0.8 * size, base_y);
    let right = pos2(p.x + 0.8 * size, base_y);
    painter.add(Shape::convex_polygon(
        vec![p, right, left],
        palette.ground.gamma_multiply(0.25),
        stroke,
    ));
    let wide = 1.2 * size;
    painter.line_segment([pos2(p.x - wide, base_y), pos2(p.x + wide, base_y)], stroke);
    let hatch = 6;
    for k in 0..=hatch {
        let x = p.x - wide + 2.0 * wide * k as f32 / hatch as f32;
        painter.line_segment(
            [pos2(x, base_y), pos2(x - 0.45 * size, base_y + 0.45 * size)],
            stroke,
        );
    }
}

fn body_point(
    mech: &Mechanism,
    x: &DVector<f64>,
    body: usize,
    local: &nalgebra::Vector2<f64>,
) -> [f64; 3] {
    let b = &mech.bodies()[body];
    match b.kind {
        BodyKind::Point3 => [x[b.offset], x[b.offset + 1], x[b.offset + 2]],
        _ => {
            let p = mech.planar_point(body, local, x);
            [p.x, p.y, 0.0]
        }
    }
}

fn draw_mechanism(
    painter: &egui::Painter,
    projection: &Projection,
    mech: &Mechanism,
    x: &DVector<f64>,
    labels: bool,
    palette: &Palette,
) {
    // Bar thickness from the typical bar length, never thinner than 7 px.
    let lengths: Vec<f64> = mech
        .bodies()
        .iter()
        .filter_map(|b| match b.kind {
            BodyKind::Bar { length } => Some(length),
            _ => None,
        })
        .collect();
    let typical = if lengths.is_empty() {
        0.0
    } else {
        lengths.iter().sum::<f64>() / lengths.len() as f64
    };
    let thickness_at = |p: [f64; 3]| ((0.08 * typical * projection.scale_at(p)) as f32).max(7.0);

    // Massless links of distance constraints and ground symbols first, under the bodies.
    for joint in mech.joints() {
        match &joint.kind {
            JointKind::Distance { body, anchor, .. } => {
                let b = &mech.bodies()[*body];
                let anchor = match b.kind {
                    BodyKind::Point3 => *anchor,
                    _ => [anchor[0], anchor[1], 0.0],
                };
                let tip = body_point(mech, x, *body, &nalgebra::Vector2::zeros());
                if let (Some(p), Some(q)) =
                    (projection.to_screen(anchor), projection.to_screen(tip))
                {
                    painter.line_segment([p, q], Stroke::new(2.0, palette.link));
                    ground_symbol(painter, p, 12.0, palette);
                }
            }
            JointKind::Pin { ground, .. } => {
                if let Some(p) = projection.to_screen([ground.x, ground.y, 0.0]) {
                    ground_symbol(painter, p, 14.0, palette);
                }
            }
            JointKind::Revolute { .. } => {}
        }
    }

    for (index, body) in mech.bodies().iter().enumerate() {
        let o = body.offset;
        match body.kind {
            BodyKind::Bar { length } => {
                let (s, c) = x[o + 2].sin_cos();
                let half = 0.5 * length;
                let a = [x[o] - c * half, x[o + 1] - s * half, 0.0];
                let b = [x[o] + c * half, x[o + 1] + s * half, 0.0];
                let (Some(pa), Some(pb)) = (projection.to_screen(a), projection.to_screen(b))
                else {
                    continue;
                };
                let radius = 0.5 * thickness_at(a);
                painter.add(Shape::convex_polygon(
                    stadium(pa, pb, radius),
                    palette.bar_fill,
                    Stroke::new(1.5, palette.bar_edge),
                ));
                if labels {
                    let mid = pa + 0.5 * (pb - pa);
                    let d = (pb - pa).normalized();
                    let normal = vec2(-d.y, d.x);
                    // Alternate sides by body so bars lying on each other (flat poses) keep
                    // readable names.
                    let up = if normal.y > 0.0 { -1.0 } else { 1.0 };
                    let side = if index % 2 == 0 { up } else { -up };
                    painter.text(
                        mid + side * (radius + 10.0) * normal,
                        Align2::CENTER_CENTER,
                        &body.name,
                        FontId::proportional(14.0),
                        palette.text,
                    );
                }
            }
            BodyKind::Point2 | BodyKind::Point3 => {
                let p = body_point(mech, x, index, &nalgebra::Vector2::zeros());
                if let Some(q) = projection.to_screen(p) {
                    let r = match projection {
                        Projection::Planar { .. } => 10.0,
                        Projection::Orbit { .. } => {
                            (0.012 * projection.scale_at(p)).clamp(4.0, 30.0) as f32
                        }
                    };
                    painter.circle(q, r, palette.bar_fill, Stroke::new(1.5, palette.bar_edge));
                    if labels {
                        painter.text(
                            q + vec2(r + 6.0, -r - 4.0),
                            Align2::LEFT_BOTTOM,
                            &body.name,
                            FontId::proportional(14.0),
                            palette.text,
                        );
                    }
                }
            }
        }
    }

    // Hinges on top of the bars.
    for joint in mech.joints() {
        let (body, point) = match &joint.kind {
            JointKind::Revolute { a, point_a, .. } => (*a, *point_a),
            JointKind::Pin { body, point, .. } => (*body, *point),
            JointKind::Distance { .. } => continue,
        };
        let p = body_point(mech, x, body, &point);
        if let Some(q) = projection.to_screen(p) {
            let r = 0.32 * thickness_at(p);
            painter.circle(
                q,
                r.max(3.5),
                palette.hinge_fill,
                Stroke::new(1.8, palette.hinge_edge),
            );
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn draw_motions(
    painter: &egui::Painter,
    projection: &Projection,
    mech: &Mechanism,
    x: &DVector<f64>,
    shown: &[Motion],
    view: &ViewState,
    rect: egui::Rect,
    palette: &Palette,
) {
    // The longest arrow of each motion gets this many pixels: columns of T are unit
    // vectors, only their shape on the mechanism matters.
    let target = 0.16 * rect.width().min(rect.height());
    let mut placed_labels: Vec<egui::Rect> = Vec::with_capacity(shown.len());
    for (k, motion) in shown.iter().enumerate() {
        if !view.motion_visible(k) {
            continue;
        }
        let color = palette.motion(k);
        let arrows = motions::arrows(mech, x, &motion.column);
        // Screen length of each arrow per unit of velocity, measured by projecting its tip.
        let probe = 1e-3;
        let mut longest = 0.0f32;
        let mut screen = Vec::with_capacity(arrows.len());
        for arrow in &arrows {
            let o = arrow.origin;
            let tip = [
                o[0] + probe * arrow.velocity[0],
                o[1] + probe * arrow.velocity[1],
                o[2] + probe * arrow.velocity[2],
            ];
            if let (Some(p), Some(q)) = (projection.to_screen(o), projection.to_screen(tip)) {
                let v = (q - p) / probe as f32;
                longest = longest.max(v.length());
                screen.push((p, v));
            }
        }
        if longest <= 1e-9 {
            continue;
        }
        let dashed = motion.role == MotionRole::New;
        let stroke = Stroke::new(3.0, color);
        let mut label_spots: Vec<(f32, Pos2)> = Vec::with_capacity(screen.len());
        for (p, v) in screen {
            let v = v * (target / longest);
            if v.length() < 4.0 {
                continue;
            }
            let tip = p + v;
            if dashed {
                painter.extend(Shape::dashed_line(&[p, tip - 0.1 * v], stroke, 7.0, 5.0));
                arrow_head(painter, tip, v, color);
            } else {
                painter.line_segment([p, tip - 0.1 * v], stroke);
                arrow_head(painter, tip, v, color);
            }
            label_spots.push((v.length(), tip + 0.08 * v));
        }
        let text = match motion.role {
            MotionRole::New => format!("{} (new)", motion.label),
            _ => motion.label.clone(),
        };
        let galley = painter.layout_no_wrap(text, FontId::proportional(15.0), color);
        if let Some(r) = place_label(&label_spots, galley.size() + vec2(6.0, 6.0), &placed_labels) {
            painter.rect_filled(r, 3.0, palette.background.gamma_multiply(0.85));
            painter.galley(r.min + vec2(3.0, 3.0), galley, color);
            placed_labels.push(r);
        }
    }
}

/// Where a motion's label goes: beyond the tip of one of its longest arrows (`spots` holds
/// each arrow's screen length and the point just past its tip), preferring a spot whose
/// label does not cover one already placed; if every long arrow's spot is taken, the best
/// spot moved up in steps of the label's height until it is free. Several motions at a
/// singular configuration often have their longest arrows at the same hinge.
fn place_label(
    spots: &[(f32, Pos2)],
    size: egui::Vec2,
    placed: &[egui::Rect],
) -> Option<egui::Rect> {
    // Arrows at least this fraction of the longest one are good places for the label.
    const LONG_ENOUGH: f32 = 0.6;
    let longest = spots
        .iter()
        .map(|(length, _)| *length)
        .fold(0.0f32, f32::max);
    if longest <= 0.0 {
        return None;
    }
    let free = |r: &egui::Rect| placed.iter().all(|other| !other.intersects(*r));
    let mut candidates: Vec<&(f32, Pos2)> = spots
        .iter()
        .filter(|(length, _)| *length >= LONG_ENOUGH * longest)
        .collect();
    candidates.sort_by(|a, b| b.0.total_cmp(&a.0));
    for (_, at) in &candidates {
        let r = egui::Rect::from_center_size(*at, size);
        if free(&r) {
            return Some(r);
        }
    }
    let mut r = egui::Rect::from_center_size(candidates[0].1, size);
    for _ in 0..placed.len() + 1 {
        if free(&r) {
            break;
        }
        r = r.translate(vec2(0.0, -size.y));
    }
    Some(r)
}

fn arrow_head(painter: &egui::Painter, tip: Pos2, v: egui::Vec2, color: Color32) {
    let d = v.normalized();
    let n = vec2(-d.y, d.x);
    let size = 11.0;
    painter.add(Shape::convex_polygon(
        vec![
            tip,
            tip - size * d + 0.5 * size * n,
            tip - size * d - 0.5 * size * n,
        ],
        color,
        Stroke::NONE,
    ));
}

fn draw_overlay_text(
    painter: &egui::Painter,
    rect: egui::Rect,
    t: f64,
    live: &Live,
    view: &ViewState,
    shown: &[Motion],
    palette: &Palette,
) {
    // Legend of the motions, top left.
    if !shown.is_empty() {
        let mut y = rect.top() + 12.0;
        let at_event = live.session.current_event().is_some();
        let title = if at_event {
            format!(
                "Admissible motions at the singular configuration ({} QR)",
                basis_name(view.basis)
            )
        } else {
            format!("Columns of T ({} QR)", basis_name(view.basis))
        };
        painter.text(
            pos2(rect.left() + 12.0, y),
            Align2::LEFT_TOP,
            title,
            FontId::proportional(14.0),
            palette.text,
        );
        y += 20.0;
        for (k, motion) in shown.iter().enumerate() {
            let color = palette.motion(k);
            let role = match motion.role {
                MotionRole::Continued => "continues the motion before",
                MotionRole::New => "new at the singularity (dashed)",
                MotionRole::Basis(BasisMode::Traditional) if at_event => {
                    "column of Q as the QR returns it"
                }
                MotionRole::Basis(_) => "",
            };
            let alpha = if view.motion_visible(k) { 1.0 } else { 0.35 };
            let sw = egui::Rect::from_min_size(pos2(rect.left() + 14.0, y + 3.0), vec2(18.0, 10.0));
            painter.rect_filled(sw, 2.0, color.gamma_multiply(alpha));
            painter.text(
                pos2(rect.left() + 40.0, y),
                Align2::LEFT_TOP,
                format!("{}  {role}", motion.label),
                FontId::proportional(14.0),
                palette.text.gamma_multiply(alpha),
            );
            y += 19.0;
        }
        painter.text(
            pos2(rect.left() + 12.0, y + 2.0),
            Align2::LEFT_TOP,
            "arrows: velocity of bar ends and centres, longest arrow of each motion same length",
            FontId::proportional(12.0),
            palette.text.gamma_multiply(0.6),
        );
    }

    // Simulated time of the drawn (interpolated) state, top right, large enough for a
    // projector.
    painter.text(
        pos2(rect.right() - 14.0, rect.top() + 10.0),
        Align2::RIGHT_TOP,
        format!("t = {t:.3} s"),
        FontId::monospace(20.0),
        palette.text,
    );
    painter.text(
        pos2(rect.right() - 14.0, rect.top() + 36.0),
        Align2::RIGHT_TOP,
        format!("{} QR", basis_name(view.basis)),
        FontId::proportional(14.0),
        palette.text.gamma_multiply(0.75),
    );
}

pub fn basis_name(mode: BasisMode) -> &'static str {
    match mode {
        BasisMode::Traditional => "traditional",
        BasisMode::Continued => "continued",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_of_motions_with_the_same_longest_arrow_do_not_overlap() {
        let size = vec2(80.0, 20.0);
        // Two motions whose longest arrows end at the same hinge; the second also has a
        // long arrow elsewhere, and a third has only that one hinge.
        let first = [(100.0, pos2(200.0, 100.0)), (40.0, pos2(300.0, 100.0))];
        let second = [(100.0, pos2(200.0, 100.0)), (90.0, pos2(400.0, 100.0))];
        let third = [(100.0, pos2(200.0, 100.0))];
        let mut placed = Vec::new();
        for spots in [&first[..], &second[..], &third[..]] {
            let r = place_label(spots, size, &placed).expect("a label");
            assert!(
                placed.iter().all(|p: &egui::Rect| !p.intersects(r)),
                "{r:?} overlaps {placed:?}"
            );
            placed.push(r);
        }
        // The second label moved to its other long arrow, the third was stacked above.
        assert_eq!(placed[1].center(), pos2(400.0, 100.0));
        assert_eq!(placed[2].center().x, 200.0);
        assert!(placed[2].center().y < 100.0);
    }

    #[test]
    fn no_label_without_arrows() {
        assert!(place_label(&[], vec2(10.0, 10.0), &[]).is_none());
    }
}
