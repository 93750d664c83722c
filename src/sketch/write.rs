//! A sketch as a scene file, in the shipped scenes' layout: a comment saying what was drawn,
//! one line per body and joint, numbers as Rust prints them (the shortest text that reads
//! back to the same `f64`, so the saved file simulates exactly what was drawn).

use std::fmt::Write;

use super::{Sketch, SketchBar};

/// The scene file of `sketch`.
pub fn scene_text(sketch: &Sketch) -> String {
    let mut out = String::new();
    let pins = pin_lines(sketch);
    let revolutes = revolute_lines(sketch);
    let sliders = slider_lines(sketch)
        .into_iter()
        .chain(slot_lines(sketch))
        .collect::<Vec<_>>();
    let _ = writeln!(
        out,
        "// {}: drawn in Singulab's sketcher. {}, {}, {}, {}, {}.",
        sketch.title,
        counted(sketch.bars.len(), "bar"),
        counted(pins.len(), "pin"),
        counted(revolutes.len(), "revolute joint"),
        counted(sliders.len(), "slider or slot"),
        counted(
            sketch.points.iter().filter(|p| p.mass.is_some()).count(),
            "point mass"
        ),
    );
    let _ = writeln!(out, "// Points: {}.", point_list(sketch));
    out.push_str("Scene(\n");
    let _ = writeln!(out, "    title: {},", quoted(&sketch.title));
    out.push_str("    description: \"Drawn in the sketcher.\",\n");
    out.push_str("    gravity: [0.0, -9.81],\n");
    let masses = point_masses(sketch);
    list(
        &mut out,
        "bodies",
        sketch
            .bars
            .iter()
            .map(|bar| body_line(sketch, bar))
            .chain(masses.iter().map(|(body, _)| body.clone())),
    );
    list(
        &mut out,
        "joints",
        pins.into_iter()
            .chain(revolutes)
            .chain(masses.into_iter().map(|(_, joint)| joint))
            .chain(sliders),
    );
    list(
        &mut out,
        "velocities",
        sketch.bars.iter().filter_map(|bar| {
            let omega = bar.omega?;
            Some(format!(
                "(body: {}, omega: {})",
                quoted(&bar.name),
                number(omega)
            ))
        }),
    );
    out.push_str("    solver: (dt: 1e-3),\n");
    out.push_str("    run: (t_end: 10.0),\n");
    let _ = writeln!(out, "    view: {},", view_line(sketch));
    out.push_str(")\n");
    out
}

/// `    name: [\n        item,\n    ],` (an empty list on one line).
fn list(out: &mut String, name: &str, items: impl Iterator<Item = String>) {
    let items: Vec<String> = items.collect();
    if items.is_empty() {
        let _ = writeln!(out, "    {name}: [],");
        return;
    }
    let _ = writeln!(out, "    {name}: [");
    for item in items {
        let _ = writeln!(out, "        {item},");
    }
    out.push_str("    ],\n");
}

fn body_line(sketch: &Sketch, bar: &SketchBar) -> String {
    let start = sketch.points[bar.start].at;
    let end = sketch.points[bar.end].at;
    let d = end - start;
    format!(
        "Bar(name: {}, length: {}, mass: {}, start: ({}, {}), angle: {})",
        quoted(&bar.name),
        number(bar.length),
        number(bar.mass),
        number(start.x),
        number(start.y),
        number(d.y.atan2(d.x)),
    )
}

/// Where point `point` is on bar `bar`, as a scene file names it.
fn point_on(sketch: &Sketch, bar: usize, point: usize) -> String {
    let b = &sketch.bars[bar];
    if point == b.start {
        "Start".to_owned()
    } else if point == b.end {
        "End".to_owned()
    } else {
        let along = b
            .along
            .iter()
            .find(|(p, _)| *p == point)
            .map_or(0.0, |a| a.1);
        format!("Along({})", number(along))
    }
}

/// The joints' names at `point`: the point's own for the first, `point.bar` for the others.
fn joint_name(sketch: &Sketch, point: usize, bar: usize, first: bool) -> String {
    let name = &sketch.points[point].name;
    if first {
        name.clone()
    } else {
        format!("{name}.{}", sketch.bars[bar].name)
    }
}

/// A pin for every bar through every ground point.
fn pin_lines(sketch: &Sketch) -> Vec<String> {
    let mut lines = Vec::new();
    for (p, point) in sketch.points.iter().enumerate().filter(|(_, p)| p.ground) {
        for (k, &bar) in sketch.bars_at(p).iter().enumerate() {
            lines.push(format!(
                "Pin(name: {}, body: {}, at: {}, ground: ({}, {}))",
                quoted(&joint_name(sketch, p, bar, k == 0)),
                quoted(&sketch.bars[bar].name),
                point_on(sketch, bar, p),
                number(point.at.x),
                number(point.at.y),
            ));
        }
    }
    lines
}

/// At every other point shared by bars, the first bar joined to each of the others.
fn revolute_lines(sketch: &Sketch) -> Vec<String> {
    let mut lines = Vec::new();
    for p in (0..sketch.points.len()).filter(|&p| !sketch.points[p].ground) {
        let bars = sketch.bars_at(p);
        let Some((&first, others)) = bars.split_first() else {
            continue;
        };
        for (k, &other) in others.iter().enumerate() {
            lines.push(format!(
                "Revolute(name: {}, a: {}, at_a: {}, b: {}, at_b: {})",
                quoted(&joint_name(sketch, p, other, k == 0)),
                quoted(&sketch.bars[first].name),
                point_on(sketch, first, p),
                quoted(&sketch.bars[other].name),
                point_on(sketch, other, p),
            ));
        }
    }
    lines
}

