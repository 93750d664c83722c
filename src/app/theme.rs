//! Colours of the mechanism view on the dark and the light theme, chosen to stay readable on a
//! projector: saturated motion colours that differ in hue and lightness, muted structure.

use bevy_egui::egui::{Color32, FontId};

/// How much larger the canvas' text and the banner are presenting, over the interface's
/// own presentation size: at 1280x720 a bar's name of 14 points is 18 px tall in the
/// interface's size, 24 px at this factor.
pub const PRESENTING_CANVAS_TEXT: f32 = 1.3;

/// How much larger than stated the canvas' text and the banner are: presenting and recording
/// ([`PRESENTING_CANVAS_TEXT`]), or not.
pub fn canvas_text_scale(for_viewers: bool) -> f32 {
    if for_viewers {
        PRESENTING_CANVAS_TEXT
    } else {
        1.0
    }
}

#[derive(Clone, Copy, Debug)]
pub struct Palette {
    pub background: Color32,
    pub grid: Color32,
    pub axis: Color32,
    pub bar_fill: Color32,
    pub bar_edge: Color32,
    pub hinge_fill: Color32,
    pub hinge_edge: Color32,
    pub ground: Color32,
    pub link: Color32,
    pub text: Color32,
    pub trace: Color32,
    /// The paths of the rigid bodies' traced points, one colour each, after `trace`.
    pub point_traces: [Color32; 3],
    pub banner_event: Color32,
    pub banner_error: Color32,
    /// One colour per admissible motion, in order.
    pub motions: [Color32; 6],
    /// How much larger than its stated size the canvas' text is painted ([`Palette::font`]).
    pub text_scale: f32,
}

pub const DARK: Palette = Palette {
    background: Color32::from_rgb(22, 24, 30),
    grid: Color32::from_rgb(38, 42, 52),
    axis: Color32::from_rgb(70, 76, 92),
    bar_fill: Color32::from_rgb(86, 132, 196),
    bar_edge: Color32::from_rgb(170, 200, 240),
    hinge_fill: Color32::from_rgb(22, 24, 30),
    hinge_edge: Color32::from_rgb(230, 232, 240),
    ground: Color32::from_rgb(160, 164, 176),
    link: Color32::from_rgb(200, 204, 214),
    text: Color32::from_rgb(232, 234, 240),
    trace: Color32::from_rgb(120, 200, 170),
    point_traces: [
        Color32::from_rgb(240, 130, 220),
        Color32::from_rgb(250, 210, 90),
        Color32::from_rgb(120, 170, 255),
    ],
    banner_event: Color32::from_rgb(96, 52, 0),
    banner_error: Color32::from_rgb(130, 30, 30),
    motions: [
        Color32::from_rgb(255, 150, 40),
        Color32::from_rgb(240, 80, 200),
        Color32::from_rgb(90, 220, 110),
        Color32::from_rgb(80, 200, 255),
        Color32::from_rgb(250, 230, 80),
        Color32::from_rgb(255, 90, 90),
    ],
    text_scale: 1.0,
};

/// Every motion colour and the trace have a contrast of at least 4.7:1 with the background
/// (WCAG's 4.5:1 for text: the labels are drawn in them, and a projector washes them out).
pub const LIGHT: Palette = Palette {
    background: Color32::from_rgb(250, 250, 247),
    grid: Color32::from_rgb(226, 228, 232),
    axis: Color32::from_rgb(170, 174, 184),
    bar_fill: Color32::from_rgb(70, 112, 180),
    bar_edge: Color32::from_rgb(24, 44, 84),
    hinge_fill: Color32::from_rgb(250, 250, 247),
    hinge_edge: Color32::from_rgb(24, 28, 36),
    ground: Color32::from_rgb(70, 74, 84),
    link: Color32::from_rgb(60, 64, 74),
    text: Color32::from_rgb(20, 22, 28),
    trace: Color32::from_rgb(0, 127, 99),
    point_traces: [
        Color32::from_rgb(170, 40, 140),
        Color32::from_rgb(140, 95, 0),
        Color32::from_rgb(30, 90, 200),
    ],
    banner_event: Color32::from_rgb(255, 224, 170),
    banner_error: Color32::from_rgb(255, 205, 205),
    motions: [
        Color32::from_rgb(183, 83, 0),
        Color32::from_rgb(190, 30, 150),
        Color32::from_rgb(17, 130, 43),
        Color32::from_rgb(0, 115, 192),
        Color32::from_rgb(133, 108, 0),
        Color32::from_rgb(210, 30, 30),
    ],
    text_scale: 1.0,
};

