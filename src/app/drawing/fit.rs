//! Fitting the view: the scene's view hints at opening, a video's, a lesson's or a grounded
//! planar scene's whole motion on every frame (the scene's: [`super::run_frame`]), the
//! current pose on request (F, double-click) or, without a frame of the whole motion (a
//! browser, after F, a vehicle), when a singular event finds it off the canvas, and the orbit
//! camera of spatial scenes.

use bevy_egui::egui;

use super::ViewState;
use super::camera::CanvasCamera;
use super::run_frame::union;
use super::spatial;
use crate::app::simulation::Live;
use crate::app::theme::Palette;
use crate::live::framing;
use crate::live::{OrbitCamera, PlanarView};

/// The scene's initial view: its view hints, else twice the bounding box of its pose.
pub(super) fn fit_planar(live: &Live) -> PlanarView {
    let scene = live.session.scene();
    let [lo, hi] = pose_box(live).unwrap_or([[0.0; 2]; 2]);
    let center = scene
        .view
        .center
        .map_or([0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1])], |c| {
            [c.0, c.1]
        });
    let width = scene
        .view
        .width
        .unwrap_or_else(|| 2.0 * (hi[0] - lo[0]).max(hi[1] - lo[1]).max(1.0));
    PlanarView { center, width }
}

/// Room (pixels) above and below the pose for the motions' arrows where they are drawn (at an
/// event, or with the columns of T shown): their longest is this long
/// (`arrows::draw_motions`). Without it a short canvas (a projector's interface scale, side
/// by side) drew them over the legend and the time.
pub(super) fn arrow_room(live: &Live, view: &ViewState, size: egui::Vec2) -> f32 {
    if live.session.current_event().is_some() || view.show_motions {
        0.16 * size.x.min(size.y)
    } else {
        0.0
    }
}

/// "Fit view": the current pose's bounding box fills the part of the canvas (`size` in
/// pixels) below the legend and the time (`top` pixels), less the arrows' room above and
/// below it, in whichever dimension it reaches first, with a margin of a tenth of that part
/// on every side (the labels need some room); the view `min_width` metres across at least.
fn fit_pose(
    live: &Live,
    view: &ViewState,
    size: egui::Vec2,
    top: f32,
    min_width: f64,
) -> PlanarView {
    let top = top + NAME_ROOM;
    match pose_box(live) {
        Some(pose) => fit_box(
            pose,
            size,
            [top, GROUND_ROOM],
            arrow_room(live, view, size),
            [WINDOW_FILL, min_width],
        ),
        None => fit_planar(live),
    }
}

/// The view in which `[lo, hi]` fills the canvas as [`fit_pose`] fills it with the pose:
/// `top` and `bottom` pixels of the canvas left to the legend and the scale bar, `arrows`
/// pixels free above and below the box, which fills the fraction `fill` of the width or the
/// height it reaches first, in a view `min_width` metres across at least.
fn fit_box(
    [lo, hi]: framing::PlaneBox,
    size: egui::Vec2,
    [top, bottom]: [f32; 2],
    arrows: f32,
    [fill, min_width]: [f64; 2],
) -> PlanarView {
    let (w, h) = (hi[0] - lo[0], hi[1] - lo[1]);
    // The legend may fill most of a short canvas: the pose keeps the lower half at least
    // (as `pose_on_canvas` asks).
    let top = top.min(0.5 * size.y);
    let bottom = bottom.min(0.25 * (size.y - top));
    let arrows = arrows.min(0.25 * (size.y - top - bottom));
    let (canvas_w, free_h) = (
        f64::from(size.x),
        f64::from((size.y - top - bottom - 2.0 * arrows).max(1.0)),
    );
    // A single point (or a pose with no extent) still gets a sensible scale.
    let needed = w.max(h * canvas_w / free_h).max(1e-3);
    let width = (needed / fill).max(min_width);
    // The free part's centre is `(top - bottom) / 2` pixels below the canvas centre.
    let below = 0.5 * f64::from(top - bottom) * width / canvas_w;
    PlanarView {
        center: [0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]) + below],
        width,
    }
}

/// Whether the current pose lies on the canvas `rect` under `planar`, below the legend
/// (`top` pixels) and clear of the edges by a tenth of the canvas' smaller side, and at an
/// event of the top and bottom by its arrows' room too.
fn pose_on_canvas(
    live: &Live,
    view: &ViewState,
    planar: &PlanarView,
    rect: egui::Rect,
    top: f32,
) -> bool {
    let top = top + NAME_ROOM;
    let Some([lo, hi]) = pose_box(live) else {
        return true;
    };
    let margin = 0.1 * f64::from(rect.width().min(rect.height()));
    let arrows = f64::from(arrow_room(live, view, rect.size()));
    let center = [f64::from(rect.center().x), f64::from(rect.center().y)];
    let width = f64::from(rect.width());
    let [left, upper] = planar.to_screen([lo[0], hi[1]], center, width);
    let [right, lower] = planar.to_screen([hi[0], lo[1]], center, width);
    left >= f64::from(rect.left()) + margin
        && right <= f64::from(rect.right()) - margin
        && upper >= f64::from(rect.top() + top.min(0.5 * rect.height())) + margin + arrows
        && lower <= f64::from(rect.bottom() - GROUND_ROOM) - margin - arrows
}

