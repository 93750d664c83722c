//! `singulab atlas`: the configuration set of a scene ([`crate::atlas`]) as two CSV files, the
//! traced points and the singular points, and a summary line on stderr.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::atomic::AtomicBool;

use super::args::AtlasArgs;
use super::bench::Clock;
use super::error::{CliError, Stream};
use crate::atlas::{Atlas, AtlasSettings, Hold, angle_coordinates, default_holds, trace_atlas};
use crate::number_text::{csv_header_cell, push_csv_number};
use crate::scene::{Scene, load_scene};

pub fn atlas(args: &AtlasArgs) -> Result<(), CliError> {
    let scene = load_scene(&args.scene)?;
    let mut holds = args
        .hold
        .iter()
        .map(|text| parse_hold(&scene, text))
        .collect::<Result<Vec<_>, _>>()?;
    let defaulted = holds.is_empty();
    if defaulted {
        holds = default_holds(&scene.mechanism, &scene.x0, scene.settings.rank_tolerance);
    }
    let settings = AtlasSettings {
        max_points: args.max_points,
        detection_tolerance: scene.settings.detection_tolerance,
        rank_tolerance: scene.settings.rank_tolerance,
        normal_truncation: scene.settings.normal_truncation,
        newton_tolerance: scene.settings.newton_tolerance,
        holds,
    };
    refuse_scene_as_output(&scene, &args.out)?;
    if let Some(singular) = &args.singular {
        refuse_scene_as_output(&scene, singular)?;
    }
    let clock = Clock::start();
    let traced = trace_atlas(
        &scene.mechanism,
        &scene.x0,
        &settings,
        &AtomicBool::new(false),
    )
    .map_err(|source| CliError::Atlas {
        file: scene.file.clone(),
        source,
    })?;
    let cpu = clock.elapsed().as_secs_f64();
    write_points(&scene, &traced, &args.out)?;
    if let Some(path) = &args.singular {
        write_singular(&scene, &traced, path)?;
    }
    eprintln!("{}", summary(&scene, &traced, &settings, defaulted, cpu));
    Ok(())
}

/// The summary line: what was traced, in what time, and what the set leaves out.
fn summary(
    scene: &Scene,
    atlas: &Atlas,
    settings: &AtlasSettings,
    defaulted: bool,
    cpu: f64,
) -> String {
    // The thread's CPU clock advances in scheduler ticks: a pendulum's circle takes less.
    let time = if cpu < 1e-3 {
        "under 1 ms CPU".to_owned()
    } else {
        format!(
            "{cpu:.3} s CPU ({:.0} points traced a second)",
            atlas.points as f64 / cpu
        )
    };
    // The rows of the atlas CSV: the traced points and each curve's ends (a singular point
    // or the assembled pose it closes on).
    let rows: usize = atlas.curves.iter().map(|c| c.len()).sum();
    let mut line = format!(
        "singulab: atlas of {}: {} curves, {} singular points, {rows} points in {time}",
        scene.file,
        atlas.curves.len(),
        atlas.singular.len(),
    );
    if atlas.left_out > 0 {
        line.push_str(&format!(
            "; {} velocity-level or driven rows left out (not part of the configuration set)",
            atlas.left_out
        ));
    }
    if !settings.holds.is_empty() {
        let names: Vec<String> = settings
            .holds
            .iter()
            .map(|hold| coordinate_name(scene, hold.coordinate))
            .collect();
        line.push_str(&format!(
            "; a set of {} dimensions, traced in {} sections holding {}{}",
            atlas.dimension,
            atlas.sections.len(),
            names.join(", "),
            if defaulted {
                " at the assembled pose (the default)"
            } else {
                ""
            }
        ));
    }
    if atlas.points >= settings.max_points {
        line.push_str("; stopped at --max-points");
    }
    line
}

/// `BODY.COORD=v1,v2,...` as a [`Hold`].
fn parse_hold(scene: &Scene, text: &str) -> Result<Hold, CliError> {
    let fail = |why: String| CliError::Hold {
        file: scene.file.clone(),
        hold: text.to_owned(),
        why,
    };
    let (name, values) = text
        .split_once('=')
        .ok_or_else(|| fail("expected BODY.COORD=V1,V2,...".into()))?;
    let (body_name, coordinate) = name
        .rsplit_once('.')
        .ok_or_else(|| fail("expected BODY.COORD before `=`".into()))?;
    let mechanism = &scene.mechanism;
    let body = mechanism
        .body_index(body_name)
        .map(|k| &mechanism.bodies()[k])
        .ok_or_else(|| fail(format!("the scene has no body `{body_name}`")))?;
    let index = body
        .coordinate_names()
        .iter()
        .position(|c| *c == coordinate)
        .ok_or_else(|| {
            fail(format!(
                "body `{body_name}` has the coordinates {}",
                body.coordinate_names().join(", ")
            ))
        })?;
    let values = values
        .split(',')
        .map(|v| {
            v.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| fail(format!("`{v}` is not a number")))
        })
        .collect::<Result<Vec<f64>, _>>()?;
    Ok(Hold {
        coordinate: body.offset + index,
        values,
    })
}

