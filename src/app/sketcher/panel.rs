//! The Sketch panel (edit mode's left panel): how to draw, the live counts, the selected
//! point or bar with its numbers to type, and the buttons to play, save and undo.

use bevy_egui::egui::{self, Color32, DragValue, RichText, Ui};

use super::state::Sketcher;
use crate::app::commands::{AppCommand, SketchRequest};
use crate::app::simulation::Live;
use crate::sketch::{Sketch, SketchAnalysis, SketchCommand};

const HOW_TO: &str = "Click: a ground pivot. Drag: a bar, from a point, a bar or anywhere, to \
another. Shift+drag a point: move it (the mechanism follows). Click a point or bar to select \
it. Delete removes the selection; Ctrl+Z / Ctrl+Y undo and redo; Space plays. Middle or \
right drag pans, the wheel zooms.";

pub fn sketch_panel(
    ui: &mut Ui,
    live: &Live,
    sketcher: &mut Sketcher,
    commands: &mut Vec<AppCommand>,
) {
    let mut send = |request| commands.push(AppCommand::Sketch(request));
    egui::ScrollArea::vertical().show(ui, |ui| {
        ui.heading("Edit mode");
        title_field(ui, &sketcher.sketch().title, &mut send);
        ui.label(RichText::new(HOW_TO).small());
        let step = "grid";
        ui.checkbox(&mut sketcher.snap, format!("Snap to the {step}"));
        ui.separator();
        counts(ui, &sketcher.analysis);
        if let Some(refusal) = &sketcher.refusal {
            ui.label(RichText::new(refusal).color(Color32::from_rgb(240, 90, 80)));
        }
        ui.separator();
        let sketch = sketcher.sketch().clone();
        match sketcher.selected.clone() {
            Some(name) if sketch.point_index(&name).is_some() => {
                point_fields(ui, &sketch, &name, &mut send)
            }
            Some(name) if sketch.bar_index(&name).is_some() => {
                bar_fields(ui, &sketch, &name, &mut send)
            }
            _ => {
                ui.label(RichText::new("Nothing selected: click a point or a bar.").weak());
            }
        }
        ui.separator();
        ui.horizontal_wrapped(|ui| {
            if ui.button("▶ Play  (Space)").clicked() {
                send(SketchRequest::Play);
            }
            if ui.button("Undo").on_hover_text("Ctrl+Z").clicked() {
                send(SketchRequest::Undo);
            }
            if ui.button("Redo").on_hover_text("Ctrl+Y").clicked() {
                send(SketchRequest::Redo);
            }
        });
        ui.horizontal_wrapped(|ui| {
            if ui.button("Save  (Ctrl+S)").clicked() {
                send(SketchRequest::SaveHere);
            }
            if ui.button("Save as…").clicked() {
                send(SketchRequest::SaveDialog);
            }
            if ui.button("Leave  (E)").clicked() {
                send(SketchRequest::Leave);
            }
        });
        ui.label(
            RichText::new(format!("File: {}", live.path.display()))
                .small()
                .weak(),
        );
    });
}

/// The banner over the canvas in edit mode: what is drawn and how to go on, or why the
/// last edit was refused.
pub fn edit_banner_text(sketcher: &Sketcher) -> String {
    if let Some(refusal) = &sketcher.refusal {
        return format!("Refused: {refusal}");
    }
    let sketch = sketcher.sketch();
    let counts = match &sketcher.analysis {
        Ok(a) if !sketch.bars.is_empty() => format!(
            "{} bars, dof {}, redundancy p = {}{}. ",
            sketch.bars.len(),
            a.dof,
            a.redundancy,
            if a.singular { ", singular pose" } else { "" }
        ),
        Ok(_) => String::new(),
        Err(e) => format!("{e}. "),
    };
    format!(
        "Edit mode: {}. {counts}Click places a ground pivot, a drag draws a bar, Shift+drag pulls a point; Space plays, E leaves.",
        sketch.title
    )
}

/// The counts a lecturer reads beside the drawing.
fn counts(ui: &mut Ui, analysis: &Result<SketchAnalysis, String>) {
    let a = match analysis {
        Ok(a) => a,
        Err(e) => {
            ui.label(RichText::new(e).color(Color32::from_rgb(240, 90, 80)));
            return;
        }
    };
    let big = |text: String| RichText::new(text).size(16.0).strong();
    ui.label(big(format!("n {}   m {}   rank {}", a.n, a.m, a.rank)));
    ui.label(big(format!(
        "dof {}   Grübler n − m {}   p {}",
        a.dof, a.grubler, a.redundancy
    )));
    if a.redundancy > 0 {
        let modes = if a.redundancy == 1 { "mode" } else { "modes" };
        ui.label(format!(
            "Redundant: {} constraint {} the others imply (p = {}); its self-stress {modes} \
             drawn on the mechanism (reactions view).",
            a.redundancy,
            if a.redundancy == 1 { "row" } else { "rows" },
            a.redundancy
        ));
    }
    if a.singular {
        ui.label("Singular pose: the admissible motions are drawn on the mechanism.");
    }
}

