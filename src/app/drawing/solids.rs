//! Shaded solids for the 3D view: triangle meshes in world coordinates (capsules, cylinders,
//! cones, blocks, balls), lit by a fixed light with Lambert shading per vertex (egui
//! interpolates the colours: Gouraud), back faces culled, and painted far to near (painter's
//! algorithm, one sort per frame) as one egui mesh.

use bevy_egui::egui::{self, Color32, Pos2};
use nalgebra::{Matrix3, Vector3};

use super::projection::Projection;
use crate::model::spatial::perpendiculars;

/// Segments around a solid of revolution.
const AROUND: usize = 16;
/// Rings over a quarter circle (a capsule's end, a ball's latitude band).
const QUARTER: usize = 4;

/// Light falling from above, from the side the camera starts on (world axes, unit length).
const LIGHT: [f64; 3] = [0.55, -0.45, 0.7];
/// Brightness of a face turned away from the light, and the light's share: a face seen from
/// any side keeps 60 % of its colour, so the solids read against the dark theme's background
/// when orbited to a side the light does not reach.
const AMBIENT: f32 = 0.6;
const DIFFUSE: f32 = 0.4;
/// How much darker a surface seen edge-on is than one seen face-on: the outlines of round
/// solids read against each other and against the background.
const EDGE_DARKENING: f32 = 0.2;

#[derive(Clone, Copy, Debug)]
struct Vertex {
    position: Vector3<f64>,
    normal: Vector3<f64>,
}

#[derive(Clone, Copy, Debug)]
struct Triangle {
    vertices: [Vertex; 3],
    color: Color32,
}

/// One ring of a solid of revolution: its centre on the axis, its radius, and the normal's
/// axial and radial components there.
#[derive(Clone, Copy, Debug)]
struct Ring {
    centre: Vector3<f64>,
    radius: f64,
    normal_axial: f64,
    normal_radial: f64,
}

/// The triangles of one frame's solids.
#[derive(Default)]
pub(super) struct Solids {
    triangles: Vec<Triangle>,
}

impl Solids {
    pub(super) fn len(&self) -> usize {
        self.triangles.len()
    }

