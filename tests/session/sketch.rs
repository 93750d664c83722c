//! The sketcher's model driven by its commands: mechanisms built bar by bar against the
//! shipped scene files (the reference: the same mechanism written by hand), undo and redo,
//! refused edits, and every saved file loading back.

use singulab::cli::analyze::analysis_of;
use singulab::scene::{Scene, load_scene, parse_scene};
use singulab::sketch::{
    Place, Sketch, SketchCommand, SketchEditor, SketchError, analyse, scene_text, sketch_of_scene,
};

use crate::common::{PLANAR_SLIDER_CRANK, scene};

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
fn a_dragged_point_goes_as_near_as_the_bars_let_it() {
    let mut editor = SketchEditor::default();
    apply_all(&mut editor, &four_bar_commands());
    // Crank 1's tip A stays on the unit circle about O1 = (0, 0): pulled toward (0.7, 0.9)
    // it ends at the circle's point nearest to it, (0.7, 0.9) / |(0.7, 0.9)|.
    editor
        .apply(&SketchCommand::Drag {
            point: "A".into(),
            toward: (0.7, 0.9),
        })
        .expect("a drag is never refused");
    let sketch = editor.sketch();
    let a = sketch.points[sketch.point_index("A").unwrap()].at;
    let nearest = nalgebra::Vector2::new(0.7, 0.9).normalize();
    assert!((a - nearest).norm() < 1e-6, "{a} vs {nearest}");
    assert_assembled(sketch, 1e-9);
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

/// The shipped linkages the sketcher can draw (bars, pins and revolute joints only).
const DRAWABLE_SCENES: [&str; 6] = [
    "four_bar",
    "double_four_bar",
    "modified_double_four_bar",
    "modified_triple_four_bar",
    "modified_2x2",
    "modified_2x3",
];

fn imported(scene: &Scene) -> Sketch {
    sketch_of_scene(scene).unwrap_or_else(|e| panic!("{}: {e}", scene.file))
}

#[test]
fn the_shipped_linkages_import_and_save_back_with_their_counts_and_pose() {
    for stem in DRAWABLE_SCENES {
        let scene = scene(stem);
        let sketch = imported(&scene);
        let counts = analyse(&sketch).expect("analysis");
        let reference = analysis_of(&scene, None).expect("analysis");
        assert_eq!(
            (counts.n, counts.m, counts.rank),
            (reference.n, reference.m, reference.rank),
            "{stem}"
        );
        let back = saved(&sketch);
        assert_eq!(back.title, scene.title, "{stem}");
        let gap = (&back.x0 - &scene.x0).amax();
        assert!(gap <= 1e-12, "{stem}: x0 moved by {gap:e}");
        let gap = (&back.xd0 - &scene.xd0).amax();
        assert!(gap <= 1e-12, "{stem}: xd0 moved by {gap:e}");
    }
}

#[test]
fn the_four_bar_imports_as_drawn_and_saves_back_bit_for_bit() {
    let scene = scene("four_bar");
    let sketch = imported(&scene);
    let names: Vec<&str> = sketch.points.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["O1", "O2", "A", "B"]);
    let ground: Vec<bool> = sketch.points.iter().map(|p| p.ground).collect();
    assert_eq!(ground, [true, true, false, false]);
    let omegas: Vec<Option<f64>> = sketch.bars.iter().map(|b| b.omega).collect();
    assert_eq!(omegas, [Some(4.0), Some(0.0), Some(4.0)]);
    let mut editor = SketchEditor::default();
    apply_all(&mut editor, &four_bar_commands());
    assert_eq!(
        scene_text(&sketch),
        scene_text(editor.sketch()).replace("Drawn mechanism", "Four-bar linkage")
    );
    let back = saved(&sketch);
    let bits = |v: &nalgebra::DVector<f64>| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&back.x0), bits(&scene.x0));
    assert_eq!(bits(&back.xd0), bits(&scene.xd0));
}

