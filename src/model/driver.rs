//! Prescribed motions `d(t)`: a constant plus a sum of quintic smooth steps,
//! `d(t) = d0 + sum_k a_k S(t; t0_k, t1_k)`, with `S` rising from 0 at `t0` to 1 at `t1`
//! with zero first and second derivatives at both ends (`S = 10 s^3 - 15 s^4 + 6 s^5`,
//! `s = (t - t0) / (t1 - t0)`). Enough for a steering manoeuvre (Wojtyra and Frączek 2013,
//! sect. 4.1: turn, go straight, turn back); `d`, `d'` and `d''` are exact.

/// One quintic smooth step of height `amplitude` from `start` to `end` (s).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SmoothStep {
    pub amplitude: f64,
    pub start: f64,
    pub end: f64,
}

/// A driver's law `d(t)` in metres (or radians).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct DriverLaw {
    pub constant: f64,
    pub steps: Vec<SmoothStep>,
}

impl SmoothStep {
    /// `(S, dS/dt, d2S/dt2)` at `t`, times the amplitude.
    fn at(&self, t: f64) -> [f64; 3] {
        let width = self.end - self.start;
        if t >= self.end {
            return [self.amplitude, 0.0, 0.0];
        }
        if t <= self.start {
            return [0.0, 0.0, 0.0];
        }
        let s = (t - self.start) / width;
        let (s2, s3) = (s * s, s * s * s);
        let value = s3 * (10.0 - 15.0 * s + 6.0 * s2);
        let rate = 30.0 * s2 * (1.0 - s) * (1.0 - s) / width;
        let curvature = 60.0 * s * (1.0 - 3.0 * s + 2.0 * s2) / (width * width);
        [
            self.amplitude * value,
            self.amplitude * rate,
            self.amplitude * curvature,
        ]
    }
}

impl DriverLaw {
    /// `[d(t), d'(t), d''(t)]`.
    pub fn at(&self, t: f64) -> [f64; 3] {
        let mut out = [self.constant, 0.0, 0.0];
        for step in &self.steps {
            let [d, rate, curvature] = step.at(t);
            out[0] += d;
            out[1] += rate;
            out[2] += curvature;
        }
        out
    }

    /// The largest `|d|` can reach: `|d0| + sum |a_k|`.
    pub fn magnitude(&self) -> f64 {
        self.steps
            .iter()
            .map(|s| s.amplitude.abs())
            .fold(self.constant.abs(), |sum, a| sum + a)
    }

    /// Whether `d` changes with time.
    pub fn moves(&self) -> bool {
        self.steps.iter().any(|s| s.amplitude != 0.0)
    }
}