    /// Every vertex added so far (for shadows and fitting).
    pub(super) fn positions(&self) -> impl Iterator<Item = Vector3<f64>> + '_ {
        self.triangles
            .iter()
            .flat_map(|t| t.vertices.iter().map(|v| v.position))
    }

    /// The vertices added since the first `from` triangles.
    pub(super) fn positions_from(&self, from: usize) -> impl Iterator<Item = Vector3<f64>> + '_ {
        self.triangles[from.min(self.triangles.len())..]
            .iter()
            .flat_map(|t| t.vertices.iter().map(|v| v.position))
    }

    /// A rod with rounded ends from `a` to `b`.
    pub(super) fn capsule(
        &mut self,
        a: Vector3<f64>,
        b: Vector3<f64>,
        radius: f64,
        color: Color32,
    ) {
        let Some(axis) = unit(b - a) else {
            self.ball(a, radius, color);
            return;
        };
        let mut rings = Vec::with_capacity(2 * QUARTER + 2);
        for (end, from) in [(a, -1.0), (b, 0.0)] {
            for k in 0..=QUARTER {
                let phi = (from + k as f64 / QUARTER as f64) * std::f64::consts::FRAC_PI_2;
                let (s, c) = phi.sin_cos();
                rings.push(Ring {
                    centre: end + radius * s * axis,
                    radius: radius * c,
                    normal_axial: s,
                    normal_radial: c,
                });
            }
        }
        self.lathe(axis, &rings, color);
    }

    /// A cylinder from `a` to `b` with flat ends.
    pub(super) fn cylinder(
        &mut self,
        a: Vector3<f64>,
        b: Vector3<f64>,
        radius: f64,
        color: Color32,
    ) {
        let Some(axis) = unit(b - a) else {
            return;
        };
        let ring = |centre, radius, normal_axial, normal_radial| Ring {
            centre,
            radius,
            normal_axial,
            normal_radial,
        };
        let rings = [
            ring(a, 0.0, -1.0, 0.0),
            ring(a, radius, -1.0, 0.0),
            ring(a, radius, 0.0, 1.0),
            ring(b, radius, 0.0, 1.0),
            ring(b, radius, 1.0, 0.0),
            ring(b, 0.0, 1.0, 0.0),
        ];
        self.lathe(axis, &rings, color);
    }

    /// A cone from its `apex` to the centre of its base disk (`base`), the disk included.
    pub(super) fn cone(
        &mut self,
        apex: Vector3<f64>,
        base: Vector3<f64>,
        radius: f64,
        color: Color32,
    ) {
        let Some(axis) = unit(base - apex) else {
            return;
        };
        let height = (base - apex).norm();
        // The side's normal leans back towards the apex: (r, -h)/|(r, -h)| in (radial, axial).
        let slant = radius.hypot(height);
        let (radial, axial) = (height / slant, -radius / slant);
        let ring = |centre, radius, normal_axial, normal_radial| Ring {
            centre,
            radius,
            normal_axial,
            normal_radial,
        };
        let rings = [
            ring(apex, 0.0, axial, radial),
            ring(base, radius, axial, radial),
            ring(base, radius, 1.0, 0.0),
            ring(base, 0.0, 1.0, 0.0),
        ];
        self.lathe(axis, &rings, color);
    }

    /// A ball about `centre`.
    pub(super) fn ball(&mut self, centre: Vector3<f64>, radius: f64, color: Color32) {
        let rings: Vec<Ring> = (0..=2 * QUARTER)
            .map(|k| {
                let phi = (k as f64 / QUARTER as f64 - 1.0) * std::f64::consts::FRAC_PI_2;
                let (s, c) = phi.sin_cos();
                Ring {
                    centre: centre + radius * s * Vector3::z(),
                    radius: radius * c,
                    normal_axial: s,
                    normal_radial: c,
                }
            })
            .collect();
        self.lathe(Vector3::z(), &rings, color);
    }

    /// A box about `centre` with edges along the columns of `axes`, `half` its half sizes.
    pub(super) fn block(
        &mut self,
        centre: Vector3<f64>,
        axes: &Matrix3<f64>,
        half: Vector3<f64>,
        color: Color32,
    ) {
        for k in 0..3 {
            let (i, j) = ((k + 1) % 3, (k + 2) % 3);
            for sign in [1.0, -1.0] {
                let normal = sign * axes.column(k).into_owned();
                let face = centre + half[k] * normal;
                let u = half[i] * axes.column(i).into_owned();
                let v = sign * half[j] * axes.column(j).into_owned();
                let corners = [face - u - v, face + u - v, face + u + v, face - u + v];
                for [p, q, r] in [[0, 1, 2], [0, 2, 3]] {
                    self.push([corners[p], corners[q], corners[r]], [normal; 3], color);
                }
            }
        }
    }

    /// Triangles joining consecutive rings about `axis`.
    fn lathe(&mut self, axis: Vector3<f64>, rings: &[Ring], color: Color32) {
        let (e1, e2) = perpendiculars(&axis);
        let radial: Vec<Vector3<f64>> = (0..=AROUND)
            .map(|j| {
                let t = std::f64::consts::TAU * j as f64 / AROUND as f64;
                t.cos() * e1 + t.sin() * e2
            })
            .collect();
        let vertex = |ring: &Ring, j: usize| Vertex {
            position: ring.centre + ring.radius * radial[j],
            normal: ring.normal_axial * axis + ring.normal_radial * radial[j],
        };
        for pair in rings.windows(2) {
            for j in 0..AROUND {
                let [p, q, r, s] = [
                    vertex(&pair[0], j),
                    vertex(&pair[0], j + 1),
                    vertex(&pair[1], j + 1),
                    vertex(&pair[1], j),
                ];
                for tri in [[p, q, r], [p, r, s]] {
                    self.push(tri.map(|v| v.position), tri.map(|v| v.normal), color);
                }
            }
        }
    }

    fn push(&mut self, positions: [Vector3<f64>; 3], normals: [Vector3<f64>; 3], color: Color32) {
        // Triangles at a pole have no area.
        let area = (positions[1] - positions[0]).cross(&(positions[2] - positions[0]));
        if area.norm_squared() <= 1e-30 {
            return;
        }
        let vertices = [0, 1, 2].map(|k| Vertex {
            position: positions[k],
            normal: normals[k],
        });
        self.triangles.push(Triangle { vertices, color });
    }

    /// Paints the triangles facing the camera, shaded, far ones first.
    pub(super) fn paint(&self, painter: &egui::Painter, projection: &Projection) {
        let Some(eye) = projection.eye() else {
            return;
        };
        let light = Vector3::from(LIGHT).normalize();
        let mut visible: Vec<(f64, [Pos2; 3], [Color32; 3])> = Vec::with_capacity(self.len());
        for triangle in &self.triangles {
            if let Some(drawn) = screen_triangle(triangle, projection, eye, &light) {
                visible.push(drawn);
            }
        }
        visible.sort_by(|a, b| b.0.total_cmp(&a.0));
        let mut mesh = egui::Mesh::default();
        mesh.reserve_vertices(3 * visible.len());
        mesh.reserve_triangles(visible.len());
        for (_, points, colors) in visible {
            let first = mesh.vertices.len() as u32;
            for (p, c) in points.into_iter().zip(colors) {
                mesh.colored_vertex(p, c);
            }
            mesh.add_triangle(first, first + 1, first + 2);
        }
        painter.add(egui::Shape::mesh(mesh));
    }
}

