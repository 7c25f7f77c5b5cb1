import Dispatch
import ReduxConsumerAtomics

/// Work for a ``Drain``: a dispatch, or a change to the consumers it serializes.
typealias DrainJob = @Sendable () -> Void

/// A serial executor that runs on the threads that call it: the heart of every store's ordering.
///
/// Jobs run one at a time, in one order, on the callers' own threads: the first caller to find the
/// drain idle becomes its *owner* and runs jobs until the queue is empty (or until its own job is
/// done and another thread waits, which then takes over). The rules and their states live in
/// ``DrainStateMachine``; this type holds the lock, the threads' waits, and the jobs.
///
/// How a job is run depends on its ``Kind`` and on where it comes from:
///
/// | from | `dispatch` | `control` | `removal` |
/// | --- | --- | --- | --- |
/// | this drain's own jobs (re-entrant) | after the current job | now | now |
/// | another drain's job nested in one of this drain's | behind the queued jobs, if any | now | now |
/// | inside a reducer (of any store) | after the reducer returns | same | now |
/// | a thread inside another drain's work, this one busy | queued | queued | marked, then queued |
/// | any other thread, this one busy | waits for it | waits for it | marked, then queued |
///
/// ## Removals are final at once
/// A removal must hold when it returns, yet it cannot wait for the owner's current job: that job
/// may be a callback waiting for the remover. So a removal on a drain busy on another thread
/// *marks* what it removes and queues the job that removes it for good; until that job has run,
/// the owner checks the marks before every callback (``willCall(tag:member:)``), and skips what is
/// marked. The owner publishes which callback it is about to call before it checks, and the
/// remover looks at that after marking, with a memory barrier between store and load on each side
/// (an asymmetric pair: nearly free for the owner, see `ReduxConsumerAtomics`): either the owner
/// sees the mark, or the remover sees the call in progress and waits for that one call to return.
/// That wait is the only one a removal makes. It ends early if the owner parks (see
/// ``ThreadContext/parked(_:)``) while another thread may be waiting for the remover
/// (``ThreadContext/mayBeWaitedFor``), so it cannot close a cycle; a remover no thread can wait for
/// waits for the call whatever the owner does, as no cycle can lead back to it.
///
/// State confined to the drain (observers, consumers) lives in ``DrainBound`` values, which check
/// in debug builds that only the owner touches them.
@usableFromInline
final class Drain: @unchecked Sendable {
    // @unchecked: `machine` is guarded by its lock; `local` and `deferred` are only touched by the
    // thread that owns the drain (drains change owner through that lock); the call slots are
    // atomics.

    /// How a job is ordered; see the type's table.
    enum Kind {
        /// An action: re-entrant ones run after the current job; one from another drain's job
        /// nested in this drain's is ordered as a ``forward``.
        case dispatch
        /// An action another store forwarded, in that store's order: re-entrant ones run after the
        /// current job, behind the jobs already queued when there are any (among them, maybe, the
        /// forwarded actions before it, queued by the threads that ran that store earlier).
        case forward
        /// Adding a consumer or a subscription: re-entrant ones run at once.
        case control
        /// Removing one: always in effect when `submit` returns.
        case removal
    }

