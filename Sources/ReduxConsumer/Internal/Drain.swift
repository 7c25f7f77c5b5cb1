/// A serial executor that runs on the threads that call it: the heart of every store's ordering.
///
/// Work submitted to a drain runs one job at a time, in one global order. There is no thread of
/// its own: the first caller to find the drain idle becomes the *drainer* and runs jobs until the
/// queue is empty; callers that arrive while it is busy queue their job and wait until it has run.
/// Three rules make it safe to call from anywhere:
///
/// - A job submitted by the drainer itself (a dispatch from inside a reducer, middleware or
///   callback) is not run recursively and does not deadlock: it is queued locally and runs right
///   after the current job, before any job from another thread.
/// - A thread that is already running a drain of the same or a higher ``DrainLevel`` never blocks
///   here (that is how two stores dispatching into each other from two threads would deadlock): it
///   queues its job and returns, and the current drainer runs it. A store's thread may wait for a
///   consumer's drain (a higher level), so a store's dispatch returns after its consumers ran;
///   waits only ever go up the levels, so they cannot form a cycle.
/// - A drainer whose own job is done hands the drain over to a waiting thread instead of serving
///   others forever, so every blocking caller returns in bounded time.
///
/// State that only jobs touch (observer tables, a consumer's groups) needs no lock of its own: it
/// is *confined* to the drain, like an actor's state.
///
/// The drain is deliberately not generic. Its owners are (`Store<State>`), and their code runs
/// unspecialised inside this module, where every use of a generic type (`[Job<Item>]`, a tuple of
/// it) costs a runtime metadata lookup, several per dispatch. Jobs are plain closures instead,
/// and the common case allocates none: see ``submit(_:queueing:)``.
final class Drain: @unchecked Sendable {
    // @unchecked: `queue` is guarded by its lock; `local` and `localHead` are only touched by the
    // thread that is currently the drainer, and drainers hand over through that lock.

    /// A job waiting in the queue.
    typealias Job = @Sendable () -> Void

    private struct Queue {
        var jobs: [(job: Job, isWaitedFor: Bool)] = []
        var head = 0
        var isBusy = false
        var enqueued: UInt64 = 0
        var completed: UInt64 = 0
        var waitingThreads = 0
        var waitedForJobs = 0

        mutating func popFirst() -> Job {
            let next = jobs[head]
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                head = 0
            } else if head > 1024 && head * 2 > jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            if next.isWaitedFor { waitedForJobs -= 1 }
            return next.job
        }

