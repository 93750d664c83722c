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
/// (`data-t`, the simulated time; `data-events`, the singular events met; `data-at-event`,
/// `1` while paused at one).
#[cfg(target_arch = "wasm32")]
pub struct WebPagePlugin;

#[cfg(target_arch = "wasm32")]
impl bevy::prelude::Plugin for WebPagePlugin {
    fn build(&self, app: &mut bevy::prelude::App) {
        app.add_systems(bevy::prelude::Last, publish_state);
    }
}

#[cfg(target_arch = "wasm32")]
fn publish_state(live: bevy::prelude::Res<super::simulation::Live>) {
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
        ("data-t", format!("{:.4}", session.time())),
        ("data-events", session.events().len().to_string()),
        ("data-at-event", at_event.to_owned()),
    ] {
        let _ = canvas.set_attribute(name, &value);
    }
}

/// The page's entry: opens the app on what the address asks for.
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
