//! The configuration-space plot at the top of the plots panel: the scene's atlas (traced by
//! [`AtlasView`]) as its curves projected on two coordinates the user picks, the singular
//! points marked (named after the run's event there, when the run met one), and the current
//! state as a dot with the path the run took over the curves.

mod pointer;
mod projection;

use bevy_egui::egui::{self, Color32, Ui};
use egui_plot::{
    HoverPosition, Line, LineStyle, MarkerShape, Plot, PlotPoint, PlotPoints, PlotUi, Points, Text,
};
use nalgebra::DVector;

use super::axes::{angle_axis, axes as themed_axes, label_axes};
use crate::app::atlas_view::{AtlasView, PATH_SAMPLES};
use crate::app::commands::AppCommand;
use crate::app::simulation::Live;
use crate::app::theme::Palette;
use crate::atlas::{Atlas, angle_coordinates};
use crate::model::Mechanism;
use crate::solver::SingularEvent;
use pointer::{
    CLICK_RADIUS, Marker, configurations_under, next_configuration, ordinal, preferred,
    same_places, same_pose,
};
use projection::{atlas_extent, wrap, wrapped_pieces};

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
    let Some(atlas) = atlas_or_why_not(ui, live, view) else {
        return;
    };
    let names = coordinate_names(&live.session.scene().mechanism);
    let mut axes = view
        .axes
        .filter(|axes| axes.iter().all(|&a| a < names.len()))
        .unwrap_or([0, 1.min(names.len().saturating_sub(1))]);
    // A class is shown the plot, not its controls.
    if !look.viewer {
        axis_pickers(ui, &names, &mut axes);
    }
    view.axes = Some(axes);
    follow_path(view, live, axes);
    let all_angles = angle_coordinates(&live.session.scene().mechanism);
    let projected = Projected {
        atlas: &atlas,
        axes,
        angles: [all_angles[axes[0]], all_angles[axes[1]]],
    };
    let palette = Palette::for_theme(look.light);
    let plot = framed_plot(ui, &projected, &names, height, look, palette);
    plot.show(ui, |plot_ui| {
        draw_curves(plot_ui, &projected, palette);
        let events = live.session.events();
        let markers = draw_markers(plot_ui, &projected, events, palette, look.viewer);
        click_on_markers(plot_ui, &markers, &atlas, commands);
        *ghost = if look.viewer {
            None
        } else {
            point_at_curves(plot_ui, &projected, &markers, live, palette, commands)
        };
        let x = live.session.simulation().positions();
        draw_path_and_state(plot_ui, &projected, view, x, palette);
    });
}

/// The scene's atlas, or `None` when there is none yet (or none at all), said in its place.
fn atlas_or_why_not(ui: &mut Ui, live: &Live, view: &AtlasView) -> Option<std::sync::Arc<Atlas>> {
    match &view.atlas {
        // The atlas and axes of the scene before, for the frame a new one opens in.
        _ if !view.is_of(live.generation) => {
            ui.label("tracing the configuration set…");
            None
        }
        None => {
            ui.label("tracing the configuration set…");
            None
        }
        Some(Err(why)) => {
            ui.label(format!("no atlas: {why}"));
            None
        }
        Some(Ok(atlas)) => Some(atlas.clone()),
    }
}

/// The two coordinates plotted, picked by name.
fn axis_pickers(ui: &mut Ui, names: &[String], axes: &mut [usize; 2]) {
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
}

/// The atlas on the two plotted coordinates, and which of them are angles (wrapped).
struct Projected<'a> {
    atlas: &'a Atlas,
    axes: [usize; 2],
    angles: [bool; 2],
}

impl Projected<'_> {
    /// A configuration's place on the plot.
    fn place(&self, x: &[f64]) -> [f64; 2] {
        wrap([x[self.axes[0]], x[self.axes[1]]], self.angles)
    }
}

/// The plot's axes (titled, angles in multiples of pi), framed on the configuration set,
/// with no pointer readout for viewers.
fn framed_plot<'a>(
    ui: &Ui,
    projected: &Projected,
    names: &[String],
    height: f32,
    look: Look,
    palette: &Palette,
) -> Plot<'a> {
    let (axes, angles) = (projected.axes, projected.angles);
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
    if let Some([lo, hi]) = atlas_extent(projected.atlas, axes, angles) {
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
    if look.viewer {
        plot = plot.show_x(false).show_y(false);
    }
    let (x_name, y_name) = (names[axes[0]].clone(), names[axes[1]].clone());
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
}