#[test]
fn joints_at_one_place_make_one_point_and_middle_joints_points_along() {
    let sketch = imported(&scene("modified_2x2"));
    let coupler1 = &sketch.bars[sketch.bar_index("coupler1").expect("coupler1")];
    // A1 (crank1's end on coupler1's start) and C1 (crank4's start there): one point.
    let a1 = sketch.point_index("A1").expect("A1");
    assert_eq!(coupler1.start, a1);
    assert_eq!(sketch.bars_at(a1).len(), 3);
    assert!(sketch.point_index("C1").is_none());
    let a2 = sketch.point_index("A2").expect("A2");
    assert_eq!(coupler1.along, [(a2, 1.0)]);
    assert_eq!(sketch.bars_at(a2).len(), 3);
    assert_eq!(sketch.points.len(), 9);
}

#[test]
fn a_crank_written_past_a_turn_comes_back_within_one() {
    // four_bar_stopping writes its cranks at 3 pi / 2; the sketch keeps points, so the saved
    // file writes the same pose at -pi / 2.
    let scene = scene("four_bar_stopping");
    let back = saved(&imported(&scene));
    let turns = (&back.x0 - &scene.x0) / std::f64::consts::TAU;
    assert!((turns[2] + 1.0).abs() <= 1e-12, "{}", turns[2]);
    let wrapped = turns.map(|t| t - t.round());
    assert!(wrapped.amax() <= 1e-12);
    assert!((&back.xd0 - &scene.xd0).amax() <= 1e-12);
}

#[test]
fn scenes_the_sketcher_cannot_draw_are_refused_naming_the_culprit() {
    let cases = [
        ("mobile_robot", "body \"platform\" is a plate"),
        ("slider_crank", "body \"crank\" is a rigid body"),
        ("spin_top", "body \"top\" is a rigid body"),
        // A planar point mass is drawn only hinged to a bar; a rod of fixed length is not one.
        ("planar_pendulum", "joint \"link\" is a distance joint"),
        ("redundant_pendulum", "is a distance joint"),
        ("spatial_pendulum", "body \"bob\" is a spatial point mass"),
    ];
    for (stem, culprit) in cases {
        let error = sketch_of_scene(&scene(stem)).expect_err(stem);
        let message = error.to_string();
        assert!(message.contains(culprit), "{stem}: {message}");
    }
}

