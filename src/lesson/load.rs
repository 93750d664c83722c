//! Reading a lesson: the RON text parsed ([`super::format`]), every value checked, the scene
//! loaded (relative to the lesson file) and each step's trigger made one [`Trigger`]. Every
//! mistake is a [`LessonError`] naming the lesson file, line and column and the action at
//! fault (`action 3 (Leave)`, counted from 1); the positions come from the scene module's
//! locator ([`crate::scene::locate`]), which finds the k-th entry of the `actions` list.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::LessonError;
use super::format::{Action, LessonFile, Step};
use crate::live::SPEEDS;
use crate::number_text::number_text;
use crate::scene::{MAX_SCENE_BYTES, Scene, SceneError, load_scene, locate};

/// What a step waits for before its action.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Trigger {
    /// Right after the previous step.
    Now,
    /// This simulated time.
    At(f64),
    /// The k-th singular event reached after the previous step.
    AtEvent(u64),
    /// Seconds after the previous step (simulated if running then, wall-clock if paused).
    After(f64),
}

/// A checked lesson with its scene, ready to play.
#[derive(Clone, Debug)]
pub struct Lesson {
    /// The lesson file's name as given (used in messages).
    pub file: String,
    /// Its text, to locate the mistakes found while playing.
    pub source: Arc<str>,
    /// The lesson as written.
    pub spec: LessonFile,
    pub scene: Scene,
    /// The scene file the lesson names, as read (`None` when played on another scene).
    pub scene_path: Option<PathBuf>,
    /// When the lesson ends once its actions are done; its time never passes it.
    pub t_end: f64,
    /// The replay was told to stop at `t_end` (`--t-end`): what of the lesson is left there
    /// is not done, and that is no mistake of the lesson.
    pub stops_at_t_end: bool,
    triggers: Vec<Trigger>,
}

impl Lesson {
    /// Replays it only to `t_end` (`--t-end`), whatever of the lesson is left there.
    pub fn stop_at(&mut self, t_end: f64) {
        self.t_end = t_end;
        self.stops_at_t_end = true;
    }

    /// The trigger of step `index` (0-based).
    pub fn trigger(&self, index: usize) -> Trigger {
        self.triggers[index]
    }

    pub fn steps(&self) -> &[Step] {
        &self.spec.actions
    }

    /// A mistake in step `index` (0-based), at its `field` if written there, else at the step.
    pub fn step_error(&self, index: usize, field: Option<&str>, message: String) -> LessonError {
        step_error(&self.file, &self.source, &self.spec, index, field, message)
    }

    /// A mistake of the whole lesson, at its top-level `field` (or the start of the file).
    pub fn field_error(&self, field: &str, message: String) -> LessonError {
        field_error(&self.file, &self.source, field, message)
    }
}

/// How the message names step `index` (0-based): `action 3 (Leave)`.
pub fn step_name(spec: &LessonFile, index: usize) -> String {
    let kind = spec.actions.get(index).map_or("?", |s| s.action.name());
    format!("action {} ({kind})", index + 1)
}

fn located(
    file: &str,
    source: &str,
    offset: usize,
    entity: Option<String>,
    message: String,
) -> LessonError {
    let (line, column) = locate::line_column(source, offset);
    LessonError::Lesson(SceneError {
        file: file.to_string(),
        line,
        column,
        entity,
        message,
    })
}

fn step_error(
    file: &str,
    source: &str,
    spec: &LessonFile,
    index: usize,
    field: Option<&str>,
    message: String,
) -> LessonError {
    let offset = locate::locate_list_item(source, "actions", index, field);
    located(file, source, offset, Some(step_name(spec, index)), message)
}

fn field_error(file: &str, source: &str, field: &str, message: String) -> LessonError {
    let offset = locate::locate_top_field(source, field).unwrap_or(0);
    located(file, source, offset, Some(field.to_string()), message)
}

/// Whether `path` holds a lesson rather than a scene: its first word, past comments and
/// whitespace, is `Lesson` (a scene's is `Scene` or `(`). Unreadable files are not lessons;
/// loading them as scenes says why.
pub fn is_lesson_file(path: &Path) -> bool {
    crate::source::read_at_most(path, MAX_SCENE_BYTES)
        .is_ok_and(|bytes| is_lesson_source(&String::from_utf8_lossy(&bytes)))
}