/// A number field that edits as it is dragged (one undo step a drag) or typed.
fn number_field(
    ui: &mut Ui,
    value: f64,
    speed: f64,
    suffix: &str,
    send: &mut impl FnMut(SketchRequest),
    command: impl Fn(f64) -> SketchCommand,
) {
    let mut v = value;
    let response = ui.add(
        DragValue::new(&mut v)
            .speed(speed)
            .max_decimals(4)
            .suffix(suffix)
            .update_while_editing(false),
    );
    if response.changed() && v != value {
        if response.dragged() {
            send(SketchRequest::Continue(command(v)));
        } else {
            send(SketchRequest::Edit(command(v)));
        }
    }
    if response.drag_stopped() {
        send(SketchRequest::EndGesture);
    }
}

/// The mechanism's title (the saved file is named after it).
fn title_field(ui: &mut Ui, title: &str, send: &mut impl FnMut(SketchRequest)) {
    ui.horizontal(|ui| {
        ui.label("title");
        let typed = text_field(ui, ("sketch_title", ""), title, 160.0);
        if let Some(title) = typed {
            send(SketchRequest::Edit(SketchCommand::Title { title }));
        }
    });
}

/// A name field: the rename is sent when the field loses focus or Enter is pressed.
fn name_field(ui: &mut Ui, name: &str, send: &mut impl FnMut(SketchRequest)) {
    if let Some(to) = text_field(ui, ("sketch_name", name), name, 120.0) {
        send(SketchRequest::Edit(SketchCommand::Rename {
            from: name.to_owned(),
            to,
        }));
    }
}

/// A one-line text field showing `current`, kept as typed while it has the focus; the text
/// when the field loses the focus (Enter, a click elsewhere) changed.
fn text_field(ui: &mut Ui, salt: (&str, &str), current: &str, width: f32) -> Option<String> {
    let id = ui.id().with(salt);
    let mut text = ui
        .data_mut(|d| d.get_temp::<String>(id))
        .unwrap_or_else(|| current.to_owned());
    let response = ui.add(egui::TextEdit::singleline(&mut text).desired_width(width));
    if response.has_focus() {
        ui.data_mut(|d| d.insert_temp(id, text));
        return None;
    }
    ui.data_mut(|d| d.remove::<String>(id));
    (response.lost_focus() && text != current).then_some(text)
}

fn point_fields(ui: &mut Ui, sketch: &Sketch, name: &str, send: &mut impl FnMut(SketchRequest)) {
    let point = &sketch.points[sketch.point_index(name).expect("selected point")];
    ui.label(RichText::new("Point").strong());
    ui.horizontal(|ui| {
        ui.label("name");
        name_field(ui, name, send);
    });
    let at = point.at;
    let moved = |x: f64, y: f64| SketchCommand::Move {
        point: name.to_owned(),
        to: (x, y),
    };
    ui.horizontal(|ui| {
        ui.label("x");
        number_field(ui, at.x, 0.01, " m", send, |x| moved(x, at.y));
        ui.label("y");
        number_field(ui, at.y, 0.01, " m", send, |y| moved(at.x, y));
    });
    let mut ground = point.ground;
    if ui
        .checkbox(&mut ground, "on the ground (a pivot)")
        .changed()
    {
        send(SketchRequest::Edit(SketchCommand::Ground {
            point: name.to_owned(),
            ground,
        }));
    }
    mass_field(ui, name, point.mass, send);
    guide_field(ui, name, point.guide, send);
    slot_field(ui, sketch, name, point.slot.as_deref(), send);
    if ui
        .button("Delete point (and the bars ending at it)")
        .clicked()
    {
        send(SketchRequest::Edit(SketchCommand::Delete {
            name: name.to_owned(),
        }));
    }
}

/// A point mass at the point (kg), or none.
fn mass_field(ui: &mut Ui, name: &str, mass: Option<f64>, send: &mut impl FnMut(SketchRequest)) {
    let mut carries = mass.is_some();
    ui.horizontal(|ui| {
        if ui.checkbox(&mut carries, "a point mass").changed() {
            send(SketchRequest::Edit(SketchCommand::PointMass {
                point: name.to_owned(),
                mass: carries.then_some(1.0),
            }));
        }
        if let Some(mass) = mass {
            number_field(ui, mass, 0.01, " kg", send, |mass| {
                SketchCommand::PointMass {
                    point: name.to_owned(),
                    mass: Some(mass),
                }
            });
        }
    });
}

