//! The scene example of the scene format (docs/scene-format.md) parses and loads (documentation that cannot rot).

use singulab::scene::parse_scene;

#[test]
fn the_documented_scene_example_loads() {
    let readme = include_str!("../../docs/scene-format.md");
    let start = readme.find("```ron\n").expect("a ron block") + "```ron\n".len();
    let length = readme[start..].find("```").expect("closed block");
    let scene = parse_scene("scene-format.md", &readme[start..start + length])
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(scene.mechanism.n(), 15);
    assert_eq!(scene.mechanism.m(), 14);
    assert_eq!(scene.mechanism.loads().len(), 1);
    // B0 moves +x at 1 m/s: crank1's angular rate is -1 rad/s (the stated component).
    assert_eq!(scene.xd0[2], -1.0);
}