/// The bounding box (`[lo, hi]` in the plane) of the current pose ([`framing::pose_box`]).
fn pose_box(live: &Live) -> Option<[[f64; 2]; 2]> {
    framing::pose_box(
        &live.session.scene().mechanism,
        live.session.simulation().positions(),
    )
}

/// The orbit camera of a spatial scene: framing the current pose of rigid bodies, or the
/// scene's view width about the origin.
pub(super) fn fit_orbit(live: &Live) -> OrbitCamera {
    let scene = live.session.scene();
    if scene.mechanism.has_rigid_bodies() {
        let palette = Palette::for_theme(false);
        return spatial::fit_camera(live, live.session.simulation().positions(), palette);
    }
    let size = scene.view.width.unwrap_or(1.0);
    let mut camera = OrbitCamera::looking_at([0.0, 0.0, 0.0], 1.6 * size);
    camera.target = [0.0, 0.0, -0.25 * size];
    camera
}

/// Sets the view up for a new scene, or a change to or from side by side or presenting (at an
/// event: fitted to the pose), fits the pose when asked, and after a singular event or a
/// pause when the pose ran off the canvas, and pans or widens it while the pose runs off it
/// (recorded too: a jump is better than a mechanism out of the video), none once the user
/// panned or zoomed.
pub(super) fn fit_view(
    live: &Live,
    view: &ViewState,
    camera: &mut CanvasCamera,
    rect: egui::Rect,
    spatial: bool,
) {
    if let Some(motion) = camera.motion_box {
        fit_video(live, camera, motion, rect);
        return;
    }
    let layout = (view.side_by_side, view.presenting);
    if camera.fit_requested {
        camera.run_frame.suspend();
    }
    let run_frame = camera
        .run_frame
        .update(live)
        .filter(|_| !spatial && !camera.moved_by_user);
    if let Some(motion) = lesson_frame(live, camera, spatial).or(run_frame) {
        fit_whole_motion(live, camera, motion, rect, layout);
        return;
    }
    // After a jump (R on the mobile robot 50 s in) the run's recent poses are of another
    // run: the view brings the pose shown into sight alone, not with them (it zoomed out to
    // hold both, the robot 200 px long).
    let jump = live.session.jump_epoch();
    if camera
        .seen_jump
        .replace(jump)
        .is_some_and(|seen| seen != jump)
    {
        camera.recent.clear();
        camera.check_pose_visible = true;
    }
    // A pause, as a singular event, a new scene and a new layout look whether the pose lies
    // on the canvas, below the legend and the time.
    let paused = live.session.is_paused();
    if paused && !camera.was_paused {
        camera.check_pose_visible = true;
    }
    camera.was_paused = paused;
    // So does a canvas of a new size (the window's first frames have another).
    // (Side by side the two halves may differ by a pixel: that is no new size.)
    if camera
        .canvas_size
        .is_none_or(|size| (size - rect.size()).length() > 2.0)
    {
        // At an event the pose is fitted to a canvas of a new size (presenting, Ctrl +
        // for a hall's type shortens it: the flat pose's arrows would run off its bottom).
        let resized = camera.canvas_size.is_some();
        camera.canvas_size = Some(rect.size());
        camera.check_pose_visible = true;
        if resized && live.session.current_event().is_some() && !camera.moved_by_user {
            camera.fit_requested = true;
        }
    }
    if camera.fitted_generation != Some(live.generation) {
        camera.planar = Some(fit_planar(live));
        camera.orbit = Some(fit_orbit(live));
        camera.fitted_generation = Some(live.generation);
        camera.fitted_layout = layout;
        camera.moved_by_user = false;
        camera.check_pose_visible = true;
        camera.recent.clear();
    } else if camera.fitted_layout != layout {
        // At an event the pose is what the class looks at: fitted as F fits it.
        camera.planar = Some(if live.session.current_event().is_some() {
            fit_pose(live, view, rect.size(), camera.overlay_height, 0.0)
        } else {
            fit_planar(live)
        });
        camera.orbit = Some(fit_orbit(live));
        camera.fitted_layout = layout;
        camera.moved_by_user = false;
        camera.check_pose_visible = true;
    } else if std::mem::take(&mut camera.fit_requested) {
        // The orbit camera of a spatial scene goes back to its start: the pendulum swings
        // about its pivot, which that view centres.
        camera.planar = Some(fit_pose(
            live,
            view,
            rect.size(),
            camera.overlay_height,
            0.0,
        ));
        camera.orbit = Some(fit_orbit(live));
        // F during a lesson: the view is the user's from now on, as after a pan.
        camera.moved_by_user = live.lesson.is_some();
    } else if camera.overlay_height > 0.0
        // (the legend's and the time's extent is known once the canvas was drawn)
        && std::mem::take(&mut camera.check_pose_visible)
        && !spatial
        && !camera.moved_by_user
        && let Some(looked) = camera
            .planar
            .and_then(|planar| view_to_look(live, view, camera, &planar, rect))
    {
        camera.planar = Some(looked);
    } else if !paused
        && !spatial
        && !camera.moved_by_user
        && camera.overlay_height > 0.0
        && let Some(widened) = camera
            .planar
            .zip(pose_box(live))
            .and_then(|(planar, pose)| {
                let recent = camera.recent.iter().fold(pose, |a, b| union(a, *b));
                let pan = !grounded(live);
                widen_to_pose([pose, recent], &planar, rect, camera.overlay_height, pan)
            })
    {
        camera.planar = Some(widened);
    }
    // A vehicle (no pin to the ground) is followed smoothly while it runs: panned to it
    // little by little, not when it reaches the edge, where its names are already cut and
    // the pan is a jump.
    if !paused
        && !spatial
        && !camera.moved_by_user
        && camera.overlay_height > 0.0
        && !grounded(live)
        && let (Some(planar), Some(pose)) = (camera.planar, pose_box(live))
    {
        // A fraction per wall-clock second, not per frame: at 6 frames a second (software
        // rendering, the robot at 4x) a twentieth a frame left it at the canvas' edge.
        let now = web_time::Instant::now();
        let since = camera
            .followed_at
            .replace(now)
            .map_or(0.0, |then| (now - then).as_secs_f64().min(0.5));
        let fraction = 1.0 - (-since / FOLLOW_TIME).exp();
        camera.planar = Some(follow(pose, &planar, rect, camera.overlay_height, fraction));
    } else {
        camera.followed_at = None;
    }
    if !paused && let Some(pose) = pose_box(live) {
        if camera.recent.len() >= RECENT_FRAMES {
            camera.recent.pop_front();
        }
        camera.recent.push_back(pose);
    }
}

