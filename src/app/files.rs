//! File dialogs (rfd, each on a task so the window never blocks), the CSV export of the
//! plotted history, and screenshots on request (F12): named by scene and time, made unique
//! among the files on disk and the names handed out before (a screenshot is written a frame
//! or more after it is asked for), and announced once written, so the notice is not in it.
//!
//! The system's dialog needs xdg-desktop-portal or zenity; without either, rfd answers "no
//! file" at once. An answer quicker than [`NO_DIALOG_SHOWN`] cannot be a person's cancel, so
//! the same request goes to a picker drawn in the window (egui_file) instead.

use std::path::{Path, PathBuf};
use std::time::Duration;

use web_time::Instant;

use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured};
use bevy::tasks::{AsyncComputeTaskPool, ConditionalSendFuture, Task, block_on, poll_once};
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};
use egui_file::FileDialog;

use super::SingulabSystems;
use super::commands::{AppCommand, SketchRequest};
use super::simulation::{Live, Notice};
use crate::live::recording::TakenNames;

/// Names of the screenshots and recordings handed out in this run.
#[derive(Resource, Default)]
pub struct TakenFileNames(pub TakenNames);

/// A system dialog that says "no file" sooner than this after it was opened never showed.
const NO_DIALOG_SHOWN: Duration = Duration::from_millis(500);

/// The path of the file chosen in a save dialog (a browser's gives none: its files are
/// offered as downloads).
fn chosen_path(file: rfd::FileHandle) -> Option<PathBuf> {
    #[cfg(not(target_arch = "wasm32"))]
    return Some(file.path().to_path_buf());
    #[cfg(target_arch = "wasm32")]
    {
        drop(file);
        None
    }
}

/// The file chosen in the open dialog: its path on the desktop; in a browser, which gives
/// its bytes and name only, the name, under which the bytes are kept for the loaders
/// ([`crate::source::remember`]).
async fn opened_file(file: rfd::FileHandle) -> Option<PathBuf> {
    #[cfg(not(target_arch = "wasm32"))]
    return Some(file.path().to_path_buf());
    #[cfg(target_arch = "wasm32")]
    {
        let name = PathBuf::from(file.file_name());
        crate::source::remember(&name, file.read().await);
        Some(name)
    }
}

/// A system dialog in flight, and when it was opened.
struct SystemDialog {
    task: Task<Option<PathBuf>>,
    opened: Instant,
}

impl SystemDialog {
    fn spawn(future: impl ConditionalSendFuture<Output = Option<PathBuf>> + 'static) -> Self {
        Self {
            task: AsyncComputeTaskPool::get().spawn(future),
            opened: Instant::now(),
        }
    }

    /// The dialog's answer once it has one: a file, or none and whether a person could
    /// have cancelled it (else no dialog showed).
    fn answer(&mut self) -> Option<Answer> {
        let result = block_on(poll_once(&mut self.task))?;
        Some(Answer::of(result, self.opened.elapsed()))
    }
}

#[derive(Debug, PartialEq)]
enum Answer {
    Chosen(PathBuf),
    Cancelled,
    NoDialog,
}

impl Answer {
    /// What a dialog's `result`, given `after` it was opened, means.
    fn of(result: Option<PathBuf>, after: Duration) -> Self {
        match result {
            Some(path) => Self::Chosen(path),
            None if after < NO_DIALOG_SHOWN => Self::NoDialog,
            None => Self::Cancelled,
        }
    }
}

/// What a file was asked for.
enum Purpose {
    Open,
    /// The CSV text captured when the export was asked for.
    Export(String),
    SaveLesson,
    /// The drawn mechanism, as a scene file.
    SaveSketch,
}

/// Dialogs in flight: the system's, and the picker drawn in the window when there is none.
#[derive(Resource, Default)]
pub struct FileDialogs {
    system: Vec<(Purpose, SystemDialog)>,
    in_window: Option<(Purpose, FileDialog)>,
    /// The folder of the last file chosen, where the next dialog opens.
    last_folder: Option<PathBuf>,
}

impl FileDialogs {
    /// Where a dialog opens: the last file's folder, else the scene's.
    fn folder(&self, scene: &Path) -> PathBuf {
        self.last_folder.clone().unwrap_or_else(|| scene_dir(scene))
    }

    fn asked(&self, purpose: fn(&Purpose) -> bool) -> bool {
        self.system.iter().any(|(p, _)| purpose(p))
            || self.in_window.as_ref().is_some_and(|(p, _)| purpose(p))
    }
}

pub struct FilesPlugin;

impl Plugin for FilesPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<FileDialogs>()
            .init_resource::<TakenFileNames>()
            .add_systems(
                Update,
                (start_requests, finish_dialogs)
                    .chain()
                    .in_set(SingulabSystems::Output),
            )
            .add_systems(EguiPrimaryContextPass, show_in_window);
    }
}

