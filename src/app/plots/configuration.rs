//! The configuration-space plot at the top of the plots panel: the scene's atlas (traced by
//! [`AtlasView`]) as its curves projected on two coordinates the user picks, the singular
//! points marked (named after the run's event there, when the run met one), and the current
//! state as a dot with the path the run took over the curves.

use bevy_egui::egui::{self, Color32, Ui};
use egui_plot::{
    HoverPosition, Line, LineStyle, MarkerShape, Plot, PlotPoint, PlotPoints, Points, Text,
};
use nalgebra::DVector;

use super::axes::{angle_axis, axes as themed_axes, label_axes};
use crate::app::atlas_view::{AtlasView, PATH_SAMPLES};
use crate::app::commands::AppCommand;
use crate::app::simulation::Live;
use crate::app::theme::Palette;
use crate::atlas::angle_coordinates;
use crate::model::Mechanism;

/// Pixels from a singular point's marker within which a click goes to its event.
const CLICK_RADIUS: f32 = 10.0;

/// How the plot is seen: in which theme, and whether by viewers (presenting, a video), for
/// whom nothing follows the hidden pointer (no readout, rulers, hint or ghost).
#[derive(Clone, Copy)]
pub struct Look {
    pub light: bool,
    pub viewer: bool,
}

/// The plot, `height` points tall, at the top of the plots panel; a click on a singular point
/// the run met sends [`AppCommand::GotoEvent`], on another singular point or a curve
/// [`AppCommand::PoseAt`] it or the curve's nearest traced point.
pub fn show_configuration_plot(
    ui: &mut Ui,
    live: &Live,
    view: &mut AtlasView,
    height: f32,
    look: Look,
    ghost: &mut Option<DVector<f64>>,
    commands: &mut Vec<AppCommand>,
) {
    let palette = Palette::for_theme(look.light);
    let atlas = match &view.atlas {
        // The atlas and axes of the scene before, for the frame a new one opens in.
        _ if !view.is_of(live.generation) => {
            ui.label("tracing the configuration set…");
            return;
        }
        None => {
            ui.label("tracing the configuration set…");
            return;
        }
        Some(Err(why)) => {
            ui.label(format!("no atlas: {why}"));
            return;
        }
        Some(Ok(atlas)) => atlas.clone(),
    };
    let names = coordinate_names(&live.session.scene().mechanism);
    let mut axes = view
        .axes
        .filter(|axes| axes.iter().all(|&a| a < names.len()))
        .unwrap_or([0, 1.min(names.len().saturating_sub(1))]);
    ui.horizontal(|ui| {
        for (k, label) in ["x", "y"].into_iter().enumerate() {
            egui::ComboBox::from_id_salt(("atlas axis", k))
                .selected_text(format!(
                    "{label}: {}",
                    names.get(axes[k]).map_or("", String::as_str)
                ))
                .show_ui(ui, |ui| {
                    for (i, name) in names.iter().enumerate() {
                        ui.selectable_value(&mut axes[k], i, name);
                    }
                });
        }
    });
    view.axes = Some(axes);
    follow_path(view, live, axes);
    let x = live.session.simulation().positions();
    let events = live.session.events();
    let mechanism = &live.session.scene().mechanism;
    let all_angles = angle_coordinates(mechanism);
    let angles = [all_angles[axes[0]], all_angles[axes[1]]];
    // The axes as the other plots': labels at full strength, decimals of the step.
    let mut plot = label_axes(themed_axes(Plot::new("plot_atlas"), palette.text), false);
    for (k, angle) in angles.into_iter().enumerate() {
        if angle {
            plot = angle_axis(plot, k == 0);
        }
    }
    // The plot frames the configuration set, not the run's path or the pose: a click that
    // poses the mechanism elsewhere leaves the axes where they were (the next click lands
    // where the first did). Double-click gives this frame back after a zoom.
    if let Some([lo, hi]) = atlas_extent(&atlas, axes, angles) {
        // Equal scales on both axes (`data_aspect`): the shorter side of the set widens to
        // the plot's proportions (about: the axes' labels take some of it), so all of it
        // shows.
        let size = [ui.available_width() - 60.0, height - 40.0].map(|v| f64::from(v.max(10.0)));
        let mut half = [
            0.55 * (hi[0] - lo[0]).max(0.1),
            0.55 * (hi[1] - lo[1]).max(0.1),
        ];
        half[0] = half[0].max(half[1] * size[0] / size[1]);
        half[1] = half[1].max(half[0] * size[1] / size[0]);
        let centre = [0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1])];
        plot = plot
            .default_x_bounds(centre[0] - half[0], centre[0] + half[0])
            .default_y_bounds(centre[1] - half[1], centre[1] + half[1]);
    }
    let (x_name, y_name) = (names[axes[0]].clone(), names[axes[1]].clone());
    if look.viewer {
        plot = plot.show_x(false).show_y(false);
    }
    let viewer = look.viewer;
    plot.height(height)
        .data_aspect(1.0)
        .label_formatter(move |position| {
            let p = match position {
                HoverPosition::NearDataPoint { position, .. }
                | HoverPosition::Elsewhere { position } => position,
            };
            (!viewer).then(|| format!("{x_name} {:.4}\n{y_name} {:.4}", p.x, p.y))
        })
        .x_axis_label(axis_name(&names[axes[0]], angles[0]))
        .y_axis_label(axis_name(&names[axes[1]], angles[1]))
        .show(ui, |plot_ui| {
            for curve in &atlas.curves {
                let generic = curve.rank.iter().copied().max().unwrap_or(0);
                let singular = curve.len() > 2 && curve.rank[curve.len() / 2] < generic;
                let points = (0..curve.len())
                    .map(|k| curve.point(k))
                    .map(|p| [p[axes[0]], p[axes[1]]]);
                for piece in wrapped_pieces(points, angles) {
                    let line = Line::new("", PlotPoints::from(piece)).width(2.0);
                    plot_ui.line(if singular {
                        line.color(palette.motions[0])
                            .style(LineStyle::dashed_dense())
                    } else {
                        line.color(palette.text.gamma_multiply(0.8))
                    });
                }
            }
            let markers: Vec<Marker> = atlas
                .singular
                .iter()
                .enumerate()
                .map(|(k, point)| Marker {
                    number: k + 1,
                    at: wrap([point.x[axes[0]], point.x[axes[1]]], angles),
                    event: events.iter().position(|e| same_pose(&e.x, &point.x)),
                })
                .collect();
            for marker in &markers {
                plot_ui.points(
                    Points::new("", vec![marker.at])
                        .shape(MarkerShape::Diamond)
                        .radius(6.0)
                        .color(palette.motions[0]),
                );
            }
            // Singular points that project onto one place share one label.
            for (at, group) in same_places(&markers) {
                let name = group
                    .iter()
                    .map(|m| m.name(events))
                    .collect::<Vec<_>>()
                    .join(", ");
                plot_ui.text(
                    Text::new(
                        "",
                        PlotPoint::new(at[0], at[1]),
                        // Read from afar when presenting: the canvas' text scale.
                        egui::RichText::new(name).size(if viewer { 17.0 } else { 13.0 }),
                    )
                    .color(palette.text)
                    .anchor(egui::Align2::LEFT_BOTTOM),
                );
            }
            // A click on a singular point the run met goes to that event, as the events
            // list's "go to" does; on one it did not meet, poses the mechanism there, at rest
            // (a pose at a singular configuration is an event). Of several under the
            // pointer, an event first, then the nearest.
            if plot_ui.response().clicked()
                && let Some(pointer) = plot_ui.response().hover_pos()
            {
                let distance = |m: &Marker| {
                    let screen = plot_ui.screen_from_plot(PlotPoint::new(m.at[0], m.at[1]));
                    pointer.distance(screen)
                };
                let under = markers
                    .iter()
                    .map(|m| (m, distance(m)))
                    .filter(|(_, d)| *d <= CLICK_RADIUS);
                let chosen = preferred(under);
                if let Some(marker) = chosen {
                    commands.push(match marker.event {
                        Some(i) => AppCommand::GotoEvent(i),
                        None => AppCommand::PoseAt(atlas.singular[marker.number - 1].x.clone()),
                    });
                }
            }
            // Pointing at a curve shows its pose as a ghost on the canvas; a click (not on
            // a singular point) poses the mechanism there, at rest. Where several
            // configurations project onto the pointer the plot says so, and clicks there go
            // through them in turn (the ghost shows the one the click poses).
            let under = plot_ui
                .response()
                .hover_pos()
                .filter(|_| !viewer)
                .map_or_else(Vec::new, |pointer| {
                    configurations_under(&atlas, axes, angles, |p| {
                        plot_ui
                            .screen_from_plot(PlotPoint::new(p[0], p[1]))
                            .distance(pointer)
                    })
                });
            let next = next_configuration(&under, live.session.simulation().positions());
            // (A click on a singular point goes to it, whatever curves pass there.)
            let on_marker = plot_ui.response().hover_pos().is_some_and(|pointer| {
                markers.iter().any(|m| {
                    let screen = plot_ui.screen_from_plot(PlotPoint::new(m.at[0], m.at[1]));
                    pointer.distance(screen) <= CLICK_RADIUS
                })
            });
            if let Some(k) = next
                && under.len() > 1
                && !on_marker
            {
                // At the top of the plot, clear of the pointer's coordinates below it.
                let bounds = plot_ui.plot_bounds();
                plot_ui.text(
                    Text::new(
                        "",
                        PlotPoint::new(bounds.center().x, bounds.max()[1]),
                        egui::RichText::new(format!(
                            "{} configurations here: a click poses {}",
                            under.len(),
                            ordinal(k + 1)
                        ))
                        .size(13.0)
                        .background_color(palette.background),
                    )
                    .color(palette.text)
                    .anchor(egui::Align2::CENTER_TOP),
                );
            }
            let pointed = next.map(|k| under[k].clone());
            if let Some(x) = &pointed
                && plot_ui.response().clicked()
                && !commands
                    .iter()
                    .any(|c| matches!(c, AppCommand::GotoEvent(_) | AppCommand::PoseAt(_)))
            {
                commands.push(AppCommand::PoseAt(x.clone()));
            }
            *ghost = pointed;
            for piece in wrapped_pieces(view.path.iter().copied(), angles) {
                plot_ui.line(
                    Line::new("", PlotPoints::from(piece))
                        .color(palette.motions[1])
                        .width(2.0),
                );
            }
            plot_ui.points(
                Points::new("", vec![wrap([x[axes[0]], x[axes[1]]], angles)])
                    .radius(5.0)
                    .filled(true)
                    .color(Color32::from_rgb(230, 60, 60)),
            );
        });
}

