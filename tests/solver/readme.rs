//! The scene example in README.md parses and loads (documentation that cannot rot).

use singulab::scene::parse_scene;

#[test]
fn the_readme_scene_example_loads() {
    let readme = include_str!("../../README.md");
    let start = readme.find("```ron\n").expect("a ron block") + "```ron\n".len();
    let length = readme[start..].find("```").expect("closed block");
    let scene =
        parse_scene("README.md", &readme[start..start + length]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(scene.mechanism.n(), 15);
    assert_eq!(scene.mechanism.m(), 14);
    assert_eq!(scene.mechanism.loads().len(), 1);
    // B0 moves +x at 1 m/s: crank1's angular rate is -1 rad/s (the stated component).
    assert_eq!(scene.xd0[2], -1.0);
}
