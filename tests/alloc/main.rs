//! Checks the rule "no allocation per step in the hot loop": after a warm-up
//! of 50 steps, no `Simulation::step()` allocates, including the steps that locate a singular
//! event (the simulation fills a preallocated event in place; callers clone it to keep it).
//! Cases: double four-bar, modified triple four-bar, modified 2x3 and spatial
//! pendulum with their own settings, and the double four-bar with Dopri5, with steps of 1e-2 s
//! (events found by refinement) and with the zeroth-order predictor.
//!
//! The reference is a direct count: a `#[global_allocator]` wrapping `System` counts `alloc`,
//! `alloc_zeroed` and `realloc` calls per thread (const-initialised `thread_local!` cells, so
//! other threads are never counted), enabled only around the `step()` call itself (the report
//! owns no heap memory). The counter is checked first on known allocations
//! (one `Vec::with_capacity`, one `vec![0; n]`, one growing `reserve`, another thread's
//! allocations) so that the test cannot pass vacuously.
//!
//! The configuration-space atlas' tracer is held to the same rule per traced point: traced to
//! two budgets of points on a curve with no singular point, it allocates the same number of
//! times (the planar pendulum, and the spin top's section).
//!
//! It also measures the heap a checkpoint (a clone of the simulation, kept by the live
//! session's timeline) allocates, and checks `Checkpoint::bytes`, which the timeline's memory
//! budget counts, against it (0.8 to 1.5 times; measured 0.92 to 1.02).
//!
//! `harness = false`: this is a plain `main` that exits with status 1 on failure.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::hint::black_box;
use std::path::PathBuf;
use std::process::exit;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use singulab::scene::{Scene, load_scene};
use singulab::solver::{Integrator, Predictor, Settings};

thread_local! {
    static COUNT: Cell<u64> = const { Cell::new(0) };
    static ENABLED: Cell<bool> = const { Cell::new(false) };
    static BYTES: Cell<u64> = const { Cell::new(0) };
}

/// Counts an allocation on the calling thread if counting is enabled there. `try_with` keeps
/// this safe during thread teardown (the cells have no destructor, so it never fails in practice).
fn note_allocation(bytes: usize) {
    let _ = ENABLED.try_with(|enabled| {
        if enabled.get() {
            let _ = COUNT.try_with(|count| count.set(count.get() + 1));
            let _ = BYTES.try_with(|total| total.set(total.get() + bytes as u64));
        }
    });
}

struct CountingAllocator;

// SAFETY: every method forwards to `System` with the caller's arguments unchanged; the
// counting touches only const-initialised thread-local `Cell`s, which never allocate.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note_allocation(layout.size());
        // SAFETY: forwarded contract.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note_allocation(layout.size());
        // SAFETY: forwarded contract.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note_allocation(new_size);
        // SAFETY: forwarded contract.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded contract.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

/// Runs `f` with counting enabled on this thread; returns its value and the allocations made.
fn counted<T>(f: impl FnOnce() -> T) -> (T, u64) {
    COUNT.set(0);
    BYTES.set(0);
    ENABLED.set(true);
    let value = f();
    ENABLED.set(false);
    (value, COUNT.get())
}

/// Checks that the counter sees what it must and nothing else.
fn check_counter(failures: &mut Vec<String>) {
    let mut expect = |what: &str, got: u64, want: u64| {
        if got != want {
            failures.push(format!(
                "counter self-check: {what} counted {got}, expected {want}"
            ));
        }
    };

    let (v, n) = counted(|| black_box(Vec::<u64>::with_capacity(10)));
    drop(v);
    expect("Vec::with_capacity(10)", n, 1);

    let (v, n) = counted(|| black_box(vec![0u8; 4096]));
    drop(v);
    expect("vec![0u8; 4096] (alloc_zeroed)", n, 1);

    let mut v = black_box(Vec::<u64>::with_capacity(1));
    let ((), n) = counted(|| v.reserve_exact(1000));
    drop(black_box(v));
    expect("reserve_exact on a 1-element Vec (realloc)", n, 1);

    let ((), n) = counted(|| {});
    expect("an empty region", n, 0);

    // Not counting: an allocation outside a region leaves the count alone.
    COUNT.set(0);
    drop(black_box(Vec::<u64>::with_capacity(10)));
    expect("an allocation with counting disabled", COUNT.get(), 0);

    // Another thread, counting on its own side, allocates while this thread counts: its
    // allocations must show in its counter and not in ours.
    let go = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicBool::new(false));
    let worker = {
        let (go, done) = (go.clone(), done.clone());
        std::thread::spawn(move || {
            while !go.load(Ordering::Acquire) {
                std::hint::spin_loop();
            }
            let ((), n) = counted(|| {
                for i in 0..100 {
                    drop(black_box(Vec::<u64>::with_capacity(8 + i)));
                }
            });
            done.store(true, Ordering::Release);
            n
        })
    };
    let ((), n) = counted(|| {
        go.store(true, Ordering::Release);
        while !done.load(Ordering::Acquire) {
            std::hint::spin_loop();
        }
    });
    expect("this thread while another one allocates", n, 0);
    let theirs = worker.join().unwrap_or(u64::MAX);
    expect("the other thread's own 100 allocations", theirs, 100);
}

