//! The progress bar a long run draws on stderr (when neither stderr nor a CSV on it is
//! redirected, `run::draws_progress`).

/// Draws a progress bar on stderr.
pub(super) struct Progress {
    enabled: bool,
    last_percent: i64,
}

impl Progress {
    pub(super) fn new(enabled: bool) -> Self {
        Self {
            enabled,
            last_percent: -1,
        }
    }

    pub(super) fn update(&mut self, t: f64, t_end: f64) {
        if !self.enabled {
            return;
        }
        let percent = ((t / t_end) * 100.0).floor() as i64;
        if percent != self.last_percent {
            self.last_percent = percent;
            let filled = (percent / 4) as usize;
            eprint!(
                "\r[{}{}] {percent:3}%  t = {t:.3} / {t_end} s",
                "#".repeat(filled),
                " ".repeat(25 - filled.min(25))
            );
        }
    }

    pub(super) fn finish(&self) {
        if self.enabled {
            eprintln!();
        }
    }
}
