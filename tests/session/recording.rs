//! `singulab record`'s arithmetic and arguments, without a window: which instant each frame
//! shows, how many frames a run takes, what `--out` names, unique file names, the checks on
//! the output, and the command line's errors.
//!
//! References: frame instants and counts are worked out by hand from the rule the README
//! states (frame k at t0 + k * speed / fps; frames 0..=K, K = floor((t_end - t0) * fps /
//! speed)), with values exactly representable in binary so that equality is exact.

use std::path::{Path, PathBuf};

use singulab::live::LiveSession;
use singulab::live::recording::{
    FrameClock, OutputKind, RecordPlan, TakenNames, check_fps, frame_count, gif_delay, parse_speed,
    prepare_output,
};

use crate::common::{scene, scratch, singulab};

#[test]
fn frame_k_shows_t0_plus_k_speed_over_fps_exactly() {
    let clock = FrameClock::new(0.0, 1.0, 60.0);
    assert_eq!(clock.time_of(0), 0.0);
    assert_eq!(clock.time_of(60), 1.0);
    assert_eq!(clock.time_of(90), 1.5);
    // An hour and a half of frames: no drift (60 additions of 1/60 already miss 1.0).
    assert_eq!(clock.time_of(324_000), 5400.0);
    let mut added = 0.0_f64;
    for _ in 0..60 {
        added += 1.0 / 60.0;
    }
    assert_ne!(added, 1.0, "the drift a per-frame sum would have");
    // A quarter speed at 50 fps: 200 frames are 4 s of video, 1 s simulated.
    let slow = FrameClock::new(0.5, 0.25, 50.0);
    assert_eq!(slow.time_of(200), 1.5);
    assert_eq!(slow.time_of(8), 0.54);
}

#[test]
fn a_new_segment_starts_where_the_pause_left_the_session() {
    let mut clock = FrameClock::new(0.0, 1.0, 50.0);
    // Paused at t = 0.75 s during frames 40..100, resumed at 2x.
    clock.restart(100, 0.75, 2.0);
    assert_eq!(clock.time_of(100), 0.75);
    assert_eq!(clock.time_of(125), 1.75);
    assert_eq!(clock.speed(), 2.0);
}

#[test]
fn frames_run_from_t0_to_t_end_inclusive() {
    // 2 s at 60 fps: frames at 0, 1/60, ..., 2: 121 frames.
    assert_eq!(frame_count(0.0, 2.0, 1.0, 60.0), 121);
    // 2 s simulated at half speed, 25 fps: 4 s of video, 100 intervals.
    assert_eq!(frame_count(0.0, 2.0, 0.5, 25.0), 101);
    // Shorter than a frame: the first frame alone.
    assert_eq!(frame_count(0.0, 0.01, 1.0, 60.0), 1);
    // 0.29 * 100 is 28.999999999999996 in binary: still 29 intervals.
    assert_eq!(0.29_f64 * 100.0, 28.999999999999996);
    assert_eq!(frame_count(0.0, 0.29, 1.0, 100.0), 30);
    // Between frames: the last frame before t_end (2.5 frames of 0.4 s in 1 s).
    assert_eq!(frame_count(0.0, 1.0, 1.0, 2.5), 3);
    assert_eq!(frame_count(1.0, 0.5, 1.0, 60.0), 1, "t_end before t0");
}

#[test]
fn the_session_shows_each_frame_at_its_instant() {
    let scene = scene("four_bar");
    let dt = scene.settings.dt;
    let mut session = LiveSession::new(scene).unwrap();
    session.auto_pause = false;
    session.play();
    let clock = FrameClock::new(0.0, 1.0, 60.0);
    let mut steps = 0;
    for k in 1..=30 {
        let t = clock.time_of(k);
        steps += session.advance_to(t, usize::MAX).steps;
        // Whatever fraction of the fixed timestep the frame is drawn at.
        for overstep in [0.0, 0.3, 1.0] {
            assert_eq!(session.display_time(overstep), t, "frame {k}");
        }
        assert!(
            session.time() >= t - 1e-12 && session.time() < t + dt,
            "frame {k}"
        );
    }
    // Half a second in steps of dt, none skipped or repeated.
    assert_eq!(steps, (0.5 / dt).ceil() as usize);
}

#[test]
fn out_names_an_mp4_a_gif_or_a_folder() {
    let dir = scratch("record_out_kinds");
    let existing = dir.join("frames.d");
    std::fs::create_dir_all(&existing).unwrap();
    let cases = [
        ("talk.mp4", OutputKind::Mp4),
        ("TALK.MP4", OutputKind::Mp4),
        ("loop.gif", OutputKind::Gif),
        ("frames/", OutputKind::PngFolder),
        ("frames", OutputKind::PngFolder),
    ];
    for (name, kind) in cases {
        assert_eq!(OutputKind::of(Path::new(name)), Ok(kind), "{name}");
    }
    assert_eq!(OutputKind::of(&existing), Ok(OutputKind::PngFolder));
    let error = OutputKind::of(Path::new("talk.avi")).unwrap_err();
    assert!(
        error.contains(".avi") && error.contains("FILE.mp4"),
        "{error}"
    );
}