/// An axis' title: the coordinate and its unit (an Euler parameter has none).
fn axis_name(name: &str, angle: bool) -> String {
    let euler = [".e0", ".e1", ".e2", ".e3"]
        .iter()
        .any(|e| name.ends_with(e));
    if angle {
        format!("{name} (rad)")
    } else if euler {
        name.to_owned()
    } else {
        format!("{name} (m)")
    }
}

/// A singular point as plotted: its number (S1, S2, ...), where, and the event of the run
/// at that configuration, if the run met it.
struct Marker {
    number: usize,
    at: [f64; 2],
    event: Option<usize>,
}

impl Marker {
    fn name(&self, events: &[crate::solver::SingularEvent]) -> String {
        match self.event {
            Some(i) => format!("S{} (t = {:.4} s)", self.number, events[i].t),
            None => format!("S{}", self.number),
        }
    }
}

/// Of the singular points under the pointer (with their distances from it), the one a click
/// means: one the run met (its event) before one it did not, then the nearest.
fn preferred<'a>(under: impl Iterator<Item = (&'a Marker, f32)>) -> Option<&'a Marker> {
    under
        .min_by(|(a, da), (b, db)| {
            (a.event.is_none(), da)
                .partial_cmp(&(b.event.is_none(), db))
                .unwrap_or(std::cmp::Ordering::Equal)
        })
        .map(|(m, _)| m)
}

