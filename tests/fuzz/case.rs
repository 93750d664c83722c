//! A fuzz case: a shipped scene, one to three mutations and the run's extra options, all
//! drawn from the case's own seed, so case N of a stream is the same on every machine and can
//! be replayed alone.

use crate::mutations::{self as m, below, pick};
use crate::structure as s;
use crate::surfaces as f;
use crate::test_rng::Rng;

type Mutate = fn(&mut Vec<u8>, &mut Rng) -> Option<String>;

/// Every mutation kind: its name in reports, its weight in the draw, and the function.
pub const KINDS: &[(&str, u32, Mutate)] = &[
    ("number-extreme", 14, m::number_extreme),
    ("number-scale", 8, m::number_scale),
    ("number-spelling", 5, m::number_spelling),
    ("number-long", 2, m::number_long),
    ("token-delete", 6, m::token_delete),
    ("token-duplicate", 5, m::token_duplicate),
    ("name-swap", 5, m::name_swap),
    ("name-empty", 3, m::name_empty),
    ("name-huge", 2, m::name_huge),
    ("name-escape", 4, m::name_escape),
    ("name-control", 4, m::name_control),
    ("ident-swap", 4, m::ident_swap),
    ("deep-nesting", 2, m::deep_nesting),
    ("byte-order-mark", 2, m::byte_order_mark),
    ("truncate", 4, m::truncate),
    ("invalid-utf8", 2, m::invalid_utf8),
    ("insert-junk", 3, m::insert_junk),
    ("huge-filler", 1, m::huge_filler),
    ("whole-file", 2, m::whole_file),
    ("entry-remove", 5, s::entry_remove),
    ("entry-duplicate", 4, s::entry_duplicate),
    ("element-remove", 4, s::element_remove),
    ("element-duplicate", 4, s::element_duplicate),
    ("field-remove", 4, s::field_remove),
    ("field-duplicate", 2, s::field_duplicate),
    ("field-unknown", 2, s::field_unknown),
    ("settings", 12, s::settings),
    ("add-load", 5, s::add_load),
    ("many-bodies", 1, s::many_bodies),
    ("surface-field", 12, f::surface_field),
    ("lesson-actions", 3, f::lesson_actions),
    ("lesson-field", 1, f::lesson_field),
];

/// Of a lesson's mutations, how many in 8 are drawn from the lesson kinds alone (the rest from
/// every kind, so lessons also get the token-level mutations).
const LESSON_BOOST: usize = 4;

/// One applied mutation.
#[derive(Clone, Debug)]
pub struct Mutation {
    pub kind: &'static str,
    pub detail: String,
}

/// A generated case.
pub struct Case {
    pub index: u64,
    /// The shipped scene it starts from (file name).
    pub scene: String,
    pub text: Vec<u8>,
    /// For a lesson: the scene it names (file name, text), written beside its folder.
    pub lesson_scene: Option<(String, Vec<u8>)>,
    pub mutations: Vec<Mutation>,
    /// Options after `run case.ron --t-end 0.02 --out out.csv --events events.csv`.
    pub extra_args: Vec<String>,
    /// Options after `analyze case.ron` for the second run of a scene (none for a lesson).
    pub analyze_args: Option<Vec<String>>,
}

impl Case {
    /// `scene: kind (detail); kind (detail)` and the extra options.
    pub fn describe(&self) -> String {
        let mutations: Vec<String> = self
            .mutations
            .iter()
            .map(|m| format!("{} ({})", m.kind, m.detail))
            .collect();
        let mut text = format!("{}: {}", self.scene, mutations.join("; "));
        if !self.extra_args.is_empty() {
            text += &format!(" [{}]", self.extra_args.join(" "));
        }
        if let Some(args) = &self.analyze_args {
            text += &format!(" [analyze {}]", args.join(" "));
        }
        text
    }
}