/// The shipped four-bar's text with `from` replaced by `to`, loaded; only crank1's rate
/// stated unless `from` is another's.
fn four_bar_with(from: &str, to: &str) -> Scene {
    let mut text = std::fs::read_to_string("scenes/four_bar.ron").expect("shipped scene");
    assert!(text.contains(from), "{from}");
    text = text.replace(from, to);
    for rate in ["coupler\", omega: 0.0", "crank2\", omega: 4.0"] {
        text = text.replace(&format!("        (body: \"{rate}),\n"), "");
    }
    parse_scene("edited.ron", &text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

#[test]
fn joints_loads_and_gravity_the_sketcher_lacks_are_refused() {
    let prismatic = four_bar_with(
        "Revolute(name: \"B\", a: \"crank2\", at_a: End, b: \"coupler\", at_b: End)",
        "Prismatic(name: \"H\", a: \"crank2\", at_a: End, b: \"coupler\", at_b: End, axis: (1.0, 0.0))",
    );
    let cases = [
        (prismatic, "joint \"H\" is a prismatic joint"),
        (
            four_bar_with("at_b: End)", "at_b: Offset(0.5, 0.25))"),
            "joint \"B\" holds bar \"coupler\" off its axis",
        ),
        (
            four_bar_with(
                "velocities: [",
                "loads: [Torque(name: \"motor\", body: \"crank1\", torque: 1.0)],\n    velocities: [",
            ),
            "bar \"crank1\" carries a torque",
        ),
        (
            four_bar_with("gravity: [0.0, -9.81]", "gravity: [0.0, 0.0]"),
            "this scene's is (0, 0)",
        ),
    ];
    for (scene, culprit) in cases {
        let message = sketch_of_scene(&scene).expect_err(culprit).to_string();
        assert!(message.contains(culprit), "{message}");
    }
}

#[test]
fn a_stated_bar_speed_the_sketch_cannot_hold_gives_every_bar_its_rate() {
    let scene = four_bar_with(
        "(body: \"coupler\", omega: 0.0)",
        "(body: \"coupler\", vx: -4.0)",
    );
    let sketch = imported(&scene);
    assert!(sketch.bars.iter().all(|b| b.omega.is_some()));
    let back = saved(&sketch);
    assert!((&back.xd0 - &scene.xd0).amax() <= 1e-12);
}

#[test]
fn a_saved_sketch_imports_back_as_itself() {
    let mut editor = SketchEditor::default();
    apply_all(&mut editor, &four_bar_commands());
    let sketch = editor.sketch();
    assert_eq!(&imported(&saved(sketch)), sketch);
}

#[test]
fn a_new_drawing_over_an_old_one_is_undone_like_an_edit() {
    let mut editor = SketchEditor::default();
    apply_all(&mut editor, &four_bar_commands());
    let drawn = editor.sketch().clone();
    editor.replace(Sketch::default());
    assert!(editor.sketch().bars.is_empty());
    assert!(editor.undo(), "the old drawing is on the history");
    assert_eq!(editor.sketch(), &drawn);
    assert!(editor.redo());
    assert!(editor.sketch().bars.is_empty());
}

#[test]
fn a_slider_crank_drawn_with_a_guide_runs_as_the_one_written_by_hand() {
    let mut editor = SketchEditor::default();
    apply_all(
        &mut editor,
        &[
            pivot(0.0, 0.0),
            bar(point("O1"), at(0.0, 0.1), "crank"),
            bar(point("A"), at(0.08_f64.sqrt(), 0.0), "rod"),
            SketchCommand::Length {
                bar: "rod".into(),
                length: 0.3,
            },
            SketchCommand::Slide {
                point: "B".into(),
                angle: Some(0.0),
            },
            SketchCommand::Mass {
                bar: "crank".into(),
                mass: 0.12,
            },
            SketchCommand::Mass {
                bar: "rod".into(),
                mass: 0.5,
            },
            omega("crank", 6.0),
        ],
    );
    let counts = analyse(editor.sketch()).expect("analysis");
    assert_eq!(
        (
            counts.n,
            counts.m,
            counts.rank,
            counts.dof,
            counts.redundancy
        ),
        (6, 5, 5, 1, 0)
    );
    let drawn = saved(editor.sketch());
    let written = parse_scene("slider_crank.ron", PLANAR_SLIDER_CRANK).expect("scene");
    let mut a = drawn
        .simulation_with(written.settings.clone())
        .expect("drawn");
    let mut b = written.simulation().expect("written");
    // 0.5 s at 0.1 ms: most of a crank turn. The drawn pose differs from the written one by
    // the rounding of sqrt(0.08) and of the rod's angle, so the runs agree to round-off.
    for step in 0..5000 {
        a.step().expect("drawn step");
        b.step().expect("written step");
        let gap = (a.positions() - b.positions()).amax();
        assert!(gap < 1e-9, "step {step}: {gap:e}");
    }
    // Moved along its guide, the block stays on it.
    editor
        .apply(&SketchCommand::Drag {
            point: "A".into(),
            toward: (0.1, 0.0),
        })
        .expect("drag");
    let sketch = editor.sketch();
    let block = sketch.points[sketch.point_index("B").unwrap()].at;
    assert!(block.y.abs() < 1e-9, "{block}");
    assert_assembled(sketch, 1e-9);
    // Saved and opened for editing again, the block is on its guide still.
    let back = sketch_of_scene(&saved(sketch)).expect("import");
    let guide = back.points[back.point_index("B").unwrap()].guide;
    assert_eq!(guide.map(|g| g.angle), Some(0.0));
}

/// A 1 m, 1 kg bar on a pivot with a 2 kg point mass at its tip, let go horizontal at rest.
/// Energy from the horizontal to the vertical (a one-degree-of-freedom reduction): the bar's
/// centre falls L/2 and the mass L, so omega^2 = 2 g (m_b L/2 + m L) / (m_b L^2/3 + m L^2).
#[test]
fn a_point_mass_on_a_bar_swings_as_the_compound_pendulum() {
    let mut editor = SketchEditor::default();
    apply_all(
        &mut editor,
        &[
            pivot(0.0, 0.0),
            bar(point("O1"), at(1.0, 0.0), "bar"),
            SketchCommand::PointMass {
                point: "A".into(),
                mass: Some(2.0),
            },
        ],
    );
    let counts = analyse(editor.sketch()).expect("analysis");
    assert_eq!((counts.n, counts.m, counts.rank, counts.dof), (5, 4, 4, 1));
    let scene = saved(editor.sketch());
    let mut sim = scene.simulation().expect("simulation");
    let (g, l, m_bar, m): (f64, f64, f64, f64) = (9.81, 1.0, 1.0, 2.0);
    let expected = (2.0 * g * (0.5 * m_bar * l + m * l) / (m_bar * l * l / 3.0 + m * l * l)).sqrt();
    // Step until the bar passes the vertical (theta = -pi/2), interpolating omega there.
    let mut previous = (sim.positions()[2], sim.velocities()[2]);
    let omega = loop {
        sim.step().expect("step");
        let now = (sim.positions()[2], sim.velocities()[2]);
        if now.0 <= -std::f64::consts::FRAC_PI_2 {
            let f = (previous.0 + std::f64::consts::FRAC_PI_2) / (previous.0 - now.0);
            break previous.1 + f * (now.1 - previous.1);
        }
        assert!(sim.time() < 2.0, "no swing");
        previous = now;
    };
    assert!(
        (omega.abs() - expected).abs() < 1e-3 * expected,
        "{omega} vs {expected}"
    );
    // Saved and opened for editing again, the mass is on its point.
    let back = sketch_of_scene(&scene).expect("import");
    assert_eq!(back.points[back.point_index("A").unwrap()].mass, Some(2.0));
    assert_eq!(back.bars.len(), 1);
}

/// The crank and slotted lever of `tests/solver/slider.rs`, drawn: the crank's tip made to
/// slide in the lever. The lever turns to point at the tip (re-assembly), the counts are a
/// one-degree-of-freedom linkage, and the run keeps the lever on the tip.
#[test]
fn a_pin_drawn_in_a_bars_slot_keeps_the_lever_on_the_crank_tip() {
    let mut editor = SketchEditor::default();
    apply_all(
        &mut editor,
        &[
            pivot(0.0, 0.0),
            pivot(0.0, -0.5),
            bar(point("O1"), at(0.2, 0.0), "crank"),
            bar(point("O2"), at(0.0, 0.5), "lever"),
            SketchCommand::SlideInBar {
                point: "A".into(),
                bar: Some("lever".into()),
            },
            omega("crank", 5.0),
        ],
    );
    let counts = analyse(editor.sketch()).expect("analysis");
    assert_eq!((counts.n, counts.m, counts.rank, counts.dof), (6, 5, 5, 1));
    let sketch = editor.sketch();
    let (tip, pivot) = (sketch.points[2].at, sketch.points[1].at);
    let lever = &sketch.bars[1];
    let axis = sketch.points[lever.end].at - pivot;
    let off = (tip - pivot).perp(&axis) / axis.norm();
    assert!(off.abs() < 1e-9, "the tip is {off} m off the lever's axis");
    let scene = saved(sketch);
    let mut sim = scene.simulation().expect("simulation");
    for _ in 0..500 {
        sim.step().expect("step");
    }
    let back = sketch_of_scene(&scene).expect("import");
    assert_eq!(back.points[2].slot.as_deref(), Some("lever"));
    // A renamed lever keeps its slot; a deleted one frees the pin.
    editor
        .apply(&SketchCommand::Rename {
            from: "lever".into(),
            to: "slotted lever".into(),
        })
        .expect("rename");
    assert_eq!(
        editor.sketch().points[2].slot.as_deref(),
        Some("slotted lever")
    );
    saved(editor.sketch());
    editor
        .apply(&SketchCommand::Delete {
            name: "slotted lever".into(),
        })
        .expect("delete");
    assert_eq!(editor.sketch().points[2].slot, None);
}
