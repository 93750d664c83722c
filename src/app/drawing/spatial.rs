//! Spatial rigid bodies in the orbit view: each body as the shaded solid of its look (rod,
//! block, cone, ball), the joints as symbols (ball; hinge with its axis; the cross of a
//! universal joint; the guide of a prismatic joint; the sphere a distance joint keeps a
//! point on, as a faint wireframe), ground supports down to a floor placed under the
//! mechanism, shadows and drop lines on the floor so that depth reads, body axes on demand,
//! the traced points and the bodies' names.
//!
//! Everything is rebuilt every frame from the pose (a few thousand triangles at most).

use std::ops::Range;

use bevy_egui::egui::{self, Align2, Color32, Pos2, Stroke};
use nalgebra::{DVector, Matrix3, Vector3};

use super::Canvas;
use super::projection::Projection;
use super::shapes::{BodyName, convex_hull};
use super::solids::Solids;
use crate::app::simulation::Live;
use crate::app::theme::Palette;
use crate::live::OrbitCamera;
use crate::model::{Attachment, Mechanism, SpatialGlyph};
use crate::scene::{BodyLook, Shape};

/// Body colours, in body order (then again): muted hues that differ, lit to their full value.
pub(super) const BODY_COLORS: [Color32; 4] = [
    Color32::from_rgb(96, 146, 214),
    Color32::from_rgb(214, 150, 84),
    Color32::from_rgb(120, 184, 120),
    Color32::from_rgb(182, 128, 204),
];

/// The rigid bodies of the pose drawn, as solids, with what the floor and the overlays need.
pub(super) struct RigidView {
    solids: Solids,
    /// Each rigid body's index and the range of its triangles in `solids` (for its shadow).
    bodies: Vec<(usize, Range<usize>)>,
    /// Spheres a point is kept on: centre and radius.
    spheres: Vec<(Vector3<f64>, f64)>,
    /// Hinge axes: a segment through each revolute joint.
    hinge_axes: Vec<[Vector3<f64>; 2]>,
    pub(super) floor: Floor,
    sizes: Sizes,
    /// Points of rigid bodies that get motion arrows: the ends of their solids and their
    /// named points (body, point in body axes).
    pub(super) arrow_points: Vec<(usize, Vector3<f64>)>,
}

/// The floor grid: its height, centre, half width and number of cells a side.
#[derive(Clone, Copy, Debug)]
pub(super) struct Floor {
    pub z: f64,
    pub centre: [f64; 2],
    pub half: f64,
    pub cells: usize,
}

impl Floor {
    /// The spatial pendulum's floor: a square of the view's width, half of it below the pivot.
    pub(super) fn of_view(size: f64) -> Self {
        Self {
            z: -0.5 * size,
            centre: [0.0, 0.0],
            half: 0.5 * size,
            cells: 8,
        }
    }
}

/// Sizes of the symbols, from the mechanism's extent and the bodies' thickness.
#[derive(Clone, Copy, Debug)]
struct Sizes {
    /// The largest side of the box around the bodies' solids.
    extent: f64,
    /// Radius of a joint's ball.
    joint: f64,
}

/// A pose of the mechanism with the bodies' looks, the palette and the symbol sizes.
struct Pose<'a> {
    mech: &'a Mechanism,
    looks: &'a [BodyLook],
    x: &'a DVector<f64>,
    palette: &'a Palette,
    sizes: Sizes,
}

impl RigidView {
    /// The solids of the pose `x`, the floor placed under the scene's initial pose.
    pub(super) fn build(live: &Live, x: &DVector<f64>, palette: &Palette) -> Self {
        let scene = live.session.scene();
        let (mech, looks) = (scene.mechanism.as_ref(), scene.looks.as_slice());
        let sizes = Sizes::of(mech, looks, &scene.x0, palette);
        let floor = floor_under(mech, looks, &scene.x0, palette, sizes);
        let pose = Pose {
            mech,
            looks,
            x,
            palette,
            sizes,
        };
        let mut solids = Solids::default();
        let bodies = add_bodies(&pose, &mut solids);
        add_joints(&pose, &scene.x0, &mut solids);
        add_ground_supports(&pose, &scene.x0, floor.z, &mut solids);
        Self {
            solids,
            bodies,
            spheres: distance_spheres(mech, x),
            hinge_axes: hinge_axes(&pose),
            floor,
            sizes,
            arrow_points: arrow_points(mech, looks),
        }
    }

