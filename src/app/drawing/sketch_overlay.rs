//! Edit mode on the canvas ([`crate::app::sketcher`]): the gestures that draw a mechanism
//! and the sketch drawn over it. A click on empty canvas places a ground pivot, a click on a
//! point or a bar selects it; a drag draws a bar from where it starts (a point, a place on a
//! bar, or anywhere) to where it ends (the same choices); Shift and a drag moves a point,
//! the mechanism re-assembling as it goes. Positions snap to a grid unless the Sketch panel
//! turns it off; a middle or right drag pans, the wheel zooms.

use bevy_egui::egui::{self, Color32, FontId, Pos2, Stroke, pos2, vec2};
use nalgebra::Vector2;

use super::Canvas;
use super::mechanism::ground_symbol;
use crate::app::commands::{AppCommand, SketchRequest};
use crate::app::sketcher::state::{Gesture, Sketcher};
use crate::live::PlanarView;
use crate::sketch::{Place, Sketch, SketchCommand};

/// Pixels within which the pointer picks a point, then a bar (a click just off a bar, on
/// its name, selects it rather than placing a pivot beside it).
const PICK_POINT: f32 = 12.0;
const PICK_BAR: f32 = 14.0;
/// The snapping grid is the finest of these steps (m) at least this many pixels wide.
const GRID_STEPS: [f64; 7] = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0];
const GRID_PIXELS: f64 = 15.0;

/// The canvas' map between the world and the screen in edit mode.
pub(super) struct SketchFrame {
    pub view: PlanarView,
    pub rect: egui::Rect,
}

impl SketchFrame {
    fn centre(&self) -> [f64; 2] {
        [
            f64::from(self.rect.center().x),
            f64::from(self.rect.center().y),
        ]
    }

    fn width(&self) -> f64 {
        f64::from(self.rect.width())
    }

    pub fn world(&self, p: Pos2) -> Vector2<f64> {
        let [x, y] = self.view.to_world(
            [f64::from(p.x), f64::from(p.y)],
            self.centre(),
            self.width(),
        );
        Vector2::new(x, y)
    }

    pub fn screen(&self, w: Vector2<f64>) -> Pos2 {
        let [x, y] = self.view.to_screen([w.x, w.y], self.centre(), self.width());
        pos2(x as f32, y as f32)
    }

    /// The snapping grid's step (m): a whole fraction of a metre, so snapped coordinates are
    /// the decimals they look like.
    pub fn grid_step(&self) -> f64 {
        let metre = self.view.scale(self.width());
        GRID_STEPS
            .into_iter()
            .find(|step| step * metre >= GRID_PIXELS)
            .unwrap_or(1.0)
    }

    fn snapped(&self, w: Vector2<f64>, snap: bool) -> Vector2<f64> {
        if !snap {
            return w;
        }
        let per_metre = (1.0 / self.grid_step()).round();
        w.map(|v| (v * per_metre).round() / per_metre)
    }
}

/// What is under a place on the canvas.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Hit {
    Point(usize),
    /// A bar, and how far along it (m) the place is.
    Bar(usize, f64),
    Empty,
}

fn hit(sketch: &Sketch, frame: &SketchFrame, at: Pos2, except: Option<usize>) -> Hit {
    let near_point = sketch
        .points
        .iter()
        .enumerate()
        .filter(|(i, _)| Some(*i) != except)
        .map(|(i, p)| (i, frame.screen(p.at).distance(at)))
        .filter(|(_, d)| *d <= PICK_POINT)
        .min_by(|a, b| a.1.total_cmp(&b.1));
    if let Some((i, _)) = near_point {
        return Hit::Point(i);
    }
    let near_bar = sketch
        .bars
        .iter()
        .enumerate()
        .filter(|(_, b)| except.is_none_or(|e| !b.carries(e)))
        .filter_map(|(i, b)| {
            let (a, e) = (
                frame.screen(sketch.points[b.start].at),
                frame.screen(sketch.points[b.end].at),
            );
            let ab = e - a;
            let f = ((at - a).dot(ab) / ab.length_sq().max(1e-6)).clamp(0.0, 1.0);
            let d = (at - (a + f * ab)).length();
            (d <= PICK_BAR).then_some((i, f64::from(f) * b.length, d))
        })
        .min_by(|a, b| a.2.total_cmp(&b.2));
    match near_bar {
        Some((i, along, _)) => Hit::Bar(i, along),
        None => Hit::Empty,
    }
}

