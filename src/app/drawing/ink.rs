//! Where the picture has ink a label should not cover: bars, hinges, ground symbols and
//! arrows, as small boxes along each shape, so that a label's cost is how many pieces it
//! covers (a label across a whole bar covers more than one clipping its end).

use bevy_egui::egui::{Pos2, Rect, vec2};

/// Pixels between the pieces along a segment.
const STEP: f32 = 8.0;

/// The pieces of the picture's ink.
#[derive(Default)]
pub(super) struct Ink {
    pieces: Vec<Rect>,
}

impl Ink {
    /// Adds a segment from `a` to `b` drawn `half_width` pixels either side of its axis.
    pub(super) fn segment(&mut self, a: Pos2, b: Pos2, half_width: f32) {
        let steps = ((b - a).length() / STEP).ceil().max(1.0) as usize;
        let size = vec2(2.0 * half_width, 2.0 * half_width).max(vec2(4.0, 4.0));
        self.pieces.extend(
            (0..=steps).map(|k| Rect::from_center_size(a.lerp(b, k as f32 / steps as f32), size)),
        );
    }

    /// Adds a disc of `radius` pixels about `centre`.
    pub(super) fn disc(&mut self, centre: Pos2, radius: f32) {
        self.pieces.push(Rect::from_center_size(
            centre,
            vec2(2.0 * radius, 2.0 * radius),
        ));
    }

    /// Adds pieces as they are.
    pub(super) fn extend(&mut self, pieces: impl IntoIterator<Item = Rect>) {
        self.pieces.extend(pieces);
    }

    /// How many pieces `r` covers.
    pub(super) fn covered(&self, r: &Rect) -> usize {
        self.pieces.iter().filter(|p| p.intersects(*r)).count()
    }

    pub(super) fn pieces(&self) -> &[Rect] {
        &self.pieces
    }

    pub(super) fn into_pieces(self) -> Vec<Rect> {
        self.pieces
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bevy_egui::egui::pos2;

    #[test]
    fn a_label_across_a_segment_covers_fewer_pieces_than_one_along_it() {
        let mut ink = Ink::default();
        ink.segment(pos2(0.0, 100.0), pos2(200.0, 100.0), 4.0);
        let across = Rect::from_center_size(pos2(100.0, 100.0), vec2(10.0, 60.0));
        let along = Rect::from_center_size(pos2(100.0, 100.0), vec2(60.0, 10.0));
        let clear = Rect::from_center_size(pos2(100.0, 80.0), vec2(60.0, 20.0));
        assert!(ink.covered(&across) >= 1);
        assert!(ink.covered(&along) > ink.covered(&across));
        assert_eq!(ink.covered(&clear), 0);
    }

    #[test]
    fn a_disc_is_covered_only_where_it_is() {
        let mut ink = Ink::default();
        ink.disc(pos2(50.0, 50.0), 5.0);
        assert_eq!(
            ink.covered(&Rect::from_center_size(pos2(58.0, 50.0), vec2(8.0, 8.0))),
            1
        );
        assert_eq!(
            ink.covered(&Rect::from_center_size(pos2(70.0, 50.0), vec2(8.0, 8.0))),
            0
        );
    }
}
