//! Why a command failed after its arguments parsed: each cause its own variant, its message the
//! text after `singulab: error: ` (printed through `scene::one_line`, so one line whatever the
//! names in it). Argument errors are clap's (exit 2), not these.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use crate::number_text::{number_text, time_text};
use crate::scene::{Scene, SceneError};
use crate::solver::{Setting, SolverError};

use super::seconds;

/// A failed `run`, `bench` or `view` (exit 1, except [`CliError::OutputClosed`]).
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The scene file cannot be read or does not describe a mechanism.
    #[error(transparent)]
    Scene(#[from] SceneError),
    /// The lesson script cannot be read, or one of its actions cannot be done.
    #[error(transparent)]
    Lesson(#[from] crate::lesson::LessonError),
    /// The simulation could not start or a step failed.
    #[error("{site}: {source}{}", kept_rows(.kept.as_ref()))]
    Solver {
        /// The scene file, and the joint, body or setting at fault in it where one is.
        site: Box<FileSite>,
        source: SolverError,
        /// Where the rows written before a failing step are (a file output only).
        kept: Option<RowsKept>,
    },
    /// `t_end / dt` is more steps than a run may take. When the arguments asked for it
    /// (`--dt`, `--t-end`, `analyze --time`) it is a usage error (exit 2).
    #[error(
        "{site}: {time} {} s at dt {} s is {steps:.1e} steps, more than {limit:.0e}; {advice}",
        seconds(*.t_end),
        seconds(*.dt)
    )]
    TooManySteps {
        /// The file at fault: the scene at its `dt`, the lesson at its `t_end`, or the file
        /// alone when the arguments are.
        site: Box<FileSite>,
        /// What the time to run to is called (`t_end`, `--time`), and what to change.
        time: &'static str,
        advice: &'static str,
        from_arguments: bool,
        t_end: f64,
        dt: f64,
        steps: f64,
        limit: f64,
    },
    /// Dopri5 took more steps than its budget ([`run::step_budget`](super::run_limits::step_budget)):
    /// its tolerances cannot be met at steps as large as its smallest step.
    #[error(
        "{site}: Dopri5 took {steps} steps, its budget (100 t_end / dt + 1e5), to reach t = {} s, {} s a step on average at dt {} s: the tolerances dopri_rtol {} and dopri_atol {} cannot be met at this dopri_min_step {}; loosen them or raise dopri_min_step{}",
        three_digits(*.t),
        three_digits(*.t / *.steps as f64),
        seconds(*.dt),
        number_text(*.rtol),
        number_text(*.atol),
        number_text(*.min_step),
        kept_rows(.kept.as_ref())
    )]
    StepBudget {
        /// The scene file, at its `dopri_min_step` (else `dopri_rtol`) when the file sets it.
        site: Box<FileSite>,
        steps: u64,
        budget: u64,
        t: f64,
        dt: f64,
        rtol: f64,
        atol: f64,
        min_step: f64,
        kept: Option<RowsKept>,
    },
    /// A run that failed from a pose that assembly moved far: the error, and that the stated
    /// pose did not fit the joints (a likely cause of the failure).
    #[error(
        "{source}; the stated pose did not fit the joints (assembly moved {coordinate} by {correction:.3e})"
    )]
    FarOffStart {
        source: Box<CliError>,
        coordinate: String,
        correction: f64,
    },
    /// The CSV would go to stdout, and stdout is closed or not open for writing.
    #[error("cannot write the {stream}: stdout is {why}")]
    Stdout { stream: Stream, why: &'static str },
    /// An output file is an input of the run: the scene file or the lesson file (the same
    /// file by another name, a hard link or a symbolic link included).
    #[error("{flag} {} would overwrite the {input}", .path.display())]
    OverwritesInput {
        flag: &'static str,
        path: PathBuf,
        input: Input,
    },
    /// Two outputs are one file (under any names).
    #[error("{first} and {second} name the same file ({})", .path.display())]
    SameOutputs {
        first: &'static str,
        second: &'static str,
        path: PathBuf,
    },
    /// An output file cannot be opened or created.
    #[error("cannot create {}: {source}", .path.display())]
    Create { path: PathBuf, source: io::Error },
    /// An existing output file cannot be emptied.
    #[error("cannot empty {}: {source}", .path.display())]
    Empty { path: PathBuf, source: io::Error },
    /// Writing a CSV failed (a full disk, a device error).
    #[error("cannot write the {stream}: {source}")]
    Write { stream: Stream, source: io::Error },
    /// The reader of stdout went away (`singulab run ... | head`): the command stops quietly,
    /// as other tools do, with exit 0.
    #[error("the output was closed")]
    OutputClosed,
    /// `bench --markdown FILE`: FILE cannot be read or written.
    #[error("cannot update {}: {source}", .path.display())]
    Markdown { path: PathBuf, source: io::Error },
    /// `bench --markdown FILE`: FILE lacks the lines the table goes between.
    #[error(
        "{} has no line `{begin}` followed by a line `{end}`: the table goes between them",
        .path.display()
    )]
    MarkdownMarkers {
        path: PathBuf,
        begin: &'static str,
        end: &'static str,
    },
    /// `bench` without scene files, run away from the repository's root.
    #[error(
        "bench without scene files runs the shipped ones from ./scenes: run it from the \
         repository's root, or name the scene files"
    )]
    NoShippedScenes,
    /// `bench --t-end` beyond what its runs at dt 1e-4 may take.
    #[error(
        "bench --t-end {} s is more than 1e9 steps at dt 1e-4; use at most 1e5 s",
        seconds(*.t_end)
    )]
    BenchTooLong { t_end: f64 },
    /// `singulab atlas --hold`: a coordinate or value that does not parse or name a body's
    /// coordinate.
    #[error("{file}: --hold {hold}: {why}")]
    Hold {
        file: String,
        hold: String,
        why: String,
    },
    /// `singulab atlas`: the set cannot be traced from the assembled pose.
    #[error("{file}: atlas: {source}")]
    Atlas {
        file: String,
        source: crate::atlas::AtlasError,
    },
    /// `singulab view` in a build without the `app` feature.
    #[error("this build has no visualizer (built without the `app` feature); use `singulab run`")]
    NoVisualizer,
    /// The visualizer's own failure (no display, a screenshot that could not be written...).
    #[error("{0}")]
    Visualizer(String),
}