/// The markers grouped by the place they are plotted at (within 1e-6), in order.
fn same_places(markers: &[Marker]) -> Vec<([f64; 2], Vec<&Marker>)> {
    let mut groups: Vec<([f64; 2], Vec<&Marker>)> = Vec::new();
    for marker in markers {
        let near = |at: &[f64; 2]| {
            (at[0] - marker.at[0])
                .abs()
                .max((at[1] - marker.at[1]).abs())
                < 1e-6
        };
        match groups.iter_mut().find(|(at, _)| near(at)) {
            Some((_, group)) => group.push(marker),
            None => groups.push((marker.at, vec![marker])),
        }
    }
    groups
}

/// A point with its angle coordinates (`angles`) wrapped into [-pi/2, 3 pi/2): the flat
/// poses of the linkages, at 0 and pi (where their singular points lie), fall inside the
/// plot, not on its edges where round-off would put them at one edge or the other.
fn wrap(p: [f64; 2], angles: [bool; 2]) -> [f64; 2] {
    use std::f64::consts::{FRAC_PI_2, TAU};
    let one = |v: f64, angle: bool| {
        if angle {
            (v + FRAC_PI_2).rem_euclid(TAU) - FRAC_PI_2
        } else {
            v
        }
    };
    [one(p[0], angles[0]), one(p[1], angles[1])]
}