    private let machine: ConditionLock<DrainStateMachine>
    // `@exclusivity(unchecked)` on `local`, `deferred`, `needsPublishing`, `heldSenders` and
    // `jobsHoldingSenders`: only the owner touches them (the held senders are taken under the
    // machine's lock while this thread still owns the drain), in short accesses that never span a
    // job, so accesses cannot overlap; the ThreadSanitizer run of the suite checks it.
    /// Jobs submitted by the owner's own jobs, run right after the current one.
    @exclusivity(unchecked) private var local: [(job: DrainJob, generation: Int)] = []
    /// The jobs ``afterCurrentJob(generation:_:)`` was given during the job in progress, in
    /// order: they run right after it, ahead of the jobs it submitted to `local` (see
    /// ``runLocalJobs(_:)``). Kept apart from `local`, not inserted into it: an insertion moved
    /// every job queued behind it, so a callback that dispatched k actions, then unsubscribed n
    /// consumers, paid n·k moves. `@exclusivity(unchecked)` as `local`.
    @exclusivity(unchecked) private var afterCurrent: [(job: DrainJob, generation: Int)] = []
    /// Jobs submitted (to any drain) while this drain's reducer runs on its owner's thread, run
    /// once the reducer has returned.
    @exclusivity(unchecked) private var deferred: [(target: Drain, job: DrainJob, kind: Kind, generation: Int)] = []
    /// Whether the owner is releasing what its last publish set aside: a `deinit` that runs then
    /// must not reduce and publish in place (a middleware's `next` called late, from that
    /// `deinit`), since the publish's buffers are in use; the store queues that reduction instead.
    // `@exclusivity(unchecked)`: set and read by the drain's owner only (`release(_:)` asserts
    // it through `publishNow`), never across a call; `StateLayoutTests` fails if it is not honoured.
    @exclusivity(unchecked) private(set) var isReleasingPublished = false
    /// Whether the owner's state changed since it was last published (see ``setPublisher(_:)``).
    @exclusivity(unchecked) private var needsPublishing = false
    /// Tasks whose queued jobs have run, resumed when the owner lets go (see ``resumeAfterJob(_:)``).
    @exclusivity(unchecked) private var heldSenders: [UnsafeContinuation<Void, Never>] = []
    /// Jobs run since the oldest held task's: past ``maxJobsHoldingSenders`` the held tasks are
    /// resumed, so a sender waits a bounded number of actions even while other threads keep the
    /// drain busy without end.
    @exclusivity(unchecked) private var jobsHoldingSenders = 0
    /// Publishes the owner's state for other threads (see ``setPublisher(_:)``), kept alive by
    /// `publisherOwner`.
    // `Unmanaged`: used on every dispatch, where a strong reference costs a retain and a release;
    // `publisherOwner` holds the same object for the drain's whole life once set (`publishNow()`
    // asserts it in debug builds), so the reference never dangles.
    @exclusivity(unchecked) private var publisher: Unmanaged<StatePublisher>?
    private var publisherOwner: StatePublisher?
    /// The callbacks the owner is calling (a stack: a callback may subscribe a consumer, whose
    /// first callbacks run inside it), and how many removal marks are pending: words the owner
    /// writes and other threads read, with relaxed atomics. Layout: the mark count, the depth,
    /// then a tag and a member per level, for the first ``maxPublishedCalls`` levels.
    @usableFromInline let callSlots: UnsafeMutablePointer<UInt>
    /// The call depth, as the owner knows it (the published copy is in `callSlots`).
    @exclusivity(unchecked) @usableFromInline var callDepth = 0

    @usableFromInline static let markCountSlot = 0
    @usableFromInline static let depthSlot = 1
    @usableFromInline static let firstCallSlot = 2
    /// Levels of nested calls published one by one; deeper calls count as calling everything, so
    /// a remover waits for them to return (or for the owner to park). Four: a callback that
    /// subscribes a consumer whose first callbacks add another is three deep; every store pays
    /// two words per level.
    @usableFromInline static let maxPublishedCalls = 4
    private static let slotCount = firstCallSlot + 2 * maxPublishedCalls

    init() {
        rc_setup()
        // In the lock's allocation (one allocation less per store), which lives as long as the
        // drain; only ever accessed through the `rc_` atomics.
        machine = ConditionLock(DrainStateMachine(), trailingWords: Self.slotCount)
        callSlots = machine.trailingWords
    }

    /// Runs `job` in this drain's order; see the type's table for when.
    ///
    /// - Parameters:
    ///   - kind: How the job is ordered.
    ///   - generation: The job's place in a chain of dispatches (see ``ThreadContext``).
    ///   - context: The calling thread's context, if the caller has it at hand.
    ///   - job: The work, run at once when the drain is idle: no allocation then.
    ///   - queueing: An escaping copy of `job`, asked for only when it must wait in a queue.
    /// - Complexity: Two uncontended lock round trips when the drain is idle.
    func submit(
        _ kind: Kind,
        generation: Int,
        context: ThreadContext = .current,
        _ job: () -> Void,
        queueing: () -> DrainJob
    ) {
        if let reducing = context.reducing, kind != .removal {
            // A reducer's dispatches and additions wait until it has returned: no store runs, and
            // no consumer is added, in the middle of a reducer.
            reducing.takeUnretainedValue().deferred.append((self, queueing(), kind, generation))
            return
        }
        if context.owns(self) {
            submitFromOwner(kind, generation: generation, context: context, job, queueing: queueing)
            return
        }
        let thread = ObjectIdentifier(context)
        // Waiting here from inside another drain's work could close a cycle of waits.
        let waits = !context.isHolder
        let ticket: UInt64? = machine.withLock { machine in
            if machine.acquire(by: thread) { return nil }
            return machine.enqueue(queueing(), generation: generation, isWaited: waits)
        }
        guard let ticket else {
            runAsOwner(job, generation: generation, context: context)
            return
        }
        if waits {
            wait(for: ticket, context: context)
        }
    }

