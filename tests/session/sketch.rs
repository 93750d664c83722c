//! The sketcher's model driven by its commands: mechanisms built bar by bar against the
//! shipped scene files (the reference: the same mechanism written by hand), undo and redo,
//! refused edits, and every saved file loading back.

use singulab::scene::{Scene, load_scene, parse_scene};
use singulab::sketch::{
    Place, Sketch, SketchCommand, SketchEditor, SketchError, analyse, scene_text,
};

fn at(x: f64, y: f64) -> Place {
    Place::At(x, y)
}

fn point(name: &str) -> Place {
    Place::Point(name.to_owned())
}

fn bar(from: Place, to: Place, name: &str) -> SketchCommand {
    SketchCommand::Bar {
        from,
        to,
        name: Some(name.to_owned()),
    }
}

fn pivot(x: f64, y: f64) -> SketchCommand {
    SketchCommand::GroundPivot { at: (x, y) }
}

fn omega(bar: &str, omega: f64) -> SketchCommand {
    SketchCommand::Omega {
        bar: bar.to_owned(),
        omega: Some(omega),
    }
}

fn apply_all(editor: &mut SketchEditor, commands: &[SketchCommand]) {
    for command in commands {
        editor
            .apply(command)
            .unwrap_or_else(|e| panic!("{command:?}: {e}"));
    }
}

