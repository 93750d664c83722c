//! The CSVs of a successful run, as `singulab run --help` describes them: every field a finite
//! number but the events' `kind` word and the trailing `qd` cells a jammed mechanism's basis no
//! longer has (announced by the run's warning), the trajectory from t = 0 to exactly t_end.

use std::ops::Range;
use std::path::Path;

/// A failure class and what is wrong.
pub type CsvFault = (&'static str, String);

/// The warning that announces empty `qd` cells.
const JAM_WARNING: &str = "the rank exceeded the generic rank";

/// Checks `out.csv` and `events.csv` in `dir` after a run to `t_end` that printed `stderr`.
/// A lesson's run (`t_end` `None`) may end its rows early, at a `Pause` that holds.
pub fn check_outputs(dir: &Path, stderr: &str, t_end: Option<f64>) -> Result<(), CsvFault> {
    let trajectory = check_csv(&dir.join("out.csv"))?;
    if let Some(t_end) = t_end {
        check_times(&trajectory.times, t_end)?;
    }
    if trajectory.rows_with_empty_qd > 0 && !stderr.contains(JAM_WARNING) {
        return Err((
            "bad-csv",
            format!(
                "out.csv: {} rows with empty qd cells, and no warning that the rank exceeded the generic rank",
                trajectory.rows_with_empty_qd
            ),
        ));
    }
    check_csv(&dir.join("events.csv"))?;
    // Written only when the case asked for `--reactions reactions.csv`.
    let reactions = dir.join("reactions.csv");
    if reactions.exists() {
        check_csv(&reactions)?;
    }
    Ok(())
}

/// What the checks of one CSV found.
struct Summary {
    /// The `t` column.
    times: Vec<f64>,
    rows_with_empty_qd: usize,
}

/// Where the columns that are not plain numbers are.
struct Layout {
    /// The events' `kind` word.
    text: Option<usize>,
    /// `qd1..qdK` of the trajectory.
    qd: Range<usize>,
    dof: Option<usize>,
}

impl Layout {
    fn of(headers: &csv::StringRecord) -> Self {
        let is_qd = |h: &str| {
            h.strip_prefix("qd")
                .is_some_and(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()))
        };
        let first_qd = headers.iter().position(is_qd).unwrap_or(headers.len());
        let qd_count = headers
            .iter()
            .skip(first_qd)
            .take_while(|h| is_qd(h))
            .count();
        Self {
            text: headers.iter().position(|h| h == "kind"),
            qd: first_qd..first_qd + qd_count,
            dof: headers.iter().position(|h| h == "dof"),
        }
    }
}

fn check_csv(path: &Path) -> Result<Summary, CsvFault> {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let bad = |e: csv::Error| ("bad-csv", format!("{name}: {e}"));
    let mut reader = csv::Reader::from_path(path).map_err(bad)?;
    let headers = reader.headers().map_err(bad)?.clone();
    let layout = Layout::of(&headers);
    let mut summary = Summary {
        times: Vec::new(),
        rows_with_empty_qd: 0,
    };
    for (row, record) in reader.records().enumerate() {
        let record = record.map_err(bad)?;
        let at = |column: usize| format!("{name} row {} column {}", row + 1, &headers[column]);
        for (column, field) in record.iter().enumerate() {
            if Some(column) == layout.text || (layout.qd.contains(&column) && field.is_empty()) {
                continue;
            }
            let value: f64 = field.parse().map_err(|_| {
                (
                    "bad-csv",
                    format!("{}: {field:?} is not a number", at(column)),
                )
            })?;
            if !value.is_finite() {
                return Err(("non-finite-output", format!("{}: {field}", at(column))));
            }
            if column == 0 {
                summary.times.push(value);
            }
        }
        if check_qd_cells(&record, &layout)
            .map_err(|why| ("bad-csv", format!("{name} row {}: {why}", row + 1)))?
        {
            summary.rows_with_empty_qd += 1;
        }
    }
    Ok(summary)
}

