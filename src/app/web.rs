//! The app in a browser page. The page's address chooses what opens, so a lecturer's link
//! opens what was prepared: `?scene=four_bar` or `?lesson=a02_branches` (a shipped scene or
//! lesson, by its file's name), `&presentation=1`, `&side_by_side=1`, `&basis=traditional`,
//! `&light=1`. The window is the page's canvas `#singulab`, sized to the page.

use std::path::PathBuf;

use super::config::ViewConfig;
use crate::solver::BasisMode;

/// The view a page's query string (`?scene=four_bar&presentation=1`, with or without the
/// `?`) asks for; a parameter it does not know, or a value that is not a plain name, is
/// left out (what it would open could not be told from the address).
pub fn config_from_query(query: &str) -> ViewConfig {
    let mut config = ViewConfig::default();
    for pair in query.trim_start_matches('?').split('&') {
        let (key, value) = pair.split_once('=').unwrap_or((pair, "1"));
        let plain = !value.is_empty()
            && value
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        let on = matches!(value, "1" | "true" | "yes" | "on");
        match key {
            "scene" if plain => config.scene = Some(PathBuf::from(format!("scenes/{value}.ron"))),
            "lesson" if plain => {
                config.scene = Some(PathBuf::from(format!("scenes/lessons/{value}.ron")));
            }
            "presentation" => config.presentation = on,
            "side_by_side" => config.side_by_side = on,
            "light" => config.light = on,
            "basis" if value == "traditional" => config.basis = BasisMode::Traditional,
            "basis" if value == "continued" => config.basis = BasisMode::Continued,
            _ => {}
        }
    }
    config
}

/// In a browser: the page's canvas carries the session's state for scripts and tests
/// (`data-scene`, the open file's name; `data-t`, the simulated time; `data-events`, the
/// singular events met; `data-at-event`, `1` while paused at one; `data-paused`, `1` while
/// paused (at an event, by the user or at a stop); `data-speed`, the speed
/// asked for; `data-achieved`, the simulated seconds per wall second over the last second;
/// `data-behind`, `1` while the status line says the page cannot keep the speed asked for).
#[cfg(target_arch = "wasm32")]
pub struct WebPagePlugin;

#[cfg(target_arch = "wasm32")]
impl bevy::prelude::Plugin for WebPagePlugin {
    fn build(&self, app: &mut bevy::prelude::App) {
        app.add_systems(bevy::prelude::Last, publish_state)
            .add_systems(bevy::prelude::Update, open_dropped_files);
    }
}

#[cfg(target_arch = "wasm32")]
fn publish_state(
    live: bevy::prelude::Res<super::simulation::Live>,
    stats: bevy::prelude::Res<super::simulation::FrameStats>,
) {
    let Some(canvas) = web_sys::window()
        .and_then(|window| window.document())
        .and_then(|document| document.get_element_by_id("singulab"))
    else {
        return;
    };
    let session = &live.session;
    let at_event = if session.current_event().is_some() {
        "1"
    } else {
        "0"
    };
    for (name, value) in [
        (
            "data-scene",
            live.path
                .file_name()
                .map(|name| name.to_string_lossy().into_owned())
                .unwrap_or_default(),
        ),
        ("data-t", format!("{:.4}", session.time())),
        ("data-events", session.events().len().to_string()),
        ("data-at-event", at_event.to_owned()),
        (
            "data-paused",
            if session.is_paused() { "1" } else { "0" }.to_owned(),
        ),
        ("data-speed", format!("{}", session.speed())),
        ("data-achieved", format!("{:.4}", stats.achieved_speed)),
        // What the status line says: the run falls behind the requested speed.
        (
            "data-behind",
            if super::ui::says_behind(&live, &stats) {
                "1"
            } else {
                "0"
            }
            .to_owned(),
        ),
    ] {
        let _ = canvas.set_attribute(name, &value);
    }
}

/// The page's entry: opens the app on what the address asks for.
/// Files dropped on the page: `index.html` keeps each one's name and text in
/// `window.singulabDropped` (winit's web backend gives no file drops); each is kept for the
/// loaders under its name ([`crate::source::remember`]) and opened, as a drop on the desktop
/// window opens it.
#[cfg(target_arch = "wasm32")]
fn open_dropped_files(mut writer: bevy::prelude::MessageWriter<super::commands::AppCommand>) {
    use wasm_bindgen::JsCast;
    let Some(window) = web_sys::window() else {
        return;
    };
    let Some(dropped) = js_sys::Reflect::get(&window, &"singulabDropped".into())
        .ok()
        .and_then(|list| list.dyn_into::<js_sys::Array>().ok())
    else {
        return;
    };
    if dropped.length() == 0 {
        return;
    }
    let field = |item: &wasm_bindgen::JsValue, name: &str| {
        js_sys::Reflect::get(item, &name.into())
            .ok()
            .and_then(|value| value.as_string())
    };
    for item in dropped.iter() {
        if let (Some(name), Some(text)) = (field(&item, "name"), field(&item, "text")) {
            let path = PathBuf::from(name);
            crate::source::remember(&path, text.into_bytes());
            writer.write(super::commands::AppCommand::OpenScene(path));
        }
    }
    dropped.set_length(0);
}

#[cfg(target_arch = "wasm32")]
pub fn run_page() {
    std::panic::set_hook(Box::new(console_error_panic_hook::hook));
    let query = web_sys::window()
        .and_then(|window| window.location().search().ok())
        .unwrap_or_default();
    if let Err(error) = super::run(config_from_query(&query)) {
        web_sys::console::error_1(&error.into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lecturers_link_opens_what_was_prepared() {
        let config = config_from_query("?lesson=a02_branches&presentation=1&basis=traditional");
        assert_eq!(
            config.scene,
            Some(PathBuf::from("scenes/lessons/a02_branches.ron"))
        );
        assert!(config.presentation && !config.side_by_side);
        assert_eq!(config.basis, BasisMode::Traditional);
        let config = config_from_query("scene=four_bar&side_by_side=1&light=true");
        assert_eq!(config.scene, Some(PathBuf::from("scenes/four_bar.ron")));
        assert!(config.side_by_side && config.light && !config.presentation);
        // Not a plain name: nothing outside the shipped folders is asked for.
        assert_eq!(config_from_query("scene=../../etc/passwd").scene, None);
        assert_eq!(config_from_query("").scene, None);
    }
}