/// A triangle facing the camera at `eye`: its depth (the mean of its corners'), its corners
/// on the screen and their shaded colours. `None` if it faces away or reaches behind the eye.
fn screen_triangle(
    triangle: &Triangle,
    projection: &Projection,
    eye: Vector3<f64>,
    light: &Vector3<f64>,
) -> Option<(f64, [Pos2; 3], [Color32; 3])> {
    let [a, b, c] = triangle.vertices;
    // The face's own normal, turned to the side its vertex normals point to (whatever the
    // winding), decides whether it faces the camera.
    let mut face = (b.position - a.position).cross(&(c.position - a.position));
    if face.dot(&(a.normal + b.normal + c.normal)) < 0.0 {
        face = -face;
    }
    let centroid = (a.position + b.position + c.position) / 3.0;
    if face.dot(&(eye - centroid)) <= 0.0 {
        return None;
    }
    let mut points = [Pos2::ZERO; 3];
    let mut depth = 0.0;
    for (k, v) in triangle.vertices.iter().enumerate() {
        let p = v.position;
        points[k] = projection.to_screen([p.x, p.y, p.z])?;
        depth += (p - eye).norm() / 3.0;
    }
    let colors = triangle
        .vertices
        .map(|v| shade(triangle.color, &v.normal, light, &(eye - v.position)));
    Some((depth, points, colors))
}

/// Lambert shading: the colour scaled by the ambient share plus the light's share times the
/// cosine of the light's incidence, darkened towards the outline (where the surface turns
/// away from the viewer, along `to_eye`).
fn shade(
    color: Color32,
    normal: &Vector3<f64>,
    light: &Vector3<f64>,
    to_eye: &Vector3<f64>,
) -> Color32 {
    let n = normal.normalize();
    let cosine = n.dot(light).max(0.0) as f32;
    let facing = n.dot(&to_eye.normalize()).clamp(0.0, 1.0) as f32;
    let k = (AMBIENT + DIFFUSE * cosine) * (1.0 - EDGE_DARKENING * (1.0 - facing));
    let scale = |c: u8| (f32::from(c) * k).round().clamp(0.0, 255.0) as u8;
    Color32::from_rgba_unmultiplied(
        scale(color.r()),
        scale(color.g()),
        scale(color.b()),
        color.a(),
    )
}

