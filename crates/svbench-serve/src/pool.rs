//! The worker pool: one thread per core that runs every CPU job (scores,
//! rows, resets, steps) so the async threads only move bytes.
//!
//! Jobs wait in one FIFO queue. A worker that finishes a job takes the next
//! one without sleeping, so under load a job costs one hand-off to the pool
//! and one wake of the waiting request, not a thread wake-up per job (as a
//! fresh `spawn_blocking` behind a semaphore did: that halved E1's
//! throughput). A job whose request has gone (timed out, client closed) is
//! dropped unrun when it reaches the front; the queue sheds such jobs when
//! it grows, so abandoned requests cannot pile up memory behind a long job.

use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

use tokio::sync::oneshot;

/// Why a job gave no result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobError {
    /// The job panicked.
    Panicked,
    /// The pool stopped before the job ran.
    Stopped,
}

/// A queued job: runs its closure and sends the result to its requester.
trait Job: Send {
    /// The requester no longer waits for the result.
    fn abandoned(&self) -> bool;
    fn run(self: Box<Self>, gate: &Gate);
}

struct Task<T, F> {
    f: F,
    tx: oneshot::Sender<Result<T, JobError>>,
}

impl<T: Send, F: FnOnce() -> T + Send> Job for Task<T, F> {
    fn abandoned(&self) -> bool {
        self.tx.is_closed()
    }

    fn run(self: Box<Self>, gate: &Gate) {
        gate.wait();
        let Task { f, tx } = *self;
        let result = catch_unwind(AssertUnwindSafe(f)).map_err(|_| JobError::Panicked);
        // The requester may have gone meanwhile; the result is dropped here.
        let _ = tx.send(result);
    }
}

/// A gate jobs wait at before they start (test hook: tests fill the pool
/// deterministically).
#[derive(Debug, Default)]
pub(crate) struct Gate {
    closed: Mutex<bool>,
    opened: Condvar,
    waiting: AtomicUsize,
}

impl Gate {
    pub(crate) fn set(&self, closed: bool) {
        *self.closed.lock().unwrap_or_else(PoisonError::into_inner) = closed;
        self.opened.notify_all();
    }

    pub(crate) fn waiting(&self) -> usize {
        self.waiting.load(Ordering::Acquire)
    }

    fn wait(&self) {
        let mut closed = self.closed.lock().unwrap_or_else(PoisonError::into_inner);
        if !*closed {
            return;
        }
        self.waiting.fetch_add(1, Ordering::AcqRel);
        while *closed {
            closed = self
                .opened
                .wait(closed)
                .unwrap_or_else(PoisonError::into_inner);
        }
        self.waiting.fetch_sub(1, Ordering::AcqRel);
    }
}

#[derive(Default)]
struct Queue {
    jobs: VecDeque<Box<dyn Job>>,
    /// Workers asleep on `Shared::ready`.
    idle: usize,
    stopped: bool,
}

#[derive(Default)]
struct Shared {
    queue: Mutex<Queue>,
    /// Jobs in the queue (read without the lock by spinning workers).
    queued: AtomicUsize,
    ready: Condvar,
    gate: Gate,
}

impl Shared {
    fn queue(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A fixed set of worker threads fed by one FIFO queue. Dropping the pool
/// stops its threads once the jobs they are running end; queued jobs are
/// answered [`JobError::Stopped`].
pub struct WorkerPool {
    shared: Arc<Shared>,
    threads: usize,
}

impl std::fmt::Debug for WorkerPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WorkerPool")
            .field("threads", &self.threads)
            .finish_non_exhaustive()
    }
}

impl WorkerPool {
    /// Starts `threads` workers (at least one).
    ///
    /// # Panics
    /// If the operating system refuses to start a thread.
    #[must_use]
    pub fn new(threads: usize) -> Self {
        let threads = threads.max(1);
        let shared = Arc::new(Shared::default());
        for i in 0..threads {
            let shared = Arc::clone(&shared);
            std::thread::Builder::new()
                .name(format!("svbench-worker-{i}"))
                .spawn(move || work(&shared))
                .expect("starting a worker thread");
        }
        Self { shared, threads }
    }