/// The box (`[lo, hi]`) of the atlas' curves and singular points on the plot's axes, angles
/// wrapped as plotted.
fn atlas_extent(
    atlas: &crate::atlas::Atlas,
    axes: [usize; 2],
    angles: [bool; 2],
) -> Option<[[f64; 2]; 2]> {
    let curves = atlas
        .curves
        .iter()
        .flat_map(|curve| (0..curve.len()).map(|k| curve.point(k)));
    let singular = atlas.singular.iter().map(|point| point.x.as_slice());
    curves
        .chain(singular)
        .map(|p| wrap([p[axes[0]], p[axes[1]]], angles))
        .fold(None, |extent, p| {
            let [lo, hi] = extent.unwrap_or([p, p]);
            Some([
                [lo[0].min(p[0]), lo[1].min(p[1])],
                [hi[0].max(p[0]), hi[1].max(p[1])],
            ])
        })
}

/// A polyline with its angles wrapped, cut where a wrapped angle jumps by more than pi (the
/// curve leaves one side of the plot and comes in at the other).
fn wrapped_pieces(points: impl Iterator<Item = [f64; 2]>, angles: [bool; 2]) -> Vec<Vec<[f64; 2]>> {
    let mut pieces: Vec<Vec<[f64; 2]>> = vec![Vec::new()];
    for p in points.map(|p| wrap(p, angles)) {
        let current = pieces.last_mut().expect("one piece at least");
        let jumps = current.last().is_some_and(|q: &[f64; 2]| {
            (0..2).any(|i| angles[i] && (p[i] - q[i]).abs() > std::f64::consts::PI)
        });
        if jumps {
            pieces.push(vec![p]);
        } else {
            current.push(p);
        }
    }
    pieces
}

/// The configurations of `atlas` under the pointer (`pixels` gives a plotted position's
/// distance from it in pixels, within [`CLICK_RADIUS`]), nearest first: for each stretch of a
/// curve under the pointer its nearest traced point, once for stretches that meet there (two
/// branches, or one curve passing twice, may cross one point of the plot far apart in the
/// other coordinates; a curve along which the plotted coordinates stay put is one stretch).
fn configurations_under(
    atlas: &crate::atlas::Atlas,
    axes: [usize; 2],
    angles: [bool; 2],
    pixels: impl Fn([f64; 2]) -> f32,
) -> Vec<DVector<f64>> {
    let mut stretches: Vec<(f32, &[f64])> = Vec::new();
    for curve in &atlas.curves {
        let mut nearest: Option<(f32, &[f64])> = None;
        for k in 0..=curve.len() {
            let under = (k < curve.len())
                .then(|| curve.point(k))
                .map(|p| (pixels(wrap([p[axes[0]], p[axes[1]]], angles)), p))
                .filter(|(d, _)| *d <= CLICK_RADIUS);
            match under {
                Some((d, p)) => {
                    if nearest.is_none_or(|(best, _)| d < best) {
                        nearest = Some((d, p));
                    }
                }
                None => stretches.extend(nearest.take()),
            }
        }
    }
    stretches.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut distinct: Vec<DVector<f64>> = Vec::new();
    for (_, p) in stretches {
        let p = DVector::from_column_slice(p);
        if !distinct.iter().any(|q| near_pose(q, &p, ONE_PLACE)) {
            distinct.push(p);
        }
    }
    distinct
}