/// The atlas' curves, those along which the mechanism stays singular dashed in the first
/// motion's colour.
fn draw_curves(plot_ui: &mut PlotUi, projected: &Projected, palette: &Palette) {
    for curve in &projected.atlas.curves {
        let generic = curve.rank.iter().copied().max().unwrap_or(0);
        let singular = curve.len() > 2 && curve.rank[curve.len() / 2] < generic;
        let points = (0..curve.len())
            .map(|k| curve.point(k))
            .map(|p| [p[projected.axes[0]], p[projected.axes[1]]]);
        for piece in wrapped_pieces(points, projected.angles) {
            let line = Line::new("", PlotPoints::from(piece)).width(2.0);
            plot_ui.line(if singular {
                line.color(palette.motions[0])
                    .style(LineStyle::dashed_dense())
            } else {
                line.color(palette.text.gamma_multiply(0.8))
            });
        }
    }
}

/// The singular points' markers, named (after the run's event there, where it met one;
/// points that project onto one place share one label). Returns them.
fn draw_markers(
    plot_ui: &mut PlotUi,
    projected: &Projected,
    events: &[SingularEvent],
    palette: &Palette,
    viewer: bool,
) -> Vec<Marker> {
    let markers: Vec<Marker> = projected
        .atlas
        .singular
        .iter()
        .enumerate()
        .map(|(k, point)| Marker {
            number: k + 1,
            at: projected.place(point.x.as_slice()),
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
    // Read from afar when presenting: the canvas' text scale.
    let size = if viewer { 17.0 } else { 13.0 };
    let groups = same_places(&markers);
    let places: Vec<egui::Pos2> = groups
        .iter()
        .map(|(at, _)| plot_ui.screen_from_plot(PlotPoint::new(at[0], at[1])))
        .collect();
    let frame = plot_ui.response().rect;
    let mut taken: Vec<egui::Rect> = Vec::new();
    for (k, (at, group)) in groups.iter().enumerate() {
        let named = |name: &dyn Fn(&Marker) -> String| {
            group.iter().map(|m| name(m)).collect::<Vec<_>>().join(", ")
        };
        let long = named(&|m| m.name(events));
        let short = named(&|m| format!("S{}", m.number));
        let extent = |text: &str| egui::vec2(0.55 * size * text.chars().count() as f32, 1.3 * size);
        // The instants go where there is no room for them.
        let (name, (anchor, rect)) = [long.clone(), short]
            .into_iter()
            .find_map(|name| {
                let place = label_place(&places, k, extent(&name), frame, &taken)?;
                Some((name, place))
            })
            .unwrap_or_else(|| {
                let anchor = egui::Align2::LEFT_BOTTOM;
                let rect = anchor.anchor_size(places[k], extent(&long));
                (long, (anchor, rect))
            });
        taken.push(rect);
        plot_ui.text(
            Text::new(
                "",
                PlotPoint::new(at[0], at[1]),
                egui::RichText::new(name).size(size),
            )
            .color(palette.text)
            .anchor(anchor),
        );
    }
    markers
}

/// Where the label of the marker at `places[k]` goes, about `extent` pixels: above right of
/// it, else below right, above left, below left, the first inside the plot's `frame` and
/// clear of the other markers and the labels placed (`taken`: A02's "S3, S4 (t = 1.5083 s)"
/// and "S1 (t = 1.2282 s)" share a row). The anchor and the label's rectangle; `None` where
/// no side is clear.
fn label_place(
    places: &[egui::Pos2],
    k: usize,
    extent: egui::Vec2,
    frame: egui::Rect,
    taken: &[egui::Rect],
) -> Option<(egui::Align2, egui::Rect)> {
    use egui::Align2;
    let at = places[k];
    let sides = [
        Align2::LEFT_BOTTOM,
        Align2::LEFT_TOP,
        Align2::RIGHT_BOTTOM,
        Align2::RIGHT_TOP,
    ];
    let rect_of = |anchor: Align2| anchor.anchor_size(at, extent);
    let clear = |rect: &egui::Rect| {
        frame.contains_rect(*rect)
            && !taken.iter().any(|t| t.intersects(*rect))
            && !places
                .iter()
                .enumerate()
                .any(|(j, p)| j != k && rect.expand(4.0).contains(*p))
    };
    let anchor = sides.into_iter().find(|&side| clear(&rect_of(side)))?;
    Some((anchor, rect_of(anchor)))
}

/// Pixels between a plotted place and the pointer.
fn from_pointer(plot_ui: &PlotUi, at: [f64; 2], pointer: egui::Pos2) -> f32 {
    plot_ui
        .screen_from_plot(PlotPoint::new(at[0], at[1]))
        .distance(pointer)
}

/// A click on a singular point the run met goes to that event, as the events list's "go to"
/// does; on one it did not meet, poses the mechanism there, at rest (a pose at a singular
/// configuration is an event). Of several under the pointer, an event first, then the
/// nearest.
fn click_on_markers(
    plot_ui: &PlotUi,
    markers: &[Marker],
    atlas: &Atlas,
    commands: &mut Vec<AppCommand>,
) {
    let response = plot_ui.response();
    let Some(pointer) = response.hover_pos().filter(|_| response.clicked()) else {
        return;
    };
    let under = markers
        .iter()
        .map(|m| (m, from_pointer(plot_ui, m.at, pointer)))
        .filter(|(_, d)| *d <= CLICK_RADIUS);
    if let Some(marker) = preferred(under) {
        commands.push(match marker.event {
            Some(i) => AppCommand::GotoEvent(i),
            None => AppCommand::PoseAt(atlas.singular[marker.number - 1].x.clone()),
        });
    }
}

/// Pointing at a curve shows its pose as a ghost on the canvas (returned); a click (not on a
/// singular point) poses the mechanism there, at rest. Where several configurations project
/// onto the pointer the plot says so, and clicks there go through them in turn (the ghost
/// shows the one the click poses).
fn point_at_curves(
    plot_ui: &mut PlotUi,
    projected: &Projected,
    markers: &[Marker],
    live: &Live,
    palette: &Palette,
    commands: &mut Vec<AppCommand>,
) -> Option<DVector<f64>> {
    let pointer = plot_ui.response().hover_pos()?;
    let under = configurations_under(projected.atlas, projected.axes, projected.angles, |p| {
        from_pointer(plot_ui, p, pointer)
    });
    let k = next_configuration(&under, live.session.simulation().positions())?;
    // (A click on a singular point goes to it, whatever curves pass there.)
    let on_marker = markers
        .iter()
        .any(|m| from_pointer(plot_ui, m.at, pointer) <= CLICK_RADIUS);
    if under.len() > 1 && !on_marker {
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
    let pointed = under[k].clone();
    if plot_ui.response().clicked()
        && !commands
            .iter()
            .any(|c| matches!(c, AppCommand::GotoEvent(_) | AppCommand::PoseAt(_)))
    {
        commands.push(AppCommand::PoseAt(pointed.clone()));
    }
    Some(pointed)
}

/// The path the run took over the curves, and the current state as a red dot.
fn draw_path_and_state(
    plot_ui: &mut PlotUi,
    projected: &Projected,
    view: &AtlasView,
    x: &DVector<f64>,
    palette: &Palette,
) {
    for piece in wrapped_pieces(view.path.iter().copied(), projected.angles) {
        plot_ui.line(
            Line::new("", PlotPoints::from(piece))
                .color(palette.motions[1])
                .width(2.0),
        );
    }
    plot_ui.points(
        Points::new("", vec![projected.place(x.as_slice())])
            .radius(5.0)
            .filled(true)
            .color(Color32::from_rgb(230, 60, 60)),
    );
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
    use super::label_place;
    use bevy_egui::egui::{Align2, Rect, pos2, vec2};

    /// Two markers on a row 150 px apart and one under the first, labels of 190 px, in a
    /// plot 600 px wide: the first label goes to the left of its marker (to the right it
    /// would cover the second marker), the others to the right; each clear of the markers,
    /// the labels placed and the edges. With no clear side there is no place.
    #[test]
    fn marker_labels_keep_clear_of_each_other_the_markers_and_the_edges() {
        let places = [pos2(250.0, 100.0), pos2(400.0, 100.0), pos2(250.0, 250.0)];
        let frame = Rect::from_min_max(pos2(0.0, 0.0), pos2(600.0, 300.0));
        let extent = vec2(190.0, 22.0);
        let mut taken = Vec::new();
        let mut anchors = Vec::new();
        for k in 0..places.len() {
            let (anchor, rect) = label_place(&places, k, extent, frame, &taken).unwrap();
            assert!(frame.contains_rect(rect), "{k}: {rect:?}");
            assert!(
                taken.iter().all(|t: &Rect| !t.intersects(rect)),
                "{k}: {rect:?}"
            );
            for (j, p) in places.iter().enumerate() {
                assert!(j == k || !rect.contains(*p), "{k} covers marker {j}");
            }
            taken.push(rect);
            anchors.push(anchor);
        }
        assert_eq!(
            anchors,
            [
                Align2::RIGHT_BOTTOM,
                Align2::LEFT_BOTTOM,
                Align2::LEFT_BOTTOM
            ]
        );
        let narrow = Rect::from_min_max(pos2(200.0, 0.0), pos2(450.0, 300.0));
        assert_eq!(label_place(&places, 0, extent, narrow, &[]), None);
    }
}