    /// Shadows of the bodies straight down on the floor and a drop line from each centre.
    pub(super) fn draw_on_floor(&self, canvas: &Canvas) {
        let (painter, projection) = (canvas.painter, canvas.projection);
        let dark = canvas.palette.background.r() < 128;
        let shadow = Color32::from_black_alpha(if dark { 120 } else { 40 });
        for (_, range) in &self.bodies {
            let drop: Vec<[f64; 2]> = self
                .solids
                .positions_from(range.start)
                .take(3 * range.len())
                .map(|p| [p.x, p.y])
                .collect();
            let outline: Option<Vec<Pos2>> = convex_hull(drop)
                .into_iter()
                .map(|[px, py]| projection.to_screen([px, py, self.floor.z]))
                .collect();
            if let Some(outline) = outline.filter(|o| o.len() >= 3) {
                painter.add(egui::Shape::convex_polygon(outline, shadow, Stroke::NONE));
            }
        }
        let line = Stroke::new(1.0, canvas.palette.ground.gamma_multiply(0.5));
        for &(body, _) in &self.bodies {
            let (centre, _) = canvas.mech.rigid_pose(body, canvas.x);
            let foot = [centre.x, centre.y, self.floor.z];
            if let (Some(top), Some(bottom)) = (
                projection.to_screen([centre.x, centre.y, centre.z]),
                projection.to_screen(foot),
            ) {
                painter.extend(egui::Shape::dashed_line(&[top, bottom], line, 4.0, 4.0));
                painter.circle_filled(bottom, 2.5, line.color);
            }
        }
    }

    /// The bodies and joints, the wireframe spheres (their far half under the solids, the
    /// near half over them), the hinge axes, the body axes (`body_axes`) and the traced points;
    /// returns the bodies' names (`labels`) for painting after the arrows.
    pub(super) fn draw(
        &self,
        canvas: &Canvas,
        live: &Live,
        labels: bool,
        body_axes: bool,
    ) -> Vec<BodyName> {
        let eye = canvas.projection.eye().unwrap_or_else(Vector3::zeros);
        let wire = canvas.palette.link.gamma_multiply(0.3);
        for &(centre, radius) in &self.spheres {
            draw_wire_sphere(canvas, centre, radius, eye, false, wire);
        }
        self.solids.paint(canvas.painter, canvas.projection);
        for &(centre, radius) in &self.spheres {
            draw_wire_sphere(canvas, centre, radius, eye, true, wire);
        }
        let axis_stroke = Stroke::new(1.2, canvas.palette.link.gamma_multiply(0.7));
        for [a, b] in &self.hinge_axes {
            if let (Some(p), Some(q)) = (to_screen(canvas, a), to_screen(canvas, b)) {
                canvas
                    .painter
                    .extend(egui::Shape::dashed_line(&[p, q], axis_stroke, 6.0, 4.0));
            }
        }
        if body_axes {
            self.draw_body_axes(canvas);
        }
        draw_traced_points(canvas, live);
        if labels {
            self.place_names(canvas)
        } else {
            Vec::new()
        }
    }

    /// Each body's axes from its centre of mass: x, y, z in the colours of the world's.
    fn draw_body_axes(&self, canvas: &Canvas) {
        let colors = [
            canvas.palette.motions[5],
            canvas.palette.motions[2],
            canvas.palette.motions[3],
        ];
        for (body, range) in &self.bodies {
            let (centre, rotation) = canvas.mech.rigid_pose(*body, canvas.x);
            let reach = self.reach(centre, range);
            let length = 0.6 * reach + 3.0 * self.sizes.joint;
            let Some(o) = to_screen(canvas, &centre) else {
                continue;
            };
            for (k, (color, name)) in colors.iter().zip(["x", "y", "z"]).enumerate() {
                let tip = centre + length * rotation.column(k).into_owned();
                let Some(t) = to_screen(canvas, &tip) else {
                    continue;
                };
                canvas
                    .painter
                    .line_segment([o, t], Stroke::new(2.0, *color));
                let along = (t - o).normalized();
                canvas.painter.text(
                    t + 8.0 * along,
                    Align2::CENTER_CENTER,
                    name,
                    canvas.palette.font(12.0),
                    *color,
                );
            }
        }
    }

