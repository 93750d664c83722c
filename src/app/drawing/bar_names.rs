//! The bars' names: each placed beside its bar where it covers no other text and as little
//! of the mechanism and the arrows as the bar allows, kept in place from frame to frame.

use bevy_egui::egui::{self, Pos2, Stroke, vec2};

use super::Canvas;
use super::ink::Ink;
use super::mechanism::{BarOnScreen, DrawnMechanism};
use super::shapes::BodyName;
use crate::app::theme::Palette;

/// How many rows out from its bar a name may go to find a free place (at a hall's type the
/// five names of A02's flat pose need four).
const NAME_ROWS: usize = 4;

/// What the bars' names keep clear of: the arrows' heads and shafts (`arrows`, where the bar
/// has room) and the text a name must never cover (`text`: the scale bar).
pub(super) struct Clearance<'a> {
    pub arrows: &'a [egui::Rect],
    pub text: &'a [egui::Rect],
}

/// Where (the centre) each bar's name stood on the last frame of one canvas, by body
/// index: [`choose_spot`] keeps a name near there while it can, so names follow their bars
/// from frame to frame instead of hopping (trial 19: while A02's loops fold, names changed
/// sides within 1/20 s of a video).
pub(super) type NameSpots = std::collections::HashMap<usize, Pos2>;

/// The cost (pieces of ink) a name's spot may have beyond the best spot's and still be
/// taken for being nearer where the name was.
const NAME_STAY: usize = 3;

/// What a spot of [`ring_spots`], away from its bar, costs beyond the ink it covers: a
/// spot beside the bar covering up to this many pieces is taken first, and one covering
/// none is taken over it whatever the name's last place (more than [`NAME_STAY`]).
const RING_COST: usize = 4;

impl DrawnMechanism {
    /// The bars' names (for [`paint_names`] to paint, after the bars, under the arrows):
    /// each where it covers no other name nor the `clear.text` (the legend, the time, the
    /// scale bar, the reactions' names), and as few arrows, hinges, ground symbols and other
    /// bars as the bar allows. Bars lying on each other end to end (A02's cranks on its
    /// couplers at the flat pose) take one name, "crank2, coupler1": five names crowded
    /// three segments. `spots` holds where each name stood on the last frame.
    pub(super) fn place_names(
        &self,
        canvas: &Canvas,
        clear: &Clearance,
        spots: &mut NameSpots,
    ) -> Vec<BodyName> {
        let bars = &self.bars;
        let keep_clear = KeepClear::new(clear, &self.grounds, &self.hinges, bars);
        let mut names: Vec<BodyName> = Vec::new();
        let mut named = vec![false; bars.len()];
        for (k, bar) in bars.iter().enumerate() {
            if named[k] {
                continue;
            }
            let together: Vec<usize> = (k..bars.len())
                .filter(|&j| on_each_other(&bars[j], bar))
                .collect();
            let text = together
                .iter()
                .map(|&j| {
                    named[j] = true;
                    canvas.mech.bodies()[bars[j].index].name.as_str()
                })
                .collect::<Vec<_>>()
                .join(", ");
            let spot = place_bar_name(
                canvas,
                (bar, text),
                bars,
                &keep_clear,
                &mut names,
                spots.get(&bar.index).copied(),
            );
            match spot {
                Some(at) => spots.insert(bar.index, at),
                None => spots.remove(&bar.index),
            };
        }
        names
    }
}

/// Where a name should not go: `clear`'s arrows, other bars and hinges (each piece counts
/// once) and the ground symbols (each counts as many pieces as [`GROUND_WEIGHT`]), where the
/// bar has room; `clear`'s text never.
pub(super) struct KeepClear<'a> {
    clear: &'a Clearance<'a>,
    grounds: &'a [egui::Rect],
    /// The hinges' discs.
    hinges: Ink,
    /// Per bar (as [`bars_on_screen`] orders them), its body index and its pieces.
    bars: Vec<(usize, Ink)>,
}

/// A ground symbol under a name hides which pivot is grounded: a name covers several arrow
/// pieces before it covers one.
const GROUND_WEIGHT: usize = 10;

/// A hinge under a name hides which bars it joins: as bad as a ground symbol.
const HINGE_WEIGHT: usize = GROUND_WEIGHT;

