//! Keeps egui's font atlas from changing while the interface is in use.
//!
//! egui rasterises a glyph the first time some text needs it, and with sub-pixel binning a
//! glyph again at each of four horizontal offsets; the atlas texture then gets a partial
//! update. Under bevy_egui such a frame can draw text with glyphs missing (a status line
//! whose text changed, a caption's first frame in a recording), which a screen recording
//! shows. So glyphs are placed on whole pixels (one bitmap per glyph: a changing
//! number needs no new ones) and every printable character is laid out once per font and
//! size in use at start, and again whenever the interface scale or the theme (whose text
//! options differ, so egui rebuilds its fonts) changes.

use bevy_egui::egui::{self, Color32, FontId};

use super::presentation::CAPTION_SIZE;

/// Printable ASCII and the other characters the interface writes, and the letter pairs the
/// text shaping draws as one glyph (a banner's "configuration" and "deficiency" lost their
/// "fi" in a recording's first frame of them).
const CHARACTERS: &str = concat!(
    " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`",
    "abcdefghijklmnopqrstuvwxyz{|}~",
    "ΔΩωθρβγ·×…–—ü°±²√∞▶⏸",
    " fi fl ff ffi ffl ft tt"
);

/// Sizes (points) of the text painted on the canvas and of the captions, besides egui's
/// text styles: the time over the canvas takes a whole monospace size from 11 to 20 that
/// follows the canvas' height, the basis under it 0.7 of that (8 to 14), the other canvas
/// text 12 to 16, a banner or a caption kept in two rows a whole size down to a fifth below
/// its own (`presentation::size_in_rows`).
fn canvas_fonts() -> impl Iterator<Item = FontId> {
    (8..=CAPTION_SIZE as usize)
        .map(|size| FontId::proportional(size as f32))
        .chain((11..=20).map(|size| FontId::monospace(size as f32)))
}

/// What the atlas was last filled for (the interface scale and the theme), once the text
/// options are set, and a change seen in the last pass.
#[derive(Default)]
pub struct Warmed {
    options_set: bool,
    filled_for: Option<(f32, bool)>,
    changed_to: Option<(f32, bool)>,
    /// The lesson (by the scene generation it opened with) whose captions were laid out, and
    /// for which atlas.
    captions_for: Option<(u64, (f32, bool))>,
}

/// Turns sub-pixel binning off (on the first call) and lays out [`CHARACTERS`] in every
/// font the interface uses when the scale or the theme changed. egui rebuilds its fonts with
/// new text options (ours, or another theme's) at the start of the next pass, so the atlas
/// is filled one pass after a change is seen.
pub fn keep_font_atlas_warm(ctx: &egui::Context, warmed: &mut Warmed) {
    if !warmed.options_set {
        ctx.all_styles_mut(|style| style.visuals.text_options.subpixel_binning = false);
        warmed.options_set = true;
        return;
    }
    let now = (ctx.pixels_per_point(), ctx.global_style().visuals.dark_mode);
    if warmed.filled_for == Some(now) {
        return;
    }
    if warmed.changed_to != Some(now) {
        warmed.changed_to = Some(now);
        return;
    }
    let mut fonts: Vec<FontId> = ctx.global_style().text_styles.values().cloned().collect();
    fonts.extend(canvas_fonts());
    ctx.fonts_mut(|f| {
        for font in fonts {
            f.layout_no_wrap(CHARACTERS.to_owned(), font, Color32::WHITE);
        }
    });
    warmed.filled_for = Some(now);
}

/// Lays out the open lesson's `captions` (a lesson is opened with the scene `generation`)
/// in the fonts captions are shown in, once per lesson and atlas: a caption may hold
/// characters [`CHARACTERS`] lacks, and its first frame would miss them.
pub fn warm_captions<'a>(
    ctx: &egui::Context,
    warmed: &mut Warmed,
    generation: u64,
    captions: impl Iterator<Item = &'a str>,
) {
    let Some(atlas) = warmed.filled_for else {
        return;
    };
    if warmed.captions_for == Some((generation, atlas)) {
        return;
    }
    let heading = egui::TextStyle::Heading.resolve(&ctx.global_style());
    ctx.fonts_mut(|f| {
        for text in captions {
            for font in [FontId::proportional(CAPTION_SIZE), heading.clone()] {
                f.layout_no_wrap(text.to_owned(), font, Color32::WHITE);
            }
        }
    });
    warmed.captions_for = Some((generation, atlas));
}