    /// ``submit(_:generation:context:_:queueing:)`` from the thread that runs this drain (re-entrant
    /// work). Out of line: the common submit, from a thread that does not, stays small enough to
    /// inline into every dispatch.
    @inline(never)
    private func submitFromOwner(
        _ kind: Kind, generation: Int, context: ThreadContext, _ job: () -> Void, queueing: () -> DrainJob
    ) {
        switch kind {
        case .dispatch where context.isInnermost(self):
            local.append((queueing(), generation))
        case .dispatch, .forward:
            // A dispatch from another store's processing nested in this drain's job (a page's
            // callback dispatching to its global store) is ordered like a forward: the same
            // store's earlier dispatches, made on other threads, may be queued here.
            // Behind the queue when anything waits there; with nothing queued, the forwarded
            // actions before this one have run or are in `local`, which runs before the queue.
            let job = queueing()
            // The lock only enqueues the job (no user code under it); the job runs later, outside.
            let isQueued = machine.withLock { machine in
                guard !machine.isQueueEmpty else { return false }
                _ = machine.enqueue(job, generation: generation, isWaited: false)
                return true
            }
            if !isQueued {
                local.append((job, generation))
            }
        case .control, .removal:
            job()
        }
    }

    /// Sets what publishes the state of the drain's owner (a store) for other threads; call once,
    /// while the owner is being built. The drain keeps it.
    func setPublisher(_ publisher: StatePublisher) {
        assert(snapshot.owner == nil, "a drain's publisher was set late")
        publisherOwner = publisher
        self.publisher = Unmanaged.passUnretained(publisher)
    }

    /// Publishes the owner's state: under the lock, then releases what that set aside after it.
    @inline(__always)
    private func publishNow() {
        assert(publisherOwner === publisher?.takeUnretainedValue(), "a drain's publisher is not the one it keeps")
        // The publisher's buffers and counts are the owner's alone (`StoreShared`, `StateLayout`).
        assertOwned(by: .current)
        publisher?._withUnsafeGuaranteedRef { publisher in
            let releases = publisher.preparePublish()
            machine.withLock { _ in publisher.publish() }
            if releases {
                release(publisher)
            }
        }
    }

    /// Readies a publish of the owner's state before the lock round trip that asks the machine
    /// for the next step: returns `true` when the publish sets nothing aside and may happen in
    /// that round trip; otherwise publishes now, in a round trip of its own, while this thread
    /// still owns the drain: what the publish set aside is released outside the lock, and before
    /// another thread may own the drain and publish in turn.
    private func publishesWithoutRelease() -> Bool {
        assert(publisherOwner === publisher?.takeUnretainedValue(), "a drain's publisher is not the one it keeps")
        assertOwned(by: .current)
        guard let publisher else { return false }
        return publisher._withUnsafeGuaranteedRef { publisher in
            if !publisher.preparePublish() { return true }
            machine.withLock { _ in publisher.publish() }
            release(publisher)
            return false
        }
    }

    /// Releases what a publish set aside, noting meanwhile that a `deinit` it runs must not
    /// publish in turn (see ``isReleasingPublished``).
    @inline(__always)
    private func release(_ publisher: StatePublisher) {
        isReleasingPublished = true
        publisher.releaseRetired()
        isReleasingPublished = false
    }

    /// Notes that the owner's state changed: it is published with the next lock round trip the
    /// drain makes anyway (when the current job is done), or by ``publishIfNeeded()``.
    func needsPublish() {
        needsPublishing = true
    }

    /// Publishes the owner's state now if it changed since it was last published.
    // The check inline, the publish not: called twice per dispatch, mostly with nothing to do.
    @inline(__always)
    func publishIfNeeded() {
        if needsPublishing { publishPending() }
    }

    @inline(never)
    private func publishPending() {
        needsPublishing = false
        publishNow()
    }

    /// Runs `job` now if the drain is idle (returns `true`), without ever waiting: a task must not
    /// block a thread of the cooperative pool. When the drain is busy, returns `false` and changes
    /// nothing.
    func runIfIdle(generation: Int, _ job: () -> Void) -> Bool {
        let context = ThreadContext.current
        guard context.reducing == nil, !context.owns(self) else { return false }
        guard machine.withLock({ $0.acquire(by: ObjectIdentifier(context)) }) else { return false }
        runAsOwner(job, generation: generation, context: context)
        return true
    }

    /// Runs `job` now if the drain is idle, or queues it (without waiting) to run in order after
    /// the work in progress. For tasks: a queued job hands its task to ``resumeAfterJob(_:)``.
    func runOrQueue(generation: Int, _ job: @escaping DrainJob) {
        let context = ThreadContext.current
        if context.reducing != nil || context.owns(self) {
            submit(.dispatch, generation: generation, context: context, {}, queueing: { job })
            return
        }
        let acquired = machine.withLock { machine in
            if machine.acquire(by: ObjectIdentifier(context)) { return true }
            _ = machine.enqueue(job, generation: generation, isWaited: false)
            return false
        }
        if acquired {
            runAsOwner(job, generation: generation, context: context)
        }
    }

    /// Runs `job` right after the job in progress, before any other; call from a job of this
    /// drain, for work that must wait until the job's user code (a pass's callbacks) is over.
    func afterCurrentJob(generation: Int, _ job: @escaping DrainJob) {
        assertOwned(by: .current)
        afterCurrent.append((job, generation))
    }