fn unit(v: Vector3<f64>) -> Option<Vector3<f64>> {
    let n = v.norm();
    (n > 1e-12).then(|| v / n)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every triangle of a closed solid has its vertex normals on the outer side: the face
    /// normal oriented by them points away from the solid's centre.
    #[test]
    fn normals_point_outwards() {
        let red = Color32::RED;
        let (a, b) = (Vector3::new(0.1, 0.2, 0.3), Vector3::new(0.5, -0.1, 0.4));
        let half = Vector3::new(0.1, 0.2, 0.3);
        type Build<'a> = &'a dyn Fn(&mut Solids);
        let builders: [(Build, Vector3<f64>); 5] = [
            (&|s| s.capsule(a, b, 0.05, red), 0.5 * (a + b)),
            (&|s| s.cylinder(a, b, 0.05, red), 0.5 * (a + b)),
            (&|s| s.cone(a, b, 0.1, red), a + 0.75 * (b - a)),
            (&|s| s.ball(a, 0.2, red), a),
            (&|s| s.block(a, &Matrix3::identity(), half, red), a),
        ];
        for (index, (build, centre)) in builders.iter().enumerate() {
            let mut solids = Solids::default();
            build(&mut solids);
            assert!(solids.len() > 0);
            for t in &solids.triangles {
                let [p, q, r] = t.vertices;
                let mut face = (q.position - p.position).cross(&(r.position - p.position));
                if face.dot(&(p.normal + q.normal + r.normal)) < 0.0 {
                    face = -face;
                }
                let mid = (p.position + q.position + r.position) / 3.0;
                assert!(
                    face.dot(&(mid - centre)) > 0.0,
                    "solid {index}: inward face"
                );
            }
        }
        // A capsule of 16 segments and 4 rings per rounded end, less its poles' empty
        // triangles.
        let mut capsule = Solids::default();
        capsule.capsule(a, b, 0.05, red);
        assert_eq!(capsule.len(), AROUND * 2 * (2 * QUARTER + 1) - 2 * AROUND);
    }

    #[test]
    fn shading_is_brightest_towards_the_light() {
        let light = Vector3::from(LIGHT).normalize();
        let grey = Color32::from_rgb(200, 200, 200);
        // Seen face-on: the light's cosine alone.
        let lit = shade(grey, &light, &light, &light);
        let dark = shade(grey, &(-light), &light, &(-light));
        assert_eq!(lit.r(), 200);
        assert_eq!(dark.r(), (200.0 * AMBIENT).round() as u8);
    }

    #[test]
    fn a_face_in_the_shade_still_stands_out_from_both_backgrounds() {
        use crate::app::theme::{DARK, LIGHT};
        let light = Vector3::from(super::LIGHT).normalize();
        let colours = crate::app::drawing::spatial::BODY_COLORS;
        for (palette, &colour) in [&DARK, &LIGHT]
            .into_iter()
            .flat_map(|p| colours.iter().map(move |c| (p, c)))
        {
            // Turned away from the light, seen face-on and at 60 degrees from the eye.
            let away = -light;
            let oblique = Vector3::new(-light.y, light.x, 0.0).normalize() * 0.866 + away * 0.5;
            for eye in [away, oblique] {
                let shaded = shade(colour, &away, &light, &eye);
                let ratio = crate::app::theme::tests::contrast(shaded, palette.background);
                assert!(
                    ratio >= 2.0,
                    "{shaded:?} on {:?}: {ratio:.2}",
                    palette.background
                );
            }
        }
    }
}
