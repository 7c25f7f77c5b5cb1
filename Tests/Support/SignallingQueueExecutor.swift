import Dispatch

/// A serial executor that runs an actor's jobs on a `DispatchQueue` a test can hold (a block that
/// waits on the queue keeps the actor busy), signalling `jobArrived` as each job is enqueued: so a
/// test can tell that a call has reached a busy actor.
package final class SignallingQueueExecutor: SerialExecutor {
    private let queue: DispatchQueue
    /// Signalled once per job enqueued.
    package let jobArrived = DispatchSemaphore(value: 0)

    package init(queue: DispatchQueue) {
        self.queue = queue
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobArrived.signal()
        queue.async { [self] in job.runSynchronously(on: asUnownedSerialExecutor()) }
    }
}