    /// Queues `job` behind the jobs queued so far, without waiting; call from a job of this drain,
    /// for work that must follow them (``submit(_:generation:_:queueing:)`` would run it first).
    func queueBehindQueuedJobs(generation: Int, _ job: @escaping DrainJob) {
        assertOwned(by: .current)
        machine.withLock { _ = $0.enqueue(job, generation: generation, isWaited: false) }
    }

    /// Resumes `sender`, a task whose job this thread has just run, once this thread stops running
    /// the drain (or parks); past ``maxHeldSenders`` held tasks, a task of its own resumes them.
    /// Call from a job of this drain.
    ///
    /// Resuming a task wakes an idle thread of the pool, and the kernel often runs it in place of
    /// this one: the drain stalls while the woken task finds it busy, queues its next send and
    /// sleeps again, two context switches per send. Resumed once the drain is released, the tasks
    /// find it free, and one wake-up serves them all.
    func resumeAfterJob(_ sender: UnsafeContinuation<Void, Never>) {
        heldSenders.append(sender)
        guard heldSenders.count >= Self.maxHeldSenders else { return }
        var senders: [UnsafeContinuation<Void, Never>] = []
        swap(&senders, &heldSenders)
        jobsHoldingSenders = 0
        Task.detached { [senders] in Self.resume(senders) }
    }

    /// How many finished tasks the owner holds at most (a queue that long is served in about a
    /// millisecond).
    static let maxHeldSenders = 1_024

    /// How many jobs the owner runs at most while it holds finished tasks.
    static let maxJobsHoldingSenders = 256

    /// Resumes the held tasks now, after a job, when they have waited ``maxJobsHoldingSenders``
    /// jobs. Call from the owner, between jobs.
    private func resumeLongHeldSenders() {
        guard !heldSenders.isEmpty else { return }
        jobsHoldingSenders += 1
        guard jobsHoldingSenders >= Self.maxJobsHoldingSenders else { return }
        var senders: [UnsafeContinuation<Void, Never>] = []
        swap(&senders, &heldSenders)
        jobsHoldingSenders = 0
        Self.resume(senders)
    }

    private static func resume(_ senders: [UnsafeContinuation<Void, Never>]) {
        for sender in senders {
            sender.resume()
        }
    }

    /// ``submit(_:generation:_:queueing:)`` for a job that is escaping already.
    func submit(_ kind: Kind, generation: Int, _ job: @escaping DrainJob) {
        submit(kind, generation: generation, job, queueing: { job })
    }

    /// Runs a removal: now when this thread owns the drain or finds it idle; otherwise marks
    /// `scope` of the registration `tag` removed, queues `job` to finish the removal, and returns
    /// once no call it covers is in progress (see the type's documentation).
    func remove(tag: UInt, _ scope: DrainStateMachine.RemovalScope, _ job: @escaping DrainJob) {
        finishRemoval(admitRemoval(tag: tag, scope, { job }), job)
    }

    /// How a removal goes on, decided by ``admitRemoval(tag:_:_:)``.
    enum RemovalAdmission {
        /// This thread runs the drain: run the job now.
        case reentrant
        /// The drain was idle and is this thread's now: run the job as its owner.
        case acquired
        /// The drain runs on another thread: the removal is marked and its job queued; wait for a
        /// call it covers in progress.
        case marked(tag: UInt, DrainStateMachine.RemovalScope)
    }

    /// The first half of ``remove(tag:_:_:)``: decides, under the drain's lock only, so a
    /// caller may hold a lock of its own around it (a consumer's, so that the consumer cannot move
    /// to another drain in between). Pass the result to ``finishRemoval(_:_:)``.
    ///
    /// `makeJob` is called only when the removal is queued (the drain runs on another thread):
    /// the common cases run the removal in ``finishRemoval(_:_:)`` with nothing allocated.
    func admitRemoval(
        tag: UInt,
        _ scope: DrainStateMachine.RemovalScope,
        _ makeJob: () -> DrainJob
    ) -> RemovalAdmission {
        ThreadContext.withCurrent { context in admitRemoval(tag: tag, scope, makeJob, context: context) }
    }

    private func admitRemoval(
        tag: UInt,
        _ scope: DrainStateMachine.RemovalScope,
        _ makeJob: () -> DrainJob,
        context: ThreadContext
    ) -> RemovalAdmission {
        if context.owns(self) {
            return .reentrant
        }
        let thread = ObjectIdentifier(context)
        return machine.withLock { machine in
            let admission = machine.acquireOrMark(
                tag: tag,
                scope: scope,
                job: { serial in
                    let job = makeJob()
                    return { [self] in
                        job()
                        clearMark(serial)
                    }
                },
                by: thread,
                generation: context.generation
            )
            guard case .queued = admission else { return .acquired }
            rc_store_relaxed(callSlots + Self.markCountSlot, UInt(machine.removalMarks.count))
            return .marked(tag: tag, scope)
        }
    }