    /// How far the body's solid reaches from `centre`.
    fn reach(&self, centre: Vector3<f64>, range: &Range<usize>) -> f64 {
        self.solids
            .positions_from(range.start)
            .take(3 * range.len())
            .map(|p| (p - centre).norm())
            .fold(0.0, f64::max)
    }

    /// Each body's name near its centre, at the first of a few spots around it (nearest
    /// first) that covers no solid's outline point and no name placed before.
    fn place_names(&self, canvas: &Canvas) -> Vec<BodyName> {
        let outline: Vec<Pos2> = self
            .solids
            .positions()
            .step_by(3)
            .filter_map(|p| to_screen(canvas, &p))
            .collect();
        let mut names: Vec<BodyName> = Vec::new();
        for (body, _) in &self.bodies {
            let (centre, _) = canvas.mech.rigid_pose(*body, canvas.x);
            let Some(c) = to_screen(canvas, &centre) else {
                continue;
            };
            let galley = canvas.painter.layout_no_wrap(
                canvas.mech.bodies()[*body].name.clone(),
                canvas.palette.font(14.0),
                canvas.palette.text,
            );
            let size = galley.size();
            let spots = (1..=8).flat_map(|ring| {
                let d = 14.0 * ring as f32;
                [
                    (1.0, -1.0),
                    (1.0, 1.0),
                    (-1.0, -1.0),
                    (-1.0, 1.0),
                    (0.0, -1.4),
                    (0.0, 1.4),
                ]
                .map(|(dx, dy)| {
                    let at = c + egui::vec2(dx * (d + 0.5 * size.x), dy * d);
                    egui::Rect::from_center_size(at, size)
                })
            });
            let free = |r: &egui::Rect| {
                names.iter().all(|n| !n.rect.intersects(*r))
                    && outline.iter().all(|p| !r.expand(3.0).contains(*p))
            };
            let rect = spots
                .into_iter()
                .find(free)
                .unwrap_or_else(|| egui::Rect::from_min_size(c + egui::vec2(10.0, 10.0), size));
            names.push(BodyName {
                rect,
                galley,
                over_arrows: false,
                leader: None,
            });
        }
        names
    }
}

impl Sizes {
    fn of(mech: &Mechanism, looks: &[BodyLook], x0: &DVector<f64>, palette: &Palette) -> Self {
        let pose = Pose {
            mech,
            looks,
            x: x0,
            palette,
            sizes: Sizes {
                extent: 1.0,
                joint: 0.0,
            },
        };
        let mut solids = Solids::default();
        add_bodies(&pose, &mut solids);
        let extent = bounding_box(solids.positions()).map_or(1.0, |[lo, hi]| (hi - lo).max());
        let thickest = looks
            .iter()
            .map(|look| match look.shape {
                Shape::Rod { radius, .. } => radius,
                _ => 0.0,
            })
            .fold(0.0, f64::max);
        Self {
            extent,
            joint: (1.5 * thickest).max(0.02 * extent),
        }
    }
}

/// The box `[lo, hi]` around `points`; `None` without points.
fn bounding_box(points: impl Iterator<Item = Vector3<f64>>) -> Option<[Vector3<f64>; 2]> {
    points.fold(None, |acc, p| match acc {
        None => Some([p, p]),
        Some([lo, hi]) => Some([lo.inf(&p), hi.sup(&p)]),
    })
}