impl<'a> KeepClear<'a> {
    pub(super) fn new(
        clear: &'a Clearance<'a>,
        grounds: &'a [egui::Rect],
        hinges: &[(Pos2, f32)],
        bars: &[BarOnScreen],
    ) -> Self {
        let mut hinge_ink = Ink::default();
        for &(p, r) in hinges {
            hinge_ink.disc(p, r);
        }
        let bars = bars
            .iter()
            .map(|bar| {
                let mut ink = Ink::default();
                ink.segment(bar.ends[0], bar.ends[1], bar.radius);
                (bar.index, ink)
            })
            .collect();
        Self {
            clear,
            grounds,
            hinges: hinge_ink,
            bars,
        }
    }

    /// How much a name of the bar `own` at `r` would cover.
    fn covered(&self, r: &egui::Rect, own: usize) -> usize {
        let count = |rects: &[egui::Rect]| rects.iter().filter(|a| a.intersects(*r)).count();
        let other_bars: usize = self
            .bars
            .iter()
            .filter(|(index, _)| *index != own)
            .map(|(_, ink)| ink.covered(r))
            .sum();
        count(self.clear.arrows)
            + GROUND_WEIGHT * count(self.grounds)
            + HINGE_WEIGHT * self.hinges.covered(r)
            + other_bars
    }

    /// The bars, hinges and ground symbols, for the motions' labels.
    pub(super) fn into_ink(self) -> Ink {
        let mut ink = self.hinges;
        for (_, bar) in self.bars {
            ink.extend(bar.pieces().iter().copied());
        }
        ink.extend(self.grounds.iter().copied());
        ink
    }
}

/// Whether a name centred at `at` lies nearer another bar than `bar` (by more than a few
/// pixels), so a reader would take it for that bar's: where bars cross or fold, the spot
/// beside one can be on the other. Bars lying on each other (a coupler on a crank) are
/// equally near, whatever their widths: either side names both.
fn reads_as_another_bar(at: Pos2, bar: &BarOnScreen, bars: &[BarOnScreen]) -> bool {
    /// Pixels by which another bar must be nearer.
    const MARGIN: f32 = 3.0;
    let own = bar.axis_distance(at);
    bars.iter()
        .any(|other| other.index != bar.index && other.axis_distance(at) + MARGIN < own)
}

/// Whether the line from `on_bar` (on `bar`) to `to` passes over a bar other than `bar`
/// and those lying on it: a name tied across crank 3 read as crank 3's (trial 19).
fn leader_crosses_another_bar(
    on_bar: Pos2,
    to: Pos2,
    bar: &BarOnScreen,
    bars: &[BarOnScreen],
) -> bool {
    bars.iter()
        .filter(|other| other.index != bar.index && !on_each_other(other, bar))
        .any(|other| {
            (1..=20).any(|k| {
                // Over its own bar (out past a pivot it shares) it crosses nothing.
                let p = on_bar.lerp(to, k as f32 / 20.0);
                bar.axis_distance(p) > bar.radius + 2.0
                    && other.axis_distance(p) <= other.radius + 1.0
            })
        })
}

/// Pixels kept between two names' backings.
const NAME_GAP: f32 = 4.0;

/// A place tried for a bar's name, `leader`, the point on the bar a name set away from it is
/// tied to, and `extra`, what it costs beyond the ink it covers for being away from the bar.
struct Spot {
    extra: usize,
    rect: egui::Rect,
    leader: Option<Pos2>,
}

/// The places tried for a name of `size` beside `bar`, in order: along it, on its side
/// then on the other (alternating by body, so bars lying on each other keep readable names),
/// next to it, then beyond its ends, then up to [`NAME_ROWS`] rows further out; each with
/// the point on the bar a name set further out is tied to by a line.
fn name_spots(bar: &BarOnScreen, size: egui::Vec2) -> Vec<Spot> {
    let [pa, pb] = bar.ends;
    let d = (pb - pa).normalized();
    let normal = vec2(-d.y, d.x);
    let up = if normal.y > 0.0 { -1.0 } else { 1.0 };
    let side = if bar.index.is_multiple_of(2) { up } else { -up };
    // Next to the bar at any type size and angle (the name's half extent across the bar: its
    // half width beside an upright bar, which a half height left under the name).
    let across = half_extent(normal, size);
    let near = bar.radius + across + NAME_GAP;
    let row_step = 2.0 * across + 2.0 * NAME_GAP + 1.0;
    let beside = move |row: usize| {
        let offset = near + row as f32 * row_step;
        [0.5, 0.3, 0.7, 0.15, 0.85]
            .into_iter()
            .flat_map(move |along| [(along, side), (along, -side)])
            .map(move |(along, side)| {
                let on_bar = pa + along * (pb - pa);
                Spot {
                    extra: row,
                    rect: egui::Rect::from_center_size(on_bar + side * offset * normal, size),
                    leader: (row > 0).then_some(on_bar),
                }
            })
    };
    // Beyond either end, along the bar: between two upright cranks closer than a name is
    // wide (A02's middle crank in a lesson's frame at a hall's type) neither side is the
    // bar's own; the second place clears a ground symbol under a pinned end.
    let lengthwise = half_extent(d, size);
    // Both are tied to the bar a little in from its end: untied, a name beyond a pinned end
    // read as the ground's (trial 19); tied to the end itself, a pivot other bars share, it
    // named the pivot (trial 17).
    let beyond = [(pb, pa, d), (pa, pb, -d)]
        .into_iter()
        .flat_map(move |(end, other, out)| {
            let first = bar.radius + lengthwise + NAME_GAP;
            let tie = end.lerp(other, 0.15);
            [first, first + GROUND_CLEARANCE].map(|offset| Spot {
                extra: 0,
                rect: egui::Rect::from_center_size(end + offset * out, size),
                leader: Some(tie),
            })
        });
    beside(0)
        .chain(beyond)
        .chain((1..NAME_ROWS).flat_map(beside))
        .collect()
}

