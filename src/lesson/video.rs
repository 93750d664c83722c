//! A lesson's frames in a recording (`singulab record LESSON.ron`, or the app's Record button
//! while a lesson plays): each video frame stands for a fixed wall-clock time of the lesson
//! (`1 / fps`: its captions and wall-clock waits take as long in the video as in the window),
//! and while the mechanism runs, the frame shows the instant its [`FrameClock`] gives. The
//! clock runs at the lesson's speed (its `speed`, then its `SetSpeed`s) times `speed_scale`:
//! `singulab record --speed S` plays the whole lesson S times faster than written (1: as
//! written), its wall-clock waits unchanged (they are reading time).

use super::LessonError;
use super::player::Player;
use crate::live::recording::FrameClock;
use crate::live::{Advance, LiveSession};

/// What one frame did: the session's advance, and the simulated instant the frame shows
/// while the mechanism ran (`None`: it stood still this frame).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VideoFrame {
    pub advance: Advance,
    pub shown: Option<f64>,
}

/// Frame `frame` of the lesson: the player acts what is due and advances the session to the
/// frame's instant on `clock`, which starts a new segment where the mechanism starts running
/// (`was_running`: it ran the frame before) or the speed changes. At most `max_steps` solver
/// steps.
pub fn lesson_frame(
    player: &mut Player,
    session: &mut LiveSession,
    clock: &mut FrameClock,
    (frame, was_running): (u64, bool),
    speed_scale: f64,
    max_steps: usize,
) -> Result<VideoFrame, LessonError> {
    let frame_seconds = 1.0 / clock.fps();
    let mut shown = None;
    let advance = player.frame(session, frame_seconds, |session, _| {
        let speed = session.speed() * speed_scale;
        if !was_running || clock.speed() != speed {
            clock.restart(frame, session.time(), speed);
        }
        let t = clock.time_of(frame);
        shown = Some(t);
        session.advance_to(t, max_steps)
    })?;
    Ok(VideoFrame { advance, shown })
}