/// The point masses: each a `Point` body named `<point> mass` after the bars, and the
/// revolute `<point>.mass` hinging it to the first bar through its point.
fn point_masses(sketch: &Sketch) -> Vec<(String, String)> {
    let mut masses = Vec::new();
    for (p, point) in sketch.points.iter().enumerate() {
        let (Some(mass), Some(&bar)) = (point.mass, sketch.bars_at(p).first()) else {
            continue;
        };
        let body = format!("{} mass", point.name);
        masses.push((
            format!(
                "Point(name: {}, mass: {}, position: [{}, {}])",
                quoted(&body),
                number(mass),
                number(point.at.x),
                number(point.at.y),
            ),
            format!(
                "Revolute(name: {}, a: {}, at_a: {}, b: {}, at_b: Center)",
                quoted(&format!("{}.mass", point.name)),
                quoted(&sketch.bars[bar].name),
                point_on(sketch, bar, p),
                quoted(&body),
            ),
        ));
    }
    masses
}

/// A slider for every sliding point on a bar: its first bar on the guide. Named after the
/// point, or `point.guide` where revolute joints there take the point's name.
fn slider_lines(sketch: &Sketch) -> Vec<String> {
    let mut lines = Vec::new();
    for (p, point) in sketch.points.iter().enumerate() {
        let (Some(guide), Some(&bar)) = (point.guide, sketch.bars_at(p).first()) else {
            continue;
        };
        let name = if sketch.bars_at(p).len() > 1 {
            format!("{}.guide", point.name)
        } else {
            point.name.clone()
        };
        // cos(pi/2) is 6e-17: a vertical guide reads (0.0, 1.0).
        let axis = guide.axis().map(|c| if c.abs() < 1e-12 { 0.0 } else { c });
        lines.push(format!(
            "Slider(name: {}, body: {}, at: {}, through: ({}, {}), axis: ({}, {}))",
            quoted(&name),
            quoted(&sketch.bars[bar].name),
            point_on(sketch, bar, p),
            number(guide.origin.x),
            number(guide.origin.y),
            number(axis.x),
            number(axis.y),
        ));
    }
    lines
}

/// A pin in a slot for every point sliding in a bar: its first bar is the pin's, the slot
/// the bar's axis from its start. Named after the point, or `point.slot` where revolute
/// joints there take the name.
fn slot_lines(sketch: &Sketch) -> Vec<String> {
    let mut lines = Vec::new();
    for (p, point) in sketch.points.iter().enumerate() {
        let slot = point.slot.as_deref().and_then(|b| sketch.bar_index(b));
        let (Some(slot), Some(&bar)) = (slot, sketch.bars_at(p).first()) else {
            continue;
        };
        let name = if sketch.bars_at(p).len() > 1 {
            format!("{}.slot", point.name)
        } else {
            point.name.clone()
        };
        lines.push(format!(
            "Slot(name: {}, a: {}, at_a: {}, b: {}, at_b: Start, axis: (1.0, 0.0))",
            quoted(&name),
            quoted(&sketch.bars[bar].name),
            point_on(sketch, bar, p),
            quoted(&sketch.bars[slot].name),
        ));
    }
    lines
}

fn point_list(sketch: &Sketch) -> String {
    if sketch.points.is_empty() {
        return "none".to_owned();
    }
    let points: Vec<String> = sketch
        .points
        .iter()
        .map(|p| {
            let ground = match (p.ground, p.guide) {
                (true, _) => " on the ground".to_owned(),
                (false, Some(g)) => format!(" sliding at {:.1} degrees", g.angle.to_degrees()),
                _ => String::new(),
            };
            format!("{} ({:.3}, {:.3}){ground}", p.name, p.at.x, p.at.y)
        })
        .collect();
    points.join(", ")
}

/// The view: every point in sight with a margin, the first bar no ground point holds (a
/// coupler) traced.
fn view_line(sketch: &Sketch) -> String {
    let (mut low, mut high) = (
        nalgebra::Vector2::repeat(f64::INFINITY),
        nalgebra::Vector2::repeat(f64::NEG_INFINITY),
    );
    for p in &sketch.points {
        low = low.inf(&p.at);
        high = high.sup(&p.at);
    }
    if sketch.points.is_empty() {
        (low, high) = (nalgebra::Vector2::zeros(), nalgebra::Vector2::zeros());
    }
    let centre = 0.5 * (low + high);
    let size = high - low;
    // Room for the bars to turn: twice the drawing, at least 2 m.
    let width = (2.0 * size.x.max(1.6 * size.y)).max(2.0);
    let trace = (0..sketch.bars.len())
        .find(|&b| !sketch.is_crank(b))
        .map(|b| format!(", trace: {}", quoted(&sketch.bars[b].name)))
        .unwrap_or_default();
    format!(
        "(center: ({}, {}), width: {}{trace})",
        number(centre.x),
        number(centre.y),
        number(width)
    )
}

/// "1 bar", "2 bars", "2 point masses", "2 sliders or slots".
fn counted(count: usize, what: &str) -> String {
    match count {
        1 => format!("1 {what}"),
        _ if what.ends_with("mass") => format!("{count} {what}es"),
        _ if what.ends_with(" or slot") => format!("{count} sliders or slots"),
        _ => format!("{count} {what}s"),
    }
}

/// `v` as Rust prints an `f64` (round-trips exactly), never `-0.0`.
fn number(v: f64) -> String {
    format!("{:?}", v + 0.0)
}

/// A RON string: the sketch's names hold no quote or backslash ([`super::SketchError::BadName`]).
fn quoted(text: &str) -> String {
    format!("{text:?}")
}