/// Half the extent of a name of `size` along the unit direction `dir`.
fn half_extent(dir: egui::Vec2, size: egui::Vec2) -> f32 {
    0.5 * (dir.x.abs() * size.x + dir.y.abs() * size.y)
}

/// Further places for a name of `size`, past those of [`name_spots`]: around the bar's
/// middle in [`RING_DIRECTIONS`] directions, [`RING_STEP`] pixels further out each
/// ring, each tied to the middle by a line and clear of the bar. A folded pair crowded by
/// the bars around it (A02's crank 2 on coupler 1 folding on branch 1) has every spot beside
/// it nearer another bar, and at a hall's type most spots rows out off the canvas: its
/// name went missing for frames on end.
fn ring_spots(bar: &BarOnScreen, size: egui::Vec2) -> Vec<Spot> {
    let [pa, pb] = bar.ends;
    let middle = pa.lerp(pb, 0.5);
    (1..=RINGS)
        .flat_map(|ring| (0..RING_DIRECTIONS).map(move |k| (ring, k)))
        .filter_map(|(ring, k)| {
            let angle = std::f32::consts::TAU * k as f32 / RING_DIRECTIONS as f32;
            let dir = vec2(angle.cos(), angle.sin());
            let reach = bar.radius + NAME_GAP + half_extent(dir, size) + ring as f32 * RING_STEP;
            let rect = egui::Rect::from_center_size(middle + reach * dir, size);
            let clear = bar.axis_distance_to_rect(&rect) >= bar.radius + NAME_GAP;
            clear.then_some(Spot {
                extra: RING_COST,
                rect,
                leader: Some(middle),
            })
        })
        .collect()
}

/// Directions tried around a bar's middle by [`ring_spots`].
const RING_DIRECTIONS: usize = 16;

/// Rings tried around a bar's middle by [`ring_spots`], each [`RING_STEP`] pixels out.
const RINGS: usize = 6;
const RING_STEP: f32 = 16.0;

/// Pixels a name beyond a bar's end goes further out to clear a ground symbol there.
const GROUND_CLEARANCE: f32 = 24.0;

/// Whether the bars `a` and `b` lie on each other end to end on the screen (either way
/// round), their ends within [`ON_EACH_OTHER`] pixels.
fn on_each_other(a: &BarOnScreen, b: &BarOnScreen) -> bool {
    let near = |p: Pos2, q: Pos2| p.distance(q) <= ON_EACH_OTHER;
    let [a0, a1] = a.ends;
    let [b0, b1] = b.ends;
    (near(a0, b0) && near(a1, b1)) || (near(a0, b1) && near(a1, b0))
}

/// Pixels within which the ends of two bars lying on each other meet.
const ON_EACH_OTHER: f32 = 3.0;