/// Whether the mechanism is pinned or linked to the ground somewhere (else it is a vehicle).
pub(super) fn grounded(live: &Live) -> bool {
    let mechanism = &live.session.scene().mechanism;
    mechanism
        .joints()
        .iter()
        .any(|j| j.ground_anchor().is_some())
}

/// The view panned a step towards the pose `[lo, hi]`: by the `fraction` of the distance
/// from the pose's centre to the centre of the canvas below the legend and the time (`top`
/// points), where that distance is more than [`FOLLOW_FROM`] of the canvas' smaller side.
fn follow(
    [lo, hi]: framing::PlaneBox,
    planar: &PlanarView,
    rect: egui::Rect,
    top: f32,
    fraction: f64,
) -> PlanarView {
    let top = (top + NAME_ROOM).min(0.5 * rect.height());
    let center = [f64::from(rect.center().x), f64::from(rect.center().y)];
    let width = f64::from(rect.width());
    let pose = planar.to_screen(
        [0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1])],
        center,
        width,
    );
    let target = [center[0], center[1] + 0.5 * f64::from(top)];
    let offset = [target[0] - pose[0], target[1] - pose[1]];
    let far = f64::from(FOLLOW_FROM * rect.width().min(rect.height()));
    let mut followed = *planar;
    if offset[0].hypot(offset[1]) > far {
        followed.pan([fraction * offset[0], fraction * offset[1]], width);
    }
    followed
}

/// Seconds in which a followed view pans all but 1/e of the way to the pose (a twentieth
/// in a frame at 60 frames a second).
const FOLLOW_TIME: f64 = 0.33;

/// How far (a fraction of the canvas' smaller side) a vehicle's centre may stray from the
/// canvas' centre before the view follows it.
const FOLLOW_FROM: f32 = 0.1;

