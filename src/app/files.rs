//! File dialogs (rfd, each on a task so the window never blocks), the CSV export of the
//! plotted history, and screenshots on request (F12): named by scene and time, made unique
//! among the files on disk and the names handed out before (a screenshot is written a frame
//! or more after it is asked for), and announced once written, so the notice is not in it.

use std::path::{Path, PathBuf};

use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured};
use bevy::tasks::{AsyncComputeTaskPool, Task, block_on, poll_once};

use super::SingulabSystems;
use super::commands::AppCommand;
use super::simulation::{Live, Notice};
use crate::live::recording::TakenNames;

/// Names of the screenshots and recordings handed out in this run.
#[derive(Resource, Default)]
pub struct TakenFileNames(pub TakenNames);

/// Dialogs in flight.
#[derive(Resource, Default)]
pub struct FileDialogs {
    open: Option<Task<Option<PathBuf>>>,
    /// The CSV text captured when the export was asked for, and where the dialog says to put it.
    export: Option<(String, Task<Option<PathBuf>>)>,
    save_lesson: Option<Task<Option<PathBuf>>>,
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
            );
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
            AppCommand::OpenDialog if dialogs.open.is_none() => {
                let dir = scene_dir(&live.path);
                dialogs.open = Some(AsyncComputeTaskPool::get().spawn(async move {
                    rfd::AsyncFileDialog::new()
                        .set_title("Open a Singulab scene or lesson")
                        .add_filter("Singulab scene or lesson", &["ron"])
                        .set_directory(dir)
                        .pick_file()
                        .await
                        .map(|f| f.path().to_path_buf())
                }));
            }
            AppCommand::ExportCsvDialog if dialogs.export.is_none() => {
                let csv = live.session.history().to_csv();
                let dir = scene_dir(&live.path);
                let name = format!("{}_history.csv", stem(&live.path));
                let task = AsyncComputeTaskPool::get().spawn(async move {
                    rfd::AsyncFileDialog::new()
                        .set_title("Export the plotted history")
                        .add_filter("CSV", &["csv"])
                        .set_directory(dir)
                        .set_file_name(name)
                        .save_file()
                        .await
                        .map(|f| f.path().to_path_buf())
                });
                dialogs.export = Some((csv, task));
            }
            AppCommand::SaveLessonDialog if dialogs.save_lesson.is_none() => {
                // Offered where "Save lesson here" writes: next to the scene's lessons.
                let here = crate::lesson::default_lesson_path(&live.path);
                let dir = scene_dir(&here);
                let name = here
                    .file_name()
                    .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
                dialogs.save_lesson = Some(AsyncComputeTaskPool::get().spawn(async move {
                    rfd::AsyncFileDialog::new()
                        .set_title("Save what you did as a lesson")
                        .add_filter("Singulab lesson", &["ron"])
                        .set_directory(dir)
                        .set_file_name(name)
                        .save_file()
                        .await
                        .map(|f| f.path().to_path_buf())
                }));
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

fn finish_dialogs(
    mut dialogs: ResMut<FileDialogs>,
    mut live: ResMut<Live>,
    mut writer: MessageWriter<AppCommand>,
) {
    if let Some(task) = dialogs.open.as_mut()
        && let Some(result) = block_on(poll_once(task))
    {
        dialogs.open = None;
        match result {
            Some(path) => {
                writer.write(AppCommand::OpenScene(path));
            }
            None => live.notice = Some(no_open_dialog_notice()),
        }
    }
    if let Some(task) = dialogs.save_lesson.as_mut()
        && let Some(result) = block_on(poll_once(task))
    {
        dialogs.save_lesson = None;
        match result {
            Some(path) => {
                writer.write(AppCommand::SaveLesson(path.with_extension("ron")));
            }
            None => live.notice = Some(Notice::brief("No file chosen: the save dialog was cancelled or none is available (it needs xdg-desktop-portal or zenity). File > Save lesson here writes it next to the scene's lessons without a dialog.".into())),
        }
    }
    if let Some((_, task)) = dialogs.export.as_mut()
        && let Some(result) = block_on(poll_once(task))
    {
        let (csv, _) = dialogs.export.take().expect("export in flight");
        live.notice = Some(match result {
            Some(mut path) => {
                if path.extension().is_none() {
                    path.set_extension("csv");
                }
                write_csv(path, csv)
            }
            None => Notice::brief("No file chosen: the save dialog was cancelled or none is available (it needs xdg-desktop-portal or zenity). File > Export plotted history here writes it in the working directory without a dialog.".into()),
        });
    }
}

/// Writes a screenshot (without its alpha, which is not coverage) and says where it went.
fn save_png(image: &Image, path: &Path) -> Notice {
    let saved = image
        .clone()
        .try_into_dynamic()
        .map_err(|e| e.to_string())
        .and_then(|picture| picture.to_rgb8().save(path).map_err(|e| e.to_string()));
    match saved {
        Ok(()) => Notice::brief(format!("Screenshot saved to {}", path.display())),
        Err(e) => Notice::lasting(format!("Could not write {}: {e}", path.display()), true),
    }
}

fn write_csv(path: PathBuf, csv: String) -> Notice {
    match std::fs::write(&path, csv) {
        Ok(()) => Notice::brief(format!("History exported to {}", path.display())),
        Err(e) => Notice::lasting(format!("Could not write {}: {e}", path.display()), true),
    }
}

fn no_open_dialog_notice() -> Notice {
    Notice::brief("No file chosen: the open dialog was cancelled or none is available (it needs xdg-desktop-portal or zenity). Scenes can also be dropped on the window or picked in the Scene panel.".into())
}

fn scene_dir(path: &Path) -> PathBuf {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

pub(super) fn stem(path: &Path) -> String {
    path.file_stem()
        .map_or_else(|| "scene".into(), |s| s.to_string_lossy().into_owned())
}
