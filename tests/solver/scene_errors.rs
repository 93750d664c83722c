//! Checks that bad scene files give a clear `SceneError` (never a panic) that names the file,
//! the line and column, the entity at fault and the problem, and that good scenes load.
//!
//! References: every expected line and column was counted by hand in the source strings of
//! this file (each one is double-checked by `text_at`, which reads the source text directly,
//! so a miscount fails loudly instead of silently agreeing with the loader). The expected
//! messages name the file, line and column and the
//! offending body or joint. The positive test's correction size comes from the 1e-4
//! displacement written into its source.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;

use approx::abs_diff_eq;
use nalgebra::DVector;
use singulab::scene::{Scene, SceneError, load_scene, parse_scene};

use crate::common::{SCENES, scene};

const FILE: &str = "test.ron";

/// A valid parallelogram four-bar. Lines (1-based): 5 crank1, 6 coupler, 7 crank2, 10 O1,
/// 11 O2, 12 A, 13 B, 14 the closing `],` of the joints, 15 the closing `)`.
const FOUR_BAR: &str = r#"Scene(
    title: "test four-bar",
    gravity: [0.0, -9.81],
    bodies: [
        Bar(name: "crank1", length: 1.0, mass: 1.0, start: (0.0, 0.0), angle: 1.5707963267948966),
        Bar(name: "coupler", length: 1.0, mass: 1.0, start: (0.0, 1.0), angle: 0.0),
        Bar(name: "crank2", length: 1.0, mass: 1.0, start: (1.0, 0.0), angle: 1.5707963267948966),
    ],
    joints: [
        Pin(name: "O1", body: "crank1", at: Start, ground: (0.0, 0.0)),
        Pin(name: "O2", body: "crank2", at: Start, ground: (1.0, 0.0)),
        Revolute(name: "A", a: "crank1", at_a: End, b: "coupler", at_b: Start),
        Revolute(name: "B", a: "crank2", at_a: End, b: "coupler", at_b: End),
    ],
)"#;

/// The end of `FOUR_BAR`, where sections are appended.
const TAIL: &str = "    ],\n)";

/// `FOUR_BAR` with `from` (which must occur exactly once) replaced by `to`.
fn variant(from: &str, to: &str) -> String {
    variant_of(FOUR_BAR, from, to)
}

fn variant_of(source: &str, from: &str, to: &str) -> String {
    assert_eq!(
        source.matches(from).count(),
        1,
        "test bug: {from:?} must occur once"
    );
    source.replacen(from, to, 1)
}

/// `FOUR_BAR` with extra sections (each line indented by 4) before the closing parenthesis.
fn with_sections(sections: &str) -> String {
    variant(TAIL, &format!("    ],\n{sections})"))
}

/// The source text from 1-based `line` and `column` (characters) to the end of that line,
/// or `None` if there is no such line.
fn text_near(source: &str, line: usize, column: usize) -> Option<String> {
    let text = source.lines().nth(line.checked_sub(1)?)?;
    Some(text.chars().skip(column.saturating_sub(1)).collect())
}

/// `text_near` for positions counted by hand in this file (a miscount is a test bug).
fn text_at(source: &str, line: usize, column: usize) -> String {
    text_near(source, line, column).unwrap_or_else(|| panic!("test bug: no line {line}"))
}

/// Loads `source`, requiring an error (and no panic).
fn load_error(source: &str) -> SceneError {
    match catch_unwind(AssertUnwindSafe(|| parse_scene(FILE, source))) {
        Err(_) => panic!("the loader panicked on a bad scene instead of returning an error"),
        Ok(Ok(_)) => panic!("the bad scene loaded without error:\n{source}"),
        Ok(Err(e)) => e,
    }
}

/// Checks the error's file, position (and that the hand-counted position really is at
/// `token` in the source), entity and message words.
fn check(
    e: &SceneError,
    source: &str,
    (line, column): (usize, usize),
    token: &str,
    entity: Option<&str>,
    words: &[&str],
) {
    assert!(
        text_at(source, line, column).starts_with(token),
        "test bug: {token:?} is not at {line}:{column}"
    );
    assert_eq!(e.file, FILE, "{e}");
    assert_eq!(e.entity.as_deref(), entity, "entity of: {e}");
    for word in words {
        assert!(e.message.contains(word), "{word:?} missing from: {e}");
    }
    assert_eq!(
        (e.line, e.column),
        (line, column),
        "position of: {e}\n(hand count points at {token:?}; the error points at {:?})",
        text_near(source, e.line, e.column)
    );
}

#[test]
fn the_base_scene_loads() {
    let s = parse_scene(FILE, FOUR_BAR).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.mechanism.n(), 9);
    assert_eq!(s.mechanism.m(), 8);
}

