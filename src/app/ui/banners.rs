//! The banners over the canvas (a notice, why the session paused, what it is doing), the
//! lesson's caption and the brief notices under the canvas.

use bevy::prelude::*;
use bevy_egui::egui::{self, Color32, FontId, RichText, Ui};

use crate::app::lesson::LessonRun;
use crate::app::presentation::size_in_rows;
use crate::app::record::VideoEnd;
use crate::app::shown::paused_at_scene_end;
use crate::app::simulation::Live;
use crate::app::theme::Palette;
use crate::live::{LiveSession, MarkKind, PauseReason};
use crate::solver::SingularEvent;

/// The banners over the canvas; for a `viewer` (presenting, recording) without the keys and
/// panels to use, and in a `video` the idle line names what it shows, its last frame
/// (`video_end`) where it ends; their text `text_scale` times the notices' (the canvas'
/// text scale).
pub(super) fn banner(
    ui: &mut Ui,
    live: &Live,
    viewer: bool,
    video: bool,
    video_end: Option<VideoEnd>,
    editing: Option<String>,
    text_scale: f32,
) {
    let palette = Palette::for_theme(!ui.visuals().dark_mode);
    let mut banners = match editing {
        // Edit mode: a lasting notice (a save that failed), then what the sketcher says.
        Some(text) => live
            .notice
            .as_ref()
            .filter(|n| n.shown_until.is_none())
            .map(|n| {
                let fill = if n.error {
                    palette.banner_error
                } else {
                    palette.banner_event
                };
                (n.text.clone(), fill)
            })
            .into_iter()
            .chain([(text, ui.visuals().widgets.noninteractive.bg_fill)])
            .collect(),
        None => notice_and_pause_banners(live, palette, viewer),
    };
    // A class and a video see no panel: the banner names what the lecturer just did, before
    // what else it says (a second banner would shrink the canvas under a recording).
    let session = &live.session;
    let acted = live
        .action
        .as_ref()
        .filter(|a| a.is_shown())
        .map(|a| (a.at, a.text.as_str()))
        .or_else(|| {
            let run = live.lesson.as_ref()?;
            let text = run.player.act_named(session.time(), session.speed())?;
            Some((run.player.acted_at(), text))
        });
    // An event passed since is said in the action's place (trial 20: branch 1's flat pose
    // at t = 1.1562 s, 0.44 s after the leave, was said 1.2 s of video late).
    let overtaken = |at: Option<f64>| {
        at.zip(just_passed(session))
            .is_some_and(|(at, event)| event.t > at + 1e-9)
    };
    let acted = acted
        .filter(|(at, _)| !overtaken(*at))
        .map(|(_, text)| text);
    // Alone, for its few seconds: with an event's facts after it, the hall's large type would
    // cut the banner at three rows. A solver's failure is still said after it.
    if let Some(action) = acted.filter(|_| viewer) {
        match banners.first_mut() {
            Some((text, fill)) if *fill == palette.banner_error => {
                *text = format!("{action} {text}");
            }
            Some((text, _)) => *text = action.to_owned(),
            None => banners.push((action.to_owned(), palette.banner_event)),
        }
    }
    let finished = live
        .lesson
        .as_ref()
        .is_some_and(|run| run.player.is_finished());
    let failed = banners
        .iter()
        .any(|(_, fill)| *fill == palette.banner_error);
    if let Some(end) = video_end.filter(|_| !failed) {
        // The held last frame says the video ends, not the last event (trial 17: "the end
        // unmarked"), nor an action a lesson's last caption is still describing.
        banners = vec![(video_end_text(live, end), palette.banner_event)];
    } else if finished && viewer && !failed && acted.is_none() {
        // A class and a video see the lesson end (trial 16: only the title line's "done"),
        // not the last event passed (trial 19: it stayed up after the lesson's end).
        let again = if video { "" } else { " R plays it again." };
        banners = vec![(
            format!("{}: end of the lesson.{again}", video_banner_text(live)),
            palette.banner_event,
        )];
    }
    if banners.is_empty() {
        // The slot stays, with what the simulation is doing.
        // Opaque: `faint_bg_color` is additive and would show the dark window behind the
        // canvas on the light theme.
        let text = match &live.lesson {
            // A video names what it shows, not the keys of the window; a class sees the
            // title and how far the lesson is.
            _ if video => video_banner_text(live),
            Some(run) if viewer => format!("{}: {}", video_banner_text(live), run.progress()),
            None if viewer => video_banner_text(live),
            Some(run) => lesson_banner_text(run, &live.session),
            None => idle_banner_text(&live.session),
        };
        banners.push((text, ui.visuals().widgets.noninteractive.bg_fill));
    }
    // At most three rows, ending in "…" with the whole text on hover: on a narrow canvas
    // (a projector at a large interface scale) a wrapped banner would cover the mechanism.
    for (text, fill) in banners {
        egui::Frame::new()
            .fill(fill)
            .inner_margin(8.0)
            .show(ui, |ui| {
                ui.set_width(ui.available_width());
                // The palette's text, not egui's grey: at least 7:1 on every banner fill.
                ui.visuals_mut().override_text_color = Some(palette.text);
                // Two rows at least, as most banners take: the canvas below does not jump
                // when an event's banner replaces the idle line (screen recordings).
                // A class sees two rows, in a smaller type if need be (down to a fifth
                // less): a third row would shrink the canvas under its eyes.
                let full = (NOTICE_SIZE * text_scale).round();
                let size = if viewer {
                    let width = ui.available_width();
                    size_in_rows(ui, &text, [full, (0.8 * full).round()], width, 2)
                } else {
                    full
                };
                ui.set_min_height(
                    2.0 * ui.fonts_mut(|f| f.row_height(&FontId::proportional(size))) + 4.0,
                );
                at_most_three_rows(ui, &text, size);
            });
    }
}