/// The ground guide the point slides on (a slider's block) and its angle, or none.
fn guide_field(
    ui: &mut Ui,
    name: &str,
    guide: Option<crate::sketch::Guide>,
    send: &mut impl FnMut(SketchRequest),
) {
    let mut slides = guide.is_some();
    ui.horizontal(|ui| {
        if ui
            .checkbox(&mut slides, "slides on a ground guide")
            .changed()
        {
            send(SketchRequest::Edit(SketchCommand::Slide {
                point: name.to_owned(),
                angle: slides.then_some(0.0),
            }));
        }
        if let Some(guide) = guide {
            number_field(ui, guide.angle.to_degrees(), 0.5, "°", send, |degrees| {
                SketchCommand::Slide {
                    point: name.to_owned(),
                    angle: Some(degrees.to_radians()),
                }
            });
        }
    });
}

/// The bar whose slot the point slides in (a pin in a slot), chosen among the bars not
/// through it.
fn slot_field(
    ui: &mut Ui,
    sketch: &Sketch,
    name: &str,
    slot: Option<&str>,
    send: &mut impl FnMut(SketchRequest),
) {
    let index = sketch.point_index(name).expect("selected point");
    ui.horizontal(|ui| {
        ui.label("slides in the slot of");
        egui::ComboBox::from_id_salt(("slot", name))
            .selected_text(slot.unwrap_or("no bar"))
            .show_ui(ui, |ui| {
                let mut choose = |ui: &mut Ui, bar: Option<&str>| {
                    let text = bar.unwrap_or("no bar");
                    if ui.selectable_label(slot == bar, text).clicked() && slot != bar {
                        send(SketchRequest::Edit(SketchCommand::SlideInBar {
                            point: name.to_owned(),
                            bar: bar.map(str::to_owned),
                        }));
                    }
                };
                choose(ui, None);
                for bar in sketch.bars.iter().filter(|b| !b.carries(index)) {
                    choose(ui, Some(&bar.name));
                }
            });
    });
}

fn bar_fields(ui: &mut Ui, sketch: &Sketch, name: &str, send: &mut impl FnMut(SketchRequest)) {
    let bar = &sketch.bars[sketch.bar_index(name).expect("selected bar")];
    let (start, end) = (
        sketch.points[bar.start].clone(),
        sketch.points[bar.end].clone(),
    );
    ui.label(RichText::new(format!("Bar from {} to {}", start.name, end.name)).strong());
    ui.horizontal(|ui| {
        ui.label("name");
        name_field(ui, name, send);
    });
    let owned = name.to_owned();
    ui.horizontal(|ui| {
        ui.label("length");
        number_field(ui, bar.length, 0.01, " m", send, |length| {
            SketchCommand::Length {
                bar: owned.clone(),
                length,
            }
        });
    });
    let d = end.at - start.at;
    let angle = d.y.atan2(d.x).to_degrees();
    let length = bar.length;
    ui.horizontal(|ui| {
        ui.label("angle");
        number_field(ui, angle, 0.5, "°", send, |degrees| {
            let a = degrees.to_radians();
            SketchCommand::Move {
                point: end.name.clone(),
                to: (start.at.x + length * a.cos(), start.at.y + length * a.sin()),
            }
        });
    });
    ui.horizontal(|ui| {
        ui.label("mass");
        number_field(ui, bar.mass, 0.01, " kg", send, |mass| {
            SketchCommand::Mass {
                bar: owned.clone(),
                mass,
            }
        });
    });
    let mut stated = bar.omega.is_some();
    ui.horizontal(|ui| {
        if ui.checkbox(&mut stated, "initial ω").changed() {
            send(SketchRequest::Edit(SketchCommand::Omega {
                bar: owned.clone(),
                omega: stated.then_some(1.0),
            }));
        }
        if let Some(omega) = bar.omega {
            number_field(ui, omega, 0.05, " rad/s", send, |w| SketchCommand::Omega {
                bar: owned.clone(),
                omega: Some(w),
            });
        }
    });
    ui.label(
        RichText::new("The other bars' rates are completed from the stated ones.")
            .small()
            .weak(),
    );
    if ui.button("Delete bar").clicked() {
        send(SketchRequest::Edit(SketchCommand::Delete {
            name: owned.clone(),
        }));
    }
}