    /// The second half of ``remove(tag:_:_:)``; call without holding any lock.
    /// `job` runs here unless the removal was queued (``RemovalAdmission/marked(tag:_:)``).
    func finishRemoval(_ admission: RemovalAdmission, _ job: () -> Void) {
        ThreadContext.withCurrent { context in finishRemoval(admission, job, context: context) }
    }

    private func finishRemoval(_ admission: RemovalAdmission, _ job: () -> Void, context: ThreadContext) {
        switch admission {
        case .reentrant:
            job()
        case .acquired:
            runAsOwner(job, generation: context.generation, context: context)
        case .marked(let tag, let scope):
            // The owner published its callback before checking the marks; this is the other half.
            rc_heavy_barrier()
            // A parked owner may be waiting for this thread: the wait gives way to it, unless no
            // thread can be waiting for this one (then the owner's wait, which cannot lead back
            // here, ends on its own, and the call it is in with it).
            let givesWayToParkedOwner = context.mayBeWaitedFor
            context.parked {
                machine.withLock(waitingUntil: { [callSlots] machine in
                    (givesWayToParkedOwner && machine.isOwnerParked) || !Self.isCalling(tag: tag, scope, in: callSlots)
                }) { _ in }
            }
        }
    }

    /// The member removals marked for the registration `tag`, for a registration leaving this
    /// drain: they must be done before it goes. Call from a job of this drain.
    func markedRemovals(of tag: UInt) -> [DrainStateMachine.RemovalScope] {
        machine.withLock { machine in
            machine.removalMarks.filter { $0.tag == tag && $0.scope != .registration }.map(\.scope)
        }
    }

    /// Called by the owner right before a user callback (tag and member name it); returns `false`
    /// when it was removed (then skip it and do not call ``didCall()``).
    ///
    /// Inlined into the delivery loops: a handful of stores and a load when nothing is marked.
    @inlinable
    @inline(__always)
    func willCall(tag: UInt, member: UInt64) -> Bool {
        let depth = callDepth
        if depth < Self.maxPublishedCalls {
            let slot = callSlots + (Self.firstCallSlot &+ 2 &* depth)
            rc_store_relaxed(slot, tag)
            rc_store_relaxed(slot + 1, UInt(truncatingIfNeeded: member))
        }
        callDepth = depth &+ 1
        rc_store_relaxed(callSlots + Self.depthSlot, UInt(bitPattern: depth &+ 1))
        rc_light_barrier()
        guard rc_load_relaxed(callSlots + Self.markCountSlot) != 0 else { return true }
        return willCallWhileMarked(tag: tag, member: member, depth: depth)
    }

    /// ``willCall(tag:member:)`` when removals are marked: looks the callback up in the marks.
    @usableFromInline
    func willCallWhileMarked(tag: UInt, member: UInt64, depth: Int) -> Bool {
        if machine.withLock({ $0.isMarked(tag: tag, member: member) }) {
            callDepth = depth
            rc_store_relaxed(callSlots + Self.depthSlot, UInt(bitPattern: depth))
            // The remover of this very call may have seen it named, and waits for it to end.
            wakeRemovers()
            return false
        }
        return true
    }

    /// Called by the owner right after a user callback that ``willCall(tag:member:)`` allowed.
    @inlinable
    func didCall() {
        assert(callDepth > 0, "didCall without willCall")
        let depth = callDepth &- 1
        callDepth = depth
        rc_store_relaxed(callSlots + Self.depthSlot, UInt(bitPattern: depth))
        rc_light_barrier()
        if rc_load_relaxed(callSlots + Self.markCountSlot) != 0 {
            // A remover may be waiting for this very call.
            wakeRemovers()
        }
    }

    /// Where a run of calls at one level publishes them (see ``beginCalls()``): kept in the
    /// caller's registers, so that a call names itself with one store.
    // Its pointers are words of `callSlots`, which live as long as the drain, or (beyond the
    // published levels) the owner thread's spare words, which live as long as the thread; a level
    // is used only between `beginCalls()` and `endCalls(_:)` by the owner, inside a job that keeps
    // the drain alive (`endCalls` asserts the depth it restores).
    @usableFromInline
    struct CallLevel {
        @usableFromInline let level: Int
        /// The level's tag word (its member word follows); beyond ``maxPublishedCalls``, whose
        /// calls count as calling everything, the calling thread's spare pair, read by no one.
        @usableFromInline let tagSlot: UnsafeMutablePointer<UInt>
        @usableFromInline let markCount: UnsafeMutablePointer<UInt>

        @inlinable
        init(level: Int, tagSlot: UnsafeMutablePointer<UInt>, markCount: UnsafeMutablePointer<UInt>) {
            self.level = level
            self.tagSlot = tagSlot
            self.markCount = markCount
        }
    }