/// The banners over the canvas, with their fill: a lasting notice, and why the session
/// paused (a solver failure, a singular event, the time asked for).
pub(super) fn notice_and_pause_banners(
    live: &Live,
    palette: &Palette,
    presenting: bool,
) -> Vec<(String, Color32)> {
    let session = &live.session;
    let mut banners: Vec<(String, Color32)> = Vec::new();
    if let Some(notice) = live.notice.as_ref().filter(|n| n.shown_until.is_none()) {
        let fill = if notice.error {
            palette.banner_error
        } else {
            palette.banner_event
        };
        banners.push((notice.text.clone(), fill));
    }
    match session.pause_reason() {
        Some(PauseReason::Failed(message)) => banners.push((
            format!(
                "Solver stopped: {message}. Press R to reset, or change the solver settings and reset."
            ),
            palette.banner_error,
        )),
        Some(PauseReason::Event) => {
            if let Some(event) = session.current_event() {
                banners.push((
                    event_banner_text(session, event, presenting),
                    palette.banner_event,
                ));
            }
        }
        // A lesson's stops are the player's business, not the viewer's.
        Some(PauseReason::TimeReached) if live.lesson.is_none() => banners.push((
            if paused_at_scene_end(session) {
                format!(
                    "End of the scene's run (t = {} s). Space runs on past it; R starts again.",
                    crate::number_text::time_text(session.time())
                )
            } else {
                format!("Stopped at t = {:.4} s as requested.", session.time())
            },
            palette.banner_event,
        )),
        // Running, paused by the user or held by a lesson: the event just passed stays said
        // (a video's banner went off for a lesson's 0.6 s hold and came back).
        _ => {
            if let Some(event) = just_passed(session) {
                banners.push((
                    format!(
                        "Passed a singular configuration at t = {:.4} s: rank {} of {} (deficiency {}).",
                        event.t,
                        event.rank,
                        event.rank + event.deficiency,
                        event.deficiency
                    ),
                    palette.banner_event,
                ));
            }
        }
    }
    banners
}

/// Simulated seconds after a singular event the run passed without pausing (pause at
/// singularities off, a lesson's run along a branch that keeps meeting them) during which the
/// banner says so: 1.6 s of a video at a quarter speed, longer than the 0.28 to 0.33 s
/// between A02's events on branch 2, so that the banner stays up along such a branch and
/// its instant changes, instead of flashing on for each event.
const PASSED_SHOWN: f64 = 0.4;

