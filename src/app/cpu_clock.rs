//! CPU time of the calling thread, for the frame statistics (the status line's solver and
//! interface times, `view --measure-frames`): a system on a machine busy with other work
//! (the software renderer's threads, a build) is preempted, and its wall-clock time would
//! count the other work's time slices as its own. A Bevy system runs on one thread from its
//! start to its end, so the thread's CPU time over a system is the system's. Where the thread
//! clock is not available (outside Unix) the wall clock stands in.

use std::time::Duration;

/// The calling thread's clock at a start.
#[derive(Clone, Copy, Debug)]
pub struct CpuClock {
    #[cfg(unix)]
    start: Duration,
    #[cfg(not(unix))]
    start: web_time::Instant,
}

impl CpuClock {
    pub fn start() -> Self {
        Self {
            #[cfg(unix)]
            start: thread_cpu_time(),
            #[cfg(not(unix))]
            start: web_time::Instant::now(),
        }
    }

    /// CPU time of the calling thread since the start (which must have been read on it).
    pub fn elapsed(&self) -> Duration {
        #[cfg(unix)]
        return thread_cpu_time().saturating_sub(self.start);
        #[cfg(not(unix))]
        return self.start.elapsed();
    }
}

/// `clock_gettime(CLOCK_THREAD_CPUTIME_ID)`: exact to the nanosecond, also for the running
/// thread (`/proc/thread-self/schedstat`, which `singulab bench` reads over whole runs, lags
/// by up to a scheduler tick).
#[cfg(unix)]
fn thread_cpu_time() -> Duration {
    let now = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Duration::new(
        now.tv_sec.max(0) as u64,
        now.tv_nsec.clamp(0, 999_999_999) as u32,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_the_threads_work_and_not_its_sleep() {
        let clock = CpuClock::start();
        std::thread::sleep(Duration::from_millis(30));
        let slept = clock.elapsed();
        let wall = web_time::Instant::now();
        let busy = CpuClock::start();
        let mut x = 0u64;
        while wall.elapsed() < Duration::from_millis(30) {
            x = std::hint::black_box(x.wrapping_add(1));
        }
        let worked = busy.elapsed();
        if cfg!(unix) {
            assert!(slept < Duration::from_millis(5), "asleep: {slept:?}");
        }
        // Preempted now and then on a busy machine, but never more than the wall time (read
        // around it; the kernel accounts the two clocks apart by some microseconds).
        let wall = wall.elapsed();
        assert!(
            worked > Duration::ZERO && worked <= wall + Duration::from_millis(1),
            "{worked:?} of CPU time in {wall:?}"
        );
    }
}
