/// The states of a ``Drain`` and its transitions: a value type with no locks and no user code, so
/// every rule can be tested alone.
///
/// A drain is *idle* (no owner) or *running* (one thread, the owner, runs its jobs one at a time);
/// a running owner may be *parked* (waiting inside the library for another thread). Jobs that
/// cannot run at once wait in a first-in, first-out queue, each with a ticket; a thread that
/// submitted a job and blocks until it has run is a *waiter*.
///
/// The owner runs queued jobs until the queue is empty, except that once its own job is done it
/// hands the drain over as soon as a waiter's job is queued, and stops after
/// ``maxJobsBeyondOwn`` more jobs when none is (the jobs that other stores' processing queues
/// without waiting, such as forwarded actions, or tasks' sends): the rest is then served on a
/// thread of no caller's (``Step/handOff(wakesWaiters:)``). Every waiter and every owner then
/// returns in bounded time, and no caller's thread serves the others forever.
///
/// The machine also keeps the *removal marks*: registrations removed by another thread while the
/// owner runs. Until the queued job that removes them for good has run, the owner checks them
/// before every callback (see ``Drain``).
struct DrainStateMachine {
    /// A thread, by the identity of its ``ThreadContext``.
    typealias ThreadID = ObjectIdentifier

    /// A queued job.
    struct Entry {
        /// `nil` once taken out: the queue must not keep a job (and what it holds) alive after it ran.
        var job: DrainJob?
        let generation: Int
        let isWaited: Bool
    }

    /// What a removal takes away from a registration (`tag` names the registration: a consumer's,
    /// a closure subscriber's, a listener's).
    enum RemovalScope: Equatable {
        /// One member.
        case member(UInt64)
        /// Every member up to `through`, the registration staying (a consumer's `removeAll()`):
        /// members added after it returned (with higher identifiers) are not its to remove.
        case everyMember(through: UInt64)
        /// The registration itself (a subscription cancelled).
        case registration

        func covers(_ member: UInt64) -> Bool {
            switch self {
            case .member(let removed): removed == member
            case .everyMember(let last): member <= last
            case .registration: true
            }
        }
    }

    /// A removal made while the drain runs on another thread, until its job has run.
    struct RemovalMark: Equatable {
        let serial: UInt64
        let tag: UInt
        let scope: RemovalScope

        func matches(tag: UInt, member: UInt64) -> Bool {
            self.tag == tag && scope.covers(member)
        }
    }

    /// What a submitter does next.
    enum Admission: Equatable {
        /// It owns the drain now: run the job, then the queue.
        case acquired
        /// The job is queued with this ticket.
        case queued(ticket: UInt64)
    }

    /// Makes `thread` the owner if the drain is idle and nothing is queued; says whether it did.
    mutating func acquire(by thread: ThreadID) -> Bool {
        guard owner == nil, isQueueEmpty else { return false }
        owner = thread
        return true
    }

    /// Queues a job and returns its ticket. A waited-for job counts its submitter as waiting.
    mutating func enqueue(_ job: @escaping DrainJob, generation: Int, isWaited: Bool) -> UInt64 {
        entries.append(Entry(job: job, generation: generation, isWaited: isWaited))
        issued += 1
        if isWaited {
            queuedWaitedEntries += 1
            waitingThreads += 1
        }
        return issued
    }

    /// What the owner does after a job.
    enum Step {
        /// Run this job next. `wakesWaiters`: broadcast first, the job just run was a waiter's.
        case run(DrainJob, generation: Int, wakesWaiters: Bool)
        /// Stop: the drain is no longer this thread's. `wakesWaiters`: broadcast, someone waits.
        case release(wakesWaiters: Bool)
        /// Stop, leaving jobs queued that no waiting thread will claim: the drain is no longer this
        /// thread's, and a thread of no caller's must serve the queue (see ``acquireToServe(by:)``).
        case handOff(wakesWaiters: Bool)
    }

    /// How many queued jobs an owner runs at most once its own job is done, when no waiter's job is
    /// queued, before it hands the rest of the queue over (about a millisecond of work).
    static let maxJobsBeyondOwn = 256

    private(set) var owner: ThreadID?
    private(set) var isOwnerParked = false
    private var entries: [Entry] = []
    private var head = 0
    /// Tickets given out: the last queued entry has ticket `issued`.
    private(set) var issued: UInt64 = 0
    /// Tickets whose entries have run, all of them in ticket order.
    private(set) var finished: UInt64 = 0
    /// Waited-for entries still queued: a reason to hand the drain over.
    private(set) var queuedWaitedEntries = 0
    /// Threads blocked waiting for a job of theirs.
    private(set) var waitingThreads = 0
    private(set) var removalMarks: [RemovalMark] = []
    /// Whether the job last taken out of the queue is one its submitter waits for.
    private var runsWaitedJob = false
    /// Jobs the owner ran after its own (see ``maxJobsBeyondOwn``).
    private var jobsBeyondOwn = 0
    private var lastMarkSerial: UInt64 = 0

    /// Whether no job is queued.
    var isQueueEmpty: Bool { head == entries.count }

    /// The number of queued entries.
    var queuedCount: Int { entries.count - head }