/// The singular event the session passed in the last [`PASSED_SHOWN`] seconds; not one it
/// was pushed or left from (the banner names that action).
fn just_passed(session: &LiveSession) -> Option<&SingularEvent> {
    let now = session.time();
    let acted_at = |t: f64| {
        session.marks().iter().any(|mark| {
            matches!(mark.kind, MarkKind::Leave | MarkKind::Push) && (mark.t - t).abs() < 1e-9
        })
    };
    session
        .events()
        .iter()
        .rev()
        .find(|event| event.t <= now && now - event.t <= PASSED_SHOWN)
        .filter(|event| !acted_at(event.t))
}

/// What the session found at a singular event, and (unless `presenting`: the panels are
/// hidden) what the user can do there.
pub(super) fn event_banner_text(
    session: &LiveSession,
    event: &SingularEvent,
    presenting: bool,
) -> String {
    let facts = format!(
        "Singular at t = {:.4} s: rank {} of {} (deficiency {}); {} admissible motions ({} continued, {} new); {}.",
        event.t,
        event.rank,
        event.rank + event.deficiency,
        event.deficiency,
        event.motion_count(),
        event.continued().ncols(),
        event.new_motions().ncols(),
        match session.branches().len() {
            _ if session.branch_families() => {
                "branches in continuous families (not listed)".to_owned()
            }
            0 => "no other branch (the new motions are first order only)".to_owned(),
            1 => "1 other branch".to_owned(),
            b => format!("{b} other branches"),
        },
    );
    if presenting {
        return facts;
    }
    let leave = if session.branches().is_empty() {
        ""
    } else {
        " or leave along a branch"
    };
    format!("{facts} Space continues; push along a motion{leave} in the Admissible motions panel.")
}

/// A video's banner between events: the lesson's title, or the scene's.
pub(super) fn video_banner_text(live: &Live) -> String {
    match &live.lesson {
        Some(run) if !run.player.lesson().spec.title.is_empty() => {
            run.player.lesson().spec.title.clone()
        }
        _ => live.session.scene().title.clone(),
    }
}

/// The last frame's banner of a video: the end of its lesson, of the scene's run, or of
/// the time asked for, and when.
fn video_end_text(live: &Live, end: VideoEnd) -> String {
    // To the millisecond the time shows (a `--t-end` frame falls between steps).
    let t = crate::number_text::time_text((live.session.time() * 1e3).round() / 1e3);
    let finished = live
        .lesson
        .as_ref()
        .is_some_and(|run| run.player.is_finished());
    let what = match (&live.lesson, end) {
        (Some(_), _) if finished => "end of the lesson".to_owned(),
        (Some(_), VideoEnd::AtScenesEnd) => format!("end of the lesson (t = {t} s)"),
        (None, VideoEnd::AtScenesEnd) => format!("end of the run (t = {t} s)"),
        (_, VideoEnd::AtTimeAsked) => format!("end of the video (t = {t} s)"),
    };
    format!("{}: {what}.", video_banner_text(live))
}

/// Where the open lesson is, and what Space does to it.
pub(super) fn lesson_banner_text(run: &LessonRun, session: &LiveSession) -> String {
    let name = run.path.file_name().unwrap_or_default().to_string_lossy();
    let what = if run.player.is_finished() {
        "done; R plays it again from the start".to_owned()
    } else if run.running {
        format!("{}, playing; Space pauses it", run.progress())
    } else {
        format!("{}, waiting; Space plays it", run.progress())
    };
    format!(
        "Lesson {name} at t = {:.4} s: {what}. Stepping, pushing, leaving or going to an event takes over from it.",
        session.time()
    )
}

/// The lesson's caption at the bottom of the canvas, in large type (for the projector and
/// the recording): the mechanism sits in the middle, and on a 960x540 recording a caption
/// higher up covered it at the event.
pub(super) fn lesson_caption(ui: &mut Ui, live: &Live, canvas: egui::Rect) {
    let Some(caption) = live.lesson.as_ref().and_then(|run| run.player.caption()) else {
        return;
    };
    canvas_popup(ui, canvas, 900.0, 8.0, |ui| {
        ui.label(RichText::new(&caption.text).heading());
    });
}

