//! What lies under the pointer in the configuration-space plot and what a click there does:
//! the singular points' markers (an event the run met before a point it did not), and the
//! configurations of the curves that project onto the pointer, taken in turn by clicks.

use nalgebra::DVector;

use super::projection::wrap;

/// Pixels from a marker or a curve within which the pointer is on it.
pub(super) const CLICK_RADIUS: f32 = 10.0;

/// A singular point as plotted: its number (S1, S2, ...), where, and the event of the run
/// at that configuration, if the run met it.
pub(super) struct Marker {
    pub number: usize,
    pub at: [f64; 2],
    pub event: Option<usize>,
}

impl Marker {
    pub fn name(&self, events: &[crate::solver::SingularEvent]) -> String {
        match self.event {
            Some(i) => format!("S{} (t = {:.4} s)", self.number, events[i].t),
            None => format!("S{}", self.number),
        }
    }
}

/// Of the singular points under the pointer (with their distances from it), the one a click
/// means: one the run met (its event) before one it did not, then the nearest.
pub(super) fn preferred<'a>(under: impl Iterator<Item = (&'a Marker, f32)>) -> Option<&'a Marker> {
    under
        .min_by(|(a, da), (b, db)| {
            (a.event.is_none(), da)
                .partial_cmp(&(b.event.is_none(), db))
                .unwrap_or(std::cmp::Ordering::Equal)
        })
        .map(|(m, _)| m)
}

/// The markers grouped by the place they are plotted at (within 1e-6), in order.
pub(super) fn same_places(markers: &[Marker]) -> Vec<([f64; 2], Vec<&Marker>)> {
    let mut groups: Vec<([f64; 2], Vec<&Marker>)> = Vec::new();
    for marker in markers {
        let near = |at: &[f64; 2]| {
            (at[0] - marker.at[0])
                .abs()
                .max((at[1] - marker.at[1]).abs())
                < 1e-6
        };
        match groups.iter_mut().find(|(at, _)| near(at)) {
            Some((_, group)) => group.push(marker),
            None => groups.push((marker.at, vec![marker])),
        }
    }
    groups
}

/// The configurations of `atlas` under the pointer (`pixels` gives a plotted position's
/// distance from it in pixels, within [`CLICK_RADIUS`]), nearest first: for each stretch of a
/// curve under the pointer its nearest traced point, once for stretches that meet there (two
/// branches, or one curve passing twice, may cross one point of the plot far apart in the
/// other coordinates; a curve along which the plotted coordinates stay put is one stretch).
pub(super) fn configurations_under(
    atlas: &crate::atlas::Atlas,
    axes: [usize; 2],
    angles: [bool; 2],
    pixels: impl Fn([f64; 2]) -> f32,
) -> Vec<DVector<f64>> {
    let mut stretches: Vec<(f32, &[f64])> = Vec::new();
    for curve in &atlas.curves {
        let mut nearest: Option<(f32, &[f64])> = None;
        for k in 0..=curve.len() {
            let under = (k < curve.len())
                .then(|| curve.point(k))
                .map(|p| (pixels(wrap([p[axes[0]], p[axes[1]]], angles)), p))
                .filter(|(d, _)| *d <= CLICK_RADIUS);
            match under {
                Some((d, p)) => {
                    if nearest.is_none_or(|(best, _)| d < best) {
                        nearest = Some((d, p));
                    }
                }
                None => stretches.extend(nearest.take()),
            }
        }
    }
    stretches.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut distinct: Vec<DVector<f64>> = Vec::new();
    for (_, p) in stretches {
        let p = DVector::from_column_slice(p);
        if !distinct.iter().any(|q| near_pose(q, &p, ONE_PLACE)) {
            distinct.push(p);
        }
    }
    distinct
}

/// Configurations closer than this in every coordinate (radians or metres; angles modulo 2
/// pi) are one place of the configuration set for a click (curves meeting at a singular
/// point under the pointer).
const ONE_PLACE: f64 = 0.3;

/// Of the configurations under the pointer, the one a click poses: after the one the
/// mechanism is at (a click again at one place of the plot goes through them in turn), else
/// the nearest.
pub(super) fn next_configuration(under: &[DVector<f64>], at: &DVector<f64>) -> Option<usize> {
    let here = under.iter().position(|q| near_pose(q, at, ONE_PLACE));
    match here {
        Some(i) => Some((i + 1) % under.len()),
        None => (!under.is_empty()).then_some(0),
    }
}

/// "the 1st", "the 2nd", ...: which of the configurations under the pointer a click poses.
pub(super) fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, 11) | (2, 12) | (3, 13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("the {n}{suffix}")
}

/// Two poses the same configuration: every coordinate within 1e-4 (angles modulo 2 pi).
pub(super) fn same_pose(a: &DVector<f64>, b: &DVector<f64>) -> bool {
    near_pose(a, b, 1e-4)
}