/// A checkpoint's estimated memory against what cloning the simulation allocates (heap
/// bytes requested, counted by the allocator, plus the value itself): within 0.8 to 1.5 times
/// it, so that a timeline's budget means what it says.
fn checkpoint_estimate(name: &str) -> Result<String, String> {
    let scene = load(name)?;
    let mut sim = scene
        .simulation_with(scene.settings.clone())
        .map_err(|e| format!("{name}: {e}"))?;
    for _ in 0..50 {
        sim.step().map_err(|e| format!("{name}: {e}"))?;
    }
    let (checkpoint, _) = counted(|| sim.checkpoint());
    let heap = BYTES.get() as usize;
    let measured = heap + std::mem::size_of_val(checkpoint.simulation());
    let estimate = checkpoint.bytes();
    let ratio = estimate as f64 / measured as f64;
    let summary = format!(
        "checkpoint of {name}: estimated {estimate} bytes, cloning allocated {heap} (+ {} the value): ratio {ratio:.2}",
        measured - heap
    );
    if (0.8..=1.5).contains(&ratio) {
        Ok(summary)
    } else {
        Err(summary)
    }
}

fn load(name: &str) -> Result<Scene, String> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("scenes")
        .join(format!("{name}.ron"));
    load_scene(&path).map_err(|e| e.to_string())
}

const WARM_UP: usize = 50;
const COUNTED_STEPS: usize = 3000;

struct Case {
    label: &'static str,
    scene: &'static str,
    settings: fn(Settings) -> Settings,
    /// Whether the run must pass at least one singular configuration.
    expects_events: bool,
}

/// Runs one case; returns its summary line, or why it failed.
fn run(case: &Case) -> Result<String, String> {
    let scene = load(case.scene)?;
    let settings = (case.settings)(scene.settings.clone());
    let mut sim = scene
        .simulation_with(settings)
        .map_err(|e| format!("cannot start: {e}"))?;
    for _ in 0..WARM_UP {
        sim.step()
            .map_err(|e| format!("warm-up step failed: {e}"))?;
    }
    let mut event_steps = 0usize;
    let mut offending = Vec::new();
    let mut steps = 0;
    let mut step_error = None;
    for k in 0..COUNTED_STEPS {
        let (result, allocations) = counted(|| sim.step());
        let report = match result {
            Ok(report) => report,
            Err(e) => {
                // Stop here, but still report what the steps before the failure did.
                step_error = Some(format!("step {k} failed: {e}"));
                break;
            }
        };
        steps += 1;
        event_steps += report.events;
        if allocations > 0 {
            offending.push((k, report.t, allocations, report.events > 0));
        }
    }
    let summary = format!(
        "{}: {steps} of {COUNTED_STEPS} steps after {WARM_UP} warm-up, t = {:.4} s, {} \
         allocating steps, {event_steps} steps locating a singular event",
        case.label,
        sim.time(),
        offending.len(),
    );
    if let Some(error) = step_error {
        return Err(format!("{summary}\n    {error}"));
    }
    if !offending.is_empty() {
        let first: Vec<String> = offending
            .iter()
            .take(5)
            .map(|(k, t, n, event)| {
                let what = if *event { " (locating an event)" } else { "" };
                format!("step {k} (t = {t:.4} s){what}: {n} allocations")
            })
            .collect();
        return Err(format!(
            "{summary}\n    steps allocated: {}",
            first.join("; ")
        ));
    }
    if case.expects_events && event_steps == 0 {
        return Err(format!(
            "{summary}\n    expected at least one singular event in this run"
        ));
    }
    Ok(summary)
}