/// `NAME.COORD` of coordinate `index`.
fn coordinate_name(scene: &Scene, index: usize) -> String {
    scene
        .mechanism
        .bodies()
        .iter()
        .find(|b| (b.offset..b.offset + b.dim()).contains(&index))
        .map_or_else(
            || format!("x[{index}]"),
            |b| format!("{}.{}", b.name, b.coordinate_names()[index - b.offset]),
        )
}

/// The body columns, as `singulab run` names the positions.
fn body_columns(scene: &Scene) -> Vec<String> {
    scene
        .mechanism
        .bodies()
        .iter()
        .flat_map(|b| {
            b.coordinate_names()
                .iter()
                .map(move |c| csv_header_cell(&format!("{}.{c}", b.name)).into_owned())
        })
        .collect()
}

fn refuse_scene_as_output(scene: &Scene, path: &Path) -> Result<(), CliError> {
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if same(Path::new(&scene.file), path) {
        return Err(CliError::OverwritesInput {
            flag: "--out",
            path: path.to_owned(),
            input: super::error::Input::Scene,
        });
    }
    Ok(())
}

fn csv_writer(path: &Path) -> Result<csv::Writer<BufWriter<File>>, CliError> {
    let file = File::create(path).map_err(|e| CliError::create(path, e))?;
    Ok(csv::Writer::from_writer(BufWriter::new(file)))
}

fn write_points(scene: &Scene, atlas: &Atlas, path: &Path) -> Result<(), CliError> {
    let mut out = csv_writer(path)?;
    let mut header = vec!["curve".to_owned(), "s".into(), "rank".into()];
    header.extend(body_columns(scene));
    let fail = |e| CliError::csv(Stream::Table, e);
    out.write_record(&header).map_err(fail)?;
    let mut record = Vec::with_capacity(header.len());
    for (k, curve) in atlas.curves.iter().enumerate() {
        for point in 0..curve.len() {
            record.clear();
            record.push(k.to_string());
            record.push(number(curve.s[point]));
            record.push(curve.rank[point].to_string());
            record.extend(curve.point(point).iter().copied().map(number));
            out.write_record(&record).map_err(fail)?;
        }
    }
    finish(out)
}

fn write_singular(scene: &Scene, atlas: &Atlas, path: &Path) -> Result<(), CliError> {
    let mut out = csv_writer(path)?;
    let mut header = vec!["point".to_owned(), "rank".into(), "curves".into()];
    header.extend(body_columns(scene));
    let fail = |e| CliError::csv(Stream::Table, e);
    out.write_record(&header).map_err(fail)?;
    for (k, point) in atlas.singular.iter().enumerate() {
        let curves: Vec<String> = atlas.curves_at(k).iter().map(usize::to_string).collect();
        let mut record = vec![k.to_string(), point.rank.to_string(), curves.join(" ")];
        let angles = angle_coordinates(&scene.mechanism);
        record.extend(
            point
                .x
                .iter()
                .zip(&angles)
                .map(|(&v, &angle)| number(if angle { wrapped(v) } else { v })),
        );
        out.write_record(&record).map_err(fail)?;
    }
    finish(out)
}

/// A number as `singulab run` writes them: the shortest text that reads back the same.
fn number(value: f64) -> String {
    let mut text = String::new();
    push_csv_number(&mut text, value);
    text
}

/// An angle in (-pi, pi]: a singular point is written once, whichever curve found it.
fn wrapped(angle: f64) -> f64 {
    use std::f64::consts::{PI, TAU};
    let w = angle.rem_euclid(TAU);
    if w > PI { w - TAU } else { w }
}

fn finish(out: csv::Writer<BufWriter<File>>) -> Result<(), CliError> {
    let mut inner = out
        .into_inner()
        .map_err(|e| CliError::write(Stream::Table, e.into_error()))?;
    inner.flush().map_err(|e| CliError::write(Stream::Table, e))
}
