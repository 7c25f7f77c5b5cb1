import ReduxConsumerTestSupport
import Testing

@testable import ReduxConsumer

/// The drain's rules alone, transition by transition: a value type, so every step is checked
/// without threads. (`DrainTests` runs the same rules through `Drain`, with threads.)
struct DrainStateMachineTests {
    private let first = ObjectIdentifier(FirstThread.self)
    private let second = ObjectIdentifier(SecondThread.self)
    private let third = ObjectIdentifier(ThirdThread.self)

    // MARK: Acquiring and queueing

    @Test func theFirstThreadAcquiresAnIdleDrain() {
        let machine = Machine()
        #expect(machine.owner == nil && machine.isQueueEmpty)
        #expect(machine.acquire(by: first))
        #expect(machine.owner == first)
        #expect(!machine.acquire(by: second))
        #expect(machine.owner == first)
    }

    @Test func jobsForABusyDrainAreQueuedWithTicketsInOrder() {
        let machine = Machine()
        let log = Recorder<String>()
        #expect(machine.acquireOrEnqueue(job("ignored", log), by: first, generation: 0, isWaited: true) == .acquired)
        #expect(
            machine.acquireOrEnqueue(job("a", log), by: second, generation: 3, isWaited: true) == .queued(ticket: 1))
        #expect(machine.enqueue(job("b", log), generation: 4, isWaited: false) == 2)
        #expect(machine.acquireOrEnqueue(job("c", log), by: third, generation: 5, isWaited: true) == .queued(ticket: 3))
        #expect(machine.queuedCount == 3)
        #expect(machine.issued == 3 && machine.finished == 0)
        // Only waited-for jobs count their submitters as waiting.
        #expect(machine.waitingThreads == 2)
        #expect(machine.queuedWaitedEntries == 2)
        #expect(log.values.isEmpty)
    }

    @Test func anIdleDrainWithQueuedJobsIsNotAcquiredPastThem() {
        let machine = Machine()
        #expect(machine.acquire(by: first))
        _ = machine.enqueue(job(), generation: 0, isWaited: true)
        // The owner hands over: the drain has no owner, but the waiter's job comes first.
        #expect(releases(machine.next(finishedJob: false, ownTicket: nil)) == true)
        #expect(machine.owner == nil)
        #expect(!machine.acquire(by: third))
        #expect(machine.acquireOrEnqueue(job(), by: third, generation: 0, isWaited: true) == .queued(ticket: 2))
    }

    // MARK: The owner's steps

    @Test func theOwnerRunsJobsNobodyWaitsForInOrderThenReleases() {
        let machine = Machine()
        let log = Recorder<String>()
        #expect(machine.acquire(by: first))
        _ = machine.enqueue(job("a", log), generation: 7, isWaited: false)
        _ = machine.enqueue(job("b", log), generation: 8, isWaited: false)
        #expect(run(machine.next(finishedJob: false, ownTicket: nil)) == 7)
        #expect(run(machine.next(finishedJob: true, ownTicket: nil)) == 8)
        #expect(releases(machine.next(finishedJob: true, ownTicket: nil)) == false)
        #expect(log.values == ["a", "b"])
        #expect(machine.owner == nil && machine.isQueueEmpty)
        #expect(machine.finished == 2)
    }

    @Test func anOwnerWhoseOwnJobIsDoneHandsOverOnceAWaitedJobIsQueued() {
        let machine = Machine()
        let log = Recorder<String>()
        #expect(machine.acquire(by: first))
        // A job nobody waits for, then one its submitter waits for: the owner leaves both.
        _ = machine.enqueue(job("unwaited", log), generation: 0, isWaited: false)
        let ticket = machine.enqueue(job("waited", log), generation: 0, isWaited: true)
        #expect(releases(machine.next(finishedJob: false, ownTicket: nil)) == true)
        #expect(machine.owner == nil)

        // The waiter wakes, takes the drain and runs the queue up to its own job.
        #expect(machine.isSettled(ticket: ticket))
        #expect(machine.settle(ticket: ticket, thread: second))
        #expect(machine.owner == second && machine.waitingThreads == 0)
        run(machine.next(finishedJob: false, ownTicket: ticket))
        run(machine.next(finishedJob: true, ownTicket: ticket))
        #expect(releases(machine.next(finishedJob: true, ownTicket: ticket)) == false)
        #expect(log.values == ["unwaited", "waited"])
        #expect(machine.owner == nil && machine.finished == 2)
    }

    @Test func anOwnerWhoseOwnJobIsDoneLeavesTheQueueAfterAFixedNumberOfJobs() {
        let machine = Machine()
        let log = Recorder<Int>()
        #expect(machine.acquire(by: first))
        let limit = DrainStateMachine.maxJobsBeyondOwn
        for index in 0..<(limit + 44) {
            _ = machine.enqueue({ log.append(index) }, generation: 0, isWaited: false)
        }
        var (step, ran) = runJobs(of: machine, ownTicket: nil)
        // The caller's thread stops; the queue waits for a thread of no caller's.
        guard case .handOff = step else {
            Issue.record("expected the owner to hand the queue over, got \(step)")
            return
        }
        #expect(ran == limit)
        #expect(machine.owner == nil && machine.queuedCount == 44)
        #expect(!machine.acquire(by: second), "a submitter queues behind what is left")
        #expect(machine.acquireToServe(by: third))
        (step, ran) = runJobs(of: machine, ownTicket: nil)
        #expect(releases(step) == false)
        #expect(ran == 44)
        #expect(log.values == Array(0..<(limit + 44)))
        #expect(!machine.acquireToServe(by: third), "nothing left to serve")
    }

    @Test func anOwnerRunsJobsAheadOfItsOwnWhateverTheirNumber() {
        let machine = Machine()
        #expect(machine.acquire(by: first))
        let limit = DrainStateMachine.maxJobsBeyondOwn
        for _ in 0..<(limit * 2) {
            _ = machine.enqueue(job(), generation: 0, isWaited: false)
        }
        let ticket = machine.enqueue(job(), generation: 0, isWaited: true)
        for _ in 0..<10 {
            _ = machine.enqueue(job(), generation: 0, isWaited: false)
        }
        // The first owner leaves at once for the waiter (its own job ran at once).
        #expect(releases(machine.next(finishedJob: false, ownTicket: nil)) == true)
        #expect(machine.settle(ticket: ticket, thread: second))
        let (step, ran) = runJobs(of: machine, ownTicket: ticket)
        #expect(releases(step) == false, "then the ten after it, and the queue is empty")
        #expect(ran == limit * 2 + 1 + 10)
    }

    @Test func anOwnerRunsWaitedJobsAheadOfItsOwnThenHandsOver() {
        let machine = Machine()
        let log = Recorder<String>()
        #expect(machine.acquire(by: first))
        let secondTicket = machine.enqueue(job("second", log), generation: 0, isWaited: true)
        let thirdTicket = machine.enqueue(job("third", log), generation: 0, isWaited: true)
        let fourthTicket = machine.enqueue(job("fourth", log), generation: 0, isWaited: true)
        #expect(releases(machine.next(finishedJob: false, ownTicket: nil)) == true)

        // The third thread wakes first: it runs the second's job, then its own, then hands over.
        #expect(machine.isSettled(ticket: thirdTicket))
        #expect(machine.settle(ticket: thirdTicket, thread: third))
        run(machine.next(finishedJob: false, ownTicket: thirdTicket))
        run(machine.next(finishedJob: true, ownTicket: thirdTicket))
        #expect(releases(machine.next(finishedJob: true, ownTicket: thirdTicket)) == true)
        #expect(log.values == ["second", "third"])

        // The second thread's job has run: it returns without owning the drain.
        #expect(machine.isSettled(ticket: secondTicket))
        #expect(!machine.settle(ticket: secondTicket, thread: second))
        #expect(machine.owner == nil)

        // The last waiter takes the drain for its own job.
        #expect(machine.isSettled(ticket: fourthTicket))
        #expect(machine.settle(ticket: fourthTicket, thread: first))
        run(machine.next(finishedJob: false, ownTicket: fourthTicket))
        #expect(releases(machine.next(finishedJob: true, ownTicket: fourthTicket)) == false)
        #expect(log.values == ["second", "third", "fourth"])
        #expect(machine.waitingThreads == 0 && machine.queuedWaitedEntries == 0)
    }

    @Test func aWaiterIsSettledOnceItsJobRanOnTheOwnersThread() {
        let machine = Machine()
        let log = Recorder<String>()
        #expect(machine.acquire(by: first))
        _ = machine.enqueue(job("unwaited", log), generation: 0, isWaited: false)
        let secondTicket = machine.enqueue(job("second", log), generation: 0, isWaited: true)
        let thirdTicket = machine.enqueue(job("third", log), generation: 0, isWaited: true)
        #expect(releases(machine.next(finishedJob: false, ownTicket: nil)) == true)

        // The third thread takes the drain; the second waits while its job is queued or running.
        #expect(machine.settle(ticket: thirdTicket, thread: third))
        #expect(!machine.isSettled(ticket: secondTicket))
        run(machine.next(finishedJob: false, ownTicket: thirdTicket))
        #expect(!machine.isSettled(ticket: secondTicket))
        #expect(wakes(machine.next(finishedJob: true, ownTicket: thirdTicket)) == false)
        #expect(!machine.isSettled(ticket: secondTicket))
        // The second's job is done: the owner wakes it before running its own.
        #expect(wakes(machine.next(finishedJob: true, ownTicket: thirdTicket)) == true)
        #expect(machine.isSettled(ticket: secondTicket))
        #expect(!machine.settle(ticket: secondTicket, thread: second))
        #expect(releases(machine.next(finishedJob: true, ownTicket: thirdTicket)) == false)
        #expect(log.values == ["unwaited", "second", "third"])
    }

    @Test func aLongQueueKeepsItsOrderWhileItIsCompacted() {
        let machine = Machine()
        let log = Recorder<Int>()
        #expect(machine.acquire(by: first))
        var submitted = 0
        var ran = 0
        // Runs more than 1,024 jobs while more are queued, so the queue compacts its storage.
        for _ in 0..<3 {
            for _ in 0..<1_500 {
                let value = submitted
                _ = machine.enqueue({ log.append(value) }, generation: 0, isWaited: false)
                submitted += 1
            }
            for _ in 0..<1_100 {
                run(serving(machine.next(finishedJob: ran > 0, ownTicket: nil), in: machine))
                ran += 1
            }
        }
        while case .run(let job, _, _) = serving(machine.next(finishedJob: true, ownTicket: nil), in: machine) {
            job()
        }
        #expect(log.values == Array(0..<submitted))
        #expect(machine.finished == UInt64(submitted) && machine.issued == UInt64(submitted))
        #expect(machine.owner == nil && machine.isQueueEmpty)
    }

    // MARK: Submissions around a release

    @Test func aSubmissionRightAfterTheOwnerReleasedAcquiresTheDrain() {
        let machine = Machine()
        #expect(machine.acquire(by: first))
        #expect(releases(machine.next(finishedJob: false, ownTicket: nil)) == false)
        #expect(machine.acquireOrEnqueue(job(), by: second, generation: 0, isWaited: true) == .acquired)
        #expect(machine.owner == second)
    }

    @Test func aSubmissionJustBeforeTheOwnerReleasesIsRunByTheOwner() {
        let machine = Machine()
        let log = Recorder<String>()
        #expect(machine.acquire(by: first))
        // From a thread inside another drain's work: it does not wait, so the owner runs it.
        #expect(
            machine.acquireOrEnqueue(job("late", log), by: second, generation: 2, isWaited: false) == .queued(ticket: 1)
        )
        #expect(run(machine.next(finishedJob: false, ownTicket: nil)) == 2)
        #expect(releases(machine.next(finishedJob: true, ownTicket: nil)) == false)
        #expect(log.values == ["late"])
    }

    @Test func aWaitedSubmissionJustBeforeTheOwnerReleasesIsHandedTheDrain() {
        let machine = Machine()
        let log = Recorder<String>()
        #expect(machine.acquire(by: first))
        let ticket = machine.enqueue(job("late", log), generation: 0, isWaited: true)
        #expect(releases(machine.next(finishedJob: false, ownTicket: nil)) == true)
        #expect(machine.settle(ticket: ticket, thread: second))
        run(machine.next(finishedJob: false, ownTicket: ticket))
        #expect(releases(machine.next(finishedJob: true, ownTicket: ticket)) == false)
        #expect(log.values == ["late"])
    }

    // MARK: Parking

    @Test func theOwnerParksAndUnparks() {
        let machine = Machine()
        #expect(machine.acquire(by: first))
        #expect(!machine.isOwnerParked)
        machine.park()
        #expect(machine.isOwnerParked && machine.owner == first)
        machine.unpark()
        #expect(!machine.isOwnerParked)
        #expect(releases(machine.next(finishedJob: false, ownTicket: nil)) == false)
    }

    // MARK: Removal marks

    @Test func aRemovalFromAnIdleDrainAcquiresItWithoutAMark() {
        let machine = Machine()
        let admission = machine.acquireOrMark(
            tag: 7, scope: .member(1), job: { _ in job() }, by: first, generation: 0)
        #expect(admission == .acquired)
        #expect(machine.owner == first)
        #expect(machine.removalMarks.isEmpty)
    }

    @Test func aRemovalFromABusyDrainIsMarkedAndQueuedWithoutWaiting() {
        let machine = Machine()
        let log = Recorder<String>()
        #expect(machine.acquire(by: first))
        let admission = machine.acquireOrMark(
            tag: 7, scope: .member(1), job: { serial in job("remove \(serial)", log) }, by: second, generation: 3)
        #expect(admission == .queued(ticket: 1))
        #expect(machine.removalMarks == [DrainStateMachine.RemovalMark(serial: 1, tag: 7, scope: .member(1))])
        // The remover does not wait for its job: the mark already makes the removal final.
        #expect(machine.waitingThreads == 0 && machine.queuedWaitedEntries == 0)
        #expect(run(machine.next(finishedJob: false, ownTicket: nil)) == 3)
        #expect(log.values == ["remove 1"])
    }

    @Test func marksCoverWhatTheirScopeRemoves() {
        let machine = Machine()
        #expect(machine.acquire(by: first))
        _ = machine.acquireOrMark(tag: 7, scope: .member(1), job: { _ in job() }, by: second, generation: 0)
        #expect(machine.isMarked(tag: 7, member: 1))
        #expect(!machine.isMarked(tag: 7, member: 2))
        #expect(!machine.isMarked(tag: 8, member: 1))

        _ = machine.acquireOrMark(
            tag: 8, scope: .everyMember(through: 99), job: { _ in job() }, by: second, generation: 0)
        #expect(machine.isMarked(tag: 8, member: 1) && machine.isMarked(tag: 8, member: 99))
        #expect(!machine.isMarked(tag: 8, member: 100))

        _ = machine.acquireOrMark(tag: 9, scope: .registration, job: { _ in job() }, by: second, generation: 0)
        #expect(machine.isMarked(tag: 9, member: 0) && machine.isMarked(tag: 9, member: 5))
        #expect(!machine.isMarked(tag: 10, member: 0))
        #expect(machine.removalMarks.map(\.serial) == [1, 2, 3])
    }

    @Test func clearingAMarkForgetsThatMarkOnly() {
        let machine = Machine()
        #expect(machine.acquire(by: first))
        var serials: [UInt64] = []
        for member in [1, 1, 2] as [UInt64] {
            _ = machine.acquireOrMark(
                tag: 7, scope: .member(member),
                job: { serial in
                    serials.append(serial)
                    return job()
                }, by: second,
                generation: 0)
        }
        #expect(serials == [1, 2, 3])
        machine.clearMark(1)
        // Member 1 was removed twice: the second mark still covers it.
        #expect(machine.isMarked(tag: 7, member: 1))
        machine.clearMark(2)
        #expect(!machine.isMarked(tag: 7, member: 1))
        #expect(machine.isMarked(tag: 7, member: 2))
        machine.clearMark(3)
        machine.clearMark(3)
        #expect(machine.removalMarks.isEmpty)
    }

    @Test func scopesSayWhichMembersTheyCover() {
        #expect(DrainStateMachine.RemovalScope.member(3).covers(3))
        #expect(!DrainStateMachine.RemovalScope.member(3).covers(4))
        #expect(DrainStateMachine.RemovalScope.everyMember(through: 4).covers(4))
        #expect(!DrainStateMachine.RemovalScope.everyMember(through: 4).covers(5))
        #expect(DrainStateMachine.RemovalScope.registration.covers(4))
    }

    // MARK: Helpers

    /// `step`, unless it hands the queue over: then the next step of a thread that takes the drain
    /// to serve it (`first`, as the tests here need no other).
    private func serving(_ step: DrainStateMachine.Step, in machine: Machine) -> DrainStateMachine.Step {
        guard case .handOff = step else { return step }
        #expect(machine.acquireToServe(by: first))
        return machine.next(finishedJob: false, ownTicket: nil)
    }

    /// Runs jobs as the owner of `machine` (whose own job, if queued, has `ownTicket`) until the
    /// machine says to stop: that last step, and how many jobs ran.
    private func runJobs(of machine: Machine, ownTicket: UInt64?) -> (DrainStateMachine.Step, Int) {
        var step = machine.next(finishedJob: false, ownTicket: ownTicket)
        var ran = 0
        while case .run(let job, _, _) = step {
            job()
            ran += 1
            step = machine.next(finishedJob: true, ownTicket: ownTicket)
        }
        return (step, ran)
    }

    /// Whether `step` releases the drain, and then whether it wakes waiters; `nil` for `.run`.
    private func releases(_ step: DrainStateMachine.Step) -> Bool? {
        guard case .release(let wakesWaiters) = step else { return nil }
        return wakesWaiters
    }

    /// Runs the job of a `.run` step and returns whether the step wakes waiters first; `nil` (and
    /// an issue) for any other step.
    private func wakes(_ step: DrainStateMachine.Step, sourceLocation: SourceLocation = #_sourceLocation) -> Bool? {
        guard case .run(_, _, let wakesWaiters) = step else {
            Issue.record("expected a job to run, got \(step)", sourceLocation: sourceLocation)
            return nil
        }
        run(step, sourceLocation: sourceLocation)
        return wakesWaiters
    }

    private func job(_ name: String = "", _ log: Recorder<String>? = nil) -> DrainJob {
        { log?.append(name) }
    }

    /// Runs the job of a `.run` step and returns its generation; records an issue for any other step.
    @discardableResult
    private func run(_ step: DrainStateMachine.Step, sourceLocation: SourceLocation = #_sourceLocation) -> Int? {
        guard case .run(let job, let generation, _) = step else {
            Issue.record("expected a job to run, got \(step)", sourceLocation: sourceLocation)
            return nil
        }
        job()
        return generation
    }
}