/// The atlas' tracer allocates nothing per traced point: traced to a budget of `short` and of
/// `long` points, on a curve that neither closes nor meets a singular point within them, it
/// allocates the same number of times.
fn atlas_per_point(name: &str, short: usize, long: usize) -> Result<String, String> {
    use singulab::atlas::{AtlasSettings, default_holds, trace_atlas};
    let scene = load(name)?;
    let settings = |max_points| AtlasSettings {
        max_points,
        detection_tolerance: scene.settings.detection_tolerance,
        rank_tolerance: scene.settings.rank_tolerance,
        normal_truncation: scene.settings.normal_truncation,
        newton_tolerance: scene.settings.newton_tolerance,
        holds: default_holds(&scene.mechanism, &scene.x0, scene.settings.rank_tolerance),
    };
    let cancel = AtomicBool::new(false);
    let mut counts = Vec::new();
    for budget in [short, long] {
        let settings = settings(budget);
        let (atlas, count) =
            counted(|| trace_atlas(&scene.mechanism, &scene.x0, &settings, &cancel));
        let atlas = atlas.map_err(|e| format!("atlas of {name}: {e}"))?;
        if atlas.points != budget || !atlas.singular.is_empty() {
            return Err(format!(
                "atlas of {name}: {} points, {} singular points at a budget of {budget}",
                atlas.points,
                atlas.singular.len()
            ));
        }
        counts.push(count);
    }
    if counts[0] != counts[1] {
        return Err(format!(
            "atlas of {name}: {} allocations for {short} points, {} for {long}",
            counts[0], counts[1]
        ));
    }
    Ok(format!(
        "atlas of {name}: {} allocations for {short} points and for {long}",
        counts[0]
    ))
}

fn main() {
    let mut failures = Vec::new();
    check_counter(&mut failures);
    if failures.is_empty() {
        println!("alloc: counter self-check passed (alloc, alloc_zeroed, realloc; per thread)");
    }

    let cases = [
        Case {
            label: "double_four_bar (scene settings)",
            scene: "double_four_bar",
            settings: |s| s,
            expects_events: true,
        },
        Case {
            label: "modified_triple_four_bar (scene settings)",
            scene: "modified_triple_four_bar",
            settings: |s| s,
            expects_events: true,
        },
        Case {
            label: "modified_2x3 (scene settings)",
            scene: "modified_2x3",
            settings: |s| s,
            expects_events: true,
        },
        Case {
            label: "spatial_pendulum (scene settings)",
            scene: "spatial_pendulum",
            settings: |s| s,
            expects_events: false,
        },
        Case {
            label: "slider_crank (scene settings)",
            scene: "slider_crank",
            settings: |s| s,
            expects_events: false,
        },
        Case {
            label: "spin_top (Dopri5)",
            scene: "spin_top",
            settings: |s| Settings {
                integrator: Integrator::Dopri5,
                ..s
            },
            expects_events: false,
        },
        Case {
            label: "double_four_bar (Dopri5)",
            scene: "double_four_bar",
            settings: |s| Settings {
                integrator: Integrator::Dopri5,
                ..s
            },
            expects_events: true,
        },
        Case {
            // Steps of 1e-2 s: the singular events are found by the golden-section search on
            // the interpolated trajectory (the parabola fit alone misses them).
            label: "double_four_bar (dt 1e-2, refined events)",
            scene: "double_four_bar",
            settings: |s| Settings { dt: 1e-2, ..s },
            expects_events: true,
        },
        Case {
            label: "double_four_bar (zeroth-order predictor)",
            scene: "double_four_bar",
            settings: |s| Settings {
                predictor: Predictor::Zeroth,
                ..s
            },
            expects_events: true,
        },
    ];
    for case in &cases {
        match run(case) {
            Ok(summary) => println!("alloc: ok   {summary}"),
            Err(why) => {
                // `why` starts with the case's label (or is a loading error: add it then).
                let why = if why.starts_with(case.label) {
                    why
                } else {
                    format!("{}: {why}", case.label)
                };
                println!("alloc: FAIL {why}");
                failures.push(why);
            }
        }
    }

    for (name, short, long) in [("planar_pendulum", 30, 60), ("spin_top", 40, 100)] {
        match atlas_per_point(name, short, long) {
            Ok(summary) => println!("alloc: ok   {summary}"),
            Err(why) => {
                println!("alloc: FAIL {why}");
                failures.push(why);
            }
        }
    }

    for name in [
        "double_four_bar",
        "four_bar",
        "modified_triple_four_bar",
        "spin_top",
    ] {
        match checkpoint_estimate(name) {
            Ok(summary) => println!("alloc: ok   {summary}"),
            Err(why) => {
                println!("alloc: FAIL {why}");
                failures.push(why);
            }
        }
    }

    if failures.is_empty() {
        println!("alloc: all checks passed");
    } else {
        eprintln!("alloc: {} check(s) failed:", failures.len());
        for failure in &failures {
            eprintln!("  - {failure}");
        }
        exit(1);
    }
}
