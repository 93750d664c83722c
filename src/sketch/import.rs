//! A scene as a sketch, to edit a shipped or saved linkage in the sketcher: a planar scene of
//! `Bar` bodies (with point masses hinged to them), `Pin`, `Revolute`, `Slider` and `Slot`
//! joints, at its assembled pose `x0`.
//!
//! The bars' points the joints name (and every bar's two ends) are joined into sketch points
//! by the joints: a revolute joins its two points, pins at one ground place are one ground
//! point. A point takes its first pin's name (a ground point), else its first revolute's,
//! else a free letter; points come in the order of the joints naming them, then the free
//! ends. The sketch keeps the title, the bars' names, lengths and masses and the stated
//! angular velocities; the description, solver settings, run and view are not the sketch's.

use nalgebra::{DVector, Vector2};
use thiserror::Error;

use super::{Guide, SAME_POINT, Sketch, SketchBar, SketchPoint};
use crate::model::{BodyKind, JointKind, LoadKind, LocalPoint, Mechanism};
use crate::scene::Scene;
use crate::scene::format::SceneFile;

/// Why a scene cannot be drawn in the sketcher.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum ImportError {
    #[error(
        "the sketcher draws bars, ground pivots, revolute joints and sliders: body \"{0}\" is {1}"
    )]
    Body(String, &'static str),
    #[error(
        "the sketcher draws bars, ground pivots, revolute joints and sliders: joint \"{0}\" is {1}"
    )]
    Joint(String, &'static str),
    #[error("the sketcher draws no loads: bar \"{0}\" carries {1}")]
    Load(String, &'static str),
    #[error("joint \"{0}\" holds bar \"{1}\" off its axis: the sketcher's points are on the bars")]
    OffBar(String, String),
    #[error("joint \"{0}\" joins bar \"{1}\" to itself")]
    SameBar(String, String),
    #[error("the sketcher's gravity is (0, -9.81) m/s^2; this scene's is ({0}, {1})")]
    Gravity(f64, f64),
}

/// The sketch of `scene` at its assembled pose.
///
/// Each bar's `omega` is the angular velocity the scene file states for it (`None` where it
/// states none, completed on load as before). Where the file states a bar's `vx` or `vy`,
/// which a sketch cannot, or the source does not read as a scene file, every bar's `omega` is
/// its rate in the completed `xd0` instead.
pub fn sketch_of_scene(scene: &Scene) -> Result<Sketch, ImportError> {
    let mechanism = &scene.mechanism;
    check_bodies(mechanism)?;
    check_loads(mechanism)?;
    let joined = Joined::of(mechanism)?;
    let omegas = omegas(scene);
    let bars = &mechanism.bodies()[..bar_count(mechanism)];
    let mut sketch = Sketch {
        title: scene.title.clone(),
        points: Vec::new(),
        bars: (bars.iter().zip(omegas))
            .map(|(body, omega)| SketchBar {
                name: body.name.clone(),
                start: 0,
                end: 0,
                length: body.bar_length().unwrap_or_default(),
                mass: body.mass,
                along: Vec::new(),
                omega,
            })
            .collect(),
    };
    joined.place(&mut sketch, mechanism, &scene.x0);
    Ok(sketch)
}

/// Every body is a bar, but planar point masses after the bars (as the sketcher writes
/// them).
fn check_bodies(mechanism: &Mechanism) -> Result<(), ImportError> {
    let bars = bar_count(mechanism);
    for (index, body) in mechanism.bodies().iter().enumerate() {
        let what = match body.kind {
            BodyKind::Bar { .. } => continue,
            BodyKind::Point2 if index >= bars => continue,
            BodyKind::Point2 => "a point mass listed before a bar",
            BodyKind::Plate { .. } => "a plate",
            BodyKind::Point3 => "a spatial point mass",
            BodyKind::Rigid { .. } => "a rigid body",
        };
        return Err(ImportError::Body(body.name.clone(), what));
    }
    Ok(())
}

/// How many bodies are bars: the first ones (a point mass comes after them).
fn bar_count(mechanism: &Mechanism) -> usize {
    mechanism
        .bodies()
        .iter()
        .take_while(|b| matches!(b.kind, BodyKind::Bar { .. }))
        .count()
}

/// No loads, and the sketcher's gravity.
fn check_loads(mechanism: &Mechanism) -> Result<(), ImportError> {
    if let Some(load) = mechanism.loads().first() {
        let what = match load.kind {
            LoadKind::Force(_) => "a force",
            LoadKind::Torque(_) => "a torque",
            LoadKind::SpatialTorque(_) => "a spatial torque",
        };
        let bar = mechanism.bodies()[load.body].name.clone();
        return Err(ImportError::Load(bar, what));
    }
    match mechanism.gravity() {
        [0.0, -9.81, 0.0] => Ok(()),
        [x, y, _] => Err(ImportError::Gravity(x, y)),
    }
}

/// What a joint other than a pin or a revolute is, as the error says.
fn joint_kind_name(kind: &JointKind) -> &'static str {
    match kind {
        JointKind::Revolute { .. } => "a revolute joint",
        JointKind::Pin { .. } => "a pin",
        JointKind::Distance { .. } => "a distance joint",
        JointKind::Prismatic { .. } => "a prismatic joint",
        JointKind::Driver { .. } => "a driver",
        JointKind::KnifeEdge { .. } => "a knife edge",
        JointKind::Slider { .. } => "a slider",
        JointKind::Slot { .. } => "a pin in a slot",
        JointKind::Spatial(_) => "a spatial joint",
        JointKind::Normalization { .. } => "a rigid body's normalisation",
    }
}