fn start_requests(
    mut reader: MessageReader<AppCommand>,
    mut dialogs: ResMut<FileDialogs>,
    mut live: ResMut<Live>,
    mut taken: ResMut<TakenFileNames>,
    mut commands: Commands,
) {
    for command in reader.read() {
        match command {
            AppCommand::OpenDialog if !dialogs.asked(|p| matches!(p, Purpose::Open)) => {
                let dir = dialogs.folder(&live.path);
                let dialog = SystemDialog::spawn(async move {
                    let file = rfd::AsyncFileDialog::new()
                        .set_title("Open a Singulab scene or lesson")
                        .add_filter("Singulab scene or lesson", &["ron"])
                        .set_directory(dir)
                        .pick_file()
                        .await?;
                    opened_file(file).await
                });
                dialogs.system.push((Purpose::Open, dialog));
            }
            AppCommand::ExportCsvDialog if !dialogs.asked(|p| matches!(p, Purpose::Export(_))) => {
                let csv = live.session.history().to_csv();
                let dir = dialogs.folder(&live.path);
                let name = format!("{}_history.csv", stem(&live.path));
                let dialog = SystemDialog::spawn(async move {
                    rfd::AsyncFileDialog::new()
                        .set_title("Export the plotted history")
                        .add_filter("CSV", &["csv"])
                        .set_directory(dir)
                        .set_file_name(name)
                        .save_file()
                        .await
                        .and_then(chosen_path)
                });
                dialogs.system.push((Purpose::Export(csv), dialog));
            }
            AppCommand::SaveLessonDialog
                if !dialogs.asked(|p| matches!(p, Purpose::SaveLesson)) =>
            {
                // Offered where "Save lesson here" writes: next to the scene's lessons.
                let here = crate::lesson::default_lesson_path(&live.path);
                let dir = scene_dir(&here);
                let name = file_name(&here);
                let dialog = SystemDialog::spawn(async move {
                    rfd::AsyncFileDialog::new()
                        .set_title("Save what you did as a lesson")
                        .add_filter("Singulab lesson", &["ron"])
                        .set_directory(dir)
                        .set_file_name(name)
                        .save_file()
                        .await
                        .and_then(chosen_path)
                });
                dialogs.system.push((Purpose::SaveLesson, dialog));
            }
            AppCommand::Sketch(SketchRequest::SaveDialog)
                if !dialogs.asked(|p| matches!(p, Purpose::SaveSketch)) =>
            {
                // In edit mode the session's file is where Save writes.
                let dir = scene_dir(&live.path);
                let name = file_name(&live.path);
                let dialog = SystemDialog::spawn(async move {
                    rfd::AsyncFileDialog::new()
                        .set_title("Save the drawn mechanism as a scene")
                        .add_filter("Singulab scene", &["ron"])
                        .set_directory(dir)
                        .set_file_name(name)
                        .save_file()
                        .await
                        .and_then(chosen_path)
                });
                dialogs.system.push((Purpose::SaveSketch, dialog));
            }
            AppCommand::ExportCsvHere => {
                let path = PathBuf::from(format!("singulab_{}_history.csv", stem(&live.path)));
                let csv = live.session.history().to_csv();
                live.notice = Some(write_csv(path, csv));
            }
            AppCommand::SaveScreenshot => {
                let name = format!("singulab_{}_t{:.3}", stem(&live.path), live.session.time());
                let path = taken.0.unique(Path::new(""), &name, Some("png"));
                commands.spawn(Screenshot::primary_window()).observe(
                    move |captured: On<ScreenshotCaptured>, mut live: ResMut<Live>| {
                        live.notice = Some(save_png(&captured.image, &path));
                    },
                );
            }
            _ => {}
        }
    }
}

/// Acts on the system dialogs' answers; one that never showed hands its request to the
/// picker in the window.
fn finish_dialogs(
    mut dialogs: ResMut<FileDialogs>,
    mut live: ResMut<Live>,
    mut writer: MessageWriter<AppCommand>,
) {
    let mut pending = Vec::new();
    for (purpose, mut dialog) in std::mem::take(&mut dialogs.system) {
        match dialog.answer() {
            None => pending.push((purpose, dialog)),
            Some(Answer::Chosen(path)) => {
                dialogs.last_folder = path.parent().map(Path::to_path_buf);
                act_on(purpose, path, &mut live, &mut writer);
            }
            Some(Answer::Cancelled) => {}
            Some(Answer::NoDialog) if dialogs.in_window.is_none() => {
                let picker = in_window_picker(&purpose, &dialogs.folder(&live.path), &live.path);
                dialogs.in_window = Some((purpose, picker));
            }
            Some(Answer::NoDialog) => {
                live.notice = Some(Notice::brief(
                    "One file at a time: close the open picker first.".into(),
                ));
            }
        }
    }
    dialogs.system = pending;
}