/// [`is_lesson_file`] on the text.
pub fn is_lesson_source(source: &str) -> bool {
    first_words(source)
        .strip_prefix("Lesson")
        .is_some_and(|after| after.trim_start().starts_with('('))
}

/// Whether `source` reads as a scene: its first word, past comments and whitespace, is
/// `Scene(` (or the bare `(` RON allows for the struct).
fn is_scene_source(source: &str) -> bool {
    let rest = first_words(source);
    rest.starts_with('(')
        || rest
            .strip_prefix("Scene")
            .is_some_and(|after| after.trim_start().starts_with('('))
}

/// `source` from its first word on: past a byte-order mark, whitespace and comments.
fn first_words(source: &str) -> &str {
    let mut rest = source.trim_start_matches('\u{feff}');
    loop {
        rest = rest.trim_start();
        if let Some(line_comment) = rest.strip_prefix("//") {
            rest = line_comment.split_once('\n').map_or("", |(_, after)| after);
        } else if let Some(block) = rest.strip_prefix("/*") {
            rest = block.split_once("*/").map_or("", |(_, after)| after);
        } else {
            return rest;
        }
    }
}

/// Why the file a lesson's `scene` names is not a scene, if it is not: lessons are shared, so
/// nothing but a `.ron` file whose text starts as a scene's is parsed (a parse error would
/// quote the file). A file that cannot be read is left to [`load_scene`] to say so.
fn not_a_scene(written: &str, path: &Path) -> Option<String> {
    let is_ron = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("ron"));
    if !is_ron {
        return Some(format!(
            "\"{written}\" is not a scene file: a lesson names a scene file ending in .ron"
        ));
    }
    let Ok(bytes) = crate::source::read_at_most(path, MAX_SCENE_BYTES) else {
        return None;
    };
    let text = String::from_utf8_lossy(&bytes);
    if is_lesson_source(&text) {
        return Some(format!(
            "\"{written}\" is a lesson, not a scene: a lesson names the scene it plays"
        ));
    }
    (!is_scene_source(&text)).then(|| {
        format!("\"{written}\" is not a scene file: its text does not start with `Scene(`")
    })
}

/// Reads and loads a lesson file and the scene it names (UTF-8, at most
/// [`MAX_SCENE_BYTES`], a leading byte-order mark skipped).
pub fn load_lesson(path: &Path) -> Result<Lesson, LessonError> {
    let (file, source) = read_lesson(path)?;
    let base = path.parent().unwrap_or(Path::new(""));
    parse_lesson(&file, &source, base)
}

/// As [`load_lesson`], played on `scene` instead of the one the lesson names.
pub fn load_lesson_on(path: &Path, scene: Scene) -> Result<Lesson, LessonError> {
    let (file, source) = read_lesson(path)?;
    parse_lesson_on(&file, &source, scene)
}

fn read_lesson(path: &Path) -> Result<(String, String), LessonError> {
    let file = path.display().to_string();
    let error = |message: String| located(&file, "", 0, None, message);
    let bytes = crate::source::read_at_most(path, MAX_SCENE_BYTES)
        .map_err(|e| error(format!("cannot read the file: {e}")))?;
    if bytes.len() as u64 > MAX_SCENE_BYTES {
        return Err(error(format!(
            "the file is larger than {MAX_SCENE_BYTES} bytes (1 MiB), the most a lesson file may be"
        )));
    }
    let source = String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let text = std::str::from_utf8(&e.as_bytes()[..valid]).unwrap_or_default();
        located(
            &file,
            text,
            valid,
            None,
            "not UTF-8 text; lesson files are UTF-8".into(),
        )
    })?;
    Ok((file, source))
}