/// The place a bar's end goes for a hit at `at` (world, snapped if asked).
fn place_of(sketch: &Sketch, frame: &SketchFrame, hit: Hit, at: Pos2, snap: bool) -> Place {
    match hit {
        Hit::Point(i) => Place::Point(sketch.points[i].name.clone()),
        Hit::Bar(b, along) => {
            let bar = &sketch.bars[b];
            let step = if snap { frame.grid_step() } else { 0.0 };
            let along = if step > 0.0 {
                let per_metre = (1.0 / step).round();
                ((along * per_metre).round() / per_metre).clamp(0.0, bar.length)
            } else {
                along
            };
            Place::OnBar {
                bar: bar.name.clone(),
                along,
            }
        }
        Hit::Empty => {
            let w = frame.snapped(frame.world(at), snap);
            Place::At(w.x, w.y)
        }
    }
}

/// The world position of `place` in `sketch`.
fn place_position(sketch: &Sketch, place: &Place) -> Option<Vector2<f64>> {
    match place {
        Place::Point(name) => sketch.point_index(name).map(|i| sketch.points[i].at),
        Place::At(x, y) => Some(Vector2::new(*x, *y)),
        Place::OnBar { bar, along } => {
            let b = &sketch.bars[sketch.bar_index(bar)?];
            let (a, e) = (sketch.points[b.start].at, sketch.points[b.end].at);
            Some(a + (e - a) * (along / b.length))
        }
    }
}

/// The gestures of edit mode on the canvas `response`. Returns whether the primary button
/// is the sketcher's (else the caller pans and zooms as usual).
pub(super) fn sketch_input(
    response: &egui::Response,
    frame: &SketchFrame,
    sketcher: &mut Sketcher,
    commands: &mut Vec<AppCommand>,
) -> bool {
    let snap = sketcher.snap;
    let sketch = sketcher.sketch().clone();
    let shift = response.ctx.input(|i| i.modifiers.shift);
    let send = |commands: &mut Vec<AppCommand>, request| commands.push(AppCommand::Sketch(request));
    if response.clicked_by(egui::PointerButton::Primary)
        && let Some(at) = response.interact_pointer_pos()
    {
        match hit(&sketch, frame, at, None) {
            Hit::Point(i) => sketcher.selected = Some(sketch.points[i].name.clone()),
            Hit::Bar(b, _) => sketcher.selected = Some(sketch.bars[b].name.clone()),
            Hit::Empty => {
                let w = frame.snapped(frame.world(at), snap);
                sketcher.selected = None;
                send(
                    commands,
                    SketchRequest::Edit(SketchCommand::GroundPivot { at: (w.x, w.y) }),
                );
            }
        }
        return true;
    }
    if response.drag_started_by(egui::PointerButton::Primary)
        && let Some(origin) = response.ctx.input(|i| i.pointer.press_origin())
    {
        let under = hit(&sketch, frame, origin, None);
        sketcher.gesture = Some(match under {
            Hit::Point(i) if shift => Gesture::Move {
                point: sketch.points[i].name.clone(),
            },
            _ => {
                let from = place_of(&sketch, frame, under, origin, snap);
                let at = place_position(&sketch, &from).unwrap_or_else(|| frame.world(origin));
                Gesture::Bar { from, at }
            }
        });
    }
    let Some(gesture) = sketcher.gesture.clone() else {
        return response.dragged_by(egui::PointerButton::Primary);
    };
    let pointer = response.interact_pointer_pos();
    let released = response.drag_stopped() || !response.dragged();
    match gesture {
        Gesture::Move { point } => {
            if let Some(at) = pointer {
                let to = frame.snapped(frame.world(at), snap);
                send(
                    commands,
                    SketchRequest::Continue(SketchCommand::Drag {
                        point: point.clone(),
                        toward: (to.x, to.y),
                    }),
                );
            }
            if released {
                send(commands, SketchRequest::EndGesture);
                sketcher.selected = Some(point);
            }
        }
        Gesture::Bar { from, .. } => {
            if released && let Some(at) = pointer {
                let start = match &from {
                    Place::Point(name) => sketch.point_index(name),
                    _ => None,
                };
                let to = place_of(&sketch, frame, hit(&sketch, frame, at, start), at, snap);
                send(
                    commands,
                    SketchRequest::Edit(SketchCommand::Bar {
                        from,
                        to,
                        name: None,
                    }),
                );
            }
        }
    }
    if released {
        sketcher.gesture = None;
    }
    true
}

