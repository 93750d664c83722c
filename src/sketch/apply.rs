//! Applying one [`SketchCommand`] to a sketch: the new sketch, or why not.

use nalgebra::Vector2;

use super::command::{Place, SketchCommand};
use super::{
    Guide, MASS_PER_METRE, SAME_POINT, Sketch, SketchBar, SketchError, SketchPoint, assemble,
};

impl Sketch {
    /// The sketch after `command`, or why it is refused (`self` is unchanged either way).
    pub fn applied(&self, command: &SketchCommand) -> Result<Sketch, SketchError> {
        let mut next = self.clone();
        match command {
            SketchCommand::GroundPivot { at } => {
                let at = finite_point(*at)?;
                let name = next.numbered_name("O");
                next.points.push(SketchPoint {
                    name,
                    at,
                    ground: true,
                    guide: None,
                    mass: None,
                    slot: None,
                });
            }
            SketchCommand::Bar { from, to, name } => next.add_bar(from, to, name.as_deref())?,
            SketchCommand::Ground { point, ground } => {
                let index = next.point(point)?;
                next.points[index].ground = *ground;
                if *ground {
                    next.points[index].guide = None;
                }
            }
            SketchCommand::SlideInBar { point, bar } => {
                let index = next.point(point)?;
                next = next.slid_in(index, bar.as_deref())?;
            }
            SketchCommand::PointMass { point, mass } => {
                let index = next.point(point)?;
                if mass.is_some_and(|m| !m.is_finite() || m <= 0.0) {
                    return Err(SketchError::BadNumber("a mass", " above zero"));
                }
                if mass.is_some() && next.bars_at(index).is_empty() {
                    return Err(SketchError::NoBar(point.clone()));
                }
                next.points[index].mass = *mass;
            }
            SketchCommand::Slide { point, angle } => {
                let index = next.point(point)?;
                if angle.is_some_and(|a| !a.is_finite()) {
                    return Err(SketchError::BadNumber("an angle", ""));
                }
                let p = &mut next.points[index];
                p.guide = angle.map(|angle| Guide {
                    origin: p.at,
                    angle,
                });
                if p.guide.is_some() {
                    p.ground = false;
                }
            }
            SketchCommand::Move { point, to } => {
                let index = next.point(point)?;
                next = assemble::moved(&next, index, finite_point(*to)?)?;
            }
            SketchCommand::Drag { point, toward } => {
                let index = next.point(point)?;
                next = assemble::dragged(&next, index, finite_point(*toward)?)?;
            }
            SketchCommand::Length { bar, length } => {
                let index = next.bar(bar)?;
                if !length.is_finite() || *length <= SAME_POINT {
                    return Err(SketchError::BadNumber("a length", " above zero"));
                }
                next = assemble::lengthened(&next, index, *length)?;
            }
            SketchCommand::Mass { bar, mass } => {
                let index = next.bar(bar)?;
                if !mass.is_finite() || *mass <= 0.0 {
                    return Err(SketchError::BadNumber("a mass", " above zero"));
                }
                next.bars[index].mass = *mass;
            }
            SketchCommand::Omega { bar, omega } => {
                let index = next.bar(bar)?;
                if omega.is_some_and(|w| !w.is_finite()) {
                    return Err(SketchError::BadNumber("an angular velocity", ""));
                }
                next.bars[index].omega = *omega;
                next.keep_fitting_omegas(Some(index));
                return Ok(next);
            }
            SketchCommand::Rename { from, to } => next.rename(from, to)?,
            SketchCommand::Delete { name } => next.delete(name)?,
            SketchCommand::Title { title } => next.title = title.clone(),
        }
        next.keep_fitting_omegas(None);
        Ok(next)
    }

    /// Keeps the stated angular velocities that fit together at the pose, `first` before
    /// the others (the one just set), the others in bar order: a pose changed under them,
    /// or a new rate, may leave stated rates the constraints do not allow together; the
    /// rest are completed when the scene loads.
    fn keep_fitting_omegas(&mut self, first: Option<usize>) {
        if self.bars.iter().all(|b| b.omega.is_none()) || super::sketch_scene(self).is_ok() {
            return;
        }
        let stated: Vec<(usize, f64)> = first
            .into_iter()
            .chain((0..self.bars.len()).filter(|&b| Some(b) != first))
            .filter_map(|b| Some((b, self.bars[b].omega?)))
            .collect();
        for bar in &mut self.bars {
            bar.omega = None;
        }
        for (bar, omega) in stated {
            self.bars[bar].omega = Some(omega);
            if super::sketch_scene(self).is_err() {
                self.bars[bar].omega = None;
            }
        }
    }

    /// The sketch with point `point` sliding in bar `bar` (or in none), re-assembled.
    fn slid_in(&self, point: usize, bar: Option<&str>) -> Result<Sketch, SketchError> {
        let mut next = self.clone();
        let Some(bar) = bar else {
            next.points[point].slot = None;
            return Ok(next);
        };
        let index = self.bar(bar)?;
        let refuse = |why| SketchError::BadSlot {
            point: self.points[point].name.clone(),
            bar: bar.to_owned(),
            why,
        };
        if self.bars[index].carries(point) {
            return Err(refuse("the point is on that bar already"));
        }
        if self.bars_at(point).is_empty() {
            return Err(refuse("no bar goes through the point to carry the pin"));
        }
        let p = &mut next.points[point];
        p.slot = Some(bar.to_owned());
        p.ground = false;
        p.guide = None;
        let what = format!("\"{}\" cannot reach bar \"{bar}\"'s axis", p.name);
        assemble::settled(next, what)
    }