/// Configurations closer than this in every coordinate (radians or metres; angles modulo 2
/// pi) are one place of the configuration set for a click (curves meeting at a singular
/// point under the pointer).
const ONE_PLACE: f64 = 0.3;

/// Of the configurations under the pointer, the one a click poses: after the one the
/// mechanism is at (a click again at one place of the plot goes through them in turn), else
/// the nearest.
fn next_configuration(under: &[DVector<f64>], at: &DVector<f64>) -> Option<usize> {
    let here = under.iter().position(|q| near_pose(q, at, ONE_PLACE));
    match here {
        Some(i) => Some((i + 1) % under.len()),
        None => (!under.is_empty()).then_some(0),
    }
}

/// "the 1st", "the 2nd", ...: which of the configurations under the pointer a click poses.
fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, 11) | (2, 12) | (3, 13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("the {n}{suffix}")
}

/// Appends the current state to the run's path (restarted when the scene, the axes or the
/// run's history jumps).
fn follow_path(view: &mut AtlasView, live: &Live, axes: [usize; 2]) {
    let key = (live.generation, live.session.jump_epoch(), axes);
    if view.path_key != Some(key) {
        view.path.clear();
        view.path_key = Some(key);
    }
    let x = live.session.simulation().positions();
    let here = [x[axes[0]], x[axes[1]]];
    if view.path.back() != Some(&here) {
        if view.path.len() >= PATH_SAMPLES {
            view.path.pop_front();
        }
        view.path.push_back(here);
    }
}

/// Two poses the same configuration: every coordinate within 1e-4 (angles modulo 2 pi).
fn same_pose(a: &DVector<f64>, b: &DVector<f64>) -> bool {
    near_pose(a, b, 1e-4)
}

/// Every coordinate of two poses within `tolerance` (angles modulo 2 pi).
fn near_pose(a: &DVector<f64>, b: &DVector<f64>, tolerance: f64) -> bool {
    a.len() == b.len()
        && a.iter().zip(b.iter()).all(|(p, q)| {
            let d = (p - q).rem_euclid(std::f64::consts::TAU);
            d.min(std::f64::consts::TAU - d) < tolerance || (p - q).abs() < tolerance
        })
}