/// The saved file of `sketch`, loaded back (every test's sketch goes through this).
fn saved(sketch: &Sketch) -> Scene {
    let text = scene_text(sketch);
    parse_scene("sketch.ron", &text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// The four-bar of `scenes/four_bar.ron` as a lecturer draws it: two pivots, a crank up, the
/// coupler across, the second crank down onto the coupler's end; the shipped rates.
fn four_bar_commands() -> Vec<SketchCommand> {
    vec![
        pivot(0.0, 0.0),
        pivot(1.0, 0.0),
        bar(point("O1"), at(0.0, 1.0), "crank1"),
        bar(point("A"), at(1.0, 1.0), "coupler"),
        bar(point("O2"), point("B"), "crank2"),
        omega("crank1", 4.0),
        omega("coupler", 0.0),
        omega("crank2", 4.0),
    ]
}

#[test]
fn the_four_bar_drawn_bar_by_bar_runs_exactly_as_the_shipped_file() {
    let mut editor = SketchEditor::default();
    apply_all(&mut editor, &four_bar_commands());
    let drawn = saved(editor.sketch());
    let shipped = load_scene("scenes/four_bar.ron".as_ref()).expect("shipped scene");
    let counts = analyse(editor.sketch()).expect("analysis");
    assert_eq!(
        (
            counts.n,
            counts.m,
            counts.rank,
            counts.dof,
            counts.redundancy
        ),
        (9, 8, 8, 1, 0)
    );
    assert_eq!(drawn.mechanism.n(), shipped.mechanism.n());
    assert_eq!(drawn.mechanism.m(), shipped.mechanism.m());
    let mut a = drawn.simulation().expect("simulation");
    let mut b = shipped.simulation().expect("simulation");
    let bits = |v: &nalgebra::DVector<f64>| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(a.positions()), bits(b.positions()));
    assert_eq!(bits(a.velocities()), bits(b.velocities()));
    // 2 s at the file's 1 ms step.
    for step in 0..2000 {
        a.step().expect("drawn step");
        b.step().expect("shipped step");
        assert_eq!(
            bits(a.positions()),
            bits(b.positions()),
            "positions, step {step}"
        );
        assert_eq!(
            bits(a.velocities()),
            bits(b.velocities()),
            "velocities, step {step}"
        );
    }
}

#[test]
fn the_third_crank_makes_the_modified_double_four_bar_redundant() {
    let mut editor = SketchEditor::default();
    apply_all(
        &mut editor,
        &[
            pivot(0.0, 0.0),
            pivot(1.0, 0.0),
            pivot(2.0, 0.0),
            bar(point("O1"), at(0.0, 1.0), "crank1"),
            bar(point("A"), at(2.0, 1.0), "coupler"),
            bar(point("O3"), point("B"), "crank3"),
        ],
    );
    let before = analyse(editor.sketch()).expect("analysis");
    assert_eq!(
        (before.n, before.m, before.rank, before.redundancy),
        (9, 8, 8, 0)
    );
    assert!(before.self_stress.is_empty());
    // The middle crank onto the coupler's middle (1 m along it).
    let onto_middle = Place::OnBar {
        bar: "coupler".into(),
        along: 1.0,
    };
    apply_all(&mut editor, &[bar(point("O2"), onto_middle, "crank2")]);
    let after = analyse(editor.sketch()).expect("analysis");
    // Masarati, Quro and Zanoni 2023, sect. 3.3: m = n = 12, rank 11, one redundant row.
    assert_eq!(
        (after.n, after.m, after.rank, after.dof, after.redundancy),
        (12, 12, 11, 1, 1)
    );
    assert_eq!(after.grubler, 0);
    let shipped = load_scene("scenes/modified_double_four_bar.ron".as_ref()).expect("shipped");
    assert_eq!(after.n, shipped.mechanism.n());
    assert_eq!(after.m, shipped.mechanism.m());
    // The self-stress (statics of the pose, no load): each crank is a two-force member, so
    // at the parallelogram pose it pushes on the coupler vertically; the coupler's balance of
    // forces and of moments about its start (cranks at 0, 1 and 2 m) leaves f1 : f2 : f3 =
    // 1 : -2 : 1. So the mode holds the vertical rows (`#2`) only, the pins in that ratio.
    let mode = &after.self_stress[0];
    assert!(mode.iter().all(|(row, _)| row.ends_with("#2")), "{mode:?}");
    let share = |joint: &str| {
        mode.iter()
            .find(|(row, _)| row == joint)
            .map_or(0.0, |(_, v)| *v)
    };
    let (f1, f2, f3) = (share("O1#2"), share("O2#2"), share("O3#2"));
    assert!(f1.abs() > 0.1, "{mode:?}");
    assert!(
        (f2 / f1 + 2.0).abs() < 1e-9 && (f3 / f1 - 1.0).abs() < 1e-9,
        "{mode:?}"
    );
    saved(editor.sketch());
}

#[test]
fn undo_and_redo_go_through_every_edit_and_back() {
    let commands = four_bar_commands();
    let mut editor = SketchEditor::default();
    let mut states = vec![editor.sketch().clone()];
    for command in &commands {
        editor.apply(command).expect("edit");
        states.push(editor.sketch().clone());
    }
    for state in states.iter().rev().skip(1) {
        assert!(editor.undo());
        assert_eq!(editor.sketch(), state);
    }
    assert!(!editor.undo(), "nothing before the empty sketch");
    for state in states.iter().skip(1) {
        assert!(editor.redo());
        assert_eq!(editor.sketch(), state);
    }
    assert!(!editor.redo());
    // A new edit after an undo drops the redo history.
    editor.undo();
    editor.apply(&omega("crank2", -1.0)).expect("edit");
    assert!(!editor.redo());
    saved(editor.sketch());
}

/// Every bar as long as it says, within `tolerance`.
fn assert_assembled(sketch: &Sketch, tolerance: f64) {
    for bar in &sketch.bars {
        let span = (sketch.points[bar.end].at - sketch.points[bar.start].at).norm();
        assert!(
            (span - bar.length).abs() < tolerance,
            "{}: {span} m between its ends, {} m long",
            bar.name,
            bar.length
        );
    }
}

#[test]
fn a_point_moved_within_reach_takes_the_mechanism_with_it() {
    let mut editor = SketchEditor::default();
    apply_all(&mut editor, &four_bar_commands());
    // Crank 1's tip on its circle: the parallelogram follows.
    let angle = 1.2_f64;
    let to = (angle.cos(), angle.sin());
    editor
        .apply(&SketchCommand::Move {
            point: "A".into(),
            to,
        })
        .expect("a move within reach");
    let sketch = editor.sketch();
    let a = sketch.points[sketch.point_index("A").unwrap()].at;
    assert!(
        (a.x - to.0).abs() < 1e-9 && (a.y - to.1).abs() < 1e-9,
        "{a}"
    );
    assert_assembled(sketch, 1e-9);
    // The pivots stay.
    assert_eq!(sketch.points[0].at, nalgebra::Vector2::new(0.0, 0.0));
    assert_eq!(sketch.points[1].at, nalgebra::Vector2::new(1.0, 0.0));
    saved(sketch);
}

#[test]
fn a_move_no_pose_allows_is_refused_naming_the_joint() {
    let mut editor = SketchEditor::default();
    apply_all(&mut editor, &four_bar_commands());
    let before = editor.sketch().clone();
    // Crank 1 is 1 m long from O1 at the origin: its tip cannot be 3 m up.
    let refused = editor.apply(&SketchCommand::Move {
        point: "A".into(),
        to: (0.0, 3.0),
    });
    match refused {
        Err(SketchError::CannotAssemble { joint, gap, .. }) => {
            // Held at 3 m, crank 1 would have to be 3 m long: 2 m too long at its tip A.
            assert_eq!(joint, "A");
            assert!((gap - 2.0).abs() < 1e-2, "{gap}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(editor.sketch(), &before, "a refused move changes nothing");
    let message = editor
        .apply(&SketchCommand::Move {
            point: "A".into(),
            to: (0.0, 3.0),
        })
        .unwrap_err()
        .to_string();
    assert!(message.contains("joint \"A\""), "{message}");
}

#[test]
fn a_new_length_reassembles_the_loop() {
    let mut editor = SketchEditor::default();
    apply_all(&mut editor, &four_bar_commands());
    editor
        .apply(&SketchCommand::Length {
            bar: "coupler".into(),
            length: 1.25,
        })
        .expect("a coupler 1.25 m long closes the loop");
    assert_assembled(editor.sketch(), 1e-9);
    let counts = analyse(editor.sketch()).expect("analysis");
    assert_eq!((counts.n, counts.m, counts.rank, counts.dof), (9, 8, 8, 1));
    saved(editor.sketch());
    // Cranks 1 m on pivots 1 m apart: a 3.5 m coupler cannot close the loop.
    let refused = editor.apply(&SketchCommand::Length {
        bar: "coupler".into(),
        length: 3.5,
    });
    assert!(
        matches!(refused, Err(SketchError::CannotAssemble { .. })),
        "{refused:?}"
    );
}

#[test]
fn deleting_a_point_takes_its_bars_and_the_points_left_alone() {
    let mut editor = SketchEditor::default();
    apply_all(&mut editor, &four_bar_commands());
    editor
        .apply(&SketchCommand::Delete { name: "A".into() })
        .expect("delete");
    let sketch = editor.sketch();
    // crank1 and the coupler ended at A; crank2 keeps B; the pivots stay.
    let bars: Vec<&str> = sketch.bars.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(bars, ["crank2"]);
    let points: Vec<&str> = sketch.points.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(points, ["O1", "O2", "B"]);
    saved(sketch);
    assert!(editor.undo());
    assert_eq!(editor.sketch().bars.len(), 3);
}

#[test]
fn a_new_rate_replaces_the_stated_rates_it_contradicts() {
    let mut editor = SketchEditor::default();
    apply_all(&mut editor, &four_bar_commands());
    editor.apply(&omega("crank2", -1.0)).expect("edit");
    let rates: Vec<Option<f64>> = editor.sketch().bars.iter().map(|b| b.omega).collect();
    // On a parallelogram the cranks turn together and the coupler does not turn: crank 1's
    // 4 rad/s contradicts the new -1 rad/s and goes; the coupler's 0 stays.
    assert_eq!(rates, [None, Some(0.0), Some(-1.0)]);
    let scene = saved(editor.sketch());
    let crank1 = scene.mechanism.bodies()[0].offset;
    assert!((scene.xd0[crank1 + 2] + 1.0).abs() < 1e-12, "{}", scene.xd0);
}

#[test]
fn names_are_unique_and_readable() {
    let mut editor = SketchEditor::default();
    apply_all(&mut editor, &four_bar_commands());
    let taken = editor.apply(&SketchCommand::Rename {
        from: "coupler".into(),
        to: "crank1".into(),
    });
    assert_eq!(taken, Err(SketchError::NameTaken("crank1".into())));
    let quoted = editor.apply(&SketchCommand::Rename {
        from: "coupler".into(),
        to: "a\"b".into(),
    });
    assert!(matches!(quoted, Err(SketchError::BadName(_))), "{quoted:?}");
    editor
        .apply(&SketchCommand::Rename {
            from: "coupler".into(),
            to: "rocker link".into(),
        })
        .expect("rename");
    let scene = saved(editor.sketch());
    assert!(scene.mechanism.body_index("rocker link").is_some());
}