/// Loads a lesson from its text; `file` names it in messages and `base` is the folder its
/// scene path is relative to.
pub fn parse_lesson(file: &str, source: &str, base: &Path) -> Result<Lesson, LessonError> {
    let source = source.strip_prefix('\u{feff}').unwrap_or(source);
    let spec = parse_spec(file, source)?;
    let scene_path = base.join(PathBuf::from(&spec.scene));
    if let Some(message) = not_a_scene(&spec.scene, &scene_path) {
        return Err(field_error(file, source, "scene", message));
    }
    let scene = load_scene(&scene_path).map_err(|error| LessonError::Scene {
        at: Box::new(field_error(file, source, "scene", String::new())),
        error: Box::new(error),
    })?;
    let mut lesson = finish(file, source, spec, scene)?;
    lesson.scene_path = Some(scene_path);
    Ok(lesson)
}

/// Loads a lesson from its text, played on `scene` (its `scene` field is not read).
pub fn parse_lesson_on(file: &str, source: &str, scene: Scene) -> Result<Lesson, LessonError> {
    let source = source.strip_prefix('\u{feff}').unwrap_or(source);
    let spec = parse_spec(file, source)?;
    finish(file, source, spec, scene)
}

/// The serde pass: a syntax or type error located where ron stopped, in the step around it.
fn parse_spec(file: &str, source: &str) -> Result<LessonFile, LessonError> {
    let options =
        ron::Options::default().with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME);
    options.from_str(source).map_err(|e| {
        let position = e.span.start;
        let offset = locate::offset_of(source, position.line, position.col);
        let entity = step_containing(source, offset).map(|i| format!("action {}", i + 1));
        LessonError::Lesson(SceneError {
            file: file.to_string(),
            line: position.line,
            column: position.col,
            entity,
            message: e.code.to_string(),
        })
    })
}

/// The step (0-based) whose text holds `offset`, if any: the last one starting before it.
fn step_containing(source: &str, offset: usize) -> Option<usize> {
    let list = locate::locate_top_field(source, "actions")?;
    let open = source[list..].find('[')? + list;
    let mut found = None;
    for index in 0.. {
        let start = locate::locate_list_item(source, "actions", index, None);
        if start == open || start > offset || found.is_some_and(|(_, s)| s >= start) {
            break;
        }
        found = Some((index, start));
    }
    found.map(|(index, _)| index)
}

/// Checks the values, then the triggers in order.
fn finish(file: &str, source: &str, spec: LessonFile, scene: Scene) -> Result<Lesson, LessonError> {
    let t_end = spec.t_end.unwrap_or(scene.t_end);
    check_top(file, source, &spec, &scene, t_end)?;
    let mut triggers = Vec::with_capacity(spec.actions.len());
    let mut held: Option<usize> = None;
    for (index, step) in spec.actions.iter().enumerate() {
        let fail = |field: &str, message: String| {
            step_error(file, source, &spec, index, Some(field), message)
        };
        let trigger = trigger_of(step, spec.auto_pause).map_err(|(f, m)| fail(f, m))?;
        if let Trigger::At(at) = trigger
            && at > t_end
        {
            let message = format!(
                "at {} s is past the lesson's end at t_end = {} s (the lesson's time never passes t_end: raise it, or move this step)",
                number_text(at),
                number_text(t_end)
            );
            return Err(fail("at", message));
        }
        if let (Some(pause), Trigger::At(_) | Trigger::AtEvent(_)) = (held, trigger) {
            let field = if matches!(trigger, Trigger::At(_)) {
                "at"
            } else {
                "at_event"
            };
            return Err(fail(
                field,
                format!(
                    "the mechanism is held by action {}'s Pause here, so neither time nor events come: wait with `after: S` (wall-clock seconds), or Play first",
                    pause + 1
                ),
            ));
        }
        check_action(&step.action).map_err(|(f, m)| fail(f, m))?;
        held = match step.action {
            Action::Pause => Some(index),
            Action::Play | Action::Push { .. } | Action::Leave { .. } => None,
            _ => held,
        };
        triggers.push(trigger);
    }
    Ok(Lesson {
        file: file.to_string(),
        source: source.into(),
        spec,
        scene,
        scene_path: None,
        t_end,
        stops_at_t_end: false,
        triggers,
    })
}

