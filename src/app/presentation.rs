//! Presentation mode, for a projector and for recordings (key P, `--presentation`): the side
//! panels, the menu and transport bar, the timeline, the plots' controls and the status line
//! are left out (the cursor is hidden; the keys act), side by side the plots take less of
//! the height, the view is fitted again for the new canvas, and the type is larger
//! ([`LARGE_TYPE`] times in a window 1080 pixels tall, in proportion to another's height).
//! The brief notices are not shown (the banner over the canvas, which says what the
//! mechanism is doing, stays), and a captions area at the bottom shows the lesson's current
//! caption (none: the first sentence of the scene's description) in place of the caption over
//! the canvas, so a caption shows once. Ctrl + goes on past the size the whole layout holds to
//! a hall's type ([`at_hall_size`]: the plots under the canvases are left out). Leaving it
//! restores the interface size and the cursor; a size chosen with Ctrl + / Ctrl - while
//! presenting is kept for the next time (the lecturer sets it once for the room). Its key, P,
//! is one of `input`'s shortcuts; G puts the configuration-space plot beside the canvas.

use bevy::prelude::*;
use bevy::window::{CursorOptions, PrimaryWindow};
use bevy_egui::EguiContexts;
use bevy_egui::egui::{self, RichText, Ui};

use super::SingulabSystems;
use super::commands::AppCommand;
use super::simulation::Live;
use super::window_layout::WindowLayout;

/// How much larger the type is in presentation mode, the first time, in a window
/// [`PROJECTOR_HEIGHT`] pixels tall: the largest the whole layout holds
/// ([`LEAST_POINTS_TALL`]), body text of about 30 px on 1080 rows, for a seminar room; a
/// hall takes a step or two of Ctrl + ([`largest_presenting_zoom`]). A projector of another resolution throws its picture
/// as large, so the factor follows the window's height (a 720p one gets 1.5, the same layout
/// on fewer pixels), and is never below 1.
pub const LARGE_TYPE: f32 = 2.25;
/// The window height (physical pixels) [`LARGE_TYPE`] is for.
pub const PROJECTOR_HEIGHT: f32 = 1080.0;

/// Size (points) of the captions area's text.
pub const CAPTION_SIZE: f32 = 22.0;

#[derive(Resource, Default)]
pub struct Presentation {
    pub on: bool,
    /// The interface size outside presentation, restored when leaving it.
    zoom_before: Option<f32>,
    /// The interface size presentation last had, given back when entering it again.
    zoom_presenting: Option<f32>,
    /// Whether the window and the interface size are set for `on`.
    applied: bool,
    /// The interface size asked for at launch (`--ui-scale`), which the first switch starts
    /// from (egui reports a new zoom factor only a frame after it is set).
    launch_scale: Option<f32>,
}

impl Presentation {
    pub fn new(on: bool) -> Self {
        Self {
            on,
            ..Self::default()
        }
    }

    /// Presentation as launched with the interface size `scale`.
    pub fn launched(on: bool, scale: f32) -> Self {
        Self {
            launch_scale: Some(scale),
            ..Self::new(on)
        }
    }

    /// The interface size for the mode just switched to, from the size `current` the other
    /// mode had (remembered for when it comes back), in a window `height` physical pixels
    /// tall; presenting, never past the hall's size (`--ui-scale 2` with `--presentation`
    /// on 720 rows would ask for 3).
    pub fn switched_zoom(&mut self, current: f32, height: f32) -> f32 {
        if self.on {
            self.zoom_before = Some(current);
            self.zoom_presenting
                .unwrap_or(current * presenting_zoom(height))
                .min(largest_presenting_zoom(height))
        } else {
            self.zoom_presenting = Some(current);
            self.zoom_before.take().unwrap_or(1.0)
        }
    }
}

/// The interface size presentation starts at in a window `height` physical pixels tall (and
/// that Ctrl+0 gives back while presenting).
pub fn presenting_zoom(height: f32) -> f32 {
    (LARGE_TYPE * height / PROJECTOR_HEIGHT).max(1.0)
}

/// Points of height the presentation's layout holds with everything in it: the canvas, its
/// plots side by side and the captions (past it, at 1280x720, the plots would be 5 px tall and
/// the canvas clipped).
pub const LEAST_POINTS_TALL: f32 = 480.0;

/// Points of height presentation keeps at least, whatever Ctrl + asks: below
/// [`LEAST_POINTS_TALL`] (a hall's larger type, about 30 px capitals at 720 rows) the plots
/// under the canvases make room for it (`ui::side_by_side`), and the banner and captions
/// hold.
const HALL_POINTS_TALL: f32 = 320.0;