/// The view a pause, a new canvas or a new layout calls for, `None` where the current one
/// serves. The motions at a singular event are drawn on the whole pose (the 2x2's stacked
/// stage leans past its view hint's right edge at its first event): a pose off the canvas is
/// brought into sight at the view's scale. Paused, a pose the run's widening left small
/// (A02's flat pose after branch 1's fold had widened the view to a 2 m grid) is fitted as
/// F fits it, but never closer than the scene opened (a compact pose fitted at each pause
/// zoomed in step by step: four_bar_stopping from a 50 cm scale to 10 cm).
fn view_to_look(
    live: &Live,
    view: &ViewState,
    camera: &CanvasCamera,
    planar: &PlanarView,
    rect: egui::Rect,
) -> Option<PlanarView> {
    let pose = pose_box(live)?;
    let top = camera.overlay_height;
    if live.session.is_paused() {
        let opening = fit_planar(live).width;
        let fitted = fit_pose(live, view, rect.size(), top, opening);
        if planar.width > ZOOM_IN_AT_PAUSE * fitted.width {
            return Some(fitted);
        }
    }
    if pose_on_canvas(live, view, planar, rect, top) {
        return None;
    }
    let arrows = arrow_room(live, view, rect.size());
    // With arrows the pose is what the class looks at: centred alone (with the run's recent
    // poses a flat pose reached from upright ones stayed at the box's bottom, its arrows off
    // the canvas).
    let recent = if arrows > 0.0 {
        pose
    } else {
        camera.recent.iter().fold(pose, |a, b| union(a, *b))
    };
    // Panned, grounded or not: at a pause the arrows need their room, which widening to
    // what the canvas showed does not leave them.
    Some(reframe(recent, planar, rect, [top, arrows], true))
}

/// How much wider than the pose's fit (at the scene's opening scale at least) a paused view
/// may be before the pause fits the pose.
const ZOOM_IN_AT_PAUSE: f64 = 1.5;

/// The running frames whose poses the view brings back into sight together (two seconds at
/// 60 frames a second, canvases side by side counting twice): a mechanism that swings off
/// the canvas is framed on its whole swing, not panned to and fro on every one.
const RECENT_FRAMES: usize = 120;

/// While the mechanism runs, a pose (its box `[lo, hi]`) that reaches past the canvas' edges
/// or under the legend and the time (`top` pixels) moves the view to the `recent` poses' box:
/// where it may `pan` (a vehicle driving away), panned to centre it at its scale, or, when it
/// does not fit at this scale or the mechanism is grounded (its pivots must not move away
/// under a class' eyes), widened to the part of the plane the canvas showed and the pose,
/// fitted as F fits a pose (a mechanism that swings beyond its scene's view settles, after
/// a widening or two, in a view that holds its whole swing); `None` while the pose is in
/// sight.
fn widen_to_pose(
    [[lo, hi], recent]: [framing::PlaneBox; 2],
    planar: &PlanarView,
    rect: egui::Rect,
    top: f32,
    pan: bool,
) -> Option<PlanarView> {
    let below = (top + NAME_ROOM).min(0.5 * rect.height());
    let center = [f64::from(rect.center().x), f64::from(rect.center().y)];
    let width = f64::from(rect.width());
    let (left, right) = (f64::from(rect.left()), f64::from(rect.right()));
    let (upper, lower) = (f64::from(rect.top() + below), f64::from(rect.bottom()));
    let [pose_left, pose_upper] = planar.to_screen([lo[0], hi[1]], center, width);
    let [pose_right, pose_lower] = planar.to_screen([hi[0], lo[1]], center, width);
    if pose_left >= left && pose_right <= right && pose_upper >= upper && pose_lower <= lower {
        return None;
    }
    Some(reframe(recent, planar, rect, [top, 0.0], pan))
}

/// The view that brings the box `recent` into sight: where it may `pan` (a vehicle),
/// panned to centre it below the legend and the time (`top` pixels with the names' room),
/// `arrows` pixels clear of the top and the bottom (an event's motions), where it fits at
/// this scale, else widened to it and the part of the plane the canvas showed. Never a
/// closer view.
fn reframe(
    recent: framing::PlaneBox,
    planar: &PlanarView,
    rect: egui::Rect,
    [top, arrows]: [f32; 2],
    pan: bool,
) -> PlanarView {
    if !pan {
        return widen(recent, planar, rect, [top, arrows]);
    }
    let below = (top + NAME_ROOM).min(0.5 * rect.height());
    let arrows = arrows.min(0.25 * (rect.height() - below));
    let center = [f64::from(rect.center().x), f64::from(rect.center().y)];
    let width = f64::from(rect.width());
    let (left, right) = (f64::from(rect.left()), f64::from(rect.right()));
    let (upper, lower) = (
        f64::from(rect.top() + below + arrows),
        f64::from(rect.bottom() - arrows),
    );
    let [lo, hi] = recent;
    let [pose_left, pose_upper] = planar.to_screen([lo[0], hi[1]], center, width);
    let [pose_right, pose_lower] = planar.to_screen([hi[0], lo[1]], center, width);
    // Centred where it fits: a vehicle then drives half the canvas before the next pan.
    let shift = |from: f64, to: f64, low: f64, high: f64| {
        (to - from <= high - low).then_some(0.5 * (low + high) - 0.5 * (from + to))
    };
    if let (Some(dx), Some(dy)) = (
        shift(pose_left, pose_right, left, right),
        shift(pose_upper, pose_lower, upper, lower),
    ) {
        let mut panned = *planar;
        panned.pan([dx, dy], width);
        return panned;
    }
    widen(recent, planar, rect, [top, arrows])
}