/// Every coordinate of two poses within `tolerance` (angles modulo 2 pi).
fn near_pose(a: &DVector<f64>, b: &DVector<f64>, tolerance: f64) -> bool {
    a.len() == b.len()
        && a.iter().zip(b.iter()).all(|(p, q)| {
            let d = (p - q).rem_euclid(std::f64::consts::TAU);
            d.min(std::f64::consts::TAU - d) < tolerance || (p - q).abs() < tolerance
        })
}

#[cfg(test)]
mod tests {
    use super::{
        Marker, ONE_PLACE, configurations_under, next_configuration, ordinal, preferred,
        same_places,
    };
    use crate::atlas::{Atlas, Curve, CurveEnd};
    use nalgebra::DVector;

    fn curve(points: &[[f64; 3]]) -> Curve {
        Curve {
            section: 0,
            start: CurveEnd::Start,
            end: CurveEnd::Budget,
            s: (0..points.len()).map(|k| k as f64).collect(),
            rank: vec![2; points.len()],
            x: points.iter().flatten().copied().collect(),
        }
    }

    /// Plotting (x, y) of a three-coordinate set with the pointer at (0, 0) (a plot unit is
    /// 100 pixels): a curve along z alone (x, y fixed: 22 traced points under the pointer)
    /// is one stretch, a second curve crossing (0, 0) with z = 2 another, and a third
    /// passing twice (z = -1, then z = 1.5) two more: 4 configurations, not 24.
    #[test]
    fn a_curve_along_the_hidden_coordinate_is_one_configuration_under_the_pointer() {
        let along_z: Vec<[f64; 3]> = (0..22).map(|k| [0.0, 0.0, 0.1 * f64::from(k)]).collect();
        let across: Vec<[f64; 3]> = (-3..=3).map(|k| [0.1 * f64::from(k), 0.0, 2.0]).collect();
        let twice = [
            [-0.3, 0.0, -1.0],
            [0.0, 0.0, -1.0],
            [0.3, 0.0, -1.0],
            [0.3, 0.5, 0.0],
            [0.3, 0.0, 1.5],
            [0.0, 0.0, 1.5],
        ];
        let atlas = Atlas {
            curves: vec![curve(&along_z), curve(&across), curve(&twice)],
            singular: Vec::new(),
            sections: vec![Vec::new()],
            dimension: 1,
            left_out: 0,
            points: 0,
        };
        let under = configurations_under(&atlas, [0, 1], [false, false], |p| {
            (100.0 * p[0].hypot(p[1])) as f32
        });
        let mut z: Vec<f64> = under.iter().map(|x| x[2]).collect();
        z.sort_by(f64::total_cmp);
        assert_eq!(z.len(), 4, "{z:?}");
        assert_eq!(z[0], -1.0);
        assert_eq!(z[3], 2.0);
    }

    /// Two configurations of a two-coordinate mechanism under the pointer (the second angle
    /// pi apart): a click poses the first, the next click at the same place the second,
    /// the next the first again; the mechanism elsewhere gets the nearest.
    #[test]
    fn clicks_where_two_configurations_project_go_through_them_in_turn() {
        let under = [
            DVector::from_vec(vec![0.5, 0.0]),
            DVector::from_vec(vec![0.5, std::f64::consts::PI]),
        ];
        let elsewhere = DVector::from_vec(vec![2.0, 1.0]);
        assert_eq!(next_configuration(&under, &elsewhere), Some(0));
        let near_first = DVector::from_vec(vec![0.5 + 0.5 * ONE_PLACE, 0.0]);
        assert_eq!(next_configuration(&under, &near_first), Some(1));
        // Angles modulo 2 pi: -pi is the second.
        let second = DVector::from_vec(vec![0.5, -std::f64::consts::PI]);
        assert_eq!(next_configuration(&under, &second), Some(0));
        assert_eq!(next_configuration(&[], &elsewhere), None);
        assert_eq!(ordinal(1), "the 1st");
        assert_eq!(ordinal(2), "the 2nd");
        assert_eq!(ordinal(12), "the 12th");
    }

    fn marker(number: usize, at: [f64; 2], event: Option<usize>) -> Marker {
        Marker { number, at, event }
    }

    /// Trial 5 clicked A02's S2 (the event at 0.7144 s) where S3 projects onto the same place
    /// and was posed at S3: the event wins, whichever is nearer or listed later.
    #[test]
    fn a_click_on_coinciding_singular_points_goes_to_the_one_the_run_met() {
        let s2 = marker(2, [0.0, 0.0], Some(0));
        let s3 = marker(3, [0.0, 0.0], None);
        let chosen = preferred([(&s3, 1.0), (&s2, 2.0)].into_iter()).unwrap();
        assert_eq!(chosen.number, 2);
        let s4 = marker(4, [0.0, 0.0], None);
        let chosen = preferred([(&s4, 3.0), (&s3, 1.0)].into_iter()).unwrap();
        assert_eq!(chosen.number, 3, "else the nearest");
        let markers = [s2, s3, marker(1, [3.0, 3.0], None)];
        let groups = same_places(&markers);
        let sizes: Vec<usize> = groups.iter().map(|(_, g)| g.len()).collect();
        assert_eq!(sizes, [2, 1]);
    }
}
