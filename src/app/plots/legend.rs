//! A plot's legend, in its title row: each series' line style and name in its colour,
//! a click hides or shows the series. Inside the plot, in whichever corner, the legend
//! covered some of the curves.

use bevy_egui::egui::{self, Color32, Response, RichText, Sense, Shape, Stroke, Ui, pos2, vec2};

/// One series as the legend names it.
pub(super) struct LegendEntry {
    pub name: String,
    pub color: Color32,
    /// The other basis' series, drawn dashed.
    pub dashed: bool,
}

/// The plot's `title` and its `entries` on one row (wrapped when narrow); a click on an
/// entry toggles its name in `hidden`. Returns the row's height.
pub(super) fn title_row(
    ui: &mut Ui,
    title: &str,
    entries: &[LegendEntry],
    hidden: &mut Vec<String>,
) -> f32 {
    let row = ui.horizontal_wrapped(|ui| {
        ui.label(RichText::new(title).strong());
        for e in entries {
            let is_hidden = hidden.contains(&e.name);
            let hint = if is_hidden {
                "hidden: click to show"
            } else {
                "click to hide"
            };
            if entry(ui, e, is_hidden).on_hover_text(hint).clicked() {
                toggle(hidden, &e.name);
            }
        }
    });
    row.response.rect.height()
}

/// A short line in the series' style, then its name; greyed when hidden.
fn entry(ui: &mut Ui, e: &LegendEntry, hidden: bool) -> Response {
    let color = if hidden {
        ui.visuals().weak_text_color()
    } else {
        e.color
    };
    // The body's size, as the title: small text is unreadable on a projector.
    let font = egui::TextStyle::Body.resolve(ui.style());
    let galley = ui.painter().layout_no_wrap(e.name.clone(), font, color);
    let swatch = 16.0;
    let size = vec2(swatch + 4.0 + galley.size().x, galley.size().y.max(10.0));
    let (rect, response) = ui.allocate_exact_size(size, Sense::click());
    let y = rect.center().y;
    let line = [pos2(rect.left(), y), pos2(rect.left() + swatch, y)];
    let stroke = Stroke::new(2.0, color);
    if e.dashed {
        ui.painter()
            .extend(Shape::dashed_line(&line, stroke, 4.0, 3.0));
    } else {
        ui.painter().line_segment(line, stroke);
    }
    let text_top = y - 0.5 * galley.size().y;
    ui.painter()
        .galley(pos2(rect.left() + swatch + 4.0, text_top), galley, color);
    response
}

/// Hides `name` if shown, shows it if hidden.
fn toggle(hidden: &mut Vec<String>, name: &str) {
    if let Some(i) = hidden.iter().position(|h| h == name) {
        hidden.remove(i);
    } else {
        hidden.push(name.to_owned());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_click_hides_a_series_and_another_shows_it() {
        let mut hidden = vec!["q1_continued".to_owned()];
        toggle(&mut hidden, "qd2_continued");
        assert_eq!(hidden, ["q1_continued", "qd2_continued"]);
        toggle(&mut hidden, "q1_continued");
        assert_eq!(hidden, ["qd2_continued"]);
    }
}