/// The view widened to the box `recent` and the part of the plane the canvas showed below
/// the legend and the time (`top` points, with the names' room), fitted as F fits a pose
/// with `arrows` points free above and below it.
fn widen(
    recent: framing::PlaneBox,
    planar: &PlanarView,
    rect: egui::Rect,
    [top, arrows]: [f32; 2],
) -> PlanarView {
    let top = (top + NAME_ROOM).min(0.5 * rect.height());
    let center = [f64::from(rect.center().x), f64::from(rect.center().y)];
    let width = f64::from(rect.width());
    let shown_lo = planar.to_world(
        [f64::from(rect.left()), f64::from(rect.bottom())],
        center,
        width,
    );
    let shown_hi = planar.to_world(
        [f64::from(rect.right()), f64::from(rect.top() + top)],
        center,
        width,
    );
    let both = union(recent, [shown_lo, shown_hi]);
    fit_box(both, rect.size(), [top, 0.0], arrows, [WINDOW_FILL, 0.0])
}

/// The box of the open lesson's whole motion while the lesson drives the canvas: from its
/// opening until the user takes over, pans, zooms or fits the view (a planar scene's).
fn lesson_frame(live: &Live, camera: &CanvasCamera, spatial: bool) -> Option<framing::PlaneBox> {
    let run = live.lesson.as_ref()?;
    let fresh = camera.fitted_generation != Some(live.generation);
    (!spatial && !camera.fit_requested && (fresh || !camera.moved_by_user))
        .then(|| run.frame.plane_box())
        .flatten()
}

/// A lesson's view, or a scene's run's ([`RunFrame`]), on every frame: its whole motion
/// below the time (not the legend: an event's would shrink the view at each event), on as
/// much of the canvas as it can take (a hall's type leaves the canvas 160 points), the scale
/// bar in a corner beside it. A class sees the mechanism at one scale and place through the
/// lesson, every pose in sight.
fn fit_whole_motion(
    live: &Live,
    camera: &mut CanvasCamera,
    motion: framing::PlaneBox,
    rect: egui::Rect,
    layout: (bool, bool),
) {
    if camera.fitted_generation != Some(live.generation) {
        camera.orbit = Some(fit_orbit(live));
        camera.fitted_generation = Some(live.generation);
        camera.moved_by_user = false;
        camera.recent.clear();
    }
    let size = rect.size();
    camera.planar = Some(fit_box(
        motion,
        size,
        [super::overlay::time_corner_bottom(size), 0.0],
        LESSON_ARROWS * size.x.min(size.y),
        [LESSON_FILL, 0.0],
    ));
    // Once the lesson lets go, the view stays where it is for this layout.
    camera.fitted_layout = layout;
    camera.check_pose_visible = false;
}

/// The fraction of the canvas' smaller side a lesson's frame leaves above and below its
/// motion for the arrows of a pose at its edge (rarely at an event).
const LESSON_ARROWS: f32 = 0.04;

/// The fraction of the canvas a lesson's whole motion fills: it never leaves that box.
const LESSON_FILL: f64 = 0.95;

/// A video's view, on every frame: the box of its whole motion fitted below room for the
/// time and an event's legend (a fifth of the canvas) and with some room for the arrows of
/// a pose at its edge (the arrows reach a sixth of the canvas), the same
/// for the whole video while the canvas keeps its size (the window's first frames have
/// another).
fn fit_video(live: &Live, camera: &mut CanvasCamera, motion: framing::PlaneBox, rect: egui::Rect) {
    if camera.fitted_generation != Some(live.generation) {
        camera.orbit = Some(fit_orbit(live));
        camera.fitted_generation = Some(live.generation);
    }
    let size = rect.size();
    let arrows = 0.08 * size.x.min(size.y);
    camera.planar = Some(fit_box(
        motion,
        size,
        [0.2 * size.y, 0.0],
        arrows,
        [VIDEO_FILL, 0.0],
    ));
}

/// Pixels at the canvas' bottom a fitted pose leaves to the ground symbols under its pivots
/// and the scale bar in the corner.
const GROUND_ROOM: f32 = 56.0;

/// Pixels between the legend and the pose's top for the bars' names written above them (a
/// name under the legend is left out).
const NAME_ROOM: f32 = 22.0;

/// The fraction of the canvas a fitted pose fills in the window: a tenth of it free on each
/// side, for the labels and for the pose to move in before the view refits.
const WINDOW_FILL: f64 = 0.8;

/// The fraction of the canvas a video's whole motion fills: it never leaves that box, so
/// only its names and its arrows at the edge need the margin.
const VIDEO_FILL: f64 = 0.88;

#[cfg(test)]
mod tests {
    use super::*;