/// Whether the row has empty `qd` cells; an error unless the filled ones come first and
/// there are as many as the row's degrees of freedom (at most K).
fn check_qd_cells(record: &csv::StringRecord, layout: &Layout) -> Result<bool, String> {
    if layout.qd.is_empty() {
        return Ok(false);
    }
    let cells: Vec<&str> = layout.qd.clone().filter_map(|c| record.get(c)).collect();
    let filled = cells.iter().take_while(|c| !c.is_empty()).count();
    if cells[filled..].iter().any(|c| !c.is_empty()) {
        return Err("a qd cell after an empty one".into());
    }
    let dof = layout
        .dof
        .and_then(|c| record.get(c))
        .and_then(|d| d.parse::<usize>().ok())
        .ok_or("no whole dof")?;
    if filled != dof.min(cells.len()) {
        return Err(format!("{filled} qd cells for dof {dof}"));
    }
    Ok(filled < cells.len())
}

/// The trajectory runs from t = 0 to exactly t_end.
fn check_times(times: &[f64], t_end: f64) -> Result<(), CsvFault> {
    match (times.first(), times.last()) {
        (Some(&first), Some(&last)) if first == 0.0 && last == t_end => Ok(()),
        (first, last) => Err((
            "short-output",
            format!("out.csv: t from {first:?} to {last:?}, not 0 to {t_end}"),
        )),
    }
}

/// The harness's own checks of these rules on hand-written CSVs.
mod checks {
    use super::check_outputs;

    const HEADER: &str = "t,energy,residual,rank,dof,basis_jump,bob.x,qd1,qd2\n";
    const EVENTS: &str = "t,rank,deficiency,rho_min,motion,kind,bob.dx\n0.01,1,1,0,1,new,1\n";

    /// `check_outputs` on a trajectory with `rows` after the header.
    fn check(rows: &str, stderr: &str) -> Result<(), &'static str> {
        let dir = std::env::temp_dir().join(format!(
            "singulab-fuzz-csv-{}-{}",
            std::process::id(),
            rows.len() + stderr.len()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("out.csv"), format!("{HEADER}{rows}")).unwrap();
        std::fs::write(dir.join("events.csv"), EVENTS).unwrap();
        let result = check_outputs(&dir, stderr, Some(0.02)).map_err(|(class, _)| class);
        std::fs::remove_dir_all(&dir).unwrap();
        result
    }

    #[test]
    fn the_csv_rules_hold_on_hand_written_files() {
        let jam = "singulab: warning: on 1 steps the rank exceeded the generic rank: ...";
        let good = "0,1,0,1,2,0,1,0.5,0.5\n0.02,1,0,1,2,0,1,0.5,0.5\n";
        assert_eq!(check(good, ""), Ok(()));
        let jammed = "0,1,0,1,2,0,1,0.5,0.5\n0.02,1,0,2,1,0,1,0.5,\n";
        assert_eq!(check(jammed, jam), Ok(()));
        assert_eq!(check(jammed, ""), Err("bad-csv"), "empty qd unannounced");
        let gap = "0,1,0,1,2,0,1,,0.5\n0.02,1,0,1,2,0,1,0.5,0.5\n";
        assert_eq!(
            check(gap, jam),
            Err("bad-csv"),
            "an empty qd before a filled one"
        );
        let too_few = "0,1,0,1,2,0,1,0.5,\n0.02,1,0,1,2,0,1,0.5,0.5\n";
        assert_eq!(
            check(too_few, jam),
            Err("bad-csv"),
            "fewer qd cells than dof"
        );
        let nan = "0,1,0,1,2,0,NaN,0.5,0.5\n0.02,1,0,1,2,0,1,0.5,0.5\n";
        assert_eq!(check(nan, ""), Err("non-finite-output"));
        let short = "0,1,0,1,2,0,1,0.5,0.5\n0.01,1,0,1,2,0,1,0.5,0.5\n";
        assert_eq!(check(short, ""), Err("short-output"));
    }
}