/// The stated angular velocities of the bars (see [`sketch_of_scene`]).
fn omegas(scene: &Scene) -> Vec<Option<f64>> {
    let bodies = &scene.mechanism.bodies()[..bar_count(&scene.mechanism)];
    let from_xd0 = || {
        bodies
            .iter()
            .map(|b| Some(scene.xd0[b.offset + 2]))
            .collect()
    };
    let options =
        ron::Options::default().with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME);
    let Ok(file) = options.from_str::<SceneFile>(&scene.source) else {
        return from_xd0();
    };
    if file
        .velocities
        .iter()
        .any(|v| v.vx.is_some() || v.vy.is_some())
    {
        return from_xd0();
    }
    bodies
        .iter()
        .map(|body| {
            file.velocities
                .iter()
                .filter(|v| v.body == body.name)
                .find_map(|v| v.omega)
        })
        .collect()
}

/// A point of a bar that an end or a joint names: the bar and metres from its start.
#[derive(Clone, Copy)]
struct Node {
    bar: usize,
    along: f64,
}

/// The bars' points and how the joints join them (a union-find over the nodes), with the
/// joints in the scene's order: the node each names, its name, and a pin's ground place.
struct Joined {
    nodes: Vec<Node>,
    parent: Vec<usize>,
    joints: Vec<(usize, String, Option<Vector2<f64>>)>,
    /// The sliders: the node on the guide, and the guide.
    guides: Vec<(usize, Guide)>,
    /// The point masses: the node they are hinged at, and their mass.
    masses: Vec<(usize, f64)>,
    /// The pins in slots: the node of the pin, and the bar whose axis is the slot.
    slots: Vec<(usize, usize)>,
}