    /// A 1000 x 500 canvas whose legend and time reach 60 pixels down, showing 4 m across
    /// about the origin (250 pixels per metre).
    fn canvas() -> (egui::Rect, PlanarView, f32) {
        let rect = egui::Rect::from_min_size(egui::pos2(0.0, 0.0), egui::vec2(1000.0, 500.0));
        let view = PlanarView {
            center: [0.0, 0.0],
            width: 4.0,
        };
        (rect, view, 60.0)
    }

    #[test]
    fn a_pose_in_sight_keeps_the_view() {
        let (rect, view, top) = canvas();
        assert_eq!(
            widen_to_pose(
                [[[-1.0, -0.5], [1.0, 0.2]], [[-1.0, -0.5], [1.0, 0.2]]],
                &view,
                rect,
                top,
                true
            ),
            None
        );
    }

    /// A vehicle's pose past the right edge (x = 2.3 m, the canvas ends at 2 m), and one
    /// that rises under the legend (y = 0.8 m: 50 pixels from the top): the view pans, at
    /// its scale, until the pose is in sight.
    #[test]
    fn a_pose_off_the_canvas_that_fits_it_pans_the_view() {
        let (rect, view, top) = canvas();
        for pose in [[[-1.0, -0.5], [2.3, 0.2]], [[-1.0, -0.5], [1.0, 0.8]]] {
            let moved = widen_to_pose([pose, pose], &view, rect, top, true)
                .expect("the pose is off the canvas");
            assert_eq!(moved.width, view.width, "the same scale");
            assert_eq!(
                widen_to_pose([pose, pose], &moved, rect, top, true),
                None,
                "{pose:?} in sight"
            );
        }
    }

    /// A grounded crank that swings past the right edge: the view widens to hold it and
    /// everything it showed (the ground pivots stay in sight, none pans away).
    #[test]
    fn a_grounded_pose_off_the_canvas_widens_the_view_without_panning() {
        let (rect, view, top) = canvas();
        let pose = [[-1.0, -0.5], [2.3, 0.2]];
        let wide = widen_to_pose([pose, pose], &view, rect, top, false)
            .expect("the pose is off the canvas");
        assert!(wide.width > view.width, "zooms out, never in");
        assert_eq!(widen_to_pose([pose, pose], &wide, rect, top, false), None);
        let (center, width) = ([500.0, 250.0], 1000.0);
        // The shown area's lower corners, with a pivot at the origin.
        for corner in [[-2.0, -1.0], [2.0, -1.0], [0.0, 0.0]] {
            let [x, y] = wide.to_screen(corner, center, width);
            assert!(
                (0.0..=1000.0).contains(&x) && (0.0..=500.0).contains(&y),
                "{corner:?}"
            );
        }
    }

    /// A pose wider than the canvas at this scale (5 m on a 4 m view) widens the view to
    /// hold it and what was shown.
    #[test]
    fn a_pose_too_large_for_the_canvas_widens_the_view_to_hold_it_and_what_was_shown() {
        let (rect, view, top) = canvas();
        let pose = [[-2.5, -0.5], [2.5, 0.2]];
        let wide = widen_to_pose([pose, pose], &view, rect, top, true)
            .expect("the pose is off the canvas");
        assert!(wide.width > view.width, "zooms out, never in");
        assert_eq!(
            widen_to_pose([pose, pose], &wide, rect, top, true),
            None,
            "in sight"
        );
        let (center, width) = ([500.0, 250.0], 1000.0);
        for corner in [[-2.0, -1.0], [2.0, 0.5]] {
            let [x, y] = wide.to_screen(corner, center, width);
            assert!((0.0..=1000.0).contains(&x) && (0.0..=500.0).contains(&y));
        }
    }

    /// A02 run from rest to its first flat pose, presenting side by side at 1280x720 (a
    /// half canvas of 476 x 264 points, the legend 81 points down): the pause finds the
    /// flat pose's arrows off the canvas' bottom (the view as the run left it) and brings
    /// the pose and its arrows into sight, though the run's recent poses (the cranks
    /// upright, 1 m higher) fit where the view is.
    /// A02 paused at its first flat pose, and the box of its upright pose at the start.
    fn a02_at_first_event() -> (Live, framing::PlaneBox) {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/double_four_bar.ron");
        let scene = crate::scene::load_scene(&path).unwrap();
        let mut session = crate::live::LiveSession::new(scene).unwrap();
        let upright = pose_box(&Live::new(session.clone(), path.clone())).unwrap();
        session.run_until_paused(100_000);
        let live = Live::new(session, path);
        assert!(live.session.current_event().is_some());
        (live, upright)
    }

