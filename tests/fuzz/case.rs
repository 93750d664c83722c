//! A fuzz case: a shipped scene, one to three mutations and the run's extra options, all
//! drawn from the case's own seed, so case N of a stream is the same on every machine and can
//! be replayed alone.

use crate::mutations::{self as m, below, pick};
use crate::structure as s;
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
];

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
    pub mutations: Vec<Mutation>,
    /// Options after `run case.ron --t-end 0.02 --out out.csv --events events.csv`.
    pub extra_args: Vec<String>,
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

/// Case `index` of stream `seed`, from the shipped `scenes` (file name, text).
pub fn generate(seed: u64, index: u64, scenes: &[(String, Vec<u8>)]) -> Case {
    let mut rng = Rng::new(case_seed(seed, index));
    let (scene, original) = pick(&mut rng, scenes);
    let mut text = original.clone();
    let wanted = *pick(&mut rng, &[1, 1, 1, 1, 1, 1, 2, 2, 2, 3]);
    let mut mutations = Vec::new();
    // A kind that finds nothing to change (no string left after a truncation) draws again.
    for _ in 0..20 {
        if mutations.len() == wanted {
            break;
        }
        let (kind, mutate) = draw_kind(&mut rng);
        if let Some(detail) = mutate(&mut text, &mut rng) {
            mutations.push(Mutation { kind, detail });
        }
    }
    Case {
        index,
        scene: scene.clone(),
        text,
        mutations,
        extra_args: extra_args(&mut rng),
    }
}

/// Most cases run at the scene's own settings; some with Dopri5, another step, the
/// traditional basis or the zeroth-order predictor.
fn extra_args(rng: &mut Rng) -> Vec<String> {
    let mut args = Vec::new();
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
    args
}
