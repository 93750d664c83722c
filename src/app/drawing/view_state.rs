//! What the canvas shows and how: the display choices (basis, side by side, theme, motions
//! drawn, reactions, trace), the camera of each view and what the fitting of the view
//! remembers. None of it touches the physics.

use std::collections::BTreeSet;

use bevy::prelude::*;
use nalgebra::DVector;

use super::ghost;
use super::reactions::ReactionCache;
use crate::app::actions::PushControls;
use crate::app::config::ViewConfig;
use crate::live::motions::Motion;
use crate::solver::BasisMode;

/// Display choices: none of them touches the physics.
#[derive(Resource, Clone, Debug)]
pub struct ViewState {
    /// Basis whose `T`, `q`, `qd` are shown (both are always tracked).
    pub basis: BasisMode,
    /// Plot both bases at once (traditional dashed).
    pub compare_bases: bool,
    /// The canvas split in two, traditional basis on the left and continued on the right,
    /// each with its arrows and its `qd` plot underneath (the same mechanism twice: one
    /// simulation tracks both bases).
    pub side_by_side: bool,
    pub light: bool,
    pub show_motions: bool,
    /// The motions the user hid, by label ("new 1", "branch 2"): hidden in both halves of
    /// side by side and at every event until shown again.
    pub hidden_motions: BTreeSet<String>,
    /// At an event, every motion drawn (key 0), not only the chosen one (`push.motion`,
    /// keys 1 to 9): a flat pose with several motions is unreadable with all of them.
    pub all_motions: bool,
    /// The motion whose row the pointer is over in the panel: drawn as is, the others dimmed.
    pub highlighted_motion: Option<usize>,
    /// A drag on the canvas holds a body (not panning).
    pub grabbing: bool,
    /// The ghost preview of the highlighted motion's action, once computed.
    pub ghost: Option<ghost::Ghost>,
    /// Whether pointing at a motion's row shows its ghost (off while a class predicts).
    pub ghost_preview: bool,
    /// The pose the pointer is at in the configuration-space plot, drawn as a ghost on the
    /// canvas (set by the plot each pass it is pointed at).
    pub atlas_ghost: Option<nalgebra::DVector<f64>>,
    /// Presenting, the configuration-space plot beside the canvas (key G).
    pub atlas_beside: bool,
    /// The [`Live::generation`](crate::app::simulation::Live::generation) whose lesson's view was applied (a lesson sets the view once
    /// when it opens; then it is the user's).
    pub lesson_view_applied: Option<u64>,
    pub show_trace: bool,
    pub show_labels: bool,
    pub show_grid: bool,
    /// Each rigid body's axes from its centre of mass (spatial scenes).
    pub show_body_axes: bool,
    /// The joint reactions drawn (key J), and the self-stress mode drawn (0-based).
    pub show_reactions: bool,
    pub reaction_mode: Option<usize>,
    /// The reactions of the state shown, computed once per state.
    pub reactions: Option<ReactionCache>,
    /// Push controls: which motion, how much velocity, over how long.
    pub push: PushControls,
    /// The scene the motion choice was made on.
    pub(super) motion_choice_generation: Option<u64>,
    /// The picture of a video (`singulab record`): what a student should see, no controls,
    /// timeline, plot controls or key hints.
    pub video: bool,
    /// Presentation mode is on (set by the layout each frame): the canvas is for the class.
    pub presenting: bool,
    /// The window is being recorded (Ctrl+R; set by the layout each frame): the canvas is
    /// for viewers, so no key hints, and text in the presentation's sizes.
    pub recording: bool,
    /// The speed achieved while the status line says the run falls behind (set by the
    /// layout each frame): presenting, the time says it, the status line being hidden.
    pub achieved_when_behind: Option<f64>,
    pub(super) display_x: DVector<f64>,
    /// Where each bar's name stood on the last frame, per basis drawn (side by side, one
    /// canvas each).
    pub(super) name_spots: [super::bar_names::NameSpots; 2],
    /// Where each motion's label stood on the last frame of each canvas (continued, traditional).
    pub(super) label_spots: [super::arrows::LabelSpots; 2],
}

impl ViewState {
    /// The canvas is for a class or a video (presenting, Ctrl+R): its text and the banner's
    /// in large type, the legend's rows a size larger.
    pub fn for_viewers(&self) -> bool {
        self.presenting || self.recording
    }
}

impl Default for ViewState {
    fn default() -> Self {
        Self {
            basis: BasisMode::Continued,
            compare_bases: false,
            side_by_side: false,
            light: false,
            show_motions: false,
            hidden_motions: BTreeSet::new(),
            all_motions: false,
            highlighted_motion: None,
            grabbing: false,
            ghost: None,
            ghost_preview: true,
            atlas_ghost: None,
            atlas_beside: false,
            lesson_view_applied: None,
            show_trace: true,
            show_labels: true,
            show_grid: true,
            show_body_axes: false,
            show_reactions: false,
            reaction_mode: None,
            reactions: None,
            push: PushControls::default(),
            motion_choice_generation: None,
            video: false,
            presenting: false,
            recording: false,
            achieved_when_behind: None,
            display_x: DVector::zeros(0),
            name_spots: Default::default(),
            label_spots: Default::default(),
        }
    }
}

impl ViewState {
    pub fn from_args(args: &ViewConfig) -> Self {
        Self {
            basis: args.basis,
            light: args.light,
            side_by_side: args.side_by_side,
            show_reactions: args.reactions,
            reaction_mode: args.mode.map(|k| k - 1),
            video: args.video,
            atlas_beside: args.atlas,
            ..Self::default()
        }
    }

    /// A number that changes with what the choices show on the canvas (the motion chosen,
    /// the motions drawn and hidden, the one pointed at, the basis, the layout, the theme, the
    /// reactions): a recording's idle pause is the time neither it nor the pose changes.
    pub fn picture_key(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        (
            self.push.motion,
            self.all_motions,
            &self.hidden_motions,
            self.highlighted_motion,
            self.basis == BasisMode::Continued,
            (self.side_by_side, self.show_motions, self.light),
            (self.show_reactions, self.reaction_mode),
        )
            .hash(&mut hasher);
        hasher.finish()
    }

    /// Keeps the chosen motion one of those `listed` at an event: the first (the motion the
    /// mechanism had) on a newly opened scene, the last listed where the list is shorter
    /// than the choice (another event, another basis). Every frame, before anything reads it.
    pub fn settle_motion_choice(&mut self, generation: u64, listed: Option<usize>) {
        if self.motion_choice_generation != Some(generation) {
            self.motion_choice_generation = Some(generation);
            self.push.motion = 0;
        }
        if let Some(count) = listed {
            self.push.motion = self.push.motion.min(count.saturating_sub(1));
        }
    }

    /// Whether the user left `motion` shown (its box ticked).
    pub fn motion_shown(&self, motion: &Motion) -> bool {
        !self.hidden_motions.contains(&motion.label)
    }

    /// Whether motion `k` of a list is drawn: shown, and at an event the chosen one unless
    /// all are drawn.
    pub fn motion_drawn(&self, k: usize, motion: &Motion, at_event: bool) -> bool {
        self.motion_shown(motion) && (self.all_motions || !at_event || k == self.push.motion)
    }

    /// Hides or shows `motion`, wherever it is listed.
    pub fn set_motion_shown(&mut self, motion: &Motion, shown: bool) {
        if shown {
            self.hidden_motions.remove(&motion.label);
        } else {
            self.hidden_motions.insert(motion.label.clone());
        }
    }
}
