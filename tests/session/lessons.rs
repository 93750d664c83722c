//! Lesson scripts (`singulab::lesson`): located errors for broken lessons, the same states
//! whatever the frame pacing, the recorder's round trip, `run --script` against the player,
//! and A02's lesson (`scenes/lessons/a02_branches.ron`) against its reductions.
//!
//! References, derived here. Before its first event A02 is a parallelogram with one angle
//! `theta` of the cranks (three 1 m, 1 kg cranks, `I = 1/3` about their pivots, and two
//! couplers translating with the cranks' tips): `E = 1.5 theta'^2 + 3.5 g sin(theta)`, with
//! `theta(0) = pi/2`, `theta'(0) = -1`, so `E = 35.835 J` and the flat pose (`theta = 0`) comes
//! after `integral_0^{pi/2} dtheta / sqrt((E - 3.5 g sin(theta)) / 1.5)`. There all bars lie
//! on `y = 0`: the potential is zero and all of `E` is kinetic. On branch 2 the first loop
//! stays still and crank 3 turns with coupler 2 folded onto it, two bars about one pivot:
//! `phi'^2 / 3 + g sin(phi) = C = E` (`tests/solver/singular_branches.rs`), turning the way the
//! cranks turned (`phi` decreasing), flat again after every half turn.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use singulab::lesson::{Action, LessonError, Player, Recorder, Way, load_lesson, parse_lesson};
use singulab::live::LiveSession;
use singulab::solver::BasisMode;

use crate::common::{scene, scratch, singulab};

const G: f64 = 9.81;
/// A02's energy at the start: kinetic 1.5 J (cranks 3 x 1/6, couplers 2 x 1/2, at 1 rad/s)
/// plus the potential 3.5 g J (crank centres at 0.5 m, couplers at 1 m).
const A02_ENERGY: f64 = 1.5 + 3.5 * G;

fn lessons_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenes/lessons")
}

fn lesson_path(name: &str) -> PathBuf {
    lessons_dir().join(format!("{name}.ron"))
}

/// Simpson's rule of `f` from `a` to `b` on `n` (even) intervals.
fn simpson(f: impl Fn(f64) -> f64, a: f64, b: f64, n: usize) -> f64 {
    let h = (b - a) / n as f64;
    let mut sum = f(a) + f(b);
    for k in 1..n {
        sum += f(a + k as f64 * h) * if k % 2 == 1 { 4.0 } else { 2.0 };
    }
    sum * h / 3.0
}

/// The time of A02's first flat pose from the parallelogram's energy.
fn a02_first_flat_pose() -> f64 {
    let rate = |theta: f64| ((A02_ENERGY - 3.5 * G * f64::sin(theta)) / 1.5).sqrt();
    simpson(
        |theta| 1.0 / rate(theta),
        0.0,
        std::f64::consts::FRAC_PI_2,
        20_000,
    )
}

/// The folded pair's time from `phi0` to `phi1` with `phi'^2 / 3 + g sin(phi) = c`.
fn half_turn_time(c: f64, phi0: f64, phi1: f64) -> f64 {
    let rate = |phi: f64| (3.0 * (c - G * phi.sin())).sqrt();
    simpson(|phi| 1.0 / rate(phi), phi0, phi1, 20_000).abs()
}

/// 1-based line and column of the `nth` (0-based) occurrence of `needle` in `text`.
fn position_of(text: &str, needle: &str, nth: usize) -> (usize, usize) {
    let offset = text.match_indices(needle).nth(nth).expect("needle").0;
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    (line, column)
}

fn parse(text: &str) -> Result<singulab::lesson::Lesson, LessonError> {
    parse_lesson("broken.ron", text, &lessons_dir())
}

/// A lesson text on A02 with `actions` as its action list.
fn a02_lesson(actions: &str) -> String {
    format!(
        "Lesson(\n    scene: \"../double_four_bar.ron\",\n    t_end: 2.0,\n    actions: [\n{actions}\n    ],\n)\n"
    )
}

fn assert_located(error: &LessonError, at: (usize, usize), entity: &str, words: &str) {
    let located = error.located();
    println!("{error}");
    assert_eq!(located.file, "broken.ron", "{error}");
    assert_eq!((located.line, located.column), at, "{error}");
    assert_eq!(located.entity.as_deref(), Some(entity), "{error}");
    assert!(error.to_string().contains(words), "{error}");
}