/// A floor a little under the initial pose (and the spheres points are kept on), a grid of
/// 1, 2 or 5 times a power of ten about a tenth of the mechanism's extent.
fn floor_under(
    mech: &Mechanism,
    looks: &[BodyLook],
    x0: &DVector<f64>,
    palette: &Palette,
    sizes: Sizes,
) -> Floor {
    let pose = Pose {
        mech,
        looks,
        x: x0,
        palette,
        sizes,
    };
    let mut solids = Solids::default();
    add_bodies(&pose, &mut solids);
    add_joints(&pose, x0, &mut solids);
    let spheres = distance_spheres(mech, x0);
    let sphere_points = spheres
        .iter()
        .flat_map(|&(c, r)| [c - Vector3::repeat(r), c + Vector3::repeat(r)].into_iter());
    let [lo, hi] = bounding_box(solids.positions().chain(sphere_points))
        .unwrap_or([Vector3::zeros(), Vector3::zeros()]);
    let extent = (hi - lo).max().max(1e-3);
    let raw = extent / 10.0;
    let decade = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * decade)
        .find(|&s| s >= raw)
        .unwrap_or(10.0 * decade);
    let round = |v: f64| (v / step).round() * step;
    let half_needed = 0.5 * (hi.x - lo.x).max(hi.y - lo.y) + 0.3 * extent;
    let cells_half = (half_needed / step).ceil().max(1.0);
    Floor {
        z: lo.z - 0.15 * extent,
        centre: [round(0.5 * (lo.x + hi.x)), round(0.5 * (lo.y + hi.y))],
        half: cells_half * step,
        cells: 2 * cells_half as usize,
    }
}

/// Each rigid body's solid; returns the bodies' triangle ranges.
fn add_bodies(pose: &Pose, solids: &mut Solids) -> Vec<(usize, Range<usize>)> {
    let mut ranges = Vec::new();
    let mut color_index = 0;
    for (body, b) in pose.mech.bodies().iter().enumerate() {
        if !b.is_rigid() {
            continue;
        }
        let color = BODY_COLORS[color_index % BODY_COLORS.len()];
        color_index += 1;
        let (centre, rotation) = pose.mech.rigid_pose(body, pose.x);
        let at = |local: &Vector3<f64>| centre + rotation * local;
        let start = solids.len();
        let look = pose.looks.iter().find(|look| look.body == body);
        match look.map(|look| &look.shape) {
            Some(Shape::Rod { from, to, radius }) => {
                solids.capsule(at(from), at(to), *radius, color)
            }
            Some(Shape::Block { half_size }) => {
                let color = if holds_joint(pose, body, half_size) {
                    color.gamma_multiply(0.8)
                } else {
                    color
                };
                solids.block(centre, &rotation, *half_size, color);
            }
            Some(Shape::Cone { apex, base, radius }) => {
                solids.cone(at(apex), at(base), *radius, color)
            }
            Some(Shape::Ball { radius }) => solids.ball(centre, *radius, color),
            None => solids.ball(centre, 0.05 * pose.sizes.extent, color),
        }
        ranges.push((body, start..solids.len()));
    }
    ranges
}

/// Whether a joint point of another body lies inside the block of `body` (a slider around
/// its universal joint): the block is then drawn translucent, so the joint shows.
fn holds_joint(pose: &Pose, body: usize, half_size: &Vector3<f64>) -> bool {
    let (centre, rotation) = pose.mech.rigid_pose(body, pose.x);
    pose.mech.joints().iter().any(|joint| {
        let Some(ends) = joint.spatial_glyph().and_then(|g| g.meeting_points()) else {
            return false;
        };
        ends.iter().any(|end| {
            end.body.is_some_and(|other| other != body) && {
                let local = rotation.transpose() * (pose.mech.spatial_point(end, pose.x) - centre);
                (0..3).all(|k| local[k].abs() < half_size[k])
            }
        })
    })
}