    /// Starts a run of calls at one level, one registration after another (a store's closure
    /// subscribers): the level is published once, then each call is named with one store
    /// (``willCallNext(tag:at:barrierIsCompilerOnly:)``) or two (``willCall(tag:member:at:)`` and
    /// ``didCall(at:)``), where ``willCall(tag:member:)`` and ``didCall()`` publish the depth and
    /// the member every time. End with ``endCalls(_:)``.
    @inlinable
    func beginCalls() -> CallLevel {
        let depth = callDepth
        // Deeper levels than the published ones name their calls in the thread's spare words.
        let tagSlot =
            depth < Self.maxPublishedCalls
            ? callSlots + (Self.firstCallSlot &+ 2 &* depth) : rc_spare_call_slot().unsafelyUnwrapped
        rc_store_relaxed(tagSlot, 0)
        rc_store_relaxed(tagSlot + 1, 0)
        callDepth = depth &+ 1
        rc_store_relaxed(callSlots + Self.depthSlot, UInt(bitPattern: depth &+ 1))
        return CallLevel(level: depth, tagSlot: tagSlot, markCount: callSlots + Self.markCountSlot)
    }

    /// Like ``willCall(tag:member:)``, inside ``beginCalls()``, for calls made back to back with
    /// no ``didCall(at:)`` between them: storing `tag` also ends the level's previous call (so use
    /// it only where no user code runs between two calls), and ``endCalls(_:)`` ends the last.
    /// Returns `false` when `tag` was removed (skip it).
    @inlinable
    @inline(__always)
    func willCallNext(tag: UInt, at level: CallLevel, barrierIsCompilerOnly: Bool) -> Bool {
        rc_store_relaxed(level.tagSlot, tag)
        // `barrierIsCompilerOnly` is `rc_light_barrier_is_compiler_only()`, read once by the
        // caller, whose loop is compiled once for each value.
        if barrierIsCompilerOnly { rc_compiler_barrier() } else { rc_full_barrier() }
        guard rc_load_relaxed(level.markCount) != 0 else { return true }
        return willCallNextWhileMarked(tag: tag, at: level)
    }

    /// ``willCallNext(tag:at:barrierIsCompilerOnly:)`` when removals are marked: a remover may be
    /// waiting for the call that just ended, and `tag` itself may be removed.
    // Out of line: the loops that call it keep their registers for the unmarked path.
    @usableFromInline
    @inline(never)
    func willCallNextWhileMarked(tag: UInt, at level: CallLevel) -> Bool {
        if isMarked(tag: tag) {
            didCall(at: level)
            return false
        }
        wakeRemovers()
        return true
    }

    /// Like ``willCall(tag:member:)``, inside ``beginCalls()``, for one member of a registration (a
    /// consumer's members on one selection, called one after another): `false` when that member,
    /// or its registration, was removed (skip it); otherwise end the call with ``didCall(at:)``.
    @inlinable
    func willCall(tag: UInt, member: UInt64, at level: CallLevel) -> Bool {
        // The member first, so that the tag never names this call with the previous member.
        rc_store_relaxed(level.tagSlot + 1, UInt(truncatingIfNeeded: member))
        rc_store_relaxed(level.tagSlot, tag)
        rc_light_barrier()
        guard rc_load_relaxed(level.markCount) != 0 else { return true }
        if isMarked(tag: tag, member: member) {
            didCall(at: level)
            return false
        }
        return true
    }

    /// Whether a removal mark covers registration `tag` (any member).
    @usableFromInline
    func isMarked(tag: UInt) -> Bool {
        machine.withLock { $0.isMarked(tag: tag, member: 0) }
    }

    /// Whether a removal mark covers member `member` of registration `tag`, or the registration.
    @usableFromInline
    func isMarked(tag: UInt, member: UInt64) -> Bool {
        machine.withLock { $0.isMarked(tag: tag, member: member) }
    }

    /// Like ``didCall()``, inside ``beginCalls()``: the level names no call until the next
    /// ``willCall(tag:member:at:)``, so that a remover of the registration just called never waits
    /// for the next one.
    @inlinable
    func didCall(at level: CallLevel) {
        rc_store_relaxed(level.tagSlot, 0)
        rc_light_barrier()
        if rc_load_relaxed(level.markCount) != 0 {
            wakeRemovers()
        }
    }

    /// Ends the run of calls ``beginCalls()`` started.
    @inlinable
    func endCalls(_ level: CallLevel) {
        assert(callDepth == level.level &+ 1, "calls ended at another level")
        callDepth = level.level
        rc_store_relaxed(callSlots + Self.depthSlot, UInt(bitPattern: level.level))
        rc_light_barrier()
        if rc_load_relaxed(level.markCount) != 0 {
            wakeRemovers()
        }
    }