/// The machine under test, boxed so that `#expect` can call its mutating transitions.
@dynamicMemberLookup
private final class Machine {
    private var machine = DrainStateMachine()

    subscript<Value>(dynamicMember keyPath: KeyPath<DrainStateMachine, Value>) -> Value {
        machine[keyPath: keyPath]
    }

    func acquire(by thread: ObjectIdentifier) -> Bool {
        machine.acquire(by: thread)
    }

    func enqueue(_ job: @escaping DrainJob, generation: Int, isWaited: Bool) -> UInt64 {
        machine.enqueue(job, generation: generation, isWaited: isWaited)
    }

    func acquireOrEnqueue(
        _ job: @escaping DrainJob, by thread: ObjectIdentifier, generation: Int, isWaited: Bool
    ) -> DrainStateMachine.Admission {
        machine.acquireOrEnqueue(job, by: thread, generation: generation, isWaited: isWaited)
    }

    func acquireOrMark(
        tag: UInt, scope: DrainStateMachine.RemovalScope, job: (UInt64) -> DrainJob, by thread: ObjectIdentifier,
        generation: Int
    ) -> DrainStateMachine.Admission {
        machine.acquireOrMark(tag: tag, scope: scope, job: job, by: thread, generation: generation)
    }

    func next(finishedJob: Bool, ownTicket: UInt64?) -> DrainStateMachine.Step {
        machine.next(finishedJob: finishedJob, ownTicket: ownTicket)
    }

    func acquireToServe(by thread: ObjectIdentifier) -> Bool {
        machine.acquireToServe(by: thread)
    }

    func isSettled(ticket: UInt64) -> Bool {
        machine.isSettled(ticket: ticket)
    }

    func settle(ticket: UInt64, thread: ObjectIdentifier) -> Bool {
        machine.settle(ticket: ticket, thread: thread)
    }

    func park() {
        machine.park()
    }

    func unpark() {
        machine.unpark()
    }

    func isMarked(tag: UInt, member: UInt64) -> Bool {
        machine.isMarked(tag: tag, member: member)
    }

    func clearMark(_ serial: UInt64) {
        machine.clearMark(serial)
    }
}

private enum FirstThread {}
private enum SecondThread {}
private enum ThirdThread {}