#[test]
fn unknown_body_in_a_revolute_names_joint_body_and_field() {
    let src = variant(r#"b: "coupler", at_b: End"#, r#"b: "couplr", at_b: End"#);
    let e = load_error(&src);
    // Line 13, `        Revolute(name: "B", a: "crank2", at_a: End, b: ...`: 8 spaces,
    // `Revolute(` is columns 9-17, `name: "B", ` 18-28, `a: "crank2", ` 29-41,
    // `at_a: End, ` 42-52, so `b:` is at column 53.
    check(
        &e,
        &src,
        (13, 53),
        r#"b: "couplr""#,
        Some(r#"joint "B""#),
        &["unknown body", r#""couplr""#],
    );
}

#[test]
fn unknown_body_in_a_pin_names_joint_body_and_field() {
    let src = variant(r#"body: "crank2""#, r#"body: "crank_2""#);
    let e = load_error(&src);
    // Line 11, `        Pin(name: "O2", body: ...`: `Pin(` 9-12, `name: "O2", ` 13-24, so
    // `body:` is at column 25.
    check(
        &e,
        &src,
        (11, 25),
        r#"body: "crank_2""#,
        Some(r#"joint "O2""#),
        &["unknown body", r#""crank_2""#],
    );
}

#[test]
fn unknown_body_in_a_joint_named_like_a_body_points_at_the_joint() {
    // A joint may share its name with a body (the loader accepts it: checked first).
    let renamed = variant(r#"Pin(name: "O2""#, r#"Pin(name: "crank2""#);
    parse_scene(FILE, &renamed).unwrap_or_else(|e| panic!("{e}"));
    let src = variant_of(
        &renamed,
        r#"body: "crank2", at: Start, ground: (1.0"#,
        r#"body: "crank9", at: Start, ground: (1.0"#,
    );
    let e = load_error(&src);
    // Line 11, `        Pin(name: "crank2", body: ...`: `Pin(` 9-12, `name: "crank2", `
    // 13-28, so `body:` is at column 29 (line 7 is the body "crank2", not at fault).
    check(
        &e,
        &src,
        (11, 29),
        r#"body: "crank9""#,
        Some(r#"joint "crank2""#),
        &["unknown body", r#""crank9""#],
    );
}

#[test]
fn malformed_ron_missing_comma_points_at_the_line() {
    let src = variant(
        r#""coupler", length: 1.0, mass"#,
        r#""coupler", length: 1.0 mass"#,
    );
    let e = load_error(&src);
    // Line 6: `Bar(` 9-12, `name: "coupler", ` 13-29, `length: 1.0 ` 30-41: the parser
    // meets `mass` at column 42 where it expected the comma.
    check(
        &e,
        &src,
        (6, 42),
        "mass: 1.0",
        Some(r#"body "coupler""#),
        &["comma"],
    );
}

#[test]
fn malformed_ron_missing_parenthesis_points_at_the_line() {
    let src = variant("start: (0.0, 1.0), angle", "start: (0.0, 1.0, angle");
    let e = load_error(&src);
    // Line 6: `..., mass: 1.0, ` ends at column 53, `start: ` 54-60, `(0.0, ` 61-66,
    // `1.0, ` 67-71: the parser meets `angle` at column 72 instead of `)`.
    check(
        &e,
        &src,
        (6, 72),
        "angle: 0.0",
        Some(r#"body "coupler""#),
        &["closing", ")"],
    );
}

/// Crank2's mass replaced by `value`: line 7, `Bar(` 9-12, `name: "crank2", ` 13-28,
/// `length: 1.0, ` 29-41, so `mass:` is at column 42.
fn bad_mass(value: &str, words: &[&str]) {
    let src = variant(
        "mass: 1.0, start: (1.0, 0.0)",
        &format!("mass: {value}, start: (1.0, 0.0)"),
    );
    let e = load_error(&src);
    check(&e, &src, (7, 42), "mass:", Some(r#"body "crank2""#), words);
}

#[test]
fn zero_mass() {
    bad_mass("0.0", &["mass", "positive"]);
}

#[test]
fn negative_mass() {
    bad_mass("-2.0", &["mass", "positive", "-2"]);
}

#[test]
fn tiny_negative_mass_in_exponent_form() {
    // Not `-0.00000000000000000001`.
    bad_mass("-1e-20", &["mass", "positive", "got -1e-20"]);
}

#[test]
fn nan_mass() {
    bad_mass("NaN", &["mass", "finite", "NaN"]);
}

#[test]
fn infinite_mass() {
    bad_mass("inf", &["mass", "finite", "inf"]);
}

/// The coupler's length replaced by `value`: line 6, `name: "coupler", ` is 13-29, so
/// `length:` is at column 30.
fn bad_length(value: &str, words: &[&str]) {
    let src = variant(
        r#""coupler", length: 1.0"#,
        &format!(r#""coupler", length: {value}"#),
    );
    let e = load_error(&src);
    check(
        &e,
        &src,
        (6, 30),
        "length:",
        Some(r#"body "coupler""#),
        words,
    );
}

#[test]
fn zero_length_bar() {
    bad_length("0.0", &["length", "positive"]);
}

#[test]
fn negative_length_bar() {
    bad_length("-1.0", &["length", "positive", "-1"]);
}

#[test]
fn duplicated_body_name_points_at_the_duplicate() {
    let src = variant(r#"name: "crank2", length"#, r#"name: "crank1", length"#);
    let e = load_error(&src);
    // The second "crank1" is the one at fault: line 7, `name:` at column 13 (line 5 holds
    // the first, valid definition).
    check(
        &e,
        &src,
        (7, 13),
        r#"name: "crank1""#,
        Some(r#"body "crank1""#),
        &["name"],
    );
}

#[test]
fn duplicated_joint_name_points_at_the_duplicate() {
    let src = variant(r#"Pin(name: "O2""#, r#"Pin(name: "O1""#);
    let e = load_error(&src);
    // The second "O1" (line 11, `Pin(` 9-12, `name:` at column 13) is the one at fault.
    check(
        &e,
        &src,
        (11, 13),
        r#"name: "O1", body: "crank2""#,
        Some(r#"joint "O1""#),
        &["name"],
    );
}

#[test]
fn bar_with_both_start_and_center() {
    let src = variant(
        "start: (0.0, 1.0), angle: 0.0",
        "start: (0.0, 1.0), center: (0.5, 1.0), angle: 0.0",
    );
    let e = load_error(&src);
    // The whole entry is at fault; the error points at its name (line 6, column 13).
    check(
        &e,
        &src,
        (6, 13),
        r#"name: "coupler""#,
        Some(r#"body "coupler""#),
        &["start", "center"],
    );
}

#[test]
fn geometry_that_cannot_be_assembled() {
    // Ground pivots 3 m apart and 1 m cranks: the crank ends are at least 3 - 1 - 1 = 1 m
    // apart, but the coupler joining them is 0.5 m long. No configuration exists.
    let src = variant("ground: (1.0, 0.0)", "ground: (3.0, 0.0)");
    let src = variant_of(&src, "start: (1.0, 0.0)", "start: (3.0, 0.0)");
    let src = variant_of(
        &src,
        r#""coupler", length: 1.0"#,
        r#""coupler", length: 0.5"#,
    );
    let e = load_error(&src);
    // Whichever joint the loader blames, the error must point at that joint's entry.
    let joints = [
        ("O1", (10, 13)),
        ("O2", (11, 13)),
        ("A", (12, 18)),
        ("B", (13, 18)),
    ];
    let (name, at) = joints
        .iter()
        .find(|(name, _)| e.entity.as_deref() == Some(format!("joint \"{name}\"").as_str()))
        .unwrap_or_else(|| panic!("the error does not name a joint: {e}"));
    check(
        &e,
        &src,
        *at,
        &format!("name: \"{name}\""),
        e.entity.as_deref(),
        &["assembled"],
    );
}

/// The shipped A02 scene's text. Its joints are on lines 16 (O1) to 22 (B2): `Pin(name:` puts
/// a pin's name at column 13, `Revolute(name:` a revolute's at 18.
fn a02_source() -> String {
    std::fs::read_to_string(crate::common::scene_path("double_four_bar")).expect("A02 scene")
}

/// A02 with `from` replaced by `to` must fail to assemble and blame `joint` at `at`.
fn assembly_blames(from: &str, to: &str, joint: &str, at: (usize, usize)) {
    let src = variant_of(&a02_source(), from, to);
    let e = load_error(&src);
    let entity = format!("joint \"{joint}\"");
    check(
        &e,
        &src,
        at,
        &format!("name: \"{joint}\""),
        Some(entity.as_str()),
        &["cannot be assembled", "largest residual as written"],
    );
}

#[test]
fn a_misplaced_pin_is_blamed_not_the_joint_newton_left_worst() {
    // O3's ground point 3 m right of crank3's written start: as written, O3 is 3 m off and
    // every other joint closes. (Newton spread the error; the loader blamed B2.)
    assembly_blames("ground: (2.0, 0.0)", "ground: (5.0, 0.0)", "O3", (18, 13));
}

#[test]
fn a_crank_too_long_is_blamed_at_its_own_joint() {
    // crank3 3 m long, still written from (2, 0) upwards: its start sits on O3, its end at
    // (2, 3), 2 m above coupler2's end, so B2 holds the largest residual as written. (The
    // loader blamed A2, a joint of crank2 and coupler2.)
    assembly_blames(
        r#"Bar(name: "crank3", length: 1.0"#,
        r#"Bar(name: "crank3", length: 3.0"#,
        "B2",
        (22, 18),
    );
}

/// Parallelogram with crank rates -1 and +1 rad/s: the coupler cannot follow (its ends would
/// need horizontal velocities +1 and -1 while it stays 1 m long).
const INCONSISTENT_VELOCITIES: &str = "    velocities: [\n        (body: \"crank1\", omega: -1.0),\n        (body: \"crank2\", omega: 1.0),\n    ],\n";

#[test]
fn stated_velocities_that_violate_the_constraints() {
    let src = with_sections(INCONSISTENT_VELOCITIES);
    let e = load_error(&src);
    // Either rate alone fits; the tie goes to the one stated last, crank2's on line 17,
    // `        (body: "crank2", omega: 1.0),`: 8 spaces and `(body: "crank2", ` put `omega`
    // at column 26.
    check(
        &e,
        &src,
        (17, 26),
        "omega: 1.0",
        Some(r#"velocity of "crank2""#),
        &[
            "velocities",
            "violate",
            "without this `omega` the others fit",
        ],
    );
}

#[test]
fn stated_velocities_error_ignores_a_comment_mentioning_velocities() {
    // Same scene, with a header comment (as every shipped scene has) that mentions the
    // word and a body: the error must still point at crank2's rate, now on line 18.
    let src = format!(
        "// Crank velocities that disagree: (body: \"crank2\", omega: 1.0).\n{}",
        with_sections(INCONSISTENT_VELOCITIES)
    );
    let e = load_error(&src);
    check(
        &e,
        &src,
        (18, 26),
        "omega: 1.0",
        Some(r#"velocity of "crank2""#),
        &["velocities", "violate"],
    );
}

/// A02 with its three crank rates stated (lines 25, 26 and 27, `omega` at column 26).
fn a02_with_crank_rates(rates: [f64; 3]) -> String {
    let [r1, r2, r3] = rates;
    variant_of(
        &a02_source(),
        "        (body: \"crank1\", omega: -1.0),\n",
        &format!(
            "        (body: \"crank1\", omega: {r1:?}),\n        (body: \"crank2\", omega: {r2:?}),\n        (body: \"crank3\", omega: {r3:?}),\n"
        ),
    )
}

#[test]
fn the_stated_rate_that_disagrees_with_the_others_is_named() {
    // A02 written as a parallelogram moves only with equal crank rates. With crank1 and
    // crank2 at -1 rad/s and crank3 at +1, dropping crank3's rate leaves two that fit, while
    // dropping either other one leaves a +1 and a -1 that do not: crank3 is at fault, whether
    // it is stated last or first. (The loader said `largest at joint "O3"` at the list.)
    for (rates, line, body) in [
        ([-1.0, -1.0, 1.0], 27, "crank3"),
        ([1.0, -1.0, -1.0], 25, "crank1"),
        ([-1.0, 1.0, -1.0], 26, "crank2"),
    ] {
        let src = a02_with_crank_rates(rates);
        let e = load_error(&src);
        let entity = format!("velocity of \"{body}\"");
        check(
            &e,
            &src,
            (line, 26),
            "omega:",
            Some(entity.as_str()),
            &["violate", "without this `omega` the others fit"],
        );
        assert!(
            text_at(&src, line, 1).contains(body),
            "test bug: line {line} is not {body}'s"
        );
    }
    // Equal rates fit.
    parse_scene(FILE, &a02_with_crank_rates([-1.0, -1.0, -1.0])).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn gravity_error_ignores_a_comment_mentioning_gravity() {
    // Like scenes/spatial_pendulum.ron, whose header says "gravity along -z".
    let src = format!(
        "// Test scene, gravity along -y.\n{}",
        variant("[0.0, -9.81]", "[0.0, -9.81, 0.0, 1.0]")
    );
    let e = load_error(&src);
    // Line 4 is `    gravity: [...]`.
    check(&e, &src, (4, 5), "gravity:", None, &["gravity", "4"]);
}

#[test]
fn unknown_field_typo() {
    let src = variant(r#""coupler", length: 1.0"#, r#""coupler", lenght: 1.0"#);
    let e = load_error(&src);
    // Line 6, column 30 (as for `length` above).
    check(
        &e,
        &src,
        (6, 30),
        "lenght",
        Some(r#"body "coupler""#),
        &["lenght"],
    );
}

#[test]
fn three_component_point_mass_in_a_planar_scene() {
    let src = r#"Scene(
    title: "planar point",
    gravity: [0.0, -9.81],
    bodies: [
        Point(name: "bob", mass: 1.0, position: [1.0, 0.0, 0.0]),
    ],
)"#;
    let e = load_error(src);
    // Line 5: `Point(` 9-14, `name: "bob", ` 15-27, `mass: 1.0, ` 28-38: `position:` at 39.
    check(
        &e,
        src,
        (5, 39),
        "position:",
        Some(r#"body "bob""#),
        &["3 components", "2-dimensional"],
    );
}

#[test]
fn three_component_bar_start_in_a_planar_scene() {
    let src = variant("start: (0.0, 1.0), angle", "start: (0.0, 1.0, 0.0), angle");
    let e = load_error(&src);
    // Line 6: the third component `0.0` is at column 72 (see the missing-parenthesis case).
    check(
        &e,
        &src,
        (6, 72),
        "0.0), angle",
        Some(r#"body "coupler""#),
        &[")"],
    );
}

#[test]
fn torque_on_a_point_mass() {
    let src = r#"Scene(
    title: "torque on a point",
    gravity: [0.0, -9.81],
    bodies: [
        Point(name: "bob", mass: 1.0, position: [1.0, 0.0]),
    ],
    loads: [
        Torque(name: "spin", body: "bob", torque: 2.0),
    ],
)"#;
    let e = load_error(src);
    // Line 8: `Torque(` 9-15, `name: "spin", ` 16-29, so `body:` is at column 30.
    check(
        &e,
        src,
        (8, 30),
        r#"body: "bob""#,
        Some(r#"load "spin""#),
        &["torque", "bar"],
    );
}

#[test]
fn pulse_with_start_but_no_duration() {
    let src = with_sections(
        "    loads: [\n        Torque(name: \"kick\", body: \"crank1\", torque: -20.0, start: 0.5),\n    ],\n",
    );
    let e = load_error(&src);
    // Line 16: the load's entry, `Torque(` 9-15, `name:` at column 16.
    check(
        &e,
        &src,
        (16, 16),
        r#"name: "kick""#,
        Some(r#"load "kick""#),
        &["start", "duration"],
    );
}

#[test]
fn duplicated_or_empty_load_names() {
    let src = with_sections(
        "    loads: [\n        Torque(name: \"kick\", body: \"crank1\", torque: 1.0),\n        Torque(name: \"kick\", body: \"crank2\", torque: 1.0),\n    ],\n",
    );
    // Line 17 holds the second "kick": `Torque(` 9-15, `name:` at column 16.
    check(
        &load_error(&src),
        &src,
        (17, 16),
        r#"name: "kick", body: "crank2""#,
        Some(r#"load "kick""#),
        &["name"],
    );
    let src = with_sections(
        "    loads: [\n        Torque(name: \"\", body: \"crank1\", torque: 1.0),\n    ],\n",
    );
    // Line 16 holds the load: `Torque(` 9-15, `name:` at column 16.
    check(
        &load_error(&src),
        &src,
        (16, 16),
        r#"name: "", body"#,
        Some("load 1"),
        &["this one is empty"],
    );
}

/// Names head the trajectory CSV's columns (`NAME.x`, ...), which are quoted where needed: a
/// comma or a double quote in a name is fine, and errors about such a body still point into
/// its entry.
#[test]
fn names_may_hold_commas_and_double_quotes() {
    // As written in RON, and as loaded.
    for (written, name) in [("a,b", "a,b"), (r#"say \"hi\""#, r#"say "hi""#)] {
        let src = FOUR_BAR.replace("\"coupler\"", &format!("\"{written}\""));
        let s = parse_scene(FILE, &src).unwrap_or_else(|e| panic!("{name:?}: {e}"));
        assert_eq!(s.mechanism.bodies()[1].name, name);
        assert_eq!(s.mechanism.body_index(name), Some(1));
        let bad = variant_of(
            &src,
            "mass: 1.0, start: (0.0, 1.0)",
            "mass: -1.0, start: (0.0, 1.0)",
        );
        // Line 6: `Bar(` 9-12, `name: "coupler", ` 13-29 and `length: 1.0, ` 30-42 put
        // `mass:` at column 43 with the seven letters of "coupler"; the name as written shifts
        // it.
        let column = 43 - "coupler".len() + written.chars().count();
        let entity = format!("body \"{name}\"");
        check(
            &load_error(&bad),
            &bad,
            (6, column),
            "mass: -1.0",
            Some(entity.as_str()),
            &["mass", "positive"],
        );
    }
}

/// A line break or another control character in a name would split or garble the one-line
/// messages that name it: an error at the entry, which is named by its place in the list.
#[test]
fn names_with_line_breaks_are_rejected_at_their_entry() {
    for written in [r"cou\npler", r"cou\rpler", r"cou\tpler"] {
        let src = FOUR_BAR.replace("\"coupler\"", &format!("\"{written}\""));
        let e = load_error(&src);
        // Line 6, the coupler's entry: `Bar(` 9-12, so `name:` is at column 13.
        check(
            &e,
            &src,
            (6, 13),
            &format!("name: \"{written}\""),
            Some("body 2"),
            &["line breaks or other control characters"],
        );
        assert!(
            e.to_string()
                .starts_with("test.ron:6:13: body 2: every body needs a name without"),
            "{e}"
        );
    }
    // Joints too: line 11 holds O2, `Pin(` 9-12, `name:` at column 13.
    let src = variant(r#"Pin(name: "O2""#, r#"Pin(name: "O\n2""#);
    check(
        &load_error(&src),
        &src,
        (11, 13),
        r#"name: "O\n2""#,
        Some("joint 2"),
        &["every joint needs a name", "line breaks"],
    );
}

#[test]
fn missing_file_names_the_path() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("scenes")
        .join("no_such_scene.ron");
    let e = match load_scene(&path) {
        Ok(_) => panic!("a missing file loaded"),
        Err(e) => e,
    };
    let shown = path.display().to_string();
    assert_eq!(e.file, shown);
    assert!(e.to_string().contains(&shown), "{e}");
    assert!(e.message.contains("cannot read"), "{e}");
    assert_eq!((e.line, e.column), (1, 1), "{e}");
}

#[test]
fn display_is_file_line_column_entity_message() {
    let e = SceneError {
        file: "scenes/x.ron".into(),
        line: 12,
        column: 7,
        entity: Some(r#"body "crank1""#.into()),
        message: "mass must be positive".into(),
    };
    assert_eq!(
        e.to_string(),
        r#"scenes/x.ron:12:7: body "crank1": mass must be positive"#
    );
    let e = SceneError { entity: None, ..e };
    assert_eq!(e.to_string(), "scenes/x.ron:12:7: mass must be positive");

    // And a real one, field by field.
    let src = variant(
        "mass: 1.0, start: (1.0, 0.0)",
        "mass: -3.0, start: (1.0, 0.0)",
    );
    let e = load_error(&src);
    assert_eq!(
        e.to_string(),
        format!("{FILE}:7:42: body \"crank2\": {}", e.message)
    );
}

#[test]
fn every_shipped_scene_loads_assembled() {
    for name in SCENES {
        let s: Scene = scene(name);
        let mut c = DVector::from_element(s.mechanism.m(), f64::NAN);
        s.mechanism.residual(0.0, &s.x0, &mut c);
        assert!(
            abs_diff_eq!(c.amax(), 0.0, epsilon = 1e-10),
            "{name}: |c(x0)| = {:.3e}",
            c.amax()
        );
        // The shipped poses are exact: assembly has (almost) nothing to do.
        assert!(s.assembly.correction < 1e-9, "{name}: {:?}", s.assembly);
    }
}

#[test]
fn a_slightly_misplaced_crank_is_assembled() {
    // crank2's pivot end 1e-4 m off its ground pin.
    let src = variant("start: (1.0, 0.0)", "start: (1.0001, 0.0)");
    let s = parse_scene(FILE, &src).unwrap_or_else(|e| panic!("{e}"));
    let correction = s.assembly.correction;
    assert!(
        (1e-5..=1e-3).contains(&correction),
        "assembly moved the poses by {correction:.3e}, expected about 1e-4"
    );
    assert!(
        abs_diff_eq!(s.assembly.initial_residual, 1e-4, epsilon = 1e-9),
        "initial residual {:.3e}, expected 1e-4 (the pin's x offset)",
        s.assembly.initial_residual
    );
    let mut c = DVector::from_element(s.mechanism.m(), f64::NAN);
    s.mechanism.residual(0.0, &s.x0, &mut c);
    assert!(
        abs_diff_eq!(c.amax(), 0.0, epsilon = 1e-12),
        "|c(x0)| = {:.3e}",
        c.amax()
    );
    // The note the app and `run` show names a coordinate of a bar on the moved loop.
    let note = s.assembly_note().expect("assembly moved the positions");
    assert!(note.contains("Newton iterations"), "{note}");
    assert!(
        ["crank1.", "coupler.", "crank2."]
            .iter()
            .any(|b| note.contains(b)),
        "{note}"
    );
    assert!(!note.contains("does not fit"), "{note}");
    // The base scene needs no assembly, and says nothing.
    assert_eq!(parse_scene(FILE, FOUR_BAR).unwrap().assembly_note(), None);
}

#[test]
fn stated_velocities_follow_an_assembled_pose() {
    // The parallelogram's three rates (cranks 4 rad/s, coupler 0) fit the written pose
    // exactly; with crank2's pin 1e-4 m to the right Newton moves the pose and the rates no
    // longer fit it (the loader rejected them): they are adjusted, and the note says by how
    // much.
    let rates = "    velocities: [\n        (body: \"crank1\", omega: 4.0),\n        (body: \"coupler\", omega: 0.0),\n        (body: \"crank2\", omega: 4.0),\n    ],\n";
    let exact = with_sections(rates);
    let s = parse_scene(FILE, &exact).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.assembly.velocity_change, 0.0);
    let moved = variant_of(&exact, "ground: (1.0, 0.0)", "ground: (1.0001, 0.0)");
    let s = parse_scene(FILE, &moved).unwrap_or_else(|e| panic!("{e}"));
    let change = s.assembly.velocity_change;
    assert!((1e-6..1e-2).contains(&change), "velocity change {change:e}");
    let mut a = nalgebra::DMatrix::zeros(s.mechanism.m(), s.mechanism.n());
    s.mechanism.jacobian(&s.x0, &mut a);
    assert!(
        abs_diff_eq!((&a * &s.xd0).amax(), 0.0, epsilon = 1e-9),
        "|A xd| = {:e}",
        (&a * &s.xd0).amax()
    );
    let note = s.assembly_note().expect("assembled");
    assert!(note.contains("velocities were adjusted"), "{note}");
}

#[test]
fn stated_velocities_that_fit_no_pose_are_still_rejected_after_assembly() {
    // Opposite crank rates violate the parallelogram at any pose (|A xd| = 8); a crank angle
    // written to 8 digits makes the loader assemble the pose, and that must not turn the
    // error into an adjustment.
    let rates = "    velocities: [\n        (body: \"crank1\", omega: 4.0),\n        (body: \"crank2\", omega: -4.0),\n    ],\n";
    let src = variant_of(
        &with_sections(rates),
        "start: (1.0, 0.0), angle: 1.5707963267948966",
        "start: (1.0, 0.0), angle: 1.5707963",
    );
    let e = load_error(&src);
    assert!(e.message.contains("violate"), "{e}");
}

#[test]
fn a_pose_far_off_the_joints_is_assembled_with_a_warning() {
    // crank2's ground pin 0.3 m to the right of where the stated pose puts its start: Newton
    // still finds a pose (the coupler is long enough), but not the one written down.
    let src = variant("ground: (1.0, 0.0)", "ground: (1.3, 0.0)");
    let s = parse_scene(FILE, &src).unwrap_or_else(|e| panic!("{e}"));
    assert!(s.assembly.correction > 0.1, "{:?}", s.assembly);
    let note = s.assembly_note().expect("assembly moved the positions");
    assert!(note.contains("does not fit the joints"), "{note}");
}

#[test]
fn rank_tolerance_above_the_detection_tolerance() {
    let src = with_sections("    solver: (rank_tolerance: 1e-4, detection_tolerance: 1e-5),\n");
    let e = load_error(&src);
    // FOUR_BAR's closing `],` of the joints is line 14; the section is line 15, `solver:` at
    // 5, `(` at 13, `rank_tolerance` at 14.
    check(
        &e,
        &src,
        (15, 14),
        "rank_tolerance",
        None,
        &["rank_tolerance", "detection_tolerance"],
    );
}

/// Relative tolerances near 1 make `R` entries that are merely small count as zero (A02 at
/// rank tolerance 0.5 gained 100 J in 2 s), or let every error estimate pass; a smallest
/// Dopri5 step above `dt` would be larger than the largest.
#[test]
fn relative_settings_near_one_are_rejected_at_the_field() {
    let cases = [
        (
            "detection_tolerance: 0.999999",
            "detection_tolerance",
            "at most 0.1",
        ),
        ("rank_tolerance: 0.5", "rank_tolerance", "at most 0.0001"),
        (
            "normal_truncation: 2.0",
            "normal_truncation",
            "at most 0.001",
        ),
        ("dopri_rtol: 1.5", "dopri_rtol", "at most 0.01"),
        ("dopri_min_step: 5.0", "dopri_min_step", "at most 1"),
    ];
    for (setting, field, words) in cases {
        // Another field first, so that the error must point inside the section.
        let src = with_sections(&format!("    solver: (dt: 1e-3, {setting}),\n"));
        let e = load_error(&src);
        // `solver: (dt: 1e-3, ` puts the field at column 24.
        check(&e, &src, (15, 24), field, None, &[field, words]);
    }
}

#[test]
fn run_and_view_errors_point_at_their_field() {
    let src = with_sections("    run: (t_end: 0.0),\n");
    check(
        &load_error(&src),
        &src,
        (15, 11),
        "t_end",
        None,
        &["t_end", "positive"],
    );
    let src = with_sections("    view: (center: (0.5, 0.0), width: -4.5),\n");
    check(
        &load_error(&src),
        &src,
        (15, 32),
        "width",
        None,
        &["width", "positive"],
    );
    // Non-finite numbers are rejected wherever they are written (RON reads NaN and inf).
    for center in ["(NaN, 0.0)", "(0.0, inf)", "(-inf, NaN)"] {
        let src = with_sections(&format!("    view: (width: 4.5, center: {center}),\n"));
        check(
            &load_error(&src),
            &src,
            (15, 24),
            "center",
            None,
            &["center", "finite"],
        );
    }
    let src = with_sections("    view: (width: 4.5, trace: \"crank9\"),\n");
    check(
        &load_error(&src),
        &src,
        (15, 24),
        "trace",
        None,
        &["crank9"],
    );
}

/// The stated initial velocities are held fixed (issue: the rest completed with them held):
/// the simulation starts with them exactly as written, not moved by a rounding projection.
#[test]
fn stated_velocities_start_exactly_as_written() {
    for (name, body, omega) in [
        ("double_four_bar", "crank1", -1.0),
        ("four_bar", "crank1", 4.0),
        ("four_bar", "crank2", 4.0),
        ("modified_2x3", "crank5", -1.0),
    ] {
        let sc = scene(name);
        let index = sc.mechanism.bodies()[sc.mechanism.body_index(body).unwrap()].offset + 2;
        let sim = sc.simulation().unwrap();
        assert_eq!(sim.velocities()[index], omega, "{name}: {body}.omega");
    }
}

/// Two plates on a driven prismatic joint, a knife edge and a free point mass, in the plane
/// without gravity. Lines: 5 base, 6 slide, 7 bob, 10 the prismatic joint H (fields at
/// columns: `name:` 19, `a:` 30, `at_a:` 42, `b:` 60, `at_b:` 71, `axis:` 89), 11 its driver
/// (`driver:` 13, `constant:` 28, `steps:` 44; first step `amplitude:` 57, `start:` 73, `end:`
/// 85; second step `amplitude:` 101, `start:` 118, `end:` 130), 12 the knife edge W (`name:`
/// 19, `body:` 30, `at:` 44, `normal:` 56). On line 5, `Plate(` is 9-14, so `name:` is at 15,
/// `mass:` 29, `inertia:` 40, `center:` 54, `angle:` 74, `points:` 86.
const SLIDER: &str = r#"Scene(
    title: "test slider",
    gravity: [0.0, 0.0],
    bodies: [
        Plate(name: "base", mass: 2.0, inertia: 0.1, center: (0.0, 0.0), angle: 0.0, points: {"Q": (0.0, -0.5)}),
        Plate(name: "slide", mass: 1.0, inertia: 0.01, center: (0.0, 0.0), angle: 0.0, points: {"P": (0.0, 0.5)}),
        Point(name: "bob", mass: 1.0, position: [0.0, 0.0]),
    ],
    joints: [
        Prismatic(name: "H", a: "slide", at_a: Point("P"), b: "base", at_b: Point("Q"), axis: (0.0, 1.0),
            driver: Driver(constant: -1.0, steps: [Step(amplitude: 0.1, start: 1.0, end: 2.0), Step(amplitude: -0.1, start: 3.0, end: 4.0)])),
        KnifeEdge(name: "W", body: "base", at: Center, normal: (0.0, 1.0)),
    ],
)"#;

/// `SLIDER` with `from` (once in it) replaced by `to`.
fn slider(from: &str, to: &str) -> String {
    variant_of(SLIDER, from, to)
}

#[test]
fn plates_prismatic_joint_driver_and_knife_edge_load() {
    use singulab::model::{BodyKind, DriverLaw, JointKind, SmoothStep};
    let s = parse_scene(FILE, SLIDER).unwrap_or_else(|e| panic!("{e}"));
    let mech = &s.mechanism;
    assert_eq!(mech.n(), 8);
    assert_eq!(mech.m(), 4, "prismatic 2, driver 1, knife edge 1");
    assert_eq!(mech.bodies()[0].kind, BodyKind::Plate { inertia: 0.1 });
    let names: Vec<&str> = mech.joints().iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names, ["H", "H.driver", "W"]);
    let JointKind::Driver { axis, law, .. } = &mech.joints()[1].kind else {
        panic!("H.driver is not a driver: {:?}", mech.joints()[1]);
    };
    assert_eq!(axis.as_slice(), [0.0, 1.0]);
    let step = |amplitude, start, end| SmoothStep {
        amplitude,
        start,
        end,
    };
    let want = DriverLaw {
        constant: -1.0,
        steps: vec![step(0.1, 1.0, 2.0), step(-0.1, 3.0, 4.0)],
    };
    assert_eq!(*law, want);
    // The written pose fits: d(0) = (Q - P) . (0, 1) = -0.5 - 0.5.
    assert_eq!(s.assembly.correction, 0.0);
    // A direction of any length is normalised, in b's axes.
    let s = parse_scene(FILE, &slider("axis: (0.0, 1.0)", "axis: (0.0, 3.0)"))
        .unwrap_or_else(|e| panic!("{e}"));
    let JointKind::Prismatic { axis, angle, .. } = &s.mechanism.joints()[0].kind else {
        panic!("H is not prismatic");
    };
    assert_eq!((axis.as_slice(), *angle), ([0.0, 1.0].as_slice(), 0.0));
}

#[test]
fn plates_take_planar_velocities() {
    // The base's rate is stated; the prismatic joint keeps the slide's equal to it.
    let src = variant_of(
        SLIDER,
        "    ],\n)",
        "    ],\n    velocities: [(body: \"base\", vx: 0.1, omega: 0.2)],\n)",
    );
    let s = parse_scene(FILE, &src).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((s.xd0[0], s.xd0[2]), (0.1, 0.2));
    assert!(abs_diff_eq!(s.xd0[5], 0.2, epsilon = 1e-12), "{}", s.xd0);
}

#[test]
fn unknown_body_or_body_without_an_angle_in_a_prismatic_joint() {
    let src = slider(r#"b: "base""#, r#"b: "bse""#);
    check(
        &load_error(&src),
        &src,
        (10, 60),
        r#"b: "bse""#,
        Some(r#"joint "H""#),
        &["unknown body", r#""bse""#],
    );
    let src = slider(r#"a: "slide""#, r#"a: "bob""#);
    check(
        &load_error(&src),
        &src,
        (10, 30),
        r#"a: "bob""#,
        Some(r#"joint "H""#),
        &["point mass", "angle", "Plate"],
    );
    let src = slider(r#"body: "base""#, r#"body: "bob""#);
    check(
        &load_error(&src),
        &src,
        (12, 30),
        r#"body: "bob""#,
        Some(r#"joint "W""#),
        &["point mass", "angle"],
    );
}

#[test]
fn zero_or_non_finite_directions_are_rejected() {
    for (axis, words) in [
        ("(0.0, 0.0)", ["axis", "zero length"]),
        ("(NaN, 1.0)", ["axis", "finite"]),
        ("(0.0, inf)", ["axis", "finite"]),
    ] {
        let src = slider("axis: (0.0, 1.0)", &format!("axis: {axis}"));
        check(
            &load_error(&src),
            &src,
            (10, 89),
            "axis:",
            Some(r#"joint "H""#),
            &words,
        );
    }
    let src = slider("normal: (0.0, 1.0)", "normal: (0.0, -0.0)");
    check(
        &load_error(&src),
        &src,
        (12, 56),
        "normal:",
        Some(r#"joint "W""#),
        &["normal", "zero length"],
    );
}

#[test]
fn points_of_plates_and_bars() {
    let src = slider(r#"at_a: Point("P")"#, r#"at_a: Point("X")"#);
    check(
        &load_error(&src),
        &src,
        (10, 42),
        "at_a:",
        Some(r#"joint "H""#),
        &[r#"unknown point "X""#, r#""P""#],
    );
    let src = slider(r#"at_b: Point("Q")"#, "at_b: End");
    check(
        &load_error(&src),
        &src,
        (10, 71),
        "at_b:",
        Some(r#"joint "H""#),
        &["plate has no start or end"],
    );
    // Offsets work on plates: the same point as "Q".
    let s = parse_scene(
        FILE,
        &slider(r#"at_b: Point("Q")"#, "at_b: Offset(0.0, -0.5)"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.assembly.correction, 0.0);
    // Bars have no named points (line 12 of FOUR_BAR, `at_a:` at column 42).
    let src = variant(
        r#"at_a: End, b: "coupler", at_b: Start"#,
        r#"at_a: Point("A"), b: "coupler", at_b: Start"#,
    );
    check(
        &load_error(&src),
        &src,
        (12, 42),
        "at_a:",
        Some(r#"joint "A""#),
        &["bar has no named points"],
    );
}

#[test]
fn plate_numbers_are_checked_at_their_field() {
    for (from, to, column, token, words) in [
        (
            "inertia: 0.1",
            "inertia: -0.1",
            40,
            "inertia:",
            ["inertia", "positive"],
        ),
        ("mass: 2.0", "mass: NaN", 29, "mass:", ["mass", "finite"]),
        (
            "angle: 0.0, points: {\"Q\"",
            "angle: inf, points: {\"Q\"",
            74,
            "angle:",
            ["angle", "finite"],
        ),
        (
            "(0.0, -0.5)}",
            "(0.0, 1e300)}",
            86,
            "points:",
            ["point \"Q\"", "at most"],
        ),
    ] {
        let src = slider(from, to);
        check(
            &load_error(&src),
            &src,
            (5, column),
            token,
            Some(r#"body "base""#),
            &words,
        );
    }
}

#[test]
fn driver_steps_are_checked_at_their_field() {
    // The second step's fields (line 11): `amplitude:` 101, `start:` 118, `end:` 130.
    for (from, to, column, token, words) in [
        (
            "start: 3.0, end: 4.0",
            "start: 3.0, end: 3.0",
            130,
            "end:",
            ["step 2", "end after it starts"],
        ),
        (
            "start: 3.0, end: 4.0",
            "start: 3.0, end: 2.5",
            130,
            "end:",
            ["step 2", "end after it starts"],
        ),
        (
            "amplitude: -0.1",
            "amplitude: NaN",
            101,
            "amplitude:",
            ["step 2", "finite"],
        ),
        (
            "start: 3.0",
            "start: -inf",
            118,
            "start:",
            ["step 2", "finite"],
        ),
        // A 0.1 m rise in 1e-5 s accelerates at 5.8e9 m/s^2.
        (
            "start: 3.0, end: 4.0",
            "start: 3.0, end: 3.00001",
            130,
            "end:",
            ["step 2", "make it longer"],
        ),
    ] {
        let src = slider(from, to);
        check(
            &load_error(&src),
            &src,
            (11, column),
            token,
            Some(r#"joint "H.driver""#),
            &words,
        );
    }
    let src = slider("constant: -1.0", "constant: NaN");
    check(
        &load_error(&src),
        &src,
        (11, 28),
        "constant:",
        Some(r#"joint "H.driver""#),
        &["constant", "finite"],
    );
}

#[test]
fn too_many_driver_steps() {
    let steps: Vec<String> = (0..1001)
        .map(|k| format!("Step(amplitude: 0.0, start: {k}.0, end: {k}.5)"))
        .collect();
    let src = slider(
        "steps: [Step(amplitude: 0.1, start: 1.0, end: 2.0), Step(amplitude: -0.1, start: 3.0, end: 4.0)]",
        &format!("steps: [{}]", steps.join(", ")),
    );
    check(
        &load_error(&src),
        &src,
        (11, 44),
        "steps:",
        Some(r#"joint "H.driver""#),
        &["1001 steps", "more than 1000"],
    );
}

#[test]
fn a_driver_that_does_not_fit_the_pose_names_the_driver() {
    // d = (Q - P) . axis is -1 m as written; +1 is the sign slip this catches. The error is
    // the driver joint's, located at the law's constant inside H.
    let src = slider("constant: -1.0", "constant: 1.0");
    check(
        &load_error(&src),
        &src,
        (11, 28),
        "constant:",
        Some(r#"joint "H.driver""#),
        &["d(0) = 1 m", "is -1 m", "constant"],
    );
    // A miss of rounding size is assembled like any joint's.
    let s = parse_scene(FILE, &slider("constant: -1.0", "constant: -1.0001"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        abs_diff_eq!(s.assembly.initial_residual, 1e-4, epsilon = 1e-9),
        "{:?}",
        s.assembly
    );
}

#[test]
fn a_joint_named_like_a_driver_is_rejected() {
    let src = slider(r#"KnifeEdge(name: "W""#, r#"KnifeEdge(name: "H.driver""#);
    check(
        &load_error(&src),
        &src,
        (12, 19),
        r#"name: "H.driver""#,
        Some(r#"joint "H.driver""#),
        &["taken by the driver", r#""H""#],
    );
}