#[test]
fn mistakes_in_a_lesson_are_located() {
    // Two triggers: at the second one, naming the action.
    let text = a02_lesson("        (at: 0.5, at_event: 1, do: Pause),");
    let error = parse(&text).unwrap_err();
    assert_located(
        &error,
        position_of(&text, "at_event", 0),
        "action 1 (Pause)",
        "both given",
    );

    // A value out of range inside the second action.
    let text = a02_lesson(
        "        (at_event: 1, do: Caption(\"flat\", 1.0)),\n        (do: Push(motion: 0, delta: 1.0)),",
    );
    let error = parse(&text).unwrap_err();
    assert_located(
        &error,
        position_of(&text, "motion", 0),
        "action 2 (Push)",
        "from 1",
    );

    // A syntax error (an action the format does not have): where ron stopped, in action 2.
    let text = a02_lesson("        (at_event: 1, do: Pause),\n        (do: Jump(3)),");
    let error = parse(&text).unwrap_err();
    let (line, _) = position_of(&text, "Jump", 0);
    assert_eq!(error.located().line, line, "{error}");
    assert_eq!(
        error.located().entity.as_deref(),
        Some("action 2"),
        "{error}"
    );
    assert!(error.to_string().contains("Jump"), "{error}");

    // Waiting for time while a Pause holds the mechanism.
    let text = a02_lesson("        (at: 0.2, do: Pause),\n        (at: 0.4, do: Play),");
    let error = parse(&text).unwrap_err();
    assert_located(
        &error,
        position_of(&text, "at: 0.4", 0),
        "action 2 (Play)",
        "held by action 1",
    );

    // A speed the controls do not offer, and an unknown body to trace.
    let text = a02_lesson("").replace("t_end: 2.0,", "t_end: 2.0,\n    speed: 100.0,");
    let error = parse(&text).unwrap_err();
    assert_located(
        &error,
        position_of(&text, "speed", 0),
        "speed",
        "1/64 to 64",
    );
    let text = a02_lesson("").replace("t_end: 2.0,", "t_end: 2.0,\n    view: (trace: \"crank9\"),");
    let error = parse(&text).unwrap_err();
    assert_located(&error, position_of(&text, "trace", 0), "view", "crank9");

    // A scene that is not there: where the lesson names it, then the scene's own error.
    let text = a02_lesson("").replace("double_four_bar", "no_such_scene");
    let error = parse(&text).unwrap_err();
    assert!(matches!(error, LessonError::Scene { .. }), "{error}");
    assert_located(
        &error,
        position_of(&text, "scene", 0),
        "scene",
        "no_such_scene.ron",
    );
}

/// Plays `text` headless to its end, returning the error.
fn play_error(text: &str) -> LessonError {
    let lesson = parse(text).unwrap_or_else(|e| panic!("{e}"));
    let (mut player, mut session) = Player::start(lesson).unwrap();
    player
        .play_headless(&mut session, 1_000_000, |_, _| ControlFlow::Continue(()))
        .unwrap_err()
}

#[test]
fn actions_that_cannot_be_done_when_their_turn_comes_are_located() {
    // Leaving with no event to leave from: at the action.
    let text = a02_lesson("        (at: 0.2, do: Leave(branch: 1)),");
    let error = play_error(&text);
    assert_located(
        &error,
        position_of(&text, "(at: 0.2", 0),
        "action 1 (Leave)",
        "not at a singular event",
    );

    // A02's first flat pose has two branches besides the continuation, not three.
    let text = a02_lesson("        (at_event: 1, do: Leave(branch: 3)),");
    let error = play_error(&text);
    assert_located(
        &error,
        position_of(&text, "branch", 0),
        "action 1 (Leave)",
        "2 branches",
    );

    // One event reached by then, not two.
    let text = a02_lesson("        (at_event: 1, do: GoToEvent(2)),");
    let error = play_error(&text);
    assert_located(
        &error,
        position_of(&text, "do:", 0),
        "action 1 (GoToEvent)",
        "1 event so far",
    );

    // A time already passed after going back is fine; one passed for good is not.
    let text = a02_lesson(
        "        (at: 0.9, do: Pause),\n        (do: Play),\n        (at: 0.8, do: Pause),",
    );
    let error = play_error(&text);
    assert_located(
        &error,
        position_of(&text, "at: 0.8", 0),
        "action 3 (Pause)",
        "has passed",
    );
}

/// The state a played lesson ends in: time, positions, velocities, and the events' times.
#[derive(Debug, PartialEq)]
struct End {
    t: f64,
    x: Vec<f64>,
    xd: Vec<f64>,
    events: Vec<f64>,
}

fn end_of(session: &LiveSession) -> End {
    let sim = session.simulation();
    End {
        t: sim.time(),
        x: sim.positions().iter().copied().collect(),
        xd: sim.velocities().iter().copied().collect(),
        events: session.events().iter().map(|e| e.t).collect(),
    }
}