impl Joined {
    /// The nodes (each bar's start and end first) joined by the scene's pins and revolutes.
    fn of(mechanism: &Mechanism) -> Result<Self, ImportError> {
        let bars = bar_count(mechanism);
        let mut joined = Joined {
            nodes: (0..bars)
                .flat_map(|bar| [0.0, bar_length(mechanism, bar)].map(|along| Node { bar, along }))
                .collect(),
            parent: (0..2 * bars).collect(),
            joints: Vec::new(),
            guides: Vec::new(),
            masses: Vec::new(),
            slots: Vec::new(),
        };
        for joint in mechanism.joints() {
            let name = &joint.name;
            match &joint.kind {
                JointKind::Pin { body, .. } if *body >= bars => {
                    return Err(ImportError::Joint(name.clone(), "a pin of a point mass"));
                }
                JointKind::Pin {
                    body,
                    point,
                    ground,
                } => joined.pin(mechanism, name, (*body, point), *ground)?,
                // A point mass hinged to a bar's point.
                JointKind::Revolute { a, point_a, b, .. } if *b >= bars && *a < bars => {
                    let node = joined.node(mechanism, name, (*a, point_a))?;
                    joined.masses.push((node, mechanism.bodies()[*b].mass));
                }
                JointKind::Revolute { a, b, .. } if *a >= bars || *b >= bars => {
                    return Err(ImportError::Joint(
                        name.clone(),
                        "a hinge of a point mass to no bar",
                    ));
                }
                JointKind::Revolute {
                    a,
                    point_a,
                    b,
                    point_b,
                } => joined.revolute(mechanism, name, (*a, point_a), (*b, point_b))?,
                JointKind::Slider {
                    body,
                    point,
                    origin,
                    axis,
                } => {
                    let node = joined.node(mechanism, name, (*body, point))?;
                    joined.joints.push((node, name.clone(), None));
                    let angle = axis.y.atan2(axis.x);
                    joined.guides.push((
                        node,
                        Guide {
                            origin: *origin,
                            angle,
                        },
                    ));
                }
                JointKind::Slot {
                    a,
                    point_a,
                    b,
                    point_b,
                    axis,
                } => {
                    if point_b.y.abs() > SAME_POINT || axis.y.abs() > SAME_POINT || *b >= bars {
                        return Err(ImportError::Joint(name.clone(), "a slot off a bar's axis"));
                    }
                    let node = joined.node(mechanism, name, (*a, point_a))?;
                    joined.joints.push((node, name.clone(), None));
                    joined.slots.push((node, *b));
                }
                kind => return Err(ImportError::Joint(name.clone(), joint_kind_name(kind))),
            }
        }
        Ok(joined)
    }

    /// Pin `name` holds `at` to the ground: one point with the pins before it at that place.
    fn pin(
        &mut self,
        mechanism: &Mechanism,
        name: &str,
        at: (usize, &LocalPoint),
        ground: Vector2<f64>,
    ) -> Result<(), ImportError> {
        let node = self.node(mechanism, name, at)?;
        let same_place =
            |g: &Option<Vector2<f64>>| g.is_some_and(|g| (g - ground).norm() <= SAME_POINT);
        if let Some(&(other, ..)) = self.joints.iter().find(|(.., g)| same_place(g)) {
            self.join(node, other);
        }
        self.joints.push((node, name.to_owned(), Some(ground)));
        Ok(())
    }

    /// Revolute `name` joins point `a` of one bar and `b` of another.
    fn revolute(
        &mut self,
        mechanism: &Mechanism,
        name: &str,
        a: (usize, &LocalPoint),
        b: (usize, &LocalPoint),
    ) -> Result<(), ImportError> {
        if a.0 == b.0 {
            let bar = mechanism.bodies()[a.0].name.clone();
            return Err(ImportError::SameBar(name.to_owned(), bar));
        }
        let node_a = self.node(mechanism, name, a)?;
        let node_b = self.node(mechanism, name, b)?;
        self.join(node_a, node_b);
        self.joints.push((node_a, name.to_owned(), None));
        Ok(())
    }