    /// The camera of a run that has just paused, in `planar`, on the canvas `rect` whose
    /// legend reaches 81 points down (presenting side by side at 1280x720), with no frame of
    /// the run's (a browser's, or after F).
    fn running_camera(
        live: &Live,
        view: &ViewState,
        rect: egui::Rect,
        planar: PlanarView,
    ) -> CanvasCamera {
        CanvasCamera {
            planar: Some(planar),
            fitted_generation: Some(live.generation),
            fitted_layout: (view.side_by_side, view.presenting),
            canvas_size: Some(rect.size()),
            overlay_height: 81.25,
            was_paused: false,
            run_frame: {
                let mut frame = super::super::run_frame::RunFrame::default();
                frame.suspend();
                frame
            },
            ..CanvasCamera::default()
        }
    }

    /// A02's scene driven by keys at 1920x1080 (a canvas of 1400 by 800 points): Space at the
    /// start, then at each of its first four events. Once the run's frame is traced, the
    /// ground pivots stay within a pixel of where they were and the scale within 1 %, at the
    /// events and between them, and every pose is in sight (the view followed the pose:
    /// trial 13 saw it zoom out by 2 and back and the pivots move 190 pixels at the events).
    #[test]
    fn a_scene_driven_by_keys_is_shown_at_one_scale_and_place() {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/double_four_bar.ron");
        let scene = crate::scene::load_scene(&path).unwrap();
        let pivots: Vec<[f64; 2]> = scene
            .mechanism
            .joints()
            .iter()
            .filter_map(|j| j.ground_anchor().map(|a| [a[0], a[1]]))
            .collect();
        let mut live = Live::new(crate::live::LiveSession::new(scene).unwrap(), path);
        let rect = egui::Rect::from_min_size(egui::pos2(260.0, 60.0), egui::vec2(1400.0, 800.0));
        let (center, width) = ([960.0, 460.0], 1400.0);
        let view = ViewState::default();
        let mut camera = CanvasCamera::default();
        let settle = |live: &Live, camera: &mut CanvasCamera| {
            for _ in 0..400 {
                fit_view(live, &view, camera, rect, false);
                if !camera.run_frame.is_tracing() {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(25));
            }
            fit_view(live, &view, camera, rect, false);
            camera.planar.unwrap()
        };
        let first = settle(&live, &mut camera);
        let at = |planar: &PlanarView, p: [f64; 2]| planar.to_screen(p, center, width);
        let check = |live: &Live, planar: PlanarView| {
            let t = live.session.time();
            assert!(
                (planar.width / first.width - 1.0).abs() < 0.01,
                "t = {t}: {planar:?}"
            );
            for &p in &pivots {
                let ([x0, y0], [x, y]) = (at(&first, p), at(&planar, p));
                assert!((x - x0).hypot(y - y0) < 1.0, "t = {t}: {p:?} at {x}, {y}");
            }
            let [lo, hi] = pose_box(live).unwrap();
            let [left, upper] = at(&planar, [lo[0], hi[1]]);
            let [right, lower] = at(&planar, [hi[0], lo[1]]);
            assert!(
                left >= 260.0 && right <= 1660.0 && upper >= 60.0 && lower <= 860.0,
                "t = {t}: the pose off the canvas"
            );
        };
        for _ in 0..4 {
            live.session.play();
            check(&live, settle(&live, &mut camera));
            for _ in 0..200 {
                if live.session.is_paused() {
                    break;
                }
                live.session.run_until_paused(25);
                fit_view(&live, &view, &mut camera, rect, false);
                check(&live, camera.planar.unwrap());
            }
            assert!(
                live.session.current_event().is_some(),
                "t = {}",
                live.session.time()
            );
            check(&live, settle(&live, &mut camera));
        }
    }

    #[test]
    fn an_event_brings_its_pose_and_arrows_into_sight() {
        let (live, upright) = a02_at_first_event();
        let rect = egui::Rect::from_min_max(egui::pos2(484.0, 68.9), egui::pos2(960.0, 332.7));
        let view = ViewState::default();
        // The view as the run left it in the window: the flat pose 289 points down.
        let planar = PlanarView {
            center: [1.0, 0.926],
            width: 5.0,
        };
        let mut camera = running_camera(&live, &view, rect, planar);
        camera.recent.push_back(upright);
        // The arrows' ends, below and above the flat pose, and the room left under them for
        // their labels (a tenth of the canvas at least).
        let arrows = f64::from(arrow_room(&live, &view, rect.size()));
        let room_below = |camera: &CanvasCamera| {
            let [lo, hi] = pose_box(&live).unwrap();
            let (center, width) = (
                [f64::from(rect.center().x), f64::from(rect.center().y)],
                476.0,
            );
            let planar = camera.planar.unwrap();
            let upper = planar.to_screen([lo[0], hi[1]], center, width)[1] - arrows;
            let lower = planar.to_screen([hi[0], lo[1]], center, width)[1] + arrows;
            assert!(
                upper >= f64::from(rect.top() + 81.25),
                "arrows under the legend"
            );
            f64::from(rect.bottom()) - lower
        };
        assert!(
            room_below(&camera) < 0.1 * 263.8,
            "the run's view cuts the arrows"
        );
        fit_view(&live, &view, &mut camera, rect, false);
        fit_view(&live, &view, &mut camera, rect, false);
        assert!(room_below(&camera) >= 0.1 * 263.8);
    }