    /// Wakes removers waiting for a call to end.
    ///
    /// The owner ended the call with plain stores, outside the lock: taking the lock once before
    /// the broadcast orders those stores with a remover's check, so the wake-up cannot land between
    /// its check and its wait and be lost.
    @usableFromInline
    func wakeRemovers() {
        machine.withLock { _ in }
        machine.broadcast()
    }

    /// The member of registration `tag` whose callback the owner is calling (the innermost such
    /// call), if any. Call from a job of this drain.
    func callingMember(of tag: UInt) -> UInt64? {
        var level = min(callDepth, Self.maxPublishedCalls)
        while level > 0 {
            level -= 1
            if rc_load_relaxed(callSlots + Self.firstCallSlot + 2 * level) == tag {
                return UInt64(rc_load_relaxed(callSlots + Self.firstCallSlot + 2 * level + 1))
            }
        }
        return nil
    }

    /// Runs `body` as this drain's reducer: dispatches and additions submitted meanwhile, to any
    /// drain, wait until ``runDeferred()``. Call from a job.
    func reducing<Result>(context: ThreadContext, _ body: () -> Result) -> Result {
        assertOwned(by: context)
        assert(context.reducing == nil, "a reducer ran inside another reducer")
        context.reducing = Unmanaged.passUnretained(self)
        defer { context.reducing = nil }
        return body()
    }

    /// Runs what the last reducer submitted; the store calls it once the reducer's result is
    /// published, so that work sees the new state.
    // The check inline, the work not: called on every dispatch, mostly with nothing to run.
    @inline(__always)
    func runDeferred() {
        if !deferred.isEmpty { runDeferredJobs() }
    }

    @inline(never)
    private func runDeferredJobs() {
        publishIfNeeded()
        let jobs = deferred
        deferred = []
        for (target, job, kind, generation) in jobs {
            target.submit(kind, generation: generation, job)
        }
    }

    /// Whether the calling thread is inside this drain's reducer.
    var isReducingOnCurrentThread: Bool {
        ThreadContext.withCurrent { $0.reducing?.toOpaque() == Unmanaged.passUnretained(self).toOpaque() }
    }

    /// Runs `body` under the drain's lock: for the little state its owner shares with every
    /// thread (a store's published state). Never call user code in `body`.
    @inline(__always)
    func locked<Result>(_ body: () -> Result) -> Result {
        machine.withLock { _ in body() }
    }

    /// Whether the calling thread may touch state confined to this drain.
    var isAccessibleFromCurrentThread: Bool {
        ThreadContext.withCurrent { $0.owns(self) }
    }

    /// The owner starts waiting for another thread (see ``ThreadContext/parked(_:)``).
    func park() {
        // Held tasks must not wait for the thread this one waits for.
        var senders: [UnsafeContinuation<Void, Never>] = []
        swap(&senders, &heldSenders)
        jobsHoldingSenders = 0
        Self.resume(senders)
        machine.withLock { $0.park() }
        machine.broadcast()
    }

    /// The owner resumes.
    func unpark() {
        machine.withLock { $0.unpark() }
    }

    /// A snapshot of the machine, for tests and diagnostics.
    var snapshot: DrainStateMachine {
        machine.withLock { $0 }
    }

    fileprivate func clearMark(_ serial: UInt64) {
        machine.withLock { machine in
            machine.clearMark(serial)
            rc_store_relaxed(callSlots + Self.markCountSlot, UInt(machine.removalMarks.count))
        }
        // A remover may be waiting on a call that has ended meanwhile.
        machine.broadcast()
    }

    private static func isCalling(
        tag: UInt,
        _ scope: DrainStateMachine.RemovalScope,
        in slots: UnsafeMutablePointer<UInt>
    ) -> Bool {
        let depth = Int(rc_load_relaxed(slots + depthSlot))
        // Levels beyond the published ones are unknown: assume they call what is removed.
        if depth > maxPublishedCalls { return true }
        for level in 0..<depth where rc_load_relaxed(slots + firstCallSlot + 2 * level) == tag {
            guard case .member(let member) = scope else { return true }
            if rc_load_relaxed(slots + firstCallSlot + 2 * level + 1) == UInt(truncatingIfNeeded: member) {
                return true
            }
        }
        return false
    }

    private func runAsOwner(_ job: () -> Void, generation: Int, context: ThreadContext) {
        context.enter(self)
        let outer = context.generation
        context.generation = generation
        assert(local.isEmpty && afterCurrent.isEmpty, "a drain's first job found jobs left behind")
        job()
        runLocalJobs(context)
        drainQueue(ownTicket: nil, context: context)
        context.generation = outer
        context.leave(self)
    }