    /// Workers, hence jobs running at once.
    #[must_use]
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Queues `f` and waits for its result. Dropping the returned future
    /// abandons the job: it is skipped if it has not started, and runs to its
    /// end (holding its worker) if it has.
    ///
    /// # Errors
    /// [`JobError::Panicked`] if `f` panicked, [`JobError::Stopped`] if the
    /// pool stopped first.
    pub async fn run<T, F>(&self, f: F) -> Result<T, JobError>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let (tx, rx) = oneshot::channel();
        self.submit(Box::new(Task { f, tx }));
        rx.await.unwrap_or(Err(JobError::Stopped))
    }

    fn submit(&self, job: Box<dyn Job>) {
        let mut q = self.shared.queue();
        if q.stopped {
            // Dropping the job closes its channel: the requester sees `Stopped`.
            return;
        }
        // Shed abandoned jobs once the queue is long, so a burst of timed-out
        // requests behind long jobs does not keep their inputs in memory.
        if q.jobs.len() >= 4 * self.threads && q.jobs.len().is_power_of_two() {
            q.jobs.retain(|j| !j.abandoned());
        }
        q.jobs.push_back(job);
        self.shared.queued.store(q.jobs.len(), Ordering::Release);
        if q.idle > 0 {
            self.shared.ready.notify_one();
        }
    }

    /// Test hook: while closed, every job waits on its worker, holding it,
    /// before it starts.
    pub(crate) fn gate(&self) -> &Gate {
        &self.shared.gate
    }
}

impl Drop for WorkerPool {
    fn drop(&mut self) {
        let dropped = {
            let mut q = self.shared.queue();
            q.stopped = true;
            std::mem::take(&mut q.jobs)
        };
        self.shared.ready.notify_all();
        self.shared.gate.set(false);
        drop(dropped);
    }
}

/// Rounds of `yield_now` a worker looks for a job before it sleeps (tens
/// of microseconds: under load the next job comes sooner, and a sleep and
/// a wake-up cost more than the spin).
const SPIN_ROUNDS: usize = 100;

fn work(shared: &Shared) {
    let mut q = shared.queue();
    loop {
        if let Some(job) = q.jobs.pop_front() {
            shared.queued.store(q.jobs.len(), Ordering::Release);
            drop(q);
            if !job.abandoned() {
                job.run(&shared.gate);
            }
            q = shared.queue();
            continue;
        }
        if q.stopped {
            return;
        }
        // Under load the next job is usually microseconds away: look again
        // a few times, yielding the core, before paying for a sleep and a
        // wake-up.
        drop(q);
        for _ in 0..SPIN_ROUNDS {
            if shared.queued.load(Ordering::Acquire) > 0 {
                break;
            }
            std::thread::yield_now();
        }
        q = shared.queue();
        if !q.jobs.is_empty() {
            continue;
        }
        q.idle += 1;
        q = shared.ready.wait(q).unwrap_or_else(PoisonError::into_inner);
        q.idle -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn runs_jobs_and_reports_panics() {
        let pool = WorkerPool::new(2);
        assert_eq!(pool.run(|| 6 * 7).await, Ok(42));
        let panicked: Result<(), _> = pool.run(|| panic!("boom")).await;
        assert_eq!(panicked, Err(JobError::Panicked));
        // The worker that caught the panic still serves.
        let results = run_in_turn(&pool, 16).await;
        assert_eq!(results, (0..16).collect::<Vec<_>>());
    }

    async fn run_in_turn(pool: &WorkerPool, n: usize) -> Vec<usize> {
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            out.push(pool.run(move || i).await.unwrap());
        }
        out
    }

    /// Queues a job that counts its run in `ran`; the receiver is its requester.
    fn submit_counting(
        pool: &WorkerPool,
        ran: &Arc<AtomicUsize>,
    ) -> oneshot::Receiver<Result<(), JobError>> {
        let ran = Arc::clone(ran);
        let (tx, rx) = oneshot::channel();
        pool.submit(Box::new(Task {
            f: move || {
                ran.fetch_add(1, Ordering::SeqCst);
            },
            tx,
        }));
        rx
    }

    #[tokio::test]
    async fn an_abandoned_job_is_skipped_and_a_long_queue_sheds_them() {
        let pool = WorkerPool::new(1);
        pool.gate().set(true);
        let ran = Arc::new(AtomicUsize::new(0));
        // The worker takes the first job and holds at the gate.
        let first = submit_counting(&pool, &ran);
        while pool.gate().waiting() == 0 {
            std::thread::yield_now();
        }
        // Many jobs whose requesters go away at once.
        for _ in 0..64 {
            drop(submit_counting(&pool, &ran));
        }
        assert!(
            pool.shared.queue().jobs.len() < 64,
            "abandoned jobs were not shed"
        );
        pool.gate().set(false);
        first.await.unwrap().unwrap();
        // Wait for the queue to drain; none of the abandoned jobs ran.
        assert_eq!(pool.run(|| ()).await, Ok(()));
        assert_eq!(ran.load(Ordering::SeqCst), 1);
    }
}