/// `NAME.COORD` of every coordinate, as the CSV columns name them.
fn coordinate_names(mechanism: &Mechanism) -> Vec<String> {
    mechanism
        .bodies()
        .iter()
        .flat_map(|b| {
            b.coordinate_names()
                .iter()
                .map(move |c| format!("{}.{c}", b.name))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{
        Marker, ONE_PLACE, configurations_under, next_configuration, ordinal, preferred,
        same_places,
    };
    use crate::atlas::{Atlas, Curve, CurveEnd};
    use nalgebra::DVector;

    fn curve(points: &[[f64; 3]]) -> Curve {
        Curve {
            section: 0,
            start: CurveEnd::Start,
            end: CurveEnd::Budget,
            s: (0..points.len()).map(|k| k as f64).collect(),
            rank: vec![2; points.len()],
            x: points.iter().flatten().copied().collect(),
        }
    }

    /// Plotting (x, y) of a three-coordinate set with the pointer at (0, 0) (a plot unit is
    /// 100 pixels): a curve along z alone (x, y fixed: 22 traced points under the pointer)
    /// is one stretch, a second curve crossing (0, 0) with z = 2 another, and a third
    /// passing twice (z = -1, then z = 1.5) two more: 4 configurations, not 24.
    #[test]
    fn a_curve_along_the_hidden_coordinate_is_one_configuration_under_the_pointer() {
        let along_z: Vec<[f64; 3]> = (0..22).map(|k| [0.0, 0.0, 0.1 * f64::from(k)]).collect();
        let across: Vec<[f64; 3]> = (-3..=3).map(|k| [0.1 * f64::from(k), 0.0, 2.0]).collect();
        let twice = [
            [-0.3, 0.0, -1.0],
            [0.0, 0.0, -1.0],
            [0.3, 0.0, -1.0],
            [0.3, 0.5, 0.0],
            [0.3, 0.0, 1.5],
            [0.0, 0.0, 1.5],
        ];
        let atlas = Atlas {
            curves: vec![curve(&along_z), curve(&across), curve(&twice)],
            singular: Vec::new(),
            sections: vec![Vec::new()],
            dimension: 1,
            left_out: 0,
            points: 0,
        };
        let under = configurations_under(&atlas, [0, 1], [false, false], |p| {
            (100.0 * p[0].hypot(p[1])) as f32
        });
        let mut z: Vec<f64> = under.iter().map(|x| x[2]).collect();
        z.sort_by(f64::total_cmp);
        assert_eq!(z.len(), 4, "{z:?}");
        assert_eq!(z[0], -1.0);
        assert_eq!(z[3], 2.0);
    }

    /// Two configurations of a two-coordinate mechanism under the pointer (the second angle
    /// pi apart): a click poses the first, the next click at the same place the second,
    /// the next the first again; the mechanism elsewhere gets the nearest.
    #[test]
    fn clicks_where_two_configurations_project_go_through_them_in_turn() {
        let under = [
            DVector::from_vec(vec![0.5, 0.0]),
            DVector::from_vec(vec![0.5, std::f64::consts::PI]),
        ];
        let elsewhere = DVector::from_vec(vec![2.0, 1.0]);
        assert_eq!(next_configuration(&under, &elsewhere), Some(0));
        let near_first = DVector::from_vec(vec![0.5 + 0.5 * ONE_PLACE, 0.0]);
        assert_eq!(next_configuration(&under, &near_first), Some(1));
        // Angles modulo 2 pi: -pi is the second.
        let second = DVector::from_vec(vec![0.5, -std::f64::consts::PI]);
        assert_eq!(next_configuration(&under, &second), Some(0));
        assert_eq!(next_configuration(&[], &elsewhere), None);
        assert_eq!(ordinal(1), "the 1st");
        assert_eq!(ordinal(2), "the 2nd");
        assert_eq!(ordinal(12), "the 12th");
    }

    fn marker(number: usize, at: [f64; 2], event: Option<usize>) -> Marker {
        Marker { number, at, event }
    }

    /// Trial 5 clicked A02's S2 (the event at 0.7144 s) where S3 projects onto the same place
    /// and was posed at S3: the event wins, whichever is nearer or listed later.
    #[test]
    fn a_click_on_coinciding_singular_points_goes_to_the_one_the_run_met() {
        let s2 = marker(2, [0.0, 0.0], Some(0));
        let s3 = marker(3, [0.0, 0.0], None);
        let chosen = preferred([(&s3, 1.0), (&s2, 2.0)].into_iter()).unwrap();
        assert_eq!(chosen.number, 2);
        let s4 = marker(4, [0.0, 0.0], None);
        let chosen = preferred([(&s4, 3.0), (&s3, 1.0)].into_iter()).unwrap();
        assert_eq!(chosen.number, 3, "else the nearest");
        let markers = [s2, s3, marker(1, [3.0, 3.0], None)];
        let groups = same_places(&markers);
        let sizes: Vec<usize> = groups.iter().map(|(_, g)| g.len()).collect();
        assert_eq!(sizes, [2, 1]);
    }
}