/// The joints' symbols: a ball for a spherical joint, a pin along a hinge's axis, the cross of
/// a universal joint, a guide rail for a prismatic joint (over the travel from its
/// ground point to the slider's initial place, and beyond), small balls at a distance joint's
/// ends.
fn add_joints(pose: &Pose, x0: &DVector<f64>, solids: &mut Solids) {
    let (mech, x, r) = (pose.mech, pose.x, pose.sizes.joint);
    let metal = pose.palette.link;
    let ground = pose.palette.ground;
    for joint in mech.joints() {
        let Some(glyph) = joint.spatial_glyph() else {
            continue;
        };
        match glyph {
            SpatialGlyph::Ball { a, .. } => solids.ball(mech.spatial_point(&a, x), r, metal),
            SpatialGlyph::Pin { a, axis, .. } => {
                let p = mech.spatial_point(&a, x);
                let axis = unit_or_x(mech.spatial_vector(&axis, x));
                solids.cylinder(p - 2.2 * r * axis, p + 2.2 * r * axis, 0.9 * r, metal);
            }
            SpatialGlyph::Cross { a, arms, .. } => {
                let p = mech.spatial_point(&a, x);
                for arm in arms {
                    let d = unit_or_x(mech.spatial_vector(&arm, x));
                    solids.cylinder(p - 2.4 * r * d, p + 2.4 * r * d, 0.45 * r, metal);
                }
                solids.ball(p, 0.75 * r, metal);
            }
            SpatialGlyph::Rail { .. } => {
                if let Some(rail) = guide_rail(mech, &glyph, x, x0, pose.sizes) {
                    solids.block(rail.centre, &rail.axes, rail.half, ground);
                }
            }
            SpatialGlyph::Link { a, b, .. } => {
                for end in [a, b] {
                    let color = if end.body.is_none() { ground } else { metal };
                    solids.ball(mech.spatial_point(&end, x), 0.6 * r, color);
                }
                if a.body.is_some() && b.body.is_some() {
                    let (p, q) = (mech.spatial_point(&a, x), mech.spatial_point(&b, x));
                    solids.cylinder(p, q, 0.25 * r, metal);
                }
            }
        }
    }
}

/// A prismatic joint's guide: a bar along the axis through the ground side's point (or
/// the first body's), covering both that point and the other side's initial place with a
/// margin of a third of the mechanism's extent.
struct Rail {
    centre: Vector3<f64>,
    axes: Matrix3<f64>,
    half: Vector3<f64>,
}

fn guide_rail(
    mech: &Mechanism,
    glyph: &SpatialGlyph,
    x: &DVector<f64>,
    x0: &DVector<f64>,
    sizes: Sizes,
) -> Option<Rail> {
    let SpatialGlyph::Rail {
        a,
        b,
        axis_a,
        axis_b,
        lock_a,
        lock_b,
    } = *glyph
    else {
        return None;
    };
    // The guide belongs to the ground side when there is one.
    let (guide, slider, axis, lock) = if b.body.is_none() {
        (b, a, axis_b, lock_b)
    } else {
        (a, b, axis_a, lock_a)
    };
    let origin = mech.spatial_point(&guide, x);
    let d = unit_or_x(mech.spatial_vector(&axis, x));
    let across = mech.spatial_vector(&lock, x);
    let across = unit_or_x(across - across.dot(&d) * d);
    // Where the slider started along the guide (in the guide's frame at the start).
    let start = (mech.spatial_point(&slider, x0) - mech.spatial_point(&guide, x0))
        .dot(&unit_or_x(mech.spatial_vector(&axis, x0)));
    let now = (mech.spatial_point(&slider, x) - origin).dot(&d);
    // Long enough for a stroke of the mechanism's size, and never shorter than where the
    // slider is (a slider off the end of its guide reads as a fault).
    let margin = 0.4 * sizes.extent;
    let lo = (start.min(0.0) - margin).min(now - 0.1 * sizes.extent);
    let hi = (start.max(0.0) + margin).max(now + 0.1 * sizes.extent);
    let thickness = 0.5 * sizes.joint;
    Some(Rail {
        centre: origin + 0.5 * (lo + hi) * d,
        axes: Matrix3::from_columns(&[d, across, d.cross(&across)]),
        half: Vector3::new(0.5 * (hi - lo), thickness, thickness),
    })
}