/// The seed of case `index` of the stream `seed` (splitmix64's finalizer, so neighbouring
/// cases share nothing).
fn case_seed(seed: u64, index: u64) -> u64 {
    let mut z = seed ^ index.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn draw_kind(rng: &mut Rng) -> (&'static str, Mutate) {
    let total: u32 = KINDS.iter().map(|k| k.1).sum();
    let mut ticket = below(rng, total as usize) as u32;
    for &(name, weight, mutate) in KINDS {
        if ticket < weight {
            return (name, mutate);
        }
        ticket -= weight;
    }
    unreachable!("the tickets cover the weights")
}

fn draw_lesson_kind(rng: &mut Rng) -> (&'static str, Mutate) {
    if below(rng, 2) == 0 {
        ("lesson-field", f::lesson_field)
    } else {
        ("lesson-actions", f::lesson_actions)
    }
}

/// The file name of the scene a shipped lesson names (`scene: "../NAME.ron"`).
pub fn named_scene(lesson: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(lesson);
    let after = &text[text.find("scene:")? + "scene:".len()..];
    let quoted = after.split('"').nth(1)?;
    Some(quoted.rsplit('/').next()?.to_string())
}

/// Case `index` of stream `seed`, from the shipped `scenes` and `lessons` (file name, text):
/// one case in four is a lesson's.
pub fn generate(
    seed: u64,
    index: u64,
    scenes: &[(String, Vec<u8>)],
    lessons: &[(String, Vec<u8>)],
) -> Case {
    let mut rng = Rng::new(case_seed(seed, index));
    let is_lesson = !lessons.is_empty() && below(&mut rng, 4) == 0;
    let (scene, original) = pick(&mut rng, if is_lesson { lessons } else { scenes });
    let lesson_scene = is_lesson.then(|| {
        let name = named_scene(original).expect("a shipped lesson names its scene");
        let text = scenes
            .iter()
            .find(|(file, _)| *file == name)
            .unwrap_or_else(|| panic!("lesson {scene} names {name}, which is not shipped"));
        text.clone()
    });
    let mut text = original.clone();
    let wanted = *pick(&mut rng, &[1, 1, 1, 1, 1, 1, 2, 2, 2, 3]);
    let mut mutations = Vec::new();
    // A kind that finds nothing to change (no string left after a truncation) draws again.
    for _ in 0..20 {
        if mutations.len() == wanted {
            break;
        }
        let (kind, mutate) = if is_lesson && below(&mut rng, 8) < LESSON_BOOST {
            draw_lesson_kind(&mut rng)
        } else {
            draw_kind(&mut rng)
        };
        if let Some(detail) = mutate(&mut text, &mut rng) {
            mutations.push(Mutation { kind, detail });
        }
    }
    Case {
        index,
        scene: scene.clone(),
        text,
        mutations,
        extra_args: extra_args(&mut rng, is_lesson),
        analyze_args: (!is_lesson).then(|| analyze_args(&mut rng)),
        lesson_scene,
    }
}

/// `analyze` as text or JSON, at the start or into the run.
fn analyze_args(rng: &mut Rng) -> Vec<String> {
    let mut args = Vec::new();
    if below(rng, 2) == 0 {
        args.push("--json".into());
    }
    if below(rng, 3) == 0 {
        args.extend(["--time".into(), "0.01".into()]);
    }
    args
}

/// Most cases run at the scene's own settings; some with Dopri5, another step, the
/// traditional basis or the zeroth-order predictor.
fn extra_args(rng: &mut Rng, is_lesson: bool) -> Vec<String> {
    let mut args = Vec::new();
    // A lesson plays to its own t_end in one case in eight, so waits and events that never
    // come meet the lesson's end; else to a short end, so that a mutated t_end of hours does
    // not make an honest long run look like a hang.
    if is_lesson && below(rng, 8) != 0 {
        let t_end = *pick(rng, &["0.05", "0.3", "1"]);
        args.extend(["--t-end".into(), t_end.into()]);
    }
    if below(rng, 6) == 0 {
        args.extend(["--integrator".into(), "dopri5".into()]);
    }
    if below(rng, 8) == 0 {
        let dt = *pick(rng, &["1e-2", "3e-3", "1e-4", "5e-5", "0.015"]);
        args.extend(["--dt".into(), dt.into()]);
    }
    if below(rng, 16) == 0 {
        args.extend(["--basis".into(), "traditional".into()]);
    }
    if below(rng, 16) == 0 {
        args.extend(["--predictor".into(), "zeroth".into()]);
    }
    // The reactions take their own path through the model (planar sites, spatial frames).
    if !is_lesson && below(rng, 4) == 0 {
        args.extend(["--reactions".into(), "reactions.csv".into()]);
    }
    args
}