    /// Runs queued jobs until the machine says to stop. The caller owns the drain.
    private func drainQueue(ownTicket: UInt64?, context: ThreadContext) {
        var finishedJob = false
        while true {
            if !local.isEmpty || !afterCurrent.isEmpty {
                // The release of the job just run (its closure, and what it captured, such as an
                // action whose `deinit` dispatches or unsubscribes) submitted work: it runs now,
                // as part of that job, not with the next one.
                runLocalJobs(context)
            }
            var publishesInStep = false
            if needsPublishing {
                needsPublishing = false
                publishesInStep = publishesWithoutRelease()
                if !local.isEmpty || !afterCurrent.isEmpty {
                    // A `deinit` the release ran dispatched (or reduced through a middleware's
                    // `next`): its work runs now, as part of this job, not with the next job.
                    runLocalJobs(context)
                    continue
                }
            }
            var senders: [UnsafeContinuation<Void, Never>] = []
            let step = machine.withLock { machine in
                if publishesInStep {
                    // Moves, copies and retains only, and nothing set aside to release (no user
                    // code under the lock); the publisher is kept by `publisherOwner`, as above.
                    publisher?._withUnsafeGuaranteedRef { $0.publish() }
                }
                let step = machine.next(finishedJob: finishedJob, ownTicket: ownTicket)
                if step.endsOwnership, !heldSenders.isEmpty {
                    // Taken while the drain is still this thread's: the next owner holds its own.
                    swap(&senders, &heldSenders)
                    jobsHoldingSenders = 0
                }
                return step
            }
            switch step {
            case .run(let job, let generation, let wakesWaiters):
                if wakesWaiters { machine.broadcast() }
                context.generation = generation
                assert(local.isEmpty && afterCurrent.isEmpty, "a queued job found jobs left behind")
                job()
                runLocalJobs(context)
                finishedJob = true
                resumeLongHeldSenders()
            case .release(let wakesWaiters):
                if wakesWaiters { machine.broadcast() }
                Self.resume(senders)
                return
            case .handOff(let wakesWaiters):
                if wakesWaiters { machine.broadcast() }
                Self.resume(senders)
                // The caller returns; the queue goes on elsewhere: on a queue of its own, not on
                // Dispatch's global pool. A serial queue a program makes gets a thread even when
                // the pool's threads are all taken (by blocks that may be waiting for this very
                // queue's actions: with the global pool, those waits would never end).
                DispatchQueue(label: "ReduxConsumer.Drain.handOff").async { [self] in serveQueue() }
                return
            }
        }
    }

    /// Runs the queue a ``DrainStateMachine/Step/handOff(wakesWaiters:)`` left, on this thread of
    /// no caller's, unless another thread took the drain meanwhile (it hands over again if it must).
    private func serveQueue() {
        let context = ThreadContext.current
        guard machine.withLock({ $0.acquireToServe(by: ObjectIdentifier(context)) }) else { return }
        context.enter(self)
        let outer = context.generation
        drainQueue(ownTicket: nil, context: context)
        context.generation = outer
        context.leave(self)
    }

    /// Runs the jobs the job just run left: each job's ``afterCurrentJob(generation:_:)`` jobs
    /// right after it, in order (and theirs right after each of them), then the next job of
    /// `local`, which may grow while its jobs run (a dispatch from a callback of a queued dispatch).
    private func runLocalJobs(_ context: ThreadContext) {
        guard !local.isEmpty || !afterCurrent.isEmpty else { return }
        var index = 0
        // The jobs that must run before `local[index...]`, the next one last: a job's own
        // after-jobs go on top, ahead of those of the jobs before it.
        var ahead: [(job: DrainJob, generation: Int)] = []
        while true {
            if !afterCurrent.isEmpty {
                ahead.append(contentsOf: afterCurrent.reversed())
                afterCurrent.removeAll(keepingCapacity: afterCurrent.count <= 64)
            }
            let next: (job: DrainJob, generation: Int)
            if let first = ahead.popLast() {
                next = first
            } else if index < local.count {
                next = local[index]
                // Released as soon as it has run, while this loop still reads the lists: a
                // `deinit` the release runs (of an action the job captured) may dispatch or
                // unsubscribe, which submits work here; released with the list instead, that
                // work would change the list while it is being emptied.
                local[index].job = {}
                index += 1
            } else {
                break
            }
            context.generation = next.generation
            next.job()
        }
        // Only jobs that ran and were replaced above: emptying the list releases nothing of theirs.
        local.removeAll(keepingCapacity: local.count <= 64)
    }

    /// Blocks until the job with `ticket` has run, running the queue if the drain is handed over.
    private func wait(for ticket: UInt64, context: ThreadContext) {
        let thread = ObjectIdentifier(context)
        let ownsDrain = machine.withLock(waitingUntil: { $0.isSettled(ticket: ticket) }) {
            $0.settle(ticket: ticket, thread: thread)
        }
        guard ownsDrain else { return }
        context.enter(self)
        let outer = context.generation
        drainQueue(ownTicket: ticket, context: context)
        context.generation = outer
        context.leave(self)
    }

    private func assertOwned(by context: ThreadContext) {
        assert(context.owns(self), "a drain's confined state was touched by a thread that does not run it")
    }
}