/// Posts from joints to the ground down to the floor, each on a small plate; a guide rail
/// gets one at each end.
fn add_ground_supports(pose: &Pose, x0: &DVector<f64>, floor_z: f64, solids: &mut Solids) {
    let (mech, x, r) = (pose.mech, pose.x, pose.sizes.joint);
    let mut feet: Vec<Vector3<f64>> = Vec::new();
    for joint in mech.joints() {
        let Some(glyph) = joint.spatial_glyph() else {
            continue;
        };
        if let Some(ends) = glyph.meeting_points() {
            for end in ends.iter().filter(|e| e.body.is_none()) {
                feet.push(mech.spatial_point(end, x));
            }
        }
        // A guide rail (none for other glyphs) stands on a post at each end.
        if let Some(rail) = guide_rail(mech, &glyph, x, x0, pose.sizes) {
            let d = rail.axes.column(0).into_owned();
            let inset = rail.half.x - 2.0 * r;
            feet.push(rail.centre + inset * d);
            feet.push(rail.centre - inset * d);
        }
    }
    let ground = pose.palette.ground;
    for top in feet.into_iter().filter(|p| p.z > floor_z + r) {
        let foot = Vector3::new(top.x, top.y, floor_z);
        solids.cylinder(foot, top, 0.35 * r, ground);
        let plate = Vector3::new(2.2 * r, 2.2 * r, 0.25 * r);
        solids.block(
            foot + plate.z * Vector3::z(),
            &Matrix3::identity(),
            plate,
            ground,
        );
    }
}

/// The spheres distance joints to the ground keep a point on: the ground point and the length.
fn distance_spheres(mech: &Mechanism, x: &DVector<f64>) -> Vec<(Vector3<f64>, f64)> {
    mech.joints()
        .iter()
        .filter_map(|joint| match joint.spatial_glyph()? {
            SpatialGlyph::Link { a, b, length } => {
                let ground = [a, b].into_iter().find(|e| e.body.is_none())?;
                Some((mech.spatial_point(&ground, x), length))
            }
            _ => None,
        })
        .collect()
}

/// A dashed segment along each hinge's axis, well beyond its pin.
fn hinge_axes(pose: &Pose) -> Vec<[Vector3<f64>; 2]> {
    let (mech, x) = (pose.mech, pose.x);
    let reach = 7.0 * pose.sizes.joint;
    mech.joints()
        .iter()
        .filter_map(|joint| match joint.spatial_glyph()? {
            SpatialGlyph::Pin { a, axis, .. } => {
                let p = mech.spatial_point(&a, x);
                let d = unit_or_x(mech.spatial_vector(&axis, x));
                Some([p - reach * d, p + reach * d])
            }
            _ => None,
        })
        .collect()
}

/// The points of rigid bodies that get motion arrows: the ends of rods and cones and the
/// looks' named points (each body's centre has its arrow already).
fn arrow_points(mech: &Mechanism, looks: &[BodyLook]) -> Vec<(usize, Vector3<f64>)> {
    let mut points = Vec::new();
    for look in looks {
        if !mech.bodies().get(look.body).is_some_and(|b| b.is_rigid()) {
            continue;
        }
        match look.shape {
            Shape::Rod { from, to, .. } => points.extend([(look.body, from), (look.body, to)]),
            Shape::Cone { apex, base, .. } => {
                points.extend([(look.body, apex), (look.body, base)]);
            }
            Shape::Block { .. } | Shape::Ball { .. } => {}
        }
        points.extend(look.points.iter().map(|(_, p)| (look.body, *p)));
    }
    points
}

/// Circles of latitude and meridians every 30 degrees on a sphere, the parts facing the
/// camera at `eye` (`front`) or those turned away.
fn draw_wire_sphere(
    canvas: &Canvas,
    centre: Vector3<f64>,
    radius: f64,
    eye: Vector3<f64>,
    front: bool,
    color: Color32,
) {
    const SEGMENTS: usize = 64;
    let stroke = Stroke::new(1.0, color);
    let to_eye = eye - centre;
    let point = |lat: f64, lon: f64| {
        let (sl, cl) = lat.sin_cos();
        let (so, co) = lon.sin_cos();
        centre + radius * Vector3::new(cl * co, cl * so, sl)
    };
    let step = std::f64::consts::PI / 6.0;
    let circle = |k: usize, meridian: bool, s: f64| {
        if meridian {
            point(s - std::f64::consts::PI, k as f64 * step)
        } else {
            point(k as f64 * step - std::f64::consts::FRAC_PI_2, s)
        }
    };
    for (meridian, count) in [(false, 5), (true, 6)] {
        for k in (if meridian { 0 } else { 1 })..(if meridian { count } else { count + 1 }) {
            for j in 0..SEGMENTS {
                let s0 = std::f64::consts::TAU * j as f64 / SEGMENTS as f64;
                let s1 = std::f64::consts::TAU * (j + 1) as f64 / SEGMENTS as f64;
                let (p, q) = (circle(k, meridian, s0), circle(k, meridian, s1));
                let facing = (0.5 * (p + q) - centre).dot(&to_eye) > radius * radius;
                if facing != front {
                    continue;
                }
                if let (Some(a), Some(b)) = (to_screen(canvas, &p), to_screen(canvas, &q)) {
                    canvas.painter.line_segment([a, b], stroke);
                }
            }
        }
    }
}