impl CliError {
    /// The process exit code: 2 for a run the arguments made impossible, 1 otherwise.
    pub fn exit_code(&self) -> i32 {
        match self {
            Self::TooManySteps {
                from_arguments: true,
                ..
            } => 2,
            _ => 1,
        }
    }

    /// A solver failure in `scene`, located where something in the file is at fault, with no
    /// rows to point at.
    pub fn solver(scene: &Scene, source: SolverError) -> Self {
        Self::Solver {
            site: Box::new(FileSite::of_failure(scene, &source)),
            source,
            kept: None,
        }
    }

    /// A failed write to `stream`: a closed pipe is the reader being done, anything else an
    /// error.
    pub fn write(stream: Stream, source: io::Error) -> Self {
        if source.kind() == io::ErrorKind::BrokenPipe {
            Self::OutputClosed
        } else {
            Self::Write { stream, source }
        }
    }

    /// A failed CSV write to `stream` (the csv crate wraps the I/O error).
    pub fn csv(stream: Stream, error: csv::Error) -> Self {
        let message = error.to_string();
        match error.into_kind() {
            csv::ErrorKind::Io(source) => Self::write(stream, source),
            // A row of another length than the header: a bug, reported as a failed write.
            _ => Self::write(stream, io::Error::other(message)),
        }
    }

    /// An output file that cannot be created.
    pub fn create(path: &Path, source: io::Error) -> Self {
        Self::Create {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// Where in a scene file a failure points: the file, and the line, column and entry at fault
/// when something in the file is (`scenes/x.ron:12:9: joint "B"`).
#[derive(Clone, Debug, PartialEq)]
pub struct FileSite {
    pub file: String,
    pub line_column: Option<(usize, usize)>,
    pub entity: Option<String>,
}

impl FileSite {
    /// The file alone.
    pub fn file(file: &str) -> Self {
        Self {
            file: file.to_string(),
            line_column: None,
            entity: None,
        }
    }

    /// Where `scene`'s file is at fault for `error` ([`Scene::locate_failure`]).
    pub fn of_failure(scene: &Scene, error: &SolverError) -> Self {
        match scene.locate_failure(error) {
            Some(located) => Self {
                file: located.file,
                line_column: Some((located.line, located.column)),
                entity: located.entity,
            },
            None => Self::file(&scene.file),
        }
    }

    /// `scene`'s `solver` setting `field` (the first of `fields` the file writes), else the
    /// file.
    pub fn of_setting(scene: &Scene, fields: &[Setting]) -> Self {
        let line_column = fields.iter().find_map(|&f| scene.setting_position(f));
        Self {
            line_column,
            ..Self::file(&scene.file)
        }
    }
}

impl fmt::Display for FileSite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.file)?;
        if let Some((line, column)) = self.line_column {
            write!(f, ":{line}:{column}")?;
        }
        if let Some(entity) = &self.entity {
            write!(f, ": {entity}")?;
        }
        Ok(())
    }
}

/// A file a run reads, which no output may overwrite.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    /// The scene file (given, or the one a lesson names).
    Scene,
    /// The lesson file of `--script`.
    Lesson,
}

impl fmt::Display for Input {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Scene => "scene file",
            Self::Lesson => "lesson file",
        })
    }
}

/// Which output a write went to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    /// The trajectory (`--out`, or stdout).
    Trajectory,
    /// The singular events (`--events`).
    Events,
    /// `bench`'s table or `analyze`'s report on stdout.
    Table,
    /// The joint reactions (`--reactions`).
    Reactions,
}

impl fmt::Display for Stream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Trajectory => "output",
            Self::Events => "events",
            Self::Table => "table",
            Self::Reactions => "reactions",
        })
    }
}

/// The rows a failed run leaves in its `--out` file.
#[derive(Clone, Debug, PartialEq)]
pub struct RowsKept {
    /// The time of the last step that succeeded.
    pub t: f64,
    pub path: PathBuf,
}

/// A number to three significant digits, for the scale of a value (`1.16e-278`, `7.2`).
fn three_digits(value: f64) -> String {
    number_text(format!("{value:.2e}").parse().unwrap_or(value))
}

fn kept_rows(kept: Option<&RowsKept>) -> String {
    match kept {
        Some(kept) => format!(
            " (the rows written before the failure, to t = {} at most, are in {})",
            time_text(kept.t),
            kept.path.display()
        ),
        None => String::new(),
    }
}