/// The name of `bar`, at a free spot (inside the canvas, a few pixels from every name
/// placed before and from `keep_clear.text`, its line crossing no other bar) of
/// [`name_spots`] nearer this bar than any other (each row out costing one piece more), or
/// of [`ring_spots`] at [`RING_COST`] more, tied to the bar by a line: the one
/// [`choose_spot`] takes by the ink of `keep_clear` each covers (the arrows, painted over
/// the names, stay whole) and where the name stood `last`. None free (a canvas too small
/// for the name): no name rather than a garbled one. Returns where the name stands.
fn place_bar_name(
    canvas: &Canvas,
    (bar, text): (&BarOnScreen, String),
    bars: &[BarOnScreen],
    keep_clear: &KeepClear,
    names: &mut Vec<BodyName>,
    last: Option<Pos2>,
) -> Option<Pos2> {
    let galley =
        canvas
            .painter
            .layout_no_wrap(text, canvas.palette.font(14.0), canvas.palette.text);
    let size = galley.size();
    let taken = |spot: &Spot| {
        let kept = spot.rect.expand(NAME_GAP);
        !canvas.rect.contains_rect(spot.rect)
            || names.iter().any(|other| other.area().intersects(kept))
            || keep_clear
                .clear
                .text
                .iter()
                .any(|text| text.intersects(kept))
    };
    let ties_across = |spot: &Spot| {
        spot.leader.is_some_and(|on_bar| {
            let nearest = on_bar.clamp(spot.rect.min, spot.rect.max);
            leader_crosses_another_bar(on_bar, nearest, bar, bars)
        })
    };
    let beside = name_spots(bar, size)
        .into_iter()
        .filter(|spot| !reads_as_another_bar(spot.rect.center(), bar, bars));
    let mut free: Vec<Spot> = beside
        .chain(ring_spots(bar, size))
        .filter(|spot| !taken(spot) && !ties_across(spot))
        .collect();
    let costs: Vec<_> = free
        .iter()
        .map(|spot| {
            let covered = keep_clear.covered(&spot.rect, bar.index);
            (spot.rect.center(), covered + spot.extra)
        })
        .collect();
    let Spot { rect, leader, .. } = free.swap_remove(choose_spot(&costs, last)?);
    let over_arrows = keep_clear.clear.arrows.iter().any(|a| a.intersects(rect));
    names.push(BodyName {
        rect,
        galley,
        over_arrows,
        leader,
    });
    Some(rect.center())
}

/// Of the free spots (each its centre and cost, in the order tried), the position of the
/// first one costing least (`min_by_key` keeps the first), or, where the name stood `last`,
/// of the one nearest there within [`STAY_WITHIN`] pixels costing at most [`NAME_STAY`]
/// more: a name follows its bar while it can and otherwise goes to the best spot, not to
/// whichever is nearest (at A02's flat pose that was a spot rows out).
fn choose_spot(free: &[(Pos2, usize)], last: Option<Pos2>) -> Option<usize> {
    let best = (0..free.len()).min_by_key(|&k| free[k].1)?;
    let stay = last.and_then(|last| {
        (0..free.len())
            .filter(|&k| free[k].1 <= free[best].1 + NAME_STAY)
            .map(|k| (k, free[k].0.distance(last)))
            .filter(|&(_, moved)| moved <= STAY_WITHIN)
            .min_by(|a, b| a.1.total_cmp(&b.1))
    });
    Some(stay.map_or(best, |(k, _)| k))
}

/// Pixels a name may move from one frame to the next to stay with its bar.
const STAY_WITHIN: f32 = 30.0;

/// Paints the names on an opaque backing (as the arrows' labels: translucent, it greys the
/// light theme's white), each placed away from its bar tied to a dot on it by a line.
pub(super) fn paint_names(painter: &egui::Painter, names: &[BodyName], palette: &Palette) {
    for name in names {
        if let Some(on_bar) = name.leader {
            let nearest = on_bar.clamp(name.rect.min, name.rect.max);
            // In the text's colour, with a dot where it meets its bar: faint and grey, a
            // projector's class could not follow it (trial 19: 3.9:1).
            painter.line_segment([on_bar, nearest], Stroke::new(1.5, palette.text));
            painter.circle_filled(on_bar, 2.5, palette.text);
        }
    }
    for name in names.iter().filter(|name| !name.over_arrows) {
        painter.rect_filled(name.area(), 3.0, palette.background);
        painter.galley(name.rect.min, name.galley.clone(), palette.text);
    }
}

