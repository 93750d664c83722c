//! Where the names of points go: the joints' in the reactions view, the traces' at their
//! ends. Each name beside its point, clear of the points' markers, of the text already on the
//! canvas and of the names placed before it, so that rings drawn close together (the mobile
//! robot's B, C and W1-W4) can be told apart.

use bevy_egui::egui::{Pos2, Rect, Vec2, vec2};

/// The eight directions tried around a joint, right first (the reaction arrows of a scene
/// under gravity mostly point up or down).
const DIRECTIONS: [(f32, f32); 8] = [
    (1.0, 0.0),
    (1.0, -1.0),
    (1.0, 1.0),
    (-1.0, 0.0),
    (-1.0, -1.0),
    (-1.0, 1.0),
    (0.0, -1.0),
    (0.0, 1.0),
];

/// One rectangle per label of `sizes`, near `points` (the joints on the screen, one per label),
/// inside `bounds` (the canvas), overlapping no marker of radius `marker`, no area `taken`
/// and no other label where the rings and distances tried allow it; else the first place
/// tried.
pub fn place_labels(
    points: &[Pos2],
    sizes: &[Vec2],
    marker: f32,
    (taken, bounds): (&[Rect], Rect),
) -> Vec<Rect> {
    place(points, sizes, marker, (taken, bounds), true)
        .into_iter()
        .map(|r| r.unwrap_or(Rect::NOTHING))
        .collect()
}

/// As [`place_labels`], with `None` for a label that found no free place (a trace's name,
/// which may be left out rather than written over others).
pub fn place_free_labels(
    points: &[Pos2],
    sizes: &[Vec2],
    marker: f32,
    (taken, bounds): (&[Rect], Rect),
) -> Vec<Option<Rect>> {
    place(points, sizes, marker, (taken, bounds), false)
}

/// The labels' places; one with no free place at the first place tried where `crowd`, else
/// none.
fn place(
    points: &[Pos2],
    sizes: &[Vec2],
    marker: f32,
    (taken, bounds): (&[Rect], Rect),
    crowd: bool,
) -> Vec<Option<Rect>> {
    let markers: Vec<Rect> = points
        .iter()
        .map(|&p| Rect::from_center_size(p, Vec2::splat(2.0 * marker)))
        .collect();
    let mut placed: Vec<Rect> = Vec::with_capacity(points.len());
    let mut places = Vec::with_capacity(points.len());
    for (&point, &size) in points.iter().zip(sizes) {
        let mut candidates = (1..=4).flat_map(|ring| {
            DIRECTIONS.iter().map(move |&(dx, dy)| {
                at(point, size, dx, dy, marker + 3.0 + 14.0 * (ring - 1) as f32)
            })
        });
        let free = |r: &Rect| {
            bounds.contains_rect(*r)
                && markers
                    .iter()
                    .chain(taken)
                    .chain(&placed)
                    .all(|other| !r.intersects(*other))
        };
        let first = at(point, size, DIRECTIONS[0].0, DIRECTIONS[0].1, marker + 3.0);
        let chosen = candidates.find(free).or_else(|| crowd.then_some(first));
        placed.push(chosen.unwrap_or(Rect::NOTHING));
        places.push(chosen);
    }
    places
}

/// The rectangle of `size` whose nearest side or corner is `gap` from `point` in direction
/// (`dx`, `dy`).
fn at(point: Pos2, size: Vec2, dx: f32, dy: f32, gap: f32) -> Rect {
    let center = point + vec2(dx * (gap + 0.5 * size.x), dy * (gap + 0.5 * size.y));
    Rect::from_center_size(center, size)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Joints as on the robot seen whole at 1080p: two pairs a few pixels apart, a chain of
    /// three along a line, and two joints at the same point.
    fn crowded() -> Vec<Pos2> {
        [
            (700.0, 440.0),
            (704.0, 446.0),
            (760.0, 520.0),
            (766.0, 516.0),
            (620.0, 520.0),
            (640.0, 520.0),
            (660.0, 520.0),
            (703.0, 610.0),
            (703.0, 610.0),
        ]
        .map(|(x, y)| Pos2::new(x, y))
        .to_vec()
    }

    #[test]
    fn names_of_crowded_joints_overlap_neither_each_other_nor_a_marker() {
        let points = crowded();
        let sizes = vec![vec2(24.0, 15.0); points.len()];
        let marker = 7.0;
        let labels = place_labels(&points, &sizes, marker, (&[], Rect::EVERYTHING));
        for (i, a) in labels.iter().enumerate() {
            assert_eq!(a.size(), sizes[i]);
            for b in &labels[i + 1..] {
                assert!(!a.intersects(*b), "{a:?} and {b:?}");
            }
            for p in &points {
                let disc = Rect::from_center_size(*p, Vec2::splat(2.0 * marker));
                assert!(!a.intersects(disc), "{a:?} covers the joint at {p:?}");
            }
            // Beside its own joint: within the fourth ring.
            let reach = a.center().distance(points[i]);
            assert!(
                reach < marker + 3.0 + 3.0 * 14.0 + 0.5 * sizes[i].length(),
                "{reach}"
            );
        }
    }

    /// A trace's end at the canvas' right edge (the mobile robot driving right): its name
    /// goes inside the canvas, to the left, not past the edge (trial 13: cut off there).
    #[test]
    fn a_name_at_the_edge_stays_inside_the_canvas() {
        let canvas = Rect::from_min_size(Pos2::new(0.0, 0.0), vec2(800.0, 600.0));
        let place = place_free_labels(
            &[Pos2::new(795.0, 300.0)],
            &[vec2(90.0, 15.0)],
            3.0,
            (&[], canvas),
        );
        let name = place[0].expect("a free place");
        assert!(canvas.contains_rect(name), "{name:?}");
    }
}