/// A popup frame centred over the bottom of the canvas, at most `max_width` wide, its
/// bottom `lift` points above the canvas' bottom.
pub(super) fn canvas_popup(
    ui: &mut Ui,
    canvas: egui::Rect,
    max_width: f32,
    lift: f32,
    content: impl FnOnce(&mut Ui),
) {
    let width = (canvas.width() - 40.0).clamp(100.0, max_width);
    let rect = egui::Rect::from_min_max(
        egui::pos2(canvas.center().x - 0.5 * width, canvas.top()),
        // A canvas shorter than the lift (side by side in a small window) gets an empty
        // rectangle, never an inverted one: egui's layout asserts on negative sizes.
        egui::pos2(
            canvas.center().x + 0.5 * width,
            (canvas.bottom() - lift).max(canvas.top()),
        ),
    );
    ui.scope_builder(
        egui::UiBuilder::new()
            .max_rect(rect)
            .layout(egui::Layout::bottom_up(egui::Align::Center)),
        |ui| {
            egui::Frame::popup(ui.style()).show(ui, |ui| {
                ui.set_max_width(width - 24.0);
                content(ui);
            });
        },
    );
}

/// What the simulation is doing when nothing else is to be said.
pub(super) fn idle_banner_text(session: &LiveSession) -> String {
    let pauses = if session.auto_pause {
        "pauses at each singular configuration"
    } else {
        "runs through singular configurations (pause at singularities is off)"
    };
    if session.is_paused() {
        format!(
            "Paused at t = {:.4} s. Space plays; the simulation {pauses}.",
            session.time()
        )
    } else {
        format!("Running; the simulation {pauses}. Space pauses.")
    }
}

/// A brief notice (a file saved, advice on a push) over the bottom of the canvas (both
/// halves side by side, above their plots), so that the canvas does not move when it comes
/// and goes (screen recordings); at most three rows, the whole text on hover.
pub(super) fn brief_notice(ui: &mut Ui, live: &Live, canvas: egui::Rect) {
    let Some(notice) = live
        .notice
        .as_ref()
        .filter(|n| n.shown_until.is_some() && n.is_shown())
    else {
        return;
    };
    canvas_popup(ui, canvas, 720.0, 40.0, |ui| {
        at_most_three_rows(ui, &notice.text, NOTICE_SIZE)
    });
}

/// Size (points) of a notice's text, and of a banner's outside presentation.
const NOTICE_SIZE: f32 = 15.0;

/// A banner's or notice's text of `size` points: at most three rows, ending in "…", the
/// whole text on hover (a wrapped text on a narrow canvas would cover the mechanism).
pub(super) fn at_most_three_rows(ui: &mut Ui, text: &str, size: f32) {
    let mut job = egui::text::LayoutJob::single_section(
        text.to_owned(),
        egui::TextFormat::simple(FontId::proportional(size), ui.visuals().text_color()),
    );
    job.wrap.max_rows = 3;
    job.wrap.overflow_character = Some('…');
    ui.add(egui::Label::new(job).wrap())
        .on_hover_text(RichText::new(text).size(NOTICE_SIZE));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::live::LiveSession;
    use crate::scene::load_scene;

    fn live_of(file: &str) -> Live {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes");
        let scene = root.join("four_bar.ron");
        let session = LiveSession::new(load_scene(&scene).unwrap()).unwrap();
        let mut live = Live::new(session, scene);
        assert!(live.load(&root.join(file)));
        live
    }

    /// A video's last frame says what ends there: a scene's run, a lesson (whose last
    /// caption may still be read at its `t_end`), or the time asked for (trial 17: the
    /// recorded lesson ended under its last event's banner).
    #[test]
    fn a_videos_last_frame_says_what_ends() {
        let scene = live_of("four_bar.ron");
        assert_eq!(
            video_end_text(&scene, VideoEnd::AtScenesEnd),
            "Four-bar linkage: end of the run (t = 0 s)."
        );
        assert_eq!(
            video_end_text(&scene, VideoEnd::AtTimeAsked),
            "Four-bar linkage: end of the video (t = 0 s)."
        );
        let lesson = live_of("lessons/a02_branches.ron");
        let text = video_end_text(&lesson, VideoEnd::AtScenesEnd);
        assert!(text.ends_with(": end of the lesson (t = 0 s)."), "{text}");
    }
}