    /// A02 paused at its first flat pose in a view the run widened to four times the scene's
    /// opening width (as branch 1's fold widens it): the pause fits the pose, no closer than
    /// the opening view, and a second pause there changes nothing (no zooming in step by
    /// step).
    #[test]
    fn a_pause_fits_a_pose_the_runs_widening_left_small() {
        let (live, _) = a02_at_first_event();
        let opening = fit_planar(&live).width;
        let rect = egui::Rect::from_min_max(egui::pos2(0.0, 68.9), egui::pos2(640.0, 432.0));
        let view = ViewState::default();
        let [lo, hi] = pose_box(&live).unwrap();
        let planar = PlanarView {
            center: [0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1])],
            width: 4.0 * opening,
        };
        let mut camera = running_camera(&live, &view, rect, planar);
        fit_view(&live, &view, &mut camera, rect, false);
        let fitted = camera.planar.unwrap();
        assert!(
            fitted.width >= opening,
            "{} closer than {opening}",
            fitted.width
        );
        assert!(fitted.width < 2.0 * opening, "{} m across", fitted.width);
        camera.was_paused = false;
        fit_view(&live, &view, &mut camera, rect, false);
        assert_eq!(camera.planar, Some(fitted));
    }

    /// The A02 lesson presenting side by side at a hall's type on 1280x720 (the canvas 367
    /// by 162 points): from its opening, and at every step it plays, the view is the same
    /// and holds the box of every pose the lesson reaches (traced headless), below the time.
    #[test]
    fn a_lessons_view_holds_its_whole_motion_at_one_scale() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("scenes/lessons/a02_branches.ron");
        let (session, mut run) = crate::app::shown::open_lesson(&path).unwrap();
        for _ in 0..600 {
            run.frame.poll(&session, &run.player);
            if run.frame.plane_box().is_some() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let [lo, hi] = run.frame.plane_box().expect("the lesson's motion traced");
        let mut live = Live::new(session, path);
        live.lesson = Some(run);
        let rect = egui::Rect::from_min_size(egui::pos2(0.0, 150.0), egui::vec2(367.0, 162.0));
        let view = ViewState::default();
        let mut camera = CanvasCamera::default();
        let top = rect.top() + super::super::overlay::time_corner_bottom(rect.size());
        let mut views = Vec::new();
        for _ in 0..40 {
            fit_view(&live, &view, &mut camera, rect, false);
            let planar = camera.planar.unwrap();
            let center = [f64::from(rect.center().x), f64::from(rect.center().y)];
            let width = f64::from(rect.width());
            let [left, upper] = planar.to_screen([lo[0], hi[1]], center, width);
            let [right, lower] = planar.to_screen([hi[0], lo[1]], center, width);
            assert!(left >= f64::from(rect.left()) && right <= f64::from(rect.right()));
            assert!(upper >= f64::from(top) && lower <= f64::from(rect.bottom()));
            views.push(planar);
            let run = live.lesson.as_mut().unwrap();
            run.running = true;
            let deadline = web_time::Instant::now() + std::time::Duration::from_secs(1);
            let _ = run.player.advance(&mut live.session, 0.2, deadline);
        }
        assert!(live.session.time() > 0.7, "t = {}", live.session.time());
        assert!(views.windows(2).all(|w| w[0] == w[1]), "the view moved");
    }

    /// A vehicle 200 pixels right of the canvas' centre (1000 x 500, the time 60 pixels
    /// down): the view pans a twentieth of the way to it each step (a frame at 60 frames a
    /// second), at its scale, and stops
    /// within a tenth of the canvas' height of it.
    #[test]
    fn a_vehicle_is_followed_smoothly() {
        let (rect, view, top) = canvas();
        let center = [500.0, 250.0];
        let at = |planar: &PlanarView| planar.to_screen([0.8, 0.0], center, 1000.0);
        let pose = [[0.7, -0.1], [0.9, 0.1]];
        let first = follow(pose, &view, rect, top, 0.05);
        assert_eq!(first.width, view.width);
        let target = [500.0, 250.0 + 0.5 * f64::from(top + NAME_ROOM)];
        let moved = at(&view)[0] - at(&first)[0];
        assert!(
            (moved - 0.05 * (at(&view)[0] - target[0])).abs() < 1e-6,
            "{moved}"
        );
        let mut planar = first;
        for _ in 0..200 {
            planar = follow(pose, &planar, rect, top, 0.05);
        }
        let [x, y] = at(&planar);
        assert!(
            (x - target[0]).hypot(y - target[1]) <= 50.0 + 1e-9,
            "{x}, {y}"
        );
        assert_eq!(follow(pose, &planar, rect, top, 0.05), planar, "settled");
    }
}