    /// The node of `bar` at its local point `point` (made if new), for joint `joint`.
    fn node(
        &mut self,
        mechanism: &Mechanism,
        joint: &str,
        (bar, point): (usize, &LocalPoint),
    ) -> Result<usize, ImportError> {
        let length = bar_length(mechanism, bar);
        let along = point.x + 0.5 * length;
        if point.y.abs() > SAME_POINT || !(-SAME_POINT..=length + SAME_POINT).contains(&along) {
            let bar = mechanism.bodies()[bar].name.clone();
            return Err(ImportError::OffBar(joint.to_owned(), bar));
        }
        let same = |n: &Node| n.bar == bar && (n.along - along).abs() <= SAME_POINT;
        if let Some(found) = self.nodes.iter().position(same) {
            return Ok(found);
        }
        self.nodes.push(Node { bar, along });
        self.parent.push(self.parent.len());
        Ok(self.nodes.len() - 1)
    }

    fn root(&self, mut node: usize) -> usize {
        while self.parent[node] != node {
            node = self.parent[node];
        }
        node
    }

    fn join(&mut self, a: usize, b: usize) {
        let (a, b) = (self.root(a), self.root(b));
        self.parent[a.max(b)] = a.min(b);
    }

    /// Adds the points to `sketch` (whose bars are named already) and puts them on the bars.
    fn place(&self, sketch: &mut Sketch, mechanism: &Mechanism, x0: &DVector<f64>) {
        let mut point_of = vec![None; self.nodes.len()];
        let joint_nodes = self.joints.iter().map(|(node, ..)| *node);
        for node in joint_nodes.chain(0..self.nodes.len()) {
            let root = self.root(node);
            if point_of[root].is_none() {
                point_of[root] = Some(sketch.points.len());
                let point = self.point(sketch, mechanism, x0, root);
                sketch.points.push(point);
            }
        }
        for &(node, guide) in &self.guides {
            let point = point_of[self.root(node)].expect("every node has a point");
            sketch.points[point].guide = Some(guide);
        }
        for &(node, bar) in &self.slots {
            let point = point_of[self.root(node)].expect("every node has a point");
            sketch.points[point].slot = Some(sketch.bars[bar].name.clone());
        }
        for &(node, mass) in &self.masses {
            let point = point_of[self.root(node)].expect("every node has a point");
            sketch.points[point].mass = Some(mass);
        }
        for (node, n) in self.nodes.iter().enumerate() {
            let point = point_of[self.root(node)].expect("every node has a point");
            let bar = &mut sketch.bars[n.bar];
            if node == 2 * n.bar {
                bar.start = point;
            } else if node == 2 * n.bar + 1 {
                bar.end = point;
            } else if !bar.carries(point) {
                bar.along.push((point, n.along));
            }
        }
    }

    /// The sketch point of the group of nodes `root` heads: at its first pin's ground place,
    /// else where the group's first bar start (else its first node) is at `x0`.
    fn point(
        &self,
        sketch: &Sketch,
        mechanism: &Mechanism,
        x0: &DVector<f64>,
        root: usize,
    ) -> SketchPoint {
        let in_group = |node: &usize| self.root(*node) == root;
        let joints = || self.joints.iter().filter(|(node, ..)| in_group(node));
        let pin = joints().find(|(.., ground)| ground.is_some());
        let members = || (0..self.nodes.len()).filter(in_group);
        let first = members()
            .find(|&node| node % 2 == 0 && node < 2 * mechanism.bodies().len())
            .unwrap_or(root);
        let Node { bar, along } = self.nodes[first];
        let local = LocalPoint::new(along - 0.5 * bar_length(mechanism, bar), 0.0);
        let at = match pin {
            Some((.., Some(ground))) => *ground,
            _ => mechanism.planar_point(bar, &local, x0),
        };
        let wanted = pin.or_else(|| joints().next()).map(|(_, name, _)| name);
        let name = match wanted {
            Some(name) if !sketch.name_taken(name) => name.clone(),
            _ if pin.is_some() => sketch.numbered_name("O"),
            _ => sketch.letter_name(),
        };
        SketchPoint {
            name,
            at,
            ground: pin.is_some(),
            guide: None,
            mass: None,
            slot: None,
        }
    }
}

fn bar_length(mechanism: &Mechanism, bar: usize) -> f64 {
    mechanism.bodies()[bar].bar_length().unwrap_or_default()
}