fn play_headless(path: &Path) -> End {
    let lesson = load_lesson(path).unwrap_or_else(|e| panic!("{e}"));
    let (mut player, mut session) = Player::start(lesson).unwrap();
    let done = player
        .play_headless(&mut session, 10_000_000, |_, _| ControlFlow::Continue(()))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(done && player.is_finished());
    end_of(&session)
}

/// Plays in frames of `wall_dt` seconds of at most `max_steps` solver steps each.
fn play_paced(path: &Path, wall_dt: f64, max_steps: usize) -> (End, usize) {
    let lesson = load_lesson(path).unwrap_or_else(|e| panic!("{e}"));
    let (mut player, mut session) = Player::start(lesson).unwrap();
    let mut frames = 0;
    while !player.is_finished() {
        player
            .advance_steps(&mut session, wall_dt, max_steps)
            .unwrap_or_else(|e| panic!("{e}"));
        frames += 1;
        assert!(frames < 1_000_000, "the lesson does not end");
    }
    (end_of(&session), frames)
}

#[test]
fn a_lesson_reaches_the_same_states_at_any_frame_pacing() {
    for name in ["a02_branches", "four_bar_stopping_push", "four_bar_fold"] {
        let path = lesson_path(name);
        let reference = play_headless(&path);
        println!(
            "{name}: t {} s, {} events",
            reference.t,
            reference.events.len()
        );
        // 60 and 20 frames a second; budgets from one step a frame (far behind) to plenty.
        for (wall_dt, max_steps) in [
            (1.0 / 60.0, 1),
            (1.0 / 60.0, 3),
            (0.05, 13),
            (0.05, 100_000),
        ] {
            let (end, frames) = play_paced(&path, wall_dt, max_steps);
            println!("  frames of {wall_dt:.4} s, {max_steps} steps at most: {frames} frames");
            assert_eq!(
                end, reference,
                "{name}: {wall_dt} s frames, {max_steps} steps"
            );
        }
    }
}

/// A user's session on A02, recorded: runs to the first event, leaves on branch 1, runs to
/// the next event, goes back to the first, leaves on branch 2 and runs on, pausing by hand
/// `pause_after` frames of 1/60 s later (none: pauses at the next event).
fn recorded_a02(pause_after: Option<usize>) -> (LiveSession, Recorder) {
    let mut session = LiveSession::new(scene("double_four_bar")).unwrap();
    session.set_speed(0.25);
    let mut recorder = Recorder::new(&session, BasisMode::Continued);
    recorder.record(&session, Action::Play);
    session.run_until_paused(100_000);
    let branch_1 = singulab::lesson::choices::leave_direction(&session, 1, Way::Forward).unwrap();
    recorder.leave(&session, &branch_1, None).unwrap();
    session.leave_along(&branch_1, None).unwrap();
    session.run_until_paused(100_000);
    recorder.goto_event(&session, 0);
    session.goto_event(0).unwrap();
    let branch_2 = singulab::lesson::choices::leave_direction(&session, 2, Way::Forward).unwrap();
    recorder.leave(&session, &branch_2, None).unwrap();
    session.leave_along(&branch_2, None).unwrap();
    match pause_after {
        Some(frames) => {
            for _ in 0..frames {
                session.advance_steps(1.0 / 60.0, 100_000);
                if session.is_paused() {
                    recorder.record(&session, Action::Play);
                    session.play();
                }
            }
        }
        None => {
            session.run_until_paused(100_000);
        }
    }
    recorder.record(&session, Action::Pause);
    session.pause();
    (session, recorder)
}

fn replay(recorder: &Recorder, session: &LiveSession, name: &str) -> End {
    let path = scratch(name).join("recorded.ron");
    recorder.save(session, &path).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    println!("{text}");
    play_headless(&path)
}

#[test]
fn a_recorded_session_plays_back_to_the_same_state() {
    // Every action at an event: the replay stops where the session stopped, to the bit.
    let (session, recorder) = recorded_a02(None);
    let recorded = end_of(&session);
    assert_eq!(
        replay(&recorder, &session, "lesson-record-events"),
        recorded
    );

    // A pause by hand 150 frames of 1/60 s after leaving on branch 2 (resuming from the events
    // on the way, as a user presses Space), at 1/4x 0.625 s of simulated time stepped: the
    // replay stops at that time exactly, its last step landing there (its length the
    // difference of two times, an ulp off dt) where the recorded run stepped by dt. The pause
    // falls 0.01 s after a flat pose of the folded pair, on a branch that stays singular, where
    // the velocities amplify that ulp (measured: positions 1.8e-15, velocities 2.1e-9 apart).
    let (session, recorder) = recorded_a02(Some(150));
    let recorded = end_of(&session);
    let replayed = replay(&recorder, &session, "lesson-record-pause");
    assert_eq!(replayed.t, recorded.t);
    let apart = |a: &[f64], b: &[f64]| {
        a.iter()
            .zip(b)
            .map(|(p, q)| (p - q).abs())
            .fold(0.0, f64::max)
    };
    let (dx, dxd) = (
        apart(&replayed.x, &recorded.x),
        apart(&replayed.xd, &recorded.xd),
    );
    println!(
        "paused by hand at t {} s: positions {dx:e}, velocities {dxd:e} apart",
        recorded.t
    );
    assert!(
        dx < 1e-12 && dxd < 1e-8,
        "positions {dx:e}, velocities {dxd:e} apart"
    );
    assert_eq!(replayed.events.len(), recorded.events.len());
}