/// The largest interface size presenting allows in a window `height` physical pixels tall
/// (never below the size presentation starts at).
pub fn largest_presenting_zoom(height: f32) -> f32 {
    (height / HALL_POINTS_TALL).max(presenting_zoom(height))
}

/// Whether a presentation `points_tall` high is at a hall's type, beyond the size its whole
/// layout holds: the plots under the canvases are left out.
pub fn at_hall_size(points_tall: f32) -> bool {
    points_tall < LEAST_POINTS_TALL - 0.5
}

pub struct PresentationPlugin;

impl Plugin for PresentationPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Presentation>()
            .init_resource::<WindowLayout>()
            .add_systems(
                Update,
                (toggle, apply).chain().in_set(SingulabSystems::Output),
            );
    }
}

fn toggle(mut reader: MessageReader<AppCommand>, mut presentation: ResMut<Presentation>) {
    for command in reader.read() {
        if matches!(command, AppCommand::TogglePresentation) {
            presentation.on = !presentation.on;
        }
    }
}

/// Sets the interface size and the cursor for the mode, once the interface size asked for
/// at launch (`--ui-scale`) is in place.
fn apply(
    mut presentation: ResMut<Presentation>,
    layout: Res<WindowLayout>,
    mut contexts: EguiContexts,
    mut cursors: Query<&mut CursorOptions, With<PrimaryWindow>>,
    windows: Query<&Window, With<PrimaryWindow>>,
) -> Result {
    if presentation.on == presentation.applied || layout.pending_ui_scale.is_some() {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?;
    let current = presentation
        .launch_scale
        .take()
        .unwrap_or_else(|| ctx.zoom_factor());
    let height = windows
        .iter()
        .next()
        .map_or(PROJECTOR_HEIGHT, |w| w.resolution.physical_height() as f32);
    let zoom = presentation.switched_zoom(current, height);
    ctx.set_zoom_factor(zoom);
    for mut cursor in &mut cursors {
        cursor.visible = !presentation.on;
    }
    presentation.applied = presentation.on;
    Ok(())
}

/// The captions area: one or two rows of large type under the canvas, the lesson's caption
/// (the canvas then shows none) or the first sentence of the scene's description (the
/// banner above has its title); while the window is `recording`, a red mark in its corner
/// (outside the recorded area) tells the lecturer so. Returns the area of the captions'
/// rows, which a recording of the window takes with the canvas.
pub(super) fn captions(root: &mut Ui, live: &Live, recording: bool) -> egui::Rect {
    let caption = lesson_caption(live);
    let idle = caption.is_none();
    let text =
        caption.unwrap_or_else(|| first_sentence(&live.session.scene().description).to_owned());
    // Two rows at least, as most captions take: the canvas above keeps its size when a
    // caption replaces the title, and a video's framing holds. Under them, a strip of their
    // own for the recording mark (drawn over a caption's second row, it covered it).
    let rows = 2.0 * CAPTION_SIZE * 1.35 + 12.0 + MARK_STRIP;
    let panel = egui::Panel::bottom("captions")
        .min_size(rows)
        .show(root, |ui| {
            ui.add_space(6.0);
            let width = ui.available_width();
            let size = size_in_rows(ui, &text, [CAPTION_SIZE, LEAST_CAPTION_SIZE], width, 2);
            // The description's opening where it takes two rows at most: a longer one (the
            // mobile robot's, in a 320x240 video) would leave the canvas no room.
            let text = if idle && rows_at(ui, &text, size, width) > 2 {
                String::new()
            } else {
                text
            };
            ui.vertical_centered(|ui| {
                ui.label(RichText::new(text).size(size).strong());
            });
            ui.add_space(6.0);
            let width = ui.available_width();
            let (strip, _) =
                ui.allocate_exact_size(egui::vec2(width, MARK_STRIP), egui::Sense::hover());
            if recording {
                ui.painter().text(
                    strip.right_center() - egui::vec2(8.0, 0.0),
                    egui::Align2::RIGHT_CENTER,
                    "⏺ recording (Ctrl+R stops)",
                    egui::FontId::proportional(12.0),
                    egui::Color32::from_rgb(230, 60, 60),
                );
            }
        });
    let mut rows = panel.response.rect;
    rows.max.y -= MARK_STRIP;
    rows
}

/// The open lesson's caption while it shows; once the lesson is done, its last one (the
/// class looks at where the lesson ended, not at the scene's opening line).
fn lesson_caption(live: &Live) -> Option<String> {
    let player = &live.lesson.as_ref()?.player;
    match player.caption() {
        Some(shown) => Some(shown.text.clone()),
        None if player.is_finished() => player.captions().last().map(|(_, t)| t.clone()),
        None => None,
    }
}

/// The largest whole size from `size` down to `least` points at which `text` takes at most
/// `rows` rows `width` points wide (`least` if none): a long caption or banner keeps the
/// band's height, so the canvas under a class' eyes neither shrinks nor refits.
pub fn size_in_rows(ui: &Ui, text: &str, [size, least]: [f32; 2], width: f32, rows: usize) -> f32 {
    let mut points = size.round();
    while points > least {
        if rows_at(ui, text, points, width) <= rows {
            return points;
        }
        points -= 1.0;
    }
    least.round()
}

/// The rows `text` takes at `size` points in `width` points.
fn rows_at(ui: &Ui, text: &str, size: f32, width: f32) -> usize {
    let font = egui::FontId::proportional(size);
    ui.fonts_mut(|f| f.layout(text.to_owned(), font, egui::Color32::WHITE, width))
        .rows
        .len()
}

/// The smallest a caption gets to stay in two rows (a fifth below [`CAPTION_SIZE`]).
const LEAST_CAPTION_SIZE: f32 = 18.0;

/// The text up to its first full stop outside parentheses followed by a capital (or its
/// first line break), the stop kept: "et al. 2023" and "sect. 3.2" go on. A long
/// description's opening says what the scene is.
fn first_sentence(text: &str) -> &str {
    let line = text.trim().lines().next().unwrap_or_default();
    let mut depth = 0_i32;
    for (at, c) in line.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            '.' if depth <= 0 => {
                let rest = line[at + 1..].trim_start();
                if rest.len() < line.len() - at - 1
                    && rest.chars().next().is_some_and(char::is_uppercase)
                {
                    return &line[..=at];
                }
            }
            _ => {}
        }
    }
    line
}