#[test]
fn a_gif_plays_exactly_at_whole_hundredths() {
    assert_eq!(OutputKind::Gif.default_fps(), 25);
    assert_eq!(OutputKind::Mp4.default_fps(), 60);
    assert_eq!(gif_delay(25), 4);
    assert_eq!(gif_delay(50), 2);
    assert!(check_fps(&OutputKind::Gif, 25).is_ok());
    assert!(check_fps(&OutputKind::Mp4, 60).is_ok());
    for fps in [60, 30, 100, 3] {
        let error = check_fps(&OutputKind::Gif, fps).unwrap_err();
        assert!(error.contains("--fps 50, 25"), "{fps}: {error}");
    }
}

#[test]
fn speeds_are_numbers_or_fractions_in_the_apps_range() {
    assert_eq!(parse_speed("1/16"), Ok(0.0625));
    assert_eq!(parse_speed("0.25"), Ok(0.25));
    assert_eq!(parse_speed("64"), Ok(64.0));
    for bad in ["0", "-1", "65", "1/0", "fast", "1/128"] {
        assert!(parse_speed(bad).is_err(), "{bad}");
    }
}

#[test]
fn names_handed_out_are_never_handed_out_again() {
    let dir = scratch("record_unique_names");
    let mut taken = TakenNames::default();
    // B then F12 at the same instant: same scene and time, neither file on disk yet.
    let first = taken.unique(&dir, "singulab_a02_t0.714", Some("png"));
    let second = taken.unique(&dir, "singulab_a02_t0.714", Some("png"));
    assert_eq!(first, dir.join("singulab_a02_t0.714.png"));
    assert_eq!(second, dir.join("singulab_a02_t0.714_2.png"));
    // A file left by an earlier run is not overwritten either.
    std::fs::write(dir.join("talk.mp4"), b"earlier").unwrap();
    let mut fresh = TakenNames::default();
    assert_eq!(
        fresh.unique(&dir, "talk", Some("mp4")),
        dir.join("talk_2.mp4")
    );
    assert_eq!(fresh.unique(&dir, "frames", None), dir.join("frames"));
    assert_eq!(fresh.unique(&dir, "frames", None), dir.join("frames_2"));
}

fn plan(out: PathBuf, kind: OutputKind) -> RecordPlan {
    RecordPlan {
        out,
        kind,
        fps: 25,
        speed: 1.0,
        t_end: None,
    }
}

#[test]
fn the_output_is_checked_before_the_window_opens() {
    let dir = scratch("record_prepare");
    let file = dir.join("plain.txt");
    std::fs::write(&file, b"not a folder").unwrap();
    let under_a_file = file.join("x.gif");
    let error = prepare_output(&plan(under_a_file.clone(), OutputKind::Gif)).unwrap_err();
    assert!(
        error.starts_with("cannot write") && error.contains("x.gif"),
        "{error}"
    );
    // A GIF that can be written is not left behind by the check.
    let gif = dir.join("fine.gif");
    prepare_output(&plan(gif.clone(), OutputKind::Gif)).unwrap();
    assert!(!gif.exists());
    // An earlier recording's frames would mix with the new ones.
    let frames = dir.join("frames");
    prepare_output(&plan(frames.clone(), OutputKind::PngFolder)).unwrap();
    assert!(frames.is_dir());
    std::fs::write(frames.join("frame_00000.png"), b"").unwrap();
    let error = prepare_output(&plan(frames, OutputKind::PngFolder)).unwrap_err();
    assert!(error.contains("already holds frames"), "{error}");
}

/// Exit 2, one `singulab: ` line naming what is wrong, no panic.
fn assert_usage_error(args: &[&str], words: &[&str]) {
    let output = singulab(args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    for word in words {
        assert!(
            stderr.contains(word),
            "{args:?}: {word:?} missing: {stderr}"
        );
    }
}

#[test]
fn bad_record_arguments_exit_2_with_one_line() {
    let a02 = crate::common::scene_path("double_four_bar")
        .display()
        .to_string();
    let cases: [(&[&str], &[&str]); 8] = [
        (&["record", &a02], &["--out", "required"]),
        (&["record", &a02, "--out", "x.avi"], &[".avi", "FILE.gif"]),
        (
            &["record", &a02, "--out", "x.mp4", "--size", "1920by1080"],
            &["--size", "WIDTHxHEIGHT"],
        ),
        (
            &["record", &a02, "--out", "x.mp4", "--size", "100x100"],
            &["--size", "320x240"],
        ),
        (
            &["record", &a02, "--out", "x.gif", "--fps", "60"],
            &["x.gif", "--fps 50, 25"],
        ),
        (
            &["record", &a02, "--out", "x.mp4", "--fps", "0"],
            &["--fps"],
        ),
        (
            &["record", &a02, "--out", "x.mp4", "--speed", "100"],
            &["--speed", "1/64 to 64"],
        ),
        (
            &["record", &a02, "--out", "x.mp4", "--t-end", "-2"],
            &["--t-end", "positive"],
        ),
    ];
    for (args, words) in cases {
        assert_usage_error(args, words);
        assert!(
            String::from_utf8_lossy(&singulab(args).stderr).contains("singulab record --help"),
            "{args:?}"
        );
    }
}

#[test]
fn an_unwritable_output_fails_before_any_window() {
    let dir = scratch("record_unwritable");
    let file = dir.join("plain.txt");
    std::fs::write(&file, b"").unwrap();
    let out = file.join("talk.gif").display().to_string();
    let a02 = crate::common::scene_path("double_four_bar")
        .display()
        .to_string();
    let output = singulab(&["record", &a02, "--out", &out]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    let expected = if cfg!(feature = "app") {
        "cannot write"
    } else {
        "no visualizer"
    };
    assert!(stderr.contains(expected), "{stderr}");
}
