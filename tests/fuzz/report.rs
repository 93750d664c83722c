//! The fuzzer's report: counts per outcome class and per mutation kind, examples of the
//! failures with the command that replays each, and an optional log of every failure.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::Path;
use std::time::Duration;

use crate::case::{Case, KINDS};
use crate::outcome::{Outcome, is_line_breaking_control};

/// How many failures the report shows.
const EXAMPLES: usize = 20;

/// A finished case, without its scene text (a long run keeps 100,000 of these).
pub struct Record {
    pub index: u64,
    pub description: String,
    pub kinds: Vec<&'static str>,
    pub outcome: Outcome,
}

impl Record {
    pub fn new(case: &Case, mut outcome: Outcome) -> Self {
        outcome.stderr.clear();
        Self {
            index: case.index,
            description: case.describe(),
            kinds: case.mutations.iter().map(|m| m.kind).collect(),
            outcome,
        }
    }
}

/// A line every 2,000 cases, for long runs with `--nocapture`.
pub fn progress(done: u64, total: u64, records: &[Record]) {
    if done.is_multiple_of(2000) && done < total {
        let failed = records.iter().filter(|r| !r.outcome.passed).count();
        eprintln!("fuzz: {done}/{total} cases, {failed} failed");
    }
}

/// Prints the report; returns the number of failed cases.
pub fn print(records: &[Record], elapsed: Duration, replay: impl Fn(u64) -> String) -> usize {
    let slowest = records
        .iter()
        .max_by(|a, b| a.outcome.seconds.total_cmp(&b.outcome.seconds));
    println!(
        "fuzz: {} cases in {:.1} s (slowest {:.2} s: case {})",
        records.len(),
        elapsed.as_secs_f64(),
        slowest.map_or(0.0, |r| r.outcome.seconds),
        slowest.map_or(0, |r| r.index)
    );
    print_classes(records);
    print_kinds(records);
    let failures: Vec<&Record> = records.iter().filter(|r| !r.outcome.passed).collect();
    if !failures.is_empty() {
        print_examples(&failures, &replay);
    }
    failures.len()
}

/// `text` with the characters that would break its line or the terminal, and the invisible
/// ones (byte-order mark, bidirectional overrides, zero-width spaces), shown as `<U+000D>`
/// (distinct from a RON escape such as `\r` in the scene's text).
pub fn visible(text: &str) -> String {
    text.chars()
        .map(|c| {
            if is_line_breaking_control(c) || c == '\n' || is_invisible(c) {
                format!("<U+{:04X}>", u32::from(c))
            } else {
                c.to_string()
            }
        })
        .collect()
}

fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{ad}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2069}' | '\u{feff}'
    )
}

/// Cases and their summed wall-clock time per outcome class, passes first.
fn print_classes(records: &[Record]) {
    let mut classes: BTreeMap<(bool, &str), (usize, f64)> = BTreeMap::new();
    for record in records {
        let key = (!record.outcome.passed, record.outcome.class.as_str());
        let entry = classes.entry(key).or_default();
        entry.0 += 1;
        entry.1 += record.outcome.seconds;
    }
    println!("outcomes (cases, summed seconds):");
    for ((failed, class), (count, seconds)) in classes {
        let verdict = if failed { "FAIL" } else { "pass" };
        println!("  {count:>7} {seconds:>9.1}  {verdict}  {class}");
    }
}

fn print_kinds(records: &[Record]) {
    println!("mutation kinds (cases, failed; a case counts under each of its kinds):");
    for &(kind, _, _) in KINDS {
        let with_kind = records.iter().filter(|r| r.kinds.contains(&kind));
        let (cases, failed) = with_kind.fold((0, 0), |(cases, failed), r| {
            (cases + 1, failed + usize::from(!r.outcome.passed))
        });
        println!("  {kind:<18} {cases:>7} {failed:>7}");
    }
}

/// Up to [`EXAMPLES`] failures: first one per class and first mutation kind, then the rest
/// in case order.
fn print_examples(failures: &[&Record], replay: &impl Fn(u64) -> String) {
    let mut seen = BTreeSet::new();
    let mut chosen: Vec<&Record> = Vec::new();
    for record in failures {
        let key = (&record.outcome.class, record.kinds.first());
        if seen.insert(key) && chosen.len() < EXAMPLES {
            chosen.push(record);
        }
    }
    for record in failures {
        if chosen.len() >= EXAMPLES {
            break;
        }
        if !chosen.iter().any(|c| c.index == record.index) {
            chosen.push(record);
        }
    }
    chosen.sort_by_key(|r| r.index);
    println!(
        "{} failures; examples (replay one with: {}):",
        failures.len(),
        replay(0).replace("CASE=0", "CASE=N")
    );
    for record in chosen {
        println!(
            "  case {} [{}] {}\n      {}",
            record.index,
            record.outcome.class,
            visible(&record.description),
            visible(&record.outcome.line)
        );
    }
}

/// Every case, one tab-separated line each: case, pass or FAIL, class, seconds, kinds, the
/// description and the first stderr line.
pub fn write_log(path: &Path, records: &[Record]) -> std::io::Result<()> {
    let mut file = std::io::BufWriter::new(std::fs::File::create(path)?);
    for record in records {
        writeln!(
            file,
            "{}\t{}\t{}\t{:.2}\t{}\t{}\t{}",
            record.index,
            if record.outcome.passed {
                "pass"
            } else {
                "FAIL"
            },
            record.outcome.class,
            record.outcome.seconds,
            record.kinds.join(","),
            visible(&record.description).replace('\t', "\\t"),
            visible(&record.outcome.line).replace('\t', "\\t")
        )?;
    }
    file.flush()
}