/// The sketch over the canvas: its bars as lines when the mechanism is not drawn (no scene
/// yet), its points (ground ones with the ground symbol), their names (`point_names`: not
/// where the reactions view names the joints), the selection, the
/// point under the pointer, and the bar being drawn with its length and angle.
pub(super) fn draw_sketch(
    canvas: &Canvas,
    frame: &SketchFrame,
    sketcher: &Sketcher,
    point_names: bool,
    pointer: Option<Pos2>,
) {
    let sketch = sketcher.sketch();
    let painter = canvas.painter;
    let palette = canvas.palette;
    let accent = Color32::from_rgb(255, 170, 40);
    if !sketcher.shows_mechanism {
        for bar in &sketch.bars {
            let (a, e) = (
                frame.screen(sketch.points[bar.start].at),
                frame.screen(sketch.points[bar.end].at),
            );
            painter.line_segment([a, e], Stroke::new(8.0, palette.bar_fill));
        }
    }
    for (i, point) in sketch.points.iter().enumerate() {
        let p = frame.screen(point.at);
        if point.ground && (!sketcher.shows_mechanism || sketch.bars_at(i).is_empty()) {
            ground_symbol(painter, p, 14.0, palette);
        }
        let selected = sketcher.selected.as_deref() == Some(point.name.as_str());
        let ring = if selected { accent } else { palette.text };
        painter.circle(p, 5.0, palette.background, Stroke::new(2.0, ring));
        if point_names {
            point_name(canvas, p, &point.name);
        }
    }
    if let Some(bar) = sketcher
        .selected
        .as_deref()
        .and_then(|name| sketch.bar_index(name))
    {
        let b = &sketch.bars[bar];
        let (a, e) = (
            frame.screen(sketch.points[b.start].at),
            frame.screen(sketch.points[b.end].at),
        );
        painter.line_segment([a, e], Stroke::new(3.0, accent));
    }
    let Some(pointer) = pointer else {
        return;
    };
    if let Hit::Point(i) = hit(sketch, frame, pointer, None) {
        painter.circle_stroke(
            frame.screen(sketch.points[i].at),
            9.0,
            Stroke::new(2.0, accent),
        );
    }
    if let Some(Gesture::Bar { from, at }) = &sketcher.gesture {
        draw_bar_in_progress(canvas, frame, sketcher, from, *at, pointer);
    }
}

/// A point's name below left of it, on a backing (a bar's name may be near).
fn point_name(canvas: &Canvas, p: Pos2, name: &str) {
    let galley = canvas.painter.layout_no_wrap(
        name.to_owned(),
        FontId::proportional(13.0),
        canvas.palette.text,
    );
    let at = p + vec2(-8.0 - galley.size().x, 7.0);
    let rect = egui::Rect::from_min_size(at, galley.size()).expand(2.0);
    canvas
        .painter
        .rect_filled(rect, 3.0, canvas.palette.background);
    canvas.painter.galley(at, galley, canvas.palette.text);
}

/// The bar being drawn: a line to where it would end, its length and angle beside it.
fn draw_bar_in_progress(
    canvas: &Canvas,
    frame: &SketchFrame,
    sketcher: &Sketcher,
    from: &Place,
    start: Vector2<f64>,
    pointer: Pos2,
) {
    let sketch = sketcher.sketch();
    let except = match from {
        Place::Point(name) => sketch.point_index(name),
        _ => None,
    };
    let to = place_of(
        sketch,
        frame,
        hit(sketch, frame, pointer, except),
        pointer,
        sketcher.snap,
    );
    let Some(end) = place_position(sketch, &to) else {
        return;
    };
    let (a, e) = (frame.screen(start), frame.screen(end));
    let stroke = Stroke::new(3.0, Color32::from_rgb(255, 170, 40));
    canvas.painter.line_segment([a, e], stroke);
    canvas.painter.circle_stroke(e, 6.0, stroke);
    let d = end - start;
    let text = format!("{:.3} m  {:.1}°", d.norm(), d.y.atan2(d.x).to_degrees());
    let galley =
        canvas
            .painter
            .layout_no_wrap(text, FontId::proportional(15.0), canvas.palette.text);
    let at = e + vec2(14.0, 10.0);
    let rect = egui::Rect::from_min_size(at, galley.size()).expand(3.0);
    canvas
        .painter
        .rect_filled(rect, 3.0, canvas.palette.background);
    canvas.painter.galley(at, galley, canvas.palette.text);
}