/// Height (points) of the strip under the captions that holds the recording mark.
const MARK_STRIP: f32 = 16.0;

#[cfg(test)]
mod tests {
    use super::*;

    /// The A02 lesson's longest caption in the captions band of a hall's type at 1280x720
    /// (569 points wide, 553 inside the panel's margins) takes three rows at the captions'
    /// size: a smaller whole size keeps it in two, and a short caption keeps the captions'
    /// size.
    #[test]
    fn a_long_caption_takes_a_smaller_type_to_stay_in_two_rows() {
        let long = "Crank 3 and coupler 2 turn over together; each time they lie flat the \
                    mechanism is singular again, rank 12 of 14";
        let short = "Back at the first flat pose, exactly";
        let ctx = egui::Context::default();
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(
                egui::Pos2::ZERO,
                egui::vec2(569.0, 320.0),
            )),
            ..Default::default()
        };
        let mut measured = None;
        // egui loads its fonts in the first pass.
        for _ in 0..2 {
            let mut output = ctx.run_ui(input.clone(), |ui| {
                let width = 553.0;
                let sizes = [CAPTION_SIZE, LEAST_CAPTION_SIZE];
                let rows = |size: f32| {
                    let font = egui::FontId::proportional(size);
                    ui.fonts_mut(|f| f.layout(long.to_owned(), font, egui::Color32::WHITE, width))
                        .rows
                        .len()
                };
                let fitted = size_in_rows(ui, long, sizes, width, 2);
                measured = Some((
                    fitted,
                    size_in_rows(ui, short, sizes, width, 2),
                    rows(CAPTION_SIZE),
                    rows(fitted),
                ));
            });
            // No renderer takes the font atlas' updates.
            output.textures_delta.clear();
        }
        let (fitted, short_size, rows_at_full, rows_fitted) = measured.unwrap();
        assert!(rows_at_full > 2, "{rows_at_full} rows");
        assert!(
            (LEAST_CAPTION_SIZE..CAPTION_SIZE).contains(&fitted),
            "{fitted}"
        );
        assert!(rows_fitted <= 2, "{rows_fitted} rows at {fitted}");
        assert_eq!(short_size, CAPTION_SIZE);
    }

    /// The A02 lesson replayed to its end and its last caption's time gone: the caption stays
    /// in the captions band.
    #[test]
    fn a_finished_lesson_keeps_its_last_caption() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("scenes/lessons/a02_branches.ron");
        let (mut session, mut run) = crate::app::shown::open_lesson(&path).unwrap();
        let last = run.player.caption_texts().last().unwrap().to_owned();
        run.player
            .play_headless(&mut session, 2_000_000, |_, _| {
                std::ops::ControlFlow::Continue(())
            })
            .unwrap();
        assert!(run.player.is_finished());
        // Its time read, the last caption is no longer shown.
        let deadline = web_time::Instant::now() + std::time::Duration::from_secs(1);
        let _ = run.player.advance(&mut session, 30.0, deadline);
        assert!(run.player.caption().is_none());
        let mut live = Live::new(session, path);
        live.lesson = Some(run);
        assert_eq!(lesson_caption(&live), Some(last));
    }

    /// P, P again, as `apply` does it: the size each switch gives.
    fn switch(presentation: &mut Presentation, current: f32) -> f32 {
        presentation.on = !presentation.on;
        presentation.switched_zoom(current, PROJECTOR_HEIGHT)
    }

    #[test]
    fn the_idle_caption_is_the_descriptions_first_sentence() {
        assert_eq!(
            first_sentence(
                "Benchmark A02: point B0 starts at 1 m/s; singular whenever all bars are horizontal."
            ),
            "Benchmark A02: point B0 starts at 1 m/s; singular whenever all bars are horizontal."
        );
        assert_eq!(
            first_sentence("  A robot. It has 4 wheels.\nMore."),
            "A robot."
        );
        assert_eq!(first_sentence("Two lines\nof text"), "Two lines");
        assert_eq!(first_sentence(""), "");
        assert_eq!(
            first_sentence(
                "Spin top of Zhou et al. 2023, sect. 3.4 (after Haug 1989). The printed"
            ),
            "Spin top of Zhou et al. 2023, sect. 3.4 (after Haug 1989)."
        );
        assert_eq!(
            first_sentence("A benchmark (Zhou et al. 2023, sect. 3.2; data. As in) here. The"),
            "A benchmark (Zhou et al. 2023, sect. 3.2; data. As in) here."
        );
    }

    #[test]
    fn the_size_chosen_while_presenting_survives_leaving_and_coming_back() {
        let mut presentation = Presentation::new(false);
        let presenting = switch(&mut presentation, 1.25);
        assert_eq!(presenting, 1.25 * LARGE_TYPE);
        // The lecturer makes it larger for the room, leaves to set something up, comes back.
        assert_eq!(switch(&mut presentation, 3.3), 1.25);
        assert_eq!(switch(&mut presentation, 1.25), 3.3);
        assert_eq!(switch(&mut presentation, 3.3), 1.25);
    }

    #[test]
    fn presenting_at_a_launch_size_stops_at_the_halls() {
        let mut presentation = Presentation::new(true);
        assert_eq!(presentation.switched_zoom(2.0, 720.0), 2.25);
        let mut presentation = Presentation::new(true);
        assert!((presentation.switched_zoom(1.2, 720.0) - 1.8).abs() < 1e-5);
    }

    #[test]
    fn presentation_type_is_at_least_twice_the_default() {
        let mut presentation = Presentation::new(false);
        assert!(switch(&mut presentation, 1.0) >= 2.0);
    }

    #[test]
    fn a_projector_of_fewer_pixels_gets_the_same_layout() {
        // The window's size in points presenting: 1920 x 1080 at 2.25, 1280 x 720 at 1.5 are
        // both 853 x 480 points; a small window never shrinks the type.
        for (width, height) in [(1920.0, 1080.0), (1280.0, 720.0)] {
            let mut presentation = Presentation::new(true);
            let zoom = presentation.switched_zoom(1.0, height);
            assert!((width / zoom - 853.333).abs() < 1e-3 && (height / zoom - 480.0).abs() < 1e-3);
        }
        assert_eq!(Presentation::new(true).switched_zoom(1.0, 400.0), 1.0);
    }

    /// Ctrl + while presenting stops where the window keeps 320 points of height (the
    /// hall's size: 2.25 on a 720-row projector, 3.375 on 1080 rows, the plots left out below
    /// 480 points); a short window keeps presentation's own size.
    #[test]
    fn presenting_type_grows_only_as_far_as_the_hall_layout_holds() {
        for (height, largest) in [(720.0, 2.25), (1080.0, 3.375), (300.0, 1.0)] {
            assert_eq!(largest_presenting_zoom(height), largest, "{height} rows");
            assert!(largest_presenting_zoom(height) >= presenting_zoom(height));
        }
        // Presentation opens with the whole layout; one step of Ctrl + (1.8 at 720 rows: 400
        // points) is a hall's.
        assert!(!at_hall_size(720.0 / presenting_zoom(720.0)));
        assert!(at_hall_size(720.0 / 1.8));
    }
}
