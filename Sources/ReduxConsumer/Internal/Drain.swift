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
/// - A thread that is already running a drain of the same or a higher ``DrainLevel`` never blocks here
///   (that is how two stores dispatching into each other from two threads would deadlock): it
///   queues its job and returns, and the current drainer runs it. A store's thread may wait for a
///   consumer's drain (a higher level), so a store's dispatch returns after its consumers ran;
///   waits only ever go up the levels, so they cannot form a cycle.
/// - A drainer whose own job is done hands the drain over to a waiting thread instead of serving
///   others forever, so every blocking caller returns in bounded time.
///
/// State that only jobs touch (observer tables, a consumer's groups) needs no lock of its own: it
/// is *confined* to the drain, like an actor's state.
final class Drain<Item: Sendable>: @unchecked Sendable {
    // @unchecked: `queue` is guarded by its lock; `local` and `localHead` are only touched by the
    // thread that is currently the drainer, and drainers hand over through that lock.

    /// One unit of work: an item for the owner's `process` function, or a closure to run as is.
    enum Job: Sendable {
        case item(Item)
        case run(@Sendable () -> Void)
    }

    private struct Queue {
        var jobs: [(job: Job, isWaitedFor: Bool)] = []
        var head = 0
        var isBusy = false
        var enqueued: UInt64 = 0
        var completed: UInt64 = 0
        var waitingThreads = 0
        var waitedForJobs = 0

        mutating func popFirst() -> (job: Job, isWaitedFor: Bool) {
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
            return next
        }

        var isEmpty: Bool { head == jobs.count }
    }

    private let queue = Lock(Queue())
    private let level: DrainLevel
    private var local: [Job] = []
    private var localHead = 0

    init(level: DrainLevel) {
        self.level = level
    }

    /// Whether the calling thread is the drainer right now (inside a job of this drain).
    var isCurrentThreadDraining: Bool {
        ThreadContext.current.isRunning(ObjectIdentifier(self))
    }

    /// Runs `item` through `process` in this drain's order.
    ///
    /// Returns after the item was processed, except when called from inside this drain (then it
    /// runs right after the current job) or from inside another drain while this one is busy on
    /// another thread (then the current drainer runs it later).
    func submit(_ item: Item, process: (Item) -> Void) {
        enter(.item(item), runsInlineWhenReentrant: false, process: process)
    }

    /// Runs `body` with exclusive access to the drain's confined state.
    ///
    /// Unlike ``submit(_:process:)``, a re-entrant call runs `body` at once (a consumer removed from
    /// inside a callback must stop at once, not after the pass).
    func perform(_ body: @escaping @Sendable () -> Void, process: (Item) -> Void) {
        enter(.run(body), runsInlineWhenReentrant: true, process: process)
    }

    private func enter(_ job: Job, runsInlineWhenReentrant: Bool, process: (Item) -> Void) {
        let context = ThreadContext.current
        let id = ObjectIdentifier(self)
        if context.isRunning(id) {
            if runsInlineWhenReentrant {
                run(job, process: process)
            } else {
                local.append(job)
            }
            return
        }
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
        drain(until: ticket, context: context, id: id, process: process)
    }

    /// Runs queued jobs until the queue is empty, or until the job `ticket` is done and another
    /// thread is waiting to take over.
    private func drain(until ticket: UInt64, context: ThreadContext, id: ObjectIdentifier, process: (Item) -> Void) {
        context.enter(id, level: level)
        defer { context.leave(id) }
        var hasCompletedJob = false
        while true {
            let (next, wakesWaiters) = queue.withLock { queue -> (Job?, Bool) in
                if hasCompletedJob { queue.completed += 1 }
                if queue.isEmpty || (queue.completed >= ticket && queue.waitedForJobs > 0) {
                    queue.isBusy = false
                    return (nil, queue.waitingThreads > 0)
                }
                return (queue.popFirst().job, hasCompletedJob && queue.waitingThreads > 0)
            }
            if wakesWaiters { queue.broadcast() }
            guard let next else { return }
            run(next, process: process)
            runLocalJobs(process: process)
            hasCompletedJob = true
        }
    }

    private func runLocalJobs(process: (Item) -> Void) {
        guard localHead < local.count else { return }
        while localHead < local.count {
            let job = local[localHead]
            localHead += 1
            run(job, process: process)
        }
        local.removeAll(keepingCapacity: true)
        localHead = 0
    }

    @inline(__always)
    private func run(_ job: Job, process: (Item) -> Void) {
        switch job {
        case .item(let item): process(item)
        case .run(let body): body()
        }
    }
}

/// Where a drain stands in the wait order: a thread running drains may only wait for a drain
/// of a strictly higher level.
enum DrainLevel: Int, Comparable, Sendable {
    /// A store's drain.
    case store = 1
    /// A state consumer's drain: fed by stores, never waits for one.
    case consumer = 2

    static func < (lhs: DrainLevel, rhs: DrainLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}
