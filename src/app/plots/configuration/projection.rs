//! The configuration-space plot's geometry: angles wrapped so that the flat poses fall inside
//! the plot, curves cut where a wrapped angle jumps, and the extent of the configuration set.

/// A point with its angle coordinates (`angles`) wrapped into [-pi/2, 3 pi/2): the flat
/// poses of the linkages, at 0 and pi (where their singular points lie), fall inside the
/// plot, not on its edges where round-off would put them at one edge or the other.
pub(super) fn wrap(p: [f64; 2], angles: [bool; 2]) -> [f64; 2] {
    use std::f64::consts::{FRAC_PI_2, TAU};
    let one = |v: f64, angle: bool| {
        if angle {
            (v + FRAC_PI_2).rem_euclid(TAU) - FRAC_PI_2
        } else {
            v
        }
    };
    [one(p[0], angles[0]), one(p[1], angles[1])]
}

/// The box (`[lo, hi]`) of the atlas' curves and singular points on the plot's axes, angles
/// wrapped as plotted.
pub(super) fn atlas_extent(
    atlas: &crate::atlas::Atlas,
    axes: [usize; 2],
    angles: [bool; 2],
) -> Option<[[f64; 2]; 2]> {
    let curves = atlas
        .curves
        .iter()
        .flat_map(|curve| (0..curve.len()).map(|k| curve.point(k)));
    let singular = atlas.singular.iter().map(|point| point.x.as_slice());
    curves
        .chain(singular)
        .map(|p| wrap([p[axes[0]], p[axes[1]]], angles))
        .fold(None, |extent, p| {
            let [lo, hi] = extent.unwrap_or([p, p]);
            Some([
                [lo[0].min(p[0]), lo[1].min(p[1])],
                [hi[0].max(p[0]), hi[1].max(p[1])],
            ])
        })
}

/// A polyline with its angles wrapped, cut where a wrapped angle jumps by more than pi (the
/// curve leaves one side of the plot and comes in at the other).
pub(super) fn wrapped_pieces(
    points: impl Iterator<Item = [f64; 2]>,
    angles: [bool; 2],
) -> Vec<Vec<[f64; 2]>> {
    let mut pieces: Vec<Vec<[f64; 2]>> = vec![Vec::new()];
    for p in points.map(|p| wrap(p, angles)) {
        let current = pieces.last_mut().expect("one piece at least");
        let jumps = current.last().is_some_and(|q: &[f64; 2]| {
            (0..2).any(|i| angles[i] && (p[i] - q[i]).abs() > std::f64::consts::PI)
        });
        if jumps {
            pieces.push(vec![p]);
        } else {
            current.push(p);
        }
    }
    pieces
}