#[test]
fn a_lesson_saved_just_after_a_jump_back_ends_there_and_never_passes_its_t_end() {
    // Run to the first event (about 0.72 s), leave on branch 1, run a third of a second, go
    // back to the first event and save: the lesson's t_end is where the run had stepped to,
    // and the replay ends back at the first event, held there by a final Pause.
    let mut session = LiveSession::new(scene("double_four_bar")).unwrap();
    let mut recorder = Recorder::new(&session, BasisMode::Continued);
    recorder.record(&session, Action::Play);
    session.run_until_paused(100_000);
    let branch_1 = singulab::lesson::choices::leave_direction(&session, 1, Way::Forward).unwrap();
    recorder.leave(&session, &branch_1, None).unwrap();
    session.leave_along(&branch_1, None).unwrap();
    for _ in 0..20 {
        session.advance_steps(1.0 / 60.0, 100_000);
        recorder.tick(&session, 1.0 / 60.0);
    }
    assert!(!session.is_paused(), "test bug: an event came first");
    let furthest = session.time();
    recorder.goto_event(&session, 0);
    session.goto_event(0).unwrap();
    let path = scratch("lesson-saved-after-jump").join("recorded.ron");
    let lesson = recorder.lesson(&session, &path);
    assert_eq!(lesson.t_end, Some(furthest));
    assert!(
        furthest > session.time() + 0.3,
        "the jump went back {furthest} -> {}",
        session.time()
    );
    let last = lesson.actions.last().unwrap();
    assert_eq!(
        (last.action.clone(), last.at, last.at_event),
        (Action::Pause, None, None)
    );
    assert_eq!(
        replay(&recorder, &session, "lesson-saved-after-jump"),
        end_of(&session)
    );
}

/// Every event the lesson's steps reach, in order, with whether it came after the leave on
/// branch 2, and the largest `|E - E0|` over the steps.
fn a02_lesson_events() -> (Vec<(f64, bool)>, f64, f64) {
    let lesson = load_lesson(&lesson_path("a02_branches")).unwrap_or_else(|e| panic!("{e}"));
    let (mut player, mut session) = Player::start(lesson).unwrap();
    let e0 = session.simulation().energy();
    let (mut reached, mut on_branch_2) = (0, false);
    let mut events = Vec::new();
    let mut worst = (0.0f64, 0.0);
    player
        .play_headless(&mut session, 10_000_000, |s, acted| {
            on_branch_2 |= acted
                .iter()
                .any(|step| matches!(step.action, Action::Leave { branch: 2, .. }));
            for event in s.events_reached_since(reached) {
                events.push((event.t, on_branch_2));
            }
            reached = s.events_reached();
            let drift = s.simulation().energy() - e0;
            if drift.abs() > worst.0.abs() {
                worst = (drift, s.time());
            }
            ControlFlow::Continue(())
        })
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(player.is_finished());
    (events, worst.0, worst.1)
}

#[test]
fn a02_lesson_events_on_branch_2_come_when_the_folded_pair_is_flat() {
    let (events, _, _) = a02_lesson_events();
    let first = a02_first_flat_pose();
    println!(
        "first flat pose: {:.6} s, reference {first:.6} s",
        events[0].0
    );
    assert!((events[0].0 - first).abs() < 1e-4);
    // The reference: from the first flat pose, a flat pose every half turn of the pair, up to
    // the lesson's end at 6 s.
    let mut expected = Vec::new();
    let mut t = first;
    for k in 0.. {
        let phi0 = -(k as f64) * std::f64::consts::PI;
        t += half_turn_time(A02_ENERGY, phi0, phi0 - std::f64::consts::PI);
        if t >= 6.0 {
            break;
        }
        expected.push(t);
    }
    let on_branch_2: Vec<f64> = events.iter().filter(|e| e.1).map(|e| e.0).collect();
    for (k, reference) in expected.iter().enumerate() {
        println!(
            "branch 2 event {}: {:?} s, reference {reference:.6} s",
            k + 1,
            on_branch_2.get(k)
        );
    }
    assert_eq!(
        on_branch_2.len(),
        expected.len(),
        "events on branch 2 {on_branch_2:?}"
    );
    for (t, reference) in on_branch_2.iter().zip(&expected) {
        assert!(
            (t - reference).abs() < 1e-4,
            "event at {t} s, reference {reference} s"
        );
    }
}

