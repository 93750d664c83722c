//! Integration tests of the interactive session (`live`, Bevy-free): pacing, events,
//! pushes and leaves, the timeline, drags, lessons and recording plans, driven directly.
//! References come from independent derivations, each cited where it is used.

#[allow(
    dead_code,
    unused_imports,
    reason = "each test binary uses part of the shared helpers"
)]
#[path = "../common/mod.rs"]
mod common;

mod drag;
mod lessons;
mod live;
mod motion_orientation;
mod preview;
mod push_meaning;
mod recording;
mod sketch;
mod stale_events;
mod timeline;