/// Paints the names that lie over arrows, after the arrows: each in a halo of the
/// background, which hides only what is under its letters.
pub(super) fn paint_names_over_arrows(
    painter: &egui::Painter,
    names: &[BodyName],
    palette: &Palette,
) {
    const HALO: f32 = 1.5;
    for name in names.iter().filter(|name| name.over_arrows) {
        for (dx, dy) in [
            (-1, -1),
            (-1, 0),
            (-1, 1),
            (0, -1),
            (0, 1),
            (1, -1),
            (1, 0),
            (1, 1),
        ] {
            let at = name.rect.min + HALO * vec2(dx as f32, dy as f32);
            painter.galley_with_override_text_color(at, name.galley.clone(), palette.background);
        }
        painter.galley(name.rect.min, name.galley.clone(), palette.text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A name takes, of the spots within 30 px of where it stood and costing at most three
    /// more than the best, the nearest (trial 19: names hopped sides while A02's loops
    /// folded); with no last place, or none near enough in place and cost, the first
    /// costing least.
    #[test]
    fn a_name_stays_near_where_it_was_unless_another_spot_is_much_clearer() {
        let at = |x: f32| Pos2::new(x, 0.0);
        let free = [(at(0.0), 4), (at(100.0), 1), (at(200.0), 1), (at(300.0), 0)];
        assert_eq!(choose_spot(&free, None), Some(3));
        assert_eq!(
            choose_spot(&free, Some(at(190.0))),
            Some(2),
            "1 more: nearest"
        );
        assert_eq!(
            choose_spot(&free, Some(at(10.0))),
            Some(3),
            "4 more: the best"
        );
        assert_eq!(
            choose_spot(&free, Some(at(150.0))),
            Some(3),
            "none near: the best"
        );
        assert_eq!(
            choose_spot(&[(at(2.0), 1), (at(5.0), 1)], None),
            Some(0),
            "the first"
        );
        assert_eq!(choose_spot(&[], Some(at(2.0))), None);
    }

    /// A name beside its bar at any angle covers none of it (a name beside an upright bar,
    /// set off by half its height, sat on the bar: trial 14 at A02's start).
    #[test]
    fn a_name_beside_its_bar_keeps_off_it_at_any_angle() {
        let size = egui::vec2(90.0, 20.0);
        for degrees in (0..180).step_by(15) {
            let angle = (degrees as f32).to_radians();
            let a = Pos2::new(400.0, 400.0);
            let bar = BarOnScreen {
                index: 0,
                ends: [a, a + 200.0 * vec2(angle.cos(), angle.sin())],
                radius: 6.0,
            };
            for Spot { rect, .. } in name_spots(&bar, size) {
                let nearest = (0..=100)
                    .map(|k| rect.distance_to_pos(bar.ends[0].lerp(bar.ends[1], k as f32 / 100.0)))
                    .fold(f32::INFINITY, f32::min);
                assert!(
                    nearest >= bar.radius,
                    "{degrees} degrees: {rect:?} {nearest}"
                );
            }
        }
    }

    /// The places around a bar keep off the bar at every angle, tied to its middle by a line.
    #[test]
    fn the_ring_around_a_bar_keeps_off_it_and_is_tied_to_it() {
        let size = egui::vec2(150.0, 20.0);
        for degrees in (0..180).step_by(20) {
            let angle = (degrees as f32).to_radians();
            let a = Pos2::new(400.0, 400.0);
            let bar = BarOnScreen {
                index: 2,
                ends: [a, a + 80.0 * vec2(angle.cos(), angle.sin())],
                radius: 5.0,
            };
            let ring = ring_spots(&bar, size);
            assert!(
                ring.len() > RING_DIRECTIONS,
                "{degrees} degrees: {}",
                ring.len()
            );
            for spot in ring {
                assert!(bar.axis_distance_to_rect(&spot.rect) >= bar.radius);
                assert_eq!(spot.leader, Some(a.lerp(bar.ends[1], 0.5)));
            }
        }
    }

    /// A02's flat pose: crank2 on coupler1 end to end (drawn from the other end), crank1
    /// beside them; a bar lying only partly on another is not on it.
    #[test]
    fn bars_end_to_end_on_each_other_are_told_apart_from_bars_beside_them() {
        let bar = |index, a: (f32, f32), b: (f32, f32)| BarOnScreen {
            index,
            ends: [Pos2::new(a.0, a.1), Pos2::new(b.0, b.1)],
            radius: 6.0,
        };
        let coupler1 = bar(1, (300.0, 500.0), (500.0, 500.0));
        let crank2 = bar(2, (500.0, 501.5), (301.0, 499.0));
        let crank1 = bar(0, (100.0, 500.0), (300.0, 500.0));
        let half = bar(3, (300.0, 500.0), (400.0, 500.0));
        assert!(on_each_other(&coupler1, &crank2));
        assert!(!on_each_other(&coupler1, &crank1));
        assert!(!on_each_other(&coupler1, &half));
    }
}