/// The traced points where they are now, as small rings in their paths' colours.
fn draw_traced_points(canvas: &Canvas, live: &Live) {
    // Index 0 is the traced point of `draw_trace`; the rings match their paths' colours.
    for (k, trace) in live.session.point_traces().iter().enumerate() {
        let at = Attachment {
            body: Some(trace.body),
            local: trace.local,
        };
        let p = canvas.mech.spatial_point(&at, canvas.x);
        if let Some(q) = to_screen(canvas, &p) {
            canvas.painter.circle(
                q,
                4.0,
                canvas.palette.background,
                Stroke::new(2.0, canvas.palette.trace_colour(k + 1)),
            );
        }
    }
}

/// The orbit camera that frames the pose `x`: looking at the middle of its box from the
/// usual side, far enough for the box's bounding sphere to fill most of the canvas' height.
pub(super) fn fit_camera(live: &Live, x: &DVector<f64>, palette: &Palette) -> OrbitCamera {
    let view = RigidView::build(live, x, palette);
    let sphere_points = view
        .spheres
        .iter()
        .flat_map(|&(c, r)| [c - Vector3::repeat(r), c + Vector3::repeat(r)].into_iter());
    let [lo, hi] = bounding_box(view.solids.positions().chain(sphere_points))
        .unwrap_or([Vector3::zeros(), Vector3::zeros()]);
    let centre = 0.5 * (lo + hi);
    let radius = (0.5 * (hi - lo).norm()).max(1e-3);
    let mut camera = OrbitCamera::looking_at([centre.x, centre.y, centre.z], 1.0);
    camera.distance = 0.95 * radius / (0.5 * camera.fov_y).sin();
    camera
}

/// Moves the orbit camera's target by a drag of `delta` pixels on a canvas `height` pixels
/// high (the world follows the cursor at the target's depth).
pub(super) fn pan_camera(camera: &mut OrbitCamera, delta: egui::Vec2, height: f32) {
    let (right, up) = super::projection::orbit_right_up(camera);
    let metres_per_pixel = 2.0 * camera.distance * (0.5 * camera.fov_y).tan() / f64::from(height);
    let shift = metres_per_pixel * (-f64::from(delta.x) * right + f64::from(delta.y) * up);
    for k in 0..3 {
        camera.target[k] += shift[k];
    }
}

fn to_screen(canvas: &Canvas, p: &Vector3<f64>) -> Option<Pos2> {
    canvas.projection.to_screen([p.x, p.y, p.z])
}

fn unit_or_x(v: Vector3<f64>) -> Vector3<f64> {
    let n = v.norm();
    if n > 1e-12 { v / n } else { Vector3::x() }
}

/// The floor: a faint fill, so that the shadows read, under the grid lines.
pub(super) fn floor_fill(
    projection: &Projection,
    floor: &Floor,
    palette: &Palette,
) -> Option<egui::Shape> {
    let [cx, cy] = floor.centre;
    let h = floor.half;
    let corners: Option<Vec<Pos2>> = [[-h, -h], [h, -h], [h, h], [-h, h]]
        .into_iter()
        .map(|[dx, dy]| projection.to_screen([cx + dx, cy + dy, floor.z]))
        .collect();
    corners.map(|c| egui::Shape::convex_polygon(c, palette.grid.gamma_multiply(0.35), Stroke::NONE))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hull_of_a_square_with_inner_points() {
        let points = vec![
            [0.0, 0.0],
            [1.0, 0.0],
            [1.0, 1.0],
            [0.0, 1.0],
            [0.5, 0.5],
            [0.2, 0.7],
            [1.0, 0.5],
        ];
        let hull = convex_hull(points);
        assert_eq!(hull, vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]);
    }
}