impl Palette {
    pub fn for_theme(light: bool) -> &'static Palette {
        if light { &LIGHT } else { &DARK }
    }

    /// The palette of the canvas: `for_viewers` (presenting, recording), its text is
    /// [`PRESENTING_CANVAS_TEXT`] times larger than the interface's (a hall reads the bars'
    /// names and the banner from the back, a video's viewer from a laptop; the canvas has
    /// room for them where the panels' layout would not).
    pub fn for_canvas(light: bool, for_viewers: bool) -> Palette {
        let scale = canvas_text_scale(for_viewers);
        Palette {
            text_scale: scale,
            ..*Self::for_theme(light)
        }
    }

    /// The canvas' font of nominal size `points`, scaled and rounded to a whole size (whole
    /// sizes up to 20 are in the font atlas from the start: `font_warmup`).
    pub fn font(&self, points: f32) -> FontId {
        FontId::proportional((points * self.text_scale).round())
    }

    /// Colour of the `index`-th traced path: the traced point's, then each rigid body's
    /// traced point in turn, so that two paths that cross can be followed.
    pub fn trace_colour(&self, index: usize) -> Color32 {
        match index {
            0 => self.trace,
            k => self.point_traces[(k - 1) % self.point_traces.len()],
        }
    }

    /// Colour of the `index`-th motion shown.
    pub fn motion(&self, index: usize) -> Color32 {
        self.motions[index % self.motions.len()]
    }

    /// Colour of the `index`-th motion's label on the canvas: on the light theme a third of
    /// the way to the text's colour, as thin coloured letters on white blend into it (trial
    /// 19 measured the labels' strokes at 2.4:1 where the colour itself reads 4.7:1).
    pub fn motion_label(&self, index: usize) -> Color32 {
        let colour = self.motion(index);
        if self.is_light() {
            colour.lerp_to_gamma(self.text, LABEL_DARKENING)
        } else {
            colour
        }
    }

    fn is_light(&self) -> bool {
        self.background.r() > 128
    }
}

/// How far a motion's label goes from its colour to the text's on the light theme.
const LABEL_DARKENING: f32 = 0.35;

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// WCAG 2 relative luminance of an sRGB colour.
    fn luminance(c: Color32) -> f64 {
        let channel = |v: u8| {
            let v = f64::from(v) / 255.0;
            if v <= 0.03928 {
                v / 12.92
            } else {
                ((v + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * channel(c.r()) + 0.7152 * channel(c.g()) + 0.0722 * channel(c.b())
    }

    /// WCAG 2 contrast ratio of two colours (1 to 21).
    pub(in crate::app) fn contrast(a: Color32, b: Color32) -> f64 {
        let (la, lb) = (luminance(a), luminance(b));
        (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
    }

    #[test]
    fn motion_colours_and_text_read_on_both_themes() {
        for (name, palette) in [("dark", &DARK), ("light", &LIGHT)] {
            let traces = (0..4).map(|k| palette.trace_colour(k));
            for (k, colour) in palette.motions.iter().copied().chain(traces).enumerate() {
                let ratio = contrast(colour, palette.background);
                assert!(ratio >= 4.5, "{name} colour {k}: contrast {ratio:.2}");
            }
            let (tip, centre) = (palette.trace_colour(1), palette.trace_colour(2));
            assert_ne!(tip, centre, "{name}: two traced points share a colour");
            if name == "light" {
                for k in 0..palette.motions.len() {
                    let ratio = contrast(palette.motion_label(k), palette.background);
                    assert!(ratio >= 7.0, "light label {k}: contrast {ratio:.2}");
                }
            }
            let text = contrast(palette.text, palette.background);
            assert!(text >= 7.0, "{name} text: contrast {text:.2}");
            // The banners carry the event that a class is told to look at.
            for (banner, fill) in [
                ("event", palette.banner_event),
                ("error", palette.banner_error),
            ] {
                let ratio = contrast(palette.text, fill);
                assert!(ratio >= 7.0, "{name} {banner} banner: contrast {ratio:.2}");
            }
        }
    }
}