/// The picker drawn in the window for `purpose`, opened in `dir` (a lesson: next to the
/// scene's lessons, where "Save lesson here" writes).
fn in_window_picker(purpose: &Purpose, dir: &Path, scene: &Path) -> FileDialog {
    let lesson = crate::lesson::default_lesson_path(scene);
    let dir = match purpose {
        Purpose::SaveLesson => scene_dir(&lesson),
        _ => dir.to_path_buf(),
    };
    let dialog = match purpose {
        Purpose::Open => FileDialog::open_file()
            .title("Open a Singulab scene or lesson")
            .show_files_filter(only("ron")),
        Purpose::Export(_) => FileDialog::save_file()
            .title("Export the plotted history")
            .default_filename(format!("{}_history.csv", stem(scene)))
            .show_files_filter(only("csv")),
        Purpose::SaveLesson => FileDialog::save_file()
            .title("Save what you did as a lesson")
            .default_filename(file_name(&lesson))
            .show_files_filter(only("ron")),
        Purpose::SaveSketch => FileDialog::save_file()
            .title("Save the drawn mechanism as a scene")
            .default_filename(file_name(scene))
            .show_files_filter(only("ron")),
    };
    let mut dialog = dialog
        .initial_path(absolute(&dir))
        .show_new_folder(false)
        .anchor(egui::Align2::CENTER_CENTER, [0.0, 0.0]);
    dialog.open();
    dialog
}

/// The picker lists folders and the files it can open or would overwrite, by extension.
fn only(extension: &'static str) -> Box<dyn Fn(&Path) -> bool + Send + Sync> {
    Box::new(move |path: &Path| path.extension().is_some_and(|e| e == extension))
}

/// The picker in the window, while it is open.
fn show_in_window(
    mut contexts: EguiContexts,
    mut dialogs: ResMut<FileDialogs>,
    mut live: ResMut<Live>,
    mut writer: MessageWriter<AppCommand>,
) -> Result {
    let Some((_, dialog)) = dialogs.in_window.as_mut() else {
        return Ok(());
    };
    let chosen = dialog.show(contexts.ctx_mut()?).selected();
    let path = chosen
        .then(|| dialog.path().map(Path::to_path_buf))
        .flatten();
    if !dialog.visible() || path.is_some() {
        let (purpose, _) = dialogs.in_window.take().expect("picker open");
        if let Some(path) = path {
            dialogs.last_folder = path.parent().map(Path::to_path_buf);
            act_on(purpose, path, &mut live, &mut writer);
        }
    }
    Ok(())
}

/// Opens, exports to or saves at the chosen `path`.
fn act_on(
    purpose: Purpose,
    path: PathBuf,
    live: &mut Live,
    writer: &mut MessageWriter<AppCommand>,
) {
    match purpose {
        Purpose::Open => {
            writer.write(AppCommand::OpenScene(path));
        }
        Purpose::SaveLesson => {
            writer.write(AppCommand::SaveLesson(path.with_extension("ron")));
        }
        Purpose::SaveSketch => {
            writer.write(AppCommand::Sketch(SketchRequest::Save(path)));
        }
        Purpose::Export(csv) => {
            let mut path = path;
            if path.extension().is_none() {
                path.set_extension("csv");
            }
            live.notice = Some(write_csv(path, csv));
        }
    }
}

/// `dir` made absolute, so that the picker shows where it is.
fn absolute(dir: &Path) -> PathBuf {
    std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf())
}

/// Writes `picture` as a PNG at `path` (in a browser: a download).
fn write_png(picture: &image::RgbImage, path: &Path) -> Result<(), String> {
    #[cfg(not(target_arch = "wasm32"))]
    return picture.save(path).map_err(|e| e.to_string());
    #[cfg(target_arch = "wasm32")]
    {
        let mut bytes = std::io::Cursor::new(Vec::new());
        picture
            .write_to(&mut bytes, image::ImageFormat::Png)
            .map_err(|e| e.to_string())?;
        crate::source::write(path, bytes.get_ref()).map_err(|e| e.to_string())
    }
}

/// Writes a screenshot (without its alpha, which is not coverage) and says where it went.
fn save_png(image: &Image, path: &Path) -> Notice {
    let saved = image
        .clone()
        .try_into_dynamic()
        .map_err(|e| e.to_string())
        .and_then(|picture| write_png(&picture.to_rgb8(), path));
    match saved {
        Ok(()) => Notice::brief(format!("Screenshot saved to {}", path.display())),
        Err(e) => Notice::lasting(format!("Could not write {}: {e}", path.display()), true),
    }
}

fn write_csv(path: PathBuf, csv: String) -> Notice {
    match crate::source::write(&path, csv.as_bytes()) {
        Ok(()) => Notice::brief(format!("History exported to {}", path.display())),
        Err(e) => Notice::lasting(format!("Could not write {}: {e}", path.display()), true),
    }
}

fn scene_dir(path: &Path) -> PathBuf {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
}

pub(super) fn stem(path: &Path) -> String {
    path.file_stem()
        .map_or_else(|| "scene".into(), |s| s.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_instant_no_is_no_dialog_and_a_later_one_a_cancel() {
        let ms = Duration::from_millis;
        // Under Xvfb without a portal or zenity rfd answered within milliseconds.
        assert_eq!(Answer::of(None, ms(3)), Answer::NoDialog);
        assert_eq!(Answer::of(None, ms(2000)), Answer::Cancelled);
        let chosen = PathBuf::from("scenes/four_bar.ron");
        assert_eq!(
            Answer::of(Some(chosen.clone()), ms(3)),
            Answer::Chosen(chosen)
        );
    }
}