#[test]
fn a02_lesson_keeps_its_energy() {
    // Leaving with the event's kinetic energy conserves it; so does going back to an event.
    let (_, drift, at) = a02_lesson_events();
    println!("largest E - E0: {drift:.3e} J at t {at} s (E0 {A02_ENERGY} J)");
    assert!(
        drift.abs() <= 1e-6 * A02_ENERGY,
        "E - E0 = {drift:e} J at {at} s"
    );
}

#[test]
fn run_script_writes_the_events_the_player_reaches() {
    let dir = scratch("lesson-run-script");
    let (out, events_csv) = (dir.join("a02.csv"), dir.join("a02_events.csv"));
    let script = lesson_path("a02_branches");
    let output = singulab(&[
        "run",
        "--script",
        script.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--events",
        events_csv.to_str().unwrap(),
        "--every",
        "10",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stderr}");
    assert!(output.status.success(), "{stderr}");
    // One row per motion and branch of each event: an event is a run of rows with one time.
    let text = std::fs::read_to_string(&events_csv).unwrap();
    let mut times: Vec<f64> = Vec::new();
    for line in text.lines().skip(1) {
        let t: f64 = line.split(',').next().unwrap().parse().unwrap();
        if times.last() != Some(&t) {
            times.push(t);
        }
    }
    let (events, _, _) = a02_lesson_events();
    let played: Vec<f64> = events.iter().map(|e| e.0).collect();
    assert_eq!(times, played);
    // The trajectory ends at the lesson's end and goes back once, to the first event.
    let rows: Vec<f64> = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .skip(1)
        .map(|line| line.split(',').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(rows.last(), Some(&6.0));
    println!("{} rows, {} events", rows.len(), times.len());
}

#[test]
fn the_shipped_lessons_play() {
    // four_bar_stopping pushed along "new 1" folds: crank 2 stays at its flat angle while
    // crank 1 swings down with the coupler (its tip on crank 2's, which sits on crank 1's
    // pivot).
    let end = play_headless(&lesson_path("four_bar_stopping_push"));
    let stopping = scene("four_bar_stopping");
    let angle = |name: &str| {
        end.x[stopping.mechanism.bodies()[stopping.mechanism.body_index(name).unwrap()].offset + 2]
    };
    println!(
        "four_bar_stopping_push at {} s: crank1 {}, crank2 {} rad",
        end.t,
        angle("crank1"),
        angle("crank2")
    );
    assert!((angle("crank2").sin()).abs() < 1e-6);
    assert!(angle("crank1").sin().abs() > 0.1);
    let end = play_headless(&lesson_path("four_bar_fold"));
    assert_eq!(end.t, 2.0);
}

#[test]
fn the_documented_lesson_example_loads() {
    let readme = include_str!("../../docs/lessons.md");
    let start = readme.find("```ron\nLesson(").expect("a lesson block") + "```ron\n".len();
    let length = readme[start..].find("```").expect("closed block");
    let text = &readme[start..start + length];
    let lesson = parse_lesson("lessons.md", text, &lessons_dir()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(lesson.steps().len(), 4);
    assert_eq!(lesson.t_end, 6.0);
}

/// The app opens a lesson where it opens a scene: it tells them apart by the first word.
#[test]
fn lessons_are_told_from_scenes_by_their_first_word() {
    for name in ["a02_branches", "four_bar_fold", "four_bar_stopping_push"] {
        assert!(
            singulab::lesson::is_lesson_file(&lesson_path(name)),
            "{name}"
        );
    }
    let scenes = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes");
    for entry in std::fs::read_dir(&scenes).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "ron") {
            assert!(
                !singulab::lesson::is_lesson_file(&path),
                "{}",
                path.display()
            );
        }
    }
    assert!(singulab::lesson::is_lesson_source(
        "\u{feff}// a comment\n/* and a block */ Lesson (title: \"x\")"
    ));
    assert!(!singulab::lesson::is_lesson_source(
        "// Lesson(\nScene(bodies: [])"
    ));
    assert!(!singulab::lesson::is_lesson_source("Lessons("));
}

/// Plays `lesson` in frames of `wall_dt` wall-clock seconds (unbounded steps), calling
/// `each` after every frame with the frame's count, until it is over.
fn play_frames(
    lesson: singulab::lesson::Lesson,
    wall_dt: f64,
    mut each: impl FnMut(usize, &Player, &LiveSession),
) -> LiveSession {
    let (mut player, mut session) = Player::start(lesson).unwrap();
    let mut frames = 0;
    while !player.is_finished() {
        player
            .advance_steps(&mut session, wall_dt, 10_000_000)
            .unwrap_or_else(|e| panic!("{e}"));
        frames += 1;
        each(frames, &player, &session);
        assert!(frames < 100_000, "the lesson does not end");
    }
    session
}

/// What a user did on A02, recorded with the wall clock: plays to the first flat pose
/// (paused there by the session), reads for 4 s, leaves on branch 1, and saves once the
/// session paused at the next flat pose, 2.5 s later. The saved lesson holds at the first
/// event for the 4 s the user waited (in frames of 0.5 s: 8 frames there), then ends at the
/// second event, where the user saved, held there.
#[test]
fn a_saved_lesson_holds_where_the_user_held_and_ends_where_they_saved() {
    let mut session = LiveSession::new(scene("double_four_bar")).unwrap();
    let mut recorder = Recorder::new(&session, BasisMode::Continued);
    recorder.tick(&session, 1.0);
    recorder.record(&session, Action::Play);
    session.run_until_paused(100_000);
    let first = end_of(&session);
    for _ in 0..8 {
        recorder.tick(&session, 0.5);
    }
    let branch_1 = singulab::lesson::choices::leave_direction(&session, 1, Way::Forward).unwrap();
    recorder.leave(&session, &branch_1, None).unwrap();
    session.leave_along(&branch_1, None).unwrap();
    session.run_until_paused(100_000);
    recorder.tick(&session, 2.5);
    let saved = end_of(&session);
    assert!(
        session.current_event().is_some(),
        "paused at the second flat pose"
    );

    let path = scratch("lesson-holds").join("held.ron");
    recorder.save(&session, &path).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    println!("{text}");
    let lesson = load_lesson(&path).unwrap_or_else(|e| panic!("{e}"));
    let title = &lesson.spec.title;
    assert!(
        title.starts_with(&session.scene().title) && title.contains("recorded"),
        "{title}"
    );
    let steps: Vec<_> = lesson
        .steps()
        .iter()
        .map(|s| (s.at_event, s.after, s.action.name()))
        .collect();
    assert_eq!(
        steps,
        [
            (None, None, "Play"),
            (Some(1), None, "Pause"),
            (None, Some(4.0), "Leave"),
            (Some(1), None, "Pause"),
        ]
    );

    let mut at_first = 0;
    let replayed = play_frames(lesson, 0.5, |_, _, s| {
        if s.time() == first.t && s.current_event().is_some() {
            at_first += 1;
        }
    });
    // The frame that reaches the event, then 4 s of 0.5 s frames waiting.
    assert!(
        (8..=9).contains(&at_first),
        "held {at_first} frames at the first event"
    );
    let end = end_of(&replayed);
    assert_eq!(
        (end.t, &end.x, &end.events),
        (saved.t, &saved.x, &saved.events)
    );
    assert!(
        replayed.current_event().is_some(),
        "ends at the flat pose saved at"
    );
}

/// A lesson saved by default goes next to the scene's lessons (a `lessons` folder beside
/// the scene, else beside it), never over an earlier one, and names its scene from there:
/// it loads and plays from that folder whatever the working directory.
#[test]
fn a_lesson_saved_by_default_names_its_scene_from_where_it_is_saved() {
    use singulab::lesson::default_lesson_path;
    let dir = scratch("lesson-default-path");
    let text = std::fs::read_to_string(crate::common::scene_path("four_bar")).unwrap();
    std::fs::create_dir_all(dir.join("with/lessons")).unwrap();
    std::fs::create_dir_all(dir.join("without")).unwrap();
    for folder in ["with", "without"] {
        std::fs::write(dir.join(folder).join("bar.ron"), &text).unwrap();
    }
    let with = default_lesson_path(&dir.join("with/bar.ron"));
    assert_eq!(with, dir.join("with/lessons/bar_lesson.ron"));
    let without = default_lesson_path(&dir.join("without/bar.ron"));
    assert_eq!(without, dir.join("without/bar_lesson.ron"));

    let scene = singulab::scene::load_scene(&dir.join("with/bar.ron")).unwrap();
    let mut session = LiveSession::new(scene).unwrap();
    let recorder = Recorder::new(&session, BasisMode::Continued);
    session.set_stop_time(Some(0.25));
    session.run_until_paused(100_000);
    recorder.save(&session, &with).unwrap();
    let saved = std::fs::read_to_string(&with).unwrap();
    assert!(saved.contains("scene: \"../bar.ron\""), "{saved}");
    assert_eq!(
        default_lesson_path(&dir.join("with/bar.ron")),
        dir.join("with/lessons/bar_lesson_2.ron"),
        "the first is not overwritten"
    );
    let end = play_headless(&with);
    assert_eq!(end.t, 0.25);
}

/// Two captions 0.1 s of simulated time apart: the second waits, the mechanism held at its
/// instant, until the first has been up its reading time (2 s for three words), and the
/// lesson ends once the second has been up as long. Headless, neither waits.
#[test]
fn captions_stay_up_long_enough_to_read() {
    use singulab::lesson::player::MIN_CAPTION;
    let text = a02_lesson(
        "        (at: 0.1, do: Caption(\"one two three\", 0.5)),\n        (at: 0.2, do: Caption(\"four\", 0.5)),",
    );
    let wall_dt = 0.1;
    let mut shown = Vec::new();
    play_frames(parse(&text).unwrap(), wall_dt, |frame, player, session| {
        if let Some(caption) = player.caption()
            && shown
                .last()
                .is_none_or(|(_, text, _)| *text != caption.text)
        {
            shown.push((frame, caption.text.clone(), caption.t));
        }
        if player.is_waiting_for_reader() && player.next_step() == 1 {
            assert_eq!(session.time(), 0.2, "held at the second caption's instant");
        }
    });
    println!("{shown:?}");
    assert_eq!(shown.len(), 2);
    let frames_up = (shown[1].0 - shown[0].0) as f64 * wall_dt;
    assert!(
        frames_up >= MIN_CAPTION - 1e-9,
        "first caption up {frames_up} s"
    );
    assert!(
        frames_up < MIN_CAPTION + 3.0 * wall_dt,
        "first caption up {frames_up} s"
    );
    assert_eq!(shown[1].2, 0.2);

    let lesson = parse(&text).unwrap();
    let (mut player, mut session) = Player::start(lesson).unwrap();
    assert!(
        player
            .play_headless(&mut session, 10_000_000, |_, _| ControlFlow::Continue(()))
            .unwrap()
    );
    assert_eq!(player.captions().len(), 2);
}

#[test]
fn a_caption_is_read_before_the_lesson_jumps_and_goes_with_the_run_it_describes() {
    // The shipped A02 lesson at 60 frames a second: its branch 1 caption (17 words, 5.1 s to
    // read, 4 s asked) is up until read before the lesson goes back to the first flat pose,
    // and is never shown there; every caption is up its reading time before the next action
    // that changes the picture.
    use singulab::lesson::player::reading_time;
    let lesson = load_lesson(&lesson_path("a02_branches")).unwrap();
    let mut went_back = false;
    let mut latest = 0.0_f64;
    play_frames(lesson, 1.0 / 60.0, |_, player, session| {
        latest = latest.max(session.time());
        let behind = session.time() < latest - 0.1;
        went_back |= behind;
        if let Some(caption) = player.caption()
            && behind
        {
            assert!(
                !caption.text.starts_with("Branch 1"),
                "back at t = {} s under \"{}\"",
                session.time(),
                caption.text
            );
        }
    });
    assert!(went_back, "test bug: the lesson never went back");
    assert!(
        reading_time(
            "Branch 1: crank 1 stays still, crank 2 and coupler 1 fold; the second loop stays a parallelogram"
        ) > 4.0
    );
}

/// `singulab record --speed 2` on a lesson written at 1/4x: frame k (at 50 frames a second)
/// shows `k * 0.25 * 2 / 50` s, the session there.
#[test]
fn a_recorded_lesson_plays_at_its_speeds_times_the_record_speed() {
    use singulab::lesson::video::lesson_frame;
    use singulab::live::recording::FrameClock;
    let text =
        "Lesson(\n    scene: \"../double_four_bar.ron\",\n    speed: 0.25,\n    t_end: 0.3,\n)\n";
    let (mut player, mut session) = Player::start(parse(text).unwrap()).unwrap();
    let (fps, scale) = (50.0, 2.0);
    let mut clock = FrameClock::new(0.0, 0.25, fps);
    let mut was_running = false;
    for k in 0..20u64 {
        let frame = lesson_frame(
            &mut player,
            &mut session,
            &mut clock,
            (k, was_running),
            scale,
            1_000_000,
        )
        .unwrap();
        let expected = k as f64 * 0.25 * scale / fps;
        let shown = frame.shown.expect("running");
        assert!(
            (shown - expected).abs() < 1e-12,
            "frame {k}: {shown} s, not {expected}"
        );
        assert!(
            (session.time() - expected).abs() < 1e-9,
            "frame {k}: at {}",
            session.time()
        );
        was_running = true;
    }
}

/// The shipped A02 lesson at 60 frames a second leaves no frame without its caption on
/// branch 2, from the leave to the end: a video of it never falls back to the scene's title
/// between two captions (nor after the last).
#[test]
fn a02s_captions_cover_branch_2_to_the_end() {
    let lesson = load_lesson(&lesson_path("a02_branches")).unwrap();
    let mut on_branch_2 = false;
    let mut bare = Vec::new();
    play_frames(lesson, 1.0 / 60.0, |frame, player, session| {
        let caption = player.caption().map(|c| c.text.clone());
        on_branch_2 |= caption
            .as_deref()
            .is_some_and(|c| c.starts_with("Branch 2"));
        if on_branch_2 && caption.is_none() {
            bare.push((frame, session.time()));
        }
    });
    assert!(on_branch_2, "test bug: no branch 2 caption");
    assert!(
        bare.is_empty(),
        "frames without a caption (frame, t): {bare:?}"
    );
}

/// The A02 lesson leaves along branch 1, goes back to its first event and leaves along
/// branch 2: a viewer's banner names each leave from the frame it is done, the second for
/// 3 s of wall time at the lesson's 0.25x (0.75 simulated seconds), nothing before the
/// first, and back at the event the jump (not the leave, which belonged to the run left).
#[test]
fn a_lessons_leaves_and_jumps_are_named_for_the_viewer() {
    let lesson = load_lesson(&lesson_path("a02_branches")).unwrap_or_else(|e| panic!("{e}"));
    let (mut player, mut session) = Player::start(lesson).unwrap();
    // Each text named, with the simulated times it was first and last named.
    let mut named: Vec<(String, f64, f64)> = Vec::new();
    let mut frames = 0;
    while !player.is_finished() {
        player
            .advance_steps(&mut session, 1.0 / 60.0, 100_000)
            .unwrap_or_else(|e| panic!("{e}"));
        let now = session.time();
        let act = player.act_named(now, session.speed());
        if player.caption().is_some_and(|c| c.text.contains("Back at")) {
            let jumped = act.is_some_and(|text| {
                text.starts_with(&format!(
                    "Back to the singular event at t = {:.4} s (from t = ",
                    a02_first_flat_pose()
                ))
            });
            assert!(jumped, "back at the event: {act:?}");
        }
        match (act, named.last_mut()) {
            (Some(text), Some((last, _, until))) if last == text => *until = now,
            (Some(text), _) => named.push((text.to_owned(), now, now)),
            (None, _) => {}
        }
        frames += 1;
        assert!(frames < 1_000_000, "the lesson does not end");
    }
    let first = a02_first_flat_pose();
    let texts: Vec<&str> = named.iter().map(|(text, _, _)| text.as_str()).collect();
    assert_eq!(texts.len(), 3, "{texts:?}");
    assert_eq!(
        texts[0],
        format!("Left along branch 1 at t = {first:.4} s.")
    );
    assert!(texts[1].starts_with(&format!("Back to the singular event at t = {first:.4} s")));
    assert_eq!(
        texts[2],
        format!("Left along branch 2 at t = {first:.4} s.")
    );
    let (_, from, until) = &named[2];
    assert!(until - from >= 0.75 - 0.02, "named {} s", until - from);
}

/// At its first event the A02 lesson waits on its caption, then leaves on branch 1 (the 4th
/// motion listed: T1 continued, new 1, new 2, branch 1, branch 2); back there, on branch 2:
/// while it waits the motion it will take is the one a viewer sees drawn, and nothing is
/// ahead once it runs on a branch.
#[test]
fn a_lesson_shows_the_motion_it_will_take_before_it_takes_it() {
    let lesson = load_lesson(&lesson_path("a02_branches")).unwrap_or_else(|e| panic!("{e}"));
    let (mut player, mut session) = Player::start(lesson).unwrap();
    let mut ahead: Vec<Option<usize>> = Vec::new();
    let mut frames = 0;
    while !player.is_finished() {
        player
            .advance_steps(&mut session, 1.0 / 60.0, 100_000)
            .unwrap_or_else(|e| panic!("{e}"));
        let now = player.motion_ahead(&session);
        if ahead.last() != Some(&now) {
            ahead.push(now);
        }
        frames += 1;
        assert!(frames < 1_000_000, "the lesson does not end");
    }
    assert_eq!(ahead[..4], [None, Some(3), None, Some(4)], "{ahead:?}");
    assert!(ahead[4..].iter().all(Option::is_none), "{ahead:?}");
}