    /// Makes `thread` the owner if the drain is idle and nothing is queued, else queues `job`.
    mutating func acquireOrEnqueue(
        _ job: @escaping DrainJob,
        by thread: ThreadID,
        generation: Int,
        isWaited: Bool
    ) -> Admission {
        if acquire(by: thread) {
            return .acquired
        }
        return .queued(ticket: enqueue(job, generation: generation, isWaited: isWaited))
    }

    /// Like ``acquireOrEnqueue(_:by:generation:isWaited:)`` for a removal: when the drain runs on
    /// another thread, also marks `scope` of `tag` removed, so the owner skips them from now on, and
    /// queues the job `job(serial)` that finishes the removal and clears the mark.
    mutating func acquireOrMark(
        tag: UInt,
        scope: RemovalScope,
        job: (_ serial: UInt64) -> DrainJob,
        by thread: ThreadID,
        generation: Int
    ) -> Admission {
        if owner == nil, isQueueEmpty {
            owner = thread
            return .acquired
        }
        lastMarkSerial += 1
        removalMarks.append(RemovalMark(serial: lastMarkSerial, tag: tag, scope: scope))
        return acquireOrEnqueue(job(lastMarkSerial), by: thread, generation: generation, isWaited: false)
    }

    /// Forgets a removal mark: the removal it stood for is done.
    mutating func clearMark(_ serial: UInt64) {
        removalMarks.removeAll { $0.serial == serial }
    }

    /// Whether a removal mark covers `member` of `tag`.
    func isMarked(tag: UInt, member: UInt64) -> Bool {
        removalMarks.contains { $0.matches(tag: tag, member: member) }
    }

    /// The owner's next step, after it finished a queued job (`finishedJob`) or at first.
    ///
    /// - Parameter ownTicket: The ticket of the owner's own job, if it came through the queue: once
    ///   that job is done the owner hands over to waiters. `nil` when its own job ran at once.
    mutating func next(finishedJob: Bool, ownTicket: UInt64?) -> Step {
        assert(!isOwnerParked, "a drain ran a job while its owner was parked")
        var wakes = false
        var ranOthersWaitedJob = false
        if finishedJob {
            finished += 1
            wakes = waitingThreads > 0
            // Its submitter returns now, not once this owner lets go: the owner's next job may wait for it.
            ranOthersWaitedJob = runsWaitedJob && finished != ownTicket
        }
        let ownJobIsDone = ownTicket.map { finished >= $0 } ?? true
        if isQueueEmpty || (ownJobIsDone && queuedWaitedEntries > 0) {
            owner = nil
            jobsBeyondOwn = 0
            return .release(wakesWaiters: wakes || (waitingThreads > 0 && !isQueueEmpty))
        }
        if ownJobIsDone {
            guard jobsBeyondOwn < Self.maxJobsBeyondOwn else {
                owner = nil
                jobsBeyondOwn = 0
                return .handOff(wakesWaiters: wakes || waitingThreads > 0)
            }
            jobsBeyondOwn += 1
        }
        let entry = popFirst()
        runsWaitedJob = entry.isWaited
        // Every entry has its job until it is popped, here.
        return .run(entry.job.unsafelyUnwrapped, generation: entry.generation, wakesWaiters: ranOthersWaitedJob)
    }

    /// Makes `thread` the owner if the drain is idle and jobs are queued (left by a
    /// ``Step/handOff(wakesWaiters:)``); says whether it did. The new owner has no job of its own:
    /// it runs the queue as an owner whose job is done.
    mutating func acquireToServe(by thread: ThreadID) -> Bool {
        guard owner == nil, !isQueueEmpty else { return false }
        owner = thread
        return true
    }

    /// Whether a thread waiting for `ticket` should wake up and decide (see ``settle(ticket:thread:)``).
    func isSettled(ticket: UInt64) -> Bool {
        finished >= ticket || owner == nil
    }

    /// Decides for a thread whose wait for `ticket` is settled: `true` if it now owns the drain
    /// (and runs the queue until its job is done), `false` if its job has run.
    mutating func settle(ticket: UInt64, thread: ThreadID) -> Bool {
        waitingThreads -= 1
        if finished >= ticket {
            return false
        }
        precondition(owner == nil, "a waiter woke without a decision")
        owner = thread
        return true
    }

    /// The owner starts waiting for another thread.
    mutating func park() {
        assert(!isOwnerParked, "a drain parked twice")
        isOwnerParked = true
    }

    /// The owner resumes.
    mutating func unpark() {
        assert(isOwnerParked, "a drain unparked without parking")
        isOwnerParked = false
    }

    private mutating func popFirst() -> Entry {
        let entry = entries[head]
        entries[head].job = nil
        head += 1
        if entry.isWaited {
            queuedWaitedEntries -= 1
        }
        if head == entries.count {
            entries.removeAll(keepingCapacity: entries.count <= 1024)
            head = 0
        } else if head > 1024, head * 2 > entries.count {
            entries.removeFirst(head)
            head = 0
        }
        return entry
    }
}

extension DrainStateMachine.Step {
    /// Whether the step ends the owner's hold on the drain.
    var endsOwnership: Bool {
        switch self {
        case .run: false
        case .release, .handOff: true
        }
    }
}
