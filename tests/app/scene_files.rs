//! Files reaching a running app without a window: a `.ron` dropped on the window opens, a
//! malformed one leaves the running scene alone and says where the error is, and a change of
//! the open file on disk reloads it.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use bevy::prelude::*;
use bevy::window::FileDragAndDrop;
use singulab::app::{Live, SceneFileInputPlugin, SceneLoaded, ScenePollInterval, SingulabSystems};
use singulab::scene::load_scene;

use super::{headless_app, scene_path};

#[derive(Resource, Default)]
struct Loaded(Vec<PathBuf>);

fn collect_loaded(mut reader: MessageReader<SceneLoaded>, mut loaded: ResMut<Loaded>) {
    loaded.0.extend(reader.read().map(|m| m.path.clone()));
}

/// An app running `scene` (a path), with the file input plugin and a record of loads. The
/// open file is checked on every update, so that no test waits for the wall-clock interval.
fn app_with_files(path: &Path) -> App {
    let scene = load_scene(path).unwrap();
    let mut app = headless_app(&scene, path.to_path_buf());
    app.add_plugins(SceneFileInputPlugin)
        .insert_resource(ScenePollInterval(Duration::ZERO))
        .init_resource::<Loaded>()
        .add_systems(Update, collect_loaded.after(SingulabSystems::Commands));
    app.update();
    app
}

/// A fresh directory for one test's files.
fn scratch_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("singulab-app-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn drop_file(app: &mut App, path: &Path) {
    app.world_mut().write_message(FileDragAndDrop::DroppedFile {
        window: Entity::PLACEHOLDER,
        path_buf: path.to_path_buf(),
    });
    app.update();
}

#[test]
fn a_dropped_scene_replaces_the_running_one() {
    let mut app = app_with_files(&scene_path("double_four_bar"));
    let dropped = scene_path("four_bar");
    drop_file(&mut app, &dropped);
    let live = app.world().resource::<Live>();
    assert_eq!(live.path, dropped);
    assert_eq!(live.session.scene().mechanism.bodies().len(), 3);
    assert!(live.notice.is_none());
    assert_eq!(app.world().resource::<Loaded>().0, vec![dropped]);
}

#[test]
fn a_malformed_dropped_scene_is_reported_and_changes_nothing() {
    let dir = scratch_dir("malformed");
    let broken = dir.join("broken.ron");
    let text = std::fs::read_to_string(scene_path("four_bar")).unwrap();
    // Cut the file in the middle of the bodies list.
    std::fs::write(&broken, &text[..text.find("joints").unwrap() - 20]).unwrap();
    let original = scene_path("double_four_bar");
    let mut app = app_with_files(&original);
    for _ in 0..10 {
        app.update();
    }
    let t_before = app.world().resource::<Live>().session.time();
    assert!(t_before > 0.0);
    drop_file(&mut app, &broken);
    let live = app.world().resource::<Live>();
    assert_eq!(live.path, original, "the running scene stays");
    assert!(
        live.session.time() >= t_before,
        "the session was not replaced"
    );
    let notice = live.notice.as_ref().expect("a notice");
    assert!(notice.error);
    assert!(
        notice.text.contains("broken.ron") && notice.text.contains(':'),
        "the notice names the file and the place: {}",
        notice.text
    );
    assert!(app.world().resource::<Loaded>().0.is_empty());
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn editing_the_open_file_reloads_it() {
    let dir = scratch_dir("reload");
    let path = dir.join("four_bar.ron");
    std::fs::copy(scene_path("four_bar"), &path).unwrap();
    let mut app = app_with_files(&path);
    for _ in 0..30 {
        app.update();
    }
    assert!(app.world().resource::<Live>().session.time() > 0.0);
    let generation = app.world().resource::<Live>().generation;

    let text = std::fs::read_to_string(&path).unwrap();
    let edited = text.replace("\"Four-bar linkage\"", "\"Edited four-bar\"");
    assert_ne!(edited, text);
    std::fs::write(&path, edited).unwrap();
    // Coarse file systems may keep the old modification time for a fast rewrite.
    let file = std::fs::File::options().write(true).open(&path).unwrap();
    file.set_modified(SystemTime::now() + Duration::from_secs(5))
        .unwrap();
    drop(file);
    // One update notices the change and reloads; the next sees the new file unchanged.
    app.update();
    app.update();

    let live = app.world().resource::<Live>();
    assert_eq!(live.generation, generation + 1, "reloaded once");
    assert_eq!(live.session.scene().title, "Edited four-bar");
    assert!(live.session.time() < 0.1, "the reloaded scene starts over");
    assert_eq!(app.world().resource::<Loaded>().0, vec![path]);
    let _ = std::fs::remove_dir_all(dir);
}