        var isEmpty: Bool { head == jobs.count }
    }

    private let queue = Lock(Queue())
    private let level: DrainLevel
    // `@exclusivity(unchecked)`: drainer-only, never accessed across a job.
    @exclusivity(unchecked) private var local: [Job] = []
    @exclusivity(unchecked) private var localHead = 0

    init(level: DrainLevel) {
        self.level = level
    }

    /// Whether the calling thread is the drainer right now (inside a job of this drain).
    var isCurrentThreadDraining: Bool {
        ThreadContext.current.isRunning(ObjectIdentifier(self))
    }

    /// Runs `job` in this drain's order.
    ///
    /// When the drain is idle (the common case), `job` runs at once on the calling thread and
    /// nothing is allocated. Otherwise `queueing` is asked for an escaping copy of the job, which
    /// is queued. Returns after the job ran, except when called from inside this drain (then it
    /// runs right after the current job) or from inside another drain while this one is busy on
    /// another thread (then the current drainer runs it later).
    ///
    /// - Complexity: Two uncontended lock round trips when the drain is idle.
    func submit(_ job: () -> Void, queueing: () -> Job) {
        enter(job, queueing: queueing, runsInlineWhenReentrant: false)
    }

    /// Runs `job` with exclusive access to the drain's confined state.
    ///
    /// Unlike ``submit(_:queueing:)``, a re-entrant call runs `job` at once (a consumer removed
    /// from inside a callback must stop at once, not after the pass). Called from inside a reducer,
    /// `job` runs once the reducer has returned, as a submission would.
    func perform(_ job: () -> Void, queueing: () -> Job) {
        enter(job, queueing: queueing, runsInlineWhenReentrant: true)
    }

    private func enter(_ job: () -> Void, queueing: () -> Job, runsInlineWhenReentrant: Bool) {
        let context = ThreadContext.current
        if context.reducingStore != nil {
            // Submitted or performed from inside a reducer, which holds its store's lock: run it
            // once the reducer has returned, so no drain ever runs (or waits) inside a reducer. Run
            // inside it, a job that reads that store (a consumer's starting value) or takes its lock
            // (a subscription) would deadlock, and a wait for a drain busy on a thread that reads
            // the store's state would too.
            let later = queueing()
            context.dispatchesAfterReduce.append { [self] in
                enter(later, queueing: { later }, runsInlineWhenReentrant: runsInlineWhenReentrant)
            }
            return
        }
        let id = ObjectIdentifier(self)
        if context.isRunning(id) {
            if runsInlineWhenReentrant {
                job()
            } else {
                local.append(queueing())
            }
            return
        }
        // Fast path: an idle drain with nothing queued. Running the job straight away is exactly
        // what queueing it and popping it again would do, minus a lock round trip and a closure
        // allocation per dispatch.
        let idleTicket = queue.withLock { queue -> UInt64? in
            guard !queue.isBusy, queue.isEmpty else { return nil }
            queue.isBusy = true
            queue.enqueued += 1
            return queue.enqueued
        }
        if let idleTicket {
            context.enter(id, level: level)
            defer { context.leave(id) }
            job()
            runLocalJobs()
            drain(until: idleTicket, hasCompletedJob: true)
            return
        }
        enqueue(queueing(), context: context, id: id)
    }

    /// The general path: queue the job, then either become the drainer, wait for the job to be
    /// run, or (inside another drain) return at once.
    private func enqueue(_ job: @escaping Job, context: ThreadContext, id: ObjectIdentifier) {
        let mayWait = context.mayWait(for: level)
        let (ticket, isDrainer) = queue.withLock { queue -> (UInt64, Bool) in
            queue.enqueued += 1
            if !queue.isBusy {
                queue.isBusy = true
                queue.jobs.append((job, false))
                return (queue.enqueued, true)
            }
            queue.jobs.append((job, mayWait))
            if mayWait {
                queue.waitedForJobs += 1
                queue.waitingThreads += 1
            }
            return (queue.enqueued, false)
        }
        if !isDrainer {
            guard mayWait else { return }
            let takesOver = queue.withLock(waitingUntil: { $0.completed >= ticket || !$0.isBusy }) { queue in
                queue.waitingThreads -= 1
                if queue.completed >= ticket { return false }
                queue.isBusy = true
                return true
            }
            guard takesOver else { return }
        }
        context.enter(id, level: level)
        defer { context.leave(id) }
        drain(until: ticket, hasCompletedJob: false)
    }

    /// Runs queued jobs until the queue is empty, or until the job `ticket` is done and another
    /// thread is waiting to take over. The caller is the drainer.
    private func drain(until ticket: UInt64, hasCompletedJob: Bool) {
        var hasCompletedJob = hasCompletedJob
        while true {
            let (next, wakesWaiters) = queue.withLock { queue -> (Job?, Bool) in
                if hasCompletedJob { queue.completed += 1 }
                if queue.isEmpty || (queue.completed >= ticket && queue.waitedForJobs > 0) {
                    queue.isBusy = false
                    return (nil, queue.waitingThreads > 0)
                }
                return (queue.popFirst(), hasCompletedJob && queue.waitingThreads > 0)
            }
            if wakesWaiters { queue.broadcast() }
            guard let next else { return }
            next()
            runLocalJobs()
            hasCompletedJob = true
        }
    }

    private func runLocalJobs() {
        guard localHead < local.count else { return }
        while localHead < local.count {
            let job = local[localHead]
            localHead += 1
            job()
        }
        local.removeAll(keepingCapacity: true)
        localHead = 0
    }
}

/// Where a drain stands in the wait order: a thread running drains may only wait for a drain of a
/// strictly higher level.
enum DrainLevel: Int, Comparable, Sendable {
    /// A store's drain.
    case store = 1
    /// A state consumer's drain: fed by stores, never waits for one.
    case consumer = 2

    static func < (lhs: DrainLevel, rhs: DrainLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}
