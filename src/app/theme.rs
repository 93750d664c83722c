//! Colours of the mechanism view on the dark and the light theme, chosen to stay readable on a
//! projector: saturated motion colours that differ in hue and lightness, muted structure.

use bevy_egui::egui::Color32;

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
    pub banner_event: Color32,
    pub banner_error: Color32,
    /// One colour per admissible motion, in order.
    pub motions: [Color32; 6],
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
    banner_event: Color32::from_rgb(120, 70, 10),
    banner_error: Color32::from_rgb(130, 30, 30),
    motions: [
        Color32::from_rgb(255, 150, 40),
        Color32::from_rgb(240, 80, 200),
        Color32::from_rgb(90, 220, 110),
        Color32::from_rgb(80, 200, 255),
        Color32::from_rgb(250, 230, 80),
        Color32::from_rgb(255, 90, 90),
    ],
};

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
    trace: Color32::from_rgb(0, 140, 110),
    banner_event: Color32::from_rgb(255, 224, 170),
    banner_error: Color32::from_rgb(255, 205, 205),
    motions: [
        Color32::from_rgb(220, 100, 0),
        Color32::from_rgb(190, 30, 150),
        Color32::from_rgb(20, 150, 50),
        Color32::from_rgb(0, 120, 200),
        Color32::from_rgb(160, 130, 0),
        Color32::from_rgb(210, 30, 30),
    ],
};

impl Palette {
    pub fn for_theme(light: bool) -> &'static Palette {
        if light { &LIGHT } else { &DARK }
    }

    /// Colour of the `index`-th motion shown.
    pub fn motion(&self, index: usize) -> Color32 {
        self.motions[index % self.motions.len()]
    }
}