fn check_top(
    file: &str,
    source: &str,
    spec: &LessonFile,
    scene: &Scene,
    t_end: f64,
) -> Result<(), LessonError> {
    if let Some(message) = speed_problem(spec.speed) {
        return Err(field_error(file, source, "speed", message));
    }
    if !(t_end.is_finite() && t_end > 0.0) {
        return Err(field_error(
            file,
            source,
            "t_end",
            format!(
                "t_end {} is not a positive number of seconds",
                number_text(t_end)
            ),
        ));
    }
    if let Some(trace) = &spec.view.trace
        && scene.mechanism.body_index(trace).is_none()
    {
        let offset = locate::locate_section_field(source, "view", "trace").unwrap_or(0);
        let bodies: Vec<String> = scene
            .mechanism
            .bodies()
            .iter()
            .map(|b| format!("\"{}\"", b.name))
            .collect();
        return Err(located(
            file,
            source,
            offset,
            Some("view".into()),
            format!(
                "unknown body \"{trace}\" to trace (bodies: {})",
                bodies.join(", ")
            ),
        ));
    }
    Ok(())
}

/// Why a speed cannot be played, if it cannot.
fn speed_problem(speed: f64) -> Option<String> {
    let (low, high) = (SPEEDS[0], SPEEDS[SPEEDS.len() - 1]);
    (!(speed >= low && speed <= high)).then(|| {
        format!(
            "speed {} is outside 1/64 to 64 (times real time)",
            number_text(speed)
        )
    })
}

type Problem = (&'static str, String);

/// The one trigger a step writes, checked.
fn trigger_of(step: &Step, auto_pause: bool) -> Result<Trigger, Problem> {
    let written: Vec<&'static str> = [
        ("at", step.at.is_some()),
        ("at_event", step.at_event.is_some()),
        ("after", step.after.is_some()),
    ]
    .into_iter()
    .filter_map(|(name, present)| present.then_some(name))
    .collect();
    if written.len() > 1 {
        return Err((
            written[1],
            format!(
                "a step waits for one thing: `{}` and `{}` are both given",
                written[0], written[1]
            ),
        ));
    }
    if let Some(t) = step.at {
        if !(t.is_finite() && t >= 0.0) {
            return Err((
                "at",
                format!("at {} s is not a time of 0 s or more", number_text(t)),
            ));
        }
        return Ok(Trigger::At(t));
    }
    if let Some(k) = step.at_event {
        if k == 0 {
            return Err((
                "at_event",
                "events are counted from 1 (1: the next one)".into(),
            ));
        }
        if !auto_pause {
            return Err((
                "at_event",
                "at_event needs auto_pause: true (the mechanism stops exactly at the event)".into(),
            ));
        }
        return Ok(Trigger::AtEvent(k));
    }
    if let Some(s) = step.after {
        if !(s.is_finite() && s >= 0.0) {
            return Err((
                "after",
                format!(
                    "after {} s is not a duration of 0 s or more",
                    number_text(s)
                ),
            ));
        }
        return Ok(Trigger::After(s));
    }
    Ok(Trigger::Now)
}

/// The values of an action that can be checked before playing (indices against the state
/// are checked when it is done).
fn check_action(action: &Action) -> Result<(), Problem> {
    match *action {
        Action::Push {
            motion,
            delta,
            duration,
        } => {
            if motion == 0 {
                return Err(("motion", "motions are counted from 1".into()));
            }
            if !delta.is_finite() {
                return Err(("delta", format!("delta {delta} is not a number")));
            }
            if !(duration.is_finite() && duration > 0.0) {
                return Err((
                    "duration",
                    format!("duration {} s is not positive", number_text(duration)),
                ));
            }
        }
        Action::Leave { branch, speed, .. } => {
            if branch == 0 {
                return Err(("branch", "branches are counted from 1".into()));
            }
            if let Some(speed) = speed
                && !(speed.is_finite() && speed > 0.0)
            {
                return Err((
                    "speed",
                    format!("speed {} is not positive", number_text(speed)),
                ));
            }
        }
        Action::GoToEvent(0) => return Err(("do", "events are counted from 1".into())),
        Action::SetSpeed(speed) => {
            if let Some(message) = speed_problem(speed) {
                return Err(("do", message));
            }
        }
        Action::Caption(_, seconds) if !(seconds.is_finite() && seconds >= 0.0) => {
            return Err((
                "do",
                format!(
                    "a caption shows for {} s: not a duration",
                    number_text(seconds)
                ),
            ));
        }
        _ => {}
    }
    Ok(())
}