    fn point(&self, name: &str) -> Result<usize, SketchError> {
        self.point_index(name)
            .ok_or_else(|| SketchError::UnknownPoint(name.to_owned()))
    }

    fn bar(&self, name: &str) -> Result<usize, SketchError> {
        self.bar_index(name)
            .ok_or_else(|| SketchError::UnknownBar(name.to_owned()))
    }

    fn add_bar(&mut self, from: &Place, to: &Place, name: Option<&str>) -> Result<(), SketchError> {
        let name = match name {
            Some(name) => self.free_name(name)?,
            None => self.numbered_name("bar"),
        };
        let start = self.place(from)?;
        let end = self.place(to)?;
        let length = (self.points[end].at - self.points[start].at).norm();
        if length <= SAME_POINT {
            return Err(SketchError::ZeroLength(length));
        }
        if let Some(twin) = self.bars.iter().find(|b| {
            let ends = [b.start, b.end];
            ends == [start, end] || ends == [end, start]
        }) {
            return Err(SketchError::DuplicateBar(twin.name.clone()));
        }
        self.bars.push(SketchBar {
            name,
            start,
            end,
            length,
            mass: MASS_PER_METRE * length,
            along: Vec::new(),
            omega: None,
        });
        Ok(())
    }

    /// The point `place` names, made if new.
    fn place(&mut self, place: &Place) -> Result<usize, SketchError> {
        match place {
            Place::Point(name) => self.point(name),
            Place::At(x, y) => {
                let at = finite_point((*x, *y))?;
                Ok(self.new_point(at))
            }
            Place::OnBar { bar, along } => {
                let index = self.bar(bar)?;
                let b = &self.bars[index];
                if !along.is_finite() || *along < 0.0 || *along > b.length {
                    return Err(SketchError::OffBar {
                        bar: bar.clone(),
                        along: *along,
                        length: b.length,
                    });
                }
                if let Some((point, _)) = b.points().find(|(_, s)| (s - along).abs() <= SAME_POINT)
                {
                    return Ok(point);
                }
                let (a, e) = (self.points[b.start].at, self.points[b.end].at);
                let at = a + (e - a) * (along / b.length);
                let point = self.new_point(at);
                self.bars[index].along.push((point, *along));
                Ok(point)
            }
        }
    }

    fn new_point(&mut self, at: Vector2<f64>) -> usize {
        let name = self.letter_name();
        self.points.push(SketchPoint {
            name,
            at,
            ground: false,
            guide: None,
            mass: None,
            slot: None,
        });
        self.points.len() - 1
    }

    /// `name` if it can name something new.
    fn free_name(&self, name: &str) -> Result<String, SketchError> {
        let bad = |c: char| c == '"' || c == '\\' || c.is_control();
        if !name.chars().any(char::is_alphanumeric) || name.chars().any(bad) || name == "ground" {
            return Err(SketchError::BadName(name.to_owned()));
        }
        if self.name_taken(name) {
            return Err(SketchError::NameTaken(name.to_owned()));
        }
        Ok(name.to_owned())
    }

    fn rename(&mut self, from: &str, to: &str) -> Result<(), SketchError> {
        if from == to {
            return Ok(());
        }
        let to = self.free_name(to)?;
        if let Some(point) = self.point_index(from) {
            self.points[point].name = to;
        } else if let Some(bar) = self.bar_index(from) {
            for point in &mut self.points {
                if point.slot.as_deref() == Some(from) {
                    point.slot = Some(to.clone());
                }
            }
            self.bars[bar].name = to;
        } else {
            return Err(SketchError::UnknownName(from.to_owned()));
        }
        Ok(())
    }

    /// Deletes a point with the bars ending at it, or a bar; then the moving points no bar
    /// holds any more.
    fn delete(&mut self, name: &str) -> Result<(), SketchError> {
        if let Some(point) = self.point_index(name) {
            self.bars.retain(|b| b.start != point && b.end != point);
            self.remove_points(|p| p == point);
        } else if let Some(bar) = self.bar_index(name) {
            self.bars.remove(bar);
            for point in &mut self.points {
                if point.slot.as_deref() == Some(name) {
                    point.slot = None;
                }
            }
        } else {
            return Err(SketchError::UnknownName(name.to_owned()));
        }
        let held: Vec<bool> = (0..self.points.len())
            .map(|p| self.points[p].ground || self.bars.iter().any(|b| b.carries(p)))
            .collect();
        self.remove_points(|p| !held[p]);
        Ok(())
    }

    /// Removes the points `gone` says, from the bars too, renumbering the others.
    fn remove_points(&mut self, gone: impl Fn(usize) -> bool) {
        let mut new_index = vec![None; self.points.len()];
        let mut kept = 0;
        for (p, slot) in new_index.iter_mut().enumerate() {
            if !gone(p) {
                *slot = Some(kept);
                kept += 1;
            }
        }
        let mut index = 0;
        self.points.retain(|_| {
            index += 1;
            new_index[index - 1].is_some()
        });
        for bar in &mut self.bars {
            bar.start = new_index[bar.start].expect("a bar's ends are kept");
            bar.end = new_index[bar.end].expect("a bar's ends are kept");
            bar.along = bar
                .along
                .iter()
                .filter_map(|&(p, s)| Some((new_index[p]?, s)))
                .collect();
        }
    }
}

fn finite_point((x, y): (f64, f64)) -> Result<Vector2<f64>, SketchError> {
    if x.is_finite() && y.is_finite() {
        Ok(Vector2::new(x, y))
    } else {
        Err(SketchError::BadNumber("a position", ""))
    }
}
